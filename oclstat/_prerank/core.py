"""Preranked GSEA's definitions on the host: the ranking (order, tie rule, exact weights), the
enrichment score of a set and its leading edge, and fgsea's statistics from the null counts.

Ranking: genes by decreasing statistic; equal statistics keep their input order (a stable
sort, as R's ``sort(decreasing = TRUE)`` in fgsea), and :func:`Ranking.from_stats` warns with
the share of tied genes, as fgsea does, because their order is then the input's. Weights are
``|stat|^weight`` as exact integers (oclstat/_enrichment/walks.py), so the ES of a set is the
same, bit for bit, on the host and on every device.

>>> r = Ranking.from_stats(np.array([0.5, 2.0, -1.0, 1.0]), ["a", "b", "c", "d"], weight=1.0)
>>> r.names
['b', 'd', 'a', 'c']
>>> es, peak = r.enrichment(np.array([0, 1]))
>>> float(es)
1.0
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._enrichment.walks import enrichment_score, fixed_weights, gene_weights, weight_bits

__all__ = ["Ranking", "SetMembers", "null_statistics"]


@dataclass(frozen=True)
class Ranking:
    """Genes in ranking order: ``names``, ``stats`` (decreasing) and the fixed-point weights
    the device sums."""

    names: list
    stats: np.ndarray
    weights: np.ndarray
    weight: float
    #: The input index of the gene at each ranking position.
    order: np.ndarray | None = None

    @property
    def inverse(self) -> np.ndarray:
        """The ranking position of each gene of the input."""
        out = np.empty(self.order.size, dtype=np.int64)
        out[self.order] = np.arange(self.order.size)
        return out

    @classmethod
    def from_stats(cls, stats: np.ndarray, names: list, *, weight: float) -> Ranking:
        stats = np.asarray(stats, dtype=np.float64)
        order = np.argsort(-stats, kind="stable")
        ranked = stats[order]
        tied = int(np.count_nonzero(ranked[1:] == ranked[:-1]))
        if tied:
            warnings.warn(f"ranking: {tied} genes ({100 * tied / ranked.size:.2g}% of the "
                          "list) tie with the gene before them; tied genes keep their input "
                          "order", UserWarning, stacklevel=3)
        w = gene_weights(ranked, weight)
        top = float(w.max()) if w.size else 0.0
        return cls([names[i] for i in order], ranked,
                   fixed_weights(w, top, weight_bits(ranked.size)), float(weight), order)

    def enrichment(self, positions: np.ndarray, score_type: str = "std"):
        """``(es, peak)`` of the set at ``positions`` (ascending), as the device computes it
        (``score_type``: fgsea's "std", "pos" or "neg")."""
        return enrichment_score(self.stats, positions, self.weight, score_type)


class SetMembers:
    """Gene sets as one array (``members``: input gene indices, set after set; ``ptr`` where
    each set starts), placed in any ranking's order at once.

    >>> m = SetMembers({"a": [2, 0], "b": [1]})
    >>> [p.tolist() for p in m.positions(np.array([1, 2, 0]))[1]]
    [[0, 1], [2]]
    """

    def __init__(self, sets: dict):
        self.names = list(sets)
        self.sizes = np.array([len(sets[s]) for s in self.names], dtype=np.int64)
        self.ptr = np.concatenate([[0], np.cumsum(self.sizes)])
        self.members = np.concatenate([np.asarray(sets[s], dtype=np.int64)
                                       for s in self.names])
        self.owner = np.repeat(np.arange(len(self.names)), self.sizes)

    def positions(self, inverse: np.ndarray) -> tuple[np.ndarray, list]:
        """``(flat, per_set)``: every set's ranking positions (``inverse[g]`` the position
        of gene g) in ascending order, as one uint32 array and as views of it per set."""
        n = int(inverse.size)
        base = self.owner * n
        flat = (np.sort(base + inverse[self.members]) - base).astype(np.uint32)  # by set, then
        return flat, np.split(flat, self.ptr[1:-1])                              # by position


@dataclass
class NullSummary:
    nes: np.ndarray
    pval: np.ndarray
    n_more: np.ndarray
    mode: np.ndarray


def null_statistics(counts, es_obs: np.ndarray, set_size_index: np.ndarray,
                    score_type: str = "std") -> NullSummary:
    """fgsea's NES and simple p-values from merged :class:`~.opencl.SimpleCounts`.

    NES divides ES by the mean null ES of its sign among sets of its size (null ES >= 0 for
    ES > 0, else <= 0; NaN when that mean is 0); p is the smaller of (1 + #null <= ES) /
    (1 + #null <= 0) and (1 + #null >= ES) / (1 + #null >= 0). ``n_more`` counts the null ES
    at least as extreme on the ES's side, ``mode`` the null ES of its sign (>= 0 for ES >= 0).
    With ``score_type`` "pos" (every null ES >= 0) the side is the upper one whatever the ES,
    with "neg" the lower one: the one-tailed tests fgsea gives for these score types.
    """
    j = set_size_index
    fixed = 2.0**32
    n_ge0, n_le0 = counts.n_ge0[j].astype(np.float64), counts.n_le0[j].astype(np.float64)
    n_ge, n_le = counts.n_more[:, 0], counts.n_more[:, 1]
    if score_type == "std":
        upper, mode_upper = es_obs > 0, es_obs >= 0
    else:
        upper = mode_upper = np.full(es_obs.shape, score_type == "pos")
    with np.errstate(divide="ignore", invalid="ignore"):
        ge_mean = (counts.sum_pos[j] / fixed) / n_ge0
        le_mean = (counts.sum_neg[j] / fixed) / n_le0
        mean = np.where(upper, ge_mean, np.abs(le_mean))
        nes = np.where(mean > 0, es_obs / mean, np.nan)
        if score_type == "std":
            pval = np.minimum((1.0 + n_le) / (1.0 + n_le0), (1.0 + n_ge) / (1.0 + n_ge0))
        else:
            pval = np.where(upper, (1.0 + n_ge) / (1.0 + n_ge0), (1.0 + n_le) / (1.0 + n_le0))
    pval = np.where(np.isnan(nes), np.nan, pval)
    more = np.where(upper, n_ge, n_le)
    mode = np.where(mode_upper, counts.n_ge0[j], counts.n_le0[j])
    return NullSummary(nes, pval, more, mode)
