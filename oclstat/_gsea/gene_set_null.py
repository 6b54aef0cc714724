"""Broad's gene-set permutation for :func:`oclstat.gsea` (``permutation="gene_set"``, Broad's
``-permute gene_set``): the null of a set is the ES of random gene sets of its size on the
observed ranking, drawn independently for every set, as Broad's GSEA draws them
(``createRandomGeneSetsFixedSize`` once per gene set).

Independence decides FWER: it is the share of permutations whose largest null NES over all
sets reaches a set's NES, and that maximum depends on the joint law of the sets' nulls. (One
random sequence whose prefixes serve every size, as fgsea's simple method draws, makes sets of
one size share their whole null and sets of different sizes nearly share it: FWER then comes
out far too small.)

The random sets are drawn and scored on the device by preranked GSEA's kernel
(``prerank_null`` in cl_kernels/prerank.cl), one size at a time: the sets are taken in order of
size (then of their index), and permutation i of the set in place r of that order draws from
MRG31k3p stream ``r * n_resamples + i`` of the seed, so every set has streams of its own and
the same seed gives the same nulls on every device. The ES are the exact fixed-point walk of
the observed ones. The sets x permutations table is reduced on the host by Broad's rules, as
the phenotype permutations' kernels reduce theirs (``gsea_set_stats``, ``gsea_null_counts``):
NES by the set's same-sign null mean, nominal p, FDR over every set's null NES, FWER from
each permutation's extreme null NES.

>>> import numpy as np, oclstat
>>> from oclstat._enrichment.walks import enrichment_score
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

from .._enrichment.random_sets import Plan, null_tables
from .._enrichment.walks import fixed_weights, gene_weights, weight_bits
from .._progress import Progress
from .._random.streams import as_seed, fresh_seed
from .stats import NullStatistics, _fdr_fwer, normalisation

#: Largest sets x permutations table kept between the two passes (else drawn again).
KEEP_BYTES = 1 << 30


def _fixed(x: np.ndarray) -> np.ndarray:
    return np.rint(np.ldexp(x, 32)).astype(np.int64)


def stream_groups(set_sizes: np.ndarray, n_resamples: int) -> list[tuple[int, np.ndarray, int]]:
    """``(size, set indices, first stream)`` per distinct size: the sets in order of size, then
    of index; the set in place r of that order draws its permutations from streams
    ``r * n_resamples .. (r + 1) * n_resamples - 1``.

    >>> [(k, s.tolist(), f) for k, s, f in stream_groups(np.array([5, 3, 5]), 10)]
    [(3, [1], 0), (5, [0, 2], 10)]
    """
    order = np.lexsort((np.arange(set_sizes.size), set_sizes))
    out, start = [], 0
    while start < order.size:
        k = int(set_sizes[order[start]])
        end = start
        while end < order.size and set_sizes[order[end]] == k:
            end += 1
        out.append((k, order[start:end], start * n_resamples))
        start = end
    return out


def null_statistics(rt, sorted_metric, positions, es_obs, *, weight, n_resamples, seed, dtype,
                    return_null, progress) -> NullStatistics:
    """NES, nominal p, FDR and FWER of every set (``positions[s]``: its members' ranking
    positions, ascending) from ``n_resamples`` random gene sets of its size, drawn for it
    alone."""
    n = sorted_metric.size
    w_all = gene_weights(sorted_metric, weight)
    weights = fixed_weights(w_all, float(w_all.max()) if n else 0.0, weight_bits(n))
    set_sizes = np.array([p.size for p in positions], dtype=np.int64)
    n_sets = set_sizes.size
    plan = Plan(rt, weights, set_sizes, dtype, "std")
    groups = stream_groups(set_sizes, n_resamples)
    words = fresh_seed() if seed is None else as_seed(seed)
    keep = n_sets * n_resamples * 8 <= KEEP_BYTES or return_null
    table = np.empty((n_sets, n_resamples)) if keep else None

    def blocks(bar, first_pass: bool):
        """(set indices, their null ES: sets x permutations) one size at a time (drawn again
        in the second pass when the whole table is not kept)."""
        for k, sets, first in groups:
            if table is not None and not first_pass:
                yield sets, table[sets]
                continue
            values = np.empty(sets.size * n_resamples)
            for f, part in null_tables(plan, words=words, first=first,
                                       count=sets.size * n_resamples, sizes=[k]):
                values[f - first:f - first + part.shape[0]] = part[:, 0, 0]
                bar.update(part.shape[0])
            block = values.reshape(sets.size, n_resamples)
            if table is not None:
                table[sets] = block
            yield sets, block

    with Progress(total=n_sets * n_resamples * (1 if keep else 2), desc="gsea (gene sets)",
                  enabled=progress) as bar:
        # pass 1: each set's same-sign counts and fixed-point sums (NES) and its null ES at
        # least as extreme as its own (gsea_set_stats)
        totals = np.zeros((n_sets, 5), dtype=np.int64)
        for sets, block in blocks(bar, True):
            fixed = _fixed(block)
            ge = block >= 0
            obs = es_obs[sets][:, None]
            totals[sets, 0] = ge.sum(axis=1)
            totals[sets, 1] = np.where(ge, fixed, 0).sum(axis=1)
            totals[sets, 2] = (~ge).sum(axis=1)
            totals[sets, 3] = np.where(ge, 0, fixed).sum(axis=1)
            totals[sets, 4] = np.where(obs >= 0, block >= obs, block <= obs).sum(axis=1)
        pos_mean, neg_mean, nes, pval = normalisation(totals, es_obs)
        # pass 2: every set's null NES against the observed NES (FDR) and each permutation's
        # extremes over the sets (FWER) (gsea_null_counts)
        obs_pos, obs_neg = np.sort(nes[es_obs >= 0]), np.sort(nes[es_obs < 0])
        hist_pos = np.zeros(obs_pos.size + 1, np.int64)
        hist_neg = np.zeros(obs_neg.size + 1, np.int64)
        extremes = np.zeros((n_resamples, 2))
        for sets, block in blocks(bar, False):
            ge = block >= 0
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(ge, block / pos_mean[sets][:, None],
                             block / neg_mean[sets][:, None])
            hist_pos += np.bincount(np.searchsorted(obs_pos, v[ge], side="right"),
                                    minlength=hist_pos.size)
            hist_neg += np.bincount(np.searchsorted(obs_neg, v[~ge], side="left"),
                                    minlength=hist_neg.size)
            extremes[:, 0] = np.maximum(extremes[:, 0], np.where(ge, v, 0.0).max(axis=0))
            extremes[:, 1] = np.minimum(extremes[:, 1], np.where(ge, 0.0, v).min(axis=0))
    fdr, fwer = _fdr_fwer(nes, es_obs, obs_pos, obs_neg, hist_pos, hist_neg, extremes)
    return NullStatistics(nes, pval, fdr, fwer, table.copy() if return_null else None,
                          totals[:, 4].copy())
