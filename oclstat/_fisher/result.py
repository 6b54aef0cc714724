"""The Fisher test's frozen results, printed as R prints an htest."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._multitest import benjamini_hochberg
from .._results import short_repr
from .plan import METHOD

# ----------------------------------------------------------------------------- results


def _r_number(n: int) -> str:
    """How R's ``paste()`` writes a whole number (1e+06, 20000, 123456)."""
    fixed = str(n)
    mant, exp = f"{n:.14e}".split("e")
    mant = mant.rstrip("0").rstrip(".")
    sci = f"{mant}e{'+' if int(exp) >= 0 else '-'}{abs(int(exp)):02d}"
    return sci if len(sci) < len(fixed) else fixed


def _r_pvalue(p: float) -> str:
    """R's ``format.pval(p, digits = 4)`` as print.htest shows it."""
    eps = np.finfo(np.float64).eps
    if p < eps:
        return f"< {eps:.2g}"
    text = f"{p:.4g}"
    if "e" in text:
        mant, exp = text.split("e")
        text = f"{mant}e{exp[0]}{int(exp[1:]):02d}"
    return f"= {text}"


@dataclass(frozen=True)
class FisherSimResult:
    """Result of :func:`fisher_sim` for one table (scipy-style, printable like R's htest).

    statistic : float
        ``-sum(log(x_ij!))`` of the observed table (R's ``STATISTIC``).
    pvalue : float
        ``(1 + count) / (n_resamples + 1)``.
    count : int
        Simulated tables at most as probable as the observed one (R's tolerance).
    n_resamples : int
        Tables simulated.
    null_distribution : numpy.ndarray or None
        The statistics of the simulated tables (``return_statistics=True``), in resample order.
    table : numpy.ndarray
        The table tested (empty rows and columns dropped).
    """

    statistic: float
    pvalue: float
    count: int
    n_resamples: int
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    table: np.ndarray | None = field(default=None, repr=False)
    data_name: str = field(default="x", repr=False)

    @property
    def method(self) -> str:
        return METHOD

    def report(self) -> str:
        """The test as R's ``print(fisher.test(...))`` shows it."""
        return (
            f"\n\t{METHOD} (based on\n\t{_r_number(self.n_resamples)} replicates)\n\n"
            f"data:  {self.data_name}\np-value {_r_pvalue(self.pvalue)}\n"
            "alternative hypothesis: two.sided\n"
        )

    def __str__(self) -> str:
        return self.report()

    def __repr__(self) -> str:
        return short_repr("FisherSimResult", statistic=self.statistic, pvalue=self.pvalue,
                          count=self.count, n_resamples=self.n_resamples)

    def to_frame(self):
        """A one-row pandas DataFrame: statistic, count, pvalue, n_resamples."""
        import pandas as pd

        return pd.DataFrame({"statistic": [self.statistic], "count": [self.count],
                             "pvalue": [self.pvalue], "n_resamples": [self.n_resamples]})


@dataclass(frozen=True)
class FisherSimBatchResult:
    """Result of :func:`fisher_sim_batch`: one entry per table (arrays of length K).

    ``null_distribution`` is (K, n_resamples) when asked for. :meth:`to_frame` gives a table
    with Benjamini-Hochberg q-values.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    count: np.ndarray
    n_resamples: int
    null_distribution: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.pvalue)

    def __repr__(self) -> str:
        return short_repr("FisherSimBatchResult", tables=len(self), n_resamples=self.n_resamples,
                          min_pvalue=float(np.min(self.pvalue)) if len(self) else None)

    def __getitem__(self, i: int) -> FisherSimResult:
        nd = None if self.null_distribution is None else self.null_distribution[i]
        return FisherSimResult(float(self.statistic[i]), float(self.pvalue[i]),
                               int(self.count[i]), self.n_resamples, nd)

    def qvalues(self) -> np.ndarray:
        """Benjamini-Hochberg adjusted p-values (R's ``p.adjust(p, "BH")``)."""
        return benjamini_hochberg(self.pvalue)

    def to_frame(self):
        """A pandas DataFrame: statistic, count, pvalue, qvalue (BH), one row per table."""
        import pandas as pd

        return pd.DataFrame({"statistic": self.statistic, "count": self.count,
                             "pvalue": self.pvalue, "qvalue": self.qvalues()})
