"""The adapters of the R functions that the R package's file of the same name defines: geseca
(fgsea's gene set co-regulation analysis).
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, r_function


@r_function("geseca", "geseca")
def geseca_r(pathways, E, minSize=1, maxSize=None, center=True, scale=False,
             sampleSize=101, eps=1e-50, nproc=0, BPPARAM=None, nPermSimple=1000,
             *, method="multilevel", seed=None, device=None):
    """fgsea's geseca (``method="simple"``: gesecaSimple, ``nPermSimple`` its ``nperm``):
    its arguments, columns and row order (by p-value; by pathway when no pathway needed
    multilevel splitting). nproc and BPPARAM are accepted and ignored."""
    import pandas as pd

    from .._geseca import geseca

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
