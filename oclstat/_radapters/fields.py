"""The adapters of the R functions that the R package's file of the same name defines: maternBatch,
cholBatch, multiplyLowerDiagonalBatch and simulateFields (gpuRandom's fields).
"""

from __future__ import annotations

from .base import RValue, dtype_of, r_function


@r_function("maternBatch", "matern_cov")
def matern_batch(coords, params, type="double", layout="stacked", *,
                 device=None):
    """The (k, n, n) array; R stacks it (gpuRandom's layout) unless layout = "array"."""
    from .._fields import matern_cov

    return matern_cov(coords, params, dtype=dtype_of(type), device=device)


@r_function("cholBatch", "ldl_batch")
def chol_batch(A, *, device=None):
    from .._fields import ldl_batch

    r = ldl_batch(A, device=device)
    return RValue({"L": r.L, "D": r.D, "logdet": r.logdet})


@r_function("multiplyLowerDiagonalBatch", "multiply_lower_diag")
def multiply_lower_diagonal_batch(L, D, Z, transform="sqrt", *, device=None):
    from .._fields import multiply_lower_diag

    return multiply_lower_diag(L, D, Z, transform=transform, device=device)


@r_function("simulateFields", "simulate_fields")
def simulate_fields(coords, params, Nsim, seed=None, type="double", *,
                    device=None):
    from .._fields import simulate_fields as run

    return run(coords, params, Nsim, seed=seed, dtype=dtype_of(type), device=device)
