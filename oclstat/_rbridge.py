"""The Python end of the R package (rbridge/): numeric arrays cross in memory, with their names.

Debian's reticulate (1.28) cannot convert numpy >= 2 arrays (it was built against numpy's 1.x
binary interface), so numeric arrays do not go through reticulate's numpy conversion. Instead
the R package hands over the address of an R vector's data (its C helper ``oclstat_address``):
:func:`from_r` copies an R argument into a numpy array (one memory copy, R's column-major
order kept: an R ``dim = c(a, b, c)`` array is the numpy array of shape (a, b, c) with the same
elements at the same indices), and :func:`fill` copies a result into an R vector that R has
allocated. R's names travel with the data: an array with dimnames becomes a pandas DataFrame
(rows and columns labelled), a vector with names a pandas Series, and the Python side aligns
them by label as it does for pandas. Strings and scalars go through reticulate as plain
lists.

>>> import numpy as np, ctypes
>>> buf = (ctypes.c_double * 6)(*range(6))             # R's column-major memory
>>> from_r(ctypes.addressof(buf), [2, 3], "double").tolist()
[[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
"""

from __future__ import annotations

import ctypes
import itertools
import warnings

import numpy as np

_KINDS = {"double": (np.float64, ctypes.c_double), "integer": (np.int32, ctypes.c_int32),
          "logical": (np.int32, ctypes.c_int32)}
#: Result arrays waiting for R to allocate their vectors (id -> array).
_PENDING: dict[int, np.ndarray] = {}
_IDS = itertools.count(1)


def _view(address, n: int, kind: str) -> np.ndarray:
    """The ``n`` values of kind ``kind`` at ``address`` (R's memory) as a numpy view."""
    dtype, ctype = _KINDS[kind]
    if n == 0:
        return np.empty(0, dtype=dtype)
    return np.ctypeslib.as_array((ctype * n).from_address(int(address)))


def from_r(address, shape, kind: str, rownames=None, colnames=None, names=None):
    """A copy of R's array at ``address`` (``shape`` in R's order, ``kind`` "double",
    "integer" or "logical"), as a numpy array, or as a pandas object carrying R's names
    (a matrix with row or column names: a DataFrame; a named vector: a Series)."""
    shape = [int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
    n = int(np.prod(shape)) if shape else 1
    flat = _view(address, n, kind)
    arr = np.array(flat.reshape(shape, order="F"), order="C", copy=True)
    if kind == "logical":
        arr = arr.astype(bool)
    if len(shape) == 2 and (rownames is not None or colnames is not None):
        import pandas as pd

        return pd.DataFrame(arr, index=_names(rownames), columns=_names(colnames))
    if len(shape) == 1 and names is not None:
        import pandas as pd

        return pd.Series(arr, index=_names(names))
    return arr


def sparse_from_r(x_address, i_address, p_address, nnz, nrow, ncol, rownames=None,
                  colnames=None):
    """A copy of R's ``dgCMatrix`` (its slots ``x``, ``i`` and ``p`` at the addresses given:
    values, 0-based row indices, column starts) as a scipy CSC matrix with its names; the
    values are copied once, nothing is made dense.

    >>> import ctypes
    >>> x = (ctypes.c_double * 2)(5.0, 7.0)
    >>> i, p = (ctypes.c_int32 * 2)(1, 0), (ctypes.c_int32 * 3)(0, 1, 2)
    >>> s = sparse_from_r(ctypes.addressof(x), ctypes.addressof(i), ctypes.addressof(p),
    ...                   2, 2, 2, ["a", "b"], None)
    >>> s.matrix.toarray().tolist(), s.rownames
    ([[0.0, 7.0], [5.0, 0.0]], ['a', 'b'])
    """
    from scipy import sparse

    from ._radapters import RSparse

    nnz, nrow, ncol = int(nnz), int(nrow), int(ncol)
    data = np.array(_view(x_address, nnz, "double"), copy=True)
    indices = np.array(_view(i_address, nnz, "integer"), copy=True)
    indptr = np.array(_view(p_address, ncol + 1, "integer"), copy=True)
    matrix = sparse.csc_matrix((data, indices, indptr), shape=(nrow, ncol))
    return RSparse(matrix, _names(rownames), _names(colnames))


def labelled(values, names=None):
    """R values (a list of strings or numbers) with R's ``names``: a pandas Series indexed by
    them, else the plain list."""
    if names is None:
        return list(values)
    import pandas as pd

    return pd.Series(list(values), index=_names(names), dtype=object)


def _names(names):
    return None if names is None else [str(v) for v in (
        names if isinstance(names, (list, tuple)) else [names])]


def fill(handle: int, address) -> None:
    """Copy the pending result ``handle`` into the R vector at ``address`` (R allocated it
    with the length and kind :func:`encode` gave), in R's column-major order."""
    arr = _PENDING.pop(int(handle))
    kind = "double" if arr.dtype.kind == "f" else "integer"
    out = _view(address, arr.size, kind)
    if arr.size:
        out[...] = np.asarray(arr).ravel(order="F")


def _kind(arr: np.ndarray) -> str:
    if arr.dtype.kind == "b":
        return "logical"
    if arr.dtype.kind in "iu" and (arr.size == 0 or np.abs(arr).max() < 2**31):
        return "integer"
    return "double"


def encode(value):
    """An adapter's result (:mod:`oclstat._radapters`) as plain lists, dicts and scalars that
    reticulate converts without numpy: arrays become ``{"__array__": handle, "shape": [...],
    "kind": ...}`` (R allocates the vector and calls :func:`fill`), character vectors
    ``{"__character__": [...]}``, named lists ``{"__list__": names, "items": [...]}``, classed
    values ``{"__r__": class, "value": ..., "attributes": {...}}``; the R package's
    ``decode()`` reads them back."""
    from ._radapters import Characters, RValue

    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, RValue):
        return {"__r__": value.r_class or "", "value": encode(value.value),
                "attributes": {"__list__": list(value.attributes),
                               "items": [encode(v) for v in value.attributes.values()]}}
    if isinstance(value, Characters):
        return {"__character__": [str(v) for v in value]}
    if isinstance(value, dict):
        return {"__list__": [str(k) for k in value], "items": [encode(v) for v in value.values()]}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    arr = np.asarray(value)
    kind = _kind(arr)
    handle = next(_IDS)
    _PENDING[handle] = arr.astype(np.int32 if kind != "double" else np.float64, copy=False)
    return {"__array__": handle, "shape": [int(s) for s in arr.shape], "kind": kind}


def call(name: str, arguments: dict):
    """Run the adapter of R function ``name`` with ``arguments`` (R's names): ``{"value":
    the encoded result, "warnings": [messages in R's words]}``; R raises the warnings as its
    own (no Python file paths)."""
    from ._radapters import ADAPTERS, translate_warning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = ADAPTERS[name](**dict(arguments))
    seen = list(dict.fromkeys(translate_warning(name, str(w.message)) for w in caught))
    return {"value": encode(value), "warnings": seen}


def discard() -> None:
    """Forget results R did not collect (after an error while decoding)."""
    _PENDING.clear()


def table_columns(frame) -> dict:
    """A pandas DataFrame as {column: list} with the index under ``"__index__"`` (lists cross
    reticulate without numpy)."""
    out = {"__index__": [str(i) for i in frame.index]}
    for col in frame.columns:
        values = frame[col].tolist()
        out[str(col)] = [list(v) if isinstance(v, (list, tuple)) else v for v in values]
    return out


def host_summary() -> str:
    """The host CPU and every OpenCL implementation, one per line (the R benchmark scripts
    print it beside their ratios)."""
    from ._runtime import host_report

    return "\n".join(host_report())


def device_summary(device=None) -> str:
    """The device R draws on, in one line (for ``verbose = 2``)."""
    from ._runtime import get_runtime

    info = get_runtime(device).info
    return f"{info.name} ({info.platform}, {info.type}, fp64: {'yes' if info.fp64 else 'no'})"
