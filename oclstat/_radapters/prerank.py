"""The adapters of the R functions that the R package's file of the same name defines: fgseaGpu
(fgsea's fgsea), collapsePathways and readRnk.
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, r_function


@r_function("fgseaGpu", "gsea_prerank")
def fgsea_gpu(pathways, stats, minSize=1, maxSize=None, gseaParam=1.0, eps=1e-50,
              scoreType="std", nproc=0, BPPARAM=None, nPermSimple=1000,
              method="multilevel", sampleSize=101, seed=None, *, device=None):
    """fgsea's arguments, defaults (sizes 1 to length(stats) - 1) and row order (the
    pathways'); nproc and BPPARAM are accepted and ignored (the device does the work)."""
    import pandas as pd

    from .._prerank import gsea_prerank

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


@r_function("collapsePathways", "collapse_pathways",
             renamed={"pval.threshold": "pval_threshold"})
def collapse_pathways_r(fgseaRes, pathways, stats, pval_threshold=0.05, nperm=None,
                        gseaParam=1.0, seed=None, *, device=None):
    """fgsea's collapsePathways on the rows of ``fgseaRes`` ({"pathway": names, "ES":
    scores}), in their order: the main pathways, and every pathway's parent ("" for a main
    one; R makes it NA)."""
    import pandas as pd

    from .._prerank import collapse_pathways

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


@r_function("readRnk", "io.read_rnk")
def read_rnk(path, header="auto", *, device=None):
    from ..io import read_rnk as run

    s = run(str(path), header=header)
    return RValue(s.to_numpy(dtype=np.float64),
                  attributes={"names": Characters(str(g) for g in s.index)})
