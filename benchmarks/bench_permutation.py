"""oclstat.permutation_test next to R coin's exact test and scipy's permutation_test, in one run.

    python benchmarks/bench_permutation.py [--device D] [--r-features 20] [--no-r] [--no-scipy]
    python benchmarks/bench_permutation.py --scaling 50,100,200,500 [--scaling-features 100]

Data: the paper's proteomics shape. Group A is real: ../shared/data/permutation/TNPdf.csv, 8051
proteins x 26 triple-negative tumours (CPTAC, Mertins et al. 2016, via Ekvall et al. 2021). The
80-sample group B of the paper is not available, so B is GENERATED: for each protein, 80 normal
draws with that protein's mean and standard deviation in A (numpy seed 1).

Peers: coin's exact test, oneway_test(score ~ group, distribution = exact()), on the same window
scores, looping over the first --r-features proteins in R and scaled to all 8051; scipy's
permutation_test (exact enumeration is out of reach at C(106, 26) relabelings, so scipy draws its
default 9999 random relabelings) on 20 proteins, scaled. The floor counts the programme's cell
updates (csum bounds, as the kernels) at 24 bytes each (two reads, one write) over the measured
copy bandwidth: what the per-step GPU schedule moves; the CPU schedule works in cache.

``--scaling``: the paper's scaling runs, n samples per group (GENERATED normal data, numpy seed 2,
a shift of 0.3 sd in half the features), ``--scaling-features`` features and ``--scaling-windows``
windows, each call timed whole; a size whose time, projected from the last one by the cell
updates, would overrun what is left of ``--budget`` seconds is skipped and its projection printed.
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
from _common import copy_bandwidth, header, shared_data, table

import oclstat
from oclstat._permutation import window_scores

DATA = shared_data("permutation", "TNPdf.csv")


def load_groups():
    import pandas as pd

    a = pd.read_csv(DATA).to_numpy(dtype=np.float64)
    rng = np.random.default_rng(1)
    b = rng.normal(a.mean(1, keepdims=True), a.std(1, ddof=1, keepdims=True),
                   size=(a.shape[0], 80))
    return a, b


def cell_updates(scores: np.ndarray, k: int) -> int:
    """Cells the programme updates: rows j in [max(0, k-(N-i)), min(i, k)], sums in
    [csum[j], csum[i] - csum[i - j]], summed over steps i and features."""
    s = np.sort(scores, axis=1)
    n = s.shape[1]
    cs = np.concatenate([np.zeros((len(s), 1), np.int64), np.cumsum(s, axis=1)], axis=1)
    total = 0
    for i in range(1, n + 1):
        for j in range(max(0, k - (n - i)), min(i, k) + 1):
            total += int((cs[:, i] - cs[:, i - j] - cs[:, j] + 1).sum())
    return total


def coin_seconds(scores: np.ndarray, m: int, n_features: int):
    """Seconds per feature of coin's exact oneway_test over the first n_features rows."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scores.csv"
        np.savetxt(path, scores[:n_features], fmt="%d", delimiter=",")
        n = scores.shape[1] - m
        code = (
            "suppressMessages(library(coin)); s <- as.matrix(read.csv('" + str(path) + "', "
            "header = FALSE)); g <- factor(c(rep('a', " + str(m) + "), rep('b', " + str(n) +
            ")), levels = c('a', 'b')); t <- system.time(for (f in 1:nrow(s)) "
            "pvalue(oneway_test(s[f, ] ~ g, distribution = exact())))[['elapsed']]; "
            "cat(t / nrow(s))"
        )
        out = subprocess.run([rscript, "-e", code], capture_output=True, text=True)
        if out.returncode != 0:
            print(f"# coin failed: {out.stderr.strip()[:200]}")
            return None
        return float(out.stdout.split()[-1])


def scipy_seconds(scores: np.ndarray, m: int, n_features: int) -> float:
    from scipy import stats

    t0 = time.perf_counter()
    for f in range(n_features):
        stats.permutation_test((scores[f, :m], scores[f, m:]), lambda a, b: a.sum(),
                               permutation_type="independent", vectorized=False,
                               n_resamples=9999, rng=f)
    return (time.perf_counter() - t0) / n_features


def scaling(rt, sizes, n_features, windows, budget):
    rng = np.random.default_rng(2)
    print(f"# scaling: n per group {sizes}, {n_features} features, {windows} windows "
          f"(GENERATED), budget {budget:.0f} s")
    oclstat.permutation_test(rng.normal(size=(4, 10)), rng.normal(size=(4, 10)),
                             n_windows=windows, device=rt, progress=False)
    start, last, rows = time.perf_counter(), None, []
    for n in sizes:
        a = rng.normal(size=(n_features, n))
        b = rng.normal(size=(n_features, n))
        b[: n_features // 2] += 0.3
        updates = cell_updates(window_scores(np.concatenate([a, b], axis=1), windows), n)
        left = budget - (time.perf_counter() - start)
        if last is not None and last[1] * updates / last[0] > left:
            rows.append({"n per group": n, "seconds": f"({last[1] * updates / last[0]:.1f} "
                         "projected)", "cell updates": f"{updates:.3g}"})
            break
        with rt.profile() as prof:
            t0 = time.perf_counter()
            res = oclstat.permutation_test(a, b, n_windows=windows, device=rt, progress=False)
            t = time.perf_counter() - t0
        rows.append({"n per group": n, "seconds": f"{t:.3f}",
                     "device s": f"{prof.seconds:.3f}", "cell updates": f"{updates:.3g}",
                     "updates/s": f"{updates / t / 1e9:.1f} G",
                     "p<0.01": int((res.pvalue < 0.01).sum())})
        print(f"# n={n}: {t:.3f} s", flush=True)
        last = (updates, t)
    print(table(rows, ["n per group", "seconds", "device s", "cell updates", "updates/s",
                       "p<0.01"]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--r-features", type=int, default=20)
    ap.add_argument("--windows", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--no-r", action="store_true")
    ap.add_argument("--no-scipy", action="store_true")
    ap.add_argument("--scaling", default=None, help="comma-separated samples per group")
    ap.add_argument("--scaling-features", type=int, default=100)
    ap.add_argument("--scaling-windows", type=int, default=256)
    ap.add_argument("--budget", type=float, default=120.0)
    args = ap.parse_args()
    from oclstat._runtime import runtime_for

    rt = runtime_for(args.device, "permutation")   # what permutation_test picks by default
    print(header(rt, "Exact permutation test (Green): oclstat.permutation_test vs coin, scipy"))
    if args.scaling:
        scaling(rt, [int(n) for n in args.scaling.split(",")], args.scaling_features,
                args.scaling_windows, args.budget)
        return
    a, b = load_groups()
    m = a.shape[1]
    n_features = a.shape[0]
    print(f"# {n_features} features, {m} (real, TNPdf) vs {b.shape[1]} (generated) samples")
    bandwidth = copy_bandwidth(rt)
    rows = []
    for w in args.windows:
        oclstat.permutation_test(a[:8], b[:8], n_windows=w, device=rt)  # build, warm up
        with rt.profile() as prof:
            t0 = time.perf_counter()
            res = oclstat.permutation_test(a, b, n_windows=w, device=rt, progress=False)
            wall = time.perf_counter() - t0
        ours = wall if rt.is_cpu else prof.seconds
        scores = window_scores(np.concatenate([a, b], axis=1), w)
        updates = cell_updates(scores, min(m, b.shape[1]))
        floor = updates * 24 / bandwidth
        row = {"windows": w, "oclstat s": f"{ours:.2f}" + ("" if rt.is_cpu else
                                                           f" (wall {wall:.2f})"),
               "updates/s": f"{updates / ours / 1e9:.2f} G",
               "floor s": f"{floor:.3f}", "floor/oclstat": f"{floor / ours:.2f}",
               "q<0.05": int((res.qvalues() < 0.05).sum())}
        if not args.no_r and w == 256:
            per = coin_seconds(scores, m, args.r_features)
            if per is not None:
                row.update({"coin s (scaled)": f"{per * n_features:.1f}",
                            "coin/oclstat": f"{per * n_features / ours:.1f}x"})
        if not args.no_scipy and w == 256:
            per = scipy_seconds(scores, m, 20)
            row.update({"scipy MC s (scaled)": f"{per * n_features:.1f}",
                        "scipy/oclstat": f"{per * n_features / ours:.1f}x"})
        rows.append(row)
        print(f"# done windows={w}", flush=True)
    print(table(rows, ["windows", "oclstat s", "coin s (scaled)", "coin/oclstat",
                       "scipy MC s (scaled)", "scipy/oclstat", "floor s", "floor/oclstat",
                       "updates/s", "q<0.05"]))


if __name__ == "__main__":
    main()
