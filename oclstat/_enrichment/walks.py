"""The enrichment walk on the host, the reference every device follows: exact fixed-point
gene weights, the enrichment score with its peak, fgsea's balanced-extremes rule, the running
sum and Broad's leading-edge numbers. Phenotype GSEA, preranked GSEA and GSEA's gene-set
permutation all score sets with these."""

from __future__ import annotations

import numpy as np


def weight_bits(n_genes: int) -> int:
    """Binary digits of the largest gene weight in the exact ES sums (cl_kernels/gsea.cl's
    WEIGHT_BITS): as many as keep a sum over all genes below 2^62, at most 52."""
    return int(min(52, 62 - max(1, int(n_genes)).bit_length()))


def gene_weights(metric: np.ndarray, weight: float) -> np.ndarray:
    """|m|^p of every gene, as the device computes it (p = 1.5: |m| sqrt(|m|))."""
    a = np.abs(np.asarray(metric, dtype=np.float64))
    if weight == 0:
        return np.ones_like(a)
    if weight == 1:
        return a
    if weight == 2:
        return a * a
    if weight == 1.5:
        return a * np.sqrt(a)
    return a**weight


def fixed_weights(weights: np.ndarray, top: float, bits: int) -> np.ndarray:
    """The weights as exact integers: round(w 2^(bits - E)), E the binary exponent of the
    largest weight ``top``; a power-of-two scaling, as on the device."""
    w = np.asarray(weights, dtype=np.float64)
    exponent = int(np.frexp(top)[1]) if top > 0 else 0
    return np.rint(np.ldexp(w, bits - exponent)).astype(np.int64)


def enrichment_score(sorted_metric: np.ndarray, positions: np.ndarray, weight: float = 1.0,
                     score_type: str = "std"):
    """ES of a set whose members sit at ``positions`` (ascending) of a ranking whose metric,
    in ranking order, is ``sorted_metric``. Returns ``(es, peak)``: ``peak`` is the index into
    ``positions`` of the extreme (the leading edge is ``positions[:peak + 1]`` for ES >= 0,
    ``positions[peak:]`` otherwise). ``score_type`` is fgsea's: "std" the larger deviation,
    "pos" the running sum's maximum, "neg" its minimum.

    The weights are summed as exact integers (:func:`fixed_weights`, scaled by the largest
    weight of the whole ranking, :func:`weight_bits` digits) and each point of the walk is one
    correctly rounded division, exactly as the device computes the null ES.

    >>> enrichment_score(np.array([3.0, 2.0, 1.0, -1.0]), np.array([0, 1]))
    (np.float64(1.0), 1)
    """
    n, k = sorted_metric.size, positions.size
    w_all = gene_weights(sorted_metric, weight)
    w = fixed_weights(w_all[positions], float(w_all.max()) if n else 0.0, weight_bits(n))
    nr = int(w.sum())
    if nr > 0:
        c = np.cumsum(w)
        c = c.astype(np.float64) / np.float64(nr)
        cb = (np.cumsum(w) - w).astype(np.float64) / np.float64(nr)
    else:
        c = np.arange(1, k + 1, dtype=np.float64) / np.float64(k)
        cb = np.arange(k, dtype=np.float64) / np.float64(k)
    miss = (positions - np.arange(k)).astype(np.float64) / np.float64(n - k)
    tops, bottoms = c - miss, cb - miss
    i_max, i_min = int(np.argmax(tops)), int(np.argmin(bottoms))
    if score_type == "pos" or (score_type == "std" and tops[i_max] > -bottoms[i_min]):
        return tops[i_max], i_max
    return bottoms[i_min], i_min


def balanced_extremes(fixed: np.ndarray, positions: np.ndarray, n_genes: int) -> bool:
    """Whether the running sum of a set reaches its largest positive and its largest negative
    deviation at exactly the same height (``fixed``: the set's exact integer weights in
    ranking order, :func:`fixed_weights`; ``positions`` ascending). fgsea's rule then gives
    ES = 0 (``calcGseaStat``), where GSEApy keeps the negative extreme. Decided in
    exact integers: top_i = C_i/NR - m_i/NM and bottom_i = (C_i - w_i)/NR - m_i/NM, equal and
    opposite when (C_i + C_j - w_j) NM = (m_i + m_j) NR.

    >>> balanced_extremes(np.array([1, 0, 1]), np.array([9, 10, 11]), 21)
    True
    """
    k = positions.size
    if k == 0 or k >= n_genes:
        return False
    w = np.asarray(fixed, dtype=np.int64)
    nr, nm = int(w.sum()), n_genes - k
    if nr == 0:
        return False
    c = np.cumsum(w)
    miss = positions.astype(np.int64) - np.arange(k)
    tops = c / nr - miss / nm
    bottoms = (c - w) / nr - miss / nm
    top, bottom = tops.max(), bottoms.min()
    if abs(top + bottom) > 1e-9 * max(1.0, abs(top)):
        return False
    def exact(i, base):             # the extreme, times NR * NM, in Python integers
        return int(base[i]) * nm - int(miss[i]) * nr

    near_top = np.flatnonzero(tops >= top - 1e-9)
    near_bottom = np.flatnonzero(bottoms <= bottom + 1e-9)
    best_top = max(exact(i, c) for i in near_top)
    best_bottom = min(exact(i, c - w) for i in near_bottom)
    return best_top == -best_bottom


def running_sum(sorted_metric: np.ndarray, positions: np.ndarray,
                weight: float = 1.0) -> np.ndarray:
    """The running enrichment sum at every position of the ranking (for plots)."""
    n, k = sorted_metric.size, positions.size
    hit = np.zeros(n, dtype=bool)
    hit[positions] = True
    w = np.abs(sorted_metric) ** weight if weight != 0 else np.ones(n)
    nr = w[hit].sum()
    step = np.where(hit, (w / nr) if nr > 0 else 1.0 / k, -1.0 / (n - k))
    return np.cumsum(step)


def leading_edge_stats(es: float, peak: int, positions: np.ndarray, n_genes: int):
    """Broad GSEA's RANK AT MAX and leading-edge numbers of one set: ``(rank, tags, list,
    signal)``. The running sum peaks at ranking position ``rank`` (0-based: the peak's hit for
    ES >= 0, the gene before the trough's hit for ES < 0); ``tags`` is the fraction of the
    set's genes in the leading edge, ``list`` the fraction of the ranking up to (ES >= 0) or
    from (ES < 0) the peak, the peak's gene included (as Broad and GSEApy count it), and
    ``signal = tags (1 - list) N / (N - Nh)``.

    >>> leading_edge_stats(1.0, 1, np.array([0, 1]), 4)
    (1, 1.0, 0.5, 1.0)
    """
    k = positions.size
    if es >= 0:
        rank = int(positions[peak])
        tags, frac = (peak + 1) / k, (rank + 1) / n_genes
    else:
        rank = max(0, int(positions[peak]) - 1)
        tags, frac = (k - peak) / k, (n_genes - rank) / n_genes
    signal = tags * (1.0 - frac) * n_genes / (n_genes - k) if n_genes > k else 0.0
    return rank, tags, frac, signal
