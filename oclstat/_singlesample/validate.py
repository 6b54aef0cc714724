"""Checks of single-sample enrichment's inputs: the expression (dense, scipy.sparse, a
DataFrame, or an AnnData's cells x genes ``.X`` / ``.layers``) and its gene and sample
labels."""

from __future__ import annotations

import numpy as np

from .. import io as _io
from .._readers.text import is_path


def _is_anndata(x) -> bool:
    return type(x).__name__ == "AnnData" and hasattr(x, "obs_names") and hasattr(x, "var_names")


class BackedCells:
    """A backed AnnData's cells x genes matrix (``read_h5ad(..., backed="r")``) seen as genes
    x cells and read a block of cells at a time, never whole: ``view[:, j0:j1]`` reads cells
    j0..j1 from the file (a CSC block for a sparse matrix, a float64 array for a dense one),
    ``view[rows]`` keeps some genes (applied to every block read later); each block is
    checked for missing and infinite values as it is read.

    The methods that need every cell of a gene at once (GSVA, PLAGE) read it into memory
    (:func:`in_memory`), sparse as it is stored.
    """

    #: Cells read from the file at a time by :meth:`row_stats` and :meth:`to_memory`.
    CELLS_PER_READ = 4096

    def __init__(self, data, rows=None):
        self.data = data
        self.rows = rows
        self.sparse = hasattr(data, "format")      # anndata's CSR/CSC datasets; h5py's not
        genes = data.shape[1] if rows is None else len(rows)
        self.shape = (int(genes), int(data.shape[0]))
        self.ndim = 2

    def __getitem__(self, key):
        from scipy import sparse

        if not isinstance(key, tuple):
            rows = np.arange(self.shape[0])[key]
            keep = rows if self.rows is None else np.asarray(self.rows)[rows]
            return BackedCells(self.data, keep)
        genes, cells = key
        if genes != slice(None) or not isinstance(cells, slice):
            raise TypeError("a backed expression is read as [:, first_cell:end_cell]")
        block = self.data[cells]
        if self.sparse:
            block = sparse.csc_matrix(sparse.csr_matrix(block).T, dtype=np.float64)
            values = block.data
        else:
            block = np.ascontiguousarray(np.asarray(block, dtype=np.float64).T)
            values = block
        if not np.all(np.isfinite(values)):
            raise ValueError("expr has missing or infinite values; remove or impute them "
                             "first")
        return block if self.rows is None else block[self.rows]

    def _reads(self):
        for j0 in range(0, self.shape[1], self.CELLS_PER_READ):
            yield self[:, j0:min(self.shape[1], j0 + self.CELLS_PER_READ)]

    def row_stats(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each gene's sum, sum of squares and number of non-zero values over the cells."""
        total, squares, nonzero = (np.zeros(self.shape[0]) for _ in range(3))
        for block in self._reads():
            if self.sparse:
                total += np.asarray(block.sum(axis=1)).ravel()
                squares += np.asarray(block.multiply(block).sum(axis=1)).ravel()
                nonzero += np.asarray((block != 0).sum(axis=1)).ravel()
            else:
                total += block.sum(axis=1)
                squares += (block * block).sum(axis=1)
                nonzero += np.count_nonzero(block, axis=1)
        return total, squares, nonzero

    def to_memory(self):
        """The whole matrix, genes x cells: CSC for a sparse file, else a float64 array."""
        from scipy import sparse

        blocks = list(self._reads())
        return sparse.hstack(blocks, format="csc") if self.sparse else np.hstack(blocks)


def in_memory(m):
    """``m`` itself, or a :class:`BackedCells` read whole (sparse as stored)."""
    return m.to_memory() if isinstance(m, BackedCells) else m


def nonzero_per_gene(m) -> np.ndarray:
    """How many cells have a non-zero value of each gene (dense, sparse or backed)."""
    if isinstance(m, BackedCells):
        return m.row_stats()[2]
    return np.asarray((m != 0).sum(axis=1)).ravel()


def expression(expr, genes=None, samples=None, layer=None, *, missing: bool = False):
    """``(matrix, genes, samples, sparse)``: genes x samples as a float64 array or a CSC
    matrix (one column per sample), with names. An AnnData is cells x genes (its ``.X`` or
    ``.layers[layer]``), labelled by ``.var_names`` and ``.obs_names``. ``missing``: a dense
    matrix in memory may hold NaN (never infinities), returned as numpy's quiet NaN."""
    import pandas as pd
    from scipy import sparse

    if is_path(expr):
        expr = _io.read_expression(expr)
    if _is_anndata(expr):
        data = expr.X if layer is None else expr.layers[layer]
        g, s = [str(v) for v in expr.var_names], [str(v) for v in expr.obs_names]
        if getattr(expr, "isbacked", False) and not isinstance(data, np.ndarray) and \
                not sparse.issparse(data):
            view = BackedCells(data)
            _check_labels(view.shape, g, s)     # the values are checked block by block
            return view, g, s, view.sparse
        m = data.T
    elif layer is not None:
        raise ValueError("layer= is for AnnData objects")
    elif isinstance(expr, pd.DataFrame):
        if genes is not None:
            raise ValueError("genes= is only for arrays; a DataFrame's index names the genes")
        g, s = [str(v) for v in expr.index], [str(v) for v in expr.columns]
        try:
            m = expr.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("expr must hold numbers only (genes x samples)") from None
    else:
        m = expr
        if genes is None:
            raise ValueError("genes= (one name per row) is needed when expr is an array")
        g = [str(v) for v in genes]
        s = [str(v) for v in samples] if samples is not None else \
            [f"S{j + 1}" for j in range(np.shape(m)[1])]
    if sparse.issparse(m):
        m = sparse.csc_matrix(m, dtype=np.float64)
        values = m.data
    else:
        m = np.asarray(m)
        if m.dtype.kind not in "iuf":
            raise TypeError(f"expr must be numeric, got dtype {m.dtype}")
        m = m.astype(np.float64, copy=False)
        values = m
    if m.ndim != 2:
        raise ValueError(f"expr must be 2-D (genes x samples), got shape {m.shape}")
    _check_labels(m.shape, g, s)
    if missing and not sparse.issparse(m):
        if np.isinf(m).any():
            raise ValueError("expr has infinite values; remove them first")
        nan = np.isnan(m)
        if nan.any():
            # one quiet NaN for every missing value: R's NA is a signalling NaN, which IEEE
            # minimum and maximum (numpy's fmin, fmax) return instead of the number
            m = np.where(nan, np.nan, m)
    elif not np.all(np.isfinite(values)):
        raise ValueError("expr has missing or infinite values; remove or impute them first" +
                         (" (missing values are handled in a dense expression only)"
                          if missing else ""))
    return m, g, s, sparse.issparse(m)


def _check_labels(shape, g: list, s: list) -> None:
    """The checks of the expression's shape and names (its values are checked as read)."""
    import pandas as pd

    if len(g) != shape[0] or len(s) != shape[1]:
        raise ValueError(f"expr is {shape[0]} genes x {shape[1]} samples but has "
                         f"{len(g)} gene and {len(s)} sample names")
    if shape[0] < 2 or shape[1] < 1:
        raise ValueError(f"expr needs at least 2 genes and 1 sample, got {tuple(shape)}")
    if len(set(g)) != len(g):
        dup = pd.Index(g)[pd.Index(g).duplicated()][0]
        raise ValueError(f"expr has duplicate gene name {dup!r}; collapse to one row per gene")
