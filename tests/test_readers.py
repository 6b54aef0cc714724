"""Files read as their authors meant them: tables written by R (write.csv, write.table) and
pandas (to_csv with and without index and header), with a byte-order mark, gzip and CRLF line
endings, come back with exactly the original numbers and labels, or are refused with a message
naming the file; never read wrongly. Also GCT, CLS and GMT with BOM and gzip, and the command
line's handling of such files."""

from __future__ import annotations

import gzip
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oclstat
from oclstat.cli import main
from oclstat.io import read_cls, read_gct, read_gmt, read_table

# ----------------------------------------------------------------------------- written by R

R_WRITERS = {
    "write.csv": ('write.csv(m, "{f}")', True, True),
    "write.csv, row.names=FALSE": ('write.csv(m, "{f}", row.names=FALSE)', True, False),
    "write.table": ('write.table(m, "{f}")', True, True),
    "write.table, tab": ('write.table(m, "{f}", sep="\\t")', True, True),
    "write.table, no row names": ('write.table(m, "{f}", row.names=FALSE)', True, False),
    "write.table, no col names": ('write.table(m, "{f}", col.names=FALSE)', False, True),
    "write.table, neither": ('write.table(m, "{f}", row.names=FALSE, col.names=FALSE)',
                             False, False),
}


@pytest.mark.r
@pytest.mark.parametrize("labels", ["named", "numbers", "none"])
def test_tables_written_by_r(tmp_path, labels):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript is not installed")
    values = np.array([[3, 1, 2], [1, 3, 5], [7, 0, 4], [2, 2, 9]])
    dimnames = {"named": 'list(c("r1","r2","r3","r4"), c("A","B","C"))',
                "numbers": 'list(c("11","12","13","14"), c("101","102","103"))',
                "none": "NULL"}[labels]
    script = [f"m <- matrix(c({','.join(map(str, values.T.ravel()))}), 4, 3, "
              f"dimnames={dimnames})"]
    for i, (code, _, _) in enumerate(R_WRITERS.values()):
        script.append(code.format(f=tmp_path / f"t{i}.txt"))
    subprocess.run(["Rscript", "-e", "; ".join(script)], check=True, timeout=120)
    rows = {"named": ["r1", "r2", "r3", "r4"], "numbers": ["11", "12", "13", "14"],
            "none": ["1", "2", "3", "4"]}[labels]
    cols = {"named": ["A", "B", "C"], "numbers": ["101", "102", "103"],
            "none": ["V1", "V2", "V3"]}[labels]
    for i, (name, (_, has_cols, has_rows)) in enumerate(R_WRITERS.items()):
        path = tmp_path / f"t{i}.txt"
        try:
            t = read_table(path)
        except ValueError as exc:                      # refusing is allowed, misreading is not
            assert str(path) in str(exc), (name, exc)
            continue
        np.testing.assert_array_equal(t.values, values, err_msg=name)
        assert t.col_names == (cols if has_cols else None), name
        assert t.row_names == (rows if has_rows else None), name


@pytest.mark.r
def test_fisher_reads_r_write_csv_like_r(tmp_path, capsys, R):
    """The issue's example: R's row names were read as counts (statistic -9.757, p 0.526)."""
    path = tmp_path / "r.csv"
    R.r(f'write.csv(matrix(c(3,1,1,3,2,5),2),"{path}")')
    r_p = R.r(f'fisher.test(as.matrix(read.csv("{path}", row.names = 1)))$p.value')[0]
    assert main(["fisher", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"p-value = {r_p:.4g}" in out
    assert "2 x 3 table of counts; header row" in out and "; row names (" in out
    assert "total 15" in out
    assert main(["fisher", str(path), "--method", "simulate", "--resamples", "1e4", "--seed",
                 "1"]) == 0
    out = capsys.readouterr().out
    want = oclstat.fisher_sim([[3, 1, 2], [1, 3, 5]], n_resamples=10**4, seed=1)
    assert want.statistic == pytest.approx(-(2 * np.log(6) + np.log(2) + np.log(120)))
    assert f"p-value = {want.pvalue:.4g}" in out


# ----------------------------------------------------------------------------- pandas, BOM, gzip

def names(n):
    """n distinct labels as people write them (letters first: not numbers)."""
    return st.lists(st.from_regex(r"[A-Za-z][A-Za-z0-9_.]{0,6}", fullmatch=True),
                    min_size=n, max_size=n, unique=True)


@st.composite
def written_tables(draw):
    n_rows = draw(st.integers(2, 6))
    n_cols = draw(st.integers(2, 6))
    values = np.array(draw(st.lists(st.integers(0, 5000), min_size=n_rows * n_cols,
                                    max_size=n_rows * n_cols))).reshape(n_rows, n_cols)
    rows = draw(st.one_of(st.none(), names(n_rows)))
    cols = draw(st.one_of(st.none(), names(n_cols)))
    frame = pd.DataFrame(values, index=rows, columns=cols)
    options = {"index": draw(st.booleans()), "header": draw(st.booleans()),
               "sep": draw(st.sampled_from([",", "\t"])),
               "bom": draw(st.booleans()), "gzip": draw(st.booleans()),
               "crlf": draw(st.booleans())}
    return frame, options


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(written_tables())
def test_pandas_tables_round_trip_or_are_refused(tmp_path_factory, case):
    frame, o = case
    text = frame.to_csv(index=o["index"], header=o["header"], sep=o["sep"],
                        lineterminator="\r\n" if o["crlf"] else "\n")
    data = (("\ufeff" if o["bom"] else "") + text).encode()
    path = tmp_path_factory.mktemp("t") / "table.txt"       # gzip recognised by content
    path.write_bytes(gzip.compress(data) if o["gzip"] else data)
    try:
        t = read_table(path)
    except ValueError as exc:
        assert str(path) in str(exc)
        return
    np.testing.assert_array_equal(t.values, frame.to_numpy())
    assert t.col_names == ([str(c) for c in frame.columns] if o["header"] else None)
    assert t.row_names == ([str(r) for r in frame.index] if o["index"] else None)


def test_headerless_table_keeps_its_first_row(tmp_path, shared_data, capsys):
    """`tail -n +2 month.csv` used to lose January without a word."""
    lines = (shared_data / "fisher" / "month.csv").read_text().splitlines()
    (tmp_path / "nh.csv").write_text("\n".join(lines[1:]) + "\n")
    t = read_table(tmp_path / "nh.csv")
    assert t.shape == (12, 12) and t.row_names[0] == "Jan" and t.col_names is None
    full = read_table(shared_data / "fisher" / "month.csv")
    np.testing.assert_array_equal(t.values, full.values)
    assert main(["fisher", str(tmp_path / "nh.csv"), "--method", "simulate", "--resamples", "200",
                 "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "12 x 12 table of counts; no header row (the first row is numbers; --header yes" \
        in out and "; row names (the first column holds labels ('Jan')" in out


@pytest.mark.parametrize("text,message", [
    ("0,1,2\n5,6,7\n", "header=True or header=False"),
    ("x,a,b\n1,5,6\n2,7,8\n3,9,9\n", "row_names=True or row_names=False"),
    ("a,b\n1,2\n3\n", "line 3: 1 fields"),
    ("a,b\n1,x\n", "'x' in column 2"),
    ("", "empty"),
])
def test_ambiguous_or_broken_tables_are_refused(tmp_path, text, message):
    path = tmp_path / "t.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as info:
        read_table(path)
    assert str(path) in str(info.value)


def test_layout_flags_settle_an_ambiguous_table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("0,1,2\n5,6,7\n")
    assert read_table(path, header=False).values.tolist() == [[0, 1, 2], [5, 6, 7]]
    assert read_table(path, header=True).col_names == ["0", "1", "2"]


def test_gsea_formats_with_bom_gzip_and_crlf(tmp_path, shared_data):
    d = shared_data / "gsea"
    for name, reader in (("P53.cls", read_cls), ("h.all.v5.0.symbols.gmt", read_gmt),
                         ("Leukemia_hgu95av2.trim.gct", read_gct)):
        raw = (d / name).read_bytes()
        want = reader(d / name)
        variants = {"bom": b"\xef\xbb\xbf" + raw, "crlf": raw.replace(b"\n", b"\r\n")}
        variants["gz"] = gzip.compress(variants["bom"])
        for tag, data in variants.items():
            path = tmp_path / (f"{tag}.{name}" + (".gz" if tag == "gz" else ""))
            path.write_bytes(data)
            got = reader(path)
            if isinstance(want, pd.DataFrame):
                pd.testing.assert_frame_equal(got, want)
            else:
                assert got == want, (name, tag)
    sets = read_gmt(tmp_path / "bom.h.all.v5.0.symbols.gmt")
    assert not any(k.startswith("\ufeff") for k in sets)


def test_a_damaged_or_foreign_file_names_itself(tmp_path):
    path = tmp_path / "x.gct.gz"
    path.write_bytes(b"\x1f\x8b\x08garbage")
    with pytest.raises(ValueError, match="x.gct.gz"):
        read_gct(path)
    path = tmp_path / "latin.gmt"
    path.write_bytes("S\tna\tG\xe9ne\n".encode("latin-1"))
    with pytest.raises(ValueError, match="latin.gmt: not UTF-8"):
        read_gmt(path)


def test_plain_gct_rows_read_as_the_general_tokenizer_reads_them(tmp_path):
    """Plain data rows take a fast path; a quoted field sends the file through the general
    tokenizer: both give the same frame."""
    rng = np.random.default_rng(1)
    values = rng.normal(size=(50, 4)).round(6)
    rows = [f"1007_s_at{i}\tna\t" + "\t".join(repr(float(v)) for v in row)
            for i, row in enumerate(values)]
    head = "#1.2\n50\t4\nNAME\tDescription\ta\tb\tc\td\n"
    plain, quoted = tmp_path / "plain.gct", tmp_path / "quoted.gct"
    plain.write_text(head + "\n".join(rows) + "\n")
    quoted.write_text(head + "\n".join(rows[:-1]) + '\n"' + rows[-1].replace("\t", '"\t', 1)
                      + "\n")
    a, b = oclstat.io.read_gct(plain), oclstat.io.read_gct(quoted)
    pd.testing.assert_frame_equal(a, b)
    np.testing.assert_array_equal(a.to_numpy(), values)
