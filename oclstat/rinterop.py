"""The rpy2 side of the R bridge: R objects <-> numpy/pandas, and oclstat as R functions.

For Python sessions that hold R objects or run R code (``%%R`` cells in Jupyter, rpy2 3.5 with
Debian's R 4.2): :func:`to_python` turns R vectors, matrices, arrays (column-major, indices
kept), factors, data.frames and named lists into numpy arrays, lists, pandas DataFrames and
dicts; :func:`to_r` goes back; :func:`register` installs ``fisher.sim``, ``permTest``,
``gsea``, ``runifGpu`` ... (the names of the R package in ``rbridge/``) as R functions in the
embedded R session, so R code calls oclstat directly.

>>> from oclstat import rinterop                                   # doctest: +SKIP
>>> rinterop.register()                                            # doctest: +SKIP
>>> import rpy2.robjects as ro                                     # doctest: +SKIP
>>> ro.r('fisher.sim(matrix(c(3, 1, 1, 3), 2), B = 1e4, seed = 1)$p.value')  # doctest: +SKIP
"""

from __future__ import annotations

import atexit
import inspect

import numpy as np

__all__ = ["to_python", "to_r", "register", "R_FUNCTIONS"]


def _ri():
    try:
        import rpy2.rinterface as ri
        import rpy2.robjects as ro
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("oclstat.rinterop needs rpy2: pip install 'oclstat[r]' "
                          "(rpy2>=3.5,<3.6 with Debian's R 4.2)") from None
    return ri, ro


def _attr(obj, name):
    ri, _ = _ri()
    try:
        value = obj.do_slot(name)
    except LookupError:
        return None
    return None if value is ri.NULL else value


def _classes(obj) -> list[str]:
    try:
        return list(obj.rclass)
    except Exception:  # noqa: BLE001 - objects without a class attribute
        return []


def to_python(obj, name: str = "x"):
    """An R object as numpy/pandas/Python (see the module docstring). ``NA`` in integer,
    logical or character data raises ``ValueError`` naming ``name``."""
    ri, _ = _ri()
    if obj is ri.NULL or obj is None:
        return None
    if isinstance(obj, (bool, int, float, str, np.generic)):   # Python defaults pass through
        return obj
    classes = _classes(obj)
    if "data.frame" in classes:
        import pandas as pd

        cols = {str(k): to_python(v, f"{name}${k}") for k, v in zip(obj.names, obj, strict=True)}
        rn = _attr(obj, "row.names")
        index = None
        if rn is not None and isinstance(rn, ri.StrSexpVector):
            index = list(rn)
        return pd.DataFrame(cols, index=index)
    if "factor" in classes:
        levels = list(_attr(obj, "levels"))
        codes = list(obj)
        if any(c == ri.NA_Integer for c in codes):
            raise ValueError(f"{name} (a factor) contains NA")
        return _named([levels[c - 1] for c in codes], obj)
    if isinstance(obj, ri.ListSexpVector):
        names = _attr(obj, "names")
        items = [to_python(v, f"{name}[[{i + 1}]]") for i, v in enumerate(obj)]
        if names is not None:
            return {str(k): v for k, v in zip(names, items, strict=True)}
        return items
    if isinstance(obj, ri.StrSexpVector):
        values = list(obj)
        if any(v is ri.NA_Character for v in values):
            raise ValueError(f"{name} contains NA")
        return _named(values, obj)
    if isinstance(obj, (ri.FloatSexpVector, ri.IntSexpVector, ri.BoolSexpVector)):
        if isinstance(obj, ri.FloatSexpVector):
            arr = np.array(obj, dtype=np.float64)
        else:
            raw = list(obj)
            if any(v == ri.NA_Integer or v is ri.NA_Logical for v in raw):
                raise ValueError(f"{name} contains NA")
            arr = np.array(raw, dtype=bool if isinstance(obj, ri.BoolSexpVector) else np.int64)
        dim = _attr(obj, "dim")
        if dim is not None:
            arr = np.ascontiguousarray(arr.reshape(list(dim), order="F"))
            rows, cols = (_dimnames(obj, 0), _dimnames(obj, 1)) if len(dim) == 2 else (None,
                                                                                     None)
            if rows is not None or cols is not None:
                import pandas as pd

                return pd.DataFrame(arr, index=rows, columns=cols)
            return arr
        return _named(arr, obj)
    raise TypeError(f"{name}: cannot convert an R object of class {classes or type(obj)}")


def _named(values, obj):
    """R's ``names`` kept: a pandas Series indexed by them (oclstat aligns by label), else the
    values as they are."""
    names = _attr(obj, "names")
    if names is None:
        return values
    import pandas as pd

    return pd.Series(values, index=[str(n) for n in names],
                     dtype=object if isinstance(values, list) else None)


def to_r(value):
    """numpy arrays (with ``dim``), pandas DataFrames, dicts (named lists), lists of strings
    and scalars as R objects."""
    ri, ro = _ri()
    if value is None:
        return ri.NULL
    from ._radapters import Characters, RValue

    if isinstance(value, RValue):
        return _r_value(value)
    if isinstance(value, Characters):
        return ri.StrSexpVector([str(v) for v in value])
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None and isinstance(value, pd.DataFrame):
        cols = {str(c): to_r(_column(value[c])) for c in value.columns}
        frame = ro.r["data.frame"](**cols, stringsAsFactors=False, check_names=False)
        frame.rownames = ro.StrVector([str(i) for i in value.index])
        return frame
    if isinstance(value, dict):
        return _named_list(value)
    if isinstance(value, (str, bytes)):
        return ri.StrSexpVector([str(value)])
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        return ri.StrSexpVector(list(value))
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (list, tuple))
                                                         for v in value):
        return ri.ListSexpVector([to_r(list(v)) for v in value])
    arr = np.asarray(value)
    if arr.dtype.kind == "b":
        vec = ri.BoolSexpVector(arr.ravel(order="F").tolist())
    elif arr.dtype.kind in "iu" and (arr.size == 0 or np.abs(arr).max() < 2**31):
        vec = ri.IntSexpVector(arr.ravel(order="F").astype(int).tolist())
    elif arr.dtype.kind in "iuf":
        vec = ri.FloatSexpVector(arr.astype(np.float64).ravel(order="F").tolist())
    elif arr.dtype.kind in "UO":
        vec = ri.StrSexpVector([str(v) for v in arr.ravel(order="F")])
    else:
        raise TypeError(f"cannot convert {arr.dtype} to R")
    if arr.ndim > 1:
        vec.do_slot_assign("dim", ri.IntSexpVector(list(arr.shape)))
    return vec


def _r_value(rv):
    """An adapter's :class:`oclstat._radapters.RValue` as the R object it stands for."""
    ri, ro = _ri()
    if rv.r_class == "data.frame":
        cols = rv.value
        out = _named_list(cols)
        n = len(next(iter(cols.values()))) if cols else 0
        out.do_slot_assign("row.names", ri.IntSexpVector(list(range(1, n + 1))))
    else:
        out = to_r(rv.value)
    for name, attr in rv.attributes.items():
        if name == "dimnames":
            attr = [None if a is None else a for a in attr]
            value = ri.ListSexpVector([ri.NULL if a is None else to_r(a) for a in attr])
        else:
            value = to_r(attr)
        out.do_slot_assign(name, value)
    if rv.r_class:
        out.do_slot_assign("class", ri.StrSexpVector([rv.r_class]))
    return out


def _column(series):
    values = series.tolist()
    if values and all(isinstance(v, (list, tuple)) for v in values):
        return [list(v) for v in values]
    return np.asarray(values)


def _named_list(d: dict):
    ri, _ = _ri()
    lst = ri.ListSexpVector([to_r(v) for v in d.values()])
    lst.do_slot_assign("names", ri.StrSexpVector([str(k) for k in d]))
    return lst


# ----------------------------------------------------------------------------- R functions
#
# The R functions are the adapters of oclstat._radapters, the ones the R package calls: this
# module only converts their R arguments to Python and their results back to R.

#: The device the registered functions use (``setDevice()`` in R sets it).
_DEVICE: list = [None]


def _scalar(value):
    """A length-one R vector as a Python scalar (integral doubles as int); others unchanged."""
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.size == 1:
        value = value[0].item()
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        value = value[0]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        value = int(value)
    return value


#: Arguments that are data (vectors stay vectors even of length one).
_DATA = {"x", "y", "labels", "phenotype", "snpNames", "groups", "stats"}


def _dimnames(obj, axis: int):
    ri, _ = _ri()
    dn = _attr(obj, "dimnames")
    if dn is None or dn[axis] is ri.NULL:
        return None
    return [str(v) for v in dn[axis]]


def _extras(rname: str, raw: dict) -> dict:
    """What the R package computes in R before calling the adapter (names, data names,
    factor levels)."""
    ri, _ = _ri()
    out: dict = {}
    labels = {"gsea": "labels", "permTest": "groups"}.get(rname)
    if labels is not None and raw.get(labels) is not None:
        # class A: the first level of factor(labels), as the R package says (a factor's own
        # order, else alphabetical), whatever the order of the samples
        value = raw[labels]
        if "factor" in _classes(value):
            levels = list(_attr(value, "levels"))
            used = [levels[i] for i in sorted({c - 1 for c in value})]
        else:
            used = sorted({str(v) for v in value})
        if len(used) == 2:
            out["classes"] = used
    if rname == "likfitLgmGpu" and raw.get("param") is not None:
        names = _attr(raw["param"], "names")
        if names is None:
            raise ValueError("param must be a named vector, e.g. c(shape = 1.5)")
        out["param"] = dict(zip((str(n) for n in names), (float(v) for v in raw["param"]),
                                strict=True))
    elif rname == "epistasis" and "snpNames" not in raw and "genotypes" in raw:
        out["snpNames"] = _dimnames(raw["genotypes"], 0)
    return out


def _adapter_call(rname: str, fn):
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind is p.POSITIONAL_OR_KEYWORD]

    def call(*args, **kwargs):
        raw = dict(zip([p.name for p in params], args, strict=False))
        raw.update(kwargs)
        values = {}
        for name, value in raw.items():
            v = to_python(value, name)
            values[name] = v if name in _DATA and not isinstance(v, (int, float)) else \
                _scalar(v)
        if "seed" in values and isinstance(values["seed"], np.ndarray):
            values["seed"] = [int(v) for v in values["seed"]]
        if rname == "permTest" and "alternative" in values and \
                isinstance(values["alternative"], list):
            values["alternative"] = values["alternative"][0]      # match.arg's first choice
        values.update(_extras(rname, raw))
        if rname != "setDevice":
            values["device"] = _DEVICE[0]
        result = fn(**values)
        if rname == "setDevice":
            _DEVICE[0] = None if result is None else result.value["index"]
        return to_r(result)
    return call


def _r_functions() -> dict:
    from ._radapters import ADAPTERS

    return {name: _adapter_call(name, fn) for name, fn in ADAPTERS.items()}


#: R name -> Python implementation (arguments arrive as R objects): the R package's functions.
R_FUNCTIONS = _r_functions()


#: The Python callables behind the registered R functions: R holds only handles to them, so
#: they must stay alive as long as the R session may call them.
_REGISTERED: list = []
atexit.register(_REGISTERED.clear)   # release them while rpy2 is still there to do it


def register(env=None) -> list[str]:
    """Install :data:`R_FUNCTIONS` as R functions in ``env`` (an rpy2 environment; default R's
    global environment). Errors reach R as R errors with oclstat's message. Returns the names."""
    ri, ro = _ri()
    target = env if env is not None else ro.globalenv

    def wrap(fn, rname):
        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except (ValueError, TypeError) as exc:
                return _condition(f"{rname}: {exc}")
        _REGISTERED.append(call)
        closure = ri.rternalize(call)
        _REGISTERED.append(closure)
        return closure

    # The Python side returns an error condition instead of raising (a longjmp out of R's call
    # into Python is not safe); a thin R wrapper signals it as an ordinary R error.
    signal = ro.r("function(f) function(...) { r <- f(...); "
                  "if (inherits(r, 'oclstatError')) stop(r) else r }")
    for rname, fn in R_FUNCTIONS.items():
        inner = wrap(fn, rname)
        target[rname] = signal(inner)
    return list(R_FUNCTIONS)


def _condition(message: str):
    """An R error condition object (class oclstatError, error, condition)."""
    ri, _ = _ri()
    cond = _named_list({"message": message, "call": None})
    cond.do_slot_assign("class", ri.StrSexpVector(["oclstatError", "error", "condition"]))
    return cond
