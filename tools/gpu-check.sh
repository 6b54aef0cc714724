#!/usr/bin/env bash
# Everything that needs a GPU, in sections, into one results file:
#
#   bash tools/gpu-check.sh [tests] [exercise] [bench] [headline] [profile]
#                                                          (default: the first four)
#
# tests     every `gpu`-marked test (GPU vs pocl bit-identity, the CUDA tensor-core path)
# exercise  every capability of tests/exercise.py on the GPU against pocl
# bench     the GPU cases of every benchmark (about 6 minutes on an H200)
# headline  the seeds' headline experiments (issue 51): 10^9 uniforms, Green's CPTAC test at
#           256 and 1,024 windows and its scaling runs, cudaGSEA's Hallmark and C2 x 2^10..2^20,
#           fields and profile likelihoods at 1,000..20,000 locations against cuSOLVER; each
#           sized by a budget (about 6 minutes); needs the shared data (see below)
# profile   Nsight Compute (ncu) on the CUDA tensor-core epistasis search (issue 52): speed of
#           light, pipes, occupancy, stalls and memory of one launch at order 4, 256 SNPs x 65,536
#
# On this project's lent GPU machine: fetch the wheels here with
# `bash ../shared/tools/gpu-wheels.sh`, copy the data with `bash tools/gpu-data.sh`, then run
#     source .whl/gpu-env.sh && bash tools/gpu-check.sh headline
# carrying ".whl" and ".gpu-data". Anywhere else with a GPU and oclstat installed:
# `make gpu-check`. Results go to $OUT/gpu-check.txt (the device tool's folder) or
# ./gpu-check.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
[ -d .gpu-data ] && export OCLSTAT_SHARED_DATA=${OCLSTAT_SHARED_DATA:-$PWD/.gpu-data}
out="${OUT:-.}/gpu-check.txt"
sections=${*:-tests exercise bench headline}
budget() { timeout --signal=INT "$1" "${@:2}"; }
want() { [[ " $sections " == *" $1 "* ]]; }
{
  echo "# oclstat gpu-check, $(date -u +%F' '%T) UTC, commit $(git rev-parse --short HEAD 2>/dev/null)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
  echo "host: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1); sections: $sections"
  $PY -c "import oclstat; [print(d) for d in oclstat.devices()]"
  if want tests; then
  echo; echo "## gpu tests"
  budget 170 $PY -m pytest -q -m gpu -p no:cacheprovider tests/test_gpu_*.py
  fi
  if want exercise; then
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
  fi
  if want bench; then
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
  # cells ranked on the device from a backed .h5ad (issue 49: >= 50,000 cells/s per method)
  budget 150 $PY benchmarks/bench_million_cells.py --cells 200000 --file-dir "${TMPDIR:-/tmp}"
  budget 20 $PY benchmarks/bench_random.py --device gpu --sizes full
  budget 20 $PY benchmarks/bench_fisher.py --device gpu --no-r --no-scipy
  budget 30 $PY benchmarks/bench_prerank.py --device gpu --no-gseapy --no-fgsea
  # many rankings: a table against one call per ranking (issue 32's 2x for multilevel,
  # unmet on 2 CPU cores, where one ranking's chains already fill the device)
  budget 30 $PY benchmarks/bench_rankings.py --synthetic --no-fgsea --rankings 40 \
    --multilevel-rankings 10 --device gpu
  # OpenCL order 4 (issue 52: >= 5 T at 256 and 512 SNPs x 65,536): oclstat.epistasis runs the
  # tiles on GPUs (16 popcounts per combination and word); the bit-vector search (81; 1.46 T
  # on an H200, RESULTS.md) beside it at 256 SNPs; order 5 at 128 SNPs (issue 52, item 4)
  budget 180 $PY benchmarks/bench_epistasis.py --device gpu \
    --searches 3:512:65536,4:256:65536,4:512:65536,5:128:65536 --bit-vectors 4:256:65536 \
    --tensor 4:256:65536,4:512:65536
  fi
  if want headline; then
  echo; echo "## headline experiments (issue 51)"
  budget 30 $PY benchmarks/bench_random.py --device gpu --sizes full
  budget 60 $PY benchmarks/bench_permutation.py --device gpu --windows 256 1024 --no-r --no-scipy
  budget 60 $PY benchmarks/bench_permutation.py --device gpu --scaling 50,100,200,300,400,500 \
    --scaling-features 100 --budget 40
  budget 200 $PY benchmarks/bench_gsea.py --device gpu --ladder 12,14,16,18,20 --budget 85
  # the ladder's kernels under the schedule's choices (metric permutations per work-item,
  # ranking buckets), side by side
  budget 90 $PY benchmarks/bench_gsea_kernels.py --device gpu --perms 18 --ppi 4,8 \
    --buckets 2048,4096
  budget 100 $PY benchmarks/bench_fields_scale.py --device gpu --budget 60
  fi
  if want profile; then
  echo; echo "## ncu: the CUDA tensor-core order-4 search (issue 52)"
  # a full launch of the search (not the checks before a first search, not its small first
  # launch)
  printf '%s\n' 'import sys' 'sys.path.insert(0, "benchmarks")' \
    'from bench_epistasis import generate' \
    'from oclstat._epistasis.cuda import TensorCoreTiles, prepare, run_tiled, tile_plan' \
    'g, y = generate(256, 65536, seed=4)' \
    's = prepare(g, y, order=4, top=20)' 'p = tile_plan(s.n_snps, 4)' \
    'run_tiled(s, TensorCoreTiles(s, p, check=False).launch, p, None)' > /tmp/oclstat-tc.py
  budget 150 ncu --target-processes all --kernel-name epistasis_tc_search --launch-skip 1 \
    --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy \
    --section MemoryWorkloadAnalysis --section LaunchStats --section InstructionStats \
    --section SchedulerStats --section WarpStateStats --metrics \
sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_tensor_op_imma.sum,sm__ops_path_tensor_op_bmma_src_int1.sum \
    $PY /tmp/oclstat-tc.py
  fi
} 2>&1 | tee "$out"
echo "results: $out"
