"""The adapters of the R functions that the R package's file of the same name defines: ssgseaGpu,
zscoreGpu, plageGpu and gsvaGpu (GSVA's methods).
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RSparse, RValue, r_function


def _score_matrix(frame) -> RValue:
    """A sets x samples DataFrame as GSVA's matrix (gene sets and samples as dimnames)."""
    return RValue(np.ascontiguousarray(frame.to_numpy(dtype=float)), None,
                  attributes={"dimnames": [Characters(str(s) for s in frame.index),
                                           Characters(str(s) for s in frame.columns)]})


def _expression(expr) -> tuple:
    """``(expression, labels)`` for a single-sample function from what R sent: a DataFrame
    (an R matrix with dimnames) as it is, an R ``dgCMatrix`` as its CSC matrix with its names
    as ``genes=`` and ``samples=``."""
    if isinstance(expr, RSparse):
        if expr.rownames is None:
            raise ValueError("expr needs gene names as row names")
        return expr.matrix, {"genes": expr.rownames, "samples": expr.colnames}
    return expr, {}


def _gsva_method(method, expr, gset_idx_list, **kwargs) -> RValue:
    """GSVA's matrix of a single-sample ``method`` on what R sent."""
    data, labels = _expression(expr)
    return _score_matrix(method(data, _gene_set_list(gset_idx_list), **kwargs, **labels))


def _nan_policy(use) -> str:
    """GSVA 2's ``use =`` as oclstat's ``nan_policy``."""
    policy = {"all.obs": "raise", "everything": "propagate", "na.rm": "omit"}.get(use)
    if policy is None:
        raise ValueError(f"use must be 'all.obs', 'everything' or 'na.rm', got {use!r}")
    return policy


def _gene_set_list(gset_idx_list) -> dict:
    if not isinstance(gset_idx_list, dict) or not gset_idx_list or \
            any(not k for k in gset_idx_list):
        raise ValueError("gset.idx.list must be a named list of character vectors")
    return {k: [str(g) for g in np.atleast_1d(v)] for k, v in gset_idx_list.items()}


@r_function("ssgseaGpu", "ssgsea",
             renamed={"gset.idx.list": "gset_idx_list", "ssgsea.norm": "ssgsea_norm",
                      "min.sz": "min_sz", "max.sz": "max_sz", "parallel.sz": "parallel_sz"})
def ssgsea_gpu(expr, gset_idx_list, tau=0.25, ssgsea_norm=True, flavor="gsva", min_sz=1,
               max_sz=None, parallel_sz=1, verbose=True, assay=None, use="all.obs", *,
               device=None):
    """GSVA 1.46's ``gsva(method = "ssgsea")`` arguments; its sets x samples matrix.
    parallel.sz and verbose are accepted and ignored; R reads the assay of a container.
    ``use``: GSVA 2's names of :func:`oclstat.ssgsea`'s ``nan_policy``."""
    from .._singlesample import ssgsea

    policy = _nan_policy(use)
    return _gsva_method(ssgsea, expr, gset_idx_list, alpha=tau, normalize=bool(ssgsea_norm),
                        flavor=flavor, min_size=min_sz, max_size=max_sz, nan_policy=policy)


@r_function("zscoreGpu", "zscore",
             renamed={"gset.idx.list": "gset_idx_list", "min.sz": "min_sz", "max.sz": "max_sz",
                      "parallel.sz": "parallel_sz"})
def zscore_gpu(expr, gset_idx_list, min_sz=1, max_sz=None, parallel_sz=1, verbose=True,
               assay=None, *, device=None):
    """GSVA 1.46's ``gsva(method = "zscore")`` arguments; its sets x samples matrix.
    parallel.sz and verbose are accepted and ignored; R reads the assay of a container."""
    from .._singlesample import zscore

    # a dgCMatrix: its non-zero values scaled, as GSVA's dgCMatrix path
    return _gsva_method(zscore, expr, gset_idx_list, min_size=min_sz, max_size=max_sz,
                        nonzero_only=isinstance(expr, RSparse))


@r_function("plageGpu", "plage",
             renamed={"gset.idx.list": "gset_idx_list", "min.sz": "min_sz", "max.sz": "max_sz",
                      "parallel.sz": "parallel_sz"})
def plage_gpu(expr, gset_idx_list, min_sz=2, max_sz=None, parallel_sz=1, verbose=True,
              assay=None, *, device=None):
    """GSVA 1.46's ``gsva(method = "plage")`` arguments; its sets x samples matrix.
    parallel.sz and verbose are accepted and ignored; R reads the assay of a container."""
    from .._singlesample import plage

    return _gsva_method(plage, expr, gset_idx_list, min_size=min_sz, max_size=max_sz,
                        nonzero_only=isinstance(expr, RSparse))


@r_function("gsvaGpu", "gsva",
             renamed={"gset.idx.list": "gset_idx_list", "abs.ranking": "abs_ranking",
                      "mx.diff": "mx_diff", "min.sz": "min_sz", "max.sz": "max_sz",
                      "parallel.sz": "parallel_sz"})
def gsva_gpu(expr, gset_idx_list, kcdf="Gaussian", abs_ranking=False, tau=1.0, mx_diff=True,
             tabulated=True, min_sz=1, max_sz=None, parallel_sz=1, verbose=True, assay=None,
             sparse=False, use="all.obs", *, device=None):
    """GSVA 1.46's ``gsva(method = "gsva")`` arguments; its sets x samples matrix (the
    kernel estimate on the device). parallel.sz and verbose are accepted and ignored; R
    reads the assay of a container. ``sparse`` (GSVA 2's ``gsvaParam(sparse = TRUE)``, from
    ``gsva(param)``): GSVA 2's sparse algorithm on a dgCMatrix. ``use``: GSVA 2's names of
    :func:`oclstat.gsva`'s ``nan_policy``."""
    from .._singlesample import gsva

    return _gsva_method(gsva, expr, gset_idx_list, kcdf=kcdf, abs_ranking=bool(abs_ranking),
                        tau=tau, mx_diff=bool(mx_diff), tabulated=bool(tabulated),
                        min_size=min_sz, max_size=max_sz, sparse=bool(sparse),
                        nan_policy=_nan_policy(use), device=device)
