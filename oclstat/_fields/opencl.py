"""Matérn covariance, batched LDLᵀ and L·w(D)·Z on an OpenCL device (cl_kernels/fields.cl): in
the CPU schedule small matrices whole, one per work-item, larger ones blocked with an
outer-product trailing update; in the GPU schedule blocked with tiles."""

from __future__ import annotations

import os

import numpy as np

from .._constants import TRAIL_RB
from .plan import (
    BLOCK,
    LDL_GROUP,
    LDL_NOT_FINITE,
    MATERN_CHEB,
    MATERN_TABLE,
    ROW_LANES,
    TILE,
    WHOLE_MAX,
    _constants,
    _matrix_chunks,
    _real,
)


def matern_tables(rt, p: np.ndarray, dtype):
    """Device buffers of the Matérn constants and tables (oclstat/matern.clh) of the
    parameter rows ``p`` (range, shape, variance, nugget, anisoRatio, angle), computed on the
    device from its own K_nu, and the defines of the kernels that use them (the fast path
    when every set's table is usable)."""
    dt, defines = _real(dtype, rt)
    m = p.shape[0]
    k_buf = rt.to_device(np.ascontiguousarray(_constants(p), dtype=dt), writable=False)
    t_buf = rt.empty(m * MATERN_TABLE * dt.itemsize)
    rt.launch(rt.kernel("fields.cl", "matern_setup", {**defines, "TS": TILE}), m, k_buf,
              np.uint32(m), t_buf)
    tables = np.empty((m, MATERN_TABLE), dtype=dt)
    rt.read(t_buf, tables)
    fast = bool((tables[:, MATERN_CHEB] == 1).all())
    defines = {**defines, "TS": TILE, "MATERN_FAST": int(fast)}
    if fast and rt.scalar_work_items:
        # each work-item a vector register's worth of a row's elements (pocl's CPU drivers,
        # which run the one-element loop as scalar code: 4.6x Intel's time on this kernel)
        defines["LANES"] = rt.lanes(np.float64, register=True)
    return k_buf, t_buf, defines


def _matern_buffer(rt, coords, p, dtype, mirror=True):
    dt = np.dtype(dtype)
    n, m = coords.shape[0], p.shape[0]
    buf = rt.empty(m * n * n * dt.itemsize)
    c_buf = rt.to_device(coords.astype(dt), writable=False)
    k_buf, t_buf, defines = matern_tables(rt, p, dt)
    kernel = rt.kernel("fields.cl", "matern_cov", defines)
    rt.launch_nd(kernel, (ROW_LANES, n, m), (ROW_LANES, 1, 1), c_buf, k_buf, t_buf, np.uint32(n),
                 np.uint32(m), buf, np.int32(mirror))
    return buf


def _ldl_on_device(rt, buf, n, n_mat, dt, defines, n_check=None):
    """Factor ``n_mat`` matrices in ``buf`` in place; returns (D buffer, first pivot among the
    first ``n_check`` (default all) that is not positive, or -1, per matrix)."""
    d_buf = rt.empty(n_mat * n * dt.itemsize)
    bad = np.full(n_mat, -1, dtype=np.int32)
    bad_buf = rt.to_device(bad)
    defs = {**defines, "TS": TILE}
    mode = "tiles" if rt.gpu_schedule else "outer"        # the trailing update's schedule
    stride = -(-max(1, n - min(n, BLOCK)) // 8) * 8 + 8
    if mode == "outer":      # the panel's micro-panels: L, and L D
        panel, panel_d = (rt.empty(n_mat * BLOCK * stride * dt.itemsize) for _ in range(2))
    k_diag = rt.kernel("fields.cl", "ldl_diag_block", defs)
    k_rows = rt.kernel("fields.cl", "ldl_panel_rows", defs)
    k_trail = rt.kernel("fields.cl", "ldl_trailing", defs)
    wg = 128 if rt.gpu_schedule else 64
    for k0 in range(0, n, BLOCK):
        k1 = min(n, k0 + BLOCK)
        rt.launch_nd(k_diag, (n_mat * wg,), (wg,), buf, d_buf, np.uint32(n), np.uint32(k0),
                     np.uint32(k1), bad_buf, np.uint32(n if n_check is None else n_check))
        rest = n - k1
        if rest == 0:
            break
        if mode == "tiles":
            rt.launch_nd(k_rows, (rest, n_mat), (64 if rest >= 64 else rest, 1), buf, d_buf,
                         np.uint32(n), np.uint32(k0), np.uint32(k1), np.uint32(n_mat))
            tiles = -(-rest // (TILE * TRAIL_RB))
            rt.launch_nd(k_trail, (tiles * TILE, tiles * TILE, n_mat), (TILE, TILE, 1), buf,
                         d_buf, np.uint32(n), np.uint32(k0), np.uint32(k1))
            continue
        rt.launch_nd(rt.kernel("fields.cl", "ldl_panel_packed", defs), (-(-rest // 8), n_mat),
                     (8, 1), buf, d_buf, panel, panel_d, np.uint32(n), np.uint32(k0),
                     np.uint32(k1), np.uint32(stride))
        rt.launch_nd(rt.kernel("fields.cl", "ldl_trailing_outer", defs),
                     (-(-rest // 8), -(-rest // 4), n_mat), (8, 1, 1), buf, panel, panel_d,
                     np.uint32(n), np.uint32(k0), np.uint32(k1), np.uint32(stride))
    rt.read(bad_buf, bad)
    return d_buf, bad


def _factor_whole(rt, n: int) -> bool:
    """Whether ``n x n`` matrices are factored whole, one per work-item (CPUs, small n; the
    environment variable OCLSTAT_LDL_WHOLE=0 turns it off, to compare the schedules)."""
    return (not rt.gpu_schedule and n <= WHOLE_MAX
            and os.environ.get("OCLSTAT_LDL_WHOLE", "1") != "0")


def _ldl_whole(rt, src, buf, d_buf, n, n_mat, defines, mode):
    """Factor and finalize ``n_mat`` small matrices of ``src`` into ``buf``, one per
    work-item, D into ``d_buf``; returns the first pivot that is not positive (or -1, or
    LDL_NOT_FINITE for a matrix that is not finite) per matrix."""
    bad = np.empty(n_mat, dtype=np.int32)
    bad_buf = rt.empty(bad.nbytes)
    kernel = rt.kernel("fields.cl", "ldl_whole", {**defines, "TS": TILE, "WHOLE_MAX": WHOLE_MAX,
                                                  "LDL_GROUP": LDL_GROUP,
                                                  "LDL_NOT_FINITE": LDL_NOT_FINITE})
    rt.launch(kernel, n_mat, src, buf, d_buf, np.uint32(n), np.uint32(n_mat), bad_buf, np.uint32(n),
              np.int32(mode), local_size=rt.spread_local_size(kernel, n_mat))
    return rt.read(bad_buf, bad)


def _raise_if_not_finite(bad, dtype, name="A"):
    """The input check of the factorisations, on factor_host's ``bad`` for the whole batch (so
    the matrix named is the caller's, whatever the chunks or workers)."""
    wrong = np.flatnonzero(bad == LDL_NOT_FINITE)
    if wrong.size:
        raise ValueError(f"{name} must be finite: {name}[{int(wrong[0])}] holds NaN or infinity"
                         f" in {np.dtype(dtype)}")


def _raise_if_not_pd(bad, name="A", hint="", covariance: bool = False):
    """The error of a matrix that is not positive definite: ``name[b]`` (or, with
    ``covariance``, the covariance of ``name[b]``) and the pivot that failed, counted from 1."""
    wrong = np.flatnonzero(bad >= 0)
    if wrong.size:
        b = int(wrong[0])
        what = f"the covariance of {name}[{b}]" if covariance else f"{name}[{b}]"
        raise ValueError(f"{what} is not positive definite: pivot number {int(bad[b]) + 1} "
                         f"(counted from 1) is not positive{hint}"
                         + (f" ({wrong.size} matrices fail)" if wrong.size > 1 else ""))


def _finalize(rt, defines, buf, d_buf, n, n_mat, mode):
    """Zeros above the diagonal; unit diagonal (mode 0) or L sqrt(D) (mode 1)."""
    rt.launch_nd(rt.kernel("fields.cl", "ldl_finalize", {**defines, "TS": TILE}), (n, n, n_mat),
                 (8, 8, 1), buf, d_buf, np.uint32(n), np.uint32(n_mat), np.int32(mode))


def factor_host(rt, host: np.ndarray, mode: int):
    """Factor the batch ``host`` (its dtype is the precision): (L or L sqrt(D), D, first bad
    pivot per matrix or -1, or LDL_NOT_FINITE for a matrix that holds NaN or infinity)."""
    dt = host.dtype
    _, defines = _real(dt, rt)
    n_mat, n = host.shape[0], host.shape[1]
    out = np.empty_like(host)
    d = np.empty((n_mat, n), dtype=dt)
    bad = np.full(n_mat, -1, dtype=np.int32)
    whole = _factor_whole(rt, n)
    for a, b in _matrix_chunks(rt, n_mat, n * n * dt.itemsize, "the factorisation"):
        if whole:   # from `host` into `out` (on a CPU the kernel works in their memory)
            src = rt.to_device(host[a:b], writable=False, share=True)
            with rt.writing_into(out[a:b]) as buf, rt.writing_into(d[a:b]) as d_buf:
                bad[a:b] = _ldl_whole(rt, src, buf, d_buf, n, b - a, defines, mode)
            src.release()       # (ldl_whole checked its matrices for NaN and infinity)
            continue
        out[a:b] = host[a:b]        # factored in place (on a CPU in out's own memory)
        with rt.writing_into(out[a:b], update=True) as buf:
            d_buf, bad[a:b] = _ldl_on_device(rt, buf, n, b - a, dt, defines)
            _finalize(rt, defines, buf, d_buf, n, b - a, mode)
        rt.read(d_buf, d[a:b])
        finite = np.isfinite(host[a:b]).reshape(b - a, -1).all(axis=1)
        bad[a:b][~finite] = LDL_NOT_FINITE
    return out, d, bad


def matern_host(rt, p: np.ndarray, coords: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Matérn covariance matrices (n_params, n, n) of checked coordinates and parameters."""
    n = coords.shape[0]
    out = np.empty((p.shape[0], n, n), dtype=dt)
    for a, b in _matrix_chunks(rt, p.shape[0], n * n * dt.itemsize, "matern_cov"):
        rt.read(_matern_buffer(rt, coords, p[a:b], dt), out[a:b])
    return out


def multiply_host(rt, low: np.ndarray, d: np.ndarray, z: np.ndarray, mode: int) -> np.ndarray:
    """``L w(D) Z`` per matrix in the precision of ``low`` (``mode``: 0 sqrt, 1 identity,
    2 none)."""
    dt = low.dtype
    _, defines = _real(dt, rt)
    b, n_sim, n = z.shape
    out = np.empty((b, n_sim, n), dtype=dt)
    per = max(n * n, n_sim * n) * dt.itemsize
    for a, e in _matrix_chunks(rt, b, per, "multiply_lower_diag"):
        bufs = [rt.to_device(np.ascontiguousarray(x[a:e], dtype=dt), writable=False)
                for x in (low, d, z)]
        o_buf = rt.empty(out[a:e].nbytes)
        _lower_times(rt, defines, *bufs, o_buf, n, n_sim, e - a, mode)
        rt.read(o_buf, out[a:e])
    return out


def simulate_host(rt, p: np.ndarray, z: np.ndarray, coords: np.ndarray):
    """Fields ``L D^½ z`` of every parameter set, all on the device: (fields, first bad pivot
    per parameter set or -1)."""
    dt = z.dtype
    _, defines = _real(dt, rt)
    n, m, n_sim = coords.shape[0], p.shape[0], z.shape[1]
    out = np.empty((m, n_sim, n), dtype=dt)
    bad = np.full(m, -1, dtype=np.int32)
    per = max(n * n, n_sim * n) * dt.itemsize
    for a, b in _matrix_chunks(rt, m, per, "simulate_fields"):
        cov = _matern_buffer(rt, coords, p[a:b], dt, mirror=False)  # LDL reads the lower part
        d_buf, bad[a:b] = _ldl_on_device(rt, cov, n, b - a, dt, defines)
        if (bad[a:b] >= 0).any():
            break
        _finalize(rt, defines, cov, d_buf, n, b - a, 0)
        z_buf = rt.to_device(np.ascontiguousarray(z[a:b]), writable=False)
        o_buf = rt.empty(out[a:b].nbytes)
        _lower_times(rt, defines, cov, d_buf, z_buf, o_buf, n, n_sim, b - a, 0)
        rt.read(o_buf, out[a:b])
    return out, bad


def _lower_times(rt, defines, l_buf, d_buf, z_buf, o_buf, n, n_sim, n_mat, mode):
    kernel = rt.kernel("fields.cl", "lower_times", {**defines, "TS": TILE})
    rt.launch_nd(kernel, (n, n_sim, n_mat), (16 if n >= 16 else n, 1, 1), l_buf, d_buf, z_buf,
                 o_buf, np.uint32(n), np.uint32(n_sim), np.uint32(n_mat), np.int32(mode))
