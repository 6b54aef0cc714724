"""Checks of the special functions' arguments (clear errors before any kernel runs)."""

from __future__ import annotations

import numpy as np

__all__ = ["bessel_args", "probabilities", "sample", "counts", "real_dtype"]


def real_dtype(dtype) -> np.dtype:
    """float32 or float64, else a ValueError naming ``dtype``."""
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    return dt


def bessel_args(nu, x) -> tuple[np.ndarray, np.ndarray]:
    """``nu`` and ``x`` broadcast together (float64); nu finite and >= 0, x > 0."""
    nu_a, x_a = np.broadcast_arrays(np.asarray(nu, dtype=np.float64),
                                    np.asarray(x, dtype=np.float64))
    if not np.isfinite(nu_a).all() or (nu_a < 0).any():
        raise ValueError("nu must be finite and >= 0")
    if np.isnan(x_a).any() or (x_a <= 0).any():
        raise ValueError("x must be > 0 (K_nu is infinite at 0)")
    return nu_a, x_a


def probabilities(p) -> np.ndarray:
    """``p`` as float64 probabilities in [0, 1] (no NaN)."""
    arr = np.asarray(p, dtype=np.float64)
    if np.isnan(arr).any() or (arr < 0).any() or (arr > 1).any():
        raise ValueError("p must be probabilities in [0, 1] (no NaN)")
    return arr


def sample(y) -> np.ndarray:
    """``y`` flattened as float64 with NaN dropped; an empty sample is an error."""
    arr = np.asarray(y, dtype=np.float64).ravel()
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        raise ValueError("y has no non-missing values")
    return arr


def counts(x) -> np.ndarray:
    """``x`` as non-negative integers below 2^32 (whole floats accepted)."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "iub" and not (arr.dtype.kind == "f"
                                             and np.all(np.mod(arr, 1) == 0)):
        raise TypeError(f"x must hold integers, got dtype {arr.dtype}")
    if arr.size and (arr.min() < 0 or arr.max() >= 2**32):
        raise ValueError("x must be >= 0 and below 2^32")
    return arr
