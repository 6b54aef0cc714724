"""ULM (decoupler's univariate linear model): against decoupler 2.0's own output on a fixed
dataset (tests/data/make_ulm_decoupler.py), against scipy's linear regression, sparse equal
to dense, blocks of samples, AnnData storage and bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse, stats

import oclstat

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
import make_ulm_decoupler
import ulm_decoupler as ref


def _ours(counts, net, **kw):
    return oclstat.ulm(counts.T, net, **kw)


def test_equals_decoupler_on_its_output():
    counts, net = make_ulm_decoupler.dataset()
    res = _ours(counts, net)
    assert "cell70" not in ref.CELLS                     # decoupler drops the empty cell
    assert res.scores.loc[:, "cell70"].isna().all()      # here it has no fit
    assert sorted(res.scores.index) == sorted(ref.SOURCES)
    score = res.scores.loc[ref.SOURCES, ref.CELLS].T.to_numpy()
    padj = res.padj.loc[ref.SOURCES, ref.CELLS].T.to_numpy()
    shape = (len(ref.CELLS), len(ref.SOURCES))
    np.testing.assert_allclose(score, np.reshape(ref.SCORE, shape), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(padj, np.reshape(ref.PADJ, shape), rtol=1e-9, atol=1e-300)


def test_sparse_equals_dense_and_blocks_do_not_matter(monkeypatch):
    counts, net = make_ulm_decoupler.dataset()
    dense = _ours(counts, net)
    csc = oclstat.ulm(sparse.csc_matrix(counts.T.to_numpy()), net, genes=list(counts.columns),
                      samples=list(counts.index))
    pd.testing.assert_frame_equal(csc.scores, dense.scores, rtol=1e-11)
    import importlib

    module = importlib.import_module("oclstat._singlesample.ulm")     # not the function
    monkeypatch.setattr(module, "CELLS_PER_PRODUCT", 7)
    for blocked in (_ours(counts, net),
                    oclstat.ulm(sparse.csc_matrix(counts.T.to_numpy()), net,
                                genes=list(counts.columns), samples=list(counts.index))):
        pd.testing.assert_frame_equal(blocked.scores, dense.scores, rtol=1e-11)
        pd.testing.assert_frame_equal(blocked.padj, dense.padj, rtol=1e-11)


def test_the_t_value_and_p_of_scipys_regression():
    rng = np.random.default_rng(3)
    x = pd.DataFrame(rng.normal(size=(200, 4)), index=[f"g{i}" for i in range(200)])
    w = rng.normal(size=30)
    x.iloc[:30, 1] += 0.8 * w
    net = pd.DataFrame({"source": "S", "target": [f"g{i}" for i in range(30)], "weight": w})
    res = oclstat.ulm(x, net)
    for j in range(4):
        design = np.zeros(200)
        design[:30] = w
        fit = stats.linregress(design, x.iloc[:, j].to_numpy())
        assert res.scores.iloc[0, j] == pytest.approx(fit.slope / fit.stderr, rel=1e-10)
        assert res.pvalues.iloc[0, j] == pytest.approx(fit.pvalue, rel=1e-8)


def test_unweighted_sets_and_anndata_storage():
    anndata = pytest.importorskip("anndata")
    counts, net = make_ulm_decoupler.dataset()
    sets = {s: list(t) for s, t in net.groupby("source")["target"]}
    plain = oclstat.ulm(counts.T, sets)
    ones = oclstat.ulm(counts.T, net.drop(columns="weight"))
    pd.testing.assert_frame_equal(plain.scores.loc[ones.scores.index], ones.scores)
    adata = anndata.AnnData(counts.to_numpy(), obs=pd.DataFrame(index=counts.index),
                            var=pd.DataFrame(index=counts.columns))
    res = oclstat.ulm(adata, net)
    pd.testing.assert_frame_equal(adata.obsm["score_ulm"], res.scores.T, check_names=False)
    pd.testing.assert_frame_equal(adata.obsm["padj_ulm"], res.padj.T, check_names=False)


def test_calibrated_under_the_null():
    """Expression unrelated to the weights: the p-values are uniform."""
    rng = np.random.default_rng(8)
    x = pd.DataFrame(rng.normal(size=(400, 2000)), index=[f"g{i}" for i in range(400)])
    net = pd.DataFrame({"source": "S", "target": [f"g{i}" for i in range(40)],
                        "weight": rng.normal(size=40)})
    p = oclstat.ulm(x, net).pvalues.loc["S"].to_numpy()
    assert stats.kstest(p, "uniform").pvalue > 0.01


@pytest.mark.parametrize("sets, kwargs, error, words", [
    (pd.DataFrame({"source": ["S"] * 2, "target": ["g0", "g0"]}), {}, ValueError, "twice"),
    (pd.DataFrame({"source": ["S"] * 5, "target": [f"g{i}" for i in range(5)],
                   "weight": [1, 2, "x", 1, 1]}), {}, ValueError, "not a number"),
    (pd.DataFrame({"source": ["S"] * 5, "target": [f"g{i}" for i in range(5)],
                   "weight": [1, 2, np.inf, 1, 1]}), {}, ValueError, "finite"),
    ({"S": ["g0", "g1"]}, {}, ValueError, "min_size=5"),
    ({"S": ["g0", "g1"]}, {"min_size": 0}, ValueError, "min_size"),
    ({}, {}, TypeError, "gene_sets"),
    (pd.DataFrame({"set": ["S"], "gene": ["g0"]}), {}, ValueError, "source"),
])
def test_bad_input_names_the_argument(sets, kwargs, error, words):
    x = pd.DataFrame(np.arange(40.0).reshape(10, 4), index=[f"g{i}" for i in range(10)])
    with pytest.raises(error, match=words):
        oclstat.ulm(x, sets, **kwargs)
