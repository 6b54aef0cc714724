"""Writes rbridge/tests/testthat/gsva2_na_input.csv and gsva2_na_reference.csv: GSVA 2's
ssGSEA scores of expression with missing values (``ssgseaParam(use = "everything" / "na.rm")``),
frozen, from GSVA 2's own ``ssgsea()`` (its R/ssgsea.R, sourced as it is).

    python tests/data/make_gsva2_na_reference.py GSVA_SOURCE_DIR    # rcastelo/GSVA >= 1.53.31

GSVA 2's ssgsea() needs IRanges, sparseMatrixStats, BiocParallel and cli (Debian's R packages
have them). The sets are mapped to rows and filtered by size as GSVA 2's gsva(ssgseaParam)
does (``.filterAndMapGenesAndGeneSets``: members found in the data, minSize <= size <=
maxSize); ssgsea() gets ``any_na = TRUE`` (the data has NA and checkNA found them) and the
case's ``na_use``, ``minSize``, ``alpha`` and ``normalization``. Scores kept with 17
significant digits, NA as NA. The R package's test-gsva2.R runs the same calls through
oclstat's gsva(ssgseaParam(...)); tests/test_ssgsea_missing.py through oclstat.ssgsea.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "rbridge" / "tests" / "testthat"

R_SCRIPT = r"""
suppressMessages({library(IRanges); library(sparseMatrixStats); library(BiocParallel)
                  library(cli)})
a <- commandArgs(TRUE)
source(file.path(a[1], "R", "ssgsea.R"))
set.seed(20261128)
genes <- paste0("G", 1:120)
x <- matrix(round(rnorm(120 * 12), 2), 120, dimnames = list(genes, paste0("s", 1:12)))
x[1:15, 1:6] <- x[1:15, 1:6] + 1          # a set up in half the samples; rounding makes ties
x[sample(length(x), 70)] <- NA
x[3, 2] <- NA
x[1:30, 12] <- NA                          # a sample missing a quarter of its genes
x[40, ] <- NA                              # a gene missing everywhere
write.csv(x, a[2], quote = FALSE)
x <- as.matrix(read.csv(a[2], row.names = 1))   # the values as the tests read them (ties)
sets <- list(up = genes[1:15], mid = genes[10:40], big = genes[50:100],
             six = genes[101:106], three = c("G40", "G41", "G42"), one = c("nope", "G2"))
cases <- list(
  everything = list(use = "everything", min = 1, alpha = 0.25, norm = TRUE),
  everything_raw = list(use = "everything", min = 1, alpha = 0.25, norm = FALSE),
  narm = list(use = "na.rm", min = 1, alpha = 0.25, norm = TRUE),
  narm_min5 = list(use = "na.rm", min = 5, alpha = 0.25, norm = TRUE),
  narm_alpha = list(use = "na.rm", min = 1, alpha = 0.5, norm = FALSE))
rows <- NULL
for (k in names(cases)) {
  p <- cases[[k]]
  idx <- lapply(sets, function(s) as.vector(na.omit(match(s, rownames(x)))))
  idx <- idx[lengths(idx) >= p$min]
  es <- suppressMessages(ssgsea(x, idx, alpha = p$alpha, normalization = p$norm,
                                any_na = TRUE, na_use = p$use, minSize = p$min,
                                verbose = FALSE))
  rows <- rbind(rows, data.frame(case = k, use = p$use, min_size = p$min, alpha = p$alpha,
                                 normalize = p$norm, set = rep(rownames(es), ncol(es)),
                                 sample = rep(colnames(es), each = nrow(es)),
                                 score = ifelse(is.na(as.vector(es)), "NA",
                                                sprintf("%.17g", as.vector(es)))))
}
write.csv(rows, a[3], row.names = FALSE, quote = FALSE)
"""


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    subprocess.run(["Rscript", "-e", R_SCRIPT, sys.argv[1], str(OUT / "gsva2_na_input.csv"),
                    str(OUT / "gsva2_na_reference.csv")], check=True)
    print(f"wrote {OUT.relative_to(ROOT)}/gsva2_na_input.csv and gsva2_na_reference.csv")


if __name__ == "__main__":
    main()
