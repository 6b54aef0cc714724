"""Single-sample enrichment on the host: the definitions the device follows, as GSVA 1.46
(ssGSEA, GSVA) and the AUCell paper define them, vectorised over a block of samples.

Expression is genes x samples. Ranks follow the anchors' tie rules:

* ssGSEA (GSVA's ``ssgsea``): each sample's genes get their average rank (ascending values;
  ``colRanks(ties.method = "average")``) truncated to an integer, as GSVA stores them, and are
  ordered by decreasing rank, equal ranks by their row (R's stable ``order``);
* GSVA: each sample's genes are ordered by decreasing kernel density score, equal scores by
  their row; a gene at position p (1-based) of n gets the rank score |n - p + 1 - n / 2|;
* AUCell: each sample's genes are ordered by decreasing expression, equal values by their row
  (``ties="first"``; AUCell breaks them at random), and ranks count from 1.

>>> x = np.array([[5.0, 1.0], [3.0, 2.0], [1.0, 3.0], [4.0, 4.0]])
>>> truncated_ranks(x)[:, 0].tolist(), decreasing_positions(truncated_ranks(x))[:, 0].tolist()
([4, 2, 1, 3], [1, 3, 4, 2])
"""

from __future__ import annotations

import numpy as np

__all__ = ["decreasing_order", "sparse_positions", "ranking", "positions", "truncated_ranks",
           "decreasing_positions", "ssgsea_block", "gsva_density_block", "gsva_block",
           "gsva_walks", "poisson_cdf_means", "ssgsea_weights",
           "aucell_block", "aucell_max_area", "normal_cdf_table", "row_sd", "SIGMA_FACTOR",
           "SSGSEA_FLAVORS", "ROW_ORDERS", "zscore_block", "plage_scores"]

#: GSVA's bandwidth: the gene's standard deviation over the samples divided by this.
SIGMA_FACTOR = 4.0
#: GSVA 1.46 tabulates the standard normal CDF at 10,000 + 1 points of [0, 10].
TABLE_POINTS, TABLE_RANGE = 10_000, 10.0


#: ssGSEA's flavours: each anchor's rank weights and tie order.
SSGSEA_FLAVORS = ("gsva", "gseapy")


#: How equal values are ordered: by increasing or by decreasing row.
ROW_ORDERS = ("increasing", "decreasing")


def _is_sparse(x) -> bool:
    return hasattr(x, "tocsc")


def _check_rows(rows: str) -> None:
    if rows not in ROW_ORDERS:
        raise ValueError(f"rows must be one of {ROW_ORDERS}, got {rows!r}")


def _twice_run_middles(start: np.ndarray) -> np.ndarray:
    """Each element's run's first + last index, given a flat mask of where runs start
    (element 0 starts one): twice the run's middle, for average ranks."""
    first = np.flatnonzero(start)
    last = np.append(first[1:], start.size) - 1
    return (first + last)[np.cumsum(start) - 1]


def decreasing_order(xt: np.ndarray, rows: str = "increasing", *,
                     values: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``(order, ordered)`` of each row of ``xt`` (samples x genes): ``order[j, p]`` the gene
    at position p (0-based) of sample j by decreasing value, equal values by increasing gene
    index (``rows="increasing"``: R's stable ``order(decreasing = TRUE)``) or by decreasing
    index (``"decreasing"``), and ``ordered`` the values in that order (None where
    ``values=False`` let it be skipped).

    One unstable sort of the values (numpy's vectorised one, several times faster than its
    stable sort), then each sample with equal values has its runs of them put in gene order
    by one sort of the integer keys run x genes + gene: the order is the unique one the rule
    defines, whatever the first sort did with ties. A block that is mostly zeros (sparse
    counts: a few long runs of equal values) is sorted by numpy's stable sort, faster there.

    >>> decreasing_order(np.array([[1.0, 3.0, 3.0, 0.0]]))[0].tolist()
    [[1, 2, 0, 3]]
    >>> decreasing_order(np.array([[1.0, 3.0, 3.0, 0.0]]), "decreasing")[0].tolist()
    [[2, 1, 0, 3]]
    """
    _check_rows(rows)
    n = xt.shape[1]
    if 2 * np.count_nonzero(xt) < xt.size:
        if rows == "increasing":
            order = np.argsort(-xt, axis=1, kind="stable")
        else:
            order = np.ascontiguousarray(np.argsort(xt, axis=1, kind="stable")[:, ::-1])
        return order, np.take_along_axis(xt, order, axis=1) if values else None
    order = np.argsort(-xt, axis=1)
    ordered = np.take_along_axis(xt, order, axis=1)
    tied = ordered[:, 1:] == ordered[:, :-1]
    with_ties = np.flatnonzero(tied.any(axis=1))
    if with_ties.size:
        run = np.zeros((with_ties.size, n), dtype=np.int64)
        np.cumsum(~tied[with_ties], axis=1, out=run[:, 1:])
        gene = order[with_ties].astype(np.int64)
        if rows == "decreasing":
            gene = n - 1 - gene
        gene = np.sort(run * n + gene, axis=1) - run * n
        order[with_ties] = gene if rows == "increasing" else n - 1 - gene
    return order, ordered


def _ascending_ranks(ordered: np.ndarray) -> np.ndarray:
    """Average ranks (1-based, ascending values) at each position of values sorted in
    decreasing order along the last axis: n + 1 - p, or for a run of equal values at
    positions f..l, n + 1 - (f + l) / 2 (the mean of their ranks)."""
    rows, n = ordered.shape
    ranks = np.broadcast_to(np.arange(n, 0, -1, dtype=np.float64), ordered.shape).copy()
    tied = ordered[:, 1:] == ordered[:, :-1]
    with_ties = np.flatnonzero(tied.any(axis=1))
    if with_ties.size:
        # runs over the tied samples laid end to end (a run never crosses a sample: each
        # sample's first position starts one): each position's run, its first and last place
        start = np.ones((with_ties.size, n), dtype=bool)
        start[:, 1:] = ~tied[with_ties]
        twice_mid = _twice_run_middles(start.ravel()).reshape(start.shape) - \
            (2 * n * np.arange(with_ties.size))[:, None]
        ranks[with_ties] = n - twice_mid / 2.0
    return ranks


def ranking(x: np.ndarray, ties: str = "gsva") -> tuple[np.ndarray, np.ndarray]:
    """``(order, ranks)`` of each column: ``order[p]`` the row at position p (0-based) by
    decreasing value, ``ranks`` the rows' average ranks (ascending values, as R's and
    pandas' ``rank``). Equal values keep increasing row order (``ties="gsva"``: R's stable
    ``order(decreasing = TRUE)``) or decreasing row order (``ties="gseapy"``: GSEApy's
    reversed ascending sort). Sorted sample by sample in memory order (samples x genes).

    >>> order, ranks = ranking(np.array([[1.0], [3.0], [3.0], [0.0]]))
    >>> order[:, 0].tolist(), ranks[:, 0].tolist()
    ([1, 2, 0, 3], [2.0, 3.5, 3.5, 1.0])
    >>> ranking(np.array([[1.0], [3.0], [3.0], [0.0]]), "gseapy")[0][:, 0].tolist()
    [2, 1, 0, 3]
    """
    if ties not in SSGSEA_FLAVORS:
        raise ValueError(f"ties must be 'gsva' or 'gseapy', got {ties!r}")
    order, ordered = decreasing_order(np.ascontiguousarray(x.T),
                                      "increasing" if ties == "gsva" else "decreasing")
    ranks = np.empty(order.shape)
    np.put_along_axis(ranks, order, _ascending_ranks(ordered), axis=1)
    return order.T, ranks.T


def positions(order: np.ndarray) -> np.ndarray:
    """Each row's 1-based position given ``order`` (the row at each position)."""
    ot = np.ascontiguousarray(order.T)
    pos = np.empty_like(ot)
    np.put_along_axis(pos, ot, np.arange(1, ot.shape[1] + 1), axis=1)
    return pos.T


def truncated_ranks(x: np.ndarray) -> np.ndarray:
    """Average ranks of each column (ascending), truncated to integers (int64), as GSVA
    stores them."""
    return np.trunc(ranking(x)[1]).astype(np.int64)


def decreasing_positions(keys: np.ndarray) -> np.ndarray:
    """Each row's 1-based position when a column is sorted by decreasing key, equal keys by
    increasing row (R's stable ``order(decreasing = TRUE)``), gene-major."""
    return np.ascontiguousarray(
        positions(decreasing_order(np.ascontiguousarray(keys.T), values=False)[0].T))


def sparse_positions(block, rows: str = "increasing", *,
                     ranks: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """``(pos, ranks)``, genes x cells, of a scipy.sparse block (genes x cells): each gene's
    1-based position by decreasing value (equal values by increasing row, or decreasing
    with ``rows="decreasing"``) and its average rank (ascending values), as
    :func:`decreasing_order` gives them for the dense block, from the cells' non-zero values
    alone: only those are sorted (each cell's by a stable sort), the zeros of a cell fill the
    positions between its positive and its negative values in row order.

    >>> from scipy import sparse
    >>> pos, rk = sparse_positions(sparse.csc_matrix(np.array([[0.0], [2.0], [0.0], [-1.0]])))
    >>> pos[:, 0].tolist(), rk[:, 0].tolist()
    ([2, 1, 3, 4], [2.5, 4.0, 2.5, 1.0])
    """
    _check_rows(rows)
    from scipy import sparse

    block = sparse.csc_matrix(block)
    block.sum_duplicates()
    n, b = block.shape
    cell = np.repeat(np.arange(b), np.diff(block.indptr))
    row, v = block.indices.astype(np.int64), block.data
    keep = v != 0
    cell, row, v = cell[keep], row[keep], v[keep]
    count = np.bincount(cell, minlength=b)
    start = np.cumsum(count) - count                  # each cell's first non-zero, flat
    # each cell's values by decreasing value, a stable sort of the cell's own (five times
    # faster than one lexsort of the block's): its rows run up in the canonical CSC order,
    # so equal values keep increasing rows, or decreasing ones sorted from the end
    o = np.empty(v.size, dtype=np.int64)
    for j in range(b):
        a, e = start[j], start[j] + count[j]
        if rows == "increasing":
            o[a:e] = a + np.argsort(-v[a:e], kind="stable")
        else:
            o[a:e] = e - 1 - np.argsort(-v[a:e][::-1], kind="stable")
    cell, row, v = cell[o], row[o], v[o]
    positive = np.bincount(cell, weights=v > 0, minlength=b).astype(np.int64)
    zeros = n - count
    k = np.arange(v.size) - start[cell]               # place among the cell's non-zeros
    lower = np.where(v < 0, zeros[cell], 0)           # negatives come after the zeros
    # zeros: positions positive + 1 .. positive + zeros, by row (cells x genes while filling:
    # the running count of non-zero rows above each row runs along memory)
    above = np.zeros((b, n), dtype=np.int32)
    above[cell, row] = 1
    np.cumsum(above, axis=1, out=above)
    zero_place = np.arange(n, dtype=np.int32) - above   # non-zero rows: overwritten below
    if rows == "decreasing":
        zero_place = (zeros - 1).astype(np.int32)[:, None] - zero_place
    zero_place += (positive + 1).astype(np.int32)[:, None]
    zero_place[cell, row] = k + 1 + lower
    pos = np.ascontiguousarray(zero_place.T, dtype=np.int64)
    if not ranks:
        return pos, None
    # average ranks: n - (first + last) / 2 of a run's 0-based positions (as the dense path)
    rank = np.empty((n, b))
    rank[:] = n - (2 * positive + zeros - 1) / 2.0
    if v.size:
        new = np.ones(v.size, dtype=bool)
        new[1:] = (cell[1:] != cell[:-1]) | (v[1:] != v[:-1])
        twice_mid = _twice_run_middles(new) - 2 * start[cell] + 2 * lower
        rank[row, cell] = n - twice_mid / 2.0
    return pos, rank


def summed_walks(pos: np.ndarray, weight, sets: list, n: int | None = None) -> np.ndarray:
    """Each set's running-sum difference summed over the ranking, in closed form:
    sum_S w (n - p + 1) / sum_S w - (n (n + 1) / 2 - sum_S (n - p + 1)) / (n - k), with
    ``weight(rows)`` the members' weights (computed for members only) and n the genes ranked
    (default: every row of ``pos``)."""
    n = pos.shape[0] if n is None else n
    out = np.empty((len(sets), pos.shape[1]))
    for s, idx in enumerate(sets):
        w = weight(idx)
        back = (n - pos[idx] + 1).astype(np.float64)
        out[s] = (w * back).sum(axis=0) / w.sum(axis=0) - \
            (n * (n + 1) / 2 - back.sum(axis=0)) / (n - idx.size)
    return out


def ssgsea_block(x: np.ndarray, sets: list, alpha: float, flavor: str = "gsva") -> np.ndarray:
    """Unnormalised ssGSEA scores (sets x samples) of a block of samples: each set's running
    sum (hits + R^alpha / their sum, misses - 1 / (n - k)) summed over the ranking.

    ``flavor="gsva"`` (GSVA 1.46): R is the gene's average rank truncated to an integer,
    genes ordered by decreasing R, equal R by increasing row. ``flavor="gseapy"`` (GSEApy's
    ``sample_norm_method="rank"``): R = 10,000 x average rank / n, genes ordered by
    decreasing value, equal values by decreasing row. One sort per sample
    (:func:`decreasing_order`; of a sparse block's non-zero values only,
    :func:`sparse_positions`) gives the positions and the average ranks.
    """
    if flavor not in SSGSEA_FLAVORS:
        raise ValueError(f"flavor must be one of {SSGSEA_FLAVORS}, got {flavor!r}")
    rows = "increasing" if flavor == "gsva" else "decreasing"
    pos, ranks = sparse_positions(x, rows) if _is_sparse(x) else dense_positions(x, rows)
    return summed_walks(pos, ssgsea_weight(ranks, alpha, flavor), sets)


def dense_positions(x: np.ndarray, rows: str = "increasing") -> tuple[np.ndarray, np.ndarray]:
    """``(pos, ranks)``, genes x samples, of a dense block: each gene's 1-based position by
    decreasing value (equal values by increasing row, or decreasing with ``rows=
    "decreasing"``) and its average rank (ascending values), from one sort per sample.

    >>> pos, ranks = dense_positions(np.array([[1.0], [3.0], [3.0], [0.0]]))
    >>> pos.ravel().tolist(), ranks.ravel().tolist()
    ([3, 1, 2, 4], [2.0, 3.5, 3.5, 1.0])
    """
    order, ordered = decreasing_order(np.ascontiguousarray(x.T), rows)
    pos = np.ascontiguousarray(positions(order.T))
    ranks = np.empty(order.shape)
    np.put_along_axis(ranks, order, _ascending_ranks(ordered), axis=1)
    return pos, np.ascontiguousarray(ranks.T)


def ssgsea_weight(ranks: np.ndarray, alpha: float, flavor: str):
    """``weight(rows)``: the rank weights of those rows (:func:`ssgsea_weights` of the
    ranks' count), for :func:`summed_walks`."""
    table = ssgsea_weights(ranks.shape[0], alpha, flavor)
    twice = (2.0 * ranks).astype(np.int64)            # average ranks are whole or halves

    def weight(idx):
        return table[twice[idx]]
    return weight


def ssgsea_weights(n: int, alpha: float, flavor: str) -> np.ndarray:
    """The rank weight of each twice-average-rank 0 .. 2n (average ranks are whole or
    halves): ``flavor="gsva"``, GSVA 1.46's trunc(rank)^alpha; ``"gseapy"``, |10,000 rank /
    n|^alpha. One table for the host and the device, so both weigh with the same bits.

    >>> ssgsea_weights(4, 1.0, "gsva").tolist()
    [0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0]
    """
    rank = np.arange(2 * n + 1) / 2.0
    if flavor == "gsva":
        return np.trunc(rank) ** alpha
    return np.abs(10000.0 * rank / n) ** alpha


def normal_cdf_table() -> np.ndarray:
    """GSVA 1.46's table: the standard normal CDF at 10 i / 10,000, i = 0 .. 10,000."""
    from scipy import special

    return special.ndtr(TABLE_RANGE * np.arange(TABLE_POINTS + 1) / TABLE_POINTS)


def _cdf(v: np.ndarray, tabulated: bool) -> np.ndarray:
    """The standard normal CDF at ``v``: exact, or as GSVA 1.46 reads its table (the point at
    or below |v|; 0 below -10, 1 above 10)."""
    if not tabulated:
        from scipy import special

        return special.ndtr(v)
    table = normal_cdf_table()
    a = np.abs(v)
    idx = np.minimum((a / TABLE_RANGE * TABLE_POINTS).astype(np.int64), TABLE_POINTS)
    c = table[idx]
    out = np.where(v < 0, 1.0 - c, c)
    out = np.where(v < -TABLE_RANGE, 0.0, out)
    return np.where(v > TABLE_RANGE, 1.0, out)


def row_sd(x: np.ndarray, rows: int = 2048) -> np.ndarray:
    """Each row's standard deviation (divisor n - 1), ``rows`` rows at a time: the same values
    as ``x.std(axis=1, ddof=1)`` with temporaries of a block's size.

    >>> row_sd(np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 2.0]])).tolist()
    [1.0, 0.0]
    """
    out = np.empty(x.shape[0])
    for a in range(0, x.shape[0], rows):
        out[a:a + rows] = x[a:a + rows].std(axis=1, ddof=1)
    return out


def gsva_bandwidth(x: np.ndarray, kcdf: str) -> np.ndarray:
    """Per gene: sd / 4 (Gaussian, sd with n - 1) or 0.5 (Poisson)."""
    if kcdf == "Poisson":
        return np.full(x.shape[0], 0.5)
    return row_sd(x) / SIGMA_FACTOR


def poisson_cdf_means(tests: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """At each of ``tests``: the mean over ``counts`` c of P(Poisson(c + 0.5) <= test),
    GSVA's Poisson kernel CDF. Summed in the order of the sorted counts, so that genes with
    the same counts in other samples get the same bits and their tie is exact; the CDF is
    evaluated once per pair of distinct values (counts repeat: few distinct values per gene
    in single cells) and the terms of each sum gathered from that table.

    >>> poisson_cdf_means(np.array([0.0, 3.0]), np.array([1.0, 2.0, 1.0])).round(4).tolist()
    [0.1761, 0.8754]
    """
    # imported here: scipy.stats takes 0.6 s to import
    from scipy import stats

    values, where = np.unique(counts, return_inverse=True)
    points, point_of = np.unique(tests, return_inverse=True)
    table = stats.poisson.cdf(points[:, None], values[None, :] + 0.5)
    return np.ascontiguousarray(table[:, np.sort(where)]).mean(axis=1)[point_of]


def gsva_density_block(x: np.ndarray, cols, kcdf: str, tabulated: bool) -> np.ndarray:
    """GSVA's kernel scores of the samples ``cols`` (genes x len(cols)): for gene i and sample
    j, F = mean over all samples k of the kernel CDF at x_ij (Gaussian: Phi((x_ij - x_ik) / h_i);
    Poisson: P(Poisson(x_ik + 0.5) <= x_ij)), then log(F / (1 - F))."""
    h = gsva_bandwidth(x, kcdf)
    y = x[:, cols]
    out = np.empty(y.shape)
    for i in range(x.shape[0]):
        if kcdf == "Poisson":
            # summed in the order of the gene's sorted counts: genes with the same counts in
            # other cells get the same bits, so that their tie is exact. The CDF is evaluated
            # once per pair of distinct counts (counts repeat: few distinct values per gene
            # in single cells) and the terms of each sum gathered from that table
            f = poisson_cdf_means(y[i], x[i])
        else:
            f = _cdf((y[i][:, None] - x[i][None, :]) / h[i], tabulated).mean(axis=1)
        with np.errstate(divide="ignore"):
            out[i] = -np.log((1.0 - f) / f)
    return out


def gsva_block(density: np.ndarray, sets: list, tau: float, mx_diff: bool,
               abs_ranking: bool) -> np.ndarray:
    """GSVA scores (sets x samples) from the kernel scores of a block of samples: genes
    ordered by decreasing score get rank scores |n - p + 1 - n / 2|, and each set's running
    sum is :func:`gsva_walks`'."""
    return gsva_walks(decreasing_positions(density), None, sets, tau, mx_diff, abs_ranking)


def gsva_walks(pos: np.ndarray, stat, sets: list, tau: float, mx_diff: bool,
               abs_ranking: bool) -> np.ndarray:
    """GSVA's scores (sets x samples) from each gene's 1-based position ``pos`` in a sample's
    decreasing order and its rank score ``stat`` (genes x samples; None: |n - p + 1 - n / 2|
    from the position): each set's running sum (hits + score^tau / their sum, misses - 1 /
    (n - k)); the largest positive plus the largest negative excursion (``mx_diff``; their
    difference with ``abs_ranking``), else the one of larger magnitude."""
    n = pos.shape[0]
    out = np.empty((len(sets), pos.shape[1]))
    for s, idx in enumerate(sets):
        # the members' positions in ranking order, sample by sample. The walk rises only at
        # hits and falls only at misses: its maxima are just after a hit, its minima just
        # before one (the walk ends at 0)
        if stat is None:
            p = np.sort(pos[idx].T, axis=1)
            w = np.abs((n - p + 1) - n / 2.0) ** tau
        else:
            p = pos[idx].T
            order = np.argsort(p, axis=1)
            p = np.take_along_axis(p, order, axis=1)
            w = np.take_along_axis(stat[idx].T, order, axis=1) ** tau
        hits = np.cumsum(w, axis=1)
        total = hits[:, -1:]
        misses = (p - np.arange(1, idx.size + 1)) / (n - idx.size)
        pos_max = np.maximum((hits / total - misses).max(axis=1), 0.0)
        neg_max = np.minimum(((hits - w) / total - misses).min(axis=1), 0.0)
        if mx_diff:
            out[s] = pos_max - neg_max if abs_ranking else pos_max + neg_max
        else:
            out[s] = np.where(pos_max > np.abs(neg_max), pos_max, neg_max)
    return out


def aucell_max_area(k: int, max_rank: int) -> float:
    """The largest area a set of ``k`` genes can have (all at the top): AUCell's ``normAUC``.

    >>> aucell_max_area(3, 10)
    24.0
    """
    top = np.arange(1, min(int(k), int(max_rank) - 1) + 1)
    return float((max_rank - top).sum())


def aucell_block(x: np.ndarray, sets: list, max_rank: int, normalize: bool = True,
                 shuffle: np.ndarray | None = None) -> np.ndarray:
    """AUCell scores (sets x samples): the area under each set's recovery curve up to
    ``max_rank`` (a member at rank r < max_rank adds max_rank - r: the curve counts it from r
    on), over the area of the best possible ranking (``normalize``, AUCell's ``normAUC``) or
    over max_rank x the set's size (AUCell's earlier normalisation). Equal values are ranked
    by their row, or by the random keys ``shuffle`` (genes x samples; AUCell's
    ``ties.method = "random"``)."""
    if shuffle is None and _is_sparse(x):
        pos = sparse_positions(x, ranks=False)[0]
    elif shuffle is None:
        pos = decreasing_positions(x)
    else:
        x = x.toarray() if _is_sparse(x) else x
        pos = positions(np.lexsort((shuffle, -x), axis=0))
    out = np.empty((len(sets), x.shape[1]))
    for s, idx in enumerate(sets):
        p = pos[idx]
        area = np.where(p < max_rank, max_rank - p, 0).sum(axis=0)
        best = aucell_max_area(idx.size, max_rank) if normalize else max_rank * idx.size
        out[s] = area / best
    return out


def zscore_block(z: np.ndarray, sets: list) -> np.ndarray:
    """The z-score method (Lee et al. 2008, GSVA's ``zscore``) of a block of samples from their
    standardised expression ``z`` (genes x b, each gene centred and scaled over all samples):
    each set's members summed, over the square root of its size.

    >>> zscore_block(np.array([[1.0, -1.0], [1.0, 0.0], [0.0, 2.0]]), [np.array([0, 1])])
    array([[ 1.41421356, -0.70710678]])
    """
    out = np.empty((len(sets), z.shape[1]))
    for i, idx in enumerate(sets):
        out[i] = z[idx].sum(axis=0) / np.sqrt(idx.size)
    return out


def plage_scores(rows, sets: list) -> np.ndarray:
    """PLAGE (Tomfohr et al. 2005, GSVA's ``plage``): each set's first right singular vector
    of its members' standardised expression (``rows(idx)``: the members x samples, in the set's
    order), sign as LAPACK's ``dgesdd`` gives it (as R's ``svd``).

    >>> z = np.array([[1.0, -1.0, 0.0], [2.0, -2.0, 0.0]])
    >>> np.round(np.abs(plage_scores(lambda idx: z[idx], [np.array([0, 1])])), 6).tolist()
    [[0.707107, 0.707107, 0.0]]
    """
    out = []
    for idx in sets:
        out.append(np.linalg.svd(rows(idx), full_matrices=False)[2][0])
    return np.array(out).reshape(len(sets), -1)
