"""The adapters of the R functions that the R package's file of the same name defines: permTest:
Green's exact permutation test with coin's and R's arguments.
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, r_function


@r_function("permTest", "permutation_test")
def perm_test(x, y=None, nWindows=None, alternative="two.sided", midP=False,
              twoSided="distance", groups=None, *, classes=None, device=None,
              dname="x and y"):
    import pandas as pd

    from .._multitest import benjamini_hochberg
    from .._permutation import permutation_test

    alternatives = {"two.sided": "two-sided", "less": "less", "greater": "greater"}
    if alternative not in alternatives:
        raise ValueError(f"alternative must be one of {list(alternatives)}, got "
                         f"{alternative!r}")
    if groups is None:
        if y is None:
            raise ValueError("give y (the second sample) or groups")
        one = np.ndim(x) == 1 and np.ndim(y) == 1
        if not one and (np.ndim(x) != 2 or np.ndim(y) != 2):
            raise ValueError("x and y must both be vectors, or matrices with the same rows "
                             "(features)")
        if one:     # two samples: their values, not their names, are the data
            x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        inputs = {"y": y}
    else:
        one = np.ndim(x) == 1
        if one and isinstance(x, pd.Series):      # named samples: matched to groups' names
            x = pd.DataFrame([x.to_numpy(dtype=float)], columns=x.index)
        inputs = {"groups": groups,
                  "classes": None if classes is None else tuple(str(c) for c in classes)}
    res = permutation_test(x, n_windows=nWindows, alternative=alternatives[alternative],
                           two_sided=twoSided, mid_p=bool(midP), device=device, **inputs)
    if one:
        def first(v):
            return float(np.asarray(v, dtype=float).ravel()[0])

        method = ("Exact two-sample permutation test (sum of the first sample"
                  + ("" if nWindows is None else f"'s window scores, {int(nWindows)} windows")
                  + ")" + (", mid-P" if midP else ""))
        means = RValue(np.array([first(res.mean_x), first(res.mean_y)]),
                       attributes={"names": Characters(["mean of x", "mean of y"])})
        return RValue({"statistic": RValue(np.array([first(res.statistic)]),
                                           attributes={"names": Characters(["T"])}),
                       "p.value": first(res.pvalue), "alternative": alternative,
                       "method": method, "data.name": dname, "estimate": means}, "htest")
    p = np.asarray(res.pvalue, dtype=np.float64)
    feature = (Characters(str(f) for f in res.features) if res.features is not None
               else np.arange(1, len(p) + 1))
    return RValue({"feature": feature, "meanX": res.mean_x, "meanY": res.mean_y,
                   "meanDiff": res.mean_x - res.mean_y, "effectSize": res.effect_size,
                   "statistic": np.asarray(res.statistic, dtype=float), "p.value": p,
                   "q.value": benjamini_hochberg(p)}, "data.frame")
