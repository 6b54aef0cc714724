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


def test_a_backed_file_is_never_read_whole(tmp_path):
    """ssGSEA on 2,000 and 8,000 cells x 2,000 genes (sparse files, 20% non-zero): what
    Python allocates grows with the cells only by the results and their labels (the scores
    and cell names), far less per cell than the file stores (4.8 kB) or a dense copy takes
    (16 kB)."""
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
