"""The adapters of the R functions that the R package's file of the same name defines: epistasis
(the exhaustive 2- to 4-way search).
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, r_function


@r_function("epistasis", "epistasis")
def epistasis(genotypes, phenotype, order=4, top=10, test="k2", snpNames=None,
              backend="auto", epi1=1e-4, epi2=0.01, cellmin=5,
              keepAlleleOrder=False, *, device=None):
    from .._epistasis import epistasis as run

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
