"""Multiple-testing corrections shared by the batched tests.

>>> benjamini_hochberg([0.01, 0.04, 0.03, 0.5, 0.2]).round(4).tolist()
[0.05, 0.0667, 0.0667, 0.5, 0.25]
"""

from __future__ import annotations

import numpy as np


def benjamini_hochberg(pvalues) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values), as R's ``p.adjust(p, "BH")``.

    NaN p-values are left NaN and not counted among the tests.
    """
    p = np.asarray(pvalues, dtype=np.float64)
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
