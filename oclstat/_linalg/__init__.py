"""Batched linear algebra on the device, beside :func:`oclstat.ldl_batch`: triangular solves
with many right-hand sides (gpuRandom's ``backsolveBatch``), ``Aᵀ D B`` (``crossprodBatch``)
and ``op(A) op(B)`` (``gemmBatch``), for whole stacks of matrices in one launch, float64 or
float32. A matrix given once (batch size 1) is shared by the whole batch.

>>> import numpy as np, oclstat
>>> L = np.array([[1.0, 0.0], [0.5, 1.0]])
>>> oclstat.solve_triangular_batch(L, np.array([[[2.0], [2.0]]]), unit_diagonal=True).tolist()
[[[2.0], [1.0]]]

Inside: ``validate`` (stacks, batch sizes, flags), ``opencl`` (the kernels of
cl_kernels/linalg.cl, on buffers for the spatial models and on numpy stacks), ``api`` (the
public functions). Chunks and multi-device maps are the fields' (:mod:`oclstat._fields`).
"""

from __future__ import annotations

from .api import crossprod_batch, gemm_batch, solve_triangular_batch

__all__ = ["solve_triangular_batch", "crossprod_batch", "gemm_batch"]
