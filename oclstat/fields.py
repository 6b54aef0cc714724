"""Gaussian random fields: the public names of :mod:`oclstat._fields` (batched Matérn
covariance, LDLᵀ and Cholesky, L·D^½·Z, simulation, grid helpers).

>>> from oclstat.fields import grid_coords
>>> grid_coords(2, 1).tolist()
[[0.25, 0.5], [0.75, 0.5]]
"""

from __future__ import annotations

from ._fields import (
    PARAM_COLUMNS,
    LdlResult,
    cholesky_batch,
    fields_on_grid,
    grid_coords,
    ldl_batch,
    matern_cov,
    multiply_lower_diag,
    simulate_fields,
)

__all__ = ["PARAM_COLUMNS", "LdlResult", "matern_cov", "ldl_batch", "cholesky_batch",
           "multiply_lower_diag", "simulate_fields", "grid_coords", "fields_on_grid"]
