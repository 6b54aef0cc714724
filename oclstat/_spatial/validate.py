"""Checks of a spatial model's inputs: the parameter table, the data (coordinates, responses,
covariates, aligned on their labels), the likelihood's method and Box-Cox powers."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._labels import check_unique, is_default_index

#: The non-linear parameters of a Matérn model, geostatsp's names: ``nugget`` is the ratio of
#: the nugget variance to the field's variance (tau² / sigma², fields' lambda).
MODEL_COLUMNS = ("range", "shape", "nugget", "anisoRatio", "anisoAngleRadians")
#: Values a parameter table may leave out.
MODEL_DEFAULTS = {"nugget": 0.0, "anisoRatio": 1.0, "anisoAngleRadians": 0.0}
METHODS = ("ML", "REML")


def as_model_params(params) -> np.ndarray:
    """``params`` (DataFrame, dict of columns, Series/dict of one set, or array with the five
    columns of :data:`MODEL_COLUMNS`) as an (n_sets, 5) float array, checked."""
    import pandas as pd

    if isinstance(params, pd.Series):
        params = params.to_dict()
    if isinstance(params, (pd.DataFrame, dict)):
        cols = list(params.columns if isinstance(params, pd.DataFrame) else params)
        unknown = [c for c in cols if c not in MODEL_COLUMNS]
        if unknown:
            raise ValueError(f"params has unknown columns {unknown}; the parameters are "
                             f"{list(MODEL_COLUMNS)}")
        missing = [c for c in ("range", "shape") if c not in cols]
        if missing:
            raise ValueError(f"params is missing {missing} (only {sorted(MODEL_DEFAULTS)} "
                             "have defaults)")
        n = len(params) if isinstance(params, pd.DataFrame) else np.size(params["range"])
        p = np.column_stack([
            np.broadcast_to(np.asarray(params[c], dtype=np.float64), (n,)) if c in cols
            else np.full(n, MODEL_DEFAULTS[c]) for c in MODEL_COLUMNS])
    else:
        p = np.asarray(params, dtype=np.float64)
        if p.ndim == 1:
            p = p[None, :]
        if p.ndim != 2 or p.shape[1] != len(MODEL_COLUMNS):
            raise ValueError(f"params must have {len(MODEL_COLUMNS)} columns "
                             f"{list(MODEL_COLUMNS)}, got shape {np.shape(params)}")
    if p.shape[0] == 0:
        raise ValueError("params has no parameter sets")
    if not np.isfinite(p).all():
        raise ValueError("params must be finite (no NaN or inf)")
    for col, name, positive in [(0, "range", True), (1, "shape", True), (2, "nugget", False),
                                (3, "anisoRatio", True)]:
        bad = p[:, col] <= 0 if positive else p[:, col] < 0
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"params[{row}]: {name} must be {'> 0' if positive else '>= 0'}"
                             f", got {float(p[row, col]):g}")
    if (p[:, 1] > 100).any():
        raise ValueError("params: shape above 100 is not supported")
    return np.ascontiguousarray(p)


@dataclass(frozen=True)
class ModelData:
    """Checked data of a model: coordinates (n, 2), responses (n, q), covariates (n, p), their
    names and the observations' labels (None when unlabelled)."""

    coords: np.ndarray
    y: np.ndarray
    X: np.ndarray
    responses: tuple
    covariates: tuple
    labels: tuple | None


def _labels(obj):
    import pandas as pd

    if isinstance(obj, (pd.Series, pd.DataFrame)) and not is_default_index(obj.index):
        return list(obj.index)
    return None


def _reorder(obj, order):
    return obj.loc[order] if order is not None and _labels(obj) is not None else obj


def _columns(values, name: str, n: int) -> np.ndarray:
    """``values`` as an (n, columns) float array (a vector is one column)."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric: {exc}") from None
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[0] != n:
        raise ValueError(f"{name} must have one value (or one row) per point ({n}), got "
                         f"shape {np.shape(values)}")
    return arr


def as_model_data(coords, y, X=None) -> ModelData:
    """The model's data, aligned on the observations' labels where the inputs carry them (a
    DataFrame's or Series' index): labels that differ between inputs or repeat are an
    error naming them; unlabelled inputs are taken by position."""
    import pandas as pd

    named = {"coords": coords, "y": y, "X": X}
    labelled = {k: _labels(v) for k, v in named.items() if v is not None}
    labelled = {k: v for k, v in labelled.items() if v is not None}
    order = None
    if labelled:
        first, order = next(iter(labelled.items()))
        check_unique(order, first)
        for k, lab in labelled.items():
            check_unique(lab, k)
            if set(lab) != set(order):
                diff = sorted(set(lab) ^ set(order), key=str)[:3]
                raise ValueError(f"{k} and {first} label different observations (e.g. "
                                 f"{diff}); give them the same labels")
        unlabelled = [k for k, v in named.items() if v is not None and k not in labelled]
        if unlabelled:
            raise ValueError(f"{first} is labelled but {unlabelled[0]} is not: give both the "
                             "same index, or pass plain arrays")
    c = np.asarray(_reorder(coords, order), dtype=np.float64)
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError(f"coords must be an (n, 2) array, got shape {np.shape(coords)}")
    n = c.shape[0]
    yy = _reorder(y, order)
    if isinstance(yy, pd.DataFrame):
        responses = tuple(str(v) for v in yy.columns)
    elif isinstance(yy, pd.Series) and yy.name is not None:
        responses = (str(yy.name),)
    else:
        responses = None
    yv = _columns(yy, "y", n)
    responses = responses or tuple(f"y{i + 1}" if yv.shape[1] > 1 else "y"
                                   for i in range(yv.shape[1]))
    if X is None:
        xv, covariates = np.ones((n, 1)), ("(Intercept)",)
    else:
        xx = _reorder(X, order)
        if isinstance(xx, pd.DataFrame):
            covariates = tuple(str(v) for v in xx.columns)
        elif isinstance(xx, pd.Series):
            covariates = (str(xx.name) if xx.name is not None else "x1",)
        else:
            covariates = None
        xv = _columns(xx, "X", n)
        covariates = covariates or tuple(f"x{i + 1}" for i in range(xv.shape[1]))
    for name, arr in (("coords", c), ("y", yv), ("X", xv)):
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} must be finite (no NaN or inf)")
    p = xv.shape[1]
    if n <= p + 1:
        raise ValueError(f"{n} points are too few for {p} covariates")
    if np.linalg.matrix_rank(xv) < p:
        raise ValueError("X is rank deficient: its columns are linearly dependent (an "
                         "intercept given twice?)")
    return ModelData(np.ascontiguousarray(c), np.ascontiguousarray(yv),
                     np.ascontiguousarray(xv), responses, covariates,
                     tuple(order) if order is not None else None)


def as_method(method) -> str:
    m = str(method).upper()
    if m not in METHODS:
        raise ValueError(f"method must be 'ML' or 'REML', got {method!r}")
    return m


def as_boxcox(boxcox, y: np.ndarray) -> np.ndarray | None:
    """Box-Cox powers (a 1-D float array) or None; needs one positive response."""
    if boxcox is None:
        return None
    lam = np.atleast_1d(np.asarray(boxcox, dtype=np.float64))
    if lam.ndim != 1 or lam.size == 0 or not np.isfinite(lam).all():
        raise ValueError("boxcox must be a finite number or a list of them")
    if y.shape[1] != 1:
        raise ValueError("boxcox transforms one response; y has "
                         f"{y.shape[1]} columns")
    if (y <= 0).any():
        raise ValueError("boxcox needs y > 0")
    return lam
