"""Gaussian spatial models: oclstat.fit_matern next to R's fields::spatialProcess, and batched
Matérn log-likelihoods next to a numpy/scipy loop, in one run.

    python benchmarks/bench_spatial.py [--device D] [--rain-sets N] [--loop-sets M] [--no-r]

Data: fields::NorthAmericanRainfall (../shared/data/fields), 1,720 stations, projected to km
(equidistant cylindrical about the mean latitude); log precipitation ~ elevation (km), Matérn
with smoothness 1, ML; the Meuse data (155 points), log zinc ~ sqrt(dist).

Part 1, the fit: ``fields::spatialProcess(xy, y, Z = elevation, mKrig.args = list(m = 1),
smoothness = 1)`` (Rscript, timed inside R around the call) against
``oclstat.fit_matern(..., profiles=False, profile2d=False)`` (the first call in the process,
kernel builds included); both maximised log-likelihoods and the parameters in fields' terms
(aRange = range / sqrt(8 nu), lambda = nugget).

Part 2, many parameter sets: ``matern_loglik`` on a table of parameter sets against a loop
that builds each covariance with scipy.special.kv and factors it with
``scipy.linalg.cho_factor`` (then the same GLS solves): 1,000 sets on Meuse; on the rainfall
data ``--rain-sets`` sets for oclstat and ``--loop-sets`` for the loop, scaled linearly to the
same count (each set costs the loop the same).

Floor: every likelihood needs one factorisation, n³/3 multiply-adds (2n³/3 flops), and n²/2
Matérn evaluations; at the fp64 rate this machine's BLAS reaches (numpy's matmul of 2,000²,
all cores) a lower bound no implementation on these cores can beat; the same flops at an
H100's 50 TFLOP/s fp64 (tensor cores) give the paper's projection.
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
import scipy.linalg as sl
from scipy import special as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, table

import oclstat

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "fields"
H100_FP64 = 50e12

R_SCRIPT = """
suppressMessages(library(fields))
d <- read.csv('{csv}')
xy <- as.matrix(d[, c('x', 'y')])
t0 <- proc.time()[['elapsed']]
fit <- spatialProcess(xy, d$resp, Z = d$z, mKrig.args = list(m = 1), smoothness = 1)
t1 <- proc.time()[['elapsed']]
s <- fit$summary
cat('seconds', t1 - t0, '\\n')
cat('loglik', format(s[['lnProfileLike.FULL']], digits = 12), '\\n')
cat('aRange', format(s[['aRange']], digits = 12), '\\n')
cat('lambda', format(s[['lambda']], digits = 12), '\\n')
cat('sigma2', format(s[['sigma2']], digits = 12), '\\n')
"""


def rainfall():
    d = pd.read_csv(DATA / "north_american_rainfall.csv")
    lat0 = np.deg2rad(d["latitude"].mean())
    xy = 6371.0 * np.column_stack([np.deg2rad(d["longitude"]) * np.cos(lat0),
                                   np.deg2rad(d["latitude"])])
    X = np.column_stack([np.ones(len(d)), d["elevation"] / 1000.0])
    return xy, np.log(d["precip"].to_numpy(float)), X


def meuse():
    m = pd.read_csv(DATA / "meuse.csv")
    X = np.column_stack([np.ones(len(m)), np.sqrt(m["dist"].to_numpy(float))])
    return m[["x", "y"]].to_numpy(float), np.log(m["zinc"].to_numpy(float)), X


def fields_fit(xy, y, z):
    """fields::spatialProcess through Rscript: its own timing and results, or None."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "data.csv"
        pd.DataFrame({"x": xy[:, 0], "y": xy[:, 1], "resp": y, "z": z}).to_csv(
            csv, index=False, float_format="%.17g")
        script = Path(tmp) / "fit.R"
        script.write_text(R_SCRIPT.format(csv=csv))
        proc = subprocess.run(["Rscript", str(script)], capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"# fields: Rscript failed: {proc.stderr.strip()[-300:]}")
        return None
    out = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = float(value)
    return out


def scipy_loglik(coords, y, X, p):
    """One parameter set the plain way: covariance with scipy's kv, Cholesky, GLS."""
    rng_, nu, nug = p[0], p[1], p[2]
    d = np.sqrt(((coords[:, None, :] - coords[None, :, :]) ** 2).sum(-1))
    x = np.sqrt(8 * nu) * d / rng_
    with np.errstate(invalid="ignore", divide="ignore"):
        v = 2 ** (1 - nu) / sp.gamma(nu) * x ** nu * sp.kv(nu, x)
    v[d == 0] = 1.0
    v[np.diag_indices_from(v)] += nug
    c = sl.cho_factor(v, lower=True)
    logdet = 2 * np.log(np.diag(c[0])).sum()
    vx = sl.cho_solve(c, X)
    beta = np.linalg.solve(X.T @ vx, vx.T @ y)
    r = y - X @ beta
    s2 = r @ sl.cho_solve(c, r) / len(y)
    return -0.5 * len(y) * (np.log(2 * np.pi) + 1 + np.log(s2)) - 0.5 * logdet


def blas_rate() -> float:
    """fp64 flop/s of numpy's matmul (2,000 x 2,000) on all cores: the CPU's usable rate."""
    a = np.random.default_rng(0).normal(size=(2000, 2000))
    a @ a
    t0 = time.perf_counter()
    for _ in range(3):
        a @ a
    return 3 * 2 * 2000**3 / (time.perf_counter() - t0)


def param_table(n_sets: int, dmax: float, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"range": np.exp(rng.uniform(np.log(dmax / 50), np.log(dmax), n_sets)),
                         "shape": rng.choice([0.5, 1.0, 1.5, 2.5], n_sets),
                         "nugget": np.exp(rng.uniform(np.log(1e-3), np.log(1.0), n_sets))})


def many_sets(rt, name, coords, y, X, n_sets, loop_sets, rate):
    dmax = float(np.ptp(coords, axis=0).max())
    params = param_table(n_sets, dmax)
    oclstat.matern_loglik(coords, y, X, params.iloc[:2], device=rt)        # kernel builds
    t0 = time.perf_counter()
    res = oclstat.matern_loglik(coords, y, X, params, device=rt)
    t_ocl = time.perf_counter() - t0
    m = min(loop_sets, n_sets)
    t0 = time.perf_counter()
    ref = [scipy_loglik(coords, y, X, params.iloc[i].to_numpy()) for i in range(m)]
    t_loop = (time.perf_counter() - t0) * n_sets / m
    err = np.max(np.abs(res.loglik[:m, 0] - ref) / np.abs(ref))
    n = len(y)
    flops = n_sets * 2 * n**3 / 3
    return {"data": f"{name} (n = {n})", "sets": f"{n_sets:,}",
            "oclstat s": f"{t_ocl:.2f}",
            "scipy loop s": f"{t_loop:.2f}" + (f" (scaled from {m})" if m < n_sets else ""),
            "ratio": f"{t_loop / t_ocl:.1f}x", "max rel diff": f"{err:.1e}",
            "floor s": f"{flops / rate:.2f}", "H100 s": f"{flops / H100_FP64:.4f}"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--rain-sets", type=int, default=100,
                    help="parameter sets of the rainfall likelihood batch (default 100)")
    ap.add_argument("--loop-sets", type=int, default=10,
                    help="sets the scipy loop times on the rainfall data (scaled up)")
    ap.add_argument("--no-r", action="store_true", help="skip fields::spatialProcess")
    args = ap.parse_args(argv)
    t_start = time.perf_counter()
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "Gaussian spatial models: oclstat.fit_matern vs fields::spatialProcess, "
                     "matern_loglik vs a scipy loop"))
    rate = blas_rate()
    print(f"# this CPU's fp64 rate (numpy matmul, all cores): {rate / 1e9:.1f} GFLOP/s")

    xy, y, X = rainfall()
    ref = None if args.no_r else fields_fit(xy, y, X[:, 1])
    t0 = time.perf_counter()
    fit = oclstat.fit_matern(xy, y, X, profiles=False, profile2d=False, device=rt)
    t_fit = time.perf_counter() - t0
    n = len(y)
    floor = fit.evaluations * 2 * n**3 / 3 / rate
    fp = fit.fields_params
    rows = [{"tool": "oclstat.fit_matern", "seconds": f"{t_fit:.2f}",
             "loglik": f"{fit.loglik:.6f}", "aRange": f"{fp['aRange']:.2f}",
             "lambda": f"{fp['lambda']:.5f}", "sigma2": f"{fp['sigma2']:.4f}",
             "likelihoods": fit.evaluations}]
    if ref is not None:
        rows.append({"tool": "fields::spatialProcess", "seconds": f"{ref['seconds']:.2f}",
                     "loglik": f"{ref['loglik']:.6f}", "aRange": f"{ref['aRange']:.2f}",
                     "lambda": f"{ref['lambda']:.5f}", "sigma2": f"{ref['sigma2']:.4f}"})
    print("\n## the fit: rainfall, 1,720 stations, log precip ~ elevation, smoothness 1, ML")
    print(table(rows, ["tool", "seconds", "loglik", "aRange", "lambda", "sigma2",
                       "likelihoods"]))
    if ref is not None:
        print(f"oclstat / fields: {ref['seconds'] / t_fit:.1f}x faster; maximum "
              f"{fit.loglik - ref['loglik']:+.2e} above fields'")
    print(f"floor: {fit.evaluations} factorisations of 1,720² = "
          f"{fit.evaluations * 2 * n**3 / 3 / 1e9:.0f} GFLOP at {rate / 1e9:.0f} GFLOP/s = "
          f"{floor:.2f} s (oclstat {t_fit / floor:.1f}x the floor); H100 projection "
          f"{fit.evaluations * 2 * n**3 / 3 / H100_FP64 * 1e3:.1f} ms")

    print("\n## many parameter sets: matern_loglik vs scipy.linalg.cho_factor per set")
    rows = [many_sets(rt, "Meuse", *meuse(), 1000, 1000, rate),
            many_sets(rt, "rainfall", xy, y, X, args.rain_sets, args.loop_sets, rate)]
    print(table(rows, ["data", "sets", "oclstat s", "scipy loop s", "ratio", "max rel diff",
                       "floor s", "H100 s"]))
    print(f"\n# total {time.perf_counter() - t_start:.0f} s")


if __name__ == "__main__":
    main()
