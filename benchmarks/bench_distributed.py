"""Strong scaling of oclstat's task-parallel searches on Dask workers, in one run.

    python benchmarks/bench_distributed.py [--workers 1 2 4 8] [--gpu]

Each worker is a process with its own pocl device (threads_per_worker=1; pocl inside a worker
uses the cores it can get, so on a machine with C cores, W workers share them). Workloads:
a 4th-order epistasis search (generated 80 SNPs x 4000 samples: 1,581,580 quads) and GSEA
(generated 5000 genes x 40 samples, 200 sets x 20,000 permutations). Efficiency =
T(1) / (W T(W)). With ``--gpu`` the GPU (OCLSTAT_DEVICE of the first worker) joins the CPU
workers. The single-process time is printed next to them (the peer: no Dask).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, table

import oclstat
from oclstat.distributed import OclstatPlugin


def workloads():
    rng = np.random.default_rng(1)
    g = rng.integers(0, 3, size=(80, 4000)).astype(np.int8)
    y = rng.integers(0, 2, size=4000)
    names = [f"G{i}" for i in range(5000)]
    expr = pd.DataFrame(rng.normal(size=(5000, 40)), index=names)
    sets = {f"S{j}": list(rng.choice(names, int(rng.integers(15, 300)), replace=False))
            for j in range(200)}
    labels = ["a"] * 20 + ["b"] * 20
    return [("epistasis order 4, 80 x 4000",
             lambda **kw: oclstat.epistasis(g, y, order=4, top=20, **kw)),
            ("gsea 5000 x 40, 200 sets, 20000 perms",
             lambda **kw: oclstat.gsea(expr, labels, sets, n_resamples=20000, seed=1, **kw))]


def main(argv=None):
    from distributed import Client, LocalCluster

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args(argv)
    rt = oclstat.get_runtime()
    print(header(rt, "Strong scaling on Dask workers (pocl in every worker)"))
    rows = []
    for name, run in workloads():
        run()                                   # build the kernels in this process
        t0 = time.perf_counter()
        run()
        single = time.perf_counter() - t0
        base = None
        for w in args.workers:
            with LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                              dashboard_address=None, silence_logs=40) as cluster, \
                    Client(cluster) as client:
                client.register_plugin(OclstatPlugin())
                run(client=client)              # warm the workers
                t0 = time.perf_counter()
                run(client=client)
                t = time.perf_counter() - t0
            base = base or t * w / args.workers[0]
            rows.append({"workload": name, "workers": w, "seconds": f"{t:.2f}",
                         "efficiency": f"{base / (w * t):.2f}",
                         "single process s": f"{single:.2f}"})
    print(table(rows, list(rows[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
