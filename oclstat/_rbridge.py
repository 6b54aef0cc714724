"""The Python end of the R package (rbridge/): arrays cross as raw little-endian files.

Debian's reticulate (1.28) cannot convert numpy >= 2 arrays (it was built against numpy's 1.x
binary interface), so numeric arrays never go through reticulate's numpy conversion: R writes
``writeBin`` files that :func:`load` reads, and :func:`save` writes files that R reads with
``readBin``. Strings and scalars go through reticulate as plain lists. Column-major (R) order is
kept on both sides: an R ``dim = c(a, b, c)`` array is the numpy array of shape (a, b, c) with
the same elements at the same indices.

>>> import numpy as np, tempfile, os
>>> x = np.arange(6.0).reshape(2, 3)
>>> path, shape, kind = save(x, tempfile.mkdtemp())
>>> np.array_equal(load(path, shape, kind), x), shape, kind
(True, [2, 3], 'double')
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

_KINDS = {"double": np.dtype("<f8"), "integer": np.dtype("<i4")}


def load(path: str, shape, kind: str) -> np.ndarray:
    """The array R wrote to ``path`` (``writeBin(as.vector(x), size = 8 or 4)``), in R's
    column-major order, as a C-contiguous numpy array; the file is removed."""
    dt = _KINDS[kind]
    shape = [int(s) for s in (shape if isinstance(shape, (list, tuple)) else [shape])]
    try:
        flat = np.fromfile(path, dtype=dt)
    finally:
        os.unlink(path)
    if flat.size != int(np.prod(shape)):
        raise ValueError(f"expected {int(np.prod(shape))} values from R, got {flat.size}")
    return np.ascontiguousarray(flat.reshape(shape, order="F"))


def save(array, directory: str | None = None):
    """Write ``array`` for R: returns (path, shape, kind); R reads it with readBin and sets
    ``dim``. Booleans and integers that fit become "integer", everything else "double"."""
    arr = np.asarray(array)
    if arr.dtype.kind in "biu" and (arr.size == 0 or np.abs(arr).max() < 2**31):
        kind = "integer"
    else:
        kind = "double"
    fd, path = tempfile.mkstemp(suffix=".bin", dir=directory)
    with os.fdopen(fd, "wb") as fh:
        np.asfortranarray(arr, dtype=_KINDS[kind]).ravel(order="F").tofile(fh)
    return path, [int(s) for s in arr.shape], kind


def encode(value, directory: str | None = None):
    """An adapter's result (:mod:`oclstat._radapters`) as plain lists, dicts and scalars that
    reticulate converts without numpy: arrays become files (``{"__array__": [path, shape,
    kind]}``), character vectors ``{"__character__": [...]}``, named lists ``{"__list__":
    names, "items": [...]}``, classed values ``{"__r__": class, "value": ..., "attributes":
    {...}}``; the R package's ``decode()`` reads them back."""
    from ._radapters import Characters, RValue

    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, RValue):
        return {"__r__": value.r_class or "", "value": encode(value.value, directory),
                "attributes": {"__list__": list(value.attributes),
                               "items": [encode(v, directory)
                                         for v in value.attributes.values()]}}
    if isinstance(value, Characters):
        return {"__character__": [str(v) for v in value]}
    if isinstance(value, dict):
        return {"__list__": [str(k) for k in value],
                "items": [encode(v, directory) for v in value.values()]}
    if isinstance(value, (list, tuple)):
        return [encode(v, directory) for v in value]
    arr = np.asarray(value)
    path, shape, kind = save(arr, directory)
    return {"__array__": [path, shape, kind], "logical": arr.dtype.kind == "b"}


def call(name: str, arguments: dict, directory: str | None = None):
    """Run the adapter of R function ``name`` with ``arguments`` (R's names) and encode its
    result for R (:func:`encode`)."""
    from ._radapters import ADAPTERS

    return encode(ADAPTERS[name](**dict(arguments)), directory)


def table_columns(frame) -> dict:
    """A pandas DataFrame as {column: list} with the index under ``"__index__"`` (lists cross
    reticulate without numpy)."""
    out = {"__index__": [str(i) for i in frame.index]}
    for col in frame.columns:
        values = frame[col].tolist()
        out[str(col)] = [list(v) if isinstance(v, (list, tuple)) else v for v in values]
    return out
