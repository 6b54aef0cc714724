"""Tail probabilities and p-values from the exact null distributions, on the host."""

from __future__ import annotations

import numpy as np


def _split_sums(table: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row r, the sums of table[r, :idx[r] + 1] and of table[r, idx[r] + 1:], in one pass
    (np.add.reduceat over the rows laid end to end).

    >>> _split_sums(np.array([[1.0, 2, 3], [4, 5, 6]]), np.array([0, 2]))
    (array([ 1., 15.]), array([5., 0.]))
    """
    table = np.ascontiguousarray(table)
    n_rows, width = table.shape
    starts = np.arange(n_rows, dtype=np.int64) * width
    cuts = starts + np.asarray(idx, dtype=np.int64) + 1
    full = cuts == starts + width                   # nothing after the cut: an empty sum
    marks = np.empty(2 * n_rows, dtype=np.int64)
    marks[0::2] = starts
    marks[1::2] = np.where(full, starts, cuts)      # reduceat needs increasing indices
    sums = np.add.reduceat(table.ravel(), marks)
    left = np.where(full, sums[1::2], sums[0::2])
    right = np.where(full, 0.0, sums[1::2])
    return left, right


def _x_sum_base(sorted_scores, totals, m, n):
    """The x-sum of index 0 of each feature's null of x's sum: 0 when x is the subset drawn
    (m <= n), else the total less the largest y-sum."""
    if m <= n:
        return np.zeros(len(sorted_scores), dtype=np.int64)
    return totals - sorted_scores[:, -n:].sum(axis=1, dtype=np.int64)


def _null_of_x(probs, base, totals, m, n):
    """The null of x's sum, index t <-> x-sum base + t, from the subset sums' law ``probs``
    (x's own when m <= n; else the y-sum s_y has law probs and x's sum is total - s_y)."""
    if m <= n:
        return probs
    smax_y = totals - base
    src = smax_y[:, None] - np.arange(probs.shape[1])[None, :]
    return np.where(src >= 0, np.take_along_axis(probs, np.clip(src, 0, None), axis=1), 0.0)


def _pvalues(p_le, p_eq, p_gt, far_gt, far_eq, alternative, mid_p, two_sided="double"):
    """p-values from a feature's tail sums: P(T <= t), P(T = t), P(T > t) and, for coin's
    two-sided rule, P(far > far of t) and P(far = far of t).

    Two-sided p-values: ``two_sided="double"`` is twice the smaller tail (capped at 1, as
    scipy's permutation_test); ``"distance"`` is P(|T - E T| >= |t - E T|) (coin's rule),
    compared in exact integers as |(m + n) T - m total|.

    >>> _pvalues(np.array([0.2]), np.array([0.1]), np.array([0.8]), None, None, "less", False)
    array([0.2])
    """
    p_ge = p_gt + p_eq                                               # P(T >= t)
    if mid_p:
        p_ge = p_ge - 0.5 * p_eq
        p_le = p_le - 0.5 * p_eq
    if alternative == "greater":
        p = p_ge
    elif alternative == "less":
        p = p_le
    elif two_sided == "distance":
        p = far_gt + (0.5 if mid_p else 1.0) * far_eq
    else:
        p = np.minimum(1.0, 2.0 * np.minimum(p_ge, p_le))
    return np.clip(p, 0.0, 1.0)


def _pvalues_from_sums(sums, alternative, mid_p, two_sided="double"):
    """p-values from permutation_tails' five sums per feature (cl_kernels/permutation.cl)."""
    return _pvalues(sums[:, 0] + sums[:, 1], sums[:, 1], sums[:, 2], sums[:, 3], sums[:, 4],
                    alternative, mid_p, two_sided)


def _tail_pvalues(probs, base, x_sums, totals, m, n, alternative, mid_p, two_sided="double"):
    """The p-values of a batch of features from their nulls on the host (devices without
    fp64): each tail a sum of its own terms (never 1 minus the other), so small tail
    probabilities keep their precision; one pass over the table, no cumulative copies."""
    null_x = _null_of_x(probs, base, totals, m, n)
    idx = x_sums - base
    p_eq = null_x[np.arange(len(null_x)), idx]
    p_le, p_gt = _split_sums(null_x, idx)
    far_gt = far_eq = None
    if two_sided == "distance" and alternative == "two-sided":
        values = base[:, None] + np.arange(null_x.shape[1])[None, :]   # x-sums of the null
        centre = m * totals
        far = np.abs((m + n) * values - centre[:, None])
        observed = np.abs((m + n) * x_sums - centre)[:, None]
        far_gt = np.where(far > observed, null_x, 0.0).sum(axis=1)
        far_eq = np.where(far == observed, null_x, 0.0).sum(axis=1)
    return _pvalues(p_le, p_eq, p_gt, far_gt, far_eq, alternative, mid_p, two_sided)
