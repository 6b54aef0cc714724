"""GSVA 2's own code run from its source tree, for the pinned references and the benchmarks
(never part of oclstat): its C built with ``R CMD SHLIB`` as its package builds it, and an R
prelude that loads that library and evaluates the functions of ``gsva(gsvaParam)``'s path
from its R/gsva.R and R/utils.R as they are written.

    from gsva2_source import build, prelude      # with tools/ on sys.path
    so = build(Path("GSVA"), Path(tmp))           # rcastelo/GSVA >= 1.53.31
    r_code = prelude(Path("GSVA"), so) + "..."    # then GSVA 2's .compute_gsva_ranks() etc.

Needs a C compiler and R with IRanges, sparseMatrixStats, BiocParallel, cli and Matrix
(Debian's R packages).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

#: The functions of GSVA 2's path from a matrix to its GSVA scores (gsvaRanks, gsvaScores).
FUNCTIONS = ("compute.gene.cdf", ".parse_kcdf_param", ".sufficient_ssize",
             ".compute_gsva_ranks", ".ranks2stats_nas", ".ranks2stats", ".gsvaRndWalk",
             ".gsvaRndWalk_nas", ".compute_gsva_scores", ".filterGenes",
             ".ecdfvals_dense_to_dense", ".ecdfvals_dense_to_dense_nas")


def build(source: Path, where: Path) -> Path:
    """GSVA 2's C (``source``/src/*.c) built into ``where``/GSVA.so."""
    headers = subprocess.run(
        ["Rscript", "-e", 'cat(system.file("include", package = "cli"), '
                          'system.file("include", package = "Matrix"))'],
        capture_output=True, text=True, check=True).stdout.split()
    for c in (source / "src").glob("*.c"):
        shutil.copy(c, where)
    env = {**os.environ, "PKG_CPPFLAGS": " ".join(f"-I{h}" for h in headers)}
    subprocess.run(["R", "CMD", "SHLIB", "-o", "GSVA.so",
                    *sorted(p.name for p in where.glob("*.c"))],
                   cwd=where, check=True, env=env, capture_output=True)
    return where / "GSVA.so"


def prelude(source: Path, so: Path) -> str:
    """R code that loads GSVA 2's built C and defines :data:`FUNCTIONS` from its R files."""
    wanted = ", ".join(f'"{f}"' for f in FUNCTIONS)
    return f"""
suppressMessages({{library(IRanges); library(sparseMatrixStats); library(BiocParallel)
                  library(cli); library(Matrix)}})
dyn.load("{so}")
local({{
  want <- c({wanted})
  for (f in c("gsva.R", "utils.R")) for (e in parse(file.path("{source}", "R", f)))
    if (is.call(e) && as.character(e[[1]]) %in% c("<-", "=") &&
        as.character(e[[2]]) %in% want) eval(e, globalenv())
  stopifnot(all(vapply(want, exists, TRUE)))
}})
# GSVA 2's gsvaRanks() then gsvaScores() on a matrix, with missing values (any_na = TRUE)
gsva2 <- function(x, sets, kcdf, use, minSize = 1, tau = 1, maxDiff = TRUE,
                  absRanking = FALSE) {{
  f <- suppressMessages(.filterGenes(x, removeConstant = TRUE, removeNzConstant = TRUE))
  R <- .compute_gsva_ranks(f, kcdf, 200, sparse = FALSE, any_na = TRUE, na_use = use,
                           verbose = FALSE)
  idx <- lapply(sets, function(s) as.vector(na.omit(match(s, rownames(f)))))
  idx <- idx[lengths(idx) >= minSize]
  es <- suppressMessages(.compute_gsva_scores(R, idx, tau, maxDiff, absRanking,
                                              sparse = FALSE, any_na = TRUE, na_use = use,
                                              minSize = minSize, verbose = FALSE))
  dimnames(es) <- list(names(idx), colnames(x))
  es
}}
"""
