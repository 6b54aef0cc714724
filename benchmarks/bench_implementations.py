"""pocl next to Intel's OpenCL CPU runtime on every capability, in one run: which CPU
implementation oclstat chooses by default (``oclstat._runtime.CPU_PREFERENCE``).

    python benchmarks/bench_implementations.py [--repeat 3]

Each case runs in a fresh process per implementation (programs are cached per process): "cold"
is the first call, kernel builds included (what a user's first call costs), "warm" the median
of the next calls. The peer of each implementation is the other one; the floor of a CPU
implementation is the other's warm time at best, so the table gives the ratio pocl / Intel.
Both compute the same numbers (tests/test_implementations.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import table  # noqa: E402

HERE = Path(__file__).resolve().parent

CASES = {
    "random: 10^7 normals (float64)": "ocr.normal(10**7, seed=1, device=rt)",
    "fisher: 12x12 month table, 10^5 resamples":
        "oclstat.fisher_sim(fisher_table('month').to_numpy(), n_resamples=10**5, seed=1, "
        "device=rt)",
    "permutation: 2,000 features, 20 vs 20, 64 windows":
        "oclstat.permutation_test(X[:, :20], X[:, 20:], n_windows=64, device=rt)",
    "fields: 8 Matern 600 x 600, LDL": "oclstat.ldl_batch(oclstat.matern_cov(C, P, "
                                        "device=rt), device=rt)",
    "gsea: 5,000 genes x 20 samples, 300 sets, 1,000 perms":
        "oclstat.gsea(E, L, S, n_resamples=1000, min_size=10, seed=1, device=rt)",
    "epistasis: order 3, 150 SNPs x 2,000 samples":
        "oclstat.epistasis(G, Y, order=3, top=10, device=rt)",
    "epistasis: order 4, 60 SNPs x 2,000 samples":
        "oclstat.epistasis(G[:60], Y, order=4, top=10, device=rt)",
}

SETUP = """
import json, statistics, sys, time
import numpy as np, pandas as pd
import oclstat, oclstat.random as ocr
from oclstat.datasets import fisher_table
rt = oclstat.get_runtime(sys.argv[1])
rng = np.random.default_rng(0)
X = rng.integers(0, 50, size=(2000, 40)).astype(float)
C = oclstat.fields.grid_coords(30, 20)
P = [[0.2 + 0.05 * i, 0.5 + i * 0.3, 1.0, 0.01, 1.0 + 0.2 * i, 0.1 * i] for i in range(8)]
E = pd.DataFrame(rng.normal(size=(5000, 20)), index=[f"g{i}" for i in range(5000)])
L = ["A"] * 10 + ["B"] * 10
S = {f"s{k}": [f"g{i}" for i in rng.choice(5000, 40, replace=False)] for k in range(300)}
G = rng.integers(0, 3, size=(150, 2000)).astype(np.int8)
Y = rng.integers(0, 2, size=2000)
t0 = time.perf_counter(); CASE; cold = time.perf_counter() - t0
warm = []
for _ in range(int(sys.argv[2])):
    t0 = time.perf_counter(); CASE; warm.append(time.perf_counter() - t0)
print(json.dumps({"device": rt.info.label, "cold": cold, "warm": statistics.median(warm)}))
"""


def measure(device: str, code: str, repeat: int) -> dict:
    env = dict(os.environ)
    env.pop("OCLSTAT_DEVICE", None)
    out = subprocess.run([sys.executable, "-c", SETUP.replace("CASE", code), device,
                          str(repeat)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import oclstat

    names = {d.platform for d in oclstat.devices()}
    if not any("Portable" in n for n in names) or not any("Intel(R) OpenCL" in n for n in names):
        print("needs both pocl and Intel's CPU runtime (pip install 'oclstat[pocl,intel]')")
        return 1
    rows = []
    for name, code in CASES.items():
        p = measure("pocl", code, args.repeat)
        i = measure("intel", code, args.repeat)
        if "error" in p or "error" in i:
            rows.append({"case": name, "pocl warm s": p.get("error", ""),
                         "Intel warm s": i.get("error", "")})
            continue
        rows.append({"case": name, "pocl cold s": f"{p['cold']:.2f}",
                     "Intel cold s": f"{i['cold']:.2f}", "pocl warm s": f"{p['warm']:.3f}",
                     "Intel warm s": f"{i['warm']:.3f}",
                     "pocl/Intel warm": f"{p['warm'] / i['warm']:.2f}",
                     "pocl/Intel cold": f"{p['cold'] / i['cold']:.2f}"})
    print("# oclstat on pocl vs Intel's OpenCL CPU runtime (same host, one run)")
    print(table(rows, ["case", "pocl cold s", "Intel cold s", "pocl/Intel cold",
                       "pocl warm s", "Intel warm s", "pocl/Intel warm"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
