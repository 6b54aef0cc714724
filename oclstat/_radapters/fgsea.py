"""The adapters of the R functions that the R package's file of the same name defines: fgsea's
internal fgseaMultilevelCpp and its fora (over- representation).
"""

from __future__ import annotations

import re

import numpy as np

from .base import Characters, RValue, r_function


@r_function("fgseaMultilevelCpp", "gsea_prerank", exported=False)
def fgsea_multilevel_cpp(enrichmentScores, ranks, pathwaySize, sampleSize, seed, eps,
                         sign=False, *, device=None):
    """fgsea's internal fgseaMultilevelCpp: the multilevel p-value of each ES among random
    sets of ``pathwaySize`` genes of ``ranks`` (before fgsea divides by denomProb), and
    whether its estimate is reliable; fgsea's columns."""
    from .._prerank.random_sets import random_set_pvalues

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


@r_function("fora", "ora")
def fora_r(pathways, genes, universe, minSize=1, maxSize=None, *, device=None):
    """fgsea's fora on the device: its table by p-value, overlapGenes left to R (fgsea lists
    them in each pathway's own order)."""
    from .._ora import ora

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
