"""Writes tests/data/fgsea_score_types.py: fgsea's results for its three score types, frozen.

    R_LIBS=DIR python tests/data/make_fgsea_score_types.py   # needs Rscript and fgsea in DIR

The data (:func:`dataset`, drawn here with a fixed seed): 4,000 genes with normal statistics,
sets at the top, at the bottom and at random, some shifted far enough for p-values only the
multilevel method reaches. fgsea runs with ``nPermSimple = 10000`` and ``eps = 0`` for
``scoreType`` "std", "pos" and "neg"; its ES, NES, p-values and log2err are kept with 17
significant digits.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
SCORE_TYPES = ("std", "pos", "neg")


def dataset():
    """``(stats, sets)``: a Series of 4,000 statistics by gene and 24 gene sets."""
    rng = np.random.default_rng(20261125)
    n = 4000
    stats = pd.Series(rng.normal(size=n), index=[f"G{i}" for i in range(n)])
    order = stats.sort_values(ascending=False).index
    sets = {}
    for j in range(24):
        k = int(rng.integers(12, 90))
        if j < 6:          # near the top
            genes = order[rng.choice(300 + 100 * j, k, replace=False)]
        elif j < 12:       # near the bottom
            genes = order[n - 1 - rng.choice(300 + 100 * (j - 6), k, replace=False)]
        else:              # anywhere
            genes = order[rng.choice(n, k, replace=False)]
        sets[f"set{j:02d}"] = [str(g) for g in genes]
    return stats, sets


R_SCRIPT = r"""
suppressMessages(library(fgsea))
a <- commandArgs(TRUE)
s <- read.table(a[1], sep = "\t", header = FALSE)
stats <- setNames(s$V2, s$V1)
p <- gmtPathways(a[2])
out <- NULL
for (st in c("std", "pos", "neg")) {
  set.seed(1)
  r <- fgsea(p, stats, scoreType = st, nPermSimple = 10000, eps = 0, minSize = 1)
  out <- rbind(out, data.frame(score = st, pathway = r$pathway, ES = r$ES, NES = r$NES,
                               pval = r$pval, log2err = r$log2err))
}
write.table(format(out, digits = 17), a[3], sep = "\t", quote = FALSE, row.names = FALSE)
cat(as.character(packageVersion("fgsea")))
"""


def main() -> None:
    stats, sets = dataset()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        stats.to_csv(tmp / "stats.tsv", sep="\t", header=False)
        (tmp / "sets.gmt").write_text("".join(f"{k}\tna\t" + "\t".join(v) + "\n"
                                              for k, v in sets.items()))
        (tmp / "run.R").write_text(R_SCRIPT)
        version = subprocess.run(["Rscript", str(tmp / "run.R"), str(tmp / "stats.tsv"),
                                  str(tmp / "sets.gmt"), str(tmp / "out.tsv")],
                                 capture_output=True, text=True, check=True).stdout.strip()
        table = pd.read_csv(tmp / "out.tsv", sep="\t", na_values=["NA"])
    lines = [f'"""fgsea {version}\'s results on make_fgsea_score_types.dataset(), frozen by',
             "make_fgsea_score_types.py (nPermSimple = 10000, eps = 0).",
             "",
             'Each entry: (scoreType, pathway, ES, NES, pval, log2err); log2err None where fgsea',
             'gives NA."""', "# ruff: noqa: E501", "", "CASES = ["]
    for row in table.itertuples(index=False):
        err = "None" if pd.isna(row.log2err) else repr(float(row.log2err))
        lines.append(f"    ({row.score!r}, {row.pathway!r}, {float(row.ES)!r}, "
                     f"{float(row.NES)!r}, {float(row.pval)!r}, {err}),")
    lines.append("]")
    (HERE / "fgsea_score_types.py").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
