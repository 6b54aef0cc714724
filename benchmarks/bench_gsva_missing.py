"""GSVA with missing values: ``oclstat.gsva(nan_policy=)`` next to GSVA 2's own code on the
same matrix and sets, in one run (GSVA 2 1.53.31's C built from its source tree and its
``gsvaRanks``/``gsvaScores`` path evaluated as written: tools/gsva2_source.py).

    python benchmarks/bench_gsva_missing.py --gsva-source DIR [--genes 5000] [--samples 100]
        [--sets 50] [--missing 0.05] [--device D]

Data (numpy seed 1): normal expression rounded to 3 decimals, genes x samples, a fraction
``--missing`` of the values missing at random (none in the first sample: GSVA 2's kernel
reads one value past each gene's there, see tests/data/make_gsva2_gsva_na_reference.py),
50 sets of 15 to 500 random genes. Each policy (``"everything"``/``"propagate"``,
``"na.rm"``/``"omit"``) with the Gaussian kernel: GSVA 2 in one Rscript, timed around its call
(the matrix already in R); oclstat in this process, timed around its call after one untimed
call on a 500-gene slice (the kernels built). The scores are compared (the same NA, max
|difference|).

Floor: the kernel estimate costs genes x samples^2 evaluations; at 12 double operations each
and 8 double operations per cycle of every core (an optimistic CPU rate), the floor printed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import gsva2_source
from _common import clock_hz, header, table

import oclstat

R_CALL = r"""
a <- commandArgs(TRUE)
x <- as.matrix(read.delim(a[1], row.names = 1, check.names = FALSE))
lines <- strsplit(readLines(a[2]), "\t")
sets <- setNames(lapply(lines, function(l) l[-(1:2)]), vapply(lines, `[`, "", 1))
t0 <- proc.time()[["elapsed"]]
es <- gsva2(x, sets, "Gaussian", a[3])
cat(sprintf("SECONDS %.4f\n", proc.time()[["elapsed"]] - t0))
write.table(es, a[4], sep = "\t", quote = FALSE)
"""

#: Double operations of one kernel evaluation (as bench_singlesample.py counts them).
OPS = 12


def data(genes: int, samples: int, n_sets: int, missing: float):
    rng = np.random.default_rng(1)
    x = np.round(rng.normal(size=(genes, samples)), 3)
    holes = rng.random(x.shape) < missing
    holes[:, 0] = False
    x[holes] = np.nan
    names = [f"g{i}" for i in range(genes)]
    frame = pd.DataFrame(x, index=pd.Index(names, name="gene"),
                         columns=[f"s{j}" for j in range(samples)])
    sizes = rng.integers(15, 501, size=n_sets)
    sets = {f"set{k}": [names[i] for i in rng.choice(genes, size=int(s), replace=False)]
            for k, s in enumerate(sizes)}
    return frame, sets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gsva-source", required=True, type=Path,
                    help="rcastelo/GSVA's source tree (>= 1.53.31)")
    ap.add_argument("--genes", type=int, default=5000)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--sets", type=int, default=50)
    ap.add_argument("--missing", type=float, default=0.05)
    ap.add_argument("--device", default=None)
    args = ap.parse_args()
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "GSVA with missing values: oclstat next to GSVA 2's own code"))
    frame, sets = data(args.genes, args.samples, args.sets, args.missing)
    floor = args.genes * args.samples**2 * OPS / (rt.info.compute_units * 8 * clock_hz(rt))
    print(f"# {args.genes:,} genes x {args.samples} samples, {frame.isna().to_numpy().mean():.1%} "
          f"missing, {len(sets)} sets; floor {floor:.3f} s", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        frame.to_csv(d / "x.tsv", sep="\t", na_rep="NA")
        oclstat.io.write_gmt(sets, d / "s.gmt")
        so = gsva2_source.build(args.gsva_source.resolve(), d)
        (d / "run.R").write_text(gsva2_source.prelude(args.gsva_source.resolve(), so) + R_CALL)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            oclstat.gsva(frame.iloc[:500], sets, nan_policy="omit", min_size=1, device=rt)
        for use, policy in (("everything", "propagate"), ("na.rm", "omit")):
            out = subprocess.run(["Rscript", str(d / "run.R"), str(d / "x.tsv"),
                                  str(d / "s.gmt"), use, str(d / f"{use}.tsv")],
                                 capture_output=True, text=True, check=True)
            r_seconds = float(out.stdout.split("SECONDS")[1].split()[0])
            ref = pd.read_csv(d / f"{use}.tsv", sep="\t", index_col=0)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                got = oclstat.gsva(frame, sets, nan_policy=policy, device=rt)
                seconds = time.perf_counter() - t0
            got = got.loc[ref.index, ref.columns].to_numpy()
            want = ref.to_numpy()
            same_na = bool((np.isnan(got) == np.isnan(want)).all())
            rows.append({"use": f"{use} / {policy}", "GSVA 2": f"{r_seconds:.2f} s",
                         "oclstat": f"{seconds:.2f} s",
                         "speed-up": f"{r_seconds / seconds:.1f}x",
                         "floor / oclstat": f"{floor / seconds:.1%}",
                         "same NA": str(same_na),
                         "max |diff|": (f"{np.nanmax(np.abs(got - want)):.1e}"
                                        if not np.isnan(want).all() else "-"),
                         "NA scores": f"{np.isnan(want).mean():.1%}"})
    print(table(rows, list(rows[0])))


if __name__ == "__main__":
    main()
