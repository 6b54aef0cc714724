"""The exact permutation test's frozen result."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._multitest import benjamini_hochberg
from .._results import Result


@dataclass(frozen=True, repr=False)
class PermutationTestResult(Result):
    """Result of :func:`permutation_test` (arrays over features, scalars for 1-D input).

    statistic
        Sum of the first sample's scores (original units for integer data tested as it is,
        window indices otherwise).
    pvalue
        Exact p-value for ``alternative`` (mid-P if asked).
    null_distribution
        With ``return_null=True``: ``null_distribution[..., t]`` is P(T = null_offset + t).
    null_offset
        Statistic value of index 0 of ``null_distribution``.
    features
        The feature names (DataFrame input), in the order of the arrays.
    two_sided
        The two-sided rule: "double" (twice the smaller tail) or "distance" (coin's
        ``|T - E T|``).
    groups
        The two groups' names (the first is x), when given as ``groups=``.
    n_x, n_y, mean_x, mean_y, effect_size
        Group sizes, group means of the data (per feature) and the standardised mean
        difference (Cohen's d, pooled standard deviation; NaN where it is 0).
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    alternative: str
    mid_p: bool
    n_windows: int | None
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    null_offset: np.ndarray | float | None = field(default=None, repr=False)
    features: list | None = field(default=None, repr=False)
    two_sided: str = "double"
    groups: tuple | None = None
    n_x: int | None = None
    n_y: int | None = None
    mean_x: np.ndarray | float | None = field(default=None, repr=False)
    mean_y: np.ndarray | float | None = field(default=None, repr=False)
    effect_size: np.ndarray | float | None = field(default=None, repr=False)

    def _repr_fields(self) -> dict:
        n = int(np.size(self.pvalue))
        return dict(features=n, alternative=self.alternative,
                    mid_p=self.mid_p, n_windows=self.n_windows,
                    min_pvalue=float(np.min(self.pvalue)) if n else None)

    def qvalues(self) -> np.ndarray:
        """Benjamini-Hochberg q-values over the features (R's ``p.adjust(p, "BH")``)."""
        return benjamini_hochberg(self.pvalue)

    def to_frame(self):
        """A pandas DataFrame, one row per feature: group sizes and means, the mean difference
        and effect size, statistic, pvalue, qvalue (BH)."""
        import pandas as pd

        cols = {}
        if self.mean_x is not None:
            mx, my = np.atleast_1d(self.mean_x), np.atleast_1d(self.mean_y)
            cols = {"n_x": self.n_x, "n_y": self.n_y, "mean_x": mx, "mean_y": my,
                    "mean_diff": mx - my, "effect_size": np.atleast_1d(self.effect_size)}
        cols.update({"statistic": np.atleast_1d(self.statistic),
                     "pvalue": np.atleast_1d(self.pvalue),
                     "qvalue": np.atleast_1d(self.qvalues())})
        return pd.DataFrame(cols,
                            index=pd.Index(self.features, name="feature")
                            if self.features is not None else None)
