"""Labelled inputs, one rule for every capability: labels are aligned, never trusted by position.

When the inputs of a call carry labels (a pandas DataFrame's index or columns, a Series' index,
a dict's keys) they are matched by label; labels that repeat, or that one input has and the
other lacks, are an error naming them. Positions are used only when neither input is labelled
(plain arrays and lists, or a Series with pandas' default 0..n-1 index).

>>> import pandas as pd
>>> aligned(pd.Series({"s2": 1, "s1": 0}), ["s1", "s2"], "phenotype", "the expression columns")
array([0, 1])
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["labels_of", "check_unique", "aligned", "is_default_index", "as_labelled",
           "oriented", "paired", "loaded_pandas"]


def loaded_pandas():
    """pandas when some module has imported it, else None: nothing is a pandas object before
    then, so a check of an input's type need not import it (a command's start-up).

    >>> import pandas
    >>> loaded_pandas() is pandas
    True
    """
    return sys.modules.get("pandas")


def is_default_index(index) -> bool:
    """pandas' default RangeIndex 0..n-1 (labels nobody chose)."""
    pd = loaded_pandas()
    return (pd is not None and isinstance(index, pd.RangeIndex) and index.start == 0
            and index.step == 1)


def labels_of(obj) -> list | None:
    """The labels of a 1-D input (Series index, dict keys), or None when it has none."""
    pd = loaded_pandas()
    if pd is not None and isinstance(obj, pd.Series):
        return None if is_default_index(obj.index) else list(obj.index)
    if isinstance(obj, dict):
        return list(obj)
    return None


def check_unique(labels, what: str) -> None:
    """Raise ``ValueError`` naming the first label of ``labels`` that repeats."""
    seen = set()
    for x in labels:
        if x in seen:
            raise ValueError(f"{what}: label {x!r} appears more than once; labels must be unique")
        seen.add(x)


def aligned(values, labels, name: str, target: str) -> np.ndarray:
    """``values`` (a Series or dict keyed by label, an xarray DataArray by its coordinate, or an
    unlabelled sequence) in the order of ``labels`` (the labels of ``target``, or None when the
    target is unlabelled)."""
    values = as_labelled(values, name)
    own = labels_of(values)
    if own is None:
        arr = np.asarray(list(values.values()) if isinstance(values, dict) else values)
        return arr
    if labels is None:
        raise ValueError(f"{name} is labelled (e.g. {own[:3]}) but {target} are not: give "
                         f"{target} the same labels, or pass {name} as a plain array")
    check_unique(own, name)
    check_unique(labels, target)
    want, have = set(labels), set(own)
    missing = [x for x in labels if x not in have]
    extra = [x for x in own if x not in want]
    if missing or extra:
        raise ValueError(f"{name} and {target} disagree: {len(missing)} labels of {target} "
                         f"missing from {name} (e.g. {missing[:3]}), {len(extra)} labels of "
                         f"{name} not in {target} (e.g. {extra[:3]})")
    lookup = dict(zip(own, list(values.values()) if isinstance(values, dict)
                      else values.to_numpy(), strict=True))
    return np.asarray([lookup[x] for x in labels])


def _is_xarray(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "xarray"


def _coordinate(array, dim):
    """The labels of ``dim`` of a DataArray (its index coordinate), None without one."""
    index = array.indexes.get(dim)
    return None if index is None else list(index)


def as_labelled(obj, name: str):
    """``obj`` with an xarray DataArray replaced by the pandas object of its coordinates (1-D:
    a Series, 2-D: a DataFrame; a dimension without a coordinate stays unlabelled), and a
    table read from a file (:class:`oclstat.io.Table`) by its DataFrame. A
    Dataset, or a DataArray of more than two dimensions, is refused; anything else is
    returned unchanged.

    >>> import xarray as xr
    >>> as_labelled(xr.DataArray([1, 2], coords={"s": ["b", "a"]}), "y").index.tolist()
    ['b', 'a']
    """
    if type(obj).__name__ == "Table" and hasattr(obj, "to_frame") and hasattr(obj, "row_names"):
        return obj.to_frame()           # a table read from a file (oclstat.io.read_table)
    if not _is_xarray(obj):
        return obj
    import pandas as pd

    if not hasattr(obj, "dims") or not hasattr(obj, "values") or type(obj).__name__ != \
            "DataArray":
        raise TypeError(f"{name} is an xarray {type(obj).__name__}; pass one DataArray "
                        "(ds['variable'])")
    if obj.ndim == 1:
        index = _coordinate(obj, obj.dims[0])
        return pd.Series(obj.values, index=index)
    if obj.ndim == 2:
        return pd.DataFrame(obj.values, index=_coordinate(obj, obj.dims[0]),
                            columns=_coordinate(obj, obj.dims[1]))
    raise ValueError(f"{name} is an xarray DataArray of {obj.ndim} dimensions {obj.dims}; "
                     "pass 1 or 2 (select or stack the others first)")


def oriented(matrix, vector, matrix_name: str, vector_name: str):
    """``matrix`` (a 2-D DataArray) transposed, where needed, so that its last dimension is
    the dimension of ``vector`` (a 1-D DataArray along one of its dimensions): xarray objects
    are aligned by their dimension names, not by the order of their axes. Others are
    returned unchanged; a vector along neither dimension is refused."""
    if not (_is_xarray(matrix) and _is_xarray(vector)) or getattr(matrix, "ndim", 0) != 2 \
            or getattr(vector, "ndim", 0) != 1:
        return matrix
    dim = vector.dims[0]
    if dim not in matrix.dims:
        raise ValueError(f"{vector_name} runs along {dim!r}, which is not a dimension of "
                         f"{matrix_name} {matrix.dims}")
    return matrix if matrix.dims[1] == dim else matrix.transpose(matrix.dims[1], dim)


def paired(x, y, x_name: str, y_name: str):
    """``(x, y)`` two 2-D DataArrays with their shared dimensions in the same places: both
    dimensions shared, ``y`` takes ``x``'s order; one shared (the features), it comes first in
    both. DataArrays that share no dimension are refused; other inputs are returned as
    they are."""
    if not (_is_xarray(x) and _is_xarray(y)) or getattr(x, "ndim", 0) != 2 or \
            getattr(y, "ndim", 0) != 2:
        return x, y
    shared = [d for d in x.dims if d in y.dims]
    if not shared:
        raise ValueError(f"{x_name} has dimensions {x.dims} and {y_name} {y.dims}: they share "
                         "none, so they cannot be aligned; name the features' dimension alike")
    if len(shared) == 2:
        return x, y.transpose(*x.dims)
    d = shared[0]
    return (x.transpose(d, *[e for e in x.dims if e != d]),
            y.transpose(d, *[e for e in y.dims if e != d]))
