"""GSEA reported as Broad's GSEA reports it: one table per direction in Broad's columns, ordered
by NES away from zero; p- and q-values never 0; the HTML report rendered in a real headless
browser (Debian's chromium) with its tables and enrichment plots, and the command line's
``--report``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import chromium
from enrichmentmap_reference import LoaderError, resolve

import oclstat
from oclstat._gsea.broad import BROAD_COLUMNS
from oclstat.cli import main
from oclstat.report import write_gsea_report


@pytest.fixture(scope="module")
def leukemia_result(shared_data):
    d = shared_data / "gsea"
    expr = oclstat.io.read_expression(d / "Leukemia_hgu95av2.trim.gct")
    return oclstat.gsea(expr, oclstat.io.read_cls(d / "Leukemia.cls"),
                        d / "h.all.v7.0.symbols.gmt", n_resamples=200, seed=3)


def test_two_directions_in_broads_columns(leukemia_result):
    res = leukemia_result
    pos, neg = res.positive, res.negative
    assert tuple(pos.columns) == BROAD_COLUMNS == tuple(neg.columns)
    assert len(pos) + len(neg) == len(res.table)
    assert (pos["ES"] >= 0).all() and (neg["ES"] < 0).all()
    assert (np.diff(pos["NES"]) <= 0).all() and (np.diff(neg["NES"]) >= 0).all()
    t = res.table
    for col in ("pval", "fdr", "fwer"):
        assert (t[col] > 0).all() and (t[col] <= 1).all()
        assert (t[col] >= 1 / (res.n_resamples + 1) - 1e-15).all() or col == "fdr"
    row = t.loc[pos["NAME"].iloc[0]]
    assert pos["RANK AT MAX"].iloc[0] == row["rank_at_max"]
    # the leading edge: its genes are the set's genes up to the peak of the running sum
    rsum = res.running_sum(pos["NAME"].iloc[0])
    assert int(np.argmax(rsum)) == row["rank_at_max"]
    assert row["leading_edge_tags"] == pytest.approx(len(row["leading_edge"]) / row["size"])
    text = str(res)
    assert "enriched in ALL (ES >= 0)" in text and "enriched in AML (ES < 0)" in text
    assert len(text.splitlines()) < 40


def test_html_report_renders_in_a_browser(leukemia_result, tmp_path):
    exe = chromium()
    index = write_gsea_report(leukemia_result, tmp_path / "report", plots=3,
                              parameters={"seed": 3})
    files = sorted(p.name for p in index.parent.iterdir())
    em = resolve(index.parent)
    assert em["results1"].name in files and em["results2"].name in files
    assert em["results2"].name.startswith("gsea_report_for_AML_")
    # Broad's page per top set (20 per direction): its row, plot and detail table
    tops = [*leukemia_result.positive["NAME"].head(20), *leukemia_result.negative["NAME"].head(20)]
    assert {f"{n}.html" for n in tops} <= set(files)
    assert sum(f.startswith("enplot_") for f in files) == len(tops)
    full = pd.read_csv(em["results2"], sep="\t")
    assert tuple(full.columns) == BROAD_COLUMNS and len(full) == len(leukemia_result.negative)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"]
    dom = subprocess.run([exe, *flags, "--dump-dom", index.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    # the page's own script counts, after loading, the images that decoded and the table rows
    # 6 enrichment plots and the leading-edge heat map
    assert 'data-images-loaded="7"' in dom, dom[:300]
    assert f'data-table-rows="{len(leukemia_result.table)}"' in dom
    assert "Enrichment in phenotype ALL" in dom and "HALLMARK_E2F_TARGETS" in dom
    assert f'href="{tops[0]}.html"' in dom
    page = subprocess.run([exe, *flags, "--dump-dom", (index.parent / f"{tops[0]}.html")
                           .as_uri()], capture_output=True, text=True, timeout=120).stdout
    size = int(leukemia_result.positive["SIZE"].iloc[0])
    assert 'data-images-loaded="1"' in page and f'data-table-rows="{size + 1}"' in page
    assert "RUNNING ES" in page and "CORE ENRICHMENT" in page
    shot = tmp_path / "shot.png"
    subprocess.run([exe, *flags, "--hide-scrollbars", "--window-size=1280,1600",
                    f"--screenshot={shot}", index.as_uri()], capture_output=True, timeout=120)
    image = pytest.importorskip("matplotlib.image").imread(shot)
    assert image.shape[:2] == (1600, 1280)
    assert image[..., :3].std() > 0.05            # text, tables and plots, not a blank page


def _enrichmentmap_rows(path):
    """A gsea_report_for_*.tsv read as EnrichmentMap's GSEA parser reads it: the header line
    skipped, fields by position (name 0, SIZE 3, ES 4, NES 5, NOM p 6, FDR 7, FWER 8, RANK AT
    MAX 9), the name in upper case."""
    rows = {}
    for line in path.read_text().splitlines()[1:]:
        t = line.split("\t")
        rows[t[0].upper().strip()] = (int(t[3]), float(t[4]), float(t[5]), float(t[6]),
                                      float(t[7]), float(t[8]), int(t[9]))
    return rows


def _edb_rows(path):
    """edb/results.edb read as EnrichmentMap's EDB parser reads it: every DTG element, the
    name after 'gene_sets.gmt#', the size from HIT_INDICES."""
    import xml.etree.ElementTree as ET

    rows = {}
    for el in ET.parse(path).getroot().iter("DTG"):
        name = el.get("GENESET").replace("gene_sets.gmt#", "")
        rows[name.upper()] = (len(el.get("HIT_INDICES").split(" ")), float(el.get("ES")),
                              float(el.get("NES")), float(el.get("NP")), float(el.get("FDR")),
                              float(el.get("FWER")), int(float(el.get("RANK_AT_ES"))))
    return rows


def test_report_folder_reads_back_as_enrichmentmap_reads_it(leukemia_result, tmp_path):
    res = leukemia_result
    index = write_gsea_report(res, tmp_path / "rep", plots=1, details=5, label="leukemia")
    out = index.parent
    t = res.table
    want = {name.upper(): (int(r["size"]), r.es, r.nes, r.pval, r.fdr, r.fwer,
                           int(r.rank_at_max))
            for name, r in t.iterrows()}
    em = resolve(out)                  # EnrichmentMap's loader finds every file it looks for
    assert em["method"] == "Gsea" and em["phenotypes"] == ("ALL", "AML")
    assert None not in em.values(), em
    assert em["class_file"].read_text().splitlines()[1] == "# ALL AML"
    assert oclstat.io.read_cls(em["class_file"]).labels == tuple(res.sample_labels)
    assert oclstat.io.read_expression(em["expression"]).shape == res.expression.shape
    got = {**_enrichmentmap_rows(em["results1"]), **_enrichmentmap_rows(em["results2"])}
    edb = _edb_rows(out / "edb" / "results.edb")
    assert set(got) == set(want) == set(edb)
    for name, w in want.items():
        for source in (got[name], edb[name]):
            assert source[0] == w[0] and source[6] == w[6], name
            np.testing.assert_allclose(source[1:6], w[1:6], rtol=1e-5, atol=1e-9)
    # the ranked list: EnrichmentMap takes 5 fields with the score last, in ranking order
    lines = em["ranks"].read_text().splitlines()[1:]
    fields = [ln.split("\t") for ln in lines]
    assert all(len(f) == 5 for f in fields)
    assert [f[0] for f in fields] == list(res.ranking.index)
    np.testing.assert_allclose([float(f[4]) for f in fields], res.ranking.to_numpy(),
                               rtol=1e-5)
    # the parameters point at files that exist
    rpt = dict(ln.split("\t")[1:] for ln in (out / "leukemia.rpt").read_text().splitlines()
               if ln.startswith("param\t"))
    assert Path(rpt["gmx"]).is_file() and Path(rpt["res"]).is_file()
    assert rpt["cls"].endswith("#ALL_versus_AML")
    assert rpt["nperm"] == str(res.n_resamples) and rpt["metric"] == res.metric
    # one detail table per top set: the set's ranks, its running ES, its core enrichment
    top = res.positive["NAME"].iloc[0]
    detail = pd.read_csv(out / f"{top}.tsv", sep="\t")
    assert list(detail.columns) == ["NAME", "PROBE", "GENE SYMBOL", "GENE_TITLE",
                                    "RANK IN GENE LIST", "RANK METRIC SCORE", "RUNNING ES",
                                    "CORE ENRICHMENT"]
    walk = res.running_sum(top)
    np.testing.assert_allclose(detail["RUNNING ES"], walk[detail["RANK IN GENE LIST"]],
                               rtol=1e-5)
    assert detail["RUNNING ES"].max() == pytest.approx(t.loc[top, "es"], rel=1e-5)
    core = detail.loc[detail["CORE ENRICHMENT"] == "Yes", "PROBE"]
    assert sorted(core) == sorted(t.loc[top, "leading_edge"])
    # the leading-edge analysis of the top sets
    matrix = pd.read_csv(out / "leading_edge_matrix.tsv", sep="\t", index_col=0)
    assert len(matrix.columns) == 10
    for name in matrix.columns:
        assert int(matrix[name].sum()) == len(t.loc[name, "leading_edge"])
    overlap = pd.read_csv(out / "leading_edge_overlap.tsv", sep="\t", index_col=0)
    assert np.diag(overlap.to_numpy()).tolist() == matrix.sum().astype(int).tolist()
    assert (out / "leading_edge_heatmap.png").stat().st_size > 1000


def test_preranked_report_folder_reads_back(tmp_path, rt):
    rng = np.random.default_rng(2)
    stat = pd.Series(rng.normal(size=1500), index=[f"G{i}" for i in range(1500)])
    stat.iloc[:30] += 2.0
    stat.iloc[-30:] -= 2.0
    sets = {"up": [f"G{i}" for i in range(30)], "down": [f"G{i}" for i in range(1470, 1500)],
            "any": [f"G{i}" for i in range(600, 650)]}
    res = oclstat.gsea_prerank(stat, sets, min_size=5, n_resamples=500, seed=1, device=rt)
    out = write_gsea_report(res, tmp_path / "pre", plots=1).parent
    em = resolve(out)
    assert em["method"] == "GseaPreranked" and em["phenotypes"] == ("na_pos", "na_neg")
    assert em["class_file"] is None and None not in (em["results1"], em["results2"],
                                                     em["ranks"], em["gmt"], em["expression"])
    got = {**_enrichmentmap_rows(em["results1"]), **_enrichmentmap_rows(em["results2"])}
    assert set(got) == {"UP", "DOWN", "ANY"} == set(_edb_rows(out / "edb" / "results.edb"))
    t = res.table
    for name, r in t.iterrows():
        g = got[name.upper()]
        assert g[0] == r["size"] and g[6] == r["rank_at_max"]
        np.testing.assert_allclose(g[1:5], [r["ES"], r["NES"], r["pval"], r["padj"]],
                                   rtol=1e-5)
        assert g[5] == pytest.approx(min(1.0, r["pval"] * len(t)), rel=1e-5)  # Bonferroni
    assert (out / "edb" / "oclstat_analysis.rnk").is_file()


def test_a_continuous_phenotype_folder_loads_in_enrichmentmap(tmp_path, rt):
    """A profile run: EnrichmentMap reads ``param cls`` ``<file>#<profile>`` as the phenotypes
    <profile>_pos and <profile>_neg, and finds the reports by those names; the folder moved
    elsewhere still loads (the files beside the .rpt)."""
    import shutil

    rng = np.random.default_rng(5)
    expr = pd.DataFrame(rng.normal(size=(300, 10)), index=[f"G{i}" for i in range(300)],
                        columns=[f"s{j}" for j in range(10)])
    age = pd.Series(np.arange(10.0), index=expr.columns, name="AGE")
    expr.iloc[:25] += 0.4 * age.to_numpy()
    res = oclstat.gsea(expr, age, {"up": [f"G{i}" for i in range(25)],
                                   "other": [f"G{i}" for i in range(100, 140)]},
                       metric="pearson", n_resamples=100, min_size=10, seed=2, device=rt)
    write_gsea_report(res, tmp_path / "run" / "age.Gsea.1", plots=0, label="age")
    shutil.move(tmp_path / "run", tmp_path / "moved")
    em = resolve(tmp_path / "moved" / "age.Gsea.1")
    assert em["phenotypes"] == ("AGE_pos", "AGE_neg") and None not in em.values(), em
    assert em["class_file"].read_text().startswith("#numeric\n#AGE\n")
    assert em["name"] == "age.Gsea.1"


def test_the_loader_rules_refuse_what_enrichmentmap_refuses(tmp_path):
    """The reference loader is strict where EnrichmentMap's code throws: a producer class with
    fewer than three dot-separated parts, as oclstat wrote before."""
    (tmp_path / "x.rpt").write_text("producer_class\toclstat.gsea\nproducer_timestamp\t1\n"
                                    "param\tout\t/tmp\nparam\tgmx\t/none.gmt\n")
    with pytest.raises(LoaderError, match="ArrayIndexOutOfBounds"):
        resolve(tmp_path)


def test_command_line_report_and_tables(tmp_path, capsys, shared_data):
    pytest.importorskip("matplotlib")
    d = shared_data / "gsea"
    report = tmp_path / "rep"
    rc = main(["gsea", "--gct", str(d / "Leukemia_hgu95av2.trim.gct"), "--cls",
               str(d / "Leukemia.cls"), "--gmt", str(d / "h.all.v7.0.symbols.gmt"),
               "--resamples", "100", "--seed", "2", "--report", str(report), "--plot",
               str(tmp_path / "plots")])
    assert rc == 0
    out = capsys.readouterr()
    assert "enriched in ALL (ES >= 0)" in out.out and "enriched in AML (ES < 0)" in out.out
    assert "NOM p-val" in out.out and "more sets (by NES away from zero" in out.out
    assert (report / "index.html").exists() and "wrote the report" in out.err
    assert len(list((tmp_path / "plots").glob("*.png"))) == 2     # the top set each way
    (tmp_path / "file").write_text("x")
    assert main(["gsea", "--gct", str(d / "Leukemia_hgu95av2.trim.gct"), "--cls",
                 str(d / "Leukemia.cls"), "--gmt", str(d / "h.all.v7.0.symbols.gmt"),
                 "--report", str(tmp_path / "file")]) == 2
    assert "--report" in capsys.readouterr().err
