"""A property over writers: the same small tables written by R (``write.csv``, ``write.csv2``,
``write.table`` with and without quotes, row and column names) and by pandas (``to_csv`` of
DataFrames and Series with default, named and unnamed indexes, comma or tab), then gzip, CRLF
and a byte-order mark, read back by every reader of the project. Each reader gives back the
table that was written, or refuses with a message naming the file: never a different table.

The tables are generated from fixed seeds with the labels people use: none, names, integer
ids in order (years) or not (Entrez ids), numbers as names. R writes all of its files in one
``Rscript`` run per module.
"""

from __future__ import annotations

import gzip
import io
import shutil
import subprocess
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

from oclstat._readers import open_text, read_frame, read_groups
from oclstat.genotypes import read_genotype_table
from oclstat.io import (
    read_cls,
    read_gct,
    read_gmt,
    read_rnk,
    read_table,
    write_cls,
    write_gct,
    write_gmt,
)

N_TABLES = 24

# ----------------------------------------------------------------------------- the tables


def _labels(rng, n: int, kind: str, prefix: str) -> list | None:
    if kind == "none":
        return None
    if kind == "names":
        return [f"{prefix}{chr(65 + i)}{int(rng.integers(10))}" for i in range(n)]
    if kind == "years":
        start = int(rng.integers(1990, 2020))
        return list(range(start, start + n))
    if kind == "ids":
        return [int(v) for v in rng.choice(np.arange(100, 99999), size=n, replace=False)]
    return [str(v) for v in rng.choice(np.arange(1, 60), size=n, replace=False)]   # "numbers"


def tables():
    """(table, name): small integer tables with every kind of row and column labels."""
    kinds = ["none", "names", "years", "ids", "numbers"]
    out = []
    for seed in range(N_TABLES):
        rng = np.random.default_rng(seed)
        n_rows, n_cols = int(rng.integers(2, 6)), int(rng.integers(2, 6))
        values = rng.integers(0, 60, size=(n_rows, n_cols))
        rows = _labels(rng, n_rows, kinds[seed % 5], "r")
        cols = _labels(rng, n_cols, kinds[(seed // 5) % 5], "c")
        out.append((pd.DataFrame(values, index=rows, columns=cols), f"t{seed}"))
    return out


@dataclass
class Written:
    """A file and what its writer put in it: the values and the labels as text (None where
    the writer wrote none)."""

    path: object
    writer: str
    values: np.ndarray
    row_names: list | None
    col_names: list | None
    extra: dict = field(default_factory=dict)


def _variants(path, seed: int) -> list:
    """The file itself and, by turns, gzip / CRLF / BOM copies of it."""
    raw = path.read_bytes()
    out = [path]
    choice = seed % 4
    if choice in (1, 3):
        p = path.with_name(path.name + ".crlf")
        p.write_bytes(raw.replace(b"\n", b"\r\n"))
        out.append(p)
    if choice in (2, 3):
        p = path.with_name(path.name + ".bom")
        p.write_bytes(b"\xef\xbb\xbf" + raw)
        out.append(p)
    p = path.with_name(path.name + ".gz")
    p.write_bytes(gzip.compress(raw if seed % 2 else b"\xef\xbb\xbf" + raw))
    out.append(p)
    return out


def pandas_files(folder) -> list[Written]:
    out = []
    for seed, (frame, name) in enumerate(tables()):
        for index in (True, False):
            for header in (True, False):
                for sep in (",", "\t"):
                    for index_name in (None, "id"):
                        if index_name and not index:
                            continue
                        f = frame.rename_axis(index_name)
                        path = folder / f"{name}_{int(index)}{int(header)}{ord(sep)}" \
                                        f"{index_name or ''}.txt"
                        f.to_csv(path, index=index, header=header, sep=sep)
                        rows = [str(r) for r in f.index] if index else None
                        cols = [str(c) for c in f.columns] if header else None
                        for p in _variants(path, seed):
                            out.append(Written(p, f"pandas to_csv(index={index}, header="
                                               f"{header}, sep={sep!r}, index name "
                                               f"{index_name})", frame.to_numpy(), rows, cols))
    return out


R_WRITERS = {
    "write.csv": ('write.csv(m, "{f}")', True, True),
    "write.csv no row names": ('write.csv(m, "{f}", row.names = FALSE)', True, False),
    "write.csv2": ('write.csv2(m, "{f}")', True, True),
    "write.table": ('write.table(m, "{f}")', True, True),
    "write.table tab": ('write.table(m, "{f}", sep = "\\t")', True, True),
    "write.table unquoted": ('write.table(m, "{f}", quote = FALSE, sep = "\\t")', True, True),
    "write.table no row names": ('write.table(m, "{f}", row.names = FALSE)', True, False),
    "write.table no col names": ('write.table(m, "{f}", col.names = FALSE)', False, True),
    "write.table neither": ('write.table(m, "{f}", row.names = FALSE, col.names = FALSE)',
                            False, False),
}


def _r_vector(values) -> str:
    return "c(" + ", ".join(f'"{v}"' for v in values) + ")"


def r_files(folder) -> list[Written]:
    script, pending = [], []
    for seed, (frame, name) in enumerate(tables()):
        values = frame.to_numpy()
        rows = None if isinstance(frame.index, pd.RangeIndex) else [str(v) for v in frame.index]
        cols = None if isinstance(frame.columns, pd.RangeIndex) else \
            [str(v) for v in frame.columns]
        dimnames = f"list({_r_vector(rows) if rows else 'NULL'}, " \
                   f"{_r_vector(cols) if cols else 'NULL'})"
        script.append(f"m <- matrix(c({', '.join(map(str, values.T.ravel()))}), "
                      f"{values.shape[0]}, dimnames = {dimnames})")
        r_rows = rows or [str(i + 1) for i in range(values.shape[0])]
        r_cols = cols or [f"V{i + 1}" for i in range(values.shape[1])]
        for i, (writer, (code, has_cols, has_rows)) in enumerate(R_WRITERS.items()):
            path = folder / f"{name}_r{i}.txt"
            script.append(code.format(f=path))
            pending.append((path, seed, writer, values, r_rows if has_rows else None,
                            r_cols if has_cols else None))
    (folder / "write.R").write_text("\n".join(script) + "\n")
    subprocess.run(["Rscript", str(folder / "write.R")], check=True, timeout=300)
    out = []
    for path, seed, writer, values, rows, cols in pending:
        for p in _variants(path, seed):
            out.append(Written(p, f"R {writer}", values, rows, cols))
    return out


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> list[Written]:
    folder = tmp_path_factory.mktemp("writers")
    files = pandas_files(folder)
    if shutil.which("Rscript") is not None:
        files += r_files(folder)
    return files


def _refused(exc: ValueError, w: Written) -> None:
    assert str(w.path) in str(exc), (w.writer, w.path, exc)
    assert "say which with" in str(exc) or "could be" in str(exc) or \
        "no row or column" in str(exc) or "needs" in str(exc), (w.writer, w.path, exc)


# ----------------------------------------------------------------------------- numeric tables


def _integers(labels) -> bool:
    return labels is not None and all(str(v).lstrip("-").isdigit() for v in labels)


def readings(w: Written) -> list[tuple]:
    """(values, row names, column names, the option that reads the file as written) of every
    table whose writing gives these same bytes: as written, and where labels that are numbers
    went out unquoted, with them read as data instead (no reader can tell those apart; it must
    then say which option reads them as labels)."""
    out = [(w.values, w.row_names, w.col_names, None)]
    first = open_text(w.path)[0].splitlines()[0]
    if first.lstrip().startswith('"'):
        return out
    header_digits = w.col_names is not None and _integers(w.col_names) and (
        w.row_names is None)
    rows_digits = w.row_names is not None and _integers(w.row_names) and w.col_names is None
    if header_digits:
        values = np.vstack([np.array(w.col_names, dtype=float), w.values])
        out.append((values, None, None, "header=True"))
    if rows_digits:
        values = np.column_stack([np.array(w.row_names, dtype=float), w.values])
        out.append((values, None, None, "row_names=True"))
    return out


def test_tables_come_back_or_are_refused(written):
    """read_table (fisher's counts, permtest's features x samples)."""
    for w in written:
        try:
            t = read_table(w.path)
        except ValueError as exc:
            _refused(exc, w)
            # refusing is for coin flips only: labels that are numbers
            assert _integers(w.row_names) or _integers(w.col_names), (w.writer, w.path, exc)
            continue
        for values, rows, cols, option in readings(w):
            if t.values.shape == values.shape and np.array_equal(t.values, values) and \
                    t.row_names == rows and t.col_names == cols:
                if option is not None:
                    assert f"{option} reads it otherwise" in t.input.summary(), w.path
                break
        else:
            pytest.fail(f"{w.writer}: {w.path} read as a different table: {t.values.tolist()}, "
                        f"rows {t.row_names}, columns {t.col_names}; written: "
                        f"{w.values.tolist()}, rows {w.row_names}, columns {w.col_names}")


def test_frames_by_column_name_come_back_or_are_refused(written):
    """read_frame (fit-matern's coordinates, response and covariates, chosen by name)."""
    for w in written:
        if w.col_names is None:
            continue
        try:
            f = read_frame(w.path)
        except ValueError as exc:
            assert str(w.path) in str(exc), (w.writer, exc)
            continue
        columns = list(f.columns)
        if len(columns) == len(w.col_names) + 1 and "index name id" in w.writer:
            assert columns[0] == "id"          # pandas' named index: a column like the others
            f = f.iloc[:, 1:]
        assert list(f.columns) == w.col_names, (w.writer, w.path)
        np.testing.assert_array_equal(f.to_numpy(dtype=float), w.values,
                                      err_msg=f"{w.writer}: {w.path}")


# ----------------------------------------------------------------------------- genotypes


def genotype_cases():
    out = []
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        n_snps, n_samples = int(rng.integers(3, 7)), int(rng.integers(6, 12))
        g = rng.integers(0, 3, size=(n_snps, n_samples))
        g[-1] = rng.integers(0, 2, size=n_samples)           # a 0/1 SNP, as rare variants are
        y = rng.integers(0, 2, size=n_samples)
        snps = [f"rs{int(v)}" for v in rng.choice(1000, n_snps, replace=False)]
        samples = _labels(rng, n_samples, ["names", "ids", "none", "years"][seed % 4], "s")
        out.append((g, y, snps, samples, seed))
    return out


def test_genotype_tables_come_back_or_are_refused(tmp_path):
    for g, y, snps, samples, seed in genotype_cases():
        sample_major = pd.DataFrame(g.T, columns=snps, index=samples)
        sample_major.insert(seed % (len(snps) + 1), ["class", "status", "disease", "y"][seed % 4],
                            y)
        snp_major = pd.DataFrame(np.vstack([g, y]), index=[*snps, "VarSam"], columns=samples)
        files = []
        for layout, frame in (("sample-major", sample_major), ("snp-major", snp_major)):
            for index in (True, False):
                if layout == "snp-major" and not index:
                    continue                                    # SNP names are the index
                for sep in (",", "\t"):
                    path = tmp_path / f"g{seed}_{layout}_{int(index)}{ord(sep)}.csv"
                    frame.to_csv(path, index=index, sep=sep)
                    files += _variants(path, seed)
        for path in files:
            try:
                got = read_genotype_table(path)
            except ValueError as exc:
                assert str(path) in str(exc) and "say which with" in str(exc), exc
                continue
            np.testing.assert_array_equal(got.genotypes, g, err_msg=str(path))
            np.testing.assert_array_equal(got.phenotype, y, err_msg=str(path))
            assert got.snp_names == snps, (path, got.input.summary())


# ----------------------------------------------------------------------------- ranked lists


def test_ranked_lists_come_back_or_are_refused(tmp_path):
    for seed in range(10):
        rng = np.random.default_rng(200 + seed)
        n = int(rng.integers(3, 30))
        genes = [f"G{int(v)}" for v in rng.choice(10**5, n, replace=False)]
        stats = np.round(rng.normal(size=n), int(rng.integers(0, 6)))
        s = pd.Series(stats, index=genes, name=["stat", None][seed % 2])
        paths = []
        for sep in (",", "\t", " "):
            for header in (True, False):
                for index_name in (None, "gene"):
                    p = tmp_path / f"r{seed}_{ord(sep)}{int(header)}{index_name}.rnk"
                    s.rename_axis(index_name).to_csv(p, sep=sep, header=header)
                    paths += _variants(p, seed)
        if shutil.which("Rscript") is not None and seed < 3:
            p = tmp_path / f"r{seed}_R.rnk"
            code = (f'd <- data.frame(gene = {_r_vector(genes)}, stat = c('
                    f'{", ".join(repr(float(v)) for v in stats)})); '
                    f'write.table(d, "{p}", sep = "\\t", row.names = FALSE); '
                    f'write.table(d, "{p}.noq", sep = "\\t", quote = FALSE, row.names = FALSE, '
                    f'col.names = FALSE); write.csv(d, "{p}.csv", row.names = FALSE)')
            subprocess.run(["Rscript", "-e", code], check=True, timeout=120)
            paths += [p, p.with_name(p.name + ".noq"), p.with_name(p.name + ".csv")]
        for p in paths:
            try:
                got = read_rnk(p)
            except ValueError as exc:
                assert str(p) in str(exc) and "header=True or header=False" in str(exc), exc
                continue
            assert list(got.index) == genes, (p, got.attrs["input"].summary())
            np.testing.assert_array_equal(got.to_numpy(), stats, err_msg=str(p))


# ----------------------------------------------------------------------------- groups


def test_group_files_come_back_or_are_refused(tmp_path):
    for seed in range(8):
        rng = np.random.default_rng(300 + seed)
        n = int(rng.integers(4, 12))
        samples = [f"S{int(v)}" for v in rng.choice(1000, n, replace=False)]
        labels = list(rng.choice(["case", "ctrl"], size=n))
        s = pd.Series(labels, index=samples, name="group")
        files = []
        for header in (True, False):
            for sep in ("\t", ","):
                p = tmp_path / f"g{seed}_{int(header)}{ord(sep)}.txt"
                s.rename_axis("sample" if header else None).to_csv(p, sep=sep, header=header)
                files += [(p, "named")]
        p = tmp_path / f"g{seed}_lines.txt"
        p.write_text("\n".join(labels) + "\n")
        files.append((p, "positional"))
        p = tmp_path / f"g{seed}_header_lines.txt"
        p.write_text("group\n" + "\n".join(labels) + "\n")
        files.append((p, "positional"))
        if shutil.which("Rscript") is not None and seed < 3:
            p = tmp_path / f"g{seed}_R.txt"
            code = (f'write.table(data.frame(group = {_r_vector(labels)}), "{p}"); '
                    f'write.table(data.frame(group = {_r_vector(labels)}, row.names = '
                    f'{_r_vector(samples)}), "{p}.named", sep = "\\t")')
            subprocess.run(["Rscript", "-e", code], check=True, timeout=120)
            files += [(p, "positional"), (p.with_name(p.name + ".named"), "named")]
        order = list(rng.permutation(n))
        data_samples = [samples[i] for i in order]        # the data's own column order
        for path, kind in files:
            try:
                got, _, info = read_groups(path, data_samples)
            except ValueError as exc:
                assert str(path) in str(exc), exc
                continue
            if isinstance(got, pd.Series):
                assert got.loc[data_samples].tolist() == [labels[i] for i in order], path
            else:
                assert kind == "positional", (path, info.summary())
                assert got == labels, (path, info.summary())


# ----------------------------------------------------------------------------- GSEA files


def test_gsea_files_come_back_with_any_line_end_bom_or_gzip(tmp_path):
    rng = np.random.default_rng(7)
    expr = pd.DataFrame(np.round(rng.normal(size=(6, 4)), 6), index=[f"G{i}" for i in range(6)],
                        columns=["a", "b", "c", "d"])
    from oclstat.io import Phenotype

    pheno = Phenotype(("x", "y", "x", "y"), ("x", "y"))
    sets = {"S1": ["G1", "G2"], "S2": ["G3", "G4", "G5"]}
    for name, write, read, want in (
            ("e.gct", lambda f: write_gct(expr, f), read_gct, expr),
            ("p.cls", lambda f: write_cls(pheno, f), read_cls, pheno),
            ("s.gmt", lambda f: write_gmt(sets, f), read_gmt, sets)):
        path = tmp_path / name
        write(path)
        tabbed = path.with_name("tab." + name)
        tabbed.write_text("".join(ln + "\t\n" if ln.count("\t") else ln + "\n"
                                  for ln in path.read_text().splitlines()))
        for seed, p in enumerate([path, tabbed]):
            for v in _variants(p, seed + 1) + _variants(p, seed + 2):
                got = read(v)
                if isinstance(want, pd.DataFrame):
                    pd.testing.assert_frame_equal(got, want, check_names=False)
                else:
                    assert got == want, (v, got)
    assert read_gct(io.StringIO(tmp_path.joinpath("e.gct").read_text())).shape == (6, 4)
