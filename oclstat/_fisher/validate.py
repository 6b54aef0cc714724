"""Checks of the Fisher test's inputs: tables of counts and margins, with errors naming
the argument."""

from __future__ import annotations

import numpy as np

from .plan import MAX_TOTAL

# ----------------------------------------------------------------------------- input checks


def _as_counts(table, name: str) -> np.ndarray:
    """A 2-D int64 array of non-negative integer counts, or a ValueError/TypeError naming
    ``name``."""
    try:
        arr = np.asarray(table)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a 2-D table of counts ({exc})") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers, got objects") from None
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows x columns), got {arr.ndim}-D with shape {arr.shape}"
        )
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} holds NaN or infinite values; counts must be finite")
        if (arr != np.round(arr)).any():
            raise ValueError(f"{name} holds non-integer values; counts must be whole numbers")
    if (arr < 0).any():
        raise ValueError(f"{name} holds negative values; counts must be >= 0")
    if arr.size and arr.max() > MAX_TOTAL:
        raise ValueError(f"{name} holds a count above {MAX_TOTAL}")
    counts = arr.astype(np.int64)
    total = int(counts.sum())
    if total > MAX_TOTAL:
        raise ValueError(f"{name} totals {total}; tables up to {MAX_TOTAL} are supported")
    return counts


def _drop_empty(x: np.ndarray, name: str) -> np.ndarray:
    """R's rule: drop all-zero rows and columns; at least 2 x 2 must remain."""
    x = x[x.sum(axis=1) > 0][:, x.sum(axis=0) > 0]
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(
            f"{name} must have at least 2 rows and 2 columns with non-zero totals, got "
            f"{x.shape[0]} x {x.shape[1]} after dropping empty rows and columns"
        )
    return x


def _as_margin(values, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of counts, got {arr.shape}")
    return _as_counts(arr[None, :], name)[0]
