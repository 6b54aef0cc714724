"""Checks of the permutation test's inputs: samples, labelled features, window scores."""

from __future__ import annotations

import numpy as np

from .._labels import check_unique, is_default_index

# ----------------------------------------------------------------------------- input


def _aligned_features(x, y, axis):
    """x and y as arrays with their features in the same order: DataFrames that name their
    features are paired by name (names that repeat or differ are an error); unlabelled
    inputs by position. Returns (x, y, feature names or None)."""
    import pandas as pd

    def features_of(a):
        if not isinstance(a, pd.DataFrame):
            return None
        index = a.index if axis in (-1, 1) else a.columns
        return None if is_default_index(index) else list(index)

    fx, fy = features_of(x), features_of(y)
    if fx is None or fy is None:        # one group unlabelled: paired by position
        named = fx if fx is not None else fy
        if named is not None:
            check_unique(named, "the features")
        return (x.to_numpy() if isinstance(x, pd.DataFrame) else x,
                y.to_numpy() if isinstance(y, pd.DataFrame) else y, named)
    check_unique(fx, "x's features")
    check_unique(fy, "y's features")
    only_x = [f for f in fx if f not in set(fy)]
    only_y = [f for f in fy if f not in set(fx)]
    if only_x or only_y:
        raise ValueError(f"x and y name different features: {len(only_x)} only in x (e.g. "
                         f"{only_x[:3]}), {len(only_y)} only in y (e.g. {only_y[:3]})")
    if axis in (-1, 1):
        y = y.loc[fx]
    else:
        y = y.loc[:, fx]
    return x.to_numpy(), y.to_numpy(), fx


def _as_samples(a, name: str, axis: int) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (one feature) or 2-D (features x samples), got "
                         f"{arr.ndim}-D")
    if arr.ndim == 2:
        if axis not in (-1, 0, 1, -2):
            raise ValueError(f"axis must be 0 or 1 (or -1, -2) for 2-D input, got {axis}")
        arr = np.moveaxis(arr, axis, -1)
    else:
        arr = arr[None, :]
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} is an empty group: every feature needs at least one sample")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} holds NaN or infinite values (feature {bad[0]}, sample "
                         f"{bad[1]}); remove or impute them first")
    return arr


def window_scores(pooled: np.ndarray, n_windows: int) -> np.ndarray:
    """Window index of every value: ``min(W - 1, floor(W (v - min) / (max - min)))`` with the
    minimum and maximum of each row (a constant row scores 0).

    >>> window_scores(np.array([[0.0, 0.5, 0.99, 1.0]]), 4).tolist()
    [[0, 2, 3, 3]]
    """
    v = np.asarray(pooled, dtype=np.float64)
    lo = v.min(axis=-1, keepdims=True)
    span = v.max(axis=-1, keepdims=True) - lo
    safe = np.where(span > 0, span, 1.0)
    scores = np.floor(n_windows * ((v - lo) / safe))
    return np.clip(scores, 0, n_windows - 1).astype(np.int64)


# ----------------------------------------------------------------------------- device
