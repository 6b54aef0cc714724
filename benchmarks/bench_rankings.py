"""Many rankings at once (``gsea_prerank`` on a table of rankings) next to one call per
ranking and next to R's fgsea looped over the rankings, in one run.

    python benchmarks/bench_rankings.py [--rankings R] [--multilevel-rankings M]
                                        [--device D] [--no-fgsea] [--synthetic]

Data: fgsea's own example (``examplePathways``, 1,457 Reactome pathways, and
``exampleRanks``, 12,000 genes), read from the fgsea R finds (``R_LIBS`` may point at it);
ranking j is exampleRanks plus normal noise of sd 2 (numpy seed 3 + j), as contrasts of one
experiment. ``--synthetic`` (or no fgsea) takes data shaped like it instead: 12,000 genes,
t statistics with 4 df, 1,400 pathways of 15 to 500 genes (log-normal sizes around 40).

Runs, 15 to 500 genes per pathway: simple sampling with 1,000 random sets per size (fgsea's
``fgseaSimple(nperm = 1000)``) on R rankings, and the default multilevel method (``fgsea()``,
eps 1e-50) on M rankings (default min(R, 40): fgsea's multilevel takes about 5 s a ranking
here). fgsea 1.31 runs through Rscript, ``nproc = 1`` (fastest on 2 cores), looped over the
rankings inside R and timed there; oclstat runs in this process after its kernels are built.

Floor: the ES walks. Each random set is drawn once for all rankings; on each ranking the null
walks every needed prefix of it (the sum of the distinct set sizes, per permutation), one
multiplication and a comparison per member, at the device's peak rate.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import host_lines, table

import oclstat

R_EXPORT = r"""
suppressMessages(library(fgsea))
data(examplePathways); data(exampleRanks)
a <- commandArgs(TRUE)
writeLines(vapply(names(examplePathways), function(p) paste(c(p, "na", examplePathways[[p]]),
           collapse = "\t"), ""), a[1])
write.table(data.frame(gene = names(exampleRanks), stat = unname(exampleRanks)), a[2],
            sep = "\t", quote = FALSE, row.names = FALSE)
"""

R_LOOP = r"""
suppressMessages(library(fgsea))
a <- commandArgs(TRUE)
ranks <- read.table(a[1], sep = "\t", header = TRUE, row.names = 1, check.names = FALSE)
p <- gmtPathways(a[2])
m <- as.integer(a[3])
t1 <- system.time(for (j in seq_along(ranks)) fgseaSimple(p, setNames(ranks[[j]],
        rownames(ranks)), nperm = 1000, minSize = 15, maxSize = 500, nproc = 1))[["elapsed"]]
t2 <- system.time(for (j in seq_len(m)) suppressWarnings(fgsea(p, setNames(ranks[[j]],
        rownames(ranks)), minSize = 15, maxSize = 500, nproc = 1)))[["elapsed"]]
cat(t1, t2)
"""


def fgsea_example() -> tuple[pd.Series, dict] | None:
    """fgsea's exampleRanks and examplePathways, from the fgsea R finds (None: no fgsea)."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "export.R").write_text(R_EXPORT)
        proc = subprocess.run(["Rscript", str(tmp / "export.R"), str(tmp / "p.gmt"),
                               str(tmp / "r.tsv")], capture_output=True, text=True)
        if proc.returncode != 0:
            return None
        ranks = pd.read_csv(tmp / "r.tsv", sep="\t", dtype={"gene": str})
        return (pd.Series(ranks["stat"].to_numpy(), index=ranks["gene"].to_numpy()),
                oclstat.io.read_gmt(tmp / "p.gmt"))


def data(n_rank: int, synthetic: bool = False):
    """``(rankings, pathways, name)``: a genes x rankings table and the pathways."""
    example = None if synthetic else fgsea_example()
    if example is not None:
        stats, sets = example
        noise = np.column_stack([np.random.default_rng(3 + j).normal(scale=2.0,
                                                                      size=stats.size)
                                 for j in range(n_rank)])
        frame = pd.DataFrame(stats.to_numpy()[:, None] + noise, index=stats.index,
                             columns=[f"contrast{j}" for j in range(n_rank)])
        return frame, sets, "fgsea's exampleRanks (+ noise) x examplePathways"
    rng = np.random.default_rng(3)
    genes = [f"Entrez{i}" for i in range(12000)]
    frame = pd.DataFrame(rng.standard_t(4, size=(12000, n_rank)), index=genes,
                         columns=[f"contrast{j}" for j in range(n_rank)])
    sizes = np.clip(np.round(np.exp(rng.normal(np.log(40), 0.9, 1400))), 15, 500).astype(int)
    sets = {f"P{i:04d}": list(rng.choice(genes, k, replace=False))
            for i, k in enumerate(sizes)}
    return frame, sets, "synthetic: t(4) statistics x 1,400 pathways"


def fgsea_loop(frame, sets, n_multilevel):
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        frame.to_csv(tmp / "r.tsv", sep="\t")
        oclstat.io.write_gmt(sets, tmp / "s.gmt")
        (tmp / "run.R").write_text(R_LOOP)
        proc = subprocess.run(["Rscript", str(tmp / "run.R"), str(tmp / "r.tsv"),
                               str(tmp / "s.gmt"), str(n_multilevel)], capture_output=True,
                              text=True)
        if proc.returncode != 0:
            print("fgsea not run:", proc.stderr.strip().splitlines()[-1:])
            return None
        return [float(x) for x in proc.stdout.split()[-2:]]   # after its progress bars


def floor_seconds(frame, sets, rt) -> float:
    """The ES walks of the simple null at one multiply-compare per member per cycle of every
    compute unit (an optimistic rate: the device's clock x its compute units)."""
    genes = set(frame.index)
    sizes = {k for k in (sum(g in genes for g in s) for s in sets.values()) if 15 <= k <= 500}
    clock = max(int(getattr(rt.device, "max_clock_frequency", 0) or 0), 1000)   # MHz
    rate = rt.info.compute_units * clock * 1e6
    return frame.shape[1] * 1000 * sum(sizes) / rate


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rankings", type=int, default=20)
    ap.add_argument("--multilevel-rankings", type=int, default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--no-fgsea", action="store_true")
    ap.add_argument("--synthetic", action="store_true")
    args = ap.parse_args(argv)
    print("\n".join(host_lines()), flush=True)
    n_ml = min(args.rankings, 40) if args.multilevel_rankings is None else \
        args.multilevel_rankings
    frame, sets, what = data(args.rankings, args.synthetic)
    oclstat.gsea_prerank(frame.iloc[:, :2], sets, n_resamples=50, method="simple", seed=1,
                         device=args.device)                     # kernels built
    rows = []
    for method, cols in (("simple", frame.columns), ("multilevel", frame.columns[:n_ml])):
        t0 = time.perf_counter()
        many = oclstat.gsea_prerank(frame[cols], sets, n_resamples=1000, method=method,
                                    seed=1, device=args.device)
        t_many = time.perf_counter() - t0
        t0 = time.perf_counter()
        for column in cols:
            oclstat.gsea_prerank(frame[column], sets, n_resamples=1000, method=method, seed=1,
                                 device=args.device)
        t_loop = time.perf_counter() - t0
        rows.append({"method": method, "rankings": len(cols), "oclstat table (s)": t_many,
                     "oclstat per column (s)": t_loop})
        print(f"{method}: {len(cols)} rankings, table {t_many:.2f} s, one call per ranking "
              f"{t_loop:.2f} s", flush=True)
    peer = None if args.no_fgsea else fgsea_loop(frame, sets, n_ml)
    print(f"fgsea loop (simple, multilevel): {peer}", flush=True)
    for row, t in zip(rows, peer or [np.nan, np.nan], strict=True):
        row["fgsea loop (s)"] = t
    first = next(iter(many.values()))
    rt = oclstat.get_runtime(args.device)
    print(f"{what}: 12,000 genes, {len(first.table)} pathways of 15..500 genes, 1,000 random "
          f"sets per size; {first.device}")
    print(f"floor of the simple run's ES walks: {floor_seconds(frame, sets, rt):.2f} s")
    print(table([{k: (f"{v:.2f}" if isinstance(v, float) else v) for k, v in r.items()}
                 | {"vs per column": f"{r['oclstat per column (s)'] / r['oclstat table (s)']:.2f}x",
                    "vs fgsea": f"{r['fgsea loop (s)'] / r['oclstat table (s)']:.2f}x"}
                 for r in rows],
                ["method", "rankings", "oclstat table (s)", "oclstat per column (s)",
                 "fgsea loop (s)", "vs per column", "vs fgsea"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
