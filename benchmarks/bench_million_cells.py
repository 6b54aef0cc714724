"""A million cells from a backed ``.h5ad``: ssGSEA, AUCell and UCell scores of 50 sets in every
cell, each method in a process of its own, with its time, cells/s and the peak memory above
what the process held before the call (the file opened backed, the sets read); beside it, on
a slice of the same cells held in memory, decoupler's AUCell and GSVA 2's ssGSEA and GSVA
on a ``dgCMatrix`` (its sparse paths), each next to oclstat on that slice in the same run.

    python benchmarks/bench_million_cells.py [--cells 1000000 100000] [--genes 20000]
        [--file-dir DIR] [--peer-python PATH] [--peer-cells 20000]
        [--gsva2-lib DIR] [--gsva2-cells 5000]

Data (numpy seed 7): cells x genes CSR float32 with 5% non-zero values per cell on average
(log1p of Poisson counts), written to ``DIR/cells_<n>.h5ad`` block by block (never whole in
memory; kept for the next run: 8 bytes per non-zero value, 8 GB at a million cells);
50 sets of 15 to 500 genes. Each method runs ``oclstat.<method>(read_h5ad(path,
backed="r"), sets)`` in a new process: the file is read a block of cells at a time, so the
peak above the start should not grow with the cells (it is printed for every ``--cells``).
Peak: the process's peak resident set during the call (Linux's VmHWM, reset just before it)
minus its resident set just before the call.

``--peer-python``: a Python with decoupler (2.x: ``dc.mt.aucell``, which reads the whole
matrix into memory); ``--gsva2-lib``: an R library with GSVA 2 (>= 1.53; ``ssgseaParam``, and
``gsvaParam`` with its sparse algorithm, on a ``dgCMatrix``; oclstat's ``gsva(sparse=True)``
beside it). Both score the first ``--peer-cells`` / ``--gsva2-cells`` cells in memory,
timed in the call, as oclstat is timed on the same slice.

Floors: the ranking of each cell is a sort of its non-zero values, n log2 n comparisons at
1e9 a second per core; the file's bytes at 2 GB/s (a local NVMe's sequential read) bound
the rest: whichever is longer.
"""

from __future__ import annotations

import argparse
import json
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import blas_line, host_lines

METHODS = ("ssgsea", "aucell", "ucell")
CELLS_PER_WRITE = 2000

DECOUPLER_SCRIPT = textwrap.dedent("""
    import sys, time, numpy as np, pandas as pd, scipy.sparse as sp
    import anndata as ad, decoupler as dc
    path, net_path, cells, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    a = ad.read_h5ad(path, backed="r")
    x = sp.csr_matrix(a.X[:cells])
    m = ad.AnnData(x, obs=pd.DataFrame(index=list(a.obs_names[:cells])),
                   var=pd.DataFrame(index=list(a.var_names)))
    net = pd.read_csv(net_path, sep="\\t")
    dc.mt.aucell(m[:200].copy(), net, tmin=1)
    t0 = time.perf_counter()
    dc.mt.aucell(m, net, tmin=1)
    sys.stderr.write(f"call {time.perf_counter() - t0:.3f}\\n")
    m.obsm["score_aucell"].T.to_csv(out, sep="\\t")
""")

GSVA2_SCRIPT = r"""
suppressMessages({library(Matrix); library(GSVA)})
a <- commandArgs(TRUE)
dims <- as.integer(readLines(a[1]))
m <- new("dgCMatrix", Dim = dims,
         p = readBin(a[2], "integer", dims[2] + 1, size = 4),
         i = readBin(a[3], "integer", 2^31 - 1, size = 4),
         x = readBin(a[4], "double", 2^31 - 1, size = 8))
dimnames(m) <- list(readLines(a[5]), readLines(a[6]))
lines <- strsplit(readLines(a[7]), "\t")
sets <- setNames(lapply(lines, function(l) l[-(1:2)]), vapply(lines, `[`, "", 1))
param <- function(x) if (a[9] == "gsva") gsvaParam(x, sets, kcdf = "Gaussian") else
  ssgseaParam(x, sets)
invisible(gsva(param(m[, 1:200]), verbose = FALSE))
t0 <- proc.time()[["elapsed"]]
es <- gsva(param(m), verbose = FALSE)
cat(sprintf("call %.3f\n", proc.time()[["elapsed"]] - t0), file = stderr())
write.table(as.matrix(es), a[8], sep = "\t", quote = FALSE, col.names = NA)
"""


def gene_sets(genes: int, n_sets: int = 50, seed: int = 7) -> dict:
    rng = np.random.default_rng(seed)
    sizes = np.exp(rng.uniform(np.log(15), np.log(500), size=n_sets)).astype(int)
    return {f"SET{k}": [f"GENE{i}" for i in rng.choice(genes, size=s, replace=False)]
            for k, s in enumerate(sizes)}


def write_cells(path: Path, cells: int, genes: int, density: float = 0.05) -> None:
    """The cells x genes CSR matrix written CELLS_PER_WRITE cells at a time (anndata's
    on-disk sparse format, appended), with obs and var names."""
    import anndata as ad
    import h5py
    import pandas as pd
    from scipy import sparse

    rng = np.random.default_rng(7)
    tmp = path.with_suffix(".part")
    # object-dtype names: pandas 3's default string arrays are not written by anndata < 0.13
    names = [pd.Index([f"{kind}{j}" for j in range(n)], dtype=object)
             for kind, n in (("CELL", cells), ("GENE", genes))]
    ad.AnnData(obs=pd.DataFrame(index=names[0]),
               var=pd.DataFrame(index=names[1])).write_h5ad(tmp)
    with h5py.File(tmp, "a") as f:
        if "X" in f:
            del f["X"]
        for c0 in range(0, cells, CELLS_PER_WRITE):
            rows = min(CELLS_PER_WRITE, cells - c0)
            mask = rng.random((rows, genes), dtype=np.float32) < density
            r, c = np.nonzero(mask)
            values = np.log1p(rng.poisson(3.0, size=r.size) + 1.0).astype(np.float32)
            block = sparse.csr_matrix((values, (r, c)), shape=(rows, genes))
            if c0 == 0:
                ad.io.write_elem(f, "X", block)
            else:
                ad.io.sparse_dataset(f["X"]).append(block)
    tmp.rename(path)


def status_bytes(field: str) -> int:
    """A memory figure of this process from /proc/self/status (VmRSS: now; VmHWM: the peak
    since the last reset)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def reset_peak() -> None:
    """Linux: the peak resident set (VmHWM) starts again from the current one."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def run_one(method: str, path: str, genes: int) -> None:
    """In this process: one method on the backed file; prints a JSON line."""
    import anndata as ad

    import oclstat

    sets = gene_sets(genes)
    adata = ad.read_h5ad(path, backed="r")
    f = getattr(oclstat, method)
    small = ad.read_h5ad(path, backed="r")
    f(small[:256].to_memory(), sets, inplace=False)           # kernels and imports warm
    reset_peak()
    before = status_bytes("VmRSS")
    t0 = time.perf_counter()
    f(adata, sets, inplace=False)
    seconds = time.perf_counter() - t0
    peak = status_bytes("VmHWM")
    print(json.dumps({"method": method, "cells": adata.n_obs, "seconds": seconds,
                      "above": max(0, peak - before), "before": before}), flush=True)


def in_memory_call(method: str, path: Path, cells: int, genes: int) -> tuple[float, object]:
    import anndata as ad
    from scipy import sparse

    import oclstat

    a = ad.read_h5ad(path, backed="r")
    x = sparse.csc_matrix(sparse.csr_matrix(a.X[:cells]).T, dtype=np.float64)
    names, cell_names = list(a.var_names), list(a.obs_names[:cells])
    sets = gene_sets(genes)
    f = getattr(oclstat, method)
    f(x[:, :200], sets, genes=names, samples=cell_names[:200])
    t0 = time.perf_counter()
    out = f(x, sets, genes=names, samples=cell_names)
    return time.perf_counter() - t0, (out, x, names, cell_names, sets)


def call_seconds(cmd) -> float:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr[-800:])
    return float([v for v in proc.stderr.splitlines() if v.startswith("call ")][-1].split()[1])


def gsva2_line(method: str, path: Path, args, d: Path) -> None:
    """GSVA 2 on the first ``--gsva2-cells`` cells as a dgCMatrix (ssgseaParam, or gsvaParam
    with its default sparse algorithm) next to oclstat's call on the same slice."""
    import pandas as pd

    import oclstat

    cells = args.gsva2_cells
    if method == "gsva":
        from scipy import sparse

        a = __import__("anndata").read_h5ad(path, backed="r")
        x = sparse.csc_matrix(sparse.csr_matrix(a.X[:cells]).T, dtype=np.float64)
        names, cell_names = list(a.var_names), list(a.obs_names[:cells])
        sets = gene_sets(args.genes)
        oclstat.gsva(x[:, :200], sets, sparse=True, genes=names, samples=cell_names[:200])
        t0 = time.perf_counter()
        ours = oclstat.gsva(x, sets, sparse=True, genes=names, samples=cell_names)
        t = time.perf_counter() - t0
    else:
        t, (ours, x, names, cell_names, sets) = in_memory_call(method, path, cells, args.genes)
    (d / "dims.txt").write_text(f"{x.shape[0]}\n{x.shape[1]}\n")
    x.indptr.astype(np.int32).tofile(d / "p.bin")
    x.indices.astype(np.int32).tofile(d / "i.bin")
    x.data.astype(np.float64).tofile(d / "x.bin")
    (d / "genes.txt").write_text("\n".join(names) + "\n")
    (d / "cells.txt").write_text("\n".join(cell_names) + "\n")
    oclstat.io.write_gmt(sets, d / "s.gmt")
    (d / "gsva2.R").write_text(GSVA2_SCRIPT)
    env = dict(os.environ, R_LIBS=args.gsva2_lib)
    proc = subprocess.run(["Rscript", str(d / "gsva2.R"), *(str(d / n) for n in (
        "dims.txt", "p.bin", "i.bin", "x.bin", "genes.txt", "cells.txt", "s.gmt", "es.tsv")),
        method], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        print(f"GSVA 2 ({method}) failed: {proc.stderr[-800:]}")
        return
    tp = float([v for v in proc.stderr.splitlines() if v.startswith("call ")][-1].split()[1])
    theirs = pd.read_csv(d / "es.tsv", sep="\t", index_col=0)
    diff = np.abs(ours.loc[theirs.index, theirs.columns].to_numpy() - theirs.to_numpy()).max()
    call = {"ssgsea": "ssgseaParam(dgCMatrix)", "gsva": "gsvaParam(dgCMatrix), sparse"}[method]
    print(f"{method}, {cells:,} cells in memory: oclstat {t:.2f} s ({cells / t:,.0f} cells/s), "
          f"GSVA 2 {call} {tp:.2f} s ({cells / tp:,.0f} cells/s): {tp / t:.1f}x, "
          f"max |diff| {diff:.1e}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cells", type=int, nargs="+", default=[100000, 1000000])
    ap.add_argument("--genes", type=int, default=20000)
    ap.add_argument("--file-dir", default=None, help="where the .h5ad files are kept")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    ap.add_argument("--peer-python", default=None, help="a Python with decoupler 2")
    ap.add_argument("--peer-cells", type=int, default=20000)
    ap.add_argument("--gsva2-lib", default=None, help="an R library with GSVA 2")
    ap.add_argument("--gsva2-cells", type=int, default=5000)
    ap.add_argument("--run", nargs=2, metavar=("METHOD", "FILE"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.run:
        run_one(args.run[0], args.run[1], args.genes)
        return 0
    print("\n".join(host_lines()))
    print(blas_line())
    folder = Path(args.file_dir or tempfile.gettempdir())
    cores = os.cpu_count() or 1
    rows = []
    for cells in args.cells:
        path = folder / f"cells_{cells}_{args.genes}.h5ad"
        if not path.exists():
            t0 = time.perf_counter()
            write_cells(path, cells, args.genes)
            print(f"wrote {path} ({path.stat().st_size / 2**30:.1f} GiB) in "
                  f"{time.perf_counter() - t0:.0f} s", flush=True)
        nnz = cells * args.genes * 0.05
        floor = max(nnz * math.log2(args.genes * 0.05) / (1e9 * cores),
                    path.stat().st_size / 2e9)
        for method in args.methods:
            proc = subprocess.run([sys.executable, __file__, "--genes", str(args.genes),
                                   "--run", method, str(path)], capture_output=True, text=True)
            if proc.returncode != 0:
                print(f"{method} at {cells:,} cells failed: {proc.stderr[-800:]}", flush=True)
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(r)
            print(f"{method:<7} {cells:>9,} cells  {r['seconds']:8.1f} s  "
                  f"{cells / r['seconds']:>8,.0f} cells/s  peak {r['above'] / 2**20:7.0f} MiB "
                  f"above the start ({r['before'] / 2**20:.0f} MiB)  floor {floor:.1f} s",
                  flush=True)
    path = folder / f"cells_{max(args.cells)}_{args.genes}.h5ad"
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if args.peer_python and "aucell" in args.methods:
            t, (ours, x, names, cell_names, sets) = in_memory_call("aucell", path,
                                                                   args.peer_cells, args.genes)
            import pandas as pd

            net = pd.DataFrame([(k, g) for k, v in sets.items() for g in v],
                               columns=["source", "target"])
            net.to_csv(d / "net.tsv", sep="\t", index=False)
            (d / "dc.py").write_text(DECOUPLER_SCRIPT)
            tp = call_seconds([args.peer_python, str(d / "dc.py"), str(path), str(d / "net.tsv"),
                               str(args.peer_cells), str(d / "dc.tsv")])
            print(f"aucell, {args.peer_cells:,} cells in memory: oclstat {t:.2f} s "
                  f"({args.peer_cells / t:,.0f} cells/s), decoupler {tp:.2f} s "
                  f"({args.peer_cells / tp:,.0f} cells/s): {tp / t:.1f}x", flush=True)
        if args.gsva2_lib and shutil.which("Rscript"):
            for method in ("ssgsea", "gsva"):
                gsva2_line(method, path, args, d)
    return 0


if __name__ == "__main__":
    sys.exit(main())
