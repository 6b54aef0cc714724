"""PLINK's regressions with covariates: ``oclstat.epistasis(test="logistic" | "linear",
covariates=...)`` on the device next to R fitting the same model per pair (``glm`` with
binomial family, ``lm``: the reference its tests match to 1e-6), in one run.

    python benchmarks/bench_epistasis_covariates.py [--snps 120] [--samples 2000]
                                                    [--covariates 2] [--device D ...]

Data (numpy seed 1): HWE genotypes with MAF U(0.05, 0.5) and 1% missing, normal covariates,
a case/control phenotype and a normal trait. oclstat reports every pair (``epi1=1``); R loops
over the same pairs with ``summary(fit)$coefficients["a:b", 3]^2`` (the Wald statistic),
timed inside R around the loop. The benchmark checks the statistics agree to 1e-6 relative,
then prints the times, the rates (pairs per second) and the ratio.

Floor: one pass over a pair's samples accumulates the lower triangle of X'WX and X'r, P (P + 3)
/ 2 multiply-adds per sample for P = 4 + covariates terms; linear takes one pass, logistic about
one per Newton step (5 to 7 here). At one multiply-add per cycle of every compute unit that is
the floor printed.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import host_lines, table

import oclstat

R_LOOP = """
g <- as.matrix(read.csv("{g}", header = FALSE)); d <- read.csv("{d}")
y <- d$y; q <- d$q; cv <- as.matrix(d[, grep("^c", names(d))])
m <- ncol(g); out <- c()
t <- system.time(for (i in 1:(m - 1)) for (j in (i + 1):m) {{
  a <- g[, i]; b <- g[, j]
  fit <- {fit}
  s <- summary(fit)$coefficients
  out <- c(out, if ("a:b" %in% rownames(s)) s["a:b", 3]^2 else NA)
}})[["elapsed"]]
cat(t, "\\n"); cat(sprintf("%.17g", out), sep = "\\n")
"""


def r_fits(tmp: Path, g, y, q, cov, test: str) -> tuple[float, np.ndarray]:
    """Seconds inside R and the statistics of every pair (i < j, row order)."""
    gm = np.where(g < 0, np.nan, g).T
    np.savetxt(tmp / "g.csv", gm, delimiter=",", fmt="%g")
    cols = {"y": y, "q": q, **{f"c{k}": cov[:, k] for k in range(cov.shape[1])}}
    header = ",".join(cols)
    np.savetxt(tmp / "d.csv", np.column_stack(list(cols.values())), delimiter=",",
               header=header, comments="", fmt="%.17g")
    terms = " + ".join(f"cv[, {k + 1}]" for k in range(cov.shape[1]))
    fit = (f"glm(y ~ a * b + {terms}, family = binomial, control = glm.control("
           "epsilon = 1e-14, maxit = 100))" if test == "logistic" else f"lm(q ~ a * b + {terms})")
    out = subprocess.run(["Rscript", "-e", R_LOOP.format(g=tmp / "g.csv", d=tmp / "d.csv",
                                                          fit=fit)],
                         capture_output=True, text=True, check=True)
    lines = out.stdout.split()
    return float(lines[0]), np.array([float(v) if v != "NA" else np.nan for v in lines[1:]])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snps", type=int, default=120)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--covariates", type=int, default=2)
    ap.add_argument("--device", action="append", default=None)
    args = ap.parse_args(argv)
    print("\n".join(host_lines()), flush=True)
    m, n, k = args.snps, args.samples, args.covariates
    rng = np.random.default_rng(1)
    maf = rng.uniform(0.05, 0.5, size=m)
    g = rng.binomial(2, maf[:, None], size=(m, n)).astype(np.int8)
    g[rng.random(g.shape) < 0.01] = -1
    cov = rng.normal(size=(n, k))
    y = (rng.random(n) < 1 / (1 + np.exp(-0.5 * cov[:, 0]))).astype(np.int8)
    q = rng.normal(size=n) + 0.3 * cov[:, 0]
    pairs = m * (m - 1) // 2
    devices = args.device or ["pocl"]
    rows = []
    for test, pheno in (("logistic", y), ("linear", q)):
        results = {}
        for dev in devices:
            oclstat.epistasis(g[:4], pheno, test=test, covariates=cov, epi1=1.0,
                              keep_allele_order=True, device=dev, progress=False)  # builds
            t0 = time.perf_counter()
            res = oclstat.epistasis(g, pheno, test=test, covariates=cov, epi1=1.0,
                                    keep_allele_order=True, device=dev, progress=False)
            t = time.perf_counter() - t0
            results[dev] = res.table
            rows.append({"test": test, "tool": f"oclstat ({dev})", "seconds": t,
                         "pairs/s": pairs / t})
        if shutil.which("Rscript"):
            with tempfile.TemporaryDirectory() as tmp:
                t_r, ref = r_fits(Path(tmp), g, y, q, cov, test)
            fn = "glm(binomial)" if test == "logistic" else "lm"
            rows.append({"test": test, "tool": f"R {fn} per pair", "seconds": t_r,
                         "pairs/s": pairs / t_r})
            ours = results[devices[0]]
            index = {(a, b): s for a, b, s in zip(ours.SNP1, ours.SNP2, ours.STAT, strict=True)}
            got = np.array([index.get((f"snp{i}", f"snp{j}"), np.nan)
                            for i in range(m) for j in range(i + 1, m)])
            ok = np.isfinite(got) & np.isfinite(ref)
            worst = float(np.max(np.abs(got[ok] / ref[ok] - 1)))
            print(f"{test}: {int(ok.sum())} of {pairs} pairs fitted by both, largest relative "
                  f"difference from R {worst:.1e}")
            for r in rows[-len(devices) - 1:]:
                r["R / this"] = f"{t_r / r['seconds']:.1f}x"
    rt = oclstat.get_runtime(devices[0])
    p = 4 + k
    clock = max(int(getattr(rt.device, "max_clock_frequency", 0) or 0), 1000)
    per_pass = pairs * n * p * (p + 3) / 2 / (rt.info.compute_units * clock * 1e6)
    print(f"{m} SNPs x {n} samples, {k} covariates, {pairs:,} pairs; floor per pass over the "
          f"samples {per_pass:.2f} s on {rt.info.label} (linear 1 pass, logistic ~6)")
    for r in rows:
        r["seconds"] = f"{r['seconds']:.2f}"
        r["pairs/s"] = f"{r['pairs/s']:,.0f}"
    print(table(rows, ["test", "tool", "seconds", "pairs/s", "R / this"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
