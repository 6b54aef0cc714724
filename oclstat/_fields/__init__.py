"""Gaussian random fields: batched Matérn covariance, batched LDLᵀ, and L·D^½·Z on the device.

Re-creates gpuRandom's ``maternBatch``, ``cholBatch`` and ``multiplyLowerDiagonalBatch`` and its
exact simulation of Gaussian random fields (simulate_fields = all three plus normal draws).

**Matérn** (geostatsp's parametrisation; one row of ``params`` per parameter set, columns
:data:`PARAM_COLUMNS`): the difference (dx, dy) of two points is rotated anticlockwise by
``anisoAngleRadians`` = θ and the second axis divided by ``anisoRatio``, as geostatsp's
``maternAniso``: u = cos θ dx - sin θ dy, v = (sin θ dx + cos θ dy) / anisoRatio,
d = sqrt(u² + v²); with x = sqrt(8 nu) d / range,

    C(d) = variance 2^(1 - nu) / Gamma(nu) x^nu K_nu(x),   C(0) = variance,

plus ``nugget`` on the diagonal only. K_nu is evaluated by Temme's method on the device
(:mod:`oclstat.special`), accurate to about 1e-15 relative in double for nu in [0.05, 20] and
x from 1e-8 to 700, and the product is formed in logarithms so nothing overflows.

**LDLᵀ** (``ldl_batch``): blocked and right-looking, three launches per block column for the
whole batch (diagonal block, the rows below it, the trailing update in tiles), so a few large
matrices keep the device as busy as many small ones. A matrix that is not positive definite
raises ``ValueError`` naming the matrix and the pivot.

>>> import numpy as np, oclstat
>>> xy = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
>>> cov = oclstat.matern_cov(xy, [[1.0, 0.5, 2.0, 0.1, 1.0, 0.0]])   # range, shape, variance...
>>> np.round(cov[0], 4).tolist()     # nu = 1/2: variance * exp(-2 d / range)
[[2.1, 0.2707, 0.0366], [0.2707, 2.1, 0.0228], [0.0366, 0.0228, 2.1]]

Inside: ``validate`` (parameters, coordinates, batches), ``plan`` (sizes, constants, chunks),
``opencl`` (the kernels' launches), ``result`` (the frozen factorisation), ``api`` (the public
functions); ``special`` (K_nu on the device).
"""

from __future__ import annotations

from .._special import kv, log_kv
from .api import (
    cholesky_batch,
    fields_on_grid,
    grid_coords,
    ldl_batch,
    matern_cov,
    multiply_lower_diag,
    simulate_fields,
)
from .result import LdlResult
from .validate import PARAM_COLUMNS

__all__ = [
    "PARAM_COLUMNS",
    "LdlResult",
    "matern_cov",
    "ldl_batch",
    "cholesky_batch",
    "multiply_lower_diag",
    "simulate_fields",
    "grid_coords",
    "fields_on_grid",
    "kv",
    "log_kv",
]
