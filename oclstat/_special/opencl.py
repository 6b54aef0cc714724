"""The special functions' kernels (cl_kernels/special.cl): one launch per call, results in
the requested precision."""

from __future__ import annotations

import numpy as np

from .._runtime import get_runtime

__all__ = ["bessel", "normal_quantiles", "ppoint_quantiles", "logfact_partial_sums"]


def bessel(nu: np.ndarray, x: np.ndarray, dt: np.dtype, device, logarithm: bool) -> np.ndarray:
    """K_nu(x) (or its logarithm) of two broadcast arrays, flattened."""
    rt = get_runtime(device)
    kernel = rt.kernel("special.cl", "bessel_kv", rt.real_defines(dt))
    out = np.empty(nu.size, dtype=dt)
    if out.size:
        nu_b = rt.to_device(np.ascontiguousarray(nu.ravel(), dtype=dt), writable=False)
        x_b = rt.to_device(np.ascontiguousarray(x.ravel(), dtype=dt), writable=False)
        with rt.writing_into(out) as buf:
            rt.launch(kernel, out.size, nu_b, x_b, buf, np.uint64(out.size),
                      np.int32(logarithm))
    return out


def normal_quantiles(p: np.ndarray, dt: np.dtype, device, lower_tail: bool) -> np.ndarray:
    """qnorm of ``p`` (flattened)."""
    rt = get_runtime(device)
    out = np.empty(p.size, dtype=dt)
    if out.size:
        kernel = rt.kernel("special.cl", "qnorm", rt.real_defines(dt))
        p_b = rt.to_device(np.ascontiguousarray(p.ravel(), dtype=dt), writable=False)
        with rt.writing_into(out) as buf:
            rt.launch(kernel, out.size, p_b, buf, np.uint64(out.size), np.int32(lower_tail))
    return out


def ppoint_quantiles(n: int, dt: np.dtype, device) -> np.ndarray:
    """qnorm(ppoints(n)) in increasing order."""
    rt = get_runtime(device)
    out = np.empty(n, dtype=dt)
    kernel = rt.kernel("special.cl", "qnorm_ppoints", rt.real_defines(dt))
    with rt.writing_into(out) as buf:
        rt.launch(kernel, n, buf, np.uint64(n))
    return out


def logfact_partial_sums(arr: np.ndarray, dt: np.dtype, device) -> np.ndarray:
    """Per-work-group sums of lgamma(x + 1) (the host adds them in order)."""
    rt = get_runtime(device)
    ls = 64
    groups = int(min(1024, -(-arr.size // ls)))
    kernel = rt.kernel("special.cl", "logfact_sum", rt.real_defines(dt))
    x_b = rt.to_device(np.ascontiguousarray(arr.ravel(), dtype=np.uint32), writable=False)
    partial = np.empty(groups, dtype=dt)
    p_b = rt.empty(partial.nbytes)
    rt.launch_nd(kernel, (groups * ls,), (ls,), x_b, np.uint64(arr.size), p_b,
                 rt.local_memory(ls * dt.itemsize))
    rt.read(p_b, partial)
    return partial
