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


def _tail_pvalues(probs, sorted_scores, scores, m, n, alternative, mid_p, two_sided="double"):
    """(statistic index base, the null of x's sum, p-values) of a batch of features.

    Two-sided p-values: ``two_sided="double"`` is twice the smaller tail (capped at 1, as
    scipy's permutation_test); ``"distance"`` is P(|T - E T| >= |t - E T|) (coin's rule),
    compared in exact integers as |(m + n) T - m total|."""
    row_len = probs.shape[1]
    x_scores = scores[:, :m].sum(axis=1)
    total = scores.sum(axis=1)
    if m <= n:
        null_x = probs  # P(sum of x's scores = s), s = 0 .. row_len - 1
        base = np.zeros(len(scores), dtype=np.int64)
    else:
        # the y-sum s_y has law probs; x's sum is total - s_y. Index t <-> x-sum base + t.
        smax_y = sorted_scores[:, -n:].sum(axis=1)
        t = np.arange(row_len)
        src = smax_y[:, None] - t[None, :]
        ok = src >= 0
        null_x = np.where(ok, np.take_along_axis(probs, np.clip(src, 0, None), axis=1), 0.0)
        base = total - smax_y
    idx = x_scores - base
    rows = np.arange(len(scores))
    p_eq = null_x[rows, idx]
    # each tail a sum of its own terms (never 1 minus the other), so small tail probabilities
    # keep their precision: one pass over the table, no cumulative copies of it
    p_le, p_gt = _split_sums(null_x, idx)
    p_ge = p_gt + p_eq                                               # P(T >= t)
    if mid_p:
        p_ge = p_ge - 0.5 * p_eq
        p_le = p_le - 0.5 * p_eq
    if alternative == "greater":
        p = p_ge
    elif alternative == "less":
        p = p_le
    elif two_sided == "distance":
        values = base[:, None] + np.arange(row_len)[None, :]            # x-sums of the null
        centre = m * total
        far = np.abs((m + n) * values - centre[:, None])
        observed = np.abs((m + n) * x_scores - centre)[:, None]
        p = np.where(far > observed, null_x, 0.0).sum(axis=1)
        same = np.where(far == observed, null_x, 0.0).sum(axis=1)
        p = p + (0.5 if mid_p else 1.0) * same
    else:
        p = np.minimum(1.0, 2.0 * np.minimum(p_ge, p_le))
    return base, null_x, np.clip(p, 0.0, 1.0)
