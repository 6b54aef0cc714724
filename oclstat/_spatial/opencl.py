"""A Matérn model's likelihood pieces and kriging on an OpenCL device (cl_kernels/spatial.cl,
the fields' LDLᵀ and the batched products and solves of :mod:`oclstat._linalg`).

Per chunk of parameter sets: the bordered matrices [[V, .], [Bᵀ, 0]] are built on the device,
factored in place (LDLᵀ, only the first n pivots must be positive), and M = L₂₁ D L₂₁ᵀ = BᵀV⁻¹B
is one strided product of the factor's last rows; log det V and M (k x k) come back, nothing
n x n."""

from __future__ import annotations

import numpy as np

from .._fields.opencl import _finalize, _ldl_on_device, matern_tables
from .._fields.plan import ROW_LANES, _real
from .._linalg.opencl import product_on_device, solve_on_device
from .plan import bordered_chunks, field_params


def loglik_pieces(rt, p: np.ndarray, coords: np.ndarray, border: np.ndarray):
    """(log det V (m,), M = BᵀV⁻¹B (m, k, k), first bad pivot per set or -1) for model
    parameter rows ``p`` (m, 5), points ``coords`` (n, 2) and ``border`` = B (n, k)."""
    dt = np.dtype(np.float64)
    _, defines = _real(dt, rt)
    n, k = border.shape
    size = n + k
    m = p.shape[0]
    logdet = np.empty(m)
    cross = np.empty((m, k, k))
    bad = np.full(m, -1, dtype=np.int32)
    c_buf = rt.to_device(np.ascontiguousarray(coords, dtype=dt), writable=False)
    b_buf = rt.to_device(np.ascontiguousarray(border, dtype=dt), writable=False)
    for a, e in bordered_chunks(rt, m, n, k):
        sets = e - a
        k_buf, t_buf, m_defines = matern_tables(rt, field_params(p[a:e]), dt)
        kernel = rt.kernel("spatial.cl", "bordered", m_defines)
        buf = rt.empty(sets * size * size * dt.itemsize)
        rt.launch_nd(kernel, (ROW_LANES, size, sets), (ROW_LANES, 1, 1), c_buf, k_buf, t_buf,
                     b_buf, np.uint32(n), np.uint32(k), np.uint32(sets), buf)
        d_buf, bad[a:e] = _ldl_on_device(rt, buf, size, sets, dt, defines, n_check=n)
        out_buf = rt.empty(sets * k * k * dt.itemsize)
        first = n * size                               # row n, column 0: L21 (k x n)
        product_on_device(rt, buf, (first, size * size, size, 1), d_buf, (0, size),
                          buf, (first, size * size, 1, size), out_buf, k, k, n, sets, dt)
        d = np.empty((sets, size))
        rt.read(d_buf, d)
        rt.read(out_buf, cross[a:e])
        with np.errstate(invalid="ignore", divide="ignore"):
            logdet[a:e] = np.log(d[:, :n]).sum(axis=1)
    return logdet, cross, bad


def whitened(rt, p: np.ndarray, coords: np.ndarray, rhs: np.ndarray, new_coords=None,
             chunk: int = 4096):
    """For one parameter row, with V = L D Lᵀ factored once on the device: D^-½ L⁻¹ applied to
    ``rhs`` (n, k), and a generator of ``(start, stop, D^-½ L⁻¹ ρ)`` for the correlations ρ
    (n, stop - start) between the data and ``new_coords[start:stop]``, ``chunk`` new points at a
    time (None without ``new_coords``); the first bad pivot (or -1) last."""
    dt = np.dtype(np.float64)
    _, defines = _real(dt, rt)
    n = coords.shape[0]
    c_buf = rt.to_device(np.ascontiguousarray(coords, dtype=dt), writable=False)
    k_buf, t_buf, m_defines = matern_tables(rt, field_params(p[None]), dt)
    kernel = rt.kernel("spatial.cl", "bordered", m_defines)
    buf = rt.empty(n * n * dt.itemsize)
    empty = rt.to_device(np.zeros(1), writable=False)
    rt.launch_nd(kernel, (ROW_LANES, n, 1), (ROW_LANES, 1, 1), c_buf, k_buf, t_buf, empty,
                 np.uint32(n), np.uint32(0), np.uint32(1), buf)
    d_buf, bad = _ldl_on_device(rt, buf, n, 1, dt, defines)
    if bad[0] >= 0:
        return None, None, int(bad[0])
    _finalize(rt, defines, buf, d_buf, n, 1, 0)
    d = np.empty(n)
    rt.read(d_buf, d)
    scale = 1.0 / np.sqrt(d)

    def solve(x_buf, k):
        solve_on_device(rt, buf, (0, 0, n, 1), x_buf, n, k, 1, dt, lower=True, unit=True)
        out = np.empty((n, k))
        rt.read(x_buf, out)
        return out * scale[:, None]

    w_rhs = solve(rt.to_device(np.ascontiguousarray(rhs, dtype=dt)), rhs.shape[1])

    def crosses():
        cross_kernel = rt.kernel("spatial.cl", "cross", m_defines)
        for a in range(0, new_coords.shape[0], chunk):
            e = min(new_coords.shape[0], a + chunk)
            x_buf = rt.empty(n * (e - a) * dt.itemsize)
            nc_buf = rt.to_device(np.ascontiguousarray(new_coords[a:e], dtype=dt),
                                  writable=False)
            rt.launch_nd(cross_kernel, (-(-(e - a) // 16) * 16, n), (16, 1), nc_buf, c_buf,
                         k_buf, t_buf, np.uint32(e - a), np.uint32(n), x_buf)
            yield a, e, solve(x_buf, e - a)

    return w_rhs, (crosses() if new_coords is not None else None), -1
