"""UCell: against UCell's own scoring code (R/HelperFunctions.R, calculate_Uscore) on a fixed
dataset (tests/data/make_ucell_reference.py), against a direct Mann-Whitney U (scipy), sparse
equal to dense, blocks of cells, AnnData storage and bad input."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse, stats

import oclstat

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
import make_ucell_reference
import ucell_reference as ref


@pytest.mark.parametrize("run", range(len(ref.RUNS)))
def test_equals_ucell_on_its_output(run):
    counts, sigs = make_ucell_reference.dataset()
    max_rank, missing, w_neg = ref.RUNS[run]
    got = oclstat.ucell(counts, sigs, max_rank=max_rank, missing_genes=missing, w_neg=w_neg)
    want = np.reshape(ref.SCORES[run], (len(ref.CELLS), len(ref.SIGNATURES)))
    np.testing.assert_allclose(got.loc[ref.SIGNATURES, ref.CELLS].T.to_numpy(), want,
                               rtol=1e-13, atol=1e-15)
    assert got.attrs["max_rank"] == min(max_rank, counts.shape[0])


def test_the_mann_whitney_u_of_scipy():
    """max_rank = all genes: the rank sum above its least is the number of (member, other
    gene) pairs with the other gene higher, L (n - L) - U for scipy's Mann-Whitney U of the
    members against the others; UCell divides it by L n - L (L + 1) / 2."""
    rng = np.random.default_rng(4)
    x = pd.DataFrame(rng.normal(size=(300, 5)), index=[f"g{i}" for i in range(300)])
    members = [f"g{i}" for i in range(0, 60, 3)]
    got = oclstat.ucell(x, {"s": members}, max_rank=300).loc["s"].to_numpy()
    inside = x.index.isin(members)
    for j in range(5):
        u = stats.mannwhitneyu(x.iloc[:, j][inside], x.iloc[:, j][~inside]).statistic
        k, n = int(inside.sum()), inside.size
        assert got[j] == pytest.approx(1 - (k * (n - k) - u) / (k * n - k * (k + 1) / 2),
                                       rel=1e-12)


def test_sparse_equals_dense_and_blocks_do_not_matter(monkeypatch):
    counts, sigs = make_ucell_reference.dataset()
    dense = oclstat.ucell(counts, sigs, max_rank=100)
    csc = oclstat.ucell(sparse.csc_matrix(counts.to_numpy()), sigs, max_rank=100,
                        genes=list(counts.index), samples=list(counts.columns))
    pd.testing.assert_frame_equal(csc, dense, rtol=1e-14)
    from oclstat._singlesample import api

    monkeypatch.setattr(api, "SAMPLE_BLOCK", 7)
    pd.testing.assert_frame_equal(oclstat.ucell(counts, sigs, max_rank=100), dense)


def test_anndata_storage():
    anndata = pytest.importorskip("anndata")
    counts, sigs = make_ucell_reference.dataset()
    adata = anndata.AnnData(counts.T.to_numpy(), obs=pd.DataFrame(index=counts.columns),
                            var=pd.DataFrame(index=counts.index))
    frame = oclstat.ucell(adata, sigs, max_rank=100)
    pd.testing.assert_frame_equal(adata.obsm["score_ucell"], frame.T, check_names=False)


@pytest.mark.parametrize("sets, kwargs, error, words", [
    ({"s": [f"g{i}" for i in range(12)]}, {"max_rank": 11}, ValueError, "more than max_rank"),
    ({"s": ["g0"]}, {"w_neg": -1}, ValueError, "w_neg"),
    ({"s": ["g0"]}, {"missing_genes": "drop"}, ValueError, "missing_genes"),
    ({"s": ["g0"]}, {"max_rank": 0}, ValueError, "max_rank"),
    ({"s": "g0"}, {}, TypeError, "gene set 's'"),
    ({}, {}, TypeError, "gene_sets"),
])
def test_bad_input_names_the_argument(sets, kwargs, error, words):
    x = pd.DataFrame(np.arange(60.0).reshape(20, 3), index=[f"g{i}" for i in range(20)])
    with pytest.raises(error, match=words):
        oclstat.ucell(x, sets, **kwargs)
