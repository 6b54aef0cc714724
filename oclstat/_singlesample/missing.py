"""Single-sample scores of expression with missing values, as GSVA 2 scores them
(``ssgseaParam(use =)``, ``gsvaParam(use =)``): ``nan_policy="propagate"`` (GSVA's
``"everything"``) or ``"omit"`` (``"na.rm"``).

ssGSEA: in each sample the genes with a value are ranked among themselves (average ranks
truncated to integers, equal values by increasing row, as without missing values) and the
genes without one come after them.

* ``"propagate"``: a set with a missing member in a sample scores NaN there; the others are
  scored over all n genes of the data (the missing ones last, as R's ``order`` puts NA).
* ``"omit"``: each sample is scored over its m genes with a value, each set over its members
  with a value; a set left with fewer than ``min_size`` members scores NaN.

The normalisation (the range of all scores) skips the NaN scores, as GSVA 2 does.

GSVA: genes whose values (missing ones aside) are all equal are left out, genes with no value
stay (GSVA 2's ``.filterGenes``). Each gene's estimate at each sample
(:func:`gsva_density_with_missing`):

* kernels (Gaussian, Poisson), ``"propagate"``: a gene with a missing value has none anywhere;
  ``"omit"``: the mean over the gene's values only (the bandwidth from them too), none where
  the gene's own value is missing (and none for a gene with fewer than two values);
* direct (``kcdf="none"``), either policy: the number of the gene's values at or below its
  value over the number of samples (GSVA 2's ``ecdfvals_dense_to_dense_nas``), none where its
  value is missing.

In each sample the m genes with an estimate are ordered as without missing values and get
the rank scores of m genes, ``|m - p + 1 - m / 2|``; the walk runs over all n genes, those
without an estimate after them as misses (:func:`gsva_with_missing`). A set with a member
without an estimate scores NaN there (``"propagate"``) or is scored over its other members
(``"omit"``: NaN with fewer than ``min_size`` left).

>>> import numpy as np
>>> x = np.array([[1.0, 2.0], [np.nan, 0.5], [3.0, 1.0], [0.0, np.nan]])
>>> sets = [np.array([0, 2]), np.array([1])]
>>> np.isnan(ssgsea_with_missing(x, sets, 0.25, "omit", 1)).tolist()
[[False, False], [True, False]]
>>> np.isnan(ssgsea_with_missing(x, sets, 0.25, "propagate", 1)).tolist()
[[False, False], [True, False]]
>>> z = np.array([[0.5, -1.0], [np.nan, 0.2], [1.5, 0.1], [-0.3, np.nan]])
>>> gsva_with_missing(z, sets, 1.0, True, False, "omit", 1).round(3).tolist()
[[1.0, 0.0], [nan, 1.0]]
"""

from __future__ import annotations

import numpy as np

from .core import (
    SIGMA_FACTOR,
    decreasing_positions,
    dense_positions,
    gsva_density_block,
    poisson_cdf_means,
    ssgsea_weight,
    summed_walks,
)
from .opencl import density

NAN_POLICIES = ("raise", "propagate", "omit")


def _check_policy(policy: str) -> None:
    if policy not in NAN_POLICIES[1:]:
        raise ValueError(f"policy must be 'propagate' or 'omit', got {policy!r}")


def ssgsea_with_missing(x: np.ndarray, sets: list, alpha: float, policy: str,
                        min_size: int) -> np.ndarray:
    """Unnormalised ssGSEA scores (sets x samples) of a dense block that may hold NaN, GSVA
    2's ranks and weights (``flavor="gsva"``); ``policy`` "propagate" or "omit"."""
    _check_policy(policy)
    n, b = x.shape
    out = np.full((len(sets), b), np.nan)
    for j in range(b):
        present = ~np.isnan(x[:, j])
        m = int(present.sum())
        if m == 0:
            continue
        # rows of the data -> rows among the present genes (read for present rows only)
        sub = np.cumsum(present) - 1
        pos, ranks = dense_positions(x[present, j:j + 1])
        weight = ssgsea_weight(ranks, alpha, "gsva")
        if policy == "propagate":
            keep = [s for s, idx in enumerate(sets) if present[idx].all()]
            kept = [sub[sets[s]] for s in keep]
            walks = summed_walks(pos, weight, kept, n=n)
        else:
            kept_all = [sub[idx[present[idx]]] for idx in sets]
            keep = [s for s, idx in enumerate(kept_all) if idx.size >= max(1, min_size)]
            walks = summed_walks(pos, weight, [kept_all[s] for s in keep])
        out[keep, j] = walks[:, 0]
    return out


def varying_with_missing(x: np.ndarray) -> np.ndarray:
    """The genes (rows) GSVA 2 keeps for GSVA in a dense block with NaN (``.filterGenes``):
    those whose values differ, missing ones aside, and those with no value at all."""
    empty = np.isnan(x).all(axis=1)
    lo = np.fmin.reduce(x, axis=1)          # NaN only where the row has no value
    hi = np.fmax.reduce(x, axis=1)
    return empty | (hi > lo)


def _log_odds(f: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.log((1.0 - f) / f)


def gsva_density_with_missing(x: np.ndarray, kcdf: str, policy: str, *, rt=None,
                              tabulated: bool = True, dtype=np.float64,
                              progress=None) -> np.ndarray:
    """GSVA's per-gene estimates (log-odds; genes x samples) of a dense ``x`` with NaN, as
    GSVA 2 gives them for ``policy`` "propagate" or "omit" (see the module); the Gaussian
    kernel on the device ``rt``. NaN where there is none."""
    _check_policy(policy)
    n = x.shape[1]
    if kcdf == "none":
        # imported here: scipy.stats takes 0.6 s to import
        from scipy import stats

        # the gene's values at or below each of its values (ranks "max" among its values,
        # NaN where it has none), over all n samples
        return _log_odds(stats.rankdata(x, method="max", axis=1, nan_policy="omit") / n)
    nan = np.isnan(x)
    out = np.full(x.shape, np.nan)
    count = n - nan.sum(axis=1)
    complete = count == n
    # with "propagate" a gene with a missing value has no estimate; with "omit" one with two
    # values or more has one where its own value is (fewer: GSVA 2's bandwidth is NA)
    partial = ~complete & (count >= (2 if kcdf == "Gaussian" else 1)) & (policy == "omit")
    if kcdf == "Poisson":
        if complete.any():
            out[complete] = gsva_density_block(x[complete], np.arange(n), "Poisson", False)
        for i in np.flatnonzero(partial):
            have = ~nan[i]
            out[i, have] = _log_odds(poisson_cdf_means(x[i, have], x[i, have]))
        return out
    if complete.any():
        out[complete] = density(rt, x[complete], tabulated=tabulated, dtype=dtype,
                                progress=progress)
    if partial.any():
        rows = x[partial]
        h = np.nanstd(rows, axis=1, ddof=1) / SIGMA_FACTOR
        # a missing value stands in as one far above the gene's values: its terms are 0
        padded = np.where(np.isnan(rows), (np.nanmax(rows, axis=1) + 1e3 * h)[:, None], rows)
        sums = density(rt, padded, tabulated=tabulated, dtype=dtype, bandwidth=h, sums=True)
        f = sums / count[partial][:, None]
        out[partial] = np.where(np.isnan(rows), np.nan, _log_odds(f))
    return out


def gsva_with_missing(z: np.ndarray, sets: list, tau: float, mx_diff: bool,
                      abs_ranking: bool, policy: str, min_size: int) -> np.ndarray:
    """GSVA scores (sets x samples) of a block of estimates ``z`` that may hold NaN, as GSVA
    2's ``.compute_gsva_scores(any_na = TRUE)`` (see the module); ``policy`` "propagate" or
    "omit". Each set's walks over all the block's samples at once: a member without an
    estimate sorts after the others with weight 0 and takes no part in the excursions."""
    _check_policy(policy)
    n, b = z.shape
    present = ~np.isnan(z)
    m = present.sum(axis=0)                                     # genes with an estimate
    # the estimates are finite (F > 0: a gene's own term counts), so -inf sorts absent last
    pos = decreasing_positions(np.where(present, z, -np.inf)).astype(np.float64)
    stat = np.abs((m - pos + 1) - m / 2.0)
    out = np.full((len(sets), b), np.nan)
    for s, idx in enumerate(sets):
        have = present[idx]                                     # members x samples
        k = have.sum(axis=0)
        p = np.where(have, pos[idx], np.inf)
        order = np.argsort(p, axis=0)
        p = np.take_along_axis(p, order, axis=0)
        have = np.take_along_axis(have, order, axis=0)
        w = np.where(have, np.take_along_axis(stat[idx], order, axis=0) ** tau, 0.0)
        hits = np.cumsum(w, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            misses = (p - np.cumsum(have, axis=0)) / (n - k)
            up = np.where(have, hits / hits[-1] - misses, -np.inf).max(axis=0)
            down = np.where(have, (hits - w) / hits[-1] - misses, np.inf).min(axis=0)
        pos_max, neg_max = np.maximum(up, 0.0), np.minimum(down, 0.0)
        if mx_diff:
            score = pos_max - neg_max if abs_ranking else pos_max + neg_max
        else:
            score = np.where(pos_max > np.abs(neg_max), pos_max, neg_max)
        scored = k >= max(1, min_size)
        if policy == "propagate":
            scored &= k == idx.size
        out[s, scored] = score[scored]
    return out
