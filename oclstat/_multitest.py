"""Multiple-testing corrections shared by the batched tests.

>>> benjamini_hochberg([0.01, 0.04, 0.03, 0.5, 0.2]).round(4).tolist()
[0.05, 0.0667, 0.0667, 0.5, 0.25]
"""

from __future__ import annotations

import numpy as np


def benjamini_hochberg(pvalues, axis: int | None = None) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values), as R's ``p.adjust(p, "BH")``.

    NaN p-values are left NaN and not counted among the tests. ``axis``: each line along that
    axis is one family of tests (every cell's gene sets, for example); None: all of them.

    >>> benjamini_hochberg([[0.01, 0.5], [0.04, 0.02]], axis=1).tolist()
    [[0.02, 0.5], [0.04, 0.04]]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if axis is not None:
        return _bh_along(p, axis)
    out = np.full(p.shape, np.nan)
    flat = p.ravel()
    ok = np.flatnonzero(~np.isnan(flat))
    n = len(ok)
    if n == 0:
        return out
    order = ok[np.argsort(flat[ok], kind="stable")[::-1]]
    ranked = flat[order] * n / np.arange(n, 0, -1)
    q = np.minimum(np.minimum.accumulate(ranked), 1.0)
    res = out.ravel()
    res[order] = q
    return res.reshape(p.shape)


def _bh_along(p: np.ndarray, axis: int) -> np.ndarray:
    """:func:`benjamini_hochberg` of every line of ``p`` along ``axis``, sorted all at once
    (lines holding a NaN one at a time)."""
    lines = np.moveaxis(p, axis, -1)
    out = np.empty(lines.shape)
    flat, res = lines.reshape(-1, lines.shape[-1]), out.reshape(-1, lines.shape[-1])
    clean = ~np.isnan(flat).any(axis=1)
    if clean.any() and flat.shape[1]:
        x = flat[clean]
        n = x.shape[1]
        order = np.argsort(x, axis=1, kind="stable")[:, ::-1]
        ranked = np.take_along_axis(x, order, axis=1) * n / np.arange(n, 0, -1)
        q = np.minimum(np.minimum.accumulate(ranked, axis=1), 1.0)
        back = np.empty_like(x)
        np.put_along_axis(back, order, q, axis=1)
        res[clean] = back
    for i in np.flatnonzero(~clean):
        res[i] = benjamini_hochberg(flat[i])
    return np.moveaxis(out, -1, axis)
