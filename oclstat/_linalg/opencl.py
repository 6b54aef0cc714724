"""Batched triangular solves and strided products on an OpenCL device (cl_kernels/linalg.cl).

The device functions take buffers and strides, so the spatial models run them on blocks of
matrices that stay on the device; the ``*_host`` functions take numpy stacks (chunked to fit
the device) for the public functions."""

from __future__ import annotations

import numpy as np

from .._fields.plan import _matrix_chunks, _real


def solve_on_device(rt, t_buf, t_view, x_buf, n, k, n_mat, dt, *, lower, unit):
    """Overwrite the (n_mat, n, k) right-hand sides in ``x_buf`` with T⁻¹B; ``t_view`` = (offset,
    batch, row, column strides) of T in elements."""
    _, defines = _real(dt, rt)
    kernel = rt.kernel("linalg.cl", "solve_triangular", defines)
    lanes = 16 if k >= 16 else 1
    rt.launch_nd(kernel, (-(-k // lanes) * lanes, n_mat), (lanes, 1), t_buf,
                 *(np.uint64(v) for v in t_view), x_buf, np.uint32(n), np.uint32(k),
                 np.uint32(n_mat), np.int32(lower), np.int32(unit))


def product_on_device(rt, a_buf, a_view, w_buf, w_view, b_buf, b_view, out_buf, m, k, inner,
                      n_mat, dt, alpha=1.0, beta=0.0):
    """``out = alpha * A w B + beta * out`` per matrix, (n_mat, m, k); views are (offset,
    batch, row, column strides) in elements, A (m x inner), B (inner x k); ``w_view`` =
    (offset, batch stride) of the weights, or None for no weights."""
    _, defines = _real(dt, rt)
    kernel = rt.kernel("linalg.cl", "product", defines)
    w_off, w_bs = (0, -1) if w_view is None else w_view
    real = dt.type
    lanes = 16 if k >= 16 else 1
    rt.launch_nd(kernel, (-(-k // lanes) * lanes, m, n_mat), (lanes, 1, 1),
                 a_buf, *(np.uint64(v) for v in a_view),
                 w_buf if w_buf is not None else a_buf, np.uint64(w_off), np.int64(w_bs),
                 b_buf, *(np.uint64(v) for v in b_view), out_buf, np.uint32(m), np.uint32(k),
                 np.uint32(inner), np.uint32(n_mat), real(alpha), real(beta))


def _shared_or_chunk(x, a, e):
    return x[:1] if x.shape[0] == 1 else x[a:e]


def _chunk_buffer(rt, x, a, e):
    """A read-only device copy of matrices a..e of ``x`` (all of it when shared)."""
    return rt.to_device(np.ascontiguousarray(_shared_or_chunk(x, a, e)), writable=False)


def solve_host(rt, t: np.ndarray, b: np.ndarray, lower: bool, trans: bool, unit: bool):
    """T⁻¹B (T = t or tᵀ) for stacks ``t`` (batch or 1, n, n) and ``b`` (batch, n, k)."""
    dt = b.dtype
    n_mat, n, k = b.shape
    out = np.empty_like(b)
    rs, cs = (1, n) if trans else (n, 1)
    shared = t.shape[0] == 1
    per = (n * k + (0 if shared else n * n)) * dt.itemsize
    for a, e in _matrix_chunks(rt, n_mat, per, "solve_triangular_batch"):
        t_buf = rt.to_device(np.ascontiguousarray(_shared_or_chunk(t, a, e)), writable=False)
        x_buf = rt.to_device(np.ascontiguousarray(b[a:e]))
        solve_on_device(rt, t_buf, (0, 0 if shared else n * n, rs, cs), x_buf, n, k, e - a,
                        dt, lower=lower != trans, unit=unit)
        rt.read(x_buf, out[a:e])
    return out


def product_host(rt, a: np.ndarray, w: np.ndarray | None, b: np.ndarray, c: np.ndarray | None,
                 trans_a: bool, trans_b: bool, alpha: float, beta: float) -> np.ndarray:
    """op(A) diag(w) op(B) alpha + beta C per matrix; stacks of batch size n_mat or 1."""
    dt = a.dtype
    n_mat = max(a.shape[0], b.shape[0], 1 if w is None else w.shape[0],
                1 if c is None else c.shape[0])
    m = a.shape[2] if trans_a else a.shape[1]
    inner = a.shape[1] if trans_a else a.shape[2]
    k = b.shape[1] if trans_b else b.shape[2]
    out = np.zeros((n_mat, m, k), dtype=dt) if c is None else np.array(
        np.broadcast_to(c, (n_mat, m, k)), dtype=dt)
    a_rs, a_cs = (1, a.shape[2]) if trans_a else (a.shape[2], 1)
    b_rs, b_cs = (1, b.shape[2]) if trans_b else (b.shape[2], 1)
    per = (a[0].size + b[0].size + m * k + inner) * dt.itemsize
    for s, e in _matrix_chunks(rt, n_mat, per, "the batched product"):
        a_buf, b_buf = _chunk_buffer(rt, a, s, e), _chunk_buffer(rt, b, s, e)
        w_buf = None if w is None else _chunk_buffer(rt, w, s, e)
        out_buf = rt.to_device(np.ascontiguousarray(out[s:e]))
        product_on_device(rt, a_buf, (0, 0 if a.shape[0] == 1 else a[0].size, a_rs, a_cs),
                          w_buf, None if w is None else (0, 0 if w.shape[0] == 1 else inner),
                          b_buf, (0, 0 if b.shape[0] == 1 else b[0].size, b_rs, b_cs),
                          out_buf, m, k, inner, e - s, dt, alpha, beta)
        rt.read(out_buf, out[s:e])
    return out
