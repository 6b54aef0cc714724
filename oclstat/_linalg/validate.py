"""Checks of the batched linear algebra's inputs: stacks of matrices, right-hand sides that
match them, the transpose flag."""

from __future__ import annotations

import numpy as np


def as_stack(x, name: str, *, vector_ok: bool = False) -> tuple[np.ndarray, int]:
    """``x`` as a (batch, rows, cols) float array and the number of dimensions it came with
    (a 2-D array is one matrix; a 1-D one, where ``vector_ok``, one column)."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    ndim = arr.ndim
    if ndim == 1 and vector_ok:
        arr = arr[None, :, None]
    elif ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or 0 in arr.shape:
        raise ValueError(f"{name} must be a non-empty (batch, rows, cols) stack of matrices"
                         + (", a matrix or a vector" if vector_ok else " or a matrix")
                         + f", got shape {np.shape(x)}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr, ndim


def common_batch(sizes: dict[str, int]) -> int:
    """The batch size of several stacks, each either that size or 1 (shared by the batch)."""
    big = {s for s in sizes.values() if s != 1}
    if len(big) > 1:
        raise ValueError("batch sizes differ: " + ", ".join(f"{k} has {v}"
                                                            for k, v in sizes.items())
                         + " (each must be the same or 1)")
    return big.pop() if big else 1


def as_trans(trans) -> bool:
    """scipy.linalg.solve_triangular's ``trans``: 0/'N' (no), 1/'T' or 2/'C' (transposed)."""
    if trans in (0, "N", "n", False):
        return False
    if trans in (1, 2, "T", "t", "C", "c", True):
        return True
    raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")


def result_dtype(dtype, *arrays) -> np.dtype:
    """float32 when asked or when every input is float32; else float64."""
    if dtype is not None:
        dt = np.dtype(dtype)
        if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"dtype must be float32 or float64, got {dt}")
        return dt
    if all(a.dtype == np.float32 for a in arrays):
        return np.dtype(np.float32)
    return np.dtype(np.float64)
