"""Writes tests/data/ulm_decoupler.py: decoupler's ULM on a fixed dataset, frozen.

    /path/to/venv/bin/python tests/data/make_ulm_decoupler.py   # a Python with decoupler 2.0

The data (:func:`dataset`, drawn here with a fixed seed): 120 cells x 500 genes of sparse
counts (about 70% zeros, a few genes zero in every cell, one cell all zeros), and a weighted
net of 12 sources with 3 to 60 targets (weights of both signs; some targets absent from the
data; one source below decoupler's ``tmin = 5``). decoupler's ``mt.ulm`` runs on the dense
and on the sparse (CSR) AnnData (the two agree to 1e-11, checked here); its ``score_ulm`` and
``padj_ulm`` are kept with 17 significant digits. decoupler drops the empty cell; its rows are
the other cells.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def dataset():
    """``(counts, net)``: a cells x genes DataFrame and a decoupler net."""
    rng = np.random.default_rng(20261127)
    cells, genes = 120, 500
    x = rng.poisson(rng.gamma(0.6, 2.0, size=genes), size=(cells, genes)).astype(float)
    x[:, :4] = 0.0                      # genes expressed nowhere
    x[70] = 0.0                         # a cell with no counts
    x[:40, 100:130] += rng.poisson(4.0, size=(40, 30))
    counts = pd.DataFrame(np.log1p(x), index=[f"cell{i}" for i in range(cells)],
                          columns=[f"G{j}" for j in range(genes)])
    rows = []
    for s, size in enumerate([3, 6, 10, 15, 20, 25, 30, 40, 45, 50, 55, 60]):
        targets = rng.choice(genes + 20, size=size, replace=False)   # some not in the data
        for t in targets:
            rows.append((f"TF{s}", f"G{t}", float(np.round(rng.normal(), 6))))
    rows += [("TF12", f"G{j}", 1.0) for j in range(100, 130)]
    net = pd.DataFrame(rows, columns=["source", "target", "weight"])
    return counts, net


def main() -> None:
    import anndata as ad
    import decoupler as dc
    import scipy.sparse as sps

    counts, net = dataset()
    out = {}
    for kind, matrix in (("dense", counts.to_numpy()), ("sparse", sps.csr_matrix(counts))):
        adata = ad.AnnData(matrix, obs=pd.DataFrame(index=counts.index),
                           var=pd.DataFrame(index=counts.columns))
        repaired = dc.mt.ulm(adata, net, tmin=5)
        adata = repaired if repaired is not None else adata
        out[kind] = (adata.obsm["score_ulm"], adata.obsm["padj_ulm"])
    score, padj = out["dense"]
    def wrapped(name, items):
        body = textwrap.fill(", ".join(items), width=95, initial_indent="    ",
                             subsequent_indent="    ", break_long_words=False)
        return f"{name} = [\n{body},\n]"

    lines = ['"""decoupler ' + dc.__version__ + "'s ULM on make_ulm_decoupler.py's dataset "
             "(written by that\nscript), cells x sources, row after row.\"\"\"", "",
             wrapped("CELLS", [repr(str(c)) for c in score.index]),
             wrapped("SOURCES", [repr(str(c)) for c in score.columns])]
    # decoupler's sparse path gives its dense numbers (checked here, kept once)
    np.testing.assert_allclose(out["sparse"][0].to_numpy(), score.to_numpy(), rtol=1e-11)
    for name, frame in (("SCORE", score), ("PADJ", padj)):
        lines.append(wrapped(name, [f"{v:.17g}" for v in frame.to_numpy().ravel()]))
    (HERE / "ulm_decoupler.py").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
