"""``oclstat permtest``: exact two-sample permutation tests, one per feature (row)."""

from __future__ import annotations

import time

import numpy as np

from .. import _readers as readers  # its readers import pandas when first used
from ._common import (
    device_label,
    device_of,
    layout_flags,
    note,
    read_line,
    scheduler_client,
    scheduler_flag,
    show_top,
)
from ._outputs import output

NAME = "permtest"
HELP = "exact two-sample permutation tests, one per feature (row)"
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    p.add_argument("a", nargs="?", help="CSV/TSV of the first group: one feature per row, "
                                        "samples in columns")
    p.add_argument("b", nargs="?", help="CSV/TSV of the second group: the same features "
                                        "(paired by row name when both files name them, else "
                                        "by position)")
    p.add_argument("--data", help="instead of A B: one features x samples table ...")
    p.add_argument("--groups", help="... and its samples' groups: a CLS file, lines of "
                                    "'sample label' (a header line is recognised), or one "
                                    "label per sample")
    layout_flags(p)
    p.add_argument("--windows", type=int, default=None,
                   help="discretise each feature into this many equal windows (needed for "
                        "non-integer data), e.g. 256")
    p.add_argument("--alternative", choices=["two-sided", "less", "greater"],
                   default="two-sided")
    p.add_argument("--two-sided", choices=["double", "distance"], default="double",
                   help="two-sided rule: twice the smaller tail (scipy) or |T - E T| (R's coin)")
    p.add_argument("--mid-p", action="store_true", help="mid-P values")
    p.add_argument("--out", default=None,
                   help="write the results table (TSV) here; - for standard output")
    scheduler_flag(p, "chunks of features")


def complete(table, path: str) -> None:
    """Refuse a table with a missing or infinite value, naming its feature and sample as the
    file writes them (or their row and column, counted from 1)."""
    bad = np.argwhere(~np.isfinite(table.values))
    if bad.size:
        i, j = (int(v) for v in bad[0])
        feature = repr(table.row_names[i]) if table.row_names else f"on data row {i + 1}"
        sample = repr(table.col_names[j]) if table.col_names else f"in column {j + 1}"
        raise ValueError(f"{path}: feature {feature}, sample {sample} is missing or not "
                         f"finite ({len(bad)} such values); the exact test needs every value: "
                         "remove those features or impute them")


def aligned_groups(a, b, pa: str, pb: str):
    """The rows of two feature tables paired by their names when both name them, else by
    position (the same number of rows); names that repeat or differ are an error."""
    complete(a, pa)
    complete(b, pb)
    if a.row_names is None or b.row_names is None:
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"{pa} has {a.shape[0]} features (rows) and {pb} has "
                             f"{b.shape[0]}; rows must be the same features in both")
        if (a.row_names is None) != (b.row_names is None):
            named = pa if a.row_names is not None else pb
            note(f"read: only {named} names its features: the rows are paired by position")
        names = a.row_names or b.row_names or [f"feature{i + 1}" for i in range(a.shape[0])]
        return a.values, b.values, list(names)
    for path, t in ((pa, a), (pb, b)):
        seen = set()
        for n in t.row_names:
            if n in seen:
                raise ValueError(f"{path}: feature {n!r} appears twice")
            seen.add(n)
    only_a = [n for n in a.row_names if n not in set(b.row_names)]
    only_b = [n for n in b.row_names if n not in set(a.row_names)]
    if only_a or only_b:
        raise ValueError(f"the features differ: {len(only_a)} only in {pa} (e.g. "
                         f"{only_a[:3]}), {len(only_b)} only in {pb} (e.g. {only_b[:3]})")
    order = {n: i for i, n in enumerate(b.row_names)}
    return a.values, b.values[[order[n] for n in a.row_names]], list(a.row_names)


def _inputs(args):
    import pandas as pd

    if args.data:
        if args.a or args.b:
            raise ValueError("give two group files (A B) or --data with --groups, not both")
        if not args.groups:
            raise ValueError("--data needs --groups (one label per sample, or a CLS file)")
        table = readers.read_table(args.data, header=args.header, row_names=args.row_names,
                                   what="features x samples table")
        complete(table, args.data)
        labels, classes, ginfo = readers.read_groups(args.groups, table.col_names, table.shape[1])
        values = pd.DataFrame(table.values, index=table.row_names, columns=table.col_names)
        names = table.row_names or [f"feature{i + 1}" for i in range(table.shape[0])]
        return dict(x=values, groups=labels, classes=classes), names, \
            readers.combined([table.input, ginfo])
    if not (args.a and args.b):
        raise ValueError("give two group files (A B), or --data FILE --groups FILE")
    ta = readers.read_table(args.a, header=args.header, row_names=args.row_names,
                            what="table of the first group")
    tb = readers.read_table(args.b, header=args.header, row_names=args.row_names,
                            what="table of the second group")
    a, b, names = aligned_groups(ta, tb, args.a, args.b)
    return dict(x=a, y=b), names, readers.combined([ta.input, tb.input])


def run(args) -> int:
    from .._permutation import permutation_test

    inputs, names, info = _inputs(args)
    device = device_of(args, several=True)
    client = scheduler_client(args.scheduler)
    t0 = time.perf_counter()
    try:
        res = permutation_test(**inputs, n_windows=args.windows,
                               alternative=args.alternative, two_sided=args.two_sided,
                               mid_p=args.mid_p, device=None if client else device,
                               client=client, progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    frame = res.to_frame().reset_index(drop=True)
    frame.insert(0, "feature", list(names))
    with output(args.out, "--out") as fh:
        if fh is not None:
            frame.to_csv(fh, sep="\t", index=False)
    show_top(args, frame.sort_values("pvalue", kind="stable"), "features, smallest p first")
    q = res.qvalues()
    groups = f" ({res.groups[0]} vs {res.groups[1]})" if res.groups else ""
    rule = f" ({args.two_sided})" if args.alternative == "two-sided" else ""
    note(read_line(info),
         f"{len(frame)} features, {res.n_x} vs {res.n_y} samples{groups}, "
         f"{'windows ' + str(args.windows) if args.windows else 'integer scores'}, "
         f"{args.alternative}{rule}"
         f"{', mid-P' if args.mid_p else ''}: {int((q < 0.05).sum())} with BH q < 0.05; "
         f"{'Dask' if client else device_label(device, 'permutation')}, {elapsed:.2f} s")
    return 0
