"""Checks of single-sample enrichment's inputs: the expression (dense, scipy.sparse, a
DataFrame, or an AnnData's cells x genes ``.X`` / ``.layers``), its gene and sample labels,
and the gene sets matched to its genes."""

from __future__ import annotations

import os

import numpy as np

from .. import io as _io
from .._readers.gmx import as_gene_sets
from .._validation import as_int


def _is_anndata(x) -> bool:
    return type(x).__name__ == "AnnData" and hasattr(x, "obs_names") and hasattr(x, "var_names")


def expression(expr, genes=None, samples=None, layer=None):
    """``(matrix, genes, samples, sparse)``: genes x samples as a float64 array or a CSC
    matrix (one column per sample), with names. An AnnData is cells x genes (its ``.X`` or
    ``.layers[layer]``), labelled by ``.var_names`` and ``.obs_names``."""
    import pandas as pd
    from scipy import sparse

    if isinstance(expr, (str, os.PathLike)):
        expr = _io.read_expression(expr)
    if _is_anndata(expr):
        data = expr.X if layer is None else expr.layers[layer]
        g, s = [str(v) for v in expr.var_names], [str(v) for v in expr.obs_names]
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
    if len(g) != m.shape[0] or len(s) != m.shape[1]:
        raise ValueError(f"expr is {m.shape[0]} genes x {m.shape[1]} samples but has "
                         f"{len(g)} gene and {len(s)} sample names")
    if m.shape[0] < 2 or m.shape[1] < 1:
        raise ValueError(f"expr needs at least 2 genes and 1 sample, got {m.shape}")
    if not np.all(np.isfinite(values)):
        raise ValueError("expr has missing or infinite values; remove or impute them first")
    if len(set(g)) != len(g):
        dup = pd.Index(g)[pd.Index(g).duplicated()][0]
        raise ValueError(f"expr has duplicate gene name {dup!r}; collapse to one row per gene")
    return m, g, s, sparse.issparse(m)


def gene_sets(sets, genes, min_size, max_size, ordered: bool = False,
              allow_empty: bool = False):
    """``(names, index arrays, n_left_out)``: each set's genes of the data (duplicates and
    unknown genes dropped) with ``min_size <= size <= max_size`` (GSVA's filter); in the
    data's order, or with ``ordered`` in the set's own order (GSVA's ``fmatch``). None kept is
    an error unless ``allow_empty`` (fgsea's GESECA then returns an empty table)."""
    sets = as_gene_sets(sets)
    if not isinstance(sets, dict) or not sets:
        raise TypeError("gene_sets must be a non-empty dict {name: genes}, a GMT path or a "
                        "decoupler net (source, target)")
    min_size = as_int(min_size, "min_size", minimum=1)
    max_size = max_size if max_size is None else as_int(max_size, "max_size", minimum=1)
    index = {g: i for i, g in enumerate(genes)}
    names, out = [], []
    for name, members in sets.items():
        if isinstance(members, str) or not hasattr(members, "__iter__"):
            raise TypeError(f"gene set {name!r} must be a list of gene names")
        found = dict.fromkeys(index[str(g)] for g in members if str(g) in index)
        idx = np.array(list(found) if ordered else sorted(found), dtype=np.int64)
        if idx.size >= min_size and (max_size is None or idx.size <= max_size) and \
                idx.size < len(genes):
            names.append(str(name))
            out.append(idx)
    if not out and not allow_empty:
        sizes = (f"between min_size={min_size} and max_size={max_size}" if max_size is not None
                 else f"at least min_size={min_size}")
        raise ValueError(f"no gene set has {sizes} genes of the data (first genes: "
                         f"{list(genes)[:3]})")
    return names, out, len(sets) - len(out)
