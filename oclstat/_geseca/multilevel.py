"""Multilevel splitting for GESECA scores (fgsea's ``geseca``, as fgsea 1.31-1.39 runs it):
the levels of each group of chains and the p-value read off them.

A group is one set size k with S chains (S odd). At every level the chains are sorted by
score, the lower half (median included) is recorded as the level's thresholds and the upper
half, each chain twice, plus the median chain, start the next level (the recording of
:class:`oclstat._prerank.multilevel.Ruler`). The chains then move in rounds of
max(1, floor(k / 5)) tries each until the group has accepted S k moves; a group whose
acceptance falls below 1% in a level stops there, as does one whose levels pass
-log2(eps / 2) or whose median reaches its largest observed score.

>>> round(pvalue([1.0, 2.0, 3.0], 2.5, 5)[0], 6)     # exp(digamma(4) - digamma(6))
0.637628
"""

from __future__ import annotations

import math

import numpy as np

from .._prerank.multilevel import Ruler, beta_mean_log

#: Fraction of a move per member tried per round (fgsea's ``upPrmtr``).
ROUND_FRACTION = 0.2
#: Acceptance below which a group stops climbing (fgsea's 0.01).
MIN_ACCEPTANCE = 0.01
#: Thresholds within this of the target count as reaching it (fgsea's 1e-10).
TOLERANCE = 1e-10


def level_error(levels: int, sample_size: int) -> float:
    """The standard deviation of log2(p) after ``levels`` levels of ``sample_size`` chains.

    >>> round(level_error(1, 101), 4)
    0.1439
    """
    from scipy.special import polygamma

    single = polygamma(1, (sample_size + 1) // 2) - polygamma(1, sample_size + 1)
    return float(math.sqrt(levels * single) / math.log(2))


def pvalue(scores, score: float, sample_size: int) -> tuple[float, float]:
    """``(p, log2err)`` of ``score`` from a group's recorded thresholds ``scores``
    (ascending, ``(S + 1) / 2`` per level); log2err is infinite beyond the last threshold."""
    s = sample_size
    half = (s + 1) // 2
    scores = np.asarray(scores, dtype=np.float64)
    if score >= scores[-1]:
        idx = len(scores) - 1
    else:
        idx = int(np.searchsorted(scores, score, side="left"))
    k, rem = idx // half, s - idx % half
    log_p = k * beta_mean_log(half, s) + beta_mean_log(rem + 1, s)
    p = max(0.0, min(1.0, math.exp(log_p)))
    err = math.inf if score > scores[-1] else level_error(k + 1, s)
    return p, err


def climb(chains, groups, sample_size: int) -> list[list[float]]:
    """The thresholds of every group ((size k, target score, eps) each), climbing together
    (one launch per round for all groups) on ``chains`` (:class:`.opencl.Chains`)."""
    s = sample_size
    n = len(groups)
    k = np.array([g[0] for g in groups], dtype=np.int64)
    per_round = np.maximum(1, (k * ROUND_FRACTION).astype(np.int64))
    rulers = [Ruler(s) for _ in groups]
    active = np.ones(n, dtype=bool)
    source = np.zeros((n, s), dtype=np.uint32)
    scores = chains.start()
    recording = np.ones(n, dtype=bool)          # groups whose level ended this round
    moves = np.zeros(n, dtype=np.int64)
    tried = np.zeros(n, dtype=np.int64)
    while True:
        for g in np.flatnonzero(active & recording):
            source[g] = rulers[g].record(scores[g], np.ones(s, dtype=bool))
            target, eps = groups[g][1], groups[g][2]
            top = rulers[g].scores[-1]
            levels = len(rulers[g].scores) // rulers[g].half
            if top > target - TOLERANCE or (eps > 0 and levels > -math.log2(0.5 * eps)):
                active[g] = False
        if not active.any():
            return [r.scores for r in rulers]
        starting = active & recording
        chains.copy(np.flatnonzero(starting), source)
        moves[starting] = 0
        tried[starting] = 0
        bound = np.array([r.scores[-1] for r in rulers])
        tries = np.where(active, per_round, 0)
        scores, accepted = chains.perturb(bound, tries)
        moves += accepted.sum(axis=1)
        tried += tries * s
        low = active & (moves < MIN_ACCEPTANCE * tried)
        active &= ~low                          # fgsea: too few moves, the group stops here
        recording = active & (moves >= s * k)
