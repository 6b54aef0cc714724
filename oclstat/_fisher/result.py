"""The Fisher test's frozen results, printed as R prints an htest."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._multitest import benjamini_hochberg
from .._results import Result, r_number
from .plan import METHOD

# ----------------------------------------------------------------------------- results


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


@dataclass(frozen=True, repr=False)
class FisherSimResult(Result):
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
            f"\n\t{METHOD} (based on\n\t{r_number(self.n_resamples)} replicates)\n\n"
            f"data:  {self.data_name}\np-value {_r_pvalue(self.pvalue)}\n"
            "alternative hypothesis: two.sided\n"
        )

    def __str__(self) -> str:
        return self.report()

    def _repr_fields(self) -> dict:
        return dict(statistic=self.statistic, pvalue=self.pvalue,
                    count=self.count, n_resamples=self.n_resamples)

    def to_frame(self):
        """A one-row pandas DataFrame: statistic, count, pvalue, n_resamples."""
        import pandas as pd

        return pd.DataFrame({"statistic": [self.statistic], "count": [self.count],
                             "pvalue": [self.pvalue], "n_resamples": [self.n_resamples]})


@dataclass(frozen=True, repr=False)
class FisherSimBatchResult(Result):
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

    def _repr_fields(self) -> dict:
        return dict(tables=len(self), n_resamples=self.n_resamples,
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


def _r_format(values, digits: int = 7) -> list[str]:
    """Numbers as R's ``format(x, digits = 7)`` writes a vector: enough significant digits for
    each (at most ``digits``), one number of decimals for all, right-aligned."""
    finite = [v for v in values if math.isfinite(v) and v != 0]
    decimals, sci = 0, False
    for v in finite:
        mant, exp = f"{abs(v):.{digits - 1}e}".split("e")
        sig = len(mant.replace(".", "").rstrip("0")) or 1
        decimals = max(decimals, sig - 1 - int(exp))
        sci = sci or int(exp) >= 15 or int(exp) <= -5
    out = []
    for v in values:
        if math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        elif sci and v != 0:
            mant, exp = f"{v:.{digits - 1}e}".split("e")
            mant = mant.rstrip("0").rstrip(".")
            out.append(f"{mant}e{exp[0]}{int(exp[1:]):02d}")
        else:
            out.append(f"{v:.{decimals}f}")
    width = max(len(t) for t in out)
    return [t.rjust(width) for t in out]


_ALTERNATIVE_TEXT = {"two-sided": "not equal to", "less": "less than", "greater": "greater than"}


@dataclass(frozen=True, repr=False)
class FisherTestResult(Result):
    """Result of :func:`fisher_test` (printed as R prints ``fisher.test``).

    pvalue : float
        Exact (``method="exact"``) or Monte Carlo (``"simulate"``) p-value.
    odds_ratio, conf_int : float, (float, float)
        2 x 2 tables: the conditional maximum-likelihood odds ratio and its exact confidence
        interval at ``conf_level`` (None for larger tables).
    method : str
        "exact" or "simulate".
    n_resamples, count : int
        The simulated tables and how many were at most as probable as the observed one
        (``method="simulate"``).
    n_tables : int
        The number of tables with the observed margins (r x c enumerated exactly).
    """

    pvalue: float
    alternative: str
    method: str
    odds_ratio: float | None = None
    conf_int: tuple | None = None
    conf_level: float = 0.95
    null_odds_ratio: float = 1.0
    n_resamples: int | None = None
    count: int | None = None
    n_tables: int | None = None
    null_distribution: np.ndarray | None = field(default=None, compare=False)
    table: np.ndarray | None = field(default=None, compare=False)
    data_name: str = "x"
    #: The seed of a simulation (drawn when none was given: pass it back to repeat the run).
    seed: object = None
    #: Why the test is not the one asked for (``method="auto"`` fell back to simulation).
    note: str | None = None
    #: R's hybrid parameters (expect, percnt, emin) when the network used the hybrid rule.
    hybrid: tuple | None = None
    #: What the network algorithm held (an ``oclstat._fisher.network.NetworkResult``).
    network: object = field(default=None, compare=False, repr=False)

    @property
    def title(self) -> str:
        """R's ``method`` string."""
        if self.method == "simulate":
            return f"{METHOD} (based on {r_number(self.n_resamples)} replicates)"
        if self.hybrid is not None:
            e, p, m = (_r_format([v])[0].strip() for v in self.hybrid)
            return (f"Fisher's Exact Test for Count Data hybrid using asym.chisq. iff (exp={e},"
                    f" perc={p}, Emin={m})")
        return "Fisher's Exact Test for Count Data"

    def report(self) -> str:
        """The test as R's ``print(fisher.test(...))`` shows it."""
        if self.method == "simulate":
            head = f"\n\t{METHOD} (based on\n\t{r_number(self.n_resamples)} replicates)\n\n"
        elif self.hybrid is not None:
            words = self.title.split(" (exp=")
            head = f"\n\t{words[0]} (exp={words[1].split(' perc=')[0]}\n\tperc=" \
                   f"{words[1].split(' perc=')[1]}\n\n"
        else:
            head = "\n\tFisher's Exact Test for Count Data\n\n"
        lines = [f"data:  {self.data_name}", f"p-value {_r_pvalue(self.pvalue)}"]
        if self.odds_ratio is None:
            lines.append("alternative hypothesis: two.sided")
        else:
            null = _r_format([self.null_odds_ratio])[0].strip()
            lines.append(f"alternative hypothesis: true odds ratio is "
                         f"{_ALTERNATIVE_TEXT[self.alternative]} {null}")
            level = _r_format([100 * self.conf_level])[0].strip()
            lines.append(f"{level} percent confidence interval:")
            lines.append(" " + " ".join(_r_format(list(self.conf_int))))
            lines.append("sample estimates:")
            value = _r_format([self.odds_ratio])[0]
            width = max(len("odds ratio"), len(value))
            lines += ["odds ratio".rjust(width) + " ", value.rjust(width) + " "]
        if self.seed is not None and self.method == "simulate":
            lines.append(f"seed: {self.seed} (seed= repeats this simulation)")
        if self.note:
            lines.append(f"note: {self.note}")
        return head + "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.report()

    def _repr_fields(self) -> dict:
        shape = None if self.table is None else "x".join(str(s) for s in self.table.shape)
        return dict(table=shape, pvalue=self.pvalue,
                    method=self.method, alternative=self.alternative,
                    odds_ratio=self.odds_ratio)

    def to_frame(self):
        """A one-row pandas DataFrame: p-value, method, odds ratio and interval (2 x 2), the
        table's dimensions and total, and the simulation's size."""
        import pandas as pd

        rows, cols = (None, None) if self.table is None else self.table.shape
        low, high = self.conf_int if self.conf_int is not None else (None, None)
        return pd.DataFrame({
            "pvalue": [self.pvalue], "method": [self.method], "alternative": [self.alternative],
            "odds_ratio": [self.odds_ratio], "conf_low": [low], "conf_high": [high],
            "conf_level": [self.conf_level if self.conf_int is not None else None],
            "rows": [rows], "cols": [cols],
            "total": [None if self.table is None else int(self.table.sum())],
            "n_resamples": [self.n_resamples], "count": [self.count],
            "n_tables": [self.n_tables],
            "seed": [self.seed if self.seed is None or isinstance(self.seed, int)
                     else " ".join(map(str, self.seed))],
            "hybrid": [self.hybrid is not None], "note": [self.note]})
