"""The oclstat command line, run in-process and as a subprocess from the source tree."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

import oclstat
import oclstat.random as ocr
from oclstat.cli import main
from oclstat.io import read_table


def test_devices(capsys):
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert "*" in out and "fp64" in out
    cpus = [d for d in oclstat.devices(usable=True) if d.type == "CPU" and d.simd_bytes]
    for d in cpus:       # the register width each CPU compiler targets, as the probe read it
        assert f"{d.implementation} {d.simd_bytes * 8}-bit" in out


def test_rng_to_npy_and_csv_matches_the_api(tmp_path, rt):
    npy = tmp_path / "z.npy"
    assert main(["rng", "normal", "--n", "1e3", "--seed", "4", "--out", str(npy)]) == 0
    assert np.array_equal(np.load(npy), ocr.normal(1000, seed=4, device=rt))
    csv = tmp_path / "u.csv"
    assert main(["rng", "uniform", "--n", "3", "4", "--seed", "2", "--dtype", "float32",
                 "--out", str(csv)]) == 0
    got = np.loadtxt(csv, delimiter=",", dtype=np.float32)
    assert np.array_equal(got, ocr.uniform((3, 4), seed=2, dtype=np.float32, device=rt))
    ints = tmp_path / "i.tsv"
    assert main(["rng", "integers", "--n", "50", "--low", "1", "--high", "7", "--seed", "3",
                 "--out", str(ints)]) == 0
    assert np.array_equal(np.loadtxt(ints, dtype=np.int64),
                          ocr.integers(1, 7, size=50, seed=3, device=rt))


def test_rng_with_a_streams_file_continues(tmp_path, rt):
    path = tmp_path / "st.npz"
    ocr.create_streams(8).save(path)
    first, second = tmp_path / "a.npy", tmp_path / "b.npy"
    main(["rng", "raw", "--n", "16", "--streams", str(path), "--out", str(first)])
    main(["rng", "raw", "--n", "16", "--streams", str(path), "--out", str(second)])
    st = ocr.create_streams(8)
    expected = np.concatenate([ocr.random_raw(16, streams=st), ocr.random_raw(16, streams=st)])
    assert np.array_equal(np.concatenate([np.load(first), np.load(second)]), expected)


def test_errors_are_reported_not_raised(tmp_path, capsys):
    assert main(["rng", "normal", "--n", "5", "--seed", "1", "--out", str(tmp_path / "x.bin")]) == 2
    assert "--out must end in" in capsys.readouterr().err
    assert main(["rng", "uniform", "--n", "5", "--low", "2", "--high", "1", "--out", "-"]) == 2
    assert "high must be greater than low" in capsys.readouterr().err
    assert main(["devices", "--device", "no-such-device"]) in (0, 2)
    with pytest.raises(SystemExit):
        main(["rng", "normal", "--n", "-3", "--out", "-"])


def test_demo_runs(capsys):
    assert main(["demo", "--section", "random"]) == 0
    out = capsys.readouterr().out
    assert "equals clRNG's published constants: True" in out
    assert "identical = True" in out


@pytest.mark.slow
def test_demo_fisher_section(capsys):
    assert main(["demo", "--section", "fisher"]) == 0
    out = capsys.readouterr().out
    assert "month.csv (12 x 12, n = 12865): p = 0.40" in out
    assert "weekday.csv (7 x 12" in out


def test_runs_from_the_source_tree_without_install(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    code = (
        "import oclstat, oclstat._runtime as r, pathlib;"
        "print(pathlib.Path(oclstat.__file__).parent.parent);"
        "print(r.kernel_dir());"
        "print(oclstat.random.uniform(3, seed=1).shape)"
    )
    res = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0] == str(REPO)
    assert Path(lines[1]) == REPO / "oclstat" / "cl_kernels"         # one lookup: the link
    assert Path(lines[1]).resolve() == REPO / "cl_kernels"
    assert lines[2] == "(3,)"


def test_runs_from_a_folder_whose_path_has_a_space(tmp_path):
    """The package copied (as a wheel installs it, the kernel link followed) under a folder
    with spaces in its name builds every kernel and runs the demo: no include path reaches the
    OpenCL compiler."""
    import shutil

    where = tmp_path / "my projects" / "site packages"
    shutil.copytree(REPO / "oclstat", where / "oclstat",
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert not (where / "oclstat" / "cl_kernels").is_symlink()
    env = dict(os.environ, PYTHONPATH=str(where), PYOPENCL_NO_CACHE="1")
    res = subprocess.run([sys.executable, "-m", "oclstat", "demo", "--section", "fisher",
                          "--section", "epistasis"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    assert "my projects" in subprocess.run(
        [sys.executable, "-c", "import oclstat._runtime as r; print(r.kernel_dir())"],
        env=env, capture_output=True, text=True, cwd=tmp_path).stdout


def test_fisher_command_prints_an_r_like_report(tmp_path, capsys, rt):
    table = tmp_path / "t.csv"
    table.write_text("group,a,b,c\nx,12,5,7\ny,3,9,4\nz,6,2,11\n")
    stats_path = tmp_path / "null.npy"
    assert main(["fisher", str(table), "--method", "simulate", "--resamples", "2e4", "--seed", "3",
                 "--statistics", str(stats_path)]) == 0
    out = capsys.readouterr().out
    res = oclstat.fisher_sim([[12, 5, 7], [3, 9, 4], [6, 2, 11]], n_resamples=20000, seed=3,
                             device=rt)
    assert "Fisher's Exact Test for Count Data with simulated p-value" in out
    assert "20000 replicates" in out and "data:  t.csv" in out
    assert f"p-value = {res.pvalue:.4g}" in out
    assert np.load(stats_path).shape == (20000,)


@pytest.mark.parametrize(
    "text,suffix",
    [("1,2\n3,4\n", ".csv"), ("a\tb\n1\t2\n3\t4\n", ".tsv"), ("r,a,b\nu,1,2\nv,3,4\n", ".csv")],
)
def test_count_tables_with_and_without_header_and_names(tmp_path, text, suffix):
    path = tmp_path / f"t{suffix}"
    path.write_text(text)
    assert read_table(str(path)).values.tolist() == [[1, 2], [3, 4]]


def test_fisher_command_bad_table_is_reported(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("a,b\n1,x\n3,4\n")
    assert main(["fisher", str(path)]) == 2
    assert "not a number" in capsys.readouterr().err
    path.write_text("a,b\n1,-2\n3,4\n")
    assert main(["fisher", str(path)]) == 2
    assert "negative" in capsys.readouterr().err


def test_permtest_command_writes_a_table(tmp_path, capsys, rt):
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(5, 7)), rng.normal(0.5, 1, size=(5, 9))
    pa, pb, out = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "r.tsv"
    header = "protein," + ",".join(f"s{i}" for i in range(7))
    rows = [f"P{i}," + ",".join(f"{v:.17g}" for v in a[i]) for i in range(5)]
    pa.write_text(header + "\n" + "\n".join(rows) + "\n")
    np.savetxt(pb, b, delimiter=",", fmt="%.17g")
    assert main(["permtest", str(pa), str(pb), "--windows", "32", "--out", str(out)]) == 0
    import pandas as pd

    got = pd.read_csv(out, sep="\t")
    want = oclstat.permutation_test(a, b, n_windows=32, device=rt)
    assert got["feature"].tolist() == [f"P{i}" for i in range(5)]
    np.testing.assert_allclose(got["pvalue"], want.pvalue, rtol=1e-12)
    assert "5 features, 7 vs 9 samples" in capsys.readouterr().err


def test_permtest_command_mismatched_features(tmp_path, capsys):
    (tmp_path / "a.csv").write_text("1,2\n3,4\n")
    (tmp_path / "b.csv").write_text("1,2\n")
    assert main(["permtest", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]) == 2
    assert "rows must be the same features" in capsys.readouterr().err


def test_gsea_command(tmp_path, capsys, shared_data):
    d = shared_data / "gsea"
    out = tmp_path / "r.tsv"
    rc = main(["gsea", "--gct", str(d / "Leukemia_hgu95av2.trim.gct"), "--cls",
               str(d / "Leukemia.cls"), "--gmt", str(d / "h.all.v7.0.symbols.gmt"),
               "--resamples", "200", "--seed", "3", "--out", str(out)])
    assert rc == 0
    table = pd.read_csv(out, sep="\t", index_col=0)
    assert len(table) == 50 and {"es", "nes", "pval", "fdr", "fwer", "size",
                                 "leading_edge"} <= set(table.columns)
    assert "50 sets" in capsys.readouterr().err


def test_gsea_command_bad_cls(tmp_path, capsys, shared_data):
    d = shared_data / "gsea"
    bad = tmp_path / "bad.cls"
    bad.write_text("3 2 1\n# A B\nA B A\n")
    rc = main(["gsea", "--expr", str(d / "P53.txt"), "--cls", str(bad), "--gmt",
               str(d / "h.all.v7.0.symbols.gmt")])
    assert rc == 2
    assert "3 labels but expression has 50 samples" in capsys.readouterr().err


def test_fields_command(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    import oclstat.plot

    figures = []

    draw = oclstat.plot.plot_fields

    def keep(*args, **kwargs):
        fig = draw(*args, **kwargs)
        figures.append(fig)
        return fig

    monkeypatch.setattr(oclstat.plot, "plot_fields", keep)   # the command imports it when run
    out, png = tmp_path / "f.npy", tmp_path / "f.png"
    rc = main(["fields", "--nx", "12", "--ny", "9", "--param", "0.3,1.5,1,0,1,0", "--param",
               "0.5,0.5,2,0.1,2,0.3", "--n-sim", "3", "--seed", "4", "--out", str(out),
               "--png", str(png)])
    assert rc == 0
    panels = [ax for ax in figures[0].axes if ax.get_images()]
    rows = sorted({round(ax.get_position().y0, 3) for ax in panels})
    assert len(panels) == 6 and len(rows) == 2             # one row per parameter set
    assert panels[0].get_title().startswith("range 0.3, shape 1.5")
    assert len({tuple(ax.get_images()[0].get_clim()) for ax in panels}) == 1   # one scale
    images = np.load(out)
    assert images.shape == (2, 3, 9, 12) and np.isfinite(images).all()
    assert png.stat().st_size > 1000
    with pytest.raises(SystemExit):
        main(["fields", "--param", "1,2,3", "--out", str(out)])
    rc = main(["fields", "--param=-1,1,1,0,1,0", "--out", str(out)])
    assert rc == 2 and "range must be > 0" in capsys.readouterr().err


def test_outputs_are_checked_before_any_work(tmp_path, capsys, shared_data):
    month = str(shared_data / "fisher" / "month.csv")
    cases = [(["fisher", month, "--out", str(tmp_path / "missing" / "r.tsv")], "does not exist"),
             (["fisher", month, "--out", str(tmp_path)], "is a folder"),
             (["fisher", month, "--statistics", str(tmp_path / "no" / "s.npy")],
              "does not exist")]
    (tmp_path / "afile").write_text("x")
    cases.append((["gsea", "--expr", "x", "--cls", "y", "--gmt", "z", "--plot",
                   str(tmp_path / "afile")], "--plot takes a folder"))
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_outputs_are_written_whole_or_not_at_all(tmp_path, shared_data):
    """Ctrl-C: one line, exit 130 within a second or two, no output file left behind."""
    import signal
    import time

    out = tmp_path / "r.tsv"
    proc = subprocess.Popen([sys.executable, "-m", "oclstat", "fisher",
                             str(shared_data / "fisher" / "month.csv"), "--method", "simulate",
                             "--resamples", "1e10", "--seed", "1", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(6)
    proc.send_signal(signal.SIGINT)
    t0 = time.perf_counter()
    _, err = proc.communicate(timeout=60)
    assert time.perf_counter() - t0 < 3
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "oclstat fisher: interrupted"
    assert not out.exists() and not list(tmp_path.iterdir())


def test_permtest_pairs_features_by_name(tmp_path, capsys, rt):
    rng = np.random.default_rng(4)
    a = pd.DataFrame(rng.integers(0, 20, size=(6, 5)), index=[f"p{i}" for i in range(6)])
    b = pd.DataFrame(rng.integers(0, 20, size=(6, 7)), index=[f"p{i}" for i in range(6)])
    a.to_csv(tmp_path / "a.csv")
    b.iloc[::-1].to_csv(tmp_path / "b.csv")
    assert main(["permtest", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--out",
                 str(tmp_path / "r.tsv")]) == 0
    got = pd.read_csv(tmp_path / "r.tsv", sep="\t")
    want = oclstat.permutation_test(a.to_numpy(), b.to_numpy(), device=rt)
    assert got["feature"].tolist() == list(a.index)
    np.testing.assert_allclose(got["pvalue"], want.pvalue, rtol=1e-12)
    b.rename(index={"p3": "p0"}).to_csv(tmp_path / "dup.csv")
    assert main(["permtest", str(tmp_path / "a.csv"), str(tmp_path / "dup.csv")]) == 2
    assert "appears twice" in capsys.readouterr().err
    assert main(["permtest", str(tmp_path / "a.csv"), str(tmp_path / "a.csv"), "--windows",
                 "1"]) == 2
    assert "--windows must be >= 2" in capsys.readouterr().err


def test_no_arguments_prints_help_and_version(capsys):
    assert main([]) == 0
    assert "usage: oclstat" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--version"])
    assert oclstat.__version__ in capsys.readouterr().out
    assert main(["rng", "uniform", "--n", "2", "--seed", "1e3", "--out", "-"]) == 0


def test_old_flags_still_work_with_a_warning_and_lists_of_devices(tmp_path, capsys, shared_data,
                                                                   rt):
    d = shared_data / "gsea"
    common = ["gsea", "--gct", str(d / "Leukemia_hgu95av2.trim.gct"), "--cls",
              str(d / "Leukemia.cls"), "--gmt", str(d / "h.all.v7.0.symbols.gmt"), "--seed", "3"]
    assert main([*common, "--perms", "100", "--out", str(tmp_path / "old.tsv")]) == 0
    assert "--perms is now --resamples" in capsys.readouterr().err
    two = f"{rt.info.index},{rt.info.index}"
    assert main([*common, "--resamples", "100", "--device", two,
                 "--out", str(tmp_path / "new.tsv")]) == 0
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "old.tsv", sep="\t"),
                                  pd.read_csv(tmp_path / "new.tsv", sep="\t"))
    (tmp_path / "t.csv").write_text("3,1\n1,3\n")
    assert main(["fisher", str(tmp_path / "t.csv"), "--device", two]) == 2
    assert "runs on one device" in capsys.readouterr().err
    a = tmp_path / "a.csv"
    b = tmp_path / "b.csv"
    a.write_text("f1,1,2,3\nf2,4,5,6\n")
    b.write_text("f1,0,1\nf2,7,8\n")
    assert main(["permtest", str(a), str(b), "--device", two,
                 "--out", str(tmp_path / "p.tsv")]) == 0


def test_fisher_command_is_exact_for_two_by_two_and_writes_out(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("3,1\n1,3\n")
    out = tmp_path / "r.tsv"
    assert main(["fisher", str(table), "--alternative", "greater", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    res = oclstat.fisher_test(np.array([[3, 1], [1, 3]]), alternative="greater")
    assert "\tFisher's Exact Test for Count Data\n" in text
    assert "data:  t.csv (2 x 2 table, total 8)" in text
    assert f"p-value = {res.pvalue:.4g}" in text and "greater than 1" in text
    row = pd.read_csv(out, sep="\t")
    assert row.loc[0, "method"] == "exact" and row.loc[0, "pvalue"] == pytest.approx(res.pvalue)
    assert row.loc[0, "odds_ratio"] == pytest.approx(res.odds_ratio)
    assert main(["fisher", str(table), "--method", "simulate", "--alternative", "less"]) == 2
    assert "two-sided" in capsys.readouterr().err


def test_permtest_one_table_and_groups_sorted_top_rows(tmp_path, capsys, rt):
    rng = np.random.default_rng(9)
    data = pd.DataFrame(rng.integers(0, 30, size=(30, 8)),
                        index=[f"p{i}" for i in range(30)], columns=[f"s{i}" for i in range(8)])
    data.iloc[3, :4] += 40
    data.to_csv(tmp_path / "d.csv")
    (tmp_path / "g.cls").write_text("8 2 1\n# case ctrl\ncase case case case ctrl ctrl ctrl ctrl\n")
    out = tmp_path / "r.tsv"
    assert main(["permtest", "--data", str(tmp_path / "d.csv"), "--groups",
                 str(tmp_path / "g.cls"), "--two-sided", "distance", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    want = oclstat.permutation_test(data, groups=["case"] * 4 + ["ctrl"] * 4,
                                    two_sided="distance", device=rt)
    got = pd.read_csv(out, sep="\t")
    np.testing.assert_allclose(got["pvalue"], want.pvalue, rtol=1e-12)
    assert {"n_x", "mean_x", "mean_y", "mean_diff", "effect_size"} <= set(got.columns)
    lines = captured.out.splitlines()
    assert lines[1].split()[0] == "p3"                     # smallest p first
    assert "... 10 more features" in captured.out
    assert "4 vs 4 samples (case vs ctrl)" in captured.err
    # sample<TAB>label lines are matched to the table's sample names
    (tmp_path / "g.txt").write_text("".join(f"s{i}\t{'ab'[i % 2]}\n" for i in range(8))[::1])
    assert main(["permtest", "--data", str(tmp_path / "d.csv"), "--groups",
                 str(tmp_path / "g.txt")]) == 0
    assert main(["permtest", "--data", str(tmp_path / "d.csv")]) == 2
    assert "--data needs --groups" in capsys.readouterr().err


def test_epistasis_command_plink_loci_significance_and_units(tmp_path, capsys, shared_data):
    prefix = shared_data / "epistasis" / "bitepi" / "example123" / "DS"
    out = tmp_path / "hits.tsv"
    assert main(["epistasis", "--bfile", str(prefix), "--order", "2", "--top", "30",
                 "--out", str(out)]) == 0
    captured = capsys.readouterr()
    table = pd.read_csv(out, sep="\t")
    assert len(table) == 30
    assert {"chr1", "bp1", "chr2", "bp2", "k2", "G", "df", "p", "p_bonferroni"} <= \
        set(table.columns)
    assert "... 10 more combinations" in captured.out
    assert "combinations/s" in captured.err and "tera" not in captured.err


def test_epistasis_command_writes_plinks_epi_cc_for_pairs(tmp_path, capsys, shared_data):
    prefix = shared_data / "epistasis" / "bitepi" / "example123" / "DS"
    epi, out = tmp_path / "x.epi.cc", tmp_path / "hits.tsv"
    assert main(["epistasis", "--bfile", str(prefix), "--order", "2", "--top", "15",
                 "--out", str(out), "--epi-cc", str(epi)]) == 0
    cc = pd.read_csv(epi, sep=r"\s+")
    hits = pd.read_csv(out, sep="\t")
    assert list(cc.columns) == ["CHR1", "SNP1", "CHR2", "SNP2", "K2", "STAT", "DF", "P"]
    assert cc["SNP1"].tolist() == hits["name1"].tolist()
    assert cc["CHR2"].astype(str).tolist() == hits["chr2"].astype(str).tolist()
    np.testing.assert_allclose(cc["STAT"], hits["G"], rtol=1e-5)
    capsys.readouterr()
    assert main(["epistasis", "--bfile", str(prefix), "--order", "3", "--epi-cc",
                 str(epi)]) == 2
    assert "--epi-cc writes pairs" in capsys.readouterr().err


def test_fit_matern_command_writes_the_fit_profiles_and_maps(tmp_path, capsys, rt):
    pytest.importorskip("matplotlib")
    coords = oclstat.fields.grid_coords(8, 8) * 100.0
    field = oclstat.simulate_fields(coords, [[40.0, 1.0, 1.0, 0.6, 1.0, 0.0]], 1, seed=22,
                                    device=rt)[0, 0]
    dist = coords[:, 0] / 800.0
    frame = pd.DataFrame({"east": coords[:, 0], "north": coords[:, 1], "dist": dist,
                          "zinc": np.exp(5.0 - dist + 0.3 * field)})
    data = tmp_path / "spatial.csv"
    frame.to_csv(data, index=False)
    out, png, prof = tmp_path / "fit.tsv", tmp_path / "map.png", tmp_path / "prof.png"
    assert main(["fit-matern", str(data), "--coords", "east,north", "--response", "log(zinc)",
                 "--covariates", "sqrt(dist)", "--out", str(out), "--png", str(png),
                 "--profile-png", str(prof), "--map-size", "20", "--no-profile2d"]) == 0
    table = pd.read_csv(out, sep="\t", index_col="parameter")
    fit = oclstat.fit_matern(coords, np.log(frame["zinc"]),
                             np.column_stack([np.ones(64), np.sqrt(dist)]), profile2d=False,
                             device=rt)
    assert table.loc["range", "estimate"] == pytest.approx(fit.params["range"], rel=1e-9)
    assert table.loc["sqrt(dist)", "estimate"] == pytest.approx(fit.beta[1], rel=1e-9)
    assert table.loc["range", "lower"] == pytest.approx(fit.ci.loc["range", "lower"], rel=1e-9)
    profiles = pd.read_csv(tmp_path / "fit.profiles.tsv", sep="\t")
    assert set(profiles["parameter"]) == {"range", "nugget"}
    assert png.stat().st_size > 5000 and prof.stat().st_size > 5000
    text = capsys.readouterr().out
    assert "log-likelihood (ML)" in text and "aRange" in text
    assert main(["fit-matern", str(data), "--coords", "east,north", "--response", "cu"]) == 2
    assert "--response cu: no column 'cu'" in capsys.readouterr().err
    assert main(["fit-matern", str(data), "--coords", "east", "--response", "zinc"]) == 2
    assert "--coords east: name two columns" in capsys.readouterr().err


def test_demo_spatial_section_checks_itself(capsys):
    import re

    assert main(["demo", "--section", "spatial"]) == 0
    out = capsys.readouterr().out
    ref, ours = re.search(r"at the optimum (-?[\d.]+) \(oclstat (-?[\d.]+)\)", out).groups()
    assert float(ref) == pytest.approx(float(ours), abs=1e-8)
    assert "95% profile intervals" in out and "kriging on a 40 x 40 grid" in out


def test_the_command_line_loads_pandas_and_scipy_stats_only_where_a_command_needs_them():
    """Start-up is part of every command's time: building the parser (every command's
    options) imports neither pandas nor scipy.stats; the readers that need pandas import it
    when first used."""
    code = ("import sys, oclstat.cli; oclstat.cli.build_parser(); "
            "print(sorted(m for m in ('pandas', 'scipy.stats') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
    code = ("import sys, oclstat.cli._single_sample as s; s.readers.read_gene_set_file; "
            "print('pandas' in sys.modules); s.readers.read_expression; "
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=REPO, check=True)
    # gene-set files need no pandas; an expression table's reader loads it
    assert out.stdout.split() == ["False", "True"], out.stdout + out.stderr
