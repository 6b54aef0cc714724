"""GSVA 2's sparse algorithm (``gsvaParam(sparse = TRUE)``, its default for a dgCMatrix): each
gene's CDF estimated from its non-zero values alone, and each sample's zeros placed below its
non-zero values, all with one rank score.

For gene i with non-zero values v_1 .. v_m (m >= 2, not all equal), the value at v_k is

* Gaussian: F_k = sum_j Phi((v_k - v_j) / h) / m, h = sd(v) / 4 (n - 1 divisor), Phi read
  from GSVA's table (or exact); summed in the samples' order, as GSVA 2's C code sums;
* Poisson: F_k = mean_j P(Poisson(v_j + 0.5) <= v_k);
* none: F_k = #{j: v_j <= v_k} / m (the empirical CDF),

with no log-odds (GSVA 2 takes them on the dense path only). In sample s, the genes with a
value are ranked by increasing F (equal F: the later row first, ``rank(ties.method =
"last")``), r = 1 .. m_s; of n genes, the gene of rank r stands at position m_s - r + 1 of the
decreasing order and the sample's zeros after them, the last zero row first. The rank score
is ``|(m_s + 1) / 2 - (r + 1)|``, and ``|(m_s + 1) / 2 - 1|`` for every zero; a sample
without zeros takes the dense scores ``|n / 2 - r|``. The running sum is GSVA's
(:func:`~.core.gsva_walks`).

>>> from scipy import sparse
>>> z = sparse.csc_matrix(np.array([[0.5], [0.0], [0.9], [0.0]]))
>>> pos, stat = positions_and_rank_scores(z)
>>> pos[:, 0].tolist(), stat[:, 0].tolist()
([2, 4, 1, 3], [0.5, 0.5, 1.5, 0.5])
"""

from __future__ import annotations

import numpy as np

from .._progress import Progress
from .core import SIGMA_FACTOR, gsva_walks, poisson_cdf_means
from .opencl import density

__all__ = ["nonzero_cdf", "positions_and_rank_scores", "sparse_gsva_block"]

#: Budget for one block of padded genes on the device (values and results).
BLOCK_VALUES = 1 << 22


def nonzero_cdf(rows, kcdf: str, *, rt=None, tabulated: bool = True, dtype=np.float64,
                progress=None) -> np.ndarray:
    """F at every stored value of the genes x samples CSR matrix ``rows`` (in its storage
    order), each gene's estimate from its own non-zero values (see the module); the Gaussian
    kernel on the device ``rt``, the others on the host. Every gene needs two distinct
    values."""
    count = np.diff(rows.indptr)
    out = np.empty(rows.data.size)
    if kcdf == "Gaussian":
        _gaussian(rt, rows, count, out, tabulated=tabulated, dtype=dtype, progress=progress)
        return out
    for i in range(rows.shape[0]):
        a, b = rows.indptr[i], rows.indptr[i + 1]
        v = rows.data[a:b]
        if kcdf == "Poisson":
            out[a:b] = poisson_cdf_means(v, v)
        else:
            out[a:b] = np.searchsorted(np.sort(v), v, side="right") / v.size
    return out


def _gaussian(rt, rows, count, out, *, tabulated, dtype, progress) -> None:
    """Genes in groups of similar numbers of values (the longest first), each gene's values
    padded to its group's width with a value far above them (terms of exactly 0, after its
    own), summed on the device (:func:`~.opencl.density` with ``sums``) and divided here by
    the gene's own count, as GSVA 2 divides."""
    order = np.argsort(-count, kind="stable")
    with Progress(total=rows.shape[0], desc="gsva density (non-zero values)",
                  enabled=progress) as bar:
        g0 = 0
        while g0 < order.size:
            width = int(count[order[g0]])
            g1 = min(order.size, g0 + max(1, BLOCK_VALUES // max(1, width)))
            # a group ends where its genes would be mostly padding
            g1 = g0 + max(1, int(np.searchsorted(-count[order[g0:g1]], -(width // 2),
                                                 side="right")))
            genes = order[g0:g1]
            x = np.empty((genes.size, width))
            h = np.empty(genes.size)
            for k, i in enumerate(genes):
                v = rows.data[rows.indptr[i]:rows.indptr[i + 1]]
                h[k] = v.std(ddof=1) / SIGMA_FACTOR
                x[k, :v.size] = v
                x[k, v.size:] = v.max() + 1e3 * h[k]        # (v - pad) / h < -10: 0
            sums = density(rt, x, tabulated=tabulated, dtype=dtype, bandwidth=h, sums=True)
            for k, i in enumerate(genes):
                a, b = rows.indptr[i], rows.indptr[i + 1]
                out[a:b] = sums[k, :b - a] / (b - a)
            bar.update(genes.size)
            g0 = g1


def positions_and_rank_scores(z) -> tuple[np.ndarray, np.ndarray]:
    """``(pos, stat)``, genes x samples, of a block of F values (scipy.sparse, genes x
    samples): each gene's 1-based position in the sample's decreasing order and its rank
    score, as GSVA 2's ``.ranks2stats(sparse = TRUE)`` gives them (see the module)."""
    from scipy import sparse

    z = sparse.csc_matrix(z)
    n, b = z.shape
    count = np.diff(z.indptr)
    cell = np.repeat(np.arange(b), count)
    row = z.indices.astype(np.int64)
    o = np.lexsort((-row, z.data, cell))           # increasing F, equal F: later row first
    cell, row = cell[o], row[o]
    start = np.cumsum(count) - count
    rank = np.arange(row.size) - start[cell] + 1  # 1 .. m_s
    zeros = n - count
    # zeros: positions m_s + 1 .. n, the last zero row first
    above = np.zeros((b, n), dtype=np.int64)
    above[cell, row] = 1
    np.cumsum(above, axis=1, out=above)
    zero_rank = np.arange(1, n + 1) - above        # k-th zero row: k
    pos = n - zero_rank + 1
    pos[cell, row] = count[cell] - rank + 1
    stat = np.repeat(np.abs((count + 1) / 2.0 - 1.0)[:, None], n, axis=1)
    stat[cell, row] = np.where(zeros[cell] > 0, np.abs((count[cell] + 1) / 2.0 - (rank + 1)),
                               np.abs(n / 2.0 - rank))
    return np.ascontiguousarray(pos.T), np.ascontiguousarray(stat.T)


def sparse_gsva_block(z, sets: list, tau: float, mx_diff: bool,
                      abs_ranking: bool) -> np.ndarray:
    """GSVA 2's sparse scores (sets x samples) of a block of F values (genes x samples)."""
    pos, stat = positions_and_rank_scores(z)
    return gsva_walks(pos, stat, sets, tau, mx_diff, abs_ranking)
