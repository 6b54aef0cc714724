"""Writes tests/data/ucell_reference.py: UCell's scores on a fixed dataset, frozen.

    python tests/data/make_ucell_reference.py UCELL_SOURCE_DIR   # needs Rscript, data.table,
                                                                 # Matrix and BiocParallel

UCell (Bioconductor, carmonalab/UCell) needs R >= 4.3 and BiocNeighbors to install; its
scoring is R/HelperFunctions.R (``calculate_Uscore``: ranks by data.table's ``frankv``,
Mann-Whitney U per signature), which runs on R 4.2 with data.table, Matrix and BiocParallel.
This script sources that file from UCell's source tree as it is and calls
``calculate_Uscore`` (UCell's ``ScoreSignatures_UCell`` without its input dispatch).

The data (:func:`dataset`): 400 genes x 60 cells of sparse counts (log1p of Poisson, many
ties and zeros), signatures of 5 to 40 genes, some with ``-`` (negative) and ``+`` members,
some naming genes not in the data. Runs: maxRank 100 with missing genes imputed and skipped,
w_neg 1 and 0.5; maxRank 1500 (more than the genes: UCell takes all 400). Scores kept with
17 significant digits.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent

#: (maxRank, missing_genes, w_neg) of each run.
RUNS = [(100, "impute", 1.0), (100, "skip", 1.0), (100, "impute", 0.5), (1500, "impute", 1.0)]


def dataset():
    """``(counts, signatures)``: a genes x cells DataFrame and {name: genes}."""
    rng = np.random.default_rng(20261128)
    genes, cells = 400, 60
    x = rng.poisson(rng.gamma(0.5, 1.5, size=genes)[:, None], size=(genes, cells)).astype(float)
    x[:30, :20] += rng.poisson(3.0, size=(30, 20))
    counts = pd.DataFrame(np.log1p(x), index=[f"G{i}" for i in range(genes)],
                          columns=[f"C{j}" for j in range(cells)])
    sigs = {"up": [f"G{i}" for i in range(20)],
            "mixed": [f"G{i}" for i in range(20, 30)] + [f"G{i}-" for i in range(300, 310)],
            "plus": [f"G{i}+" for i in range(5, 12)] + ["G350-"],
            "absent": [f"G{i}" for i in range(100, 110)] + ["NOPE1", "NOPE2"],
            "random": [f"G{i}" for i in rng.choice(genes, 40, replace=False)],
            "small": ["G0", "G1", "G399", "G398", "G200"]}
    return counts, sigs


R_SCRIPT = r"""
suppressMessages({library(data.table); library(Matrix); library(BiocParallel)})
a <- commandArgs(TRUE)
source(file.path(a[1], "R", "HelperFunctions.R"))
m <- as.matrix(read.table(a[2], sep = "\t", header = TRUE, row.names = 1))
lines <- strsplit(readLines(a[3]), "\t")
sigs <- setNames(lapply(lines, function(l) l[-(1:2)]), vapply(lines, `[`, "", 1))
runs <- read.table(a[4], sep = "\t", header = TRUE, stringsAsFactors = FALSE)
out <- NULL
for (i in seq_len(nrow(runs))) {
  u <- calculate_Uscore(m, sigs, maxRank = runs$maxRank[i], chunk.size = 25,
                        BPPARAM = SerialParam(), w_neg = runs$w_neg[i],
                        missing_genes = runs$missing[i], name = "")
  u <- Reduce(rbind, lapply(u, function(x) x[["cells_U"]]))
  out <- rbind(out, data.frame(run = i - 1, cell = rownames(u), u, check.names = FALSE))
}
write.table(out, a[5], sep = "\t", quote = FALSE, row.names = FALSE)
"""


def main(ucell_source: str) -> None:
    counts, sigs = dataset()
    version = next(line.split(":", 1)[1].strip() for line in
                   (Path(ucell_source) / "DESCRIPTION").read_text().splitlines()
                   if line.startswith("Version:"))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        counts.to_csv(tmp / "x.tsv", sep="\t", float_format="%.17g")
        (tmp / "sigs.gmt").write_text("".join(f"{k}\tna\t" + "\t".join(v) + "\n"
                                              for k, v in sigs.items()))
        pd.DataFrame(RUNS, columns=["maxRank", "missing", "w_neg"]).to_csv(
            tmp / "runs.tsv", sep="\t", index=False)
        (tmp / "run.R").write_text(R_SCRIPT)
        subprocess.run(["Rscript", str(tmp / "run.R"), ucell_source, str(tmp / "x.tsv"),
                        str(tmp / "sigs.gmt"), str(tmp / "runs.tsv"), str(tmp / "out.tsv")],
                       check=True)
        table = pd.read_csv(tmp / "out.tsv", sep="\t")

    def wrapped(name, items):
        body = textwrap.fill(", ".join(items), width=95, initial_indent="    ",
                             subsequent_indent="    ", break_long_words=False)
        return f"{name} = [\n{body},\n]"

    names = list(sigs)
    lines = [f'"""UCell {version}\'s calculate_Uscore on make_ucell_reference.dataset(), frozen '
             "by\nmake_ucell_reference.py: SCORES[run] is cells x signatures, row after row, "
             'for RUNS[run]."""', "",
             f"RUNS = {RUNS!r}", f"SIGNATURES = {names!r}",
             wrapped("CELLS", [repr(c) for c in table.loc[table.run == 0, "cell"]]),
             "SCORES = {}"]
    for run in range(len(RUNS)):
        values = table.loc[table.run == run, names].to_numpy().ravel()
        lines.append(wrapped(f"SCORES[{run}]", [f"{v:.17g}" for v in values]))
    (HERE / "ucell_reference.py").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
