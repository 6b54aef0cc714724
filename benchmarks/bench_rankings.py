"""Many rankings at once (``gsea_prerank`` on a table of rankings) next to one call per
ranking and next to R's fgsea looped over the rankings, in one run.

    python benchmarks/bench_rankings.py [--rankings R] [--device D] [--no-fgsea]

Data (numpy seed 3; shaped like fgsea's example): 12,000 genes, R rankings (default 20) of
t statistics with 4 df, 1,400 pathways of 15 to 500 genes (log-normal sizes around 40). Runs:
simple sampling with 1,000 random sets per size (fgsea's ``fgseaSimple(nperm = 1000)``) and
the default multilevel method (``fgsea()``, eps 1e-50). fgsea 1.31 runs through Rscript when
R has it (``R_LIBS`` may point at it), ``nproc = 1`` (fastest on 2 cores), looped over the
rankings inside R and timed there. Floor of the shared draw: each random set is drawn and
sorted once for all rankings; the ES of every needed size on every ranking is the part that
grows with R.
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
from _common import table  # noqa: E402

import oclstat  # noqa: E402

R_LOOP = r"""
suppressMessages(library(fgsea))
a <- commandArgs(TRUE)
ranks <- read.table(a[1], sep = "\t", header = TRUE, row.names = 1, check.names = FALSE)
p <- gmtPathways(a[2])
t1 <- system.time(for (j in seq_along(ranks)) fgseaSimple(p, setNames(ranks[[j]],
        rownames(ranks)), nperm = 1000, minSize = 15, maxSize = 500, nproc = 1))[["elapsed"]]
t2 <- system.time(for (j in seq_along(ranks)) suppressWarnings(fgsea(p, setNames(ranks[[j]],
        rownames(ranks)), minSize = 15, maxSize = 500, nproc = 1)))[["elapsed"]]
cat(t1, t2)
"""


def data(n_rank: int):
    rng = np.random.default_rng(3)
    genes = [f"Entrez{i}" for i in range(12000)]
    frame = pd.DataFrame(rng.standard_t(4, size=(12000, n_rank)), index=genes,
                         columns=[f"contrast{j}" for j in range(n_rank)])
    sizes = np.clip(np.round(np.exp(rng.normal(np.log(40), 0.9, 1400))), 15, 500).astype(int)
    sets = {f"P{i:04d}": list(rng.choice(genes, k, replace=False))
            for i, k in enumerate(sizes)}
    return frame, sets


def fgsea_loop(frame, sets):
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        frame.to_csv(tmp / "r.tsv", sep="\t")
        oclstat.io.write_gmt(sets, tmp / "s.gmt")
        (tmp / "run.R").write_text(R_LOOP)
        proc = subprocess.run(["Rscript", str(tmp / "run.R"), str(tmp / "r.tsv"),
                               str(tmp / "s.gmt")], capture_output=True, text=True)
        if proc.returncode != 0:
            print("fgsea not run:", proc.stderr.strip().splitlines()[-1:])
            return None
        return [float(x) for x in proc.stdout.split()[-2:]]   # after its progress bars


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rankings", type=int, default=20)
    ap.add_argument("--device", default=None)
    ap.add_argument("--no-fgsea", action="store_true")
    args = ap.parse_args(argv)
    frame, sets = data(args.rankings)
    oclstat.gsea_prerank(frame.iloc[:, :2], sets, n_resamples=50, method="simple", seed=1,
                         device=args.device)                     # kernels built
    rows = []
    for method in ("simple", "multilevel"):
        t0 = time.perf_counter()
        many = oclstat.gsea_prerank(frame, sets, n_resamples=1000, method=method, seed=1,
                                    device=args.device)
        t_many = time.perf_counter() - t0
        t0 = time.perf_counter()
        for column in frame.columns:
            oclstat.gsea_prerank(frame[column], sets, n_resamples=1000, method=method, seed=1,
                                 device=args.device)
        t_loop = time.perf_counter() - t0
        rows.append({"method": method, "oclstat table (s)": t_many,
                     "oclstat per column (s)": t_loop})
    peer = None if args.no_fgsea else fgsea_loop(frame, sets)
    for row, t in zip(rows, peer or [np.nan, np.nan], strict=True):
        row["fgsea loop (s)"] = t
    print(f"{args.rankings} rankings x 12,000 genes x 1,400 pathways, 1,000 random sets per "
          f"size; {next(iter(many.values())).device}")
    print(table([{k: (f"{v:.2f}" if isinstance(v, float) else v) for k, v in r.items()}
                 | {"vs per column": f"{r['oclstat per column (s)'] / r['oclstat table (s)']:.2f}x",
                    "vs fgsea": f"{r['fgsea loop (s)'] / r['oclstat table (s)']:.2f}x"}
                 for r in rows],
                ["method", "oclstat table (s)", "oclstat per column (s)", "fgsea loop (s)",
                 "vs per column", "vs fgsea"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
