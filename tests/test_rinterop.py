"""oclstat.rinterop: R objects <-> numpy/pandas, and oclstat's functions registered in the
embedded R session (rpy2), called from R code with R inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import oclstat
from oclstat import rinterop

pytestmark = pytest.mark.r


def test_to_python_conversions(R):
    r = R.r
    m = rinterop.to_python(r("matrix(1:6, 2)"))
    np.testing.assert_array_equal(m, [[1, 3, 5], [2, 4, 6]])      # column-major kept
    a = rinterop.to_python(r("array(as.double(1:24), c(2, 3, 4))"))
    assert a.shape == (2, 3, 4) and a[1, 2, 3] == 24.0
    assert rinterop.to_python(r("factor(c('b', 'a', 'b'), levels = c('b', 'a'))")) == \
        ["b", "a", "b"]
    d = rinterop.to_python(r("list(s1 = c('A', 'B'), s2 = 'C')"))
    assert d == {"s1": ["A", "B"], "s2": ["C"]}
    frame = rinterop.to_python(r("data.frame(x = c(1.5, 2), g = c('u', 'v'), "
                                 "row.names = c('r1', 'r2'))"))
    assert list(frame.index) == ["r1", "r2"] and frame.loc["r2", "x"] == 2.0
    with pytest.raises(ValueError, match="counts contains NA"):
        rinterop.to_python(r("c(1L, NA)"), "counts")


def test_to_r_round_trip(R):
    x = np.arange(12.0).reshape(3, 4)
    rx = rinterop.to_r(x)
    assert list(R.r["dim"](rx)) == [3, 4]
    assert R.r["["](rx, 3, 2)[0] == x[2, 1]
    np.testing.assert_array_equal(rinterop.to_python(rx), x)
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}, index=["p", "q"])
    back = rinterop.to_python(rinterop.to_r(frame))
    pd.testing.assert_frame_equal(back, frame, check_dtype=False)
    assert rinterop.to_python(rinterop.to_r({"k": ["g1", "g2"]})) == {"k": ["g1", "g2"]}


def test_registered_functions_equal_python(R):
    names = rinterop.register()          # into R's global environment, as for %%R cells
    assert {"fisher.sim", "gsea", "permTest", "simulateFields"} <= set(names)
    p = R.r("fisher.sim(matrix(c(3L, 1L, 1L, 5L, 2L, 2L), 2), B = 5000L, seed = 3L)$p.value")[0]
    ref = oclstat.fisher_sim(np.array([[3, 1, 2], [1, 5, 2]]), 5000, seed=3).pvalue
    assert p == ref
    assert list(R.r("class(fisher.sim(matrix(c(3, 1, 1, 5), 2), B = 100, seed = 1))")) == \
        ["htest"]
    s = rinterop.to_python(R.r("createStreams(3L, seed = 5L)"))
    np.testing.assert_array_equal(s, oclstat.random.create_streams(3, seed=5)
                                  .to_matrix(substream=False))
    u = rinterop.to_python(R.r("runifGpu(c(2L, 3L), seed = 4L)"))
    np.testing.assert_array_equal(u, oclstat.random.uniform((2, 3), seed=4))
    xy = np.array([[0.0, 0.0], [0.3, 0.1], [0.9, 0.4]])
    R.globalenv["xy"] = rinterop.to_r(xy)
    f = rinterop.to_python(R.r("simulateFields(xy, c(0.5, 1.5, 1, 0, 1, 0), 2L, seed = 6L)"))
    np.testing.assert_array_equal(f, oclstat.simulate_fields(xy, [0.5, 1.5, 1, 0, 1, 0], 2,
                                                             seed=6))
    res = rinterop.to_python(R.r(
        "gsea(matrix(rnorm(600), 100, dimnames = list(paste0('G', 1:100), NULL)), "
        "rep(c('a', 'b'), each = 3), list(s = paste0('G', 1:20)), nperm = 50L, "
        "minSize = 5L, seed = 1L)"))
    assert list(res.columns) == ["pathway", "pval", "padj", "ES", "NES", "size", "leadingEdge",
                                 "FDR", "FWER", "nMoreExtreme"]  # as the R package's gsea()
    assert res["pathway"].tolist() == ["s"] and 0 <= res["pval"][0] <= 1


def test_registered_errors_are_r_errors(R):
    rinterop.register()
    msg = R.r("tryCatch(fisher.sim(matrix(c(1, -1, 2, 3), 2)), "
              "error = function(e) conditionMessage(e))")[0]
    assert msg.startswith("fisher.sim:") and "negative" in msg


def test_registered_epistasis(R):
    rinterop.register()
    rng = np.random.default_rng(2)
    g = rng.integers(0, 3, size=(8, 300))
    y = rng.integers(0, 2, size=300)
    y[(g[1] + g[5]) % 2 == 1] = 1
    R.globalenv["g"] = rinterop.to_r(g)
    R.globalenv["y"] = rinterop.to_r(y)
    res = rinterop.to_python(R.r("epistasis(g, y, order = 2L, top = 3L)"))
    assert (res["snp1"][0], res["snp2"][0]) == (2, 6)          # 1-based in R
    ref = oclstat.epistasis(g, y, order=2, top=3).table
    np.testing.assert_array_equal(res["k2"], ref["k2"])


def test_registered_functions_return_what_the_r_package_returns(R, tmp_path):
    """The same adapters as the R package: htest for two vectors, data.frame for matrices,
    stream matrices with gpuRandom's column names that advance, factors from CLS files."""
    rinterop.register()
    h = R.r("permTest(c(3, 5, 6, 9), c(1, 2, 2, 4, 3), alternative = 'greater')")
    assert list(h.rclass) == ["htest"]
    ref = oclstat.permutation_test([3, 5, 6, 9], [1, 2, 2, 4, 3], alternative="greater")
    assert rinterop.to_python(h)["p.value"][0] == ref.pvalue
    frame = rinterop.to_python(R.r(
        "permTest(matrix(c(1, 5, 2, 6, 3, 7), 2, dimnames = list(c('f1', 'f2'), NULL)), "
        "matrix(c(0, 9, 1, 8), 2))"))
    assert list(frame.columns) == ["feature", "meanX", "meanY", "meanDiff", "effectSize",
                                   "statistic", "p.value", "q.value"]
    assert frame["feature"].tolist() == ["f1", "f2"]
    R.r("s <- createStreams(2L, seed = 9L)")
    assert list(R.r("colnames(s)"))[:2] == ["current.g1.1", "current.g1.2"]
    u = R.r("runifGpu(4L, s)")
    moved = rinterop.to_python(u.do_slot("streams"))
    st = oclstat.random.create_streams(2, seed=9)
    np.testing.assert_array_equal(rinterop.to_python(u), oclstat.random.uniform(4, streams=st))
    np.testing.assert_array_equal(moved, st.to_matrix(substream=False))
    cls = tmp_path / "p.cls"
    cls.write_text("4 2 1\n# MUT WT\nMUT WT WT MUT\n")
    f = R.r(f"readCls('{cls}')")
    assert list(f.rclass) == ["factor"] and list(R.r["levels"](f)) == ["MUT", "WT"]
    devices = rinterop.to_python(R.r("listDevices()"))
    assert len(devices) == len(oclstat.devices())
    msg = R.r("tryCatch(permTest(c(1.5, 2), c(3, 4), nWindows = 1), "
              "error = function(e) conditionMessage(e))")[0]
    assert "nWindows must be >= 2" in msg                     # R's name, not n_windows


def test_registered_perm_test_takes_groups_and_defaults_to_coins_rule(R):
    rinterop.register()
    x = [3.0, 5.0, 6.0, 9.0, 1.0, 2.0, 2.0, 4.0, 3.0]
    R.globalenv["v"] = R.FloatVector(x)
    h = rinterop.to_python(R.r("permTest(v, groups = factor(rep(c('a', 'b'), c(4, 5))))"))
    ref = oclstat.permutation_test(x[:4], x[4:], two_sided="distance")
    assert h["p.value"][0] == ref.pvalue
    np.testing.assert_allclose(h["estimate"], [np.mean(x[:4]), np.mean(x[4:])])
