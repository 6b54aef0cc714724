"""Single-sample enrichment: ``oclstat ssgsea`` / ``gsva`` / ``aucell`` next to R's GSVA 1.46
(``gsva(method = "ssgsea" / "gsva")`` at parallel.sz 1 and 2), GSEApy's ``ssgsea`` and
decoupler's ``ssgsea`` / ``gsva`` / ``aucell``, in one run on the same matrix and sets.

    python benchmarks/bench_singlesample.py [--genes 20000] [--samples 500] [--sets 50]
        [--device D] [--peer-python PATH] [--cells 50000] [--gsva-cells 5000]
        [--poisson-samples 500] [--skip-matrix]

Data (numpy seed 1): log-normal-like expression, genes x samples, 50 gene sets of 15 to 500
random genes. Every tool runs as a whole process (``oclstat`` and ``Rscript`` read the same
TSV and GMT and write their TSV; R reads with data.table's fread where installed), so the
times include start-up, reading and writing; "in the call" is the scoring call alone as each
tool reports it. Each command runs once first on a 2,000 x 20 slice, untimed, so that every
tool's libraries are in the file cache. The scores are checked against GSVA's (max
|difference|). ``--peer-python``:
a Python with decoupler (it needs numba, kept out of the project's environment).

``--cells``: ssGSEA and AUCell on a genes x cells scipy.sparse matrix with 5% non-zeros,
scored block by block (the peak memory is printed); ``--gsva-cells``: GSVA's kernel estimate
(cells^2 evaluations per gene) on that many cells for 2,000 genes, with the rate projected to
20,000 genes. ``--poisson-samples``: GSVA's Poisson kernel on negative-binomial counts
(``--genes`` x that many samples) against GSVA 1.46 in R.

Floors: GSVA's estimate costs genes x samples^2 kernel evaluations; at 12 double operations
an evaluation and 8 double operations per cycle of every core (two 4-lane AVX2 units; an
optimistic CPU rate), that is the floor printed. ssGSEA and AUCell sort every sample: 8 bytes
x genes x samples read and written a few times, far below a second here; their time is the
host's sorting.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import host_lines, table

import oclstat

R_SCRIPT = textwrap.dedent("""
    suppressMessages(library(GSVA))
    a <- commandArgs(TRUE)
    x <- if (requireNamespace("data.table", quietly = TRUE)) {
      d <- data.table::fread(a[1], sep = "\t", header = TRUE)
      m <- as.matrix(d[, -1]); rownames(m) <- d[[1]]; m
    } else as.matrix(read.delim(a[1], row.names = 1, check.names = FALSE))
    lines <- strsplit(readLines(a[2]), "\\t")
    sets <- setNames(lapply(lines, function(l) l[-(1:2)]), vapply(lines, `[`, "", 1))
    t0 <- proc.time()[["elapsed"]]
    kcdf <- if (length(a) > 5) a[6] else "Gaussian"
    s <- suppressWarnings(gsva(x, sets, method = a[3], parallel.sz = as.integer(a[4]),
                               kcdf = kcdf, verbose = FALSE))
    cat(sprintf("call %.3f\\n", proc.time()[["elapsed"]] - t0), file = stderr())
    write.table(s, a[5], sep = "\\t", quote = FALSE, col.names = NA)
""")

PEER_SCRIPT = textwrap.dedent("""
    import sys, time, pandas as pd
    tool, method, expr, gmt, out = sys.argv[1:6]
    x = pd.read_csv(expr, sep="\\t", index_col=0)
    sets = {}
    for line in open(gmt):
        f = line.rstrip("\\n").split("\\t")
        sets[f[0]] = f[2:]
    t0 = time.perf_counter()
    if tool == "gseapy":
        import gseapy
        r = gseapy.ssgsea(data=x, gene_sets=sets, outdir=None, sample_norm_method="rank",
                          min_size=1, max_size=100000, no_plot=True, threads=2)
        s = r.res2d.pivot(index="Term", columns="Name", values="NES")
    else:
        import decoupler as dc
        net = pd.DataFrame([(k, g) for k, v in sets.items() for g in v],
                           columns=["source", "target"])
        fn = {"gsva": dc.mt.gsva, "aucell": dc.mt.aucell}[method]
        res = fn(x.T, net, tmin=1, verbose=False)
        s = (res[0] if isinstance(res, tuple) else res).T
    sys.stderr.write(f"call {time.perf_counter() - t0:.3f}\\n")
    s.to_csv(out, sep="\\t")
""")


#: Double operations of one kernel evaluation (difference, scale, slack, two floors, compares,
#: select, sum), the gathered table value not counted.
OPS = 12


def clock_mhz(rt) -> float:
    """The device's clock (MHz), from /proc/cpuinfo where the runtime reports none."""
    mhz = int(getattr(rt.device, "max_clock_frequency", 0) or 0)
    if not mhz and os.path.exists("/proc/cpuinfo"):
        found = re.findall(r"cpu MHz\s*:\s*([0-9.]+)", Path("/proc/cpuinfo").read_text())
        mhz = float(found[0]) if found else 0
    return mhz or 1000.0


def make_data(genes: int, samples: int, n_sets: int, seed: int = 1):
    rng = np.random.default_rng(seed)
    base = rng.gamma(2.0, 2.0, size=(genes, 1))
    x = np.log2(1 + base * rng.lognormal(0.0, 0.6, size=(genes, samples)))
    names = [f"GENE{i}" for i in range(genes)]
    frame = pd.DataFrame(np.round(x, 6), index=pd.Index(names, name="gene"),
                         columns=[f"S{j}" for j in range(samples)])
    sizes = np.exp(rng.uniform(np.log(15), np.log(500), size=n_sets)).astype(int)
    sets = {f"SET{k}": list(rng.choice(names, size=s, replace=False))
            for k, s in enumerate(sizes)}
    return frame, sets


def timed(cmd, env=None, warm=None) -> tuple[float, float | None]:
    """Whole-process seconds and the tool's own call time (a ``call S`` line on stderr);
    ``warm``: the same command on a small matrix, run first, untimed (libraries and compiled
    code in the file cache, for every tool alike)."""
    if warm is not None:
        subprocess.run(warm, capture_output=True, text=True, env=env)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed: {(done.stdout + done.stderr)[-800:]}")
    call = [ln.split()[1] for ln in done.stderr.splitlines() if ln.startswith("call ")]
    call += re.findall(r"^(?:ssGSEA|GSVA|AUCell): .*, ([0-9.]+) s", done.stderr, re.M)
    return elapsed, float(call[-1]) if call else None


def read_scores(path) -> pd.DataFrame:
    return pd.read_csv(path, sep="\t", index_col=0)


def max_difference(a: pd.DataFrame, b: pd.DataFrame) -> float:
    b = b.loc[a.index, a.columns]
    return float(np.abs(a.to_numpy() - b.to_numpy()).max())


def warm_command(cmd, d: Path) -> list:
    """``cmd`` on the small matrix: its input and output paths swapped for the warm-up's."""
    swap = {str(d / "x.tsv"): str(d / "warm.tsv"), str(d / "s.gmt"): str(d / "warm.gmt")}
    out = [swap.get(c, c) for c in cmd]
    return [str(d / "warm_out.tsv") if c.endswith(".tsv") and c not in swap.values() and
            c.startswith(str(d)) else c for c in out]


def whole_matrix(args, d: Path, frame, sets) -> list[dict]:
    frame.to_csv(d / "x.tsv", sep="\t")
    oclstat.io.write_gmt(sets, d / "s.gmt")
    small = frame.iloc[:2000, :20]
    small.to_csv(d / "warm.tsv", sep="\t")
    oclstat.io.write_gmt({k: [g for g in v if g in small.index] for k, v in sets.items()},
                         d / "warm.gmt")
    (d / "gsva.R").write_text(R_SCRIPT)
    (d / "peer.py").write_text(PEER_SCRIPT)
    os.sync()           # the inputs on disk before any timing: no write-back during a read
    rows = []
    rscript = shutil.which("Rscript")
    for method in ("ssgsea", "gsva", "aucell"):
        out = d / f"ocl_{method}.tsv"
        cmd = [sys.executable, "-m", "oclstat", method, "--expr", str(d / "x.tsv"), "--gmt",
               str(d / "s.gmt"), "--out", str(out)] + \
            (["--device", args.device] if args.device and method == "gsva" else [])
        t, call = timed(cmd, warm=warm_command(cmd, d))
        ours = read_scores(out)
        rows.append({"method": method, "tool": "oclstat", "seconds": t, "call": call,
                     "ratio": 1.0, "check": ""})
        print(f"  {method}: oclstat {t:.2f} s", flush=True)
        peers = []
        if rscript and method != "aucell":
            for par in (1, 2):
                peers.append((f"GSVA 1.46 (R, parallel.sz {par})",
                              [rscript, str(d / "gsva.R"), str(d / "x.tsv"), str(d / "s.gmt"),
                               method, str(par), str(d / f"r_{method}_{par}.tsv")],
                              d / f"r_{method}_{par}.tsv", "GSVA"))
        if method == "ssgsea":
            peers.append(("GSEApy 1.3 ssgsea (threads 2)",
                          [sys.executable, str(d / "peer.py"), "gseapy", method,
                           str(d / "x.tsv"), str(d / "s.gmt"), str(d / "gp.tsv")],
                          d / "gp.tsv", None))
        if args.peer_python and method != "ssgsea":       # decoupler 2 has no ssGSEA
            peers.append((f"decoupler {args.decoupler_version} {method}",
                          [args.peer_python, str(d / "peer.py"), "decoupler", method,
                           str(d / "x.tsv"), str(d / "s.gmt"), str(d / f"dc_{method}.tsv")],
                          d / f"dc_{method}.tsv", None))
        for name, cmd, path, anchor in peers:
            try:
                tp, call = timed(cmd, warm=warm_command(cmd, d))
            except RuntimeError as exc:
                print(f"  {name}: failed ({str(exc)[-200:]})", flush=True)
                continue
            check = ""
            if anchor:
                check = f"max |diff| {max_difference(ours, read_scores(path)):.1e}"
            rows.append({"method": method, "tool": name, "seconds": tp, "call": call,
                         "ratio": tp / t, "check": check})
            print(f"  {method}: {name} {tp:.2f} s ({tp / t:.1f}x) {check}", flush=True)
    return rows


def single_cell(args) -> None:
    from scipy import sparse

    rng = np.random.default_rng(2)
    genes, cells = args.genes, args.cells
    m = sparse.random(genes, cells, density=0.05, format="csc", random_state=rng,
                      data_rvs=lambda k: np.log1p(rng.poisson(3.0, k) + 1.0))
    names = [f"GENE{i}" for i in range(genes)]
    sizes = np.exp(rng.uniform(np.log(15), np.log(500), size=args.sets)).astype(int)
    sets = {f"SET{k}": list(rng.choice(names, size=s, replace=False))
            for k, s in enumerate(sizes)}
    for f in (oclstat.ssgsea, oclstat.aucell):
        tracemalloc.start()
        t0 = time.perf_counter()
        f(m, sets, genes=names)
        t = time.perf_counter() - t0
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(f"{f.__name__}: {genes:,} genes x {cells:,} cells (sparse, 5% non-zero, "
              f"{m.data.nbytes / 2**20:.0f} MiB of values), {len(sets)} sets: {t:.1f} s, "
              f"{cells / t:,.0f} cells/s, peak {peak / 2**20:.0f} MiB above the input "
              f"(dense would be {genes * cells * 8 / 2**30:.1f} GiB)", flush=True)


def gsva_cells(args) -> None:
    rng = np.random.default_rng(3)
    genes, cells = 2000, args.gsva_cells
    x = np.log1p(rng.poisson(rng.gamma(0.5, 2.0, size=(genes, 1)), size=(genes, cells)))
    x = pd.DataFrame(x + rng.normal(0, 1e-3, size=x.shape), index=[f"G{i}" for i in range(genes)])
    sets = {f"s{k}": list(x.index[k * 30:(k + 1) * 30 + 20]) for k in range(50)}
    rt = oclstat.get_runtime(args.device)
    t0 = time.perf_counter()
    oclstat.gsva(x, sets, device=rt)
    t = time.perf_counter() - t0
    evals = genes * cells**2
    print(f"gsva: {genes:,} genes x {cells:,} cells: {t:.1f} s, {evals / t / 1e9:.2f} G kernel "
          f"evaluations/s on {rt.info.label}; 20,000 genes x {cells:,} cells at this rate: "
          f"{20000 * cells**2 / (evals / t) / 60:.1f} min", flush=True)


def poisson_counts(args) -> None:
    """GSVA with the Poisson kernel (``kcdf = "Poisson"``, for counts) on negative-binomial
    counts (genes' means gamma-distributed around 5, size 2), oclstat's call against GSVA
    1.46's in R (``parallel.sz`` 1), both as whole processes reading the same TSV."""
    rng = np.random.default_rng(4)
    genes, n = args.genes, args.poisson_samples
    mu = rng.gamma(0.5, 10.0, size=(genes, 1))
    x = rng.negative_binomial(2, 2 / (2 + mu), size=(genes, n)).astype(float)
    frame = pd.DataFrame(x, index=pd.Index([f"GENE{i}" for i in range(genes)], name="gene"),
                         columns=[f"S{j}" for j in range(n)])
    names = list(frame.index)
    sizes = np.exp(rng.uniform(np.log(15), np.log(500), size=args.sets)).astype(int)
    sets = {f"SET{k}": list(rng.choice(names, size=s, replace=False))
            for k, s in enumerate(sizes)}
    distinct = np.mean([np.unique(r).size for r in x])
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        frame.to_csv(d / "x.tsv", sep="\t")
        oclstat.io.write_gmt(sets, d / "s.gmt")
        (d / "gsva.R").write_text(R_SCRIPT)
        os.sync()
        cmd = [sys.executable, "-m", "oclstat", "gsva", "--kcdf", "Poisson", "--expr",
               str(d / "x.tsv"), "--gmt", str(d / "s.gmt"), "--out", str(d / "ocl.tsv")]
        t, call = timed(cmd)
        print(f"gsva Poisson: {genes:,} genes x {n:,} samples (counts, {distinct:.0f} distinct "
              f"values per gene on average), {len(sets)} sets: oclstat {t:.2f} s "
              f"(call {call:.2f} s)", flush=True)
        rscript = shutil.which("Rscript")
        if rscript:
            tr, rcall = timed([rscript, str(d / "gsva.R"), str(d / "x.tsv"), str(d / "s.gmt"),
                               "gsva", "1", str(d / "r.tsv"), "Poisson"])
            ours, ref = read_scores(d / "ocl.tsv"), read_scores(d / "r.tsv")
            diff = np.abs(ours.to_numpy() - ref.loc[ours.index, ours.columns].to_numpy())
            # genes with the same counts elsewhere tie exactly: GSVA orders them by the last
            # bits of its ppois sums, oclstat by row (README), which moves those samples' scores
            print(f"gsva Poisson: GSVA 1.46 (R, parallel.sz 1) {tr:.2f} s (call {rcall:.2f} s):"
                  f" {tr / t:.1f}x oclstat's whole process, {rcall / call:.1f}x in the call; "
                  f"{(diff < 1e-8).mean():.1%} of the scores within 1e-8 (max |diff| "
                  f"{diff.max():.1e}: tied estimates ordered by row)", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--genes", type=int, default=20000)
    ap.add_argument("--samples", type=int, default=500)
    ap.add_argument("--sets", type=int, default=50)
    ap.add_argument("--device", default=None)
    ap.add_argument("--peer-python", default=None,
                    help="a Python with decoupler installed (run as a peer)")
    ap.add_argument("--cells", type=int, default=0,
                    help="also ssGSEA and AUCell on this many sparse cells")
    ap.add_argument("--gsva-cells", type=int, default=0,
                    help="also GSVA's estimate on this many cells (2,000 genes)")
    ap.add_argument("--poisson-samples", type=int, default=0,
                    help="also GSVA's Poisson kernel on --genes x this many count samples, "
                         "against R's GSVA")
    ap.add_argument("--skip-matrix", action="store_true",
                    help="only the --cells / --gsva-cells / --poisson-samples runs")
    args = ap.parse_args(argv)
    print("\n".join(host_lines()), flush=True)
    args.decoupler_version = subprocess.run(
        [args.peer_python, "-c", "import decoupler; print(decoupler.__version__)"],
        capture_output=True, text=True).stdout.strip() if args.peer_python else ""
    rt = oclstat.get_runtime(args.device)
    if args.device:
        os.environ["OCLSTAT_DEVICE"] = args.device
    if not args.skip_matrix:
        frame, sets = make_data(args.genes, args.samples, args.sets)
        floor = args.genes * args.samples**2 * OPS / (rt.info.compute_units * 8 * clock_mhz(rt)
                                                      * 1e6)
        print(f"{args.genes:,} genes x {args.samples:,} samples x {len(sets)} sets; GSVA's "
              f"estimate: {args.genes * args.samples**2 / 1e9:.1f} G kernel evaluations, "
              f"floor {floor:.2f} s on {rt.info.label}", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            rows = whole_matrix(args, Path(tmp), frame, sets)
        for r in rows:
            r["seconds"] = f"{r['seconds']:.2f}"
            call = r.pop("call")
            r["in the call"] = "" if call is None else f"{call:.2f}"
            r["time / oclstat's"] = f"{r.pop('ratio'):.1f}x"
        print(table(rows, ["method", "tool", "seconds", "in the call", "time / oclstat's",
                           "check"]))
    if args.cells:
        single_cell(args)
    if args.gsva_cells:
        gsva_cells(args)
    if args.poisson_samples:
        poisson_counts(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
