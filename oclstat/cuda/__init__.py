"""Optional CUDA plugin (CuPy): the epistasis search on NVIDIA binary tensor cores.

Imported only on request (``backend="cuda"`` or ``"auto"`` in :func:`oclstat.epistasis`); it
needs CuPy (``pip install oclstat[cuda]``) and a GPU of compute capability 8.0 or newer. The
kernels are compiled by NVRTC at first use and checked against a host product before the first
search (:func:`oclstat.cuda.epistasis_tc.self_check`).

>>> from oclstat import cuda
>>> ok, why = cuda.available()
>>> isinstance(ok, bool) and isinstance(why, str)
True
"""

from __future__ import annotations

MIN_CAPABILITY = 80


def available() -> tuple[bool, str]:
    """Whether the tensor-core path can run here, and if not, why (one line)."""
    try:
        import cupy
    except Exception as exc:  # noqa: BLE001 - any import failure means "not available"
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        return False, f"no CUDA device ({type(exc).__name__}: {exc})"
    if n == 0:
        return False, "no CUDA device"
    cc = int(cupy.cuda.Device().compute_capability)
    if cc < MIN_CAPABILITY:
        return False, (f"the current CUDA device has compute capability {cc / 10:.1f}; binary "
                       f"tensor cores with AND+POPC need 8.0 or newer")
    return True, f"CUDA device {cupy.cuda.Device().id} (sm_{cc})"
