"""Broad GSEA's statistics from a null table, written from their definitions (Subramanian et
al. 2005, supplement) with no code of the package: the reference of the device's reductions.

The one deliberate difference from Broad's files, kept here as in the package: every count
of null values at least as extreme counts the observed one too, (k + 1) / (n + 1), never 0.
Same-sign null means are taken over round(ES 2^32) as the device sums them (exact integers)."""

from __future__ import annotations

import numpy as np


def broad_statistics(es: np.ndarray, null: np.ndarray):
    """``(nes, pval, fdr, fwer)`` of the sets whose observed ES are ``es`` and whose null ES
    are the rows of ``null`` (sets x permutations)."""
    fixed = np.rint(null * 2.0**32).astype(np.int64)
    pos_mean = np.array([f[r >= 0].sum() / 2.0**32 / (r >= 0).sum()
                         for f, r in zip(fixed, null, strict=True)])
    neg_mean = np.array([abs(f[r < 0].sum() / 2.0**32 / (r < 0).sum())
                         for f, r in zip(fixed, null, strict=True)])
    nes = np.where(es >= 0, es / pos_mean, es / neg_mean)
    pval = np.array([((r >= e).sum() + 1) / ((r >= 0).sum() + 1) if e >= 0 else
                     ((r <= e).sum() + 1) / ((r < 0).sum() + 1)
                     for e, r in zip(es, null, strict=True)])
    nnull = np.where(null >= 0, null / pos_mean[:, None], null / neg_mean[:, None])
    n = null.shape[1]
    fdr, fwer = np.empty(es.size), np.empty(es.size)
    for i, x in enumerate(nes):
        if es[i] >= 0:
            phi = ((nnull >= x).sum() + 1) / ((nnull >= 0).sum() + 1)
            obs = (nes[es >= 0] >= x).sum() / (es >= 0).sum()
            fwer[i] = ((np.maximum(nnull.max(axis=0), 0) >= x).sum() + 1) / (n + 1)
        else:
            phi = ((nnull <= x).sum() + 1) / ((nnull < 0).sum() + 1)
            obs = (nes[es < 0] <= x).sum() / (es < 0).sum()
            fwer[i] = ((np.minimum(nnull.min(axis=0), 0) <= x).sum() + 1) / (n + 1)
        fdr[i] = min(1.0, phi / obs)
    return nes, pval, fdr, fwer
