#!/usr/bin/env bash
# System packages the tests need, from Debian (only what is missing is installed):
#   R (r-base-core) with reticulate, testthat and coin, for the R bridge and R comparisons;
#   knitr, markdown, data.table, ggplot2 and qpdf, for the R package's vignettes, its
#   suggested packages and R CMD check --as-cran;
#   clang, LLVM and libclc 16, to compile the kernels for NVIDIA and AMD GPUs
#   (tools/kernel_resources.py: registers, spills, local memory; builds without fp64);
#   chromium, to render the HTML reports in a real browser (tests/test_gsea_report.py);
#   plink1.9, the epistasis tests' reference (tests/test_epistasis_plink.py);
#   r-bioc-gsva (GSVA 1.46), the single-sample scores' reference (tests/test_singlesample.py);
#   r-bioc-org.hs.eg.db, the annotation package GSVA 2's identifier mapping is tested with
#   (rbridge/tests/testthat/test-gsva2.R).
# Needs root (CI machines run as root); prints what it would do otherwise.
set -euo pipefail
want=(r-base-core r-cran-reticulate r-cran-testthat r-cran-coin r-cran-fields r-cran-knitr
      r-cran-markdown r-cran-data.table r-cran-ggplot2 qpdf clang-16 llvm-16 libclc-16 chromium
      plink1.9 r-bioc-gsva r-bioc-org.hs.eg.db)
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "setup-system: run as root to install: ${missing[*]}" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
