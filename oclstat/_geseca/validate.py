"""The checks of :func:`oclstat.geseca`: the expression (genes x samples, named, finite, one
row per gene), centred and scaled as fgsea's ``geseca`` does (R's ``scale`` on each gene).
Gene sets are matched to its genes as the single-sample scores match them."""

from __future__ import annotations

import numpy as np

from .._singlesample.validate import expression as _expression
from .._validation import check_host_memory

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
