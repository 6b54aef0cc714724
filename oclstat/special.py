"""Special functions on the device, element-wise with numpy broadcasting.

:func:`kv` is the modified Bessel function of the second kind K_nu(x) for real order nu >= 0
and x > 0 (Temme's method, cl_kernels/include/oclstat/bessel_k.clh, the function the Matérn
covariance uses); :func:`log_kv` its logarithm, finite where K_nu(x) itself overflows (small x,
large nu) or underflows (large x).

>>> import numpy as np
>>> float(np.round(kv(0.5, 1.0), 12))          # K_1/2(x) = sqrt(pi / 2x) e^-x
0.461068504448
>>> float(np.round(log_kv(20.0, 1e-8), 6))     # K_20(1e-8) is about 1e183
420.923295
"""

from __future__ import annotations

import numpy as np

from ._runtime import get_runtime

__all__ = ["kv", "log_kv"]


def _evaluate(nu, x, dtype, device, logarithm: bool) -> np.ndarray:
    dt = np.dtype(dtype)
    nu_a, x_a = np.broadcast_arrays(np.asarray(nu, dtype=np.float64),
                                    np.asarray(x, dtype=np.float64))
    if not np.isfinite(nu_a).all() or (nu_a < 0).any():
        raise ValueError("nu must be finite and >= 0")
    if np.isnan(x_a).any() or (x_a <= 0).any():
        raise ValueError("x must be > 0 (K_nu is infinite at 0)")
    shape = nu_a.shape
    rt = get_runtime(device)
    kernel = rt.kernel("special.cl", "bessel_kv", rt.real_defines(dt))
    out = np.empty(nu_a.size, dtype=dt)
    if out.size:
        nu_b = rt.to_device(np.ascontiguousarray(nu_a.ravel(), dtype=dt), writable=False)
        x_b = rt.to_device(np.ascontiguousarray(x_a.ravel(), dtype=dt), writable=False)
        with rt.writing_into(out) as buf:
            rt.launch(kernel, out.size, nu_b, x_b, buf, np.uint64(out.size),
                      np.int32(logarithm))
    return out.reshape(shape) if shape else out[0]


def kv(nu, x, *, dtype=np.float64, device=None):
    """K_nu(x) on the device (inf where it exceeds ``dtype``'s range, 0 where it underflows)."""
    return _evaluate(nu, x, dtype, device, False)


def log_kv(nu, x, *, dtype=np.float64, device=None):
    """log K_nu(x) on the device."""
    return _evaluate(nu, x, dtype, device, True)
