"""gpuRandom's fields and likelihoods at scale: oclstat next to cuSOLVER (CuPy) and numpy.

    python benchmarks/bench_fields_scale.py [--device D] [--sizes 1000,2000,5000,10000,20000]
                                            [--sets 8] [--budget 240]

For each number of locations n (uniform on the unit square, numpy seed 1):

1. ``simulate_fields``: Matérn covariance, LDLᵀ, normals and L D^½ Z for one parameter set and
   10 fields, timed whole (numpy array out).
2. ``matern_loglik`` on a profile-likelihood grid of ``--sets`` parameter sets (ranges 0.05 to
   0.4, shape 1.5, nugget 0.1; ML, intercept), timed whole.
3. Peers on the same covariances (assembled by oclstat and NOT timed, so the peers' figures are
   a lower bound): per parameter set a Cholesky factor, the triangular solves of y and the
   intercept column and the log-determinant, by cuSOLVER through CuPy on data already on the
   GPU, and by numpy (LAPACK, every host core) where n <= ``--numpy-max``.

Floor: each parameter set needs one factorisation, n³/3 multiply-adds, at the device's fp64
rate (``--fp64-tflops``, default 67, an H100/H200's fp64 tensor-core peak). A size whose time,
projected (n³) from the last one, would overrun what is left of ``--budget`` seconds is
skipped and its projection printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, table

import oclstat


def grid(n_sets: int) -> np.ndarray:
    """``n_sets`` rows of (range, shape, variance, nugget, anisoRatio, anisoAngle)."""
    ranges = np.linspace(0.05, 0.4, n_sets)
    return np.column_stack([ranges, np.full(n_sets, 1.5), np.ones(n_sets),
                            np.full(n_sets, 0.1), np.ones(n_sets), np.zeros(n_sets)])


def lik_params(p: np.ndarray) -> np.ndarray:
    """The likelihood's columns: range, shape, nugget ratio, anisoRatio, anisoAngleRadians."""
    return p[:, [0, 1, 3, 4, 5]]


def cupy_peer(covs, y):
    """Seconds per parameter set of cuSOLVER's factor, solves and log-determinant (CuPy), on
    covariances already on the GPU; None where CuPy or a CUDA GPU is absent."""
    try:
        import cupy as cp
        from cupyx.scipy.linalg import solve_triangular
    except Exception:   # noqa: BLE001 - a missing or failing peer is reported, never fatal
        return None
    try:
        rhs = cp.asarray(np.column_stack([y, np.ones_like(y)]))
        times = []
        for c in covs:
            d = cp.asarray(c)

            def once(d=d):
                L = cp.linalg.cholesky(d)
                w = solve_triangular(L, rhs, lower=True)
                return float(2 * cp.log(cp.diagonal(L)).sum()), w
            once()
            cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            once()
            cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - t0)
            del d
        return float(np.mean(times))
    except Exception as exc:   # noqa: BLE001 - no CUDA device, or out of memory
        print(f"# cupy peer failed: {exc}")
        return None


def numpy_peer(covs, y):
    import scipy.linalg as sl

    rhs = np.column_stack([y, np.ones_like(y)])
    t0 = time.perf_counter()
    for c in covs:
        L = np.linalg.cholesky(c)
        sl.solve_triangular(L, rhs, lower=True)
        2 * np.log(np.diagonal(L)).sum()
    return (time.perf_counter() - t0) / len(covs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", default="1000,2000,5000,10000,20000")
    ap.add_argument("--sets", type=int, default=8)
    ap.add_argument("--peer-sets", type=int, default=2, help="sets the peers factor (averaged)")
    ap.add_argument("--numpy-max", type=int, default=5000)
    ap.add_argument("--fp64-tflops", type=float, default=67.0)
    ap.add_argument("--budget", type=float, default=240.0)
    args = ap.parse_args(argv)
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "Matérn fields and profile likelihoods at scale: oclstat vs cuSOLVER, "
                     "numpy"))
    params = grid(args.sets)
    rng = np.random.default_rng(1)
    small = rng.uniform(size=(50, 2))
    oclstat.simulate_fields(small, params[:1], 2, seed=1, device=rt)          # build kernels
    oclstat.matern_loglik(small, rng.normal(size=50), params=lik_params(params[:2]), device=rt)
    rows, start, last = [], time.perf_counter(), None
    for n in (int(v) for v in args.sizes.split(",")):
        coords = rng.uniform(size=(n, 2))
        left = args.budget - (time.perf_counter() - start)
        if last is not None and last[1] * (n / last[0]) ** 3 > left:
            rows.append({"n": n, "loglik s": f"({last[1] * (n / last[0]) ** 3:.1f} projected)"})
            break
        t0 = time.perf_counter()
        fields = oclstat.simulate_fields(coords, params[:1], 10, seed=1, device=rt)
        t_sim = time.perf_counter() - t0
        y = fields[0, 0] + 1.0
        t0 = time.perf_counter()
        lik = oclstat.matern_loglik(coords, y, params=lik_params(params), device=rt)
        t_lik = time.perf_counter() - t0
        best = params[int(np.argmax(lik.loglik[:, 0]))][0]
        covs = oclstat.matern_cov(coords, params[: args.peer_sets], device=rt)
        t_cp = cupy_peer(covs, y)
        t_np = numpy_peer(covs, y) if n <= args.numpy_max else None
        del covs
        floor = args.sets * n**3 / 3 * 2 / (args.fp64_tflops * 1e12)
        row = {"n": n, "simulate s": f"{t_sim:.3f}", "loglik s": f"{t_lik:.3f}",
               "per set ms": f"{t_lik / args.sets * 1e3:.1f}", "best range": f"{best:.3f}",
               "floor s": f"{floor:.4f}", "floor/oclstat": f"{floor / t_lik:.1%}"}
        if t_cp is not None:
            row.update({"cuSOLVER per set ms": f"{t_cp * 1e3:.1f}",
                        "cuSOLVER/oclstat": f"{t_cp * args.sets / t_lik:.2f}x"})
        if t_np is not None:
            row.update({"numpy per set ms": f"{t_np * 1e3:.1f}",
                        "numpy/oclstat": f"{t_np * args.sets / t_lik:.2f}x"})
        rows.append(row)
        print(f"# n={n}: simulate {t_sim:.3f} s, loglik {t_lik:.3f} s", flush=True)
        last = (n, t_lik)
    print(table(rows, ["n", "simulate s", "loglik s", "per set ms", "cuSOLVER per set ms",
                       "cuSOLVER/oclstat", "numpy per set ms", "numpy/oclstat", "floor s",
                       "floor/oclstat", "best range"]))
    print(f"# {args.sets} parameter sets per likelihood call; the peers factor "
          f"{args.peer_sets} and are averaged; their covariance assembly is not timed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
