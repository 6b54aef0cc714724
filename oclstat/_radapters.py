"""The R functions of oclstat, written once in Python: R's argument names and defaults in,
R-shaped results out. Both R bridges call these: the R package (``rbridge/``, through
reticulate and :mod:`oclstat._rbridge`) and :mod:`oclstat.rinterop` (rpy2).

An adapter takes Python values (numpy arrays, lists, dicts, scalars; R's ``NULL`` as None)
under the R formals of its function (:data:`oclstat._vocabulary.ENTRIES`), plus the keyword
``device`` (the bridge's current device, from ``setDevice()``) and, where R shows it,
``dname`` (the expression the caller passed). It returns an :class:`RValue` (an R list, htest,
data.frame or factor), an array, or a string vector; a Python error message names the
arguments as R does.

>>> out = ADAPTERS["fisher.sim"](np.array([[3, 1], [1, 3]]), B=2000, seed=1)
>>> out.r_class, round(out.value["p.value"], 3)    # exact fisher.test: 0.4857
('htest', 0.502)
"""

from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass, field

import numpy as np

from ._vocabulary import python_to_r

__all__ = ["RValue", "ADAPTERS", "STREAM_COLUMNS"]

#: Column names of gpuRandom's stream matrices (n x 12: current, then initial states).
STREAM_COLUMNS = tuple(f"{w}.g{g}.{i}" for w in ("current", "initial")
                       for g in (1, 2) for i in (1, 2, 3))


@dataclass(frozen=True)
class RValue:
    """An R value with a class or attributes: ``value`` is a dict (an R named list; a
    data.frame's columns) or an array (a vector, matrix, or a factor's 1-based codes)."""

    value: object
    r_class: str | None = None
    attributes: dict = field(default_factory=dict)


class Characters(list):
    """A character vector (a plain list of strings could also be an R list)."""


class RSparse:
    """An R ``dgCMatrix`` in Python: a scipy CSC matrix (genes x samples) and its row and
    column names (None where R has none)."""

    def __init__(self, matrix, rownames, colnames):
        self.matrix = matrix
        self.rownames = rownames
        self.colnames = colnames


def _r_function(name: str, python_name: str, renamed: dict | None = None, *,
                exported: bool = True):
    """Register an adapter under its R name; Python argument names in its errors become R's.
    ``renamed`` maps R formals that are not Python names (``conf.level``, ``or``) to the
    adapter's parameters; ``adapter.r_formals`` lists the R formals in order. ``exported``
    False: the R function is internal (a peer's internal name its tests call by namespace)."""
    PYTHON_NAMES[name] = python_name
    if not exported:
        INTERNAL.add(name)
    renamed = dict(renamed or {})
    back = {v: k for k, v in renamed.items()}

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            kwargs = {renamed.get(k, k): v for k, v in kwargs.items()}
            try:
                return fn(*args, **kwargs)
            except (ValueError, TypeError) as exc:
                raise type(exc)(python_to_r(python_name, str(exc))) from None
        params = [n for n, p in inspect.signature(fn).parameters.items()
                  if p.kind is p.POSITIONAL_OR_KEYWORD]
        wrapper.r_formals = [back.get(n, n) for n in params]
        ADAPTERS[name] = wrapper
        return wrapper
    return decorate


#: R function name -> its adapter.
ADAPTERS: dict = {}
#: R function name -> the Python function (key of oclstat._vocabulary.ENTRIES) it calls.
PYTHON_NAMES: dict = {}
#: R functions the package does not export (reached as ``oclstat:::name``).
INTERNAL: set = set()


def translate_warning(name: str, message: str) -> str:
    """A Python warning raised inside R function ``name`` in R's words: the Python function's
    name and arguments as R's."""
    python = PYTHON_NAMES[name]
    short = python.rsplit(".", 1)[-1]
    if message.startswith(f"{short}: "):
        message = f"{name}: " + message[len(short) + 2:]
    return python_to_r(python, message)


def _streams_value(st) -> RValue:
    return RValue(st.to_matrix(substream=False),
                  attributes={"dimnames": [None, Characters(STREAM_COLUMNS)]})


def _streams(streams):
    from .random import Streams

    if streams is None or isinstance(streams, Streams):
        return streams
    return Streams.from_matrix(np.asarray(streams))


def _dtype(type_: str) -> str:
    if type_ not in ("double", "float"):
        raise ValueError(f"type must be \"double\" or \"float\", got {type_!r}")
    return "float64" if type_ == "double" else "float32"


def _work_items(Nglobal) -> int | None:
    """prod(Nglobal), clrng's work items (None: not given)."""
    if Nglobal is None:
        return None
    sizes = np.atleast_1d(np.asarray(Nglobal)).ravel()
    if sizes.size not in (1, 2) or np.any(sizes < 1) or np.any(sizes != np.round(sizes)):
        raise ValueError("Nglobal must be one or two positive whole numbers")
    return int(np.prod(sizes.astype(np.int64)))


def _first_streams(streams, work: int | None):
    """The streams a draw with ``work`` work items uses (clrng: the first prod(Nglobal))."""
    if streams is None or work is None:
        return streams
    m = np.asarray(streams)
    if work > m.shape[0]:
        raise ValueError(f"the number of streams ({m.shape[0]}) must equal or exceed the number "
                         f"of work items prod(Nglobal) = {work}")
    return m[:work]


def _size(n):
    n = np.atleast_1d(np.asarray(n)).ravel()
    if n.size not in (1, 2):
        raise ValueError("n must be a count or c(nrow, ncol)")
    size = tuple(int(v) for v in n)
    return size if len(size) == 2 else size[0]


# ----------------------------------------------------------------------------- tests

@_r_function("fisher.sim", "fisher_sim")
def fisher_sim(x, N=2000, streams=None, type="double", returnStatistics=False,
               Nglobal=None, verbose=False, seed=None, B=None, *, device=None,
               dname="x"):
    """clrng's fisher.sim: an htest with clrng's fields (counts, simNum, streams, sim)."""
    from ._fisher import fisher_sim as run
    from ._random.streams import fresh_seed

    if B is not None:
        N = B                                # fisher.test's name
    work = _work_items(Nglobal)
    if work is not None:
        N = -(-int(N) // work) * work        # clrng: simNum, whole rounds per work item
    st = _streams(_first_streams(streams, work))
    if st is None and seed is None:
        seed = fresh_seed()                  # kept in the result: the run can be repeated
    res = run(np.asarray(x), n_resamples=N, seed=None if st is not None else seed, streams=st,
              device=device, dtype=_dtype(type), return_statistics=bool(returnStatistics))
    out = {"p.value": float(res.pvalue), "alternative": "two.sided",
           "method": "Fisher's Exact Test for Count Data with simulated p-value\n\t "
                     f"(based on {int(N)} replicates)",
           "data.name": dname, "counts": int(res.count), "simNum": int(N)}
    if st is not None:
        out["streams"] = _streams_value(st)
    else:
        out["seed"] = np.atleast_1d(np.asarray(seed, dtype=np.float64))
    if returnStatistics:
        out["sim"] = np.asarray(res.null_distribution, dtype=np.float64)
    return RValue(out, "htest")


@_r_function("fisherTest", "fisher_test",
             renamed={"or": "odds", "conf.int": "conf_int", "conf.level": "conf_level",
                      "simulate.p.value": "simulate"})
def fisher_test_r(x, y=None, workspace=200000, hybrid=False, hybridPars=(5, 80, 1),
                  control=None, odds=1.0, alternative="two.sided", conf_int=True,
                  conf_level=0.95, simulate=False, B=2000, seed=None, *,
                  device=None, dname="x"):
    """R's fisher.test: (x, y, workspace, hybrid, hybridPars, control, or, alternative,
    conf.int, conf.level, simulate.p.value, B, seed) in; an htest out."""
    from ._fisher import fisher_test

    odds, level, conf_int, simulate = float(odds), float(conf_level), bool(conf_int), \
        bool(simulate)
    alternatives = {"two.sided": "two-sided", "less": "less", "greater": "greater"}
    if alternative not in alternatives:
        raise ValueError(f"alternative must be one of {list(alternatives)}, got "
                         f"{alternative!r}")
    res = fisher_test(np.asarray(x), alternative=alternatives[alternative], conf_level=level,
                      null_odds_ratio=odds, method="simulate" if simulate else "exact",
                      hybrid=bool(hybrid), hybrid_pars=tuple(float(v) for v in hybridPars),
                      n_resamples=B, seed=seed, device=device)
    out = {"p.value": float(res.pvalue)}
    if res.odds_ratio is not None:
        if conf_int:
            out["conf.int"] = RValue(np.array(res.conf_int, dtype=float),
                                     attributes={"conf.level": level})
        out["estimate"] = RValue(np.array([res.odds_ratio]),
                                 attributes={"names": Characters(["odds ratio"])})
        out["null.value"] = RValue(np.array([odds]),
                                   attributes={"names": Characters(["odds ratio"])})
    out.update({"alternative": alternative, "method": res.title, "data.name": dname})
    if res.method == "simulate" and res.seed is not None:
        out["seed"] = res.seed if isinstance(res.seed, int) else np.array(res.seed)
    return RValue(out, "htest")


@_r_function("permTest", "permutation_test")
def perm_test(x, y=None, nWindows=None, alternative="two.sided", midP=False,
              twoSided="distance", groups=None, *, classes=None, device=None,
              dname="x and y"):
    import pandas as pd

    from ._multitest import benjamini_hochberg
    from ._permutation import permutation_test

    alternatives = {"two.sided": "two-sided", "less": "less", "greater": "greater"}
    if alternative not in alternatives:
        raise ValueError(f"alternative must be one of {list(alternatives)}, got "
                         f"{alternative!r}")
    if groups is None:
        if y is None:
            raise ValueError("give y (the second sample) or groups")
        one = np.ndim(x) == 1 and np.ndim(y) == 1
        if not one and (np.ndim(x) != 2 or np.ndim(y) != 2):
            raise ValueError("x and y must both be vectors, or matrices with the same rows "
                             "(features)")
        if one:     # two samples: their values, not their names, are the data
            x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        inputs = {"y": y}
    else:
        one = np.ndim(x) == 1
        if one and isinstance(x, pd.Series):      # named samples: matched to groups' names
            x = pd.DataFrame([x.to_numpy(dtype=float)], columns=x.index)
        inputs = {"groups": groups,
                  "classes": None if classes is None else tuple(str(c) for c in classes)}
    res = permutation_test(x, n_windows=nWindows, alternative=alternatives[alternative],
                           two_sided=twoSided, mid_p=bool(midP), device=device, **inputs)
    if one:
        def first(v):
            return float(np.asarray(v, dtype=float).ravel()[0])

        method = ("Exact two-sample permutation test (sum of the first sample"
                  + ("" if nWindows is None else f"'s window scores, {int(nWindows)} windows")
                  + ")" + (", mid-P" if midP else ""))
        means = RValue(np.array([first(res.mean_x), first(res.mean_y)]),
                       attributes={"names": Characters(["mean of x", "mean of y"])})
        return RValue({"statistic": RValue(np.array([first(res.statistic)]),
                                           attributes={"names": Characters(["T"])}),
                       "p.value": first(res.pvalue), "alternative": alternative,
                       "method": method, "data.name": dname, "estimate": means}, "htest")
    p = np.asarray(res.pvalue, dtype=np.float64)
    feature = (Characters(str(f) for f in res.features) if res.features is not None
               else np.arange(1, len(p) + 1))
    return RValue({"feature": feature, "meanX": res.mean_x, "meanY": res.mean_y,
                   "meanDiff": res.mean_x - res.mean_y, "effectSize": res.effect_size,
                   "statistic": np.asarray(res.statistic, dtype=float), "p.value": p,
                   "q.value": benjamini_hochberg(p)}, "data.frame")


@_r_function("gsea", "gsea")
def gsea(expr, labels, geneSets, nperm=1000, metric=None, weight=1.0,
         minSize=15, maxSize=500, seed=None, permutation="phenotype", classes=None, *,
         device=None):
    """``labels``: class labels, or numbers with a profile metric (a continuous phenotype);
    ``classes``: c(A, B) or Broad's "A_versus_B" / "A_versus_REST"."""
    from ._gsea import gsea as run
    from ._gsea.core import PROFILE_METRICS
    from ._gsea.validate import metric_name
    from ._multitest import benjamini_hochberg

    if not isinstance(geneSets, dict) or not geneSets or any(not k for k in geneSets):
        raise ValueError("geneSets must be a named list of character vectors")
    import pandas as pd

    if metric is not None and metric_name(metric) in PROFILE_METRICS:
        labels = (labels.astype(float) if isinstance(labels, pd.Series)
                  else [float(v) for v in labels])
    else:
        labels = (labels.astype(str) if isinstance(labels, pd.Series)
                  else [str(v) for v in labels])
    if classes is not None and not isinstance(classes, str):
        classes = tuple(str(c) for c in classes)
    res = run(expr, labels,
              {k: [str(g) for g in np.atleast_1d(v)] for k, v in geneSets.items()},
              classes=classes, n_resamples=nperm, metric=metric, weight=weight,
              min_size=minSize, max_size=maxSize, seed=seed, permutation=permutation,
              device=device)
    t = res.table
    pval = t["pval"].to_numpy(dtype=float)
    return RValue({"pathway": Characters(str(s) for s in t.index), "pval": pval,
                   "padj": benjamini_hochberg(pval), "ES": t["es"].to_numpy(dtype=float),
                   "NES": t["nes"].to_numpy(dtype=float),
                   "size": t["size"].to_numpy(dtype=np.int32),
                   "leadingEdge": [Characters(g) for g in t["leading_edge"]],
                   "FDR": t["fdr"].to_numpy(dtype=float),
                   "FWER": t["fwer"].to_numpy(dtype=float),
                   "nMoreExtreme": t["n_more"].to_numpy(dtype=float)}, "data.frame")


@_r_function("fgseaGpu", "gsea_prerank")
def fgsea_gpu(pathways, stats, minSize=1, maxSize=None, gseaParam=1.0, eps=1e-50,
              scoreType="std", nproc=0, BPPARAM=None, nPermSimple=1000,
              method="multilevel", sampleSize=101, seed=None, *, device=None):
    """fgsea's arguments, defaults (sizes 1 to length(stats) - 1) and row order (the
    pathways'); nproc and BPPARAM are accepted and ignored (the device does the work)."""
    import pandas as pd

    from ._prerank import gsea_prerank

    if not isinstance(pathways, dict) or not pathways or any(not k for k in pathways):
        raise ValueError("pathways must be a named list of character vectors")
    if isinstance(stats, dict):
        stats = pd.Series(stats, dtype=float)
    if not isinstance(stats, pd.Series):
        raise ValueError("stats must be a named numeric vector (names are genes)")
    ranking = stats.astype(np.float64)
    if maxSize is None:
        maxSize = len(ranking) - 1
    res = gsea_prerank(ranking, {k: [str(g) for g in np.atleast_1d(v)]
                                 for k, v in pathways.items()},
                       n_resamples=nPermSimple, method=method, min_size=minSize,
                       max_size=maxSize, eps=eps, sample_size=sampleSize, weight=gseaParam,
                       score_type=scoreType, seed=seed, device=device)
    t = res.table.loc[sorted(res.table.index)]   # fgsea: setorder(result, pathway)
    return RValue({"pathway": Characters(str(s) for s in t.index),
                   "pval": t["pval"].to_numpy(dtype=float),
                   "padj": t["padj"].to_numpy(dtype=float),
                   "log2err": t["log2err"].to_numpy(dtype=float),
                   "ES": t["ES"].to_numpy(dtype=float), "NES": t["NES"].to_numpy(dtype=float),
                   "size": t["size"].to_numpy(dtype=np.int32),
                   "leadingEdge": [Characters(g) for g in t["leadingEdge"]],
                   "nMoreExtreme": t["nMoreExtreme"].to_numpy(dtype=np.float64)},
                  "data.frame")


@_r_function("fgseaMultilevelCpp", "gsea_prerank", exported=False)
def fgsea_multilevel_cpp(enrichmentScores, ranks, pathwaySize, sampleSize, seed, eps,
                         sign=False, *, device=None):
    """fgsea's internal fgseaMultilevelCpp: the multilevel p-value of each ES among random
    sets of ``pathwaySize`` genes of ``ranks`` (before fgsea divides by denomProb), and
    whether its estimate is reliable; fgsea's columns."""
    from ._prerank.random_sets import random_set_pvalues

    try:
        res = random_set_pvalues(np.atleast_1d(enrichmentScores), np.atleast_1d(ranks),
                                 pathwaySize, sample_size=sampleSize, eps=eps, seed=seed,
                                 sign=bool(sign), device=device)
    except (ValueError, TypeError) as exc:
        words = {"set_size": "pathwaySize", "sample_size": "sampleSize", "es": "enrichmentScores",
                 "ranking": "ranks"}
        raise type(exc)(re.sub(r"\b(set_size|sample_size|es|ranking)\b",
                               lambda m: words[m.group(1)], str(exc))) from None
    return RValue({"cppMPval": res.pvalue, "cppIsCpGeHalf": res.reliable}, "data.frame")


@_r_function("fora", "ora")
def fora_r(pathways, genes, universe, minSize=1, maxSize=None, *, device=None):
    """fgsea's fora on the device: its table by p-value, overlapGenes left to R (fgsea lists
    them in each pathway's own order)."""
    from ._ora import ora

    if not isinstance(pathways, dict) or not pathways or any(not k for k in pathways):
        raise ValueError("pathways must be a named list of character vectors")
    res = ora([str(g) for g in np.atleast_1d(genes)],
              {k: [str(g) for g in np.atleast_1d(v)] for k, v in pathways.items()},
              [str(g) for g in np.atleast_1d(universe)], min_size=minSize, max_size=maxSize,
              overlap_genes=False, device=device)
    t = res.table
    return RValue({"pathway": Characters(str(s) for s in t.index),
                   "pval": t["pval"].to_numpy(dtype=float),
                   "padj": t["padj"].to_numpy(dtype=float),
                   "foldEnrichment": t["foldEnrichment"].to_numpy(dtype=float),
                   "overlap": t["overlap"].to_numpy(dtype=np.int32),
                   "size": t["size"].to_numpy(dtype=np.int32)}, "data.frame")


@_r_function("geseca", "geseca")
def geseca_r(pathways, E, minSize=1, maxSize=None, center=True, scale=False,
             sampleSize=101, eps=1e-50, nproc=0, BPPARAM=None, nPermSimple=1000,
             *, method="multilevel", seed=None, device=None):
    """fgsea's geseca (``method="simple"``: gesecaSimple, ``nPermSimple`` its ``nperm``):
    its arguments, columns and row order (by p-value; by pathway when no pathway needed
    multilevel splitting). nproc and BPPARAM are accepted and ignored."""
    import pandas as pd

    from ._geseca import geseca

    if not isinstance(pathways, dict) or not pathways or any(not k for k in pathways):
        raise ValueError("pathways must be a named list of character vectors")
    if isinstance(E, pd.Series):
        E = E.to_frame()
    if not isinstance(E, pd.DataFrame):
        raise ValueError("E must be a numeric matrix with row names (genes)")
    res = geseca(E, {k: [str(g) for g in np.atleast_1d(v)] for k, v in pathways.items()},
                 min_size=minSize, max_size=maxSize, center=bool(center), scale=bool(scale),
                 n_resamples=nPermSimple, method=method, sample_size=sampleSize, eps=eps,
                 seed=seed, device=device)
    t = res.table
    if method == "multilevel" and res.n_multilevel == 0:
        t = t.loc[sorted(t.index)]                 # fgsea: setorder(grSimple, pathway)
    cols = {"pathway": Characters(str(s) for s in t.index),
            "pctVar": t["pctVar"].to_numpy(dtype=float),
            "pval": t["pval"].to_numpy(dtype=float), "padj": t["padj"].to_numpy(dtype=float)}
    if method == "simple":
        cols["nMoreExtreme"] = t["nMoreExtreme"].to_numpy(dtype=float)
    else:
        cols["log2err"] = t["log2err"].to_numpy(dtype=float)
    cols["size"] = t["size"].to_numpy(dtype=np.int32)
    return RValue(cols, "data.frame")


@_r_function("collapsePathways", "collapse_pathways",
             renamed={"pval.threshold": "pval_threshold"})
def collapse_pathways_r(fgseaRes, pathways, stats, pval_threshold=0.05, nperm=None,
                        gseaParam=1.0, seed=None, *, device=None):
    """fgsea's collapsePathways on the rows of ``fgseaRes`` ({"pathway": names, "ES":
    scores}), in their order: the main pathways, and every pathway's parent ("" for a main
    one; R makes it NA)."""
    import pandas as pd

    from ._prerank import collapse_pathways

    table = pd.DataFrame({"ES": np.atleast_1d(np.asarray(fgseaRes["ES"], dtype=np.float64))},
                         index=[str(p) for p in np.atleast_1d(fgseaRes["pathway"])])
    if isinstance(stats, dict):
        stats = pd.Series(stats, dtype=float)
    res = collapse_pathways(table, {k: [str(g) for g in np.atleast_1d(v)]
                                    for k, v in pathways.items()}, stats,
                            pval_threshold=pval_threshold, n_resamples=nperm,
                            weight=gseaParam, seed=seed, device=device)
    return RValue({"mainPathways": Characters(res.main),
                   "pathway": Characters(res.parent.index),
                   "parent": Characters("" if p is None else p for p in res.parent)})


@_r_function("epistasis", "epistasis")
def epistasis(genotypes, phenotype, order=4, top=10, test="k2", snpNames=None,
              backend="auto", epi1=1e-4, epi2=0.01, cellmin=5,
              keepAlleleOrder=False, *, device=None):
    from ._epistasis import epistasis as run

    names = None if snpNames is None else [str(s) for s in np.atleast_1d(snpNames)]
    if test not in ("k2", "mi"):
        if names is not None:
            import pandas as pd

            genotypes = pd.DataFrame(np.asarray(genotypes), index=names)
        res = run(genotypes, phenotype, order=2, test=test, epi1=epi1, epi2=epi2,
                  cellmin=cellmin, keep_allele_order=bool(keepAlleleOrder), device=device)
        import pandas as pd

        def column(frame, c):
            if pd.api.types.is_numeric_dtype(frame[c]):
                return frame[c].to_numpy(dtype=float)
            return Characters("" if v is None else str(v) for v in frame[c])

        t, s = res.table, res.summary
        cols = {c: column(t, c) for c in t.columns}
        summary = RValue({c: column(s, c) for c in s.columns}, "data.frame")
        return RValue(cols, "data.frame", {"summary": summary})
    res = run(genotypes, phenotype, order=order, top=top, test=test, backend=backend,
              device=device)
    t = res.table
    k = int(order)
    cols: dict = {f"snp{i}": t[f"snp{i}"].to_numpy(dtype=np.int32) + 1 for i in range(1, k + 1)}
    if names is not None:
        for i in range(1, k + 1):
            cols[f"name{i}"] = Characters(names[j - 1] for j in cols[f"snp{i}"])
    cols[test] = t[test].to_numpy(dtype=float)
    return RValue(cols, "data.frame")


# ----------------------------------------------------------------------------- random numbers

@_r_function("createStreams", "random.create_streams")
def create_streams(n, seed=(12345,) * 6, *, device=None):
    from .random import create_streams as run

    return _streams_value(run(n, seed=seed))


def _draw(kind: str, n, streams, Nglobal, type_, seed, device, **extra):
    from . import random

    st = _streams(_first_streams(streams, _work_items(Nglobal)))
    values = getattr(random, kind)(_size(n), streams=st, seed=None if st is not None else seed,
                                   dtype=_dtype(type_), device=device, **extra)
    if st is None:
        return values
    return RValue(values, attributes={"streams": _streams_value(st)})


@_r_function("runifGpu", "random.uniform")
def runif(n, streams=None, Nglobal=None, type="double", verbose=False, seed=None, *,
          device=None):
    return _draw("uniform", n, streams, Nglobal, type, seed, device)


@_r_function("rnormGpu", "random.normal")
def rnorm(n, streams=None, Nglobal=None, type="double", verbose=False, seed=None, *,
          device=None):
    return _draw("normal", n, streams, Nglobal, type, seed, device)


@_r_function("rexpGpu", "random.exponential")
def rexp(n, rate=1.0, streams=None, Nglobal=None, type="double", verbose=False,
         seed=None, *, device=None):
    return _draw("exponential", n, streams, Nglobal, type, seed, device, rate=float(rate))


# ----------------------------------------------------------------------------- fields

@_r_function("maternBatch", "matern_cov")
def matern_batch(coords, params, type="double", layout="stacked", *,
                 device=None):
    """The (k, n, n) array; R stacks it (gpuRandom's layout) unless layout = "array"."""
    from ._fields import matern_cov

    return matern_cov(coords, params, dtype=_dtype(type), device=device)


@_r_function("cholBatch", "ldl_batch")
def chol_batch(A, *, device=None):
    from ._fields import ldl_batch

    r = ldl_batch(A, device=device)
    return RValue({"L": r.L, "D": r.D, "logdet": r.logdet})


@_r_function("multiplyLowerDiagonalBatch", "multiply_lower_diag")
def multiply_lower_diagonal_batch(L, D, Z, transform="sqrt", *, device=None):
    from ._fields import multiply_lower_diag

    return multiply_lower_diag(L, D, Z, transform=transform, device=device)


@_r_function("simulateFields", "simulate_fields")
def simulate_fields(coords, params, Nsim, seed=None, type="double", *,
                    device=None):
    from ._fields import simulate_fields as run

    return run(coords, params, Nsim, seed=seed, dtype=_dtype(type), device=device)


# ----------------------------------------------------------------------------- linear algebra

@_r_function("backsolveBatch", "solve_triangular_batch")
def backsolve_batch(A, B, lower=True, trans=False, unitDiagonal=False, *,
                    device=None):
    from ._linalg import solve_triangular_batch

    return solve_triangular_batch(A, B, lower=bool(lower), trans=bool(trans),
                                  unit_diagonal=bool(unitDiagonal), device=device)


@_r_function("crossprodBatch", "crossprod_batch")
def crossprod_batch(A, B=None, D=None, *, device=None):
    from ._linalg import crossprod_batch as run

    return run(A, B, D, device=device)


@_r_function("gemmBatch", "gemm_batch")
def gemm_batch(A, B, C=None, alpha=1.0, beta=0.0, transA=False, transB=False, *,
               device=None):
    from ._linalg import gemm_batch as run

    return run(A, B, C, alpha=float(alpha), beta=float(beta), trans_a=bool(transA),
               trans_b=bool(transB), device=device)


# ----------------------------------------------------------------------------- spatial models

def _frame(frame) -> RValue:
    """A pandas DataFrame as an R data.frame (its index becomes a first column when named)."""
    cols: dict = {}
    if frame.index.name is not None:
        cols[str(frame.index.name)] = Characters(str(v) for v in frame.index)
    for c in frame.columns:
        v = frame[c]
        if v.dtype.kind in "biuf":
            cols[str(c)] = v.to_numpy()
        else:
            cols[str(c)] = Characters(str(x) for x in v)
    return RValue(cols, "data.frame")


@_r_function("getProfLogL", "matern_loglik")
def get_prof_logl(coords, y, X=None, params=None, reml=False, boxcox=None, *,
                  device=None):
    from ._spatial import matern_loglik

    res = matern_loglik(coords, y, X, params, method="REML" if reml else "ML",
                        boxcox=boxcox, device=device)
    return _frame(res.to_frame())


@_r_function("likfitLgmGpu", "fit_matern", renamed={"data": "coords", "formula": "y"})
def likfit_lgm_gpu(coords, y, coordinates=None, params=None, boxcox=1.0,
                   paramToEstimate=("range", "nugget"), cilevel=0.95, type="double",
                   reml=False, NparamPerIter=None, df=1, minustwotimes=False,
                   Nglobal=None, Nlocal=None, NlocalCache=None, verbose=False, X=None,
                   param=None, profiles=True, profile2d=True, tol=1e-4, *, device=None):
    """gpuRandom's likfitLgmGpu, fitted by Newton steps: ``data`` and ``formula`` arrive as
    the coordinates and the response (the R side evaluates a formula into y and X, and
    computes gpuRandom's grid form itself from getProfLogL); gpuRandom's work sizes are
    accepted and ignored."""
    from ._spatial import fit_matern

    if params is not None and param is None:
        param = params
    estimate = [paramToEstimate] if isinstance(paramToEstimate, str) else list(paramToEstimate)
    fit = fit_matern(coords, y, X, params=dict(param or {}), estimate=tuple(estimate),
                     method="REML" if reml else "ML", profiles=bool(profiles),
                     profile2d=bool(profile2d), level=float(cilevel), tol=float(tol),
                     device=device)
    table = fit.to_frame()
    values = {k: float(v) for k, v in fit.params.items()}
    values.update(sigma2=fit.sigma2, tau2=fit.tau2)
    beta = dict(zip(fit.data.covariates, (float(b) for b in fit.beta), strict=True))
    out = {"parameters": values, "beta": beta, "summary": _frame(table),
           "optimal": {"logL": fit.loglik, "method": fit.method, "aic": fit.aic},
           "fields": dict(fit.fields_params),
           "profiles": {k: _frame(v) for k, v in fit.profiles.items()},
           "evaluations": int(fit.evaluations)}
    if fit.profile2d is not None:
        out["profile2d"] = _frame(fit.profile2d)
    return RValue(out)


@_r_function("qqnormGpu", "random.qqnorm",
             renamed={"lower.tail": "lower_tail", "plot.it": "plot_it"})
def qqnorm_gpu(y, ylim=None, mu=0.0, sigma=1.0, lower_tail=True, main=None, xlab=None,
               ylab=None, plot_it=True, Nglobal=None, Nlocal=None, type="double",
               verbose=False, *, device=None):
    """The coordinates qnorm(ppoints(n), mu, sigma, lower.tail) in the ranks of y (R draws
    the plot; the graphical arguments are R's alone); ``type`` "float" gives them in single
    precision, as clrng's float kernel."""
    from ._special import qqnorm

    x, yy = qqnorm(y, device=device)
    x = float(mu) + float(sigma) * (x if bool(lower_tail) else -x)
    if _dtype(type) == "float32":
        x = x.astype(np.float32).astype(np.float64)
    return RValue({"x": x, "y": yy})


@_r_function("logfactSum", "special.logfact_sum")
def logfact_sum(x, Nglobal=None, *, device=None):
    """``Nglobal`` (clrng's work sizes) is accepted: the device chooses its own."""
    from ._special import logfact_sum as run

    return run(np.asarray(x), device=device)


# ----------------------------------------------------------------------------- files, devices

@_r_function("readGct", "io.read_gct")
def read_gct(path, *, device=None):
    from .io import read_expression

    frame = read_expression(str(path))
    desc = frame.attrs.get("description")
    attributes = {"dimnames": [Characters(str(g) for g in frame.index),
                               Characters(str(s) for s in frame.columns)]}
    if desc is not None:
        attributes["description"] = Characters(str(d) for d in desc)
    return RValue(frame.to_numpy(dtype=np.float64), attributes=attributes)


@_r_function("readCls", "io.read_cls")
def read_cls(path, comparison=None, profile=None, *, device=None):
    from .io import ContinuousPhenotype
    from .io import read_cls as run

    ph = run(str(path), comparison=comparison, profile=profile)
    if isinstance(ph, ContinuousPhenotype):      # #numeric: one numeric column per profile
        return RValue({str(k): np.asarray(v, dtype=np.float64) for k, v in ph.profiles.items()},
                      "data.frame")
    na = np.iinfo(np.int32).min                  # R's NA_integer_: a sample a comparison left out
    codes = np.array([na if x is None else list(ph.classes).index(x) + 1 for x in ph.labels],
                     dtype=np.int32)
    return RValue(codes, "factor", {"levels": Characters(str(c) for c in ph.classes)})


@_r_function("readGmt", "io.read_gmt")
def read_gmt(path, *, device=None):
    from .io import read_gmt as run

    return RValue({str(k): Characters(v) for k, v in run(str(path)).items()})


@_r_function("readRnk", "io.read_rnk")
def read_rnk(path, header="auto", *, device=None):
    from .io import read_rnk as run

    s = run(str(path), header=header)
    return RValue(s.to_numpy(dtype=np.float64),
                  attributes={"names": Characters(str(g) for g in s.index)})


@_r_function("listDevices", "devices")
def list_devices(*, device=None):
    from ._runtime import devices

    found = devices()
    return RValue({"index": np.array([d.index for d in found], dtype=np.int32),
                   "type": Characters(d.type for d in found),
                   "platform": Characters(d.platform for d in found),
                   "name": Characters(d.name for d in found),
                   "computeUnits": np.array([d.compute_units for d in found], dtype=np.int32),
                   "globalMemGiB": np.array([d.global_mem / 2**30 for d in found]),
                   "fp64": np.array([bool(d.fp64) for d in found]),
                   "implementation": Characters(d.implementation for d in found),
                   "usable": np.array([bool(d.usable) for d in found]),
                   "problem": Characters(d.problem for d in found)}, "data.frame")


@_r_function("setDevice", "get_runtime")
def set_device(device=None):
    """The index and label of ``device`` (the bridge keeps the index); of the default device
    for None."""
    from ._runtime import get_runtime

    if isinstance(device, float) and device.is_integer():
        device = int(device)
    info = get_runtime(device).info
    return RValue({"index": int(info.index), "label": f"[{info.index}] {info.platform} | "
                                                      f"{info.name}"})


def _score_matrix(frame) -> RValue:
    """A sets x samples DataFrame as GSVA's matrix (gene sets and samples as dimnames)."""
    return RValue(np.ascontiguousarray(frame.to_numpy(dtype=float)), None,
                  attributes={"dimnames": [Characters(str(s) for s in frame.index),
                                           Characters(str(s) for s in frame.columns)]})


def _expression(expr) -> tuple:
    """``(expression, labels)`` for a single-sample function from what R sent: a DataFrame
    (an R matrix with dimnames) as it is, an R ``dgCMatrix`` as its CSC matrix with its names
    as ``genes=`` and ``samples=``."""
    if isinstance(expr, RSparse):
        if expr.rownames is None:
            raise ValueError("expr needs gene names as row names")
        return expr.matrix, {"genes": expr.rownames, "samples": expr.colnames}
    return expr, {}


def _gsva_method(method, expr, gset_idx_list, **kwargs) -> RValue:
    """GSVA's matrix of a single-sample ``method`` on what R sent."""
    data, labels = _expression(expr)
    return _score_matrix(method(data, _gene_set_list(gset_idx_list), **kwargs, **labels))


def _gene_set_list(gset_idx_list) -> dict:
    if not isinstance(gset_idx_list, dict) or not gset_idx_list or \
            any(not k for k in gset_idx_list):
        raise ValueError("gset.idx.list must be a named list of character vectors")
    return {k: [str(g) for g in np.atleast_1d(v)] for k, v in gset_idx_list.items()}


@_r_function("ssgseaGpu", "ssgsea",
             renamed={"gset.idx.list": "gset_idx_list", "ssgsea.norm": "ssgsea_norm",
                      "min.sz": "min_sz", "max.sz": "max_sz", "parallel.sz": "parallel_sz"})
def ssgsea_gpu(expr, gset_idx_list, tau=0.25, ssgsea_norm=True, flavor="gsva", min_sz=1,
               max_sz=None, parallel_sz=1, verbose=True, assay=None, *, device=None):
    """GSVA 1.46's ``gsva(method = "ssgsea")`` arguments; its sets x samples matrix.
    parallel.sz and verbose are accepted and ignored; R reads the assay of a container."""
    from ._singlesample import ssgsea

    return _gsva_method(ssgsea, expr, gset_idx_list, alpha=tau, normalize=bool(ssgsea_norm),
                        flavor=flavor, min_size=min_sz, max_size=max_sz)


@_r_function("zscoreGpu", "zscore",
             renamed={"gset.idx.list": "gset_idx_list", "min.sz": "min_sz", "max.sz": "max_sz",
                      "parallel.sz": "parallel_sz"})
def zscore_gpu(expr, gset_idx_list, min_sz=1, max_sz=None, parallel_sz=1, verbose=True,
               assay=None, *, device=None):
    """GSVA 1.46's ``gsva(method = "zscore")`` arguments; its sets x samples matrix.
    parallel.sz and verbose are accepted and ignored; R reads the assay of a container."""
    from ._singlesample import zscore

    # a dgCMatrix: its non-zero values scaled, as GSVA's dgCMatrix path
    return _gsva_method(zscore, expr, gset_idx_list, min_size=min_sz, max_size=max_sz,
                        nonzero_only=isinstance(expr, RSparse))


@_r_function("plageGpu", "plage",
             renamed={"gset.idx.list": "gset_idx_list", "min.sz": "min_sz", "max.sz": "max_sz",
                      "parallel.sz": "parallel_sz"})
def plage_gpu(expr, gset_idx_list, min_sz=2, max_sz=None, parallel_sz=1, verbose=True,
              assay=None, *, device=None):
    """GSVA 1.46's ``gsva(method = "plage")`` arguments; its sets x samples matrix.
    parallel.sz and verbose are accepted and ignored; R reads the assay of a container."""
    from ._singlesample import plage

    return _gsva_method(plage, expr, gset_idx_list, min_size=min_sz, max_size=max_sz,
                        nonzero_only=isinstance(expr, RSparse))


@_r_function("gsvaGpu", "gsva",
             renamed={"gset.idx.list": "gset_idx_list", "abs.ranking": "abs_ranking",
                      "mx.diff": "mx_diff", "min.sz": "min_sz", "max.sz": "max_sz",
                      "parallel.sz": "parallel_sz"})
def gsva_gpu(expr, gset_idx_list, kcdf="Gaussian", abs_ranking=False, tau=1.0, mx_diff=True,
             tabulated=True, min_sz=1, max_sz=None, parallel_sz=1, verbose=True, assay=None,
             sparse=False, *, device=None):
    """GSVA 1.46's ``gsva(method = "gsva")`` arguments; its sets x samples matrix (the
    kernel estimate on the device). parallel.sz and verbose are accepted and ignored; R
    reads the assay of a container. ``sparse`` (GSVA 2's ``gsvaParam(sparse = TRUE)``, from
    ``gsva(param)``): GSVA 2's sparse algorithm on a dgCMatrix."""
    from ._singlesample import gsva

    return _gsva_method(gsva, expr, gset_idx_list, kcdf=kcdf, abs_ranking=bool(abs_ranking),
                        tau=tau, mx_diff=bool(mx_diff), tabulated=bool(tabulated),
                        min_size=min_sz, max_size=max_sz, sparse=bool(sparse), device=device)
