"""Batched linear algebra on the device: the public names of :mod:`oclstat._linalg`
(triangular solves, ``Aᵀ D B`` and ``op(A) op(B)`` for stacks of matrices) beside the fields'
factorisations.

>>> import numpy as np
>>> from oclstat.linalg import gemm_batch
>>> gemm_batch(np.eye(2), [[1.0, 2.0], [3.0, 4.0]]).tolist()
[[1.0, 2.0], [3.0, 4.0]]
"""

from __future__ import annotations

from ._fields import cholesky_batch, ldl_batch
from ._linalg import crossprod_batch, gemm_batch, solve_triangular_batch

__all__ = ["solve_triangular_batch", "crossprod_batch", "gemm_batch", "ldl_batch",
           "cholesky_batch"]
