"""Per-cell scores on a sparse single-cell matrix: ``oclstat.ulm`` next to decoupler's ``ulm``
and ``oclstat.ucell`` next to UCell's own scoring code, in one run on the same cells and sets.

    python benchmarks/bench_cellscores.py [--genes 20000] [--cells 20000] [--sets 50]
        [--peer-python PATH] [--ucell-source DIR]

Data (numpy seed 1): genes x cells, 5% non-zero log1p counts (scipy CSC), 50 gene sets of
15 to 300 genes (a decoupler net with weights of both signs for ULM). Times are the scoring
calls alone ("in the call"), after one untimed call on 200 cells: the input is in memory for
every tool (oclstat and decoupler read the same ``.npz``; R reads it as a ``dgCMatrix``).
``--peer-python``: a Python with decoupler (kept out of the project's environment: it needs
numba). ``--ucell-source``: UCell's source tree (carmonalab/UCell; its R/HelperFunctions.R
is sourced and ``calculate_Uscore`` called, as ScoreSignatures_UCell does, with one worker).
The scores are compared (max |difference|).

Floors: ULM reads every non-zero value once (12 bytes with its row index) for a product with
the weights: the bytes over an optimistic 20 GB/s, or the product's 2 x non-zeros x sets
operations at 16 double operations a cycle per core at 3 GHz, whichever is longer. UCell
ranks each cell's non-zero values: a sort of the non-zeros, n log2 n comparisons at 1e9 a
second per core.
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

import oclstat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import blas_line, host_lines

PEER_SCRIPT = textwrap.dedent("""
    import sys, time, numpy as np, pandas as pd, scipy.sparse as sp
    import anndata as ad, decoupler as dc
    data, net_path, out = sys.argv[1:4]
    z = np.load(data, allow_pickle=True)
    x = sp.csr_matrix(sp.csc_matrix((z["data"], z["indices"], z["indptr"]),
                                    shape=tuple(z["shape"])).T)
    genes, cells = list(z["genes"]), list(z["cells"])
    net = pd.read_csv(net_path, sep="\\t")
    small = ad.AnnData(x[:200], obs=pd.DataFrame(index=cells[:200]),
                       var=pd.DataFrame(index=genes))
    dc.mt.ulm(small, net, tmin=5)
    a = ad.AnnData(x, obs=pd.DataFrame(index=cells), var=pd.DataFrame(index=genes))
    t0 = time.perf_counter()
    dc.mt.ulm(a, net, tmin=5)
    sys.stderr.write(f"call {time.perf_counter() - t0:.3f}\\n")
    a.obsm["score_ulm"].T.to_csv(out, sep="\\t")
""")

UCELL_SCRIPT = r"""
suppressMessages({library(data.table); library(Matrix); library(BiocParallel)})
a <- commandArgs(TRUE)
source(file.path(a[1], "R", "HelperFunctions.R"))
m <- as(readMM(a[2]), "CsparseMatrix")
dimnames(m) <- list(readLines(a[3]), readLines(a[4]))
lines <- strsplit(readLines(a[5]), "\t")
sigs <- setNames(lapply(lines, function(l) l[-(1:2)]), vapply(lines, `[`, "", 1))
run <- function(x) Reduce(rbind, lapply(calculate_Uscore(x, sigs, maxRank = 1500,
  chunk.size = 100, BPPARAM = SerialParam(), name = ""), `[[`, "cells_U"))
invisible(run(m[, 1:200]))
t0 <- proc.time()[["elapsed"]]
u <- run(m)
cat(sprintf("call %.3f\n", proc.time()[["elapsed"]] - t0), file = stderr())
write.table(t(u), a[6], sep = "\t", quote = FALSE, col.names = NA)
"""


def make_data(genes: int, cells: int, n_sets: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    m = sparse.random(genes, cells, density=0.05, format="csc", random_state=rng,
                      data_rvs=lambda k: np.log1p(rng.poisson(3.0, size=k) + 1.0))
    names = [f"G{i}" for i in range(genes)]
    sets, rows = {}, []
    for s in range(n_sets):
        members = rng.choice(genes, int(rng.integers(15, 300)), replace=False)
        sets[f"S{s}"] = [names[i] for i in members]
        rows += [(f"S{s}", names[i], float(w)) for i, w in
                 zip(members, rng.normal(size=members.size), strict=True)]
    return m, names, [f"C{j}" for j in range(cells)], sets, \
        pd.DataFrame(rows, columns=["source", "target", "weight"])


def call_seconds(cmd) -> float:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-500:])
    line = [v for v in proc.stderr.splitlines() if v.startswith("call ")][-1]
    return float(line.split()[1])


def timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--genes", type=int, default=20000)
    ap.add_argument("--cells", type=int, default=20000)
    ap.add_argument("--sets", type=int, default=50)
    ap.add_argument("--peer-python", default=None, help="a Python with decoupler installed")
    ap.add_argument("--ucell-source", default=None, help="UCell's source tree")
    args = ap.parse_args(argv)
    print("\n".join(host_lines()))
    print(blas_line())
    print(f"{args.genes:,} genes x {args.cells:,} cells (5% non-zero), {args.sets} sets",
          flush=True)
    m, genes, cells, sets, net = make_data(args.genes, args.cells, args.sets)
    nnz = m.nnz
    oclstat.ulm(m[:, :200], net, genes=genes, samples=cells[:200])
    oclstat.ucell(m[:, :200], sets, genes=genes, samples=cells[:200])
    t_ulm, ulm = timed(lambda: oclstat.ulm(m, net, genes=genes, samples=cells))
    t_uc, uc = timed(lambda: oclstat.ucell(m, sets, genes=genes, samples=cells))
    rows = [("ULM", "oclstat", t_ulm, 1.0, ""), ("UCell", "oclstat", t_uc, 1.0, "")]
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if args.peer_python:
            np.savez(d / "x.npz", data=m.data, indices=m.indices, indptr=m.indptr,
                     shape=np.array(m.shape), genes=np.array(genes), cells=np.array(cells))
            net.to_csv(d / "net.tsv", sep="\t", index=False)
            (d / "peer.py").write_text(PEER_SCRIPT)
            t = call_seconds([args.peer_python, str(d / "peer.py"), str(d / "x.npz"),
                              str(d / "net.tsv"), str(d / "dc.tsv")])
            theirs = pd.read_csv(d / "dc.tsv", sep="\t", index_col=0)
            diff = np.nanmax(np.abs(ulm.scores.loc[theirs.index, theirs.columns].to_numpy()
                                    - theirs.to_numpy()))
            rows.append(("ULM", "decoupler ulm", t, t / t_ulm, f"max |diff| {diff:.1e}"))
        if args.ucell_source and shutil.which("Rscript"):
            from scipy.io import mmwrite

            mmwrite(str(d / "x.mtx"), m)
            (d / "genes.txt").write_text("\n".join(genes) + "\n")
            (d / "cells.txt").write_text("\n".join(cells) + "\n")
            oclstat.io.write_gmt(sets, d / "s.gmt")
            (d / "ucell.R").write_text(UCELL_SCRIPT)
            t = call_seconds(["Rscript", str(d / "ucell.R"), args.ucell_source,
                              str(d / "x.mtx"), str(d / "genes.txt"), str(d / "cells.txt"),
                              str(d / "s.gmt"), str(d / "uc.tsv")])
            theirs = pd.read_csv(d / "uc.tsv", sep="\t", index_col=0)
            diff = np.abs(uc.loc[theirs.index, theirs.columns].to_numpy()
                          - theirs.to_numpy()).max()
            rows.append(("UCell", "UCell (R, calculate_Uscore, 1 worker)", t, t / t_uc,
                         f"max |diff| {diff:.1e}"))
    cores = os.cpu_count() or 1
    floors = {"ULM": max(nnz * 12 / 20e9, 2.0 * nnz * args.sets / (cores * 3e9 * 16)),
              "UCell": nnz * math.log2(max(2, nnz / args.cells)) / (1e9 * cores)}
    print(f"\n{'method':<7} {'tool':<40} {'seconds':>8} {'vs oclstat':>10}  check")
    for method, tool, t, ratio, check in rows:
        print(f"{method:<7} {tool:<40} {t:8.2f} {ratio:9.1f}x  {check}")
    for method, f in floors.items():
        print(f"floor {method}: {f:.3f} s ({args.cells / f:,.0f} cells/s); oclstat "
              f"{args.cells / dict(ULM=t_ulm, UCell=t_uc)[method]:,.0f} cells/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
