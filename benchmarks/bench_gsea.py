"""oclstat.gsea next to GSEApy (and the published cudaGSEA figures), in one run.

    python benchmarks/bench_gsea.py [--device D] [--no-gseapy] [--rapid] [--perms N]
    python benchmarks/bench_gsea.py --ladder 10,12,14,16,18,20 --budget 240 [--device D]

Part 1 (the pocl target): the Broad P53 data (../shared/data/gsea/P53.txt, 10,100 genes x 50
samples, 33 MUT vs 17 WT) x MSigDB C2 v5.0 (sets of 15..500 genes in the data) x 1000
phenotype permutations, signal_to_noise, weight 1: oclstat with both ES schedules against
``gseapy.gsea(..., permutation_type="phenotype", threads=<all cores>)``.

Part 2 (``--rapid``, the rapidGSEA/cudaGSEA shape): 20,639 genes x 200 samples, 183 vs 17 as in
GSE19429 (its labels, ../shared/data/gsea/GSE19429_series.cls). The GSE19429 matrix is not
available, so the expression is GENERATED (log-normal, numpy seed 1; gene names are the genes of
the Hallmark and C2 v5.0 files, padded). Hallmark v5.0 and C2 v5.0 x ``--perms`` permutations
(default 2^20 on a GPU, 2^12 elsewhere). Peers: GSEApy on the same data with 200 permutations,
scaled linearly; cudaGSEA's published times (Titan X: Hallmark x 2^20 105 s, C2 x 2^20
3,447 s; Hundt et al. 2016).

Part 3 (``--ladder``, the cudaGSEA experiment timed whole on a GPU): the same shape, Hallmark
then C2 at 2^e permutations for each e given, each call timed whole (labels to FWER, kernels
built first), with the device time of every kernel; a size whose time, projected from the last
one, would overrun what is left of ``--budget`` seconds is skipped and its projection printed.

Floor: the bytes each permutation must move through device memory at least once (write the
metric, read it back for ranking and scoring, write rank and order: 8 + 8 + 4 + 4 bytes per gene
in double) over the measured copy bandwidth. The searches themselves are compute-bound, so the
floor is a lower bound, not a target.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import copy_bandwidth, header, shared_data, table

import oclstat

DATA = shared_data("gsea")


@contextlib.contextmanager
def es_schedule(schedule):
    """Run gsea with the ES schedule ``schedule`` ("walk" or "pairs"; None: its own choice)."""
    from oclstat._gsea import opencl as gsea_device

    choose = gsea_device._Plan._choose

    def forced(plan, sets):
        choose(plan, sets)          # sizes the pairs' local memory
        return schedule

    if schedule is not None:
        gsea_device._Plan._choose = forced
    try:
        yield
    finally:
        gsea_device._Plan._choose = choose


def time_oclstat(rt, expr, pheno, sets, n_resamples, schedule, repeat=2):
    with es_schedule(schedule):
        oclstat.gsea(expr, pheno, sets, n_resamples=8, seed=1, device=rt)   # build kernels
        best, res = float("inf"), None
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = oclstat.gsea(expr, pheno, sets, n_resamples=n_resamples, seed=1, device=rt)
            best = min(best, time.perf_counter() - t0)
    return best, res


def time_gseapy(expr, labels, sets, n_resamples):
    import logging

    import gseapy

    logging.getLogger("gseapy").setLevel(logging.ERROR)
    t0 = time.perf_counter()
    gseapy.gsea(data=expr, gene_sets=sets, cls=list(labels), permutation_type="phenotype",
                permutation_num=n_resamples, method="signal_to_noise", threads=os.cpu_count(),
                seed=1, outdir=None, no_plot=True, min_size=15, max_size=500)
    return time.perf_counter() - t0


def floor_seconds(rt, n_genes, n_resamples, itemsize=8):
    bw = copy_bandwidth(rt)
    return n_resamples * n_genes * (2 * itemsize + 8 + itemsize) / bw, bw


def part_p53(rt, use_gseapy):
    expr = oclstat.io.read_expression(DATA / "P53.txt")
    pheno = oclstat.io.read_cls(DATA / "P53.cls")
    sets = oclstat.io.read_gmt(DATA / "c2.all.v5.0.symbols.gmt")
    n_resamples = 1000
    print(f"# P53 {expr.shape[0]} genes x {expr.shape[1]} samples, C2 v5.0, {n_resamples} perms")
    rows = []
    times = {}
    for schedule in ("walk", "pairs"):
        t, res = time_oclstat(rt, expr, pheno, sets, n_resamples, schedule)
        times[schedule] = t
        rows.append({"run": f"oclstat ({schedule})", "sets": len(res.table),
                     "seconds": f"{t:.2f}"})
    floor, bw = floor_seconds(rt, expr.shape[0], n_resamples)
    gp = time_gseapy(expr, pheno.labels, sets, n_resamples) if use_gseapy else float("nan")
    rows.append({"run": f"GSEApy threads={os.cpu_count()}", "sets": "3329",
                 "seconds": f"{gp:.2f}"})
    best = min(times.values())
    print(table(rows, ["run", "sets", "seconds"]))
    print(f"# GSEApy / oclstat (best schedule): {gp / best:.1f}x   (target >= 5x)")
    print(f"# memory floor {floor * 1e3:.2f} ms at {bw / 1e9:.1f} GB/s copy bandwidth; "
          f"oclstat is {best / floor:.0f}x the floor")


def rapid_data():
    h = oclstat.io.read_gmt(DATA / "h.all.v5.0.symbols.gmt")
    c2 = oclstat.io.read_gmt(DATA / "c2.all.v5.0.symbols.gmt")
    genes = sorted({g for s in (*h.values(), *c2.values()) for g in s})[:20639]
    genes += [f"GEN{i}" for i in range(20639 - len(genes))]
    pheno = oclstat.io.read_cls(DATA / "GSE19429_series.cls")
    rng = np.random.default_rng(1)
    x = np.exp(rng.normal(5.0, 1.0, size=(20639, 1)) + rng.normal(0, 0.5, size=(20639, 200)))
    x[:500, pheno.mask] *= 1.3
    return pd.DataFrame(x, index=genes), pheno, h, c2


def part_rapid(rt, n_resamples, use_gseapy):
    expr, pheno, h, c2 = rapid_data()
    print(f"# rapidGSEA shape: {expr.shape[0]} genes x {expr.shape[1]} samples (GENERATED), "
          f"{pheno.counts[0]} vs {pheno.counts[1]}, {n_resamples} permutations")
    rows = []
    published = {"Hallmark": 105.0, "C2": 3447.0}
    for name, sets in (("Hallmark", h), ("C2", c2)):
        t, res = time_oclstat(rt, expr, pheno, sets, n_resamples, None, repeat=1)
        scale = (1 << 20) / n_resamples
        gp = float("nan")
        if use_gseapy:
            gp = time_gseapy(expr, pheno.labels, sets, 200) * n_resamples / 200
        floor, _ = floor_seconds(rt, expr.shape[0], n_resamples)
        rows.append({"sets": f"{name} ({len(res.table)})", "oclstat s": f"{t:.2f}",
                     "oclstat s at 2^20": f"{t * scale:.1f}",
                     "GSEApy s (scaled)": f"{gp:.1f}",
                     "GSEApy/oclstat": f"{gp / t:.1f}",
                     "cudaGSEA TitanX 2^20": f"{published[name]:.0f}",
                     "floor s": f"{floor:.3f}"})
    print(table(rows, list(rows[0])))
    print("# targets on the H100: Hallmark x 2^20 <= 10 s, C2 x 2^20 <= 120 s")


PUBLISHED_2_20 = {"Hallmark": 105.0, "C2": 3447.0}     # cudaGSEA, GeForce Titan X


def part_ladder(rt, exponents, budget):
    expr, pheno, h, c2 = rapid_data()
    print(f"# cudaGSEA experiment: {expr.shape[0]} genes x {expr.shape[1]} samples (GENERATED), "
          f"{pheno.counts[0]} vs {pheno.counts[1]}; whole calls; budget {budget:.0f} s")
    start = time.perf_counter()
    rows = []
    for name, sets in (("Hallmark", h), ("C2", c2)):
        oclstat.gsea(expr, pheno, sets, n_resamples=8, seed=1, device=rt, progress=False)
        last = None
        for e in exponents:
            n = 1 << e
            left = budget - (time.perf_counter() - start)
            if last is not None and last[1] * n / last[0] > left:
                proj = last[1] * n / last[0]
                rows.append({"sets": name, "perms": f"2^{e}", "seconds": f"({proj:.1f} projected)",
                             "at 2^20": f"{last[1] * (1 << 20) / last[0]:.1f}"})
                break
            with rt.profile() as prof:
                t0 = time.perf_counter()
                res = oclstat.gsea(expr, pheno, sets, n_resamples=n, seed=1, device=rt,
                                   progress=False)
                t = time.perf_counter() - t0
            kernels = prof.by_kernel() if hasattr(prof, "by_kernel") else {"all": prof.seconds}
            top = ", ".join(f"{k} {v:.2f}" for k, v in list(kernels.items())[:4])
            at = t * (1 << 20) / n
            rows.append({"sets": f"{name} ({len(res.table)})", "perms": f"2^{e}",
                         "seconds": f"{t:.2f}", "device s": f"{sum(kernels.values()):.2f}",
                         "at 2^20": f"{at:.1f}",
                         "cudaGSEA/oclstat": f"{PUBLISHED_2_20[name] / at:.1f}x",
                         "kernels (device s)": top})
            print(f"# {name} 2^{e}: {t:.2f} s ({top})", flush=True)
            last = (n, t)
    print(table(rows, ["sets", "perms", "seconds", "device s", "at 2^20", "cudaGSEA/oclstat",
                       "kernels (device s)"]))
    print("# cudaGSEA on a GeForce Titan X at 2^20: Hallmark 105 s, C2 3,447 s (Hundt et al. "
          "2016); goals on one H100/H200: Hallmark <= 3 s, C2 <= 60 s")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--no-gseapy", action="store_true")
    ap.add_argument("--rapid", action="store_true", help="also run the rapidGSEA shape")
    ap.add_argument("--only-rapid", action="store_true")
    ap.add_argument("--perms", type=int, default=None)
    ap.add_argument("--ladder", default=None,
                    help="comma-separated exponents e: the cudaGSEA shape at 2^e permutations")
    ap.add_argument("--budget", type=float, default=240.0,
                    help="seconds the ladder may take (sizes that would overrun are projected)")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"# {DATA} is not present; nothing to benchmark")
        return 0
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "GSEA with phenotype permutations: oclstat.gsea vs GSEApy"))
    if args.ladder:
        part_ladder(rt, [int(e) for e in args.ladder.split(",")], args.budget)
        return 0
    if not args.only_rapid:
        part_p53(rt, not args.no_gseapy)
    if args.rapid or args.only_rapid:
        perms = args.perms or ((1 << 12) if rt.is_cpu else (1 << 20))
        part_rapid(rt, perms, not args.no_gseapy)
    return 0


if __name__ == "__main__":
    sys.exit(main())
