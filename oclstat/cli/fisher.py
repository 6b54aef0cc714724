"""``oclstat fisher``: Fisher's exact test of an r x c table read from a file."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from .. import _readers as readers  # its readers import pandas when first used
from .._runtime import get_runtime
from ._common import device_of, float_count, layout_flags, note, read_line, say
from ._outputs import output

NAME = "fisher"
HELP = ("Fisher's exact test of an r x c table, as R's fisher.test: exact (the network "
        "algorithm on the device), or simulated on the device with --method simulate")
OUTPUTS = (("out", "--out", False), ("statistics", "--statistics", True))


def add_arguments(p) -> None:
    p.add_argument("table", help="CSV or TSV of counts (header row and row names optional; "
                                 "R's write.csv and pandas' to_csv are read as written)")
    layout_flags(p)
    p.add_argument("--out", default=None,
                   help="write the result (TSV, one row) here; - for standard output")
    p.add_argument("--method", choices=["exact", "simulate", "auto"], default="exact",
                   help="exact (default, R's: the network algorithm; past the limits an error "
                        "naming --method simulate), simulate (Monte Carlo on the device) or "
                        "auto (exact within the limits, else simulated, and said so)")
    p.add_argument("--hybrid", action="store_true",
                   help="R's hybrid = TRUE: chi-square approximations where Cochran's "
                        "conditions hold")
    p.add_argument("--hybrid-pars", type=float, nargs=3, default=[5.0, 80.0, 1.0],
                   metavar=("EXPECT", "PERCNT", "EMIN"), help="R's hybridPars (default 5 80 1)")
    p.add_argument("--max-entries", type=float_count, default=50_000_000,
                   help="the most partial tables the exact test may hold (about 48 bytes "
                        "each; default 5e7)")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="a time limit for the exact test (default: none)")
    p.add_argument("--alternative", choices=["two-sided", "less", "greater"],
                   default="two-sided", help="2 x 2 tables: the odds ratio's alternative")
    p.add_argument("--conf-level", type=float, default=0.95,
                   help="confidence level of the odds ratio's interval (2 x 2)")
    p.add_argument("--null-odds-ratio", type=float, default=1.0,
                   help="odds ratio under the null hypothesis (2 x 2; R's or)")
    p.add_argument("--resamples", type=float_count, default=None,
                   help="tables to simulate (R's B), e.g. 1e6 (default 2000; with --method "
                        "simulate or auto)")
    p.add_argument("--seed", type=float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--dtype", choices=["auto", "float64", "float32"], default="auto",
                   help="precision of the sampling arithmetic (counts are exact either way)")
    p.add_argument("--statistics", default=None,
                   help="also save the simulated statistics to this .npy file")


def run(args) -> int:
    from .._fisher import fisher_test

    table = readers.read_table(args.table, header=args.header, row_names=args.row_names,
                               what="table of counts")
    counts = table.values
    if np.isnan(counts).any():
        r, c = np.argwhere(np.isnan(counts))[0]
        raise ValueError(f"{args.table}: the cell in data row {r + 1}, column {c + 1} is empty "
                         "or NA; a table of counts needs every cell")
    rt = get_runtime(device_of(args))
    dtype = {"auto": None, "float64": np.float64, "float32": np.float32}[args.dtype]
    if args.method == "exact" and (args.resamples is not None or args.seed is not None):
        raise ValueError("--resamples and --seed set the simulated test: add --method simulate "
                         "(or --method auto); the default --method exact does not simulate")
    method = "simulate" if args.statistics and args.method != "simulate" else args.method
    t0 = time.perf_counter()
    res = fisher_test(counts, alternative=args.alternative, conf_level=args.conf_level,
                      null_odds_ratio=args.null_odds_ratio, method=method,
                      hybrid=args.hybrid, hybrid_pars=tuple(args.hybrid_pars),
                      max_entries=args.max_entries, max_seconds=args.max_seconds,
                      n_resamples=2000 if args.resamples is None else args.resamples,
                      seed=args.seed, dtype=dtype, device=rt,
                      return_statistics=bool(args.statistics), progress=None)
    elapsed = time.perf_counter() - t0
    if args.statistics and res.null_distribution is None:
        raise ValueError("--statistics needs the simulated test (--method simulate)")
    with output(args.out, "--out") as fh:
        if fh is not None:
            res.to_frame().to_csv(fh, sep="\t", index=False)
    with output(args.statistics, "--statistics", binary=True) as fh:
        if fh is not None:
            np.save(fh, res.null_distribution)
            note(f"wrote the simulated statistics to {args.statistics}")
    rows, cols = res.table.shape
    name = f"{Path(args.table).name} ({rows} x {cols} table, total {int(res.table.sum()):,})"
    say(args, res.report().replace("data:  x", f"data:  {name}"),
        read_line(table.input))
    if res.method == "simulate":
        say(args, f"{res.count} of {res.n_resamples} simulated tables at most as probable as "
            f"the observed one; device: {rt.info.label}; {elapsed:.2f} s")
    elif res.network is not None:
        net = res.network
        say(args, f"exact (network algorithm): {net.stages} stages, at most "
            f"{net.peak_entries:,} partial tables at once; device: {rt.info.label}; "
            f"{elapsed:.2f} s")
    return 0
