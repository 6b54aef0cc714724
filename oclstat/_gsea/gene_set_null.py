"""Broad's gene-set permutation for :func:`oclstat.gsea` (``permutation="gene_set"``, Broad's
``-permute gene_set``): the null of a set is the ES of random gene sets of its size on the
observed ranking.

The random sets are drawn and scored on the device by preranked GSEA's kernel
(``prerank_null`` in cl_kernels/prerank.cl): permutation i draws one sequence of distinct genes
from MRG31k3p stream i of the seed, and every prefix of it is a uniform random set of its size,
so one sequence serves every set size, with the same exact fixed-point ES as the observed one.
The permutations x sizes ES table comes back and is reduced on the host by the rules the
phenotype permutations' kernels follow (``gsea_set_stats``, ``gsea_null_counts``): NES by the
same-sign null mean, nominal p, Broad's FDR over every set's null NES, FWER. Sets of one size
share their null, so the reductions run once per size, weighted by how many sets have it.

>>> import numpy as np, oclstat
>>> from oclstat._gsea.core import enrichment_score
>>> m = np.linspace(2.0, -2.0, 200)
>>> pos = [np.arange(0, 40, 2), np.arange(3, 200, 8)]     # near the top; spread out
>>> es = np.array([enrichment_score(m, p)[0] for p in pos])
>>> out = null_statistics(oclstat.get_runtime(), m, pos, es, weight=1.0, n_resamples=300,
...                       seed=1, dtype=np.float64, return_null=False, progress=False)
>>> bool(out.pval[0] < 0.01), bool(out.pval[1] > 0.05)
(True, True)
"""

from __future__ import annotations

import numpy as np

from .._prerank.opencl import Plan, null_tables
from .._progress import Progress
from .._random.streams import as_seed, fresh_seed
from .core import fixed_weights, gene_weights, weight_bits
from .stats import NullStatistics, _fdr_fwer, normalisation

#: Largest permutations x sizes table kept between the two passes (else drawn again).
KEEP_BYTES = 1 << 30


def _fixed(x: np.ndarray) -> np.ndarray:
    return np.rint(np.ldexp(x, 32)).astype(np.int64)


def null_statistics(rt, sorted_metric, positions, es_obs, *, weight, n_resamples, seed, dtype,
                    return_null, progress) -> NullStatistics:
    """NES, nominal p, FDR and FWER of every set (``positions[s]``: its members' ranking
    positions, ascending) from ``n_resamples`` random gene sets per size."""
    n = sorted_metric.size
    w_all = gene_weights(sorted_metric, weight)
    weights = fixed_weights(w_all, float(w_all.max()) if n else 0.0, weight_bits(n))
    set_sizes = np.array([p.size for p in positions], dtype=np.int64)
    plan = Plan(rt, weights, set_sizes, dtype, "std")
    size_of = np.searchsorted(plan.sizes.astype(np.int64), set_sizes)
    n_sizes = plan.sizes.size
    multiplicity = np.bincount(size_of, minlength=n_sizes)
    words = fresh_seed() if seed is None else as_seed(seed)
    keep = n_resamples * n_sizes * 8 <= KEEP_BYTES or return_null
    table = np.empty((n_resamples, n_sizes)) if keep else None

    def blocks(bar, first_pass: bool):
        """The null ES, permutations x sizes, a batch at a time (drawn again in the second
        pass when the whole table is not kept)."""
        if table is not None and not first_pass:
            yield 0, table
            return
        for f, part in null_tables(plan, words=words, first=0, count=n_resamples):
            block = part[:, 0, :].astype(np.float64)
            if table is not None:
                table[f:f + block.shape[0]] = block
            bar.update(block.shape[0])
            yield f, block

    with Progress(total=n_resamples * (1 if keep else 2), desc="gsea (gene sets)",
                  enabled=progress) as bar:
        # pass 1: per size, the same-sign counts and fixed-point sums; per set, the null ES
        # at least as extreme as its own (gsea_set_stats)
        n_pos = np.zeros(n_sizes, np.int64)
        s_pos = np.zeros(n_sizes, np.int64)
        n_neg = np.zeros(n_sizes, np.int64)
        s_neg = np.zeros(n_sizes, np.int64)
        extreme = np.zeros(es_obs.size, np.int64)
        positive = es_obs >= 0
        for _, block in blocks(bar, True):
            fixed = _fixed(block)
            ge = block >= 0
            n_pos += ge.sum(axis=0)
            n_neg += (~ge).sum(axis=0)
            s_pos += np.where(ge, fixed, 0).sum(axis=0)
            s_neg += np.where(ge, 0, fixed).sum(axis=0)
            for j in np.unique(size_of):
                sets = np.flatnonzero(size_of == j)
                col = np.sort(block[:, j])
                obs = es_obs[sets]
                more = col.size - np.searchsorted(col, obs, side="left")
                less = np.searchsorted(col, obs, side="right")
                extreme[sets] += np.where(positive[sets], more, less)
        totals = np.stack([n_pos[size_of], s_pos[size_of], n_neg[size_of], s_neg[size_of],
                           extreme], axis=1)
        pos_mean, neg_mean, nes, pval = normalisation(totals, es_obs)
        # pass 2: the null NES of every set against the observed NES (gsea_null_counts); sets
        # of one size have the same null NES, counted once per set
        obs_pos, obs_neg = np.sort(nes[es_obs >= 0]), np.sort(nes[es_obs < 0])
        hist_pos = np.zeros(obs_pos.size + 1, np.int64)
        hist_neg = np.zeros(obs_neg.size + 1, np.int64)
        extremes = np.zeros((n_resamples, 2))
        first_set = {int(j): int(np.flatnonzero(size_of == j)[0]) for j in np.unique(size_of)}
        for f, block in blocks(bar, False):
            hi = np.zeros(block.shape[0])
            lo = np.zeros(block.shape[0])
            for j, s in first_set.items():
                e = block[:, j]
                ge = e >= 0
                v = np.where(ge, e / pos_mean[s], e / neg_mean[s])
                times = int(multiplicity[j])
                up = np.searchsorted(obs_pos, v[ge], side="right")
                down = np.searchsorted(obs_neg, v[~ge], side="left")
                hist_pos += times * np.bincount(up, minlength=hist_pos.size)
                hist_neg += times * np.bincount(down, minlength=hist_neg.size)
                hi = np.maximum(hi, np.where(ge, v, 0.0))
                lo = np.minimum(lo, np.where(ge, 0.0, v))
            extremes[f:f + block.shape[0], 0] = hi
            extremes[f:f + block.shape[0], 1] = lo
    fdr, fwer = _fdr_fwer(nes, es_obs, obs_pos, obs_neg, hist_pos, hist_neg, extremes)
    es_table = table[:, size_of].T.copy() if return_null else None
    return NullStatistics(nes, pval, fdr, fwer, es_table)

