"""oclstat.geseca next to R's fgsea::geseca (GESECA), in one run.

    python benchmarks/bench_geseca.py [--device D] [--cells N] [--no-fgsea]

Inputs, each with eps = 1e-50, 1,000 random sets per size, 101 chains per size:

1. Broad's P53 expression (../shared/data/gsea/P53.txt, 10,100 genes x 50 samples) with
   MSigDB C2 v5.0 (sets of 15..500 genes of the data);
2. a single-cell-shaped matrix (``--cells`` samples, default 500, of 20,000 genes drawn here
   with 40 planted modules) with the Hallmark sets v7.0 renamed onto its genes.

fgsea runs through Rscript with ``nproc`` = all cores (BiocParallel), timed inside R around
the call. Agreement: the share of sets whose log2 p-values differ by less than three times
the combined log2err. Floor: every move tried reads two rows of E and the chain's profile
(m values each) and does 4 m operations; at one operation per cycle per compute unit at the
device's clock (the tries counted in this run), a bound the kernel cannot beat.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import clock_hz, header, table

import oclstat
from oclstat._geseca import opencl as geseca_device

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gsea"

FGSEA = """
suppressMessages(library(fgsea))
E <- as.matrix(read.table('{expr}', sep = '\\t', header = TRUE, row.names = 1,
                          check.names = FALSE, quote = '', comment.char = ''))
pathways <- gmtPathways('{gmt}')
set.seed(1)
t <- system.time(res <- suppressWarnings(geseca(pathways, E, minSize = 15, maxSize = 500,
                                                eps = 1e-50, nproc = {nproc})))
cat(t[["elapsed"]], "\\n", file = '{out}.time')
write.table(data.frame(res$pathway, res$pval, res$log2err, res$pctVar), '{out}',
            sep = '\\t', row.names = FALSE, col.names = FALSE, quote = FALSE)
"""


def counted_run(rt, expr, sets):
    """oclstat's time (kernels built first) and result, and the moves its chains tried."""
    oclstat.geseca(expr.iloc[:200], {"w": list(expr.index[:5])}, seed=1, device=rt)
    tried = [0]
    original = geseca_device.Chains.perturb

    def counting(self, bound, tries):
        tried[0] += int(np.asarray(tries).sum()) * self.S
        return original(self, bound, tries)

    geseca_device.Chains.perturb = counting
    try:
        t0 = time.perf_counter()
        res = oclstat.geseca(expr, sets, min_size=15, max_size=500, eps=1e-50, seed=1,
                             device=rt)
        t = time.perf_counter() - t0
    finally:
        geseca_device.Chains.perturb = original
    return t, res, tried[0]


def have_fgsea() -> bool:
    return shutil.which("Rscript") is not None and subprocess.run(
        ["Rscript", "-e", "quit(status = !requireNamespace('fgsea', quietly = TRUE))"],
        capture_output=True).returncode == 0


def run_fgsea(expr, sets):
    with tempfile.TemporaryDirectory() as tmp:
        path, gmt, out = Path(tmp, "E.tsv"), Path(tmp, "sets.gmt"), Path(tmp, "fgsea.tsv")
        expr.to_csv(path, sep="\t", float_format="%.17g")
        oclstat.io.write_gmt(sets, gmt)
        subprocess.run(["Rscript", "-e", FGSEA.format(expr=path, gmt=gmt, out=out,
                                                      nproc=os.cpu_count())],
                       check=True, capture_output=True)
        seconds = float(Path(f"{out}.time").read_text())
        fg = pd.read_csv(out, sep="\t", header=None, index_col=0,
                         names=["pathway", "pval", "log2err", "pctVar"])
    return seconds, fg


def compare(name, rt, expr, sets, use_fgsea):
    with warnings.catch_warnings():          # p below eps: fgsea says so too
        warnings.simplefilter("ignore", UserWarning)
        t, res, tried = counted_run(rt, expr, sets)
    m = expr.shape[1]
    floor = tried * 4 * m / (clock_hz(rt) * rt.info.compute_units)
    rows = [{"run": "oclstat", "seconds": f"{t:.2f}", "sets": len(res.table),
             "by splitting": res.n_multilevel, "smallest p": f"{res.table['pval'].min():.3g}"}]
    print(f"# {name}: {expr.shape[0]:,} genes x {m:,} samples, {len(res.table)} sets of "
          f"15..500 genes")
    if use_fgsea:
        fg_t, fg = run_fgsea(expr, sets)
        rows.append({"run": f"fgsea geseca nproc={os.cpu_count()}", "seconds": f"{fg_t:.2f}",
                     "sets": len(fg), "smallest p": f"{fg['pval'].min():.3g}"})
        print(table(rows, ["run", "seconds", "sets", "by splitting", "smallest p"]))
        ours = res.table.loc[fg.index]
        d = np.abs(np.log2(ours["pval"]) - np.log2(fg["pval"]))
        err = np.hypot(ours["log2err"].replace(np.inf, np.nan).fillna(1.0),
                       fg["log2err"].replace(np.inf, np.nan).fillna(1.0))
        print(f"# fgsea / oclstat: {fg_t / t:.2f}x; pctVar max relative difference "
              f"{np.max(np.abs(ours['pctVar'] / fg['pctVar'] - 1)):.2g}; |log2 p difference| "
              f"median {d.median():.2f}, within 3 x combined log2err for "
              f"{100 * (d < 3 * err).mean():.1f}%")
    else:
        print(table(rows, ["run", "seconds", "sets", "by splitting", "smallest p"]))
        print("# fgsea is not installed in R (or --no-fgsea): no comparison")
    print(f"# floor {floor:.2f} s ({tried:,} moves tried; oclstat at {t / floor:.1f}x the "
          f"floor)")


def single_cell_shape(cells: int, hallmark: dict):
    rng = np.random.default_rng(3)
    n = 20000
    genes = [f"G{i}" for i in range(n)]
    E = rng.normal(size=(n, cells)).astype(np.float64)
    order = rng.permutation(n)
    sets, used = {}, 0
    for j, (name, members) in enumerate(hallmark.items()):
        k = min(len(members), 500)
        idx = order[used:used + k]
        used += k
        if j < 40:
            E[idx] += (0.05 + 0.01 * j) * rng.normal(size=cells)
        sets[name] = [genes[i] for i in idx]
    return pd.DataFrame(E, index=genes, columns=[f"c{j}" for j in range(cells)]), sets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--cells", type=int, default=500)
    ap.add_argument("--no-fgsea", action="store_true")
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"# {DATA} is not present; nothing to benchmark")
        return 0
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "GESECA: oclstat.geseca vs fgsea::geseca"))
    use_fgsea = not args.no_fgsea and have_fgsea()
    expr = oclstat.io.read_expression(DATA / "P53.txt")
    compare("P53 x C2 v5.0", rt, expr, oclstat.io.read_gmt(DATA / "c2.all.v5.0.symbols.gmt"),
            use_fgsea)
    hallmark = oclstat.io.read_gmt(DATA / "h.all.v7.0.symbols.gmt")
    cells, sets = single_cell_shape(args.cells, hallmark)
    compare("single-cell shape x Hallmark", rt, cells, sets, use_fgsea)
    return 0


if __name__ == "__main__":
    sys.exit(main())
