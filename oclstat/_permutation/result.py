"""The exact permutation test's frozen result."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._multitest import benjamini_hochberg
from .._results import short_repr


@dataclass(frozen=True)
class PermutationTestResult:
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
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    alternative: str
    mid_p: bool
    n_windows: int | None
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    null_offset: np.ndarray | float | None = field(default=None, repr=False)
    features: list | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        n = int(np.size(self.pvalue))
        return short_repr("PermutationTestResult", features=n, alternative=self.alternative,
                          mid_p=self.mid_p, n_windows=self.n_windows,
                          min_pvalue=float(np.min(self.pvalue)) if n else None)

    def qvalues(self) -> np.ndarray:
        """Benjamini-Hochberg q-values over the features (R's ``p.adjust(p, "BH")``)."""
        return benjamini_hochberg(self.pvalue)

    def to_frame(self):
        """A pandas DataFrame, one row per feature: statistic, pvalue, qvalue."""
        import pandas as pd

        return pd.DataFrame({"statistic": np.atleast_1d(self.statistic),
                             "pvalue": np.atleast_1d(self.pvalue),
                             "qvalue": np.atleast_1d(self.qvalues())},
                            index=pd.Index(self.features, name="feature")
                            if self.features is not None else None)
