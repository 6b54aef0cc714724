"""GSEA reported as Broad's GSEA reports it: one table per direction in Broad's columns, ordered
by NES away from zero; p- and q-values never 0; the HTML report rendered in a real headless
browser (Debian's chromium) with its tables and enrichment plots, and the command line's
``--report``."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

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


def _chromium():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("OCLSTAT_REQUIRE_TOOLS") == "1":
            pytest.fail("chromium is not installed (tools/setup-system.sh installs it)")
        pytest.skip("chromium is not installed")
    return exe


def test_html_report_renders_in_a_browser(leukemia_result, tmp_path):
    exe = _chromium()
    index = write_gsea_report(leukemia_result, tmp_path / "report", plots=3,
                              parameters={"seed": 3})
    files = sorted(p.name for p in index.parent.iterdir())
    assert "gsea_report_for_ALL.tsv" in files and "gsea_report_for_AML.tsv" in files
    assert sum(f.startswith("enplot_") for f in files) == 6
    full = pd.read_csv(index.parent / "gsea_report_for_AML.tsv", sep="\t")
    assert tuple(full.columns) == BROAD_COLUMNS and len(full) == len(leukemia_result.negative)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"]
    dom = subprocess.run([exe, *flags, "--dump-dom", index.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    # the page's own script counts, after loading, the images that decoded and the table rows
    assert 'data-images-loaded="6"' in dom, dom[:300]
    assert f'data-table-rows="{len(leukemia_result.table)}"' in dom
    assert "Enrichment in phenotype ALL" in dom and "HALLMARK_E2F_TARGETS" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([exe, *flags, "--hide-scrollbars", "--window-size=1280,1600",
                    f"--screenshot={shot}", index.as_uri()], capture_output=True, timeout=120)
    image = pytest.importorskip("matplotlib.image").imread(shot)
    assert image.shape[:2] == (1600, 1280)
    assert image[..., :3].std() > 0.05            # text, tables and plots, not a blank page


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
