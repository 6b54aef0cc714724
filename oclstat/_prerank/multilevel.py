"""The host side of adaptive multilevel splitting (Korotkevich et al.'s fgseaMultilevel, as
fgsea 1.31 computes it): the levels a group of chains climbs, the p-value read off them, and
the error estimates.

A group is one set size and one direction. Its ``sample_size`` (S, odd) chains start as uniform
random sets; at every level the chains are sorted by positive ES (the running sum's maximum),
the lower half (median included) is recorded as the level's thresholds, and the upper half,
each chain twice, plus the median chain, becomes the next level's chains, which Metropolis
moves then perturb while keeping their positive ES above the median (the device does the
moves, :mod:`.opencl`). A level halves the tail probability, so after L levels the thresholds
reach p ~ 2^-L. The p-value of an observed |ES| is read from the level and rank where it falls,
with the expected logarithms of the Beta-distributed fractions (digamma differences), times
the fraction of chains above it whose ES is positive; the caller divides by the probability
of the sign (fgsea's ``denomProb``).

>>> r = Ruler(5)
>>> r.record(np.array([0.1, 0.5, 0.3, 0.2, 0.4]), np.ones(5, bool)).tolist()
[1, 1, 4, 4, 2]
>>> r.scores
[0.1, 0.2, 0.3]
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import digamma, polygamma

__all__ = ["Ruler", "beta_mean_log", "multilevel_error", "simple_error",
           "simple_decision_error"]


def beta_mean_log(a: float, b: float) -> float:
    """E[log X] for X ~ Beta(a, b - a + 1): digamma(a) - digamma(b + 1).

    >>> round(beta_mean_log(51, 101), 4)
    -0.6981
    """
    return float(digamma(a) - digamma(b + 1))


def multilevel_error(pval, sample_size: int):
    """The expected standard deviation of log2(p) from multilevel splitting with
    ``sample_size`` chains (fgsea's ``multilevelError``).

    >>> round(float(multilevel_error(1e-10, 101)), 4)
    0.8391
    """
    p = np.asarray(pval, dtype=np.float64)
    s = sample_size
    levels = np.floor(-np.log2(p) + 1)
    return np.sqrt(levels * (polygamma(1, (s + 1) / 2) - polygamma(1, s + 1))) / math.log(2)


def simple_error(n_more_extreme, n_resamples: int):
    """The expected standard deviation of log2(p) of a permutation p-value (k + 1) / (n + 1)
    (fgsea's simple-sampling error).

    >>> round(float(simple_error(0, 1000)), 3)
    1.85
    """
    k = np.asarray(n_more_extreme, dtype=np.float64)
    return np.sqrt(polygamma(1, k + 1) - polygamma(1, n_resamples + 1)) / math.log(2)


def simple_decision_error(n_more_extreme, n_resamples: int):
    """fgseaMultilevel's error of a simple p-value when choosing between simple sampling and
    splitting: half the wider side of the 95% Beta interval around log2((k + 1) / (n + 1))
    (infinite when k = 0).

    >>> round(float(simple_decision_error(10, 1000)), 3)
    0.597
    """
    from scipy.special import betaincinv

    k = np.asarray(n_more_extreme, dtype=np.float64)
    n = n_resamples
    with np.errstate(divide="ignore"):
        left = np.log2(np.where(k > 0, betaincinv(np.maximum(k, 1e-300), n - k + 1, 0.025), 0))
        right = np.log2(betaincinv(k + 1, np.maximum(n - k, 1e-300), 0.975))
    crude = np.log2((k + 1) / (n + 1))
    return 0.5 * np.maximum(crude - left, right - crude)


class Ruler:
    """The levels of one group of ``sample_size`` chains (odd)."""

    #: Thresholds within this of the target count as reaching it (fgsea's 1e-10).
    TOLERANCE = 1e-10

    def __init__(self, sample_size: int):
        if sample_size % 2 == 0 or sample_size < 3:
            raise ValueError(f"sample_size must be odd and >= 3, got {sample_size}")
        self.size = sample_size
        self.half = (sample_size + 1) // 2
        self.scores: list[float] = []
        self.corrector: list[int] = []
        self.stuck = False

    def record(self, es_pos: np.ndarray, is_pos: np.ndarray) -> np.ndarray:
        """Record one level from the chains' positive ES (and whether their ES is > 0);
        return, for every chain of the next level, the chain it starts from."""
        s = self.size
        previous = self.scores[-1] if self.scores else None
        order = np.lexsort((np.arange(s), es_pos))
        left = int(np.count_nonzero(is_pos))
        for i in range(self.half):
            self.scores.append(float(es_pos[order[i]]))
            left -= bool(is_pos[order[i]])
            self.corrector.append(left)
        if previous is not None and self.scores[-1] <= previous:
            self.stuck = True           # the median did not advance (fgsea stops there)
        upper = order[s - 1 - np.arange((s - 1) // 2)]
        return np.concatenate([np.repeat(upper, 2), [order[s // 2]]]).astype(np.uint32)

    def undo(self) -> None:
        """Forget the last level (it did not advance; the chains are moved again)."""
        del self.scores[-self.half:], self.corrector[-self.half:]
        self.stuck = False

    def needs_more(self, target: float, eps: float) -> bool:
        """Whether another level is needed to place ``target``; not when the median stopped
        advancing or the levels passed -log2(eps / 2) (``eps`` 0: no bound)."""
        if self.stuck or self.scores[-1] > target - self.TOLERANCE:
            return False
        if eps > 0 and len(self.scores) // self.half > -math.log2(0.5 * eps):
            return False
        return True

    def pvalue(self, es: float, *, sign: bool = False) -> tuple[float, bool]:
        """``(p, reliable)`` of a positive ES (the magnitude of the set's ES): the probability
        that a random set of the group's size and direction has a running sum reaching ``es``
        with an ES of its sign (``sign=True``: of either sign, fgsea's ``sign``); ``reliable``
        is False when ``es`` lies beyond the levels or the conditional step of its level was
        below 1/2 (fgsea sets log2err to NA then)."""
        s, half, scores = self.size, self.half, self.scores
        good = True
        if es >= scores[-1]:
            idx = len(scores) - 1
            good = es <= scores[-1] + self.TOLERANCE
        else:
            idx = int(np.searchsorted(np.asarray(scores), es, side="left"))
        k, rem = idx // half, s - idx % half
        log_p = k * beta_mean_log(half, s) + beta_mean_log(rem + 1, s)
        if sign:
            return max(0.0, min(1.0, math.exp(log_p))), good
        cond = beta_mean_log(self.corrector[idx] + 1, rem)
        return max(0.0, min(1.0, math.exp(log_p + cond))), good and math.exp(cond) >= 0.5
