#!/usr/bin/env bash
# Copies the shared data that tools/gpu-check.sh's headline section reads into .gpu-data/
# (ignored by git through .git/info/exclude), so that it travels to a lent GPU machine with
# `carry: [".gpu-data"]` (../shared does not travel). About 7 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:-../shared/data}
mkdir -p .gpu-data/gsea .gpu-data/permutation .git/info
grep -qx '/.gpu-data/' .git/info/exclude 2>/dev/null || echo '/.gpu-data/' >> .git/info/exclude
cp "$src"/gsea/{h.all.v5.0.symbols.gmt,c2.all.v5.0.symbols.gmt,GSE19429_series.cls} .gpu-data/gsea/
cp "$src"/permutation/TNPdf.csv .gpu-data/permutation/
du -sh .gpu-data
