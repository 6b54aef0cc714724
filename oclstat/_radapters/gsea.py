"""The adapters of the R functions that the R package's file of the same name defines: gsea
(phenotype permutations) and the GSEA file readers readGct, readCls, readGmt.
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, r_function


@r_function("gsea", "gsea")
def gsea(expr, labels, geneSets, nperm=1000, metric=None, weight=1.0,
         minSize=15, maxSize=500, seed=None, permutation="phenotype", classes=None, *,
         device=None):
    """``labels``: class labels, or numbers with a profile metric (a continuous phenotype);
    ``classes``: c(A, B) or Broad's "A_versus_B" / "A_versus_REST"."""
    from .._gsea import gsea as run
    from .._gsea.core import PROFILE_METRICS
    from .._gsea.validate import metric_name
    from .._multitest import benjamini_hochberg

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


@r_function("readGct", "io.read_gct")
def read_gct(path, *, device=None):
    from ..io import read_expression

    frame = read_expression(str(path))
    desc = frame.attrs.get("description")
    attributes = {"dimnames": [Characters(str(g) for g in frame.index),
                               Characters(str(s) for s in frame.columns)]}
    if desc is not None:
        attributes["description"] = Characters(str(d) for d in desc)
    return RValue(frame.to_numpy(dtype=np.float64), attributes=attributes)


@r_function("readCls", "io.read_cls")
def read_cls(path, comparison=None, profile=None, *, device=None):
    from ..io import ContinuousPhenotype
    from ..io import read_cls as run

    ph = run(str(path), comparison=comparison, profile=profile)
    if isinstance(ph, ContinuousPhenotype):      # #numeric: one numeric column per profile
        return RValue({str(k): np.asarray(v, dtype=np.float64) for k, v in ph.profiles.items()},
                      "data.frame")
    na = np.iinfo(np.int32).min                  # R's NA_integer_: a sample a comparison left out
    codes = np.array([na if x is None else list(ph.classes).index(x) + 1 for x in ph.labels],
                     dtype=np.int32)
    return RValue(codes, "factor", {"levels": Characters(str(c) for c in ph.classes)})


@r_function("readGmt", "io.read_gmt")
def read_gmt(path, *, device=None):
    from ..io import read_gmt as run

    return RValue({str(k): Characters(v) for k, v in run(str(path)).items()})
