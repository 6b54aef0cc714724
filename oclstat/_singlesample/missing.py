"""ssGSEA on expression with missing values, as GSVA 2 scores it (``ssgseaParam(use =)``):
``nan_policy="propagate"`` (GSVA's ``"everything"``) or ``"omit"`` (``"na.rm"``).

In each sample the genes with a value are ranked among themselves (average ranks truncated
to integers, equal values by increasing row, as without missing values) and the genes without
one come after them.

* ``"propagate"``: a set with a missing member in a sample scores NaN there; the others are
  scored over all n genes of the data (the missing ones last, as R's ``order`` puts NA).
* ``"omit"``: each sample is scored over its m genes with a value, each set over its members
  with a value; a set left with fewer than ``min_size`` members scores NaN.

The normalisation (the range of all scores) skips the NaN scores, as GSVA 2 does.

>>> import numpy as np
>>> x = np.array([[1.0, 2.0], [np.nan, 0.5], [3.0, 1.0], [0.0, np.nan]])
>>> sets = [np.array([0, 2]), np.array([1])]
>>> np.isnan(ssgsea_with_missing(x, sets, 0.25, "omit", 1)).tolist()
[[False, False], [True, False]]
>>> np.isnan(ssgsea_with_missing(x, sets, 0.25, "propagate", 1)).tolist()
[[False, False], [True, False]]
"""

from __future__ import annotations

import numpy as np

from .core import dense_positions, ssgsea_weight, summed_walks

NAN_POLICIES = ("raise", "propagate", "omit")


def ssgsea_with_missing(x: np.ndarray, sets: list, alpha: float, policy: str,
                        min_size: int) -> np.ndarray:
    """Unnormalised ssGSEA scores (sets x samples) of a dense block that may hold NaN, GSVA
    2's ranks and weights (``flavor="gsva"``); ``policy`` "propagate" or "omit"."""
    if policy not in NAN_POLICIES[1:]:
        raise ValueError(f"policy must be 'propagate' or 'omit', got {policy!r}")
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
