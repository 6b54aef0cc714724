"""Probes collapsed to genes as Broad's GSEA does (CHIP files, the five collapse modes,
Collapse / Remap_Only / No_Collapse), checked against the modes' definitions computed here
with pandas and plain loops; GSEA and preranked GSEA on probe-level data equal to the same
analysis on the data collapsed by hand; GMX gene sets equal to the same sets read as GMT."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
import pytest

import oclstat
from oclstat.cli import main
from oclstat.io import (
    collapse_probes,
    read_chip,
    read_gct,
    read_gmt,
    read_gmx,
    write_gct,
    write_gmt,
    write_gmx,
)

CHIP = ("Probe Set ID\tGene Symbol\tGene Title\n"
        "p1\tTP53\ttumor protein p53\n"
        "p2\tTP53\ttumor protein p53\n"
        "p3\t---\t---\n"
        "p4\tMDM2\tMDM2 proto-oncogene\n"
        "p5\t\t\n"
        "p4\tMDM2\tMDM2 proto-oncogene\n")


def probe_data(seed=0, n_genes=300, n_samples=6):
    """Probes x samples with 1 to 4 probes per gene, some missing values, some probes
    without a symbol, and the chip."""
    rng = np.random.default_rng(seed)
    rows, chip, names = [], {}, []
    for g in range(n_genes):
        for _ in range(int(rng.integers(1, 5))):
            p = f"{g}_{len(names)}_at"
            names.append(p)
            chip[p] = f"GENE{g}"
            rows.append(rng.normal(size=n_samples) * 3)
    for k in range(20):                       # probes the chip does not name
        names.append(f"AFFX-{k}")
        rows.append(rng.normal(size=n_samples))
    values = np.array(rows)
    values[rng.random(values.shape) < 0.02] = np.nan
    frame = pd.DataFrame(values, index=pd.Index(names, name="NAME"),
                         columns=[f"s{i}" for i in range(n_samples)])
    return frame, chip


def by_definition(frame, chip, mode):
    """Broad's modes, written from the user guide: per gene and sample, over its probes."""
    rows: dict = {}
    for i, p in enumerate(frame.index):
        if p in chip:
            rows.setdefault(chip[p], []).append(i)
    values = frame.to_numpy(dtype=float)
    out = np.full((len(rows), values.shape[1]), np.nan)
    for g, idx in enumerate(rows.values()):
        for j in range(values.shape[1]):
            v = values[idx, j]
            v = v[~np.isnan(v)]
            if v.size == 0:
                continue
            if mode == "Max_probe":
                out[g, j] = v.max()
            elif mode == "Median_of_probes":
                out[g, j] = np.median(v)
            elif mode == "Mean_of_probes":
                out[g, j] = v.mean()
            elif mode == "Sum_of_probes":
                out[g, j] = v.sum()
            else:
                out[g, j] = v[np.abs(v) == np.abs(v).max()].max()   # a over -a
    return pd.DataFrame(out, index=list(rows), columns=frame.columns)


def test_read_chip_reads_broads_format_and_states_what_it_left_out(tmp_path):
    path = tmp_path / "x.chip.gz"
    path.write_bytes(gzip.compress(CHIP.encode()))
    chip = read_chip(path)
    assert dict(chip) == {"p1": "TP53", "p2": "TP53", "p4": "MDM2"}
    assert chip.titles["p4"] == "MDM2 proto-oncogene"
    summary = chip.input.summary()
    assert "2 probes without a gene symbol" in summary and "1 repeated probe" in summary
    with pytest.raises(ValueError, match="'Probe Set ID' and 'Gene Symbol'"):
        read_chip(io.StringIO("ID\tSymbol\np1\tA\n"))
    with pytest.raises(ValueError, match="line 3: probe 'p1' appears again .* another symbol"):
        read_chip(io.StringIO("Probe Set ID\tGene Symbol\np1\tA\np1\tB\n"))


@pytest.mark.parametrize("mode", ["Max_probe", "Median_of_probes", "Mean_of_probes",
                                  "Sum_of_probes", "Abs_max_of_probes"])
def test_collapse_modes_equal_broads_definitions(mode):
    frame, chip = probe_data()
    got = collapse_probes(frame, chip, mode=mode)
    want = by_definition(frame, chip, mode)
    assert list(got.index) == list(want.index)            # genes in order of first probe
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12, equal_nan=True)
    mapping = got.attrs["mapping"]
    assert list(mapping.columns) == ["probe", "gene", "kept"]
    assert int((~mapping["kept"]).sum()) == 20
    assert "20 rows without a gene symbol dropped" in got.attrs["collapse"]
    lower = collapse_probes(frame, chip, mode=mode.lower())      # Broad's names, any case
    np.testing.assert_array_equal(lower.to_numpy(), got.to_numpy())


def test_collapse_options_and_bad_input():
    frame, chip = probe_data(n_genes=20)
    assert collapse_probes(frame, chip, collapse="No_Collapse") is frame
    one = {p: g for p, g in chip.items() if p.split("_")[1] == p.split("_")[1]}
    first = {}
    for p, g in one.items():
        first.setdefault(g, p)
    remap = collapse_probes(frame.loc[list(first.values())],
                            {p: g for g, p in first.items()}, collapse="remap_only")
    assert list(remap.index) == list(first)
    with pytest.raises(ValueError, match="Remap_Only': several probes map to"):
        collapse_probes(frame, chip, collapse="Remap_Only")
    with pytest.raises(ValueError, match="mode must be one of Max_probe"):
        collapse_probes(frame, chip, mode="max")
    with pytest.raises(ValueError, match="none of its .* row names is a probe of the chip"):
        collapse_probes(frame, {"x": "A"})
    # without a chip, rows that share a name are collapsed
    dup = pd.DataFrame({"a": [1.0, 5.0, 2.0]}, index=["G", "G", "H"])
    assert collapse_probes(dup, mode="Max_probe")["a"].to_dict() == {"G": 5.0, "H": 2.0}
    series = collapse_probes(pd.Series([1.0, -4.0, 2.0, -3.0, 3.0], index=list("GGHKK"),
                                       name="t"), mode="Abs_max_of_probes")
    assert series.to_dict() == {"G": -4.0, "H": 2.0, "K": 3.0} and series.name == "t"


def test_gct_with_repeated_names_names_the_collapse_options(tmp_path):
    frame, chip = probe_data(n_genes=30)
    frame.index = [chip.get(p, p) for p in frame.index]
    path = tmp_path / "dup.gct"
    write_gct(frame, path)
    with pytest.raises(ValueError, match="appears twice .*collapse_mode=.*chip=") as info:
        read_gct(path)
    from oclstat._vocabulary import python_to_cli  # the command line's words for them

    assert "--mode) and" in python_to_cli(str(info.value), "gsea")
    assert "(--chip)" in python_to_cli(str(info.value), "gsea")
    kept = read_gct(path, duplicates="keep")
    assert kept.shape == frame.shape
    assert "rows repeat an earlier row's name" in kept.attrs["input"].summary()


def test_gsea_on_probes_equals_gsea_on_genes_collapsed_by_hand(rt, shared_data):
    """Leukemia (genes) made probe-level: each gene split into 1-3 probes (its values plus
    noise); gsea(..., chip=) equals gsea on the same data collapsed by the definition."""
    genes = read_gct(shared_data / "gsea" / "Leukemia_hgu95av2.trim.gct").iloc[:3000]
    rng = np.random.default_rng(4)
    rows, names, chip = [], [], {}
    for g, values in zip(genes.index, genes.to_numpy(), strict=True):
        for k in range(int(rng.integers(1, 4))):
            names.append(f"{g}_{k}_at")
            chip[names[-1]] = g
            rows.append(values + rng.normal(scale=20.0, size=values.size))
    probes = pd.DataFrame(np.array(rows), index=names, columns=genes.columns)
    sets = {k: v for k, v in read_gmt(shared_data / "gsea" / "h.all.v7.0.symbols.gmt").items()}
    labels = ["ALL"] * 24 + ["AML"] * 24
    res = oclstat.gsea(probes, labels, sets, chip=chip, collapse_mode="Max_probe",
                       n_resamples=100, min_size=5, seed=3, device=rt)
    ref = oclstat.gsea(by_definition(probes, chip, "Max_probe"), labels, sets,
                       n_resamples=100, min_size=5, seed=3, device=rt)
    pd.testing.assert_frame_equal(res.table, ref.table)


def test_prerank_on_probes_and_the_command_line_report(rt, tmp_path):
    rng = np.random.default_rng(8)
    genes = [f"G{i}" for i in range(800)]
    probes, chip = [], {}
    for g in genes:
        for k in range(int(rng.integers(1, 3))):
            probes.append(f"{g}_{k}")
            chip[probes[-1]] = g
    stat = pd.Series(rng.normal(size=len(probes)), index=probes)
    stat.iloc[:40] += 2.5
    sets = {"top": genes[:20], "any": genes[300:340]}
    res = oclstat.gsea_prerank(stat, sets, chip=chip, collapse_mode="Abs_max_of_probes",
                               min_size=5, n_resamples=200, seed=1, device=rt)
    by_hand = by_definition(stat.to_frame(), chip, "Abs_max_of_probes").iloc[:, 0]
    ref = oclstat.gsea_prerank(by_hand, sets, min_size=5, n_resamples=200, seed=1, device=rt)
    pd.testing.assert_frame_equal(res.table, ref.table)
    # the command line: a .rnk of probes, a CHIP file, GMX gene sets, a report folder
    rnk, chip_file, gmx = tmp_path / "p.rnk", tmp_path / "a.chip", tmp_path / "s.gmx"
    rnk.write_text("".join(f"{p}\t{v!r}\n" for p, v in stat.items()))
    chip_file.write_text("Probe Set ID\tGene Symbol\n"
                         + "".join(f"{p}\t{g}\n" for p, g in chip.items()))
    write_gmx(sets, gmx)
    out, report = tmp_path / "out.tsv", tmp_path / "report"
    assert main(["prerank", "--rnk", str(rnk), "--gmt", str(gmx), "--chip", str(chip_file),
                 "--mode", "abs_max_of_probes", "--min-size", "5", "--resamples", "200",
                 "--seed", "1", "--out", str(out), "--report", str(report)]) == 0
    table = pd.read_csv(out, sep="\t", index_col=0)
    assert table.loc["top", "ES"] == pytest.approx(ref.table.loc["top", "ES"], abs=1e-6)
    collapsed = pd.read_csv(report / "collapsed_ranking.rnk", sep="\t", header=None,
                            index_col=0).iloc[:, 0]
    assert collapsed.to_dict() == pytest.approx(by_hand.to_dict(), abs=1e-12)
    mapping = pd.read_csv(report / "symbol_to_probe_mapping.tsv", sep="\t")
    assert list(mapping.columns) == ["Probe", "Gene Symbol", "Kept"]
    assert len(mapping) == len(probes)
    assert main(["prerank", "--rnk", str(rnk), "--gmt", str(gmx), "--collapse",
                 "Remap_Only"]) == 2


def test_gmx_reads_what_gmt_reads(tmp_path, shared_data):
    sets = read_gmt(shared_data / "gsea" / "h.all.v7.0.symbols.gmt")
    write_gmx(sets, tmp_path / "h.gmx")
    back = read_gmx(tmp_path / "h.gmx")
    assert back == dict(sets)
    assert "GMX gene sets" in back.input.summary()
    write_gmt(back, tmp_path / "h.gmt")
    assert read_gmt(tmp_path / "h.gmt") == dict(sets)
    gz = tmp_path / "h.gmx.gz"
    gz.write_bytes(gzip.compress((tmp_path / "h.gmx").read_bytes()))
    assert read_gmx(gz) == dict(sets)


def test_gmx_errors_name_the_column():
    with pytest.raises(ValueError, match="column 2: gene set 'A' appears twice"):
        read_gmx(io.StringIO("A\tA\nna\tna\nG\tH\n"))
    with pytest.raises(ValueError, match="column 1: empty gene-set name"):
        read_gmx(io.StringIO("\tB\nna\tna\nG\tH\n"))
    sets = read_gmx(io.StringIO("A\tB\nna\tna\nG\t\n"))
    assert sets == {"A": ["G"]} and "'B' (column 2)" in sets.input.summary()
    with pytest.raises(ValueError, match="holds a tab"):
        write_gmx({"A": ["G\tH"]}, io.StringIO())
