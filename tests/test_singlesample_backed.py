"""A backed .h5ad (``anndata.read_h5ad(path, backed="r")``) is scored a block of cells at a
time, read from the file as it goes: the same scores as the AnnData in memory for every
single-sample method, sparse and dense files, and memory that does not follow the cells."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import oclstat
from oclstat._singlesample.validate import BackedCells

anndata = pytest.importorskip("anndata")


def _data(cells=150, genes=300, seed=2):
    rng = np.random.default_rng(seed)
    x = np.log1p(rng.poisson(0.4, size=(cells, genes)).astype(float))
    x[:30, :25] += 2.0
    names = [f"g{i}" for i in range(genes)]
    sets = {"up": names[:25], "mid": names[100:140], "neg": names[200:230] + ["g5-"]}
    return x, names, sets


def _files(tmp_path, x, names):
    out = {}
    for kind, matrix in (("sparse", sparse.csr_matrix(x)), ("dense", x)):
        path = tmp_path / f"{kind}.h5ad"
        anndata.AnnData(matrix, obs=pd.DataFrame(index=[f"c{j}" for j in range(len(x))]),
                        var=pd.DataFrame(index=names)).write_h5ad(path)
        out[kind] = path
    return out


METHODS = [("ssgsea", {}), ("gsva", {}), ("aucell", {}), ("ucell", {"max_rank": 100}),
           ("zscore", {}), ("plage", {})]


@pytest.mark.parametrize("kind", ["sparse", "dense"])
@pytest.mark.parametrize("method, kwargs", METHODS)
def test_backed_scores_equal_the_ones_in_memory(tmp_path, monkeypatch, kind, method, kwargs):
    x, names, sets = _data()
    path = _files(tmp_path, x, names)[kind]
    monkeypatch.setattr(BackedCells, "CELLS_PER_READ", 40)
    in_memory = getattr(oclstat, method)(anndata.read_h5ad(path), sets, **kwargs)
    backed = anndata.read_h5ad(path, backed="r")
    got = getattr(oclstat, method)(backed, sets, **kwargs)
    pd.testing.assert_frame_equal(got, in_memory, rtol=1e-12)


@pytest.mark.parametrize("kind", ["sparse", "dense"])
def test_backed_ulm_equals_in_memory(tmp_path, kind):
    x, names, sets = _data()
    x[:, 7] = 0.0                                   # a gene expressed nowhere: left out
    path = _files(tmp_path, x, names)[kind]
    ref = oclstat.ulm(anndata.read_h5ad(path), sets)
    got = oclstat.ulm(anndata.read_h5ad(path, backed="r"), sets)
    assert got.n_genes == ref.n_genes == len(names) - 1
    pd.testing.assert_frame_equal(got.scores, ref.scores, rtol=1e-12)


def _peak_ssgsea(path, names) -> int:
    backed = anndata.read_h5ad(path, backed="r")
    tracemalloc.start()
    oclstat.ssgsea(backed, {"a": names[:50], "b": names[500:600]})
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_a_backed_file_is_never_read_whole(tmp_path, monkeypatch):
    """ssGSEA on 2,000 and 8,000 cells x 2,000 genes (sparse files, 20% non-zero), read 500
    cells at a time: what Python allocates grows with the cells only by the results and
    their labels (the scores and cell names), far less per cell than the file stores (4.8
    kB) or a dense copy takes (16 kB)."""
    monkeypatch.setattr(BackedCells, "CELLS_PER_READ", 500)
    rng = np.random.default_rng(5)
    names = [f"g{i}" for i in range(2000)]
    peaks, per_cell = [], 0.0
    for cells in (2000, 8000):
        x = sparse.random(cells, 2000, density=0.2, format="csr", random_state=rng,
                          data_rvs=lambda k: rng.integers(1, 9, size=k).astype(float))
        path = tmp_path / f"cells{cells}.h5ad"
        anndata.AnnData(x, var=pd.DataFrame(index=names)).write_h5ad(path)
        per_cell = (x.data.nbytes + x.indices.nbytes) / cells
        peaks.append(_peak_ssgsea(path, names))
    growth = (peaks[1] - peaks[0]) / 6000
    assert growth < 0.15 * per_cell, (peaks, growth, per_cell)


def test_a_backed_file_with_nan_is_refused_as_it_is_read(tmp_path):
    x, names, sets = _data()
    x[120, 3] = np.nan
    path = _files(tmp_path, x, names)["dense"]
    with pytest.raises(ValueError, match="missing or infinite"):
        oclstat.ssgsea(anndata.read_h5ad(path, backed="r"), sets)


# -- where the results go, as scanpy decides it ----------------------------------------------

@pytest.mark.parametrize("method", ["ssgsea", "aucell", "ucell", "zscore", "ulm"])
def test_inplace_and_copy_follow_scanpy(method):
    import anndata

    rng = np.random.default_rng(8)
    x = rng.poisson(1.0, size=(30, 60)).astype(float)
    genes = [f"g{i}" for i in range(60)]
    adata = anndata.AnnData(x, var=pd.DataFrame(index=genes))
    sets = {"a": genes[:10], "b": genes[20:35]}
    f = getattr(oclstat, method)
    kinds = ["score", "padj"] if method == "ulm" else ["score"]

    def scores(res):
        return res.scores if method == "ulm" else res

    plain = scores(f(x.T, sets, genes=genes, samples=list(adata.obs_names)))
    untouched = f(adata, sets, inplace=False)
    assert list(adata.obsm) == []
    pd.testing.assert_frame_equal(scores(untouched), plain)
    copied = f(adata, sets, copy=True)
    assert isinstance(copied, anndata.AnnData) and copied is not adata
    assert list(adata.obsm) == []
    assert sorted(copied.obsm) == sorted(f"{k}_{method}" for k in kinds)
    pd.testing.assert_frame_equal(copied.obsm[f"score_{method}"], plain.T, check_names=False)
    given = f(adata, sets)
    pd.testing.assert_frame_equal(scores(given), plain)
    pd.testing.assert_frame_equal(adata.obsm[f"score_{method}"], plain.T, check_names=False)


def test_copy_and_inplace_are_checked_before_any_work(tmp_path):
    import anndata

    x = np.ones((4, 3))
    with pytest.raises(ValueError, match="copy=True returns a copy of an AnnData"):
        oclstat.ssgsea(x, {"s": ["g0"]}, genes=["g0", "g1", "g2", "g3"], copy=True)
    with pytest.raises(TypeError, match="inplace must be True or False"):
        oclstat.aucell(x, {"s": ["g0"]}, genes=["g0", "g1", "g2", "g3"], inplace="yes")
    path = tmp_path / "cells.h5ad"
    anndata.AnnData(np.ones((3, 4)), var=pd.DataFrame(index=["g0", "g1", "g2", "g3"])).write_h5ad(
        path)
    backed = anndata.read_h5ad(path, backed="r")
    with pytest.raises(ValueError, match="cannot copy a backed AnnData"):
        oclstat.ucell(backed, {"s": ["g0"]}, copy=True)


def test_what_ucell_and_ulm_read_from_the_names_is_kept():
    rng = np.random.default_rng(9)
    genes = [f"g{i}" for i in range(40)]
    x = pd.DataFrame(rng.poisson(2.0, size=(40, 6)).astype(float), index=genes)
    x.iloc[39] = 0.0
    u = oclstat.ucell(x, {"mixed": ["g1", "g2+", "g3-", "nope-"], "plain": ["g5", "absent"]})
    assert u.attrs["negative_members"] == {"mixed": ["g3", "nope"]}
    assert u.attrs["absent_members"] == {"mixed": ["nope"], "plain": ["absent"]}
    res = oclstat.ulm(x, {"s": genes[:10]})
    assert res.left_out == ("g39",) and res.n_genes == 39
    assert "1 expressed nowhere left out" in repr(res)
