"""GSVA 2's sparse algorithm (``gsva(sparse=True)``; ``gsvaParam(sparse = TRUE)`` in R)
against its definition taken literally, as GSVA 2's C and R code compute it: each gene's CDF
from its non-zero values, R's ``rank(ties.method = "last")`` of each column's non-zero values,
``.ranks2stats(sparse = TRUE)`` and the running sum position by position. GSVA 2's own scores
on the same calls are pinned in rbridge/tests/testthat/gsva2_reference.csv (the R package's
test-gsva2.R compares them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from gsva2_reference import walk_score
from scipy import sparse, special, stats

import oclstat
from oclstat._singlesample import sparse_gsva


def _data(seed=4, genes=80, samples=12, counts=False):
    rng = np.random.default_rng(seed)
    if counts:
        x = rng.poisson(20, size=(genes, samples)).astype(float)
        x[x < 20] = 0
    else:
        x = np.round(rng.exponential(size=(genes, samples)), 3)
        x[x < 0.7] = 0
    x[3] = 0                                            # expressed nowhere: left out
    x[4] = 0
    x[4, 2] = 1.5                                       # one value: left out
    x[5] = np.where(x[5] > 0, 2.0, 0.0)                 # equal values: left out
    x[:, 7] = x[:, 7] + 0.25                            # a sample without zeros
    names = [f"g{i}" for i in range(genes)]
    sets = {"a": names[:15], "b": names[10:40], "c": names[50:58] + ["g3", "missing"]}
    return x, names, sets


def _definition(x, sets, names, kcdf, tau=1.0, mx_diff=True, abs_ranking=False):
    """Sets x samples, loop by loop."""
    keep = [i for i in range(x.shape[0]) if len(set(x[i][x[i] != 0])) >= 2]
    x = x[keep]
    kept = [names[i] for i in keep]
    p, n = x.shape
    z = np.zeros_like(x)
    for i in range(p):
        cols = np.flatnonzero(x[i])
        v = x[i, cols]
        h = np.std(v, ddof=1) / 4
        for k, c in enumerate(cols):
            if kcdf == "Gaussian":
                z[i, c] = sum(special.ndtr((v[k] - w) / h) for w in v) / v.size
            elif kcdf == "Poisson":
                z[i, c] = sum(stats.poisson.cdf(v[k], w + 0.5) for w in v) / v.size
            else:
                z[i, c] = np.sum(v <= v[k]) / v.size
    out = np.zeros((len(sets), n))
    for j in range(n):
        col = z[:, j]
        nz = [i for i in range(p) if col[i] != 0]
        # R's rank(ties.method = "last"): equal values ranked in decreasing order of rows
        ranked = sorted(nz, key=lambda i: (col[i], -i))
        r = np.zeros(p)
        for k, i in enumerate(ranked):
            r[i] = k + 1
        mask = r == 0
        r_dense = r.copy()
        if mask.any():
            r_dense[~mask] += mask.sum()
            r_dense[mask] = np.arange(1, mask.sum() + 1)
        dos = p - r_dense + 1
        if mask.any():
            rs = np.where(mask, 1.0, r + 1)
            srs = np.abs(rs.max() / 2 - rs)
        else:
            srs = np.abs(p / 2 - r_dense)
        for s, members in enumerate(sets.values()):
            idx = [kept.index(g) for g in members if g in kept]
            out[s, j] = walk_score(dos[idx], srs[idx], p, tau, mx_diff, abs_ranking)
    return out


@pytest.mark.parametrize("kcdf,args", [
    ("Gaussian", {}), ("none", {}), ("Poisson", {}),
    ("Gaussian", {"tau": 0.5, "mx_diff": False}), ("none", {"abs_ranking": True})])
def test_sparse_gsva_is_gsva_2s_definition(rt, kcdf, args):
    x, names, sets = _data(counts=kcdf == "Poisson")
    ours = oclstat.gsva(sparse.csr_matrix(x), sets, kcdf=kcdf, sparse=True, tabulated=False,
                        genes=names, device=rt, **args)
    want = _definition(x, sets, names, kcdf, **args)
    assert ours.attrs["sparse"] is True
    np.testing.assert_allclose(ours.loc[list(sets)].to_numpy(), want, rtol=0, atol=1e-12)


def test_tabulated_sums_equal_the_hosts_table_reading(rt):
    """The device's sums over padded rows equal the host's tabulated CDF summed in order."""
    from oclstat._singlesample.core import _cdf

    x, names, sets = _data(seed=9)
    rows = sparse.csr_matrix(x)
    rows.eliminate_zeros()
    keep = np.array([len(set(r.data)) >= 2 for r in rows])
    rows = rows[np.flatnonzero(keep)]
    got = sparse_gsva.nonzero_cdf(rows, "Gaussian", rt=rt, tabulated=True)
    for i in range(rows.shape[0]):
        v = rows.data[rows.indptr[i]:rows.indptr[i + 1]]
        h = v.std(ddof=1) / 4
        want = [np.cumsum(_cdf((a - v) / h, True))[-1] / v.size for a in v]
        np.testing.assert_allclose(got[rows.indptr[i]:rows.indptr[i + 1]], want, rtol=1e-15,
                                   atol=0)


def test_blocks_and_gene_groups_do_not_change_the_scores(rt, monkeypatch):
    x, names, sets = _data(seed=6, samples=150)
    whole = oclstat.gsva(sparse.csc_matrix(x), sets, sparse=True, genes=names, device=rt)
    monkeypatch.setattr(sparse_gsva, "BLOCK_VALUES", 64)          # many device groups
    monkeypatch.setattr(oclstat._singlesample.api, "SAMPLE_BLOCK", 7)
    split = oclstat.gsva(sparse.csc_matrix(x), sets, sparse=True, genes=names, device=rt)
    pd.testing.assert_frame_equal(whole, split, check_exact=True)


def test_dense_input_takes_the_classical_algorithm(rt):
    x, names, sets = _data()
    dense = oclstat.gsva(x, sets, genes=names, device=rt)
    asked = oclstat.gsva(x, sets, sparse=True, genes=names, device=rt)
    assert asked.attrs["sparse"] is False
    pd.testing.assert_frame_equal(dense, asked)
    classical = oclstat.gsva(sparse.csr_matrix(x), sets, genes=names, device=rt)
    pd.testing.assert_frame_equal(dense, classical)


def test_equal_genes_tie_exactly_and_keep_their_row_order():
    """Two genes with the same non-zero counts in other samples get the same estimates to
    the bit, so where they meet their order follows the tie rule (the earlier row first),
    not rounding."""
    x, _, _ = _data(counts=True)
    x[21] = np.roll(x[20], 3)
    rows = sparse.csr_matrix(x[[20, 21]])
    z = rows.copy()
    z.data = sparse_gsva.nonzero_cdf(rows, "Poisson")
    first, second = z.toarray()
    assert sorted(first[first > 0]) == sorted(second[second > 0])
    pos, _ = sparse_gsva.positions_and_rank_scores(z)
    tied = (first == second) & (first > 0)
    assert tied.any()
    assert (pos[0, tied] < pos[1, tied]).all()


def test_too_few_varying_genes_is_refused(rt):
    x = np.zeros((6, 5))
    x[0, :2] = [1.0, 2.0]
    x[1, 1] = 3.0
    with pytest.raises(ValueError, match="non-zero values that vary"):
        oclstat.gsva(sparse.csr_matrix(x), {"s": ["g0", "g1"]}, sparse=True,
                     genes=[f"g{i}" for i in range(6)], device=rt)


def test_command_takes_the_sparse_algorithm_for_an_h5ad(tmp_path, rt):
    anndata = pytest.importorskip("anndata")
    from oclstat.cli import main

    x, names, sets = _data(seed=12)
    cells = [f"c{j}" for j in range(x.shape[1])]
    anndata.AnnData(sparse.csr_matrix(x.T), obs=pd.DataFrame(index=cells),
                    var=pd.DataFrame(index=names)).write_h5ad(tmp_path / "cells.h5ad")
    oclstat.io.write_gmt({k: [g for g in v if g != "missing"] for k, v in sets.items()},
                         tmp_path / "s.gmt")
    out = tmp_path / "scores.tsv"
    assert main(["gsva", "--expr", str(tmp_path / "cells.h5ad"), "--gmt",
                 str(tmp_path / "s.gmt"), "--sparse", "--out", str(out)]) == 0
    got = pd.read_csv(out, sep="\t", index_col=0)
    want = oclstat.gsva(sparse.csr_matrix(x), sets, sparse=True, genes=names, samples=cells,
                        device=rt)
    np.testing.assert_allclose(got.loc[want.index, want.columns].to_numpy(), want.to_numpy(),
                               rtol=1e-9)                     # the file's 10 digits


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_sparse_is_true_or_false(value):
    """sparse= is a flag: anything but True or False is refused naming it, before the data is
    read (1 would silently mean True, "FALSE" from a careless wrapper True as well)."""
    x, names, sets = _data()
    with pytest.raises(TypeError, match="sparse must be True or False"):
        oclstat.gsva(sparse.csr_matrix(x), sets, sparse=value, genes=names)
