"""Writes rbridge/tests/testthat/gsva2_gsva_na_{values,counts}.csv, gsva2_gsva_na_sets.gmt and
gsva2_gsva_na_reference.csv: GSVA 2's GSVA scores of expression with missing values
(``gsvaParam(use = "everything" / "na.rm")``, Gaussian, Poisson and direct estimates), frozen,
from GSVA 2's own code: its C (src/*.c, built here with ``R CMD SHLIB``) and the R functions
of ``gsva(gsvaParam)``'s path in R/gsva.R and R/utils.R, evaluated as they are
(tools/gsva2_source.py).

    python tests/data/make_gsva2_gsva_na_reference.py GSVA_SOURCE_DIR   # rcastelo/GSVA >= 1.53.31

Needs IRanges, sparseMatrixStats, BiocParallel, cli and Matrix (Debian's R packages) and a C
compiler. The path is GSVA 2's gsvaRanks() then gsvaScores() on a matrix:
``.filterGenes`` (constant genes out: those whose values that are not NA are all equal; a gene
with no value stays), ``.compute_gsva_ranks`` (any_na = TRUE), the sets mapped to the filtered
rows and kept by size (``.filterAndMapGeneSets``), ``.compute_gsva_scores``.

Two faults of GSVA 2 1.53.31 are kept out of the frozen cases, and oclstat does not copy them:

* with ``use = "everything"`` and a kernel, its C (``row_d_naprop``) reads one value past a
  gene's own (``while (!ISNA(x[i]) && i < n)`` tests ``x[n]``, the next gene's value in the
  first sample), so a gene without missing values followed by one missing in the first sample
  loses every estimate (shown below on the first case's input, then avoided: no value is
  missing in the first sample, but for a gene missing everywhere, placed first);
* with ``maxDiff = FALSE`` and a sample with NA scores, its R puts the scores of the first
  sets in the places of the sets that are not NA (``md[cbind(1:sum(!mask), ...)]``); the
  ``maxDiff = FALSE`` case scores the three sets that have no NA score (checked).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "rbridge" / "tests" / "testthat"
sys.path.insert(0, str(ROOT / "tools"))
import gsva2_source  # noqa: E402

R_SCRIPT = r"""
out <- commandArgs(TRUE)[1]
set.seed(20261128)
genes <- paste0("G", 1:90)
samples <- paste0("s", 1:14)
x <- matrix(round(rnorm(90 * 14), 2), 90, dimnames = list(genes, samples))
x[2:16, 1:7] <- x[2:16, 1:7] + 1.2        # a set up in half the samples; rounding makes ties
counts <- matrix(rpois(90 * 14, 6), 90, dimnames = dimnames(x))
counts[2:16, 1:7] <- counts[2:16, 1:7] + 4L
holes <- function(m) {
  m[cbind(sample(17:90, 60, TRUE), sample(2:14, 60, TRUE))] <- NA  # the set "up" has none
  m[20, 2:4] <- NA
  m[30:45, 14] <- NA                       # a sample missing many of its genes
  m[60, 3:14] <- NA                        # two values left
  m[1, ] <- NA                             # missing everywhere (first: see the docstring)
  m
}
x <- holes(x)
counts <- holes(counts)
stopifnot(is.integer(counts))
sets <- list(up = genes[2:16], mid = genes[12:40], low = genes[41:88], six = genes[30:35],
             edge = c("G1", "G20", "G60", "G61", "G62", "nope"))

# GSVA 2's read past a gene's values (use = "everything"): G3 has no missing value, G4 one in
# the first sample, and every estimate of G3 is lost
y <- x[2:10, ]; y[2, ] <- round(rnorm(14), 2); y[3, 1] <- NA
r <- .compute_gsva_ranks(y, "Gaussian", 200, FALSE, TRUE, "everything", FALSE)
stopifnot(!anyNA(y[2, ]), all(is.na(r[2, ])))

cases <- list(
  gaussian_everything = list(x = "values", kcdf = "Gaussian", use = "everything"),
  gaussian_narm = list(x = "values", kcdf = "Gaussian", use = "na.rm"),
  gaussian_narm_min5 = list(x = "values", kcdf = "Gaussian", use = "na.rm", minSize = 5),
  gaussian_narm_options = list(x = "values", kcdf = "Gaussian", use = "na.rm", tau = 0.5,
                               absRanking = TRUE),
  gaussian_narm_larger = list(x = "values", kcdf = "Gaussian", use = "na.rm",
                              maxDiff = FALSE, sets = c("up", "mid", "low")),
  poisson_everything = list(x = "counts", kcdf = "Poisson", use = "everything"),
  poisson_narm = list(x = "counts", kcdf = "Poisson", use = "na.rm"),
  none_everything = list(x = "values", kcdf = "none", use = "everything"),
  none_narm = list(x = "values", kcdf = "none", use = "na.rm"))
rows <- NULL
for (k in names(cases)) {
  p <- modifyList(list(minSize = 1, tau = 1, maxDiff = TRUE, absRanking = FALSE,
                       sets = names(sets)), cases[[k]])
  es <- gsva2(if (p$x == "values") x else counts, sets[p$sets], p$kcdf, p$use, p$minSize, p$tau,
              p$maxDiff, p$absRanking)
  if (!p$maxDiff) stopifnot(!anyNA(es))
  rows <- rbind(rows, data.frame(case = k, input = p$x, kcdf = p$kcdf, use = p$use,
                                 min_size = p$minSize, tau = p$tau, max_diff = p$maxDiff,
                                 abs_ranking = p$absRanking,
                                 set = rep(rownames(es), ncol(es)),
                                 sample = rep(colnames(es), each = nrow(es)),
                                 score = ifelse(is.na(as.vector(es)), "NA",
                                                sprintf("%.17g", as.vector(es)))))
}
write.csv(x, file.path(out, "gsva2_gsva_na_values.csv"), quote = FALSE)
write.csv(counts, file.path(out, "gsva2_gsva_na_counts.csv"), quote = FALSE)
writeLines(vapply(names(sets), function(s) paste(c(s, "-", sets[[s]]), collapse = "\t"), ""),
           file.path(out, "gsva2_gsva_na_sets.gmt"))
write.csv(rows, file.path(out, "gsva2_gsva_na_reference.csv"), row.names = FALSE,
          quote = FALSE)
"""


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = Path(sys.argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        code = gsva2_source.prelude(source, gsva2_source.build(source, Path(tmp))) + R_SCRIPT
        if subprocess.run(["Rscript", "-e", code, str(OUT)]).returncode:
            sys.exit("GSVA 2's run failed (its message above)")
    print(f"wrote {OUT.relative_to(ROOT)}/gsva2_gsva_na_*")


if __name__ == "__main__":
    main()
