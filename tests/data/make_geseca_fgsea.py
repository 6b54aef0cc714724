"""Writes tests/data/geseca_fgsea.py: fgsea's GESECA results on a fixed dataset, frozen.

    R_LIBS=DIR python tests/data/make_geseca_fgsea.py   # needs Rscript and fgsea in DIR

The data (:func:`dataset`, drawn here with a fixed seed): 2,000 genes x 16 samples of normal
noise, with modules of 10 to 80 genes sharing a profile at strengths from faint to strong
(p-values from about 0.5 down to below 1e-30), and sets drawn at random. fgsea's ``geseca``
runs with ``eps = 0`` (multilevel p-values without a floor) under ``set.seed(1)`` to
``set.seed(4)``; its ``pctVar`` and the mean and standard deviation of log10 p over the four
runs are kept with 17 significant digits, and ``gesecaSimple`` (``nperm = 2000``,
``set.seed(1)``) gives its ``nMoreExtreme``.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def dataset():
    """``(E, sets)``: a genes x samples DataFrame and 20 gene sets."""
    rng = np.random.default_rng(20261127)
    n, m = 2000, 16
    E = pd.DataFrame(rng.normal(size=(n, m)), index=[f"G{i}" for i in range(n)],
                     columns=[f"S{j}" for j in range(m)])
    sets = {}
    strengths = [0.0, 0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.3, 1.6]
    genes = rng.permutation(n)
    used = 0
    for j, strength in enumerate(strengths):
        k = int(rng.integers(10, 80))
        members = genes[used:used + k]
        used += k
        profile = rng.normal(size=m)
        E.iloc[members] += strength * profile
        sets[f"module{j:02d}"] = [f"G{i}" for i in members]
    for j in range(10):
        k = int(rng.integers(5, 150))
        sets[f"random{j:02d}"] = [f"G{i}" for i in rng.choice(n, k, replace=False)]
    return E, sets


R_SCRIPT = r"""
suppressMessages(library(fgsea))
a <- commandArgs(TRUE)
E <- as.matrix(read.table(a[1], sep = "\t", header = TRUE, row.names = 1))
p <- gmtPathways(a[2])
runs <- lapply(1:4, function(s) {
  set.seed(s)
  r <- geseca(p, E, eps = 0)
  r[order(r$pathway), ]
})
lp <- sapply(runs, function(r) log10(r$pval))
set.seed(1)
simple <- gesecaSimple(p, E, nperm = 2000)
simple <- simple[match(runs[[1]]$pathway, simple$pathway), ]
out <- data.frame(pathway = runs[[1]]$pathway, pctVar = runs[[1]]$pctVar,
                  meanLog10p = rowMeans(lp), sdLog10p = apply(lp, 1, sd),
                  log2err = rowMeans(sapply(runs, function(r) r$log2err)),
                  nMoreExtreme = simple$nMoreExtreme, size = runs[[1]]$size)
write.table(format(out, digits = 17), a[3], sep = "\t", quote = FALSE, row.names = FALSE)
cat(as.character(packageVersion("fgsea")))
"""


def main() -> None:
    E, sets = dataset()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        E.to_csv(tmp / "E.tsv", sep="\t", float_format="%.17g")
        (tmp / "sets.gmt").write_text("".join(f"{k}\tna\t" + "\t".join(v) + "\n"
                                              for k, v in sets.items()))
        (tmp / "run.R").write_text(R_SCRIPT)
        version = subprocess.run(["Rscript", str(tmp / "run.R"), str(tmp / "E.tsv"),
                                  str(tmp / "sets.gmt"), str(tmp / "out.tsv")],
                                 capture_output=True, text=True, check=True).stdout.strip()
        table = pd.read_csv(tmp / "out.tsv", sep="\t")
    lines = [f'"""fgsea {version}\'s GESECA on make_geseca_fgsea.dataset(), frozen by',
             "make_geseca_fgsea.py (geseca with eps = 0 under set.seed(1..4); gesecaSimple with",
             "nperm = 2000 under set.seed(1)).",
             "",
             "Each entry: (pathway, pctVar, mean log10 p, sd of log10 p over the 4 runs, mean",
             'log2err, gesecaSimple nMoreExtreme, size)."""', "# ruff: noqa: E501", "",
             "CASES = ["]
    def num(x) -> str:
        x = float(x)
        return repr(x) if np.isfinite(x) else f'float("{x}")'

    for r in table.itertuples(index=False):
        lines.append(f"    ({r.pathway!r}, {num(r.pctVar)}, {num(r.meanLog10p)}, "
                     f"{num(r.sdLog10p)}, {num(r.log2err)}, {int(r.nMoreExtreme)}, "
                     f"{int(r.size)}),")
    lines.append("]")
    (HERE / "geseca_fgsea.py").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
