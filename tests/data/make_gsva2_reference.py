"""Writes rbridge/tests/testthat/gsva2_reference.csv: GSVA 2's scores through its own
interface (gsvaParam, ssgseaParam, zscoreParam, plageParam, gsva(param)), frozen.

    R_LIBS=DIR python tests/data/make_gsva2_reference.py    # DIR: GSVA >= 1.53.31 (GSVA 2)

GSVA 2 (Bioconductor 3.20, rcastelo/GSVA) installs on Debian's R 4.2 from its source with
SpatialExperiment (drighelli/SpatialExperiment) built beside it. The inputs and the calls
are rbridge/tests/testthat/helper-gsva2-data.R's, which the R package's test runs through
oclstat's gsva(param) and compares with this file: kcdf "auto" choosing Gaussian, Poisson
and the direct estimate, GSVA's options, a dgCMatrix with the classical algorithm
(sparse = FALSE) and with GSVA 2's sparse one (its default: Gaussian, Poisson and direct
estimates, options), ssGSEA, z-score and PLAGE on dense and dgCMatrix input. Scores kept with
17 significant digits, with the size of each set's geneSets attribute.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELPER = ROOT / "rbridge" / "tests" / "testthat" / "helper-gsva2-data.R"
OUT = ROOT / "rbridge" / "tests" / "testthat" / "gsva2_reference.csv"

R_SCRIPT = r"""
suppressMessages(library(GSVA))
a <- commandArgs(TRUE)
source(a[1])
d <- gsva2_inputs()
cases <- gsva2_cases(asNamespace("GSVA"), d)
rows <- do.call(rbind, lapply(names(cases), function(k) gsva2_long(k, cases[[k]]())))
rows$score <- sprintf("%.17g", rows$score)
write.csv(rows, a[2], row.names = FALSE, quote = FALSE)
cat(as.character(packageVersion("GSVA")), "\n")
"""


def main() -> None:
    version = subprocess.run(["Rscript", "-e", R_SCRIPT, str(HELPER), str(OUT)],
                             capture_output=True, text=True, check=True).stdout.split()[-1]
    print(f"GSVA {version}: wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
