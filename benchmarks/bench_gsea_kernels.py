"""The cudaGSEA experiment's kernels one by one: the schedule's choices measured side by side.

    python benchmarks/bench_gsea_kernels.py [--device D] [--perms 18,20] [--sets hallmark,c2]
        [--ppi 4,8] [--buckets 2048,4096] [--label now]

The data of ``bench_gsea.py --ladder`` (20,639 genes x 200 samples, GENERATED, GSE19429's 183
vs 17 labels; Hallmark v5.0 and C2 v5.0), each call of ``oclstat.gsea`` timed whole and its
device seconds per kernel (OpenCL profiling events), for every combination of

* ``--ppi``: shuffled profiles per work-item of ``gsea_metric_profile`` (continuous
  phenotypes: each expression value is read once for that many; more take more registers);
  the class metrics' ``gsea_metric`` runs one permutation per work-item;
* ``--buckets``: buckets per permutation of ``gsea_rank`` (fewer genes per bucket, fewer exact
  comparisons, more local memory per work-group, so fewer work-groups per compute unit).

Every variant gives the same null bit for bit (tests/test_gsea.py); the table says which is
fastest where it runs. ``--label`` names the run, so that two packages (say the previous
commit's, on ``PYTHONPATH``, and this one) print rows that can be told apart. The peer is
cudaGSEA's published Titan X time at 2^20 (Hundt et al. 2016), printed beside the time
projected to 2^20.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, table
from bench_gsea import PUBLISHED_2_20, rapid_data

import oclstat
from oclstat._gsea import opencl as plan_module


def _ints(text: str | None) -> list[int | None]:
    return [int(v) for v in text.split(",")] if text else [None]


def run_variant(rt, expr, pheno, sets, n, ppi, buckets):
    """(seconds whole, {kernel: device seconds}) of one call with the given schedule."""
    saved_ppi = plan_module.PPI
    saved_buckets = plan_module._Plan.__dict__["_buckets"]
    try:
        if ppi is not None:
            plan_module.PPI = ppi
        if buckets is not None:
            plan_module._Plan._buckets = staticmethod(lambda rt, n_genes, b=buckets: b)
        oclstat.gsea(expr, pheno, sets, n_resamples=64, seed=1, device=rt, progress=False)
        with rt.profile() as prof:
            t0 = time.perf_counter()
            oclstat.gsea(expr, pheno, sets, n_resamples=n, seed=1, device=rt, progress=False)
            seconds = time.perf_counter() - t0
        return seconds, prof.by_kernel()
    finally:
        plan_module.PPI = saved_ppi
        plan_module._Plan._buckets = saved_buckets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--perms", default="18,20", help="exponents e of 2^e permutations")
    ap.add_argument("--sets", default="hallmark,c2")
    ap.add_argument("--ppi", default=None, help="gsea_metric_profile shuffles per work-item")
    ap.add_argument("--buckets", default=None, help="gsea_rank buckets per permutation")
    ap.add_argument("--label", default="now")
    args = ap.parse_args(argv)
    rt = oclstat.get_runtime(args.device) if args.device else oclstat.get_runtime()
    print(header(rt, f"gsea kernels, {args.label}"))
    expr, pheno, h, c2 = rapid_data()
    chosen = {"hallmark": ("Hallmark", h), "c2": ("C2", c2)}
    rows = []
    for key in args.sets.split(","):
        name, sets = chosen[key]
        for e in _ints(args.perms):
            for ppi in _ints(args.ppi):
                for buckets in _ints(args.buckets):
                    t, kernels = run_variant(rt, expr, pheno, sets, 1 << e, ppi, buckets)
                    at = t * (1 << 20) / (1 << e)
                    part = {k.removeprefix("gsea_"): v for k, v in kernels.items()}
                    rows.append({"run": args.label, "sets": name, "perms": f"2^{e}",
                                 "ppi": ppi or "default", "buckets": buckets or "default",
                                 "seconds": f"{t:.2f}", "at 2^20": f"{at:.1f}",
                                 "cudaGSEA/oclstat": f"{PUBLISHED_2_20[name] / at:.1f}x",
                                 "metric": f"{part.get('metric', 0):.2f}",
                                 "rank": f"{part.get('rank', 0):.2f}",
                                 "es": f"{part.get('es_pairs', part.get('es_walk', 0)):.2f}",
                                 "device s": f"{sum(kernels.values()):.2f}"})
                    print(f"# {rows[-1]}", flush=True)
    print(table(rows, list(rows[0])))
    print("# cudaGSEA on a GeForce Titan X at 2^20: Hallmark 105 s, C2 3,447 s; goals on one "
          "H100/H200: Hallmark <= 3 s, C2 <= 60 s")


if __name__ == "__main__":
    main()
