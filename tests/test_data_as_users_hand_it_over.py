"""The answer never depends on how the data is handed over: files written by R, pandas and
PLINK users (a phenotype column anywhere, an index column, quoted names, a header or none,
labels out of order, outputs to symlinks, devices and pipes), each read to the reference's
answer or refused naming the option that decides.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import stat
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

import oclstat
from oclstat.cli import main
from oclstat.genotypes import read_genotype_table
from oclstat.io import read_gct, read_gmt, read_rnk, read_table

# ----------------------------------------------------------------------------- readers


def planted_genotypes(n=600, seed=1):
    """Samples x SNPs with a planted pair (rs2, rs5) and a rare 0/1 variant last."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, size=(n, 10))
    g[:, 9] = (rng.random(n) < 0.1).astype(int)
    y = ((g[:, 2] + g[:, 5]) % 2 == 1).astype(int)
    return pd.DataFrame(g, columns=[f"rs{i}" for i in range(10)]), y


def test_phenotype_column_named_disease_first_is_the_phenotype(tmp_path, capsys):
    g, y = planted_genotypes()
    frame = g.copy()
    frame.insert(0, "disease", y)
    path = tmp_path / "epi.csv"
    frame.to_csv(path, index=False)
    data = read_genotype_table(path)
    np.testing.assert_array_equal(data.phenotype, y)
    assert data.snp_names == list(g.columns)
    assert "phenotype: column 'disease' (sample-major)" in data.input.summary()
    assert main(["epistasis", "--csv", str(path), "--order", "2", "--top", "3"]) == 0
    out = capsys.readouterr()
    top = out.out.splitlines()[1].split()
    assert top[2:4] == ["rs2", "rs5"]
    assert "phenotype: column 'disease'" in out.err


def test_a_table_that_names_no_phenotype_is_refused(tmp_path):
    g, _ = planted_genotypes()
    path = tmp_path / "nopheno.csv"
    g.to_csv(path, index=False)             # the last SNP is 0/1: it used to become the phenotype
    with pytest.raises(ValueError, match="no row or column is named as the phenotype.*"
                                         "phenotype_name="):
        read_genotype_table(path)
    assert main(["epistasis", "--csv", str(path), "--order", "2"]) == 2
    named = read_genotype_table(path, phenotype_name="rs9")
    np.testing.assert_array_equal(named.phenotype, g["rs9"].to_numpy())


@pytest.mark.r
def test_r_write_csv_of_snps_by_samples_is_not_read_transposed(tmp_path, R):
    g, y = planted_genotypes(n=12)
    path = tmp_path / "snps.csv"
    R.globalenv["m"] = R.r.matrix(R.IntVector(g.to_numpy().T.ravel(order="F")), nrow=10)
    R.r(f'rownames(m) <- paste0("rs", 0:9); colnames(m) <- paste0("s", 1:12); '
        f'write.csv(m, "{path}")')
    with pytest.raises(ValueError, match="no row or column is named as the phenotype"):
        read_genotype_table(path)
    data = read_genotype_table(path, phenotype=y)     # 12 values: only SNPs x samples fits
    assert data.genotypes.shape == (10, 12)
    np.testing.assert_array_equal(data.genotypes, g.to_numpy().T)
    assert "the phenotype's 12 values fit this way only" in data.input.summary()


@pytest.mark.r
def test_pandas_named_integer_index_is_refused_or_read_as_row_names(tmp_path, capsys, R):
    table = pd.DataFrame([[10, 5, 3], [8, 12, 4], [6, 7, 7]],
                         index=pd.Index([2019, 2020, 2021], name="year"), columns=list("ABC"))
    path = tmp_path / "years.csv"
    table.to_csv(path)
    assert main(["fisher", str(path)]) == 2
    err = capsys.readouterr().err
    assert "first column 'year'" in err and "--row-names yes or --row-names no" in err
    assert main(["fisher", str(path), "--row-names", "yes"]) == 0
    out = capsys.readouterr().out
    r_p = R.r("fisher.test(matrix(c(10,8,6,5,12,7,3,4,7), 3))$p.value")[0]
    assert f"p-value = {r_p:.4g}" in out and "total 62" in out
    ids = pd.DataFrame(np.arange(12).reshape(3, 4) + 1,
                       index=pd.Index([7157, 1956, 672], name="entrez"))
    ids.to_csv(tmp_path / "a.csv")
    ids.to_csv(tmp_path / "b.csv")
    assert main(["permtest", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]) == 2
    assert "first column 'entrez'" in capsys.readouterr().err


def test_series_to_csv_header_is_a_header(tmp_path):
    s = pd.Series(np.random.default_rng(2).normal(size=200),
                  index=[f"G{i}" for i in range(200)])
    for kwargs, what in (({"sep": "\t"}, "tab"), ({}, "comma")):
        path = tmp_path / f"r_{what}.rnk"
        s.to_csv(path, **kwargs)
        got = read_rnk(path)
        assert len(got) == 200 and "" not in got.index
        np.testing.assert_array_equal(got.to_numpy(), s.to_numpy())
    s.rename_axis("gene").to_csv(tmp_path / "named.rnk", sep="\t")
    assert len(read_rnk(tmp_path / "named.rnk")) == 200
    (tmp_path / "odd.rnk").write_text("TP53\t0\nMDM2\t1.5\nEGFR\t-2\n")
    with pytest.raises(ValueError, match="header=True or header=False"):
        read_rnk(tmp_path / "odd.rnk")
    assert len(read_rnk(tmp_path / "odd.rnk", header=False)) == 3


def test_r_quoted_rnk_trailing_tabs_and_an_empty_set_are_read(tmp_path):
    (tmp_path / "q.rnk").write_text('"gene"\t"stat"\n"TP53"\t2.5\n"MDM2"\t-1\n')
    assert read_rnk(tmp_path / "q.rnk").to_dict() == {"TP53": 2.5, "MDM2": -1.0}
    gct = "#1.2\n2\t2\t\nNAME\tDescription\ta\tb\t\nG1\tna\t1\t2\t\nG2\tna\t3\t4\t\n"
    frame = read_gct(io.StringIO(gct))
    assert frame.shape == (2, 2) and frame.loc["G2", "b"] == 4.0
    assert "trailing tabs" in frame.attrs["input"].summary()
    sets = read_gmt(io.StringIO("A\tna\tG1\tG2\nEMPTY\tna\nB\tna\tG3\n"))
    assert list(sets) == ["A", "B"] and "'EMPTY' (line 2)" in sets.input.summary()


def test_groups_file_with_a_header_line(tmp_path, capsys, rt):
    rng = np.random.default_rng(3)
    data = pd.DataFrame(rng.integers(0, 20, size=(4, 6)), index=[f"f{i}" for i in range(4)],
                        columns=[f"s{i}" for i in range(6)])
    data.to_csv(tmp_path / "d.csv")
    (tmp_path / "g.tsv").write_text("sample\tgroup\n" + "".join(
        f"s{i}\t{'a' if i < 3 else 'b'}\n" for i in (5, 0, 4, 1, 3, 2)))
    assert main(["permtest", "--data", str(tmp_path / "d.csv"), "--groups",
                 str(tmp_path / "g.tsv"), "--out", str(tmp_path / "p.tsv")]) == 0
    err = capsys.readouterr().err
    assert "header row ('sample' is not a sample of the data)" in err
    assert "labels matched to the data's samples by name" in err
    want = oclstat.permutation_test(data.iloc[:, :3].to_numpy(), data.iloc[:, 3:].to_numpy(),
                                    device=rt)
    got = pd.read_csv(tmp_path / "p.tsv", sep="\t")
    np.testing.assert_array_equal(got["pvalue"].to_numpy(), want.pvalue)


def test_write_csv2_for_fit_matern(tmp_path, capsys):
    rng = np.random.default_rng(4)
    xy = rng.uniform(size=(30, 2))
    z = np.sin(3 * xy[:, 0]) + rng.normal(scale=0.1, size=30)
    rows = [f'"{i + 1}";' + ";".join(f"{v:.17g}".replace(".", ",") for v in row)
            for i, row in enumerate(np.column_stack([xy, z]))]      # as R's write.csv2
    text = '"";"x";"y";"z"\n' + "\n".join(rows) + "\n"
    (tmp_path / "m.csv").write_text(text)
    out = tmp_path / "fit.tsv"
    assert main(["fit-matern", str(tmp_path / "m.csv"), "--coords", "x,y", "--response", "z",
                 "--no-profiles", "--no-profile2d", "--out", str(out)]) == 0
    assert "decimal commas" in capsys.readouterr().err
    direct = oclstat.fit_matern(xy, z, profiles=False, profile2d=False)
    fit = pd.read_csv(out, sep="\t").set_index("parameter")
    assert fit.loc["range", "estimate"] == pytest.approx(direct.params["range"], rel=1e-8)


def test_fit_on_repeated_locations_says_it_is_degenerate(tmp_path, capsys):
    xy = np.repeat(np.array([[0.0, 0.0], [0.5, 0.2], [1.0, 0.7], [0.3, 0.9]]), 3, axis=0)
    z = np.repeat([1.0, 2.0, 1.5, 3.0], 3)
    with pytest.warns(oclstat.spatial.DegenerateFitWarning) as caught:
        fit = oclstat.fit_matern(xy, z, profiles=False, profile2d=False)
    assert any("nugget is at the lower bound" in str(w.message) and "observed more than once "
               "with equal responses" in str(w.message) for w in caught)
    assert fit.degenerate and "DEGENERATE" in repr(fit)
    pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "z": z}).to_csv(tmp_path / "r.csv",
                                                                index=False)
    assert main(["fit-matern", str(tmp_path / "r.csv"), "--coords", "x,y", "--response", "z",
                 "--no-profiles", "--no-profile2d"]) == 0
    assert "warning: a degenerate fit: nugget is at the lower bound" in capsys.readouterr().out
    rng = np.random.default_rng(5)                      # an ordinary fit says nothing
    xy2 = rng.uniform(size=(40, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", oclstat.spatial.DegenerateFitWarning)
        fit2 = oclstat.fit_matern(xy2, np.sin(4 * xy2[:, 0]) + rng.normal(scale=0.3, size=40),
                                  profiles=False, profile2d=False)
    assert fit2.degenerate == ()


# ----------------------------------------------------------------------------- labels


def test_xarray_is_aligned_by_its_coordinates():
    xr = pytest.importorskip("xarray")
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=(5, 6)), rng.normal(size=(5, 7)) + 0.8
    feats = [f"f{i}" for i in range(5)]
    x = xr.DataArray(a, dims=("feature", "sample"), coords={"feature": feats})
    y = xr.DataArray(b[::-1].T, dims=("sample", "feature"), coords={"feature": feats[::-1]})
    want = oclstat.permutation_test(a, b, n_windows=32)
    got = oclstat.permutation_test(x, y, n_windows=32)
    np.testing.assert_array_equal(got.pvalue, want.pvalue)
    assert got.features == feats
    expr = xr.DataArray(rng.normal(size=(8, 40)), dims=("sample", "gene"),
                        coords={"sample": [f"s{i}" for i in range(8)],
                                "gene": [f"G{i}" for i in range(40)]})
    pheno = xr.DataArray(list("aaaabbbb")[::-1], dims=("sample",),
                         coords={"sample": [f"s{i}" for i in range(8)][::-1]})
    sets = {"S": [f"G{i}" for i in range(12)]}
    r1 = oclstat.gsea(expr, pheno, sets, n_resamples=50, min_size=5, seed=1)
    frame = pd.DataFrame(expr.values.T, index=[f"G{i}" for i in range(40)],
                         columns=[f"s{i}" for i in range(8)])
    r2 = oclstat.gsea(frame, list("aaaabbbb"), sets, n_resamples=50, min_size=5, seed=1)
    pd.testing.assert_frame_equal(r1.table, r2.table)
    with pytest.raises(ValueError, match="share none"):
        oclstat.permutation_test(x, xr.DataArray(b, dims=("u", "v")))
    with pytest.raises(ValueError, match="3 dimensions"):
        oclstat.permutation_test(xr.DataArray(np.zeros((2, 2, 2))), b)


# ----------------------------------------------------------------------------- outputs


def fisher_table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("3,1\n1,3\n")
    return str(path)


def test_out_writes_through_a_symlink(tmp_path):
    real = tmp_path / "real.tsv"
    real.write_text("old\n")
    os.chmod(real, 0o640)
    link = tmp_path / "link.tsv"
    link.symlink_to(real)
    assert main(["fisher", fisher_table(tmp_path), "--out", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith("pvalue\t")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_out_to_devices_and_fifos_writes_in_place(tmp_path, capfd):
    assert main(["fisher", fisher_table(tmp_path), "--out", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert main(["fisher", fisher_table(tmp_path), "--out", "/dev/full"]) == 2
    err = capfd.readouterr().err.strip().splitlines()
    assert err == ["oclstat fisher: error: --out /dev/full: could not write (No space left on "
                   "device)"]
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    assert main(["fisher", fisher_table(tmp_path), "--out", str(fifo)]) == 0
    assert reader.communicate(timeout=60)[0].startswith("pvalue\t")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_dash_is_stdout_for_text_and_refused_for_binary(tmp_path, capsys):
    for argv in (["fisher", fisher_table(tmp_path)],
                 ["rng", "uniform", "--n", "3", "--seed", "1"]):
        assert main([*argv, "--out", "-"]) == 0
        out = capsys.readouterr()
        assert not (tmp_path / "-").exists() and not os.path.exists("-")
        if argv[0] == "fisher":
            assert out.out.startswith("pvalue\t")          # the report went to stderr
            assert "Fisher's Exact Test" in out.err and "Fisher" not in out.out
    assert main(["fields", "--nx", "4", "--ny", "4", "--n-sim", "1", "--out", "-"]) == 2
    assert "binary" in capsys.readouterr().err


def test_a_failed_run_leaves_the_old_file(tmp_path):
    target = tmp_path / "keep.tsv"
    target.write_text("precious\n")
    bad = tmp_path / "bad.csv"
    bad.write_text("3,1\n1,x\n")
    assert main(["fisher", str(bad), "--out", str(target)]) == 2
    assert target.read_text() == "precious\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_closed_pipe_ends_quietly(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "oclstat", "rng", "normal", "--n", "1e6",
                             "--seed", "1", "--out", "-"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    rc = proc.wait(timeout=120)
    assert err == "", err
    assert rc in (141, -signal.SIGPIPE)


# ----------------------------------------------------------------------------- messages


def test_messages_speak_the_command_line(tmp_path, capsys):
    table = tmp_path / "big.csv"
    table.write_text("0,1,2\n5,6,7\n")
    assert main(["fisher", str(table)]) == 2
    err = capsys.readouterr().err
    assert "--header yes or --header no" in err and "header=" not in err
    from oclstat._vocabulary import python_to_cli, python_to_r

    assert python_to_cli("shape np.float64(1.5) at np.int32(2); use method='simulate' or "
                         "dtype=np.float32") == \
        "shape 1.5 at 2; use --method simulate or --dtype float32"
    assert python_to_r("gsea", "n_resamples=0 with min_size=5") == "nperm = 0 with minSize = 5"
    (tmp_path / "s.txt").write_text("not streams\n")
    assert main(["rng", "raw", "--n", "2", "--streams", str(tmp_path / "s.txt"),
                 "--out", "-"]) == 2
    err = capsys.readouterr().err
    assert "not an oclstat Streams file" in err and "pickle" not in err


def test_plot_needs_matplotlib_names_the_function(monkeypatch):
    import builtins

    real = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match="^plot_fields needs matplotlib"):
        oclstat.plot_fields(np.zeros((1, 3, 3)))


@pytest.mark.r
def test_rinterop_honours_r_names(R):
    from oclstat import rinterop

    rinterop.register()
    R.r("set.seed(4); x <- matrix(rnorm(30), 5, dimnames = list(paste0('f', 1:5), NULL)); "
        "y <- matrix(rnorm(35) + 1, 5, dimnames = list(paste0('f', 1:5), NULL))")
    a = R.r("permTest(x, y, nWindows = 64)")
    b = R.r("permTest(x, y[c(3, 5, 1, 4, 2), ], nWindows = 64)")
    assert list(a.rx2("p.value")) == list(b.rx2("p.value"))
    assert list(b.rx2("feature")) == [f"f{i}" for i in range(1, 6)]


def test_readers_keep_what_they_inferred():
    t = read_table(io.StringIO("a,b\n1,2\n3,4\n"))
    assert "first column 'a' read as data" in t.input.summary()
    assert "row_names=True reads it otherwise" in t.input.summary()


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript is not installed")
@pytest.mark.r
def test_write_table_groups_from_r(tmp_path, capsys):
    data = pd.DataFrame(np.arange(24).reshape(4, 6) % 7, index=[f"f{i}" for i in range(4)],
                        columns=[f"s{i}" for i in range(6)])
    data.to_csv(tmp_path / "d.csv")
    subprocess.run(["Rscript", "-e", f'write.table(data.frame(group = rep(c("a", "b"), 3)), '
                    f'"{tmp_path / "g.txt"}")'], check=True, timeout=120)
    assert main(["permtest", "--data", str(tmp_path / "d.csv"), "--groups",
                 str(tmp_path / "g.txt")]) == 0
    assert "labels by position (the first column is 1, 2, 3" in capsys.readouterr().err


def test_results_keep_what_was_read(tmp_path, shared_data):
    d = shared_data / "gsea"
    res = oclstat.gsea(d / "Leukemia_hgu95av2.trim.gct", d / "Leukemia.cls",
                       d / "h.all.v7.0.symbols.gmt", n_resamples=20, seed=1)
    summary = res.input.summary()
    assert "Leukemia_hgu95av2.trim.gct" in summary and "class A 'ALL'" in summary
    g, y = planted_genotypes(n=100)
    frame = g.copy()
    frame["status"] = y
    frame.to_csv(tmp_path / "g.csv", index=False)
    hits = oclstat.epistasis(read_genotype_table(tmp_path / "g.csv"), order=2, top=2)
    assert "phenotype: column 'status'" in hits.input.summary()
    assert oclstat.epistasis(g.to_numpy().T, y, order=2, top=2).input is None
    a = read_table(io.StringIO("f,s1,s2,s3\nx,1,2,3\ny,4,5,6\n"))
    b = read_table(io.StringIO("f,t1,t2\ny,7,8\nx,0,1\n"))
    res = oclstat.permutation_test(a, b)          # tables are paired by their row names
    assert res.features == ["x", "y"] and res.input is not None
    np.testing.assert_array_equal(
        res.pvalue, oclstat.permutation_test([[1, 2, 3], [4, 5, 6]], [[0, 1], [7, 8]]).pvalue)
