"""The checks of :func:`oclstat.geseca`: the expression (genes x samples, named, finite, one
row per gene), centred and scaled as fgsea's ``geseca`` does (R's ``scale`` on each gene), and
the gene sets matched to its genes."""

from __future__ import annotations

import numpy as np

from .._readers.gmx import as_gene_sets
from .._singlesample.validate import expression as _expression
from .._validation import as_int, check_host_memory

#: fgsea's words when scaling meets a constant gene.
CONSTANT_ROWS = "Cannot rescale a constant/zero gene expression rows to unit variance"


def expression(expr, genes, samples, center: bool, scale: bool):
    """``(E, genes, samples)``: E genes x samples float64 after centring each gene on its
    mean (``center``) and dividing it by its standard deviation, or by its root mean square
    over n - 1 when not centred (``scale``), as R's ``scale(t(E))``."""
    from scipy import sparse

    m, g, s, _ = _expression(expr, genes, samples)
    # centring makes the data dense: E in float64, its 32-bit copy for the device, a temporary
    check_host_memory(m.shape[0] * m.shape[1] * 20, f"geseca's centred {m.shape[0]:,} genes x "
                      f"{m.shape[1]:,} samples", "score the variable genes only (GESECA's "
                      "usual input is a few thousand genes), or fewer cells")
    E = m.toarray() if sparse.issparse(m) else np.array(m, dtype=np.float64)
    if not isinstance(center, (bool, np.bool_)) or not isinstance(scale, (bool, np.bool_)):
        raise TypeError("center and scale must be True or False")
    if scale and E.shape[1] > 1 and np.any(np.std(E, axis=1) == 0):
        raise ValueError(CONSTANT_ROWS)
    if center:
        E -= E.mean(axis=1, keepdims=True)
    if scale:
        if E.shape[1] < 2:
            raise ValueError("scale=True needs at least 2 samples")
        E /= np.sqrt((E * E).sum(axis=1, keepdims=True) / (E.shape[1] - 1))
    return E, g, s


def gene_sets(sets, genes, min_size, max_size):
    """``(names, index arrays, n_left_out)``: each set's genes of the data (unknown genes and
    repeats dropped, in the data's order) with ``min_size <= size <= max_size``; none may be
    kept (fgsea then returns an empty table)."""
    sets = as_gene_sets(sets)
    if not isinstance(sets, dict):
        raise TypeError("gene_sets must be a dict {name: genes}, a GMT path or a decoupler net "
                        f"(source, target), got {type(sets).__name__}")
    n = len(genes)
    min_size = as_int(min_size, "min_size", minimum=0)
    max_size = n - 1 if max_size is None or max_size == np.inf else \
        as_int(max_size, "max_size", minimum=0)
    index = {g: i for i, g in enumerate(genes)}
    names, out = [], []
    for name, members in sets.items():
        if isinstance(members, str) or not hasattr(members, "__iter__"):
            raise TypeError(f"gene set {name!r} must be a list of gene names")
        idx = np.array(sorted({index[str(g)] for g in members if str(g) in index}),
                       dtype=np.int64)
        if max(min_size, 1) <= idx.size <= min(max_size, n - 1):
            names.append(str(name))
            out.append(idx)
    return names, out, len(sets) - len(out)
