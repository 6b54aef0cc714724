"""Planning the batched linear algebra: block and tile sizes, per-parameter constants of the
Matérn kernel, chunks of matrices that fit one allocation."""

from __future__ import annotations

import math

import numpy as np

from .._runtime import DeviceCapabilityError

BLOCK = 64        # block columns of ldl_batch
#: On CPUs a matrix of at most this order is factored whole by one work-item (fields.cl
#: ldl_whole): it stays in cache, where the blocked schedule's launches cost more than the work.
WHOLE_MAX = 256
LDL_GROUP = 8     # pivots per sweep of ldl_whole (its rank-8 updates)
LDL_NOT_FINITE = -2   # ldl_whole's bad[] for a matrix that holds NaN or infinity

TILE = 16         # tile of the trailing update (GPUs)
ROW_LANES = 64    # work-items along a row of a covariance matrix
MATERN_CHEB = 48  # Chebyshev coefficients of log(e^x sqrt(x) K_nu(x)), 2 < x <= 700
MATERN_SERIES = 16  # terms of each polynomial of the small-x series
MATERN_TABLE = MATERN_CHEB + 8 + 6 * MATERN_SERIES   # values per parameter set (matern.clh)


def _real(dtype, rt):
    dt = np.dtype(dtype)
    return dt, {**rt.real_defines(dt), "MATERN_CHEB": MATERN_CHEB,
                "MATERN_SERIES": MATERN_SERIES, "MATERN_TABLE": MATERN_TABLE}


def _constants(p: np.ndarray) -> np.ndarray:
    rng, nu, var, nug, ratio, angle = p.T
    with np.errstate(divide="ignore"):
        log_var = np.log(var)
    lg = np.array([math.lgamma(v) for v in nu])
    out = np.zeros((p.shape[0], 9))
    out[:, 0] = log_var + (1.0 - nu) * math.log(2.0) - lg
    out[:, 1] = np.sqrt(8.0 * nu) / rng
    out[:, 2] = np.cos(angle)
    out[:, 3] = np.sin(angle)
    out[:, 4] = 1.0 / ratio
    out[:, 5] = nu
    out[:, 6] = nug
    out[:, 7] = var
    return out


def _matrix_chunks(rt, n_mat: int, per_matrix: int, what: str) -> list[tuple[int, int]]:
    """Ranges of matrices to process at a time: each buffer of a chunk (``per_matrix`` bytes
    per matrix) fits one allocation, and a chunk's buffers at most 40% of the device memory."""
    if per_matrix > rt.info.max_alloc:
        raise DeviceCapabilityError(
            f"{what}: one matrix needs {per_matrix / 2**30:.2f} GiB, more than the largest "
            f"allocation of {rt.info.label} ({rt.info.max_alloc / 2**30:.2f} GiB); use fewer "
            "points or a device with more memory")
    step = max(1, min(rt.info.max_alloc // per_matrix,
                      int(0.4 * rt.info.global_mem) // (3 * per_matrix)))
    return [(a, min(n_mat, a + step)) for a in range(0, n_mat, step)]


_TRANSFORMS = {"sqrt": 0, "identity": 1, "none": 2}
