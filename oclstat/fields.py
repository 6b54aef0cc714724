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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import random as _random
from ._runtime import DeviceCapabilityError, get_runtime
from ._validation import as_int

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
]

PARAM_COLUMNS = ("range", "shape", "variance", "nugget", "anisoRatio", "anisoAngleRadians")
BLOCK = 64        # block columns of ldl_batch
TILE = 16         # tile of the trailing update (GPUs)
#: Trailing-update kernel: None (automatic: "outer" on CPUs, "tiles" on GPUs), "outer", "tiles".
TRAILING: str | None = None


def _real(dtype, rt):
    dt = np.dtype(dtype)
    return dt, rt.real_defines(dt)


def _as_params(params) -> np.ndarray:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(params, pd.DataFrame):
        missing = [c for c in PARAM_COLUMNS if c not in params.columns]
        if missing:
            raise ValueError(f"params is missing columns {missing}; needs {list(PARAM_COLUMNS)}")
        params = params[list(PARAM_COLUMNS)].to_numpy(dtype=np.float64)
    elif isinstance(params, dict):
        missing = [c for c in PARAM_COLUMNS if c not in params]
        if missing:
            raise ValueError(f"params is missing keys {missing}; needs {list(PARAM_COLUMNS)}")
        params = np.column_stack([np.atleast_1d(np.asarray(params[c], dtype=np.float64))
                                  for c in PARAM_COLUMNS])
    p = np.asarray(params, dtype=np.float64)
    if p.ndim == 1:
        p = p[None, :]
    if p.ndim != 2 or p.shape[1] != len(PARAM_COLUMNS):
        raise ValueError(f"params must have {len(PARAM_COLUMNS)} columns {list(PARAM_COLUMNS)}, "
                         f"got shape {np.shape(params)}")
    if not np.isfinite(p).all():
        raise ValueError("params must be finite")
    checks = [(0, "range", "> 0"), (1, "shape", "> 0"), (2, "variance", ">= 0"),
              (3, "nugget", ">= 0"), (4, "anisoRatio", "> 0")]
    for col, name, rule in checks:
        bad = p[:, col] <= 0 if rule == "> 0" else p[:, col] < 0
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"params row {row}: {name} must be {rule}, got {p[row, col]}")
    if (p[:, 1] > 100).any():
        raise ValueError("params: shape (nu) above 100 is not supported")
    return p


def _as_coords(coords) -> np.ndarray:
    c = np.asarray(coords, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError(f"coords must be an (n_points, 2) array, got shape {c.shape}")
    if c.shape[0] < 1:
        raise ValueError("coords needs at least one point")
    if not np.isfinite(c).all():
        raise ValueError("coords must be finite (no NaN or inf)")
    return np.ascontiguousarray(c)


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


def _matern_buffer(rt, coords, p, dtype, mirror=True):
    dt, defines = _real(dtype, rt)
    n, m = coords.shape[0], p.shape[0]
    buf = rt.empty(m * n * n * dt.itemsize)
    kernel = rt.kernel("fields.cl", "matern_cov", {**defines, "TS": TILE})
    c_buf = rt.to_device(coords.astype(dt), writable=False)
    k_buf = rt.to_device(_constants(p).astype(dt), writable=False)
    ls = (8, 8, 1)
    rt.launch_nd(kernel, (n, n, m), ls, c_buf, k_buf, np.uint32(n), np.uint32(m), buf,
                 np.int32(mirror))
    return buf


def matern_cov(coords, params, *, dtype=np.float64, device=None) -> np.ndarray:
    """Matérn covariance matrices, shape (n_params, n_points, n_points), for every row of
    ``params`` (columns :data:`PARAM_COLUMNS`, or a DataFrame/dict with those names)."""
    coords, p = _as_coords(coords), _as_params(params)
    rt = get_runtime(device)
    dt = np.dtype(dtype)
    n = coords.shape[0]
    out = np.empty((p.shape[0], n, n), dtype=dt)
    for a, b in _matrix_chunks(rt, p.shape[0], n * n * dt.itemsize, "matern_cov"):
        rt.read(_matern_buffer(rt, coords, p[a:b], dt), out[a:b])
    return out


@dataclass
class LdlResult:
    """``A = L diag(D) Lᵀ`` per matrix: ``L`` (batch, n, n) unit lower triangular, ``D``
    (batch, n), ``logdet`` (batch,) = sum(log D)."""

    L: np.ndarray
    D: np.ndarray
    logdet: np.ndarray


def _as_batch(a, name="A") -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a (batch, n, n) stack of square matrices, "
                         f"got shape {np.shape(a)}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr


def _ldl_on_device(rt, buf, n, n_mat, dt, defines):
    """Factor ``n_mat`` matrices in ``buf`` in place; returns (D buffer, first bad pivots)."""
    d_buf = rt.empty(n_mat * n * dt.itemsize)
    bad = np.full(n_mat, -1, dtype=np.int32)
    bad_buf = rt.to_device(bad)
    defs = {**defines, "TS": TILE}
    mode = TRAILING or ("tiles" if rt.gpu_schedule else "outer")
    if mode not in ("outer", "tiles"):
        raise ValueError(f"TRAILING must be None, 'outer' or 'tiles', got {mode!r}")
    stride = -(-max(1, n - min(n, BLOCK)) // 8) * 8 + 8
    panel = rt.empty(n_mat * BLOCK * stride * dt.itemsize) if mode == "outer" else None
    k_diag = rt.kernel("fields.cl", "ldl_diag_block", defs)
    k_rows = rt.kernel("fields.cl", "ldl_panel_rows", defs)
    k_trail = rt.kernel("fields.cl", "ldl_trailing", defs)
    wg = 128 if rt.gpu_schedule else 64
    for k0 in range(0, n, BLOCK):
        k1 = min(n, k0 + BLOCK)
        rt.launch_nd(k_diag, (n_mat * wg,), (wg,), buf, d_buf, np.uint32(n), np.uint32(k0),
                     np.uint32(k1), bad_buf)
        rest = n - k1
        if rest == 0:
            break
        rt.launch_nd(k_rows, (rest, n_mat), (64 if rest >= 64 else rest, 1), buf, d_buf,
                     np.uint32(n), np.uint32(k0), np.uint32(k1), np.uint32(n_mat))
        if mode == "tiles":
            tiles = -(-rest // TILE)
            rt.launch_nd(k_trail, (tiles * TILE, tiles * TILE, n_mat), (TILE, TILE, 1), buf,
                         d_buf, np.uint32(n), np.uint32(k0), np.uint32(k1))
            continue
        kb = k1 - k0
        rt.launch_nd(rt.kernel("fields.cl", "ldl_pack_panel", defs), (stride, kb, n_mat),
                     (8, 1, 1), buf, panel, np.uint32(n), np.uint32(k0), np.uint32(k1),
                     np.uint32(n_mat), np.uint32(stride))
        rt.launch_nd(rt.kernel("fields.cl", "ldl_trailing_outer", defs),
                     (-(-rest // 8), -(-rest // 4), n_mat), (8, 1, 1), buf, d_buf, panel,
                     np.uint32(n), np.uint32(k0), np.uint32(k1), np.uint32(stride))
    rt.read(bad_buf, bad)
    return d_buf, bad


def _raise_if_not_pd(bad, name="A"):
    wrong = np.flatnonzero(bad >= 0)
    if wrong.size:
        b = int(wrong[0])
        raise ValueError(f"{name}[{b}] is not positive definite: pivot {int(bad[b])} "
                         f"(0-based) is not positive"
                         + (f" ({wrong.size} matrices fail)" if wrong.size > 1 else ""))


def _finalize(rt, defines, buf, d_buf, n, n_mat, mode):
    """Zeros above the diagonal; unit diagonal (mode 0) or L sqrt(D) (mode 1)."""
    rt.launch_nd(rt.kernel("fields.cl", "ldl_finalize", {**defines, "TS": TILE}), (n, n, n_mat),
                 (8, 8, 1), buf, d_buf, np.uint32(n), np.uint32(n_mat), np.int32(mode))


def _factor(a, dtype, device, mode):
    arr = _as_batch(a)
    dt = np.dtype(dtype) if dtype is not None else (
        np.dtype(np.float32) if arr.dtype == np.float32 else np.dtype(np.float64))
    rt = get_runtime(device)
    _, defines = _real(dt, rt)
    n_mat, n = arr.shape[0], arr.shape[1]
    host = np.ascontiguousarray(arr, dtype=dt)
    out = np.empty_like(host)
    d = np.empty((n_mat, n), dtype=dt)
    bad = np.full(n_mat, -1, dtype=np.int32)
    for a, b in _matrix_chunks(rt, n_mat, n * n * dt.itemsize, "the factorisation"):
        buf = rt.to_device(host[a:b])
        d_buf, bad[a:b] = _ldl_on_device(rt, buf, n, b - a, dt, defines)
        _finalize(rt, defines, buf, d_buf, n, b - a, mode)
        rt.read(buf, out[a:b])
        rt.read(d_buf, d[a:b])
    _raise_if_not_pd(bad)
    return out, d


def ldl_batch(a, *, dtype=None, device=None) -> LdlResult:
    """LDLᵀ of a batch of symmetric positive definite matrices (only the lower triangle is read).

    >>> import numpy as np, oclstat
    >>> r = oclstat.ldl_batch(np.array([[4.0, 2.0], [2.0, 3.0]]))
    >>> r.L[0].tolist(), r.D[0].tolist(), round(float(r.logdet[0]), 6)
    ([[1.0, 0.0], [0.5, 1.0]], [4.0, 2.0], 2.079442)
    """
    low, d = _factor(a, dtype, device, 0)
    return LdlResult(low, d, np.log(d.astype(np.float64)).sum(axis=1))


def cholesky_batch(a, *, dtype=None, device=None) -> np.ndarray:
    """Cholesky factors L (A = L Lᵀ) of a batch of symmetric positive definite matrices.

    >>> import numpy as np, oclstat
    >>> oclstat.cholesky_batch(np.array([[4.0, 2.0], [2.0, 5.0]]))[0].tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    low, _ = _factor(a, dtype, device, 1)
    return low


_TRANSFORMS = {"sqrt": 0, "identity": 1, "none": 2}


def multiply_lower_diag(L, D, Z, *, transform: str = "sqrt", device=None) -> np.ndarray:
    """``L · w(D) · Z`` per matrix: ``L`` (batch, n, n) lower triangular, ``D`` (batch, n),
    ``Z`` (batch, n_sim, n) rows of normals; ``transform`` "sqrt" (w = D^½, the field
    recipe), "identity" (w = D) or "none" (w = 1). Returns (batch, n_sim, n).

    >>> import numpy as np, oclstat
    >>> L = np.array([[[1.0, 0.0], [0.5, 1.0]]]); D = np.array([[4.0, 1.0]])
    >>> oclstat.multiply_lower_diag(L, D, np.array([[[1.0, 1.0]]])).tolist()
    [[[2.0, 2.0]]]
    """
    if transform not in _TRANSFORMS:
        raise ValueError(f"transform must be one of {sorted(_TRANSFORMS)}, got {transform!r}")
    low = _as_batch(L, "L")
    b, n = low.shape[0], low.shape[1]
    d = np.asarray(D, dtype=np.float64).reshape(-1, n) if np.size(D) else None
    if d is None or d.shape[0] != b:
        raise ValueError(f"D must have shape ({b}, {n}), got {np.shape(D)}")
    if transform == "sqrt" and (d < 0).any():
        raise ValueError("D must be >= 0 for transform='sqrt'")
    z = np.asarray(Z, dtype=np.float64)
    if z.ndim == 2:
        z = z[None]
    if z.ndim != 3 or z.shape[0] != b or z.shape[2] != n:
        raise ValueError(f"Z must have shape ({b}, n_sim, {n}), got {np.shape(Z)}")
    rt = get_runtime(device)
    dt = np.dtype(np.float32) if low.dtype == np.float32 else np.dtype(np.float64)
    _, defines = _real(dt, rt)
    n_sim = z.shape[1]
    out = np.empty((b, n_sim, n), dtype=dt)
    per = max(n * n, n_sim * n) * dt.itemsize
    for a, e in _matrix_chunks(rt, b, per, "multiply_lower_diag"):
        bufs = [rt.to_device(np.ascontiguousarray(x[a:e], dtype=dt), writable=False)
                for x in (low, d, z)]
        o_buf = rt.empty(out[a:e].nbytes)
        _lower_times(rt, defines, *bufs, o_buf, n, n_sim, e - a, _TRANSFORMS[transform])
        rt.read(o_buf, out[a:e])
    return out


def _lower_times(rt, defines, l_buf, d_buf, z_buf, o_buf, n, n_sim, n_mat, mode):
    kernel = rt.kernel("fields.cl", "lower_times", {**defines, "TS": TILE})
    rt.launch_nd(kernel, (n, n_sim, n_mat), (16 if n >= 16 else n, 1, 1), l_buf, d_buf, z_buf,
                 o_buf, np.uint32(n), np.uint32(n_sim), np.uint32(n_mat), np.int32(mode))


def simulate_fields(coords, params, n_sim: int, *, seed=None, dtype=np.float64,
                    device=None) -> np.ndarray:
    """Exact simulation of Gaussian random fields: Matérn covariance of every parameter set,
    LDLᵀ, standard normals from MRG31k3p streams of ``seed``, and ``L D^½ Z``, all on the
    device. Returns fields shaped (n_params, n_sim, n_points)."""
    coords, p = _as_coords(coords), _as_params(params)
    n_sim = as_int(n_sim, "n_sim", minimum=1)
    rt = get_runtime(device)
    dt, defines = _real(dtype, rt)
    n, m = coords.shape[0], p.shape[0]
    z = _random.normal((m, n_sim, n), seed=seed, dtype=dt, device=rt)
    out = np.empty((m, n_sim, n), dtype=dt)
    per = max(n * n, n_sim * n) * dt.itemsize
    for a, b in _matrix_chunks(rt, m, per, "simulate_fields"):
        cov = _matern_buffer(rt, coords, p[a:b], dt, mirror=False)  # LDL reads the lower part
        d_buf, bad = _ldl_on_device(rt, cov, n, b - a, dt, defines)
        if (bad >= 0).any():
            _raise_if_not_pd(np.r_[np.full(a, -1), bad], "the covariance of params row")
        _finalize(rt, defines, cov, d_buf, n, b - a, 0)
        z_buf = rt.to_device(np.ascontiguousarray(z[a:b]), writable=False)
        o_buf = rt.empty(out[a:b].nbytes)
        _lower_times(rt, defines, cov, d_buf, z_buf, o_buf, n, n_sim, b - a, 0)
        rt.read(o_buf, out[a:b])
    return out


def grid_coords(nx: int, ny: int, *, xlim=(0.0, 1.0), ylim=(0.0, 1.0)) -> np.ndarray:
    """Cell centres of an ``nx`` x ``ny`` grid as (nx * ny, 2) coordinates, x fastest.

    >>> grid_coords(2, 1).tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    nx, ny = as_int(nx, "nx", minimum=1), as_int(ny, "ny", minimum=1)
    xs = xlim[0] + (np.arange(nx) + 0.5) * (xlim[1] - xlim[0]) / nx
    ys = ylim[0] + (np.arange(ny) + 0.5) * (ylim[1] - ylim[0]) / ny
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def fields_on_grid(fields: np.ndarray, nx: int, ny: int) -> np.ndarray:
    """Fields from :func:`simulate_fields` on :func:`grid_coords` points as images
    (n_params, n_sim, ny, nx)."""
    f = np.asarray(fields)
    if f.shape[-1] != nx * ny:
        raise ValueError(f"fields have {f.shape[-1]} points, the grid {nx} x {ny} has {nx * ny}")
    return f.reshape(*f.shape[:-1], ny, nx)
