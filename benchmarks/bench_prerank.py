"""oclstat.gsea_prerank next to GSEApy's prerank and R's fgsea, in one run.

    python benchmarks/bench_prerank.py [--device D] [--resamples N] [--gseapy-resamples M]
                                       [--no-gseapy] [--no-fgsea]

Input: a ranked list built from the Broad P53 data (../shared/data/gsea/P53.txt): the
signal-to-noise of MUT vs WT for the 8,679 genes whose names are upper case (GSEApy would
upper-case and merge the others), written as .rnk; MSigDB C2 v5.0 (sets of 15..500 genes of
the ranking: 3,329).

Part 1, ``method="simple"``: ``--resamples`` random gene sets per size (default 10^5) against
``gseapy.prerank(..., threads=<all cores>)`` with ``--gseapy-resamples`` (default 200),
scaled linearly to the same number (GSEApy's time is linear in the permutations: it scores
every set for every permutation). Floor: every resample must score the prefix of each needed
size, one running-sum point per member (sum of the distinct sizes) plus the insertion of each
drawn gene into the sorted prefix (about kmax^2 / 4 moves); at one point or move per cycle
per compute unit at the device's clock, a lower bound the kernel cannot beat.

Part 2, ``method="multilevel"``, eps = 1e-50: against ``fgsea::fgseaMultilevel`` (R, through
Rscript, ``nproc`` = all cores, timed inside R around the call) on the same files, and the
agreement of the p-values: the share of sets whose log2 p-values differ by less than three
times the combined log2err.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import clock_hz, header, table

import oclstat

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gsea"


def p53_ranking() -> pd.Series:
    from oclstat._gsea.core import ranking_metric

    expr = oclstat.io.read_expression(DATA / "P53.txt")
    pheno = oclstat.io.read_cls(DATA / "P53.cls")
    mask = np.array([lab == pheno.classes[0] for lab in pheno.labels])
    snr, _ = ranking_metric(expr.to_numpy(), mask, "signal_to_noise")
    stat = pd.Series(snr, index=expr.index)
    return stat[[g == g.upper() for g in stat.index]]


def time_oclstat(rt, stat, sets, **kw):
    oclstat.gsea_prerank(stat, sets, n_resamples=16, method="simple", seed=1, device=rt)
    t0 = time.perf_counter()
    res = oclstat.gsea_prerank(stat, sets, seed=1, device=rt, **kw)
    return time.perf_counter() - t0, res


def time_gseapy(stat, sets, n):
    import logging

    import gseapy

    logging.getLogger("gseapy").setLevel(logging.ERROR)
    t0 = time.perf_counter()
    gseapy.prerank(rnk=stat, gene_sets=sets, permutation_num=n, threads=os.cpu_count(), seed=1,
                   outdir=None, no_plot=True, min_size=15, max_size=500, verbose=False)
    return time.perf_counter() - t0


def floor_seconds(rt, res, n_resamples) -> float:
    sizes = np.unique(res.table["size"].to_numpy())
    per_resample = sizes.sum() + sizes.max() ** 2 / 4
    return n_resamples * per_resample / (clock_hz(rt) * rt.info.compute_units)


def part_simple(rt, stat, sets, n, n_gseapy, use_gseapy):
    print(f"# part 1: simple, {len(stat):,} genes, C2 v5.0, {n:,} random sets per size")
    t, res = time_oclstat(rt, stat, sets, n_resamples=n, method="simple")
    rows = [{"run": "oclstat", "sets": len(res.table), "resamples": f"{n:,}",
             "seconds": f"{t:.2f}"}]
    gp = float("nan")
    if use_gseapy:
        raw = time_gseapy(stat, sets, n_gseapy)
        gp = raw * n / n_gseapy
        rows.append({"run": f"GSEApy prerank threads={os.cpu_count()}", "sets": "3329",
                     "resamples": f"{n_gseapy:,} -> {n:,}",
                     "seconds": f"{raw:.1f} -> {gp:.0f} (scaled)"})
    print(table(rows, ["run", "sets", "resamples", "seconds"]))
    floor = floor_seconds(rt, res, n)
    print(f"# GSEApy / oclstat: {gp / t:.0f}x (target >= 10x); floor {floor:.2f} s "
          f"(oclstat at {t / floor:.1f}x the floor)")


FGSEA = """
suppressMessages(library(fgsea))
r <- read.table('{rnk}', sep = '\\t', row.names = 1, quote = '', comment.char = '')
stats <- setNames(r[[1]], rownames(r))
pathways <- gmtPathways('{gmt}')
set.seed(1)
t <- system.time(res <- suppressWarnings(fgsea(pathways, stats, minSize = 15, maxSize = 500,
                                               eps = 1e-50, nproc = {nproc})))
cat(t[["elapsed"]], "\\n", file = '{out}.time')
write.table(data.frame(res$pathway, res$pval, res$log2err, res$ES, res$NES), '{out}',
            sep = '\\t', row.names = FALSE, col.names = FALSE, quote = FALSE)
"""


def part_multilevel(rt, stat, sets, use_fgsea):
    print("# part 2: multilevel, eps = 1e-50, 1000 random sets per size for NES and the "
          "simple p-values")
    t, res = time_oclstat(rt, stat, sets, n_resamples=1000, method="multilevel", eps=1e-50)
    rows = [{"run": "oclstat", "seconds": f"{t:.2f}",
             "sets by splitting": res.n_multilevel,
             "smallest p": f"{res.table['pval'].min():.3g}"}]
    have_r = shutil.which("Rscript") is not None and subprocess.run(
        ["Rscript", "-e", "quit(status = !requireNamespace('fgsea', quietly = TRUE))"],
        capture_output=True).returncode == 0
    if use_fgsea and have_r:
        with tempfile.TemporaryDirectory() as tmp:
            rnk, gmt, out = Path(tmp, "p53.rnk"), Path(tmp, "c2.gmt"), Path(tmp, "fgsea.tsv")
            oclstat.io.write_rnk(stat, rnk)
            oclstat.io.write_gmt(sets, gmt)
            subprocess.run(["Rscript", "-e", FGSEA.format(rnk=rnk, gmt=gmt, out=out,
                                                          nproc=os.cpu_count())],
                           check=True, capture_output=True)
            fg_t = float(Path(f"{out}.time").read_text())
            fg = pd.read_csv(out, sep="\t", header=None, index_col=0,
                             names=["pathway", "pval", "log2err", "ES", "NES"])
        rows.append({"run": f"fgseaMultilevel nproc={os.cpu_count()}", "seconds": f"{fg_t:.2f}",
                     "sets by splitting": "",
                     "smallest p": f"{fg['pval'].min():.3g}"})
        ours = res.table.loc[fg.index]
        ok = ours["pval"].notna() & fg["pval"].notna()
        d = np.abs(np.log2(ours.loc[ok, "pval"]) - np.log2(fg.loc[ok, "pval"]))
        err = np.hypot(ours.loc[ok, "log2err"].fillna(1.0), fg.loc[ok, "log2err"].fillna(1.0))
        print(table(rows, ["run", "seconds", "sets by splitting", "smallest p"]))
        print(f"# fgsea / oclstat: {fg_t / t:.2f}x (target >= 1x); ES max difference "
              f"{np.abs(ours['ES'] - fg['ES']).max():.2g}")
        print(f"# p-values: {int(ok.sum())} sets, |log2 p difference| median {d.median():.2f}, "
              f"within 3 x combined log2err for {100 * (d < 3 * err).mean():.1f}%, "
              f"within 2 x for {100 * (d < 2 * err).mean():.1f}%")
    else:
        print(table(rows, ["run", "seconds", "sets by splitting", "smallest p"]))
        print("# fgsea is not installed in R: no comparison")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--resamples", type=float, default=1e5)
    ap.add_argument("--gseapy-resamples", type=int, default=200)
    ap.add_argument("--no-gseapy", action="store_true")
    ap.add_argument("--no-fgsea", action="store_true")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"# {DATA} is not present; nothing to benchmark")
        return 0
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "preranked GSEA: oclstat.gsea_prerank vs GSEApy prerank and fgsea"))
    stat = p53_ranking()
    sets = oclstat.io.read_gmt(DATA / "c2.all.v5.0.symbols.gmt")
    part_simple(rt, stat, sets, int(args.resamples), args.gseapy_resamples, not args.no_gseapy)
    part_multilevel(rt, stat, sets, not args.no_fgsea)
    return 0


if __name__ == "__main__":
    sys.exit(main())
