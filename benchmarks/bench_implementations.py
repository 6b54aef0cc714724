"""Every usable CPU OpenCL implementation on every capability, in one run: which one oclstat
chooses by default per workload (``oclstat._runtime.CPU_PREFERENCE_BY_WORKLOAD``).

    python benchmarks/bench_implementations.py [--repeat 3]

Each case runs in a fresh process per implementation (programs are cached per process): "cold"
is the first call, kernel builds included (what a user's first call costs), "warm" the median
of the next calls. Every usable CPU implementation present is measured (pocl from PyPI and
from Debian, Intel's runtime), named by version; the peer of each is the others, so the table
gives each one's warm time over the fastest and marks the one oclstat's table takes for the
workload here. The host CPU is printed: the order was measured on more than one CPU family.
All compute the same numbers (tests/test_implementations.py).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import host_lines, table

HERE = Path(__file__).resolve().parent

#: case -> (workload of CPU_PREFERENCE_BY_WORKLOAD or None for the general order, code)
CASES = {
    "random: 10^7 normals (float64)": (None, "ocr.normal(10**7, seed=1, device=rt)"),
    "fisher: 12x12 month table, 10^5 resamples": (
        None, "oclstat.fisher_sim(fisher_table('month').to_numpy(), n_resamples=10**5, seed=1, "
              "device=rt)"),
    "fisher exact: 5 x 5 table, n = 120 (network)": (
        "fisher_exact", "oclstat.fisher_test(T5, device=rt)"),
    "permutation: 2,000 features, 20 vs 20, 64 windows": (
        "permutation", "oclstat.permutation_test(X[:, :20], X[:, 20:], n_windows=64, device=rt)"),
    "fields: 8 Matern covariances, 600 points": (
        None, "oclstat.matern_cov(C, P, device=rt)"),
    "ldl: 8 x 600^2": ("ldl", "oclstat.ldl_batch(M, device=rt)"),
    "ldl: 1000 x 64^2": ("ldl", "oclstat.ldl_batch(A64, device=rt)"),
    "gsea: 5,000 genes x 20 samples, 300 sets, 1,000 perms": (
        "gsea", "oclstat.gsea(E, L, S, n_resamples=1000, min_size=10, seed=1, device=rt)"),
    "gsva: 5,000 genes x 100 samples, 300 sets": (
        "gsva", "oclstat.gsva(E100, S, device=rt, progress=False)"),
    "epistasis: order 3, 150 SNPs x 2,000 samples": (
        "epistasis", "oclstat.epistasis(G, Y, order=3, top=10, device=rt)"),
    "epistasis: order 4, 60 SNPs x 2,000 samples": (
        "epistasis", "oclstat.epistasis(G[:60], Y, order=4, top=10, device=rt)"),
}

SETUP = """
import json, statistics, sys, time
import numpy as np, pandas as pd
import oclstat, oclstat.random as ocr
from oclstat.datasets import fisher_table
rt = oclstat.get_runtime(int(sys.argv[1]))
rng = np.random.default_rng(0)
X = rng.integers(0, 50, size=(2000, 40)).astype(float)
C = oclstat.fields.grid_coords(30, 20)
P = [[0.2 + 0.05 * i, 0.5 + i * 0.3, 1.0, 0.01, 1.0 + 0.2 * i, 0.1 * i] for i in range(8)]
M = oclstat.matern_cov(C, P, device=rt)
A64 = rng.normal(size=(1000, 64, 64)); A64 = A64 @ A64.transpose(0, 2, 1) + 64 * np.eye(64)
E = pd.DataFrame(rng.normal(size=(5000, 20)), index=[f"g{i}" for i in range(5000)])
E100 = pd.DataFrame(rng.normal(size=(5000, 100)), index=[f"g{i}" for i in range(5000)])
T5 = rng.multinomial(120, np.full(25, 1 / 25)).reshape(5, 5) + 1
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


def measure(device: int, code: str, repeat: int) -> dict:
    env = dict(os.environ)
    env.pop("OCLSTAT_DEVICE", None)
    out = subprocess.run([sys.executable, "-c", SETUP.replace("CASE", code), str(device),
                          str(repeat)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import oclstat
    from oclstat._runtime import runtime_for

    cpus = [d for d in oclstat.devices(usable=True) if d.type == "CPU" and not d.simulator]
    if len(cpus) < 2:
        print("needs two usable CPU implementations (pip install 'oclstat[pocl,intel]')")
        return 1
    names = {d.index: d.implementation for d in cpus}
    print("\n".join(host_lines()), flush=True)
    rows = []
    for case, (workload, code) in CASES.items():
        chosen = runtime_for(None, workload).info.index
        row = {"case": case}
        times = {}
        for d in cpus:
            m = measure(d.index, code, args.repeat)
            if "error" in m:
                row[names[d.index]] = m["error"][:40]
                continue
            times[d.index] = m["warm"]
            row[names[d.index]] = f"{m['warm']:.3f} ({m['cold']:.2f} cold)"
        if times:
            fastest = min(times, key=times.get)
            row["fastest"] = names[fastest]
            row["default"] = names.get(chosen, "?")
            row["default/fastest"] = f"{times.get(chosen, float('nan')) / times[fastest]:.2f}"
        rows.append(row)
        print(f"# done: {case}", flush=True)
    print("# warm seconds per implementation (cold: the first call, kernel builds included)")
    print(table(rows, ["case", *names.values(), "fastest", "default", "default/fastest"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
