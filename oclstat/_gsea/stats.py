"""Broad GSEA's statistics from the device's counts: NES from same-sign null means, nominal p,
FDR q-values and FWER p-values.

No p-value or q-value is ever exactly 0: every count of null values at least as extreme
counts the observed labelling too, ``(k + 1) / (n + 1)`` (as fgsea, and Phipson and Smyth,
2010), where Broad's GSEA writes ``k / n`` (0 when no permutation reaches the observed value,
with a note that p < 1/n). The difference is at most 1/n."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class NullStatistics:
    nes: np.ndarray
    pval: np.ndarray
    fdr: np.ndarray
    fwer: np.ndarray
    es_table: np.ndarray | None
    #: Null ES of each set's sign at least as extreme as its ES (fgsea's nMoreExtreme).
    n_more: np.ndarray | None = None


FIXED = 2.0**32   # scale of the fixed-point ES sums (see gsea_set_stats)


def normalisation(totals, es_obs):
    """Same-sign null means, NES and nominal p from the summed stats (Broad's rules)."""
    n_pos, s_pos, n_neg, s_neg, extreme = (totals[:, i].astype(np.float64) for i in range(5))
    s_pos, s_neg = totals[:, 1] / FIXED, totals[:, 3] / FIXED
    with np.errstate(divide="ignore", invalid="ignore"):
        pos_mean = np.where(n_pos > 0, s_pos / n_pos, es_obs)
        neg_mean = np.abs(np.where(n_neg > 0, s_neg / n_neg, es_obs))
        nes = np.where(es_obs >= 0, es_obs / pos_mean, es_obs / neg_mean)
        deno = np.where(es_obs >= 0, n_pos, n_neg)
        pval = (extreme + 1.0) / (deno + 1.0)
    return pos_mean, neg_mean, nes, pval


def _fdr_fwer(nes, es_obs, obs_pos, obs_neg, hist_pos, hist_neg, extremes):
    """Broad's FDR q-values and FWER p-values from the device's counts (see gsea.cl)."""
    n = nes.size
    fdr, fwer = np.ones(n), np.ones(n)
    all_pos, all_neg = hist_pos.sum(), hist_neg.sum()
    above_pos = np.cumsum(hist_pos[::-1])[::-1]      # above_pos[u] = sum of hist_pos[u:]
    upto_neg = np.cumsum(hist_neg)                   # upto_neg[u] = sum of hist_neg[:u + 1]
    max_pos = np.sort(extremes[:, 0])
    min_neg = np.sort(extremes[:, 1])
    n_resamples = extremes.shape[0]
    for i in range(n):
        x = nes[i]
        if es_obs[i] >= 0:
            ub = np.searchsorted(obs_pos, x, side="right")
            lb = np.searchsorted(obs_pos, x, side="left")
            phi_null = (above_pos[ub] + 1.0) / (all_pos + 1.0)
            phi_obs = (obs_pos.size - lb) / obs_pos.size
            fwer[i] = (n_resamples - np.searchsorted(max_pos, x, side="left") + 1.0) / \
                (n_resamples + 1.0)
        else:
            lb = np.searchsorted(obs_neg, x, side="left")
            ub = np.searchsorted(obs_neg, x, side="right")
            phi_null = (upto_neg[lb] + 1.0) / (all_neg + 1.0)
            phi_obs = ub / obs_neg.size
            fwer[i] = (np.searchsorted(min_neg, x, side="right") + 1.0) / (n_resamples + 1.0)
        fdr[i] = min(1.0, phi_null / phi_obs) if phi_obs > 0 else 1.0
    return fdr, fwer
