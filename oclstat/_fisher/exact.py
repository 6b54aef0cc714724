"""Fisher's exact test without simulation, on the host: the 2 x 2 conditional test (p-value,
conditional maximum-likelihood odds ratio and its confidence interval, as R's ``fisher.test``
defines them) and the p-value of r x c tables small enough to enumerate.

**2 x 2.** Given the margins, the top-left cell ``x`` follows Fisher's noncentral
hypergeometric law with odds ratio ``psi``: P(x) proportional to C(m, x) C(n, k - x) psi^x on
``max(0, k - n) .. min(k, m)``. The one-sided p-values are its tails at the null odds ratio;
the two-sided p-value sums the probabilities at most the observed one's times 1 + 1e-7 (R's
relative tolerance); the estimate solves E(x; psi) = x (the conditional MLE, 0 or inf at the
ends of the support); the confidence limits solve P(X >= x; psi) = alpha and
P(X <= x; psi) = alpha. The roots are found to machine precision (scipy's
``odds_ratio(kind="conditional")`` gives the same numbers); R finds them with ``uniroot``'s
default tolerance (about 1.2e-4 on psi or on 1/psi), so R's estimate and limits can differ
from these in the fourth significant digit (R's upper limit for ``[[3, 1], [1, 3]]`` is
621.93, the exact root 626.24); the p-values are the same.

**r x c.** Every table with the observed margins is counted, column by column, grouped by its
statistic ``sum(log x_ij!)`` in exact fixed-point integers (the log-factorials of the
simulated test), so tables of equal probability are recognised exactly; the p-value is the
probability of the tables at most as probable as the observed one (the same relative
tolerance 1e-7). Tables whose enumeration needs more than :data:`MAX_ENTRIES` partial sums
are refused (use the simulated test).

>>> p, psi, (lo, hi) = two_by_two(np.array([[3, 1], [1, 3]]))
>>> round(p, 4), round(psi, 4), round(lo, 4), round(hi, 2)    # scipy's odds_ratio: the same
(0.4857, 6.4083, 0.2117, 626.24)
>>> round(enumerate_pvalue(np.array([[3, 1, 0], [1, 3, 2]]))[0], 7)    # R: 0.3714286
0.3714286
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict

import numpy as np

from .plan import log_factorial_fixed


def gammaln(x):
    """scipy.special.gammaln, loaded at first use (fisher_sim starts without scipy)."""
    from scipy.special import gammaln as log_gamma

    return log_gamma(x)


def logsumexp(x):
    """scipy.special.logsumexp, loaded at first use."""
    from scipy.special import logsumexp as log_sum_exp

    return log_sum_exp(x)

__all__ = ["two_by_two", "enumerate_pvalue", "RELATIVE_TOLERANCE", "MAX_ENTRIES"]

#: Probabilities within this relative distance of the observed one count as equal (R's
#: ``relErr <- 1 + 10^(-7)`` in ``fisher.test``).
RELATIVE_TOLERANCE = 1e-7
#: The most (partial margins, statistic) pairs an r x c enumeration may hold.
MAX_ENTRIES = 2_000_000

#: Updates of partial sums allowed per entry of the budget before the enumeration gives up.
WORK_PER_ENTRY = 10
_LOG_BOUND = 700.0          # |log psi| beyond which the law is a point mass at an end


class _Conditional:
    """The law of the top-left cell of a 2 x 2 table given its margins."""

    def __init__(self, table: np.ndarray):
        (a, b), (c, d) = table
        self.m, self.n, self.k, self.x = a + c, b + d, a + b, int(a)
        self.lo, self.hi = max(0, self.k - self.n), min(self.k, self.m)
        self.support = np.arange(self.lo, self.hi + 1, dtype=np.float64)
        s = self.support
        self.log_c = (gammaln(self.m + 1) - gammaln(s + 1) - gammaln(self.m - s + 1)
                      + gammaln(self.n + 1) - gammaln(self.k - s + 1)
                      - gammaln(self.n - self.k + s + 1))

    def density(self, log_psi: float) -> np.ndarray:
        w = self.log_c + log_psi * self.support
        return np.exp(w - logsumexp(w))

    def mean(self, log_psi: float) -> float:
        return float(self.density(log_psi) @ self.support)

    def lower_tail(self, q: float, log_psi: float) -> float:
        """P(X <= q)."""
        return float(self.density(log_psi)[self.support <= q].sum())

    def upper_tail(self, q: float, log_psi: float) -> float:
        """P(X >= q)."""
        return float(self.density(log_psi)[self.support >= q].sum())


def _solve_log_psi(f, target: float) -> float:
    """The log odds ratio where the increasing function ``f(log psi)`` equals ``target``."""
    g = lambda t: f(t) - target  # noqa: E731
    lo, hi = -1.0, 1.0
    while g(lo) > 0 and lo > -_LOG_BOUND:
        lo *= 2
    while g(hi) < 0 and hi < _LOG_BOUND:
        hi *= 2
    from scipy.optimize import brentq  # here: the simulated test never needs it (start-up)

    return brentq(g, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)


def two_by_two(table: np.ndarray, alternative: str = "two-sided", conf_level: float = 0.95,
               null_odds_ratio: float = 1.0) -> tuple[float, float, tuple[float, float]]:
    """(p-value, conditional MLE of the odds ratio, confidence interval) of a 2 x 2 table."""
    law = _Conditional(np.asarray(table, dtype=np.int64))
    x, lo, hi = law.x, law.lo, law.hi
    if null_odds_ratio == 0:
        pvalue = {"less": 1.0, "greater": float(x == lo), "two-sided": float(x == lo)}
    elif math.isinf(null_odds_ratio):
        pvalue = {"less": float(x == hi), "greater": 1.0, "two-sided": float(x == hi)}
    else:
        t0 = math.log(null_odds_ratio)
        d = law.density(t0)
        two = float(d[d <= d[x - lo] * (1 + RELATIVE_TOLERANCE)].sum())
        pvalue = {"less": law.lower_tail(x, t0), "greater": law.upper_tail(x, t0),
                  "two-sided": two}
    p = min(1.0, pvalue[alternative])

    if x == lo:
        estimate = 0.0
    elif x == hi:
        estimate = math.inf
    else:
        estimate = math.exp(_solve_log_psi(law.mean, x))

    def upper(alpha):            # P(X <= x; psi) = alpha, decreasing in psi
        if x == hi:
            return math.inf
        return math.exp(-_solve_log_psi(lambda t: law.lower_tail(x, -t), alpha))

    def lower(alpha):            # P(X >= x; psi) = alpha, increasing in psi
        if x == lo:
            return 0.0
        return math.exp(_solve_log_psi(lambda t: law.upper_tail(x, t), alpha))

    alpha = 1.0 - conf_level
    if alternative == "less":
        interval = (0.0, upper(alpha))
    elif alternative == "greater":
        interval = (lower(alpha), math.inf)
    else:
        interval = (lower(alpha / 2), upper(alpha / 2))
    return p, estimate, interval


def _column_vectors(total: int, room: tuple[int, ...]):
    """Every vector of non-negative counts with sum ``total`` and entries at most ``room``."""
    if len(room) == 1:
        if total <= room[0]:
            yield (total,)
        return
    rest = sum(room[1:])
    for v in range(max(0, total - rest), min(total, room[0]) + 1):
        for tail in _column_vectors(total - v, room[1:]):
            yield (v, *tail)


def _count_vectors(total: int, room) -> int:
    """How many vectors :func:`_column_vectors` yields (a count by dynamic programming)."""
    ways = np.zeros(total + 1, dtype=object)
    ways[0] = 1
    for r in room:
        prefix = np.concatenate([[0], np.cumsum(ways)])
        s = np.arange(total + 1)
        ways = prefix[s + 1] - prefix[np.maximum(0, s - r)]
    return int(ways[total])


def enumerate_pvalue(table: np.ndarray, max_entries: int = MAX_ENTRIES) -> tuple[float, int]:
    """(exact p-value, number of tables with these margins) of an r x c table; ValueError when
    the enumeration needs more than ``max_entries`` partial sums."""
    x = np.asarray(table, dtype=np.int64)
    if x.shape[0] > x.shape[1]:
        x = x.T                                     # fewer rows: smaller states
    x = x[:, np.argsort(x.sum(axis=0), kind="stable")]   # the largest column is derived
    rows = tuple(int(v) for v in x.sum(axis=1))
    cols = [int(v) for v in x.sum(axis=0)]
    total = int(x.sum())
    logfact, bits = log_factorial_fixed(total)
    lf = [int(v) for v in logfact]
    observed = sum(lf[v] for v in x.ravel())
    slack = int(math.log1p(RELATIVE_TOLERANCE) * 2.0**bits)

    if cols and _count_vectors(cols[0], rows) > max_entries:
        raise ValueError(f"table: enumerating its tables needs more than {max_entries:,} "
                         "partial sums; use the simulated test (method='simulate')")
    states: dict = {rows: Counter({0: 1})}
    entries, work = 1, 0
    for c in cols[:-1]:
        nxt: dict = defaultdict(Counter)
        for room, sums in states.items():
            for v in _column_vectors(c, room):
                work += len(sums)
                if work > WORK_PER_ENTRY * max_entries:     # checked as it grows: a large
                    raise ValueError(                      # table is refused at once
                        f"table: enumerating its tables needs more than {max_entries:,} "
                        "partial sums; use the simulated test (method='simulate')")
                left = tuple(r - a for r, a in zip(room, v, strict=True))
                add = sum(lf[a] for a in v)
                target = nxt[left]
                for s, n in sums.items():
                    target[s + add] += n
        states = nxt
        entries = sum(len(s) for s in states.values())
        if entries > max_entries:
            raise ValueError(f"table: enumerating its tables needs more than {max_entries:,} "
                             "partial sums; use the simulated test (method='simulate')")
    final: Counter = Counter()
    for room, sums in states.items():
        add = sum(lf[a] for a in room)
        for s, n in sums.items():
            final[s + add] += n
    log_k = (sum(gammaln(r + 1) for r in rows) + sum(gammaln(c + 1) for c in cols)
             - gammaln(total + 1))
    terms = [math.log(n) + log_k - s / 2.0**bits for s, n in final.items()
             if s >= observed - slack]
    pvalue = float(min(1.0, math.exp(logsumexp(terms))))
    return pvalue, int(sum(final.values()))
