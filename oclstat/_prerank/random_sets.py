"""P-values of given enrichment scores among the random gene sets of one size, by adaptive
multilevel splitting (the step of :func:`oclstat.gsea_prerank` that fgsea exposes as its
internal ``fgseaMultilevelCpp``).

For each score ES, the p-value is the probability that a uniformly random set of
``set_size`` genes of the ranking has a running sum that reaches |ES| on ES's side, with an
ES of that sign (fgsea's ``cppMPval``: the caller divides by the probability of the sign,
fgsea's ``denomProb``, to get the set's p-value). The chains of the positive and of the
negative side climb once each, to the largest score of their side, on the device
(:mod:`.opencl`); the levels are read as :class:`~.multilevel.Ruler` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._enrichment.walks import fixed_weights, gene_weights, weight_bits
from .._random.streams import as_seed, fresh_seed
from .._scale import executor
from .._validation import as_int
from . import tasks
from .validate import _eps

__all__ = ["RandomSetPvalues", "random_set_pvalues"]


@dataclass(frozen=True)
class RandomSetPvalues:
    """The p-value of each score (``pvalue``) and whether its level's estimate is reliable
    (``reliable``: fgsea's ``cppIsCpGeHalf``, False where the score lies beyond the levels
    reached or its level's conditional step was below 1/2)."""

    pvalue: np.ndarray
    reliable: np.ndarray


def random_set_pvalues(es, ranking, set_size, *, sample_size=101, eps=0.0, seed=None,
                       sign=False, weight=1.0, device=None) -> RandomSetPvalues:
    """Multilevel p-values of enrichment scores among random sets of ``set_size`` genes.

    Parameters
    ----------
    es : array_like of float
        Enrichment scores (any sign) of sets of ``set_size`` genes on ``ranking``.
    ranking : array_like of float
        The gene-level statistics in ranking order (not re-sorted: sort them decreasing
        first, as fgsea does); each gene weighs ``|statistic| ** weight``.
    set_size : int
        The number of genes of the random sets, 1 to ``len(ranking) - 1``.
    sample_size : int, default 101
        Chains per level (fgsea's ``sampleSize``); an even number is raised by one.
    eps : float, default 0
        The levels stop below about ``eps`` (0: they climb to the largest score).
    seed : int or sequence of six ints, optional
        The random streams' seed; a fresh one when not given.
    sign : bool, default False
        True gives the probability of reaching |ES| whatever the random set's ES sign
        (fgsea's ``sign = TRUE``); False only random sets whose ES has ES's sign.
    weight : float, default 1
        The GSEA weight p (fgsea's ``gseaParam``).
    device : str or int, optional
        The OpenCL device.

    Returns
    -------
    RandomSetPvalues
        ``pvalue`` and ``reliable``, one per score.

    Examples
    --------
    >>> import numpy as np
    >>> from oclstat._prerank.random_sets import random_set_pvalues
    >>> ranking = np.linspace(3, -3, 200)
    >>> r = random_set_pvalues([0.9, -0.5], ranking, 10, seed=1)
    >>> bool(r.pvalue[0] < 1e-4), bool(r.pvalue[1] > 1e-3)
    (True, True)
    """
    scores = _finite_vector(es, "es")
    stats = _finite_vector(ranking, "ranking")
    n = stats.size
    if n < 2:
        raise ValueError(f"ranking must hold at least 2 genes, got {n}")
    k = as_int(set_size, "set_size", minimum=1, maximum=n - 1)
    sample_size = as_int(sample_size, "sample_size", minimum=3)
    sample_size += 1 - sample_size % 2
    eps = _eps(eps)
    if np.any(np.abs(scores) > 1.0):
        raise ValueError("es must lie in [-1, 1] (enrichment scores)")
    w = gene_weights(stats, float(weight))
    top = float(w.max())
    if top == 0.0:
        raise ValueError("ranking: every statistic is zero; the enrichment score is not "
                         "defined")
    weights = fixed_weights(w, top, weight_bits(n))
    words = fresh_seed() if seed is None else as_seed(seed)
    sides = [(d, float(np.max(np.abs(scores[side])))) for d, side in
             enumerate((scores >= 0, scores < 0)) if side.any()]
    groups = [(k, d, target, eps) for d, target in sides]
    pvalue = np.ones(scores.size)
    reliable = np.ones(scores.size, dtype=bool)
    if groups:
        with executor(device, None, "gsea") as ex:
            rulers = tasks.multilevel(ex, weights, groups, sample_size=sample_size,
                                      words=words, first=0, dtype=ex.runtime.default_real())
        by_side = {d: r for (_, d, _, _), r in zip(groups, rulers, strict=True)}
        for i, s in enumerate(scores):
            pvalue[i], reliable[i] = by_side[int(s < 0)].pvalue(abs(float(s)), sign=sign)
    return RandomSetPvalues(pvalue=pvalue, reliable=reliable)


def _finite_vector(values, name: str) -> np.ndarray:
    try:
        out = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numbers") from None
    if out.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {out.shape}")
    if not np.isfinite(out).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(out)).sum())} missing or infinite "
                         "values")
    return out
