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
        return [levels[c - 1] for c in codes]
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
        return values
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
        return arr
    raise TypeError(f"{name}: cannot convert an R object of class {classes or type(obj)}")


def to_r(value):
    """numpy arrays (with ``dim``), pandas DataFrames, dicts (named lists), lists of strings
    and scalars as R objects."""
    ri, ro = _ri()
    if value is None:
        return ri.NULL
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


def _htest(**fields):
    ri, _ = _ri()
    out = _named_list({k: v for k, v in fields.items() if v is not None})
    out.do_slot_assign("class", ri.StrSexpVector(["htest"]))
    return out


def _one(value, name: str):
    """A length-one R argument (or a Python default) as a Python scalar."""
    v = to_python(value, name)
    if isinstance(v, (list, tuple, np.ndarray)):
        flat = list(np.ravel(np.asarray(v, dtype=object)))
        if len(flat) != 1:
            raise ValueError(f"{name} must have length 1, got {len(flat)}")
        v = flat[0]
    return v.item() if isinstance(v, np.generic) else v


def _seed(value):
    if value is None:
        return None
    seed = np.asarray(value).ravel()
    return int(seed[0]) if seed.size == 1 else [int(s) for s in seed]


def _fisher_sim(x, B=2000, seed=None):
    import oclstat

    table = to_python(x, "x")
    n = int(_one(B, "B"))
    res = oclstat.fisher_sim(np.asarray(table), n_resamples=n,
                             seed=_seed(to_python(seed, "seed")))
    return _htest(**{
        "p.value": to_r(float(res.pvalue)), "alternative": to_r("two.sided"),
        "method": to_r("Fisher's Exact Test for Count Data with simulated p-value\n\t "
                       f"(based on {n} replicates)"),
        "data.name": to_r("x")})


def _perm_test(x, y, nWindows=None, alternative="two.sided", midP=False):  # noqa: N803
    import oclstat

    alt = str(_one(alternative, "alternative")).replace(".", "-")
    w = to_python(nWindows, "nWindows")
    res = oclstat.permutation_test(to_python(x, "x"), to_python(y, "y"),
                                   n_windows=None if w is None else int(_one(w, "nWindows")),
                                   alternative=alt, mid_p=bool(_one(midP, "midP")))
    frame = res.to_frame()
    return to_r(frame)


def _gsea(expr, labels, geneSets, nperm=1000, seed=None, minSize=15,  # noqa: N803
          maxSize=500, metric="signal_to_noise", weight=1.0):
    import oclstat

    values = to_python(expr, "expr")
    ri, ro = _ri()
    genes = list(ro.r["rownames"](expr))
    res = oclstat.gsea(values, to_python(labels, "labels"),
                       {k: list(v) for k, v in to_python(geneSets, "geneSets").items()},
                       genes=genes, n_perm=int(_one(nperm, "nperm")),
                       seed=_seed(to_python(seed, "seed")),
                       min_size=int(_one(minSize, "minSize")),
                       max_size=int(_one(maxSize, "maxSize")),
                       metric=str(_one(metric, "metric")), weight=float(_one(weight, "weight")))
    t = res.table
    return to_r({"pathway": list(t.index), "pval": t["pval"].to_numpy(),
                 "ES": t["es"].to_numpy(), "NES": t["nes"].to_numpy(),
                 "size": t["size"].to_numpy(), "FDR": t["fdr"].to_numpy(),
                 "FWER": t["fwer"].to_numpy(), "leadingEdge": list(t["leading_edge"])})


def _create_streams(n, seed=None):
    import oclstat

    kw = {} if seed is None or seed is _ri()[0].NULL else {"seed": _seed(to_python(seed))}
    st = oclstat.random.create_streams(int(_one(n, "n")), **kw)
    return to_r(st.to_matrix(substream=False))


def _draw(kind):
    def draw(n, streams=None, seed=None):
        import oclstat

        size = tuple(int(v) for v in np.ravel(to_python(n, "n")))
        st = None
        if streams is not None and streams is not _ri()[0].NULL:
            st = oclstat.random.Streams.from_matrix(to_python(streams, "streams"))
        fn = getattr(oclstat.random, kind)
        out = fn(size if len(size) > 1 else size[0], streams=st,
                 seed=_seed(to_python(seed, "seed")) if st is None else None)
        return to_r(out)
    return draw


def _matern(coords, params):
    import oclstat

    return to_r(oclstat.matern_cov(to_python(coords, "coords"), to_python(params, "params")))


def _chol(A):  # noqa: N803
    import oclstat

    r = oclstat.ldl_batch(to_python(A, "A"))
    return to_r({"L": r.L, "D": r.D, "logdet": r.logdet})


def _simulate(coords, params, Nsim, seed=None):  # noqa: N803
    import oclstat

    f = oclstat.simulate_fields(to_python(coords, "coords"), to_python(params, "params"),
                                int(_one(Nsim, "Nsim")),
                                seed=_seed(to_python(seed, "seed")))
    return to_r(f)


def _epistasis(genotypes, phenotype, order=4, top=10, score="k2"):
    import oclstat

    g = np.asarray(to_python(genotypes, "genotypes"), dtype=float)
    g = np.where(np.isnan(g), -1, g).astype(np.int16)
    hits = oclstat.epistasis(g, np.asarray(to_python(phenotype, "phenotype")).astype(int),
                             order=int(_one(order, "order")), top=int(_one(top, "top")),
                             score=str(_one(score, "score")))
    k = int(_one(order, "order"))
    for i in range(k):
        hits[f"snp{i + 1}"] = hits[f"snp{i + 1}"] + 1       # R's 1-based indices
    return to_r({c: hits[c].tolist() for c in hits.columns})


#: R name -> Python implementation (arguments arrive as R objects).
R_FUNCTIONS = {
    "fisher.sim": _fisher_sim,
    "permTest": _perm_test,
    "gsea": _gsea,
    "createStreams": _create_streams,
    "runifGpu": _draw("uniform"),
    "rnormGpu": _draw("normal"),
    "rexpGpu": _draw("exponential"),
    "maternBatch": _matern,
    "cholBatch": _chol,
    "simulateFields": _simulate,
    "epistasis": _epistasis,
}


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
