"""The exact r x c Fisher test: oclstat (network algorithm on the device) next to R's
fisher.test (FEXACT, workspace = 2e8), whole processes, in one run.

    python benchmarks/bench_fisher_exact.py [--device D] [--tables help|hard|all]
                                            [--only NAME ...] [--r-limit 300] [--no-r]

Tables: R's help-page examples (Job 4 x 4, n = 96; MP6 5 x 7, n = 46), the 5 x 5 table of
issue 31 (n = 165, R ~38-84 s) and a random 5 x 6 table with n = 150 (R does not finish in
5 minutes). Each side is a whole process, as a user waits for it: ``python -c`` (import,
device set-up, the kernels from their cache, the test) against ``Rscript -e``
(fisher.test), run in turns; R is stopped at ``--r-limit`` seconds.

The floor is the work the network cannot avoid once its nodes are known: one arc per
(node, column allocation) pair, each a few dozen integer operations (the arc's log-binomials,
the daughter's sort, its bounds, two binary searches: about 10 M + 60 for M rows), at the
device's peak integer rate (compute units x clock x 8 lanes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, table

from oclstat._fisher.network import network_pvalue

REPO = Path(__file__).resolve().parents[1]
TABLES = {
    "Job": [[1, 3, 10, 6], [2, 3, 10, 7], [1, 6, 14, 12], [0, 1, 9, 11]],
    "MP6": [[1, 2, 2, 1, 1, 0, 1], [2, 0, 0, 2, 3, 0, 0], [0, 1, 1, 1, 2, 7, 3],
            [1, 1, 2, 0, 0, 0, 1], [0, 1, 1, 1, 1, 0, 0]],
    "5x5 n=165": [[8, 6, 5, 7, 6], [5, 7, 9, 4, 8], [6, 5, 7, 8, 5], [4, 8, 6, 9, 7],
                  [9, 4, 8, 5, 9]],
    "5x6 n=150": [[5, 9, 3, 9, 4, 4], [7, 4, 5, 1, 6, 5], [4, 7, 4, 4, 3, 4],
                  [3, 4, 7, 4, 5, 10], [9, 5, 4, 3, 3, 5]],
}
SETS = {"help": ["Job", "MP6"], "hard": ["5x5 n=165", "5x6 n=150"]}


def _run(cmd, env=None, limit=None):
    """(seconds, stdout) of a whole process; (None, reason) when it fails or passes limit."""
    t0 = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, f"did not finish in {limit:g} s"
    if out.returncode != 0:
        return None, (out.stderr.strip().splitlines() or ["failed"])[-1][:60]
    return time.perf_counter() - t0, out.stdout.strip()


def oclstat_process(t, device):
    code = ("import oclstat\n"
            f"r = oclstat.fisher_test({t!r}, device={device!r}, progress=False)\n"
            "print(repr(r.pvalue))\n")
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONDONTWRITEBYTECODE="")
    return _run([sys.executable, "-c", code], env=env)


def r_process(t, limit):
    m = np.asarray(t)
    code = (f"x <- matrix(c({', '.join(map(str, m.ravel()))}), {m.shape[0]}, byrow = TRUE); "
            "cat(format(fisher.test(x, workspace = 2e8)$p.value, digits = 17))")
    return _run(["Rscript", "-e", code], limit=limit)


def floor_seconds(arcs: int, rows: int, rt) -> float:
    """Seconds for the arcs' integer work at the device's peak (a clock the device does not
    report, as Intel's CPU runtime, is taken as 2 GHz)."""
    dev = rt.device
    clock = dev.max_clock_frequency or 2000
    rate = dev.max_compute_units * clock * 1e6 * 8
    return arcs * (10 * rows + 60) / rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--tables", choices=["help", "hard", "all"], default="all")
    ap.add_argument("--r-limit", type=float, default=300.0)
    ap.add_argument("--no-r", action="store_true")
    ap.add_argument("--only", action="append", choices=list(TABLES), default=None,
                    help="run only this table (repeat for several)")
    args = ap.parse_args()
    from oclstat._runtime import runtime_for

    rt = runtime_for(args.device, "fisher_exact")      # what fisher_test picks by default
    device = rt.info.index
    print(header(rt, "Fisher's exact test, r x c: oclstat (network, device) vs R fisher.test "
                     "(FEXACT), whole processes"))
    names = SETS["help"] + SETS["hard"] if args.tables == "all" else SETS[args.tables]
    if args.only:
        names = [n for n in names if n in args.only]
    rows = []
    for name in names:
        t = TABLES[name]
        oclstat_process(t, device)                       # the kernels into their cache
        ours, p_ours = oclstat_process(t, device)
        net = network_pvalue(t, device=rt)
        floor = floor_seconds(net.arcs, min(np.shape(t)), rt)
        if args.no_r:
            theirs, p_r = None, "not run"
        else:
            theirs, p_r = r_process(t, args.r_limit)
        ratio = f"{theirs / ours:.1f}x" if theirs and ours else "-"
        rows.append({"table": name, "oclstat": f"{ours:.2f} s" if ours else p_ours,
                     "p": p_ours if ours else "", "R": f"{theirs:.2f} s" if theirs else p_r,
                     "R's p": p_r if theirs else "", "floor": f"{floor:.3f} s",
                     "R / oclstat": ratio, "arcs": f"{net.arcs:,}",
                     "peak partial tables": f"{net.peak_entries:,}"})
        print(f"  {name}: done", flush=True)
    print(table(rows, ["table", "oclstat", "p", "R", "R's p", "floor", "R / oclstat", "arcs",
                       "peak partial tables"]))


if __name__ == "__main__":
    main()
