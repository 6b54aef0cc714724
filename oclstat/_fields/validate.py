"""Checks of the fields' inputs: Matérn parameter tables, coordinates, batches of matrices."""

from __future__ import annotations

import numpy as np

PARAM_COLUMNS = ("range", "shape", "variance", "nugget", "anisoRatio", "anisoAngleRadians")


def _as_params(params) -> np.ndarray:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(params, pd.DataFrame):
        missing = [c for c in PARAM_COLUMNS if c not in params.columns]
        if missing:
            raise ValueError(f"params is missing columns {missing}; needs {list(PARAM_COLUMNS)}")
        params = params[list(PARAM_COLUMNS)].to_numpy(dtype=np.float64)
    elif isinstance(params, dict):
        missing = [c for c in PARAM_COLUMNS if c not in params]
        if missing:
            raise ValueError(f"params is missing keys {missing}; needs {list(PARAM_COLUMNS)}")
        params = np.column_stack([np.atleast_1d(np.asarray(params[c], dtype=np.float64))
                                  for c in PARAM_COLUMNS])
    p = np.asarray(params, dtype=np.float64)
    if p.ndim == 1:
        p = p[None, :]
    if p.ndim != 2 or p.shape[1] != len(PARAM_COLUMNS):
        raise ValueError(f"params must have {len(PARAM_COLUMNS)} columns {list(PARAM_COLUMNS)}, "
                         f"got shape {np.shape(params)}")
    if not np.isfinite(p).all():
        raise ValueError("params must be finite")
    checks = [(0, "range", "> 0"), (1, "shape", "> 0"), (2, "variance", ">= 0"),
              (3, "nugget", ">= 0"), (4, "anisoRatio", "> 0")]
    for col, name, rule in checks:
        bad = p[:, col] <= 0 if rule == "> 0" else p[:, col] < 0
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"params[{row}]: {name} must be {rule}, got {float(p[row, col]):g}")
    if (p[:, 1] > 100).any():
        raise ValueError("params: shape (nu) above 100 is not supported")
    return p


def _as_coords(coords) -> np.ndarray:
    c = np.asarray(coords, dtype=np.float64)
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError(f"coords must be an (n_points, 2) array, got shape {c.shape}")
    if c.shape[0] < 1:
        raise ValueError("coords needs at least one point")
    if not np.isfinite(c).all():
        raise ValueError("coords must be finite (no NaN or inf)")
    return np.ascontiguousarray(c)


def _as_batch(a, name="A", finite=True) -> np.ndarray:
    """A (batch, n, n) numeric array; ``finite=False`` leaves the check of its values to the
    caller (the factorisations check them on the way, see _fields/opencl.py)."""
    arr = np.asarray(a)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim != 3 or arr.shape[1] != arr.shape[2] or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a (batch, n, n) stack of square matrices, "
                         f"got shape {np.shape(a)}")
    if finite and not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite")
    return arr
