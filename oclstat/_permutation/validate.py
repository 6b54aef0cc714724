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


def split_by_groups(data, groups, classes, axis):
    """One matrix (features x samples along ``axis``) and one label per sample as the two
    groups (x: the first class, y: the second) and the class names. A Series of labels
    indexed by sample is matched to a DataFrame's sample labels, never taken by position."""
    import pandas as pd

    frame = isinstance(data, pd.DataFrame)
    arr_ndim = np.ndim(data)
    if arr_ndim not in (1, 2):
        raise ValueError(f"x must be 1-D (one feature) or 2-D (features x samples), got "
                         f"{arr_ndim}-D")
    sample_axis = -1 if arr_ndim == 1 else axis
    if frame:
        samples = data.columns if sample_axis in (-1, 1) else data.index
    n_samples = np.shape(data)[sample_axis]
    if isinstance(groups, pd.Series) and frame and not is_default_index(groups.index) \
            and not is_default_index(samples):
        check_unique(list(groups.index), "groups' sample labels")
        missing = [s for s in samples if s not in groups.index]
        if missing:
            raise ValueError(f"groups has no label for {len(missing)} sample(s) of x (e.g. "
                             f"{missing[:3]})")
        labels = groups.loc[list(samples)].tolist()
    else:
        labels = list(groups.tolist() if hasattr(groups, "tolist") else groups)
        if len(labels) != n_samples:
            raise ValueError(f"groups has {len(labels)} labels but x has {n_samples} samples")
    if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in labels):
        raise ValueError("groups must not contain missing labels")
    seen = list(dict.fromkeys(labels))
    if classes is None:
        if len(seen) != 2:
            raise ValueError(f"groups must hold exactly 2 labels, got {len(seen)}: {seen[:5]}")
        classes = tuple(seen)
    else:
        classes = tuple(classes)
        if len(classes) != 2 or classes[0] == classes[1]:
            raise ValueError(f"classes must name two different groups, got {classes!r}")
        other = [v for v in seen if v not in classes]
        if other:
            raise ValueError(f"groups holds labels {other[:3]} that are not in classes "
                             f"{classes!r}")
    mask = np.array([v == classes[0] for v in labels])
    if mask.all() or not mask.any():
        raise ValueError(f"groups puts every sample in one group ({classes[0]!r} or "
                         f"{classes[1]!r}); both need samples")
    if frame:
        take = (slice(None), mask) if sample_axis in (-1, 1) else (mask, slice(None))
        nt = (slice(None), ~mask) if sample_axis in (-1, 1) else (~mask, slice(None))
        return data.loc[take], data.loc[nt], classes
    arr = np.asarray(data)
    return (np.compress(mask, arr, axis=sample_axis), np.compress(~mask, arr, axis=sample_axis),
            classes)


def group_summary(xs: np.ndarray, ys: np.ndarray) -> dict:
    """Per feature (rows): the groups' means and Cohen's d (mean difference over the pooled
    standard deviation; NaN where that is 0 or undefined).

    >>> s = group_summary(np.array([[1.0, 2.0, 3.0]]), np.array([[0.0, 1.0]]))
    >>> s["mean_x"].tolist(), s["mean_y"].tolist(), round(float(s["effect_size"][0]), 4)
    ([2.0], [0.5], 1.6432)
    """
    x = np.asarray(xs, dtype=np.float64)
    y = np.asarray(ys, dtype=np.float64)
    m, n = x.shape[1], y.shape[1]
    mx, my = x.mean(axis=1), y.mean(axis=1)
    ss = ((x - mx[:, None]) ** 2).sum(axis=1) + ((y - my[:, None]) ** 2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(ss / (m + n - 2)) if m + n > 2 else np.full(len(mx), np.nan)
        d = np.where(sd > 0, (mx - my) / np.where(sd > 0, sd, 1.0), np.nan)
    return {"mean_x": mx, "mean_y": my, "effect_size": d}
