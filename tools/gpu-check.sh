#!/usr/bin/env bash
# Everything that needs a GPU, in one call of at most 10 minutes (the sections' budgets add up
# to about 9.5; the first run on an H200 took 3.5), into one results file.
#
# On this project's lent GPU machine (see ../shared/tools/gpu-wheels.sh): fetch the wheels here
# with `bash ../shared/tools/gpu-wheels.sh pocl-binary-distribution==3.0`, then run
#     source .whl/gpu-env.sh && bash tools/gpu-check.sh
# carrying ".whl". Anywhere else with a GPU and oclstat installed: `make gpu-check`.
#
# It runs: the device list; every `gpu`-marked test (GPU vs pocl bit-identity, the CUDA
# tensor-core path, GPU timings' sanity); every capability of tests/exercise.py on the GPU
# against pocl (integers identical, floats to rounding); the GPU cases of every benchmark.
# Results go to $OUT/gpu-check.txt (the device tool's folder) or ./gpu-check.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
out="${OUT:-.}/gpu-check.txt"
budget() { timeout --signal=INT "$1" "${@:2}"; }
{
  echo "# oclstat gpu-check, $(date -u +%F' '%T) UTC, commit $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi -L 2>/dev/null || true
  $PY -c "import oclstat; [print(d) for d in oclstat.devices()]"
  echo; echo "## gpu tests"
  budget 170 $PY -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu_*.py
  echo; echo "## every capability on the GPU vs pocl (tests/exercise.py)"
  budget 80 $PY - <<'EOF'
import sys
sys.path.insert(0, "tests")
from exercise import compare, exercise
gpu, cpu = exercise("gpu"), exercise("pocl")
problems = compare(gpu, cpu)
print(f"{len(gpu)} results compared: " + ("all equal" if not problems else "DIFFERENCES"))
print("\n".join(problems))
EOF
  echo; echo "## benchmarks (GPU cases)"
  budget 60 $PY benchmarks/bench_epistasis_plink.py --snps 100000 --samples 2000 --device gpu
  # the regressions on the device (not yet measured on a GPU)
  for t in logistic linear; do
    budget 20 $PY benchmarks/bench_epistasis_plink.py --snps 20000 --samples 2000 --test $t \
      --epi1 1e-6 --device gpu --plink ""
  done
  budget 20 $PY benchmarks/bench_epistasis_covariates.py --snps 400 --device gpu
  budget 45 $PY benchmarks/bench_singlesample.py --skip-matrix --device gpu --gsva-cells 10000 \
    --cells 50000
  budget 20 $PY benchmarks/bench_random.py --device gpu --sizes full
  budget 20 $PY benchmarks/bench_fisher.py --device gpu --no-r --no-scipy
  budget 30 $PY benchmarks/bench_prerank.py --device gpu --no-gseapy --no-fgsea
  # many rankings: a table against one call per ranking (issue 32's 2x for multilevel,
  # unmet on 2 CPU cores, where one ranking's chains already fill the device)
  budget 30 $PY benchmarks/bench_rankings.py --synthetic --no-fgsea --rankings 40 \
    --multilevel-rankings 10 --device gpu
  # the OpenCL order-4 search ran at 1.46 T/s on an H200 (RESULTS.md): 512 SNPs take 2 min
  budget 65 $PY benchmarks/bench_epistasis.py --device gpu --searches 3:512:65536,4:256:65536 \
    --tiles 4:128:65536 --tensor 4:256:65536,4:512:65536
  # (bench_gsea.py and bench_permutation.py need ../shared/data, which does not travel)
} 2>&1 | tee "$out"
echo "results: $out"
