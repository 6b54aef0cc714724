"""The ``oclstat`` command line.

    oclstat devices
    oclstat demo [--device D]
    oclstat rng normal --n 1000000 --seed 1 --out z.npy
    oclstat fisher TABLE.csv --resamples 1e6 --seed 1
    oclstat permtest A.csv B.csv --windows 256 --out results.tsv
    oclstat fields --nx 60 --ny 80 --param 0.3,1.5,1,0,1,0 --n-sim 5 --out f.npy --png f.png
    oclstat epistasis --bfile DS --order 2 --top 20 --out hits.tsv
    oclstat gsea --expr P53.txt --cls P53.cls --gmt c2.gmt --resamples 1000 --out results.tsv
    oclstat fit-matern meuse.csv --coords x,y --response "log(zinc)" --covariates "sqrt(dist)" \
        --out fit.tsv --png map.png --profile-png profiles.png

Every sub-command accepts ``--device`` (index or name substring, as ``OCLSTAT_DEVICE``).

>>> main(["rng", "uniform", "--n", "3", "--seed", "1", "--out", "-"])
0...
0
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

import numpy as np

from . import __version__
from ._runtime import NoDeviceError, devices, get_runtime, runtime_for
from ._tables import open_text, read_table
from ._vocabulary import python_to_cli

# Each command imports its capability when it runs: a command pays only for what it uses.


def _cmd_devices(args) -> int:
    found = devices()
    try:
        chosen = get_runtime(_device(args)).info.index
    except NoDeviceError:
        chosen = -1
    for d in found:
        mark = "*" if d.index == chosen else " "
        print(f"{mark} {d}")
    print("(* = the device oclstat uses by default; choose with --device or OCLSTAT_DEVICE)")
    return 0


def _cmd_demo(args) -> int:

    from .demo import run
    run(device=_device(args), sections=args.section or None)
    return 0


def _write_array(values: np.ndarray, path: str) -> None:
    if path == "-":
        np.savetxt(sys.stdout, values.reshape(-1, 1) if values.ndim < 2 else values, fmt="%.17g")
        return
    target = Path(path)
    if target.suffix == ".npy":
        np.save(target, values)
    elif target.suffix in (".csv", ".txt", ".tsv"):
        delim = "\t" if target.suffix == ".tsv" else ","
        fmt = "%d" if values.dtype.kind in "iu" else "%.17g"
        np.savetxt(target, values.reshape(-1, 1) if values.ndim < 2 else values, fmt=fmt,
                   delimiter=delim)
    else:
        raise ValueError(f"--out must end in .npy, .csv, .tsv or .txt (or be -), got {path!r}")


def _cmd_rng(args) -> int:
    from . import random as ocr
    size = tuple(args.n) if len(args.n) > 1 else args.n[0]
    streams = ocr.Streams.load(args.streams) if args.streams else None
    seed = None if streams is not None else args.seed
    common = dict(streams=streams, seed=seed, device=_device(args), progress=None)
    dtype = np.float32 if args.dtype == "float32" else np.float64
    if args.distribution == "uniform":
        values = ocr.uniform(size, dtype=dtype, low=args.low, high=args.high, **common)
    elif args.distribution == "normal":
        values = ocr.normal(size, dtype=dtype, loc=args.loc, scale=args.scale, **common)
    elif args.distribution == "exponential":
        values = ocr.exponential(size, dtype=dtype, rate=args.rate, **common)
    elif args.distribution == "integers":
        values = ocr.integers(int(args.low), int(args.high), size=size, **common)
    else:
        values = ocr.random_raw(size, **common)
    _write_array(values, args.out)
    if streams is not None:
        streams.save(args.streams)  # advanced in place: the next call continues
    if args.out != "-":
        print(f"wrote {values.size} {args.distribution} draws ({values.dtype}) to {args.out}",
              file=sys.stderr)
    return 0


def _yes_no(text: str):
    value = {"auto": "auto", "yes": True, "no": False}.get(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected yes, no or auto, got {text!r}")
    return value


_yes_no.__name__ = "yes/no/auto"


def _table(path: str, args, what: str):
    """A numeric table read as its author wrote it (oclstat.io.read_table), with the layout
    flags of the command line."""

    return read_table(path, header=args.header, row_names=args.row_names, what=what)


def _cmd_fisher(args) -> int:
    import time

    from ._fisher import fisher_test

    table = _table(args.table, args, "table of counts")
    counts = table.values
    if np.isnan(counts).any():
        r, c = np.argwhere(np.isnan(counts))[0]
        raise ValueError(f"{args.table}: the cell in data row {r + 1}, column {c + 1} is empty "
                         "or NA; a table of counts needs every cell")
    rt = get_runtime(_device(args))
    dtype = {"auto": None, "float64": np.float64, "float32": np.float32}[args.dtype]
    method = "simulate" if args.statistics and args.method == "auto" else args.method
    with _output(args.out) as out_path, _output(args.statistics) as stats_path:
        t0 = time.perf_counter()
        res = fisher_test(counts, alternative=args.alternative, conf_level=args.conf_level,
                          null_odds_ratio=args.null_odds_ratio, method=method,
                          n_resamples=args.resamples, seed=args.seed, dtype=dtype, device=rt,
                          return_statistics=bool(args.statistics), progress=None)
        elapsed = time.perf_counter() - t0
        rows, cols = res.table.shape
        name = f"{Path(args.table).name} ({rows} x {cols} table, total {int(res.table.sum()):,})"
        print(res.report().replace("data:  x", f"data:  {name}"))
        print(f"read: {table.describe()}")
        if res.method == "simulate":
            print(f"{res.count} of {res.n_resamples} simulated tables at most as probable as "
                  f"the observed one; device: {rt.info.label}; {elapsed:.2f} s")
        elif res.n_tables is not None:
            print(f"exact: {res.n_tables:,} tables with these margins enumerated; "
                  f"{elapsed:.2f} s")
        if out_path:
            res.to_frame().to_csv(out_path, sep="\t", index=False)
        if stats_path:
            if res.null_distribution is None:
                raise ValueError("--statistics needs the simulated test (--method simulate)")
            with open(stats_path, "wb") as fh:
                np.save(fh, res.null_distribution)
    if args.statistics:
        print(f"wrote the simulated statistics to {args.statistics}", file=sys.stderr)
    return 0


def _aligned_groups(a, b, pa: str, pb: str):
    """The rows of two feature tables paired by their names when both name them, else by
    position (the same number of rows); names that repeat or differ are an error."""
    if a.row_names is None or b.row_names is None:
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"{pa} has {a.shape[0]} features (rows) and {pb} has "
                             f"{b.shape[0]}; rows must be the same features in both")
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


def _cmd_permtest(args) -> int:
    import time

    import pandas as pd

    from ._permutation import permutation_test

    if args.data:
        if args.a or args.b:
            raise ValueError("give two group files (A B) or --data with --groups, not both")
        if not args.groups:
            raise ValueError("--data needs --groups (one label per sample, or a CLS file)")
        table = _table(args.data, args, "features x samples table")
        labels, classes = _read_groups(args.groups, table)
        values = pd.DataFrame(table.values, index=table.row_names, columns=table.col_names)
        inputs = dict(x=values, groups=labels, classes=classes)
        names = table.row_names or [f"feature{i + 1}" for i in range(table.shape[0])]
        described = table.describe()
    else:
        if not (args.a and args.b):
            raise ValueError("give two group files (A B), or --data FILE --groups FILE")
        ta = _table(args.a, args, "table of the first group")
        tb = _table(args.b, args, "table of the second group")
        a, b, names = _aligned_groups(ta, tb, args.a, args.b)
        inputs = dict(x=a, y=b)
        described = f"{ta.describe()}; {tb.describe()}"
    device = _device(args, several=True)
    client = _client(args.scheduler)
    with _output(args.out) as out_path:
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
        if out_path:
            frame.to_csv(out_path, sep="\t", index=False)
        _show_top(frame.sort_values("pvalue", kind="stable"), "features, smallest p first",
                  args.out)
    q = res.qvalues()
    groups = f" ({res.groups[0]} vs {res.groups[1]})" if res.groups else ""
    rule = f" ({args.two_sided})" if args.alternative == "two-sided" else ""
    print(f"read: {described}", file=sys.stderr)
    print(f"{len(frame)} features, {res.n_x} vs {res.n_y} samples{groups}, "
          f"{'windows ' + str(args.windows) if args.windows else 'integer scores'}, "
          f"{args.alternative}{rule}"
          f"{', mid-P' if args.mid_p else ''}: {int((q < 0.05).sum())} with BH q < 0.05; "
          f"{'Dask' if client else _label(device, 'permutation')}, {elapsed:.2f} s",
          file=sys.stderr)
    return 0


def _show_top(frame, what: str, out, n: int = 20) -> None:
    """The first ``n`` rows of a result table on the terminal, with how many are left."""
    import pandas as pd

    with pd.option_context("display.width", 160, "display.max_columns", 30,
                           "display.float_format", lambda v: f"{v:.4g}"):
        print(frame.head(n).to_string(index=False))
    left = len(frame) - n
    if left > 0:
        where = f"all of them are in {out}" if out else "--out FILE writes all of them"
        noun, _, order = what.partition(", ")
        print(f"... {left:,} more {noun} ({order + '; ' if order else ''}{where})")


def _read_groups(path: str, table):
    """Group labels for --groups: a CLS file (its classes in order), lines of
    ``sample<TAB>label`` (matched to the table's sample names), or one label per sample."""
    import pandas as pd

    from . import io as oio

    text, _ = open_text(path)
    first = text.split("\n", 1)[0].split()
    if len(first) == 3 and all(f.isdigit() for f in first) and first[1] == "2":
        ph = oio.read_cls(path)
        return list(ph.labels), tuple(ph.classes)
    rows = [ln.replace(",", "\t").split() for ln in text.splitlines() if ln.strip()]
    if rows and all(len(r) == 2 for r in rows) and len(rows) == table.shape[1]:
        if table.col_names is None:
            raise ValueError(f"{path} names samples but the data has no sample names (header)")
        return pd.Series([r[1] for r in rows], index=[r[0] for r in rows]), None
    labels = [v for r in rows for v in r]
    return labels, None


def _write_plots(res, folder, names) -> None:
    """``folder/<set>.png``: the enrichment plot of each named set (gsea and prerank)."""
    from .plot import _pyplot, plot_enrichment
    plt = _pyplot()
    for name in names:
        path = Path(folder) / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig = plot_enrichment(res, name)
        fig.savefig(path, dpi=120)
        plt.close(fig)


def _cmd_gsea(args) -> int:
    import time

    from . import io as oio
    from ._gsea import gsea
    from .report import write_gsea_report


    expr = oio.read_gct(args.gct) if args.gct else oio.read_expression(args.expr)
    pheno = oio.read_cls(args.cls)
    sets = oio.read_gmt(args.gmt)
    client = _client(args.scheduler)
    device = None if client else _device(args, several=True)
    t0 = time.perf_counter()
    try:
        res = gsea(expr, pheno, sets, n_resamples=args.resamples, metric=args.metric,
                   weight=args.weight, min_size=args.min_size, max_size=args.max_size,
                   seed=args.seed, case_sensitive=not args.case_insensitive, device=device,
                   client=client, progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    if args.out:
        res.to_tsv(args.out)
    for title, table in ((f"enriched in {pheno.classes[0]} (ES >= 0)", res.positive),
                         (f"enriched in {pheno.classes[1]} (ES < 0)", res.negative)):
        print(f"{title}: {len(table):,} gene sets, {int((table['FDR q-val'] < 0.25).sum())} "
              "with FDR q < 0.25")
        _show_top(table.drop(columns="LEADING EDGE"), "sets, by NES away from zero",
                  args.out or args.report)
        print()
    if args.plot:
        _write_plots(res, args.plot, args.plot_sets or
                     list(res.positive["NAME"].head(1)) + list(res.negative["NAME"].head(1)))
    if args.report:
        index = write_gsea_report(res, args.report, parameters={
            "expression": f"{Path(args.gct or args.expr).name} ({expr.shape[0]:,} genes x "
                          f"{expr.shape[1]} samples)",
            "phenotype": Path(args.cls).name, "gene sets": Path(args.gmt).name,
            "seed": args.seed, "min size": args.min_size, "max size": args.max_size,
            "oclstat": __version__, "seconds": f"{elapsed:.2f}"})
        print(f"wrote the report to {index}", file=sys.stderr)
    t = res.table
    print(f"{expr.shape[0]} genes x {expr.shape[1]} samples ({pheno.classes[0]} "
          f"{pheno.counts[0]} vs {pheno.classes[1]} {pheno.counts[1]}), {len(t)} sets "
          f"({res.n_filtered} outside {args.min_size}..{args.max_size}), {args.resamples} "
          f"permutations: {int((t['fdr'] < 0.25).sum())} with FDR < 0.25; {res.device}, "
          f"{elapsed:.2f} s", file=sys.stderr)
    return 0


def _cmd_prerank(args) -> int:
    import time

    from . import io as oio
    from ._prerank import gsea_prerank
    from .report import write_gsea_report

    ranking = oio.read_rnk(args.rnk)
    sets = oio.read_gmt(args.gmt)
    client = _client(args.scheduler)
    device = None if client else _device(args, several=True)
    t0 = time.perf_counter()
    try:
        res = gsea_prerank(ranking, sets, n_resamples=args.resamples, method=args.method,
                           weight=args.weight, min_size=args.min_size, max_size=args.max_size,
                           eps=args.eps, sample_size=args.sample_size, seed=args.seed,
                           case_sensitive=not args.case_insensitive, device=device,
                           client=client, progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    if args.out:
        res.to_tsv(args.out)
    cols = ["pval", "padj", "log2err", "ES", "NES", "size"]
    for title, table in (("ES > 0 (top of the ranking)", res.positive),
                         ("ES <= 0 (bottom of the ranking)", res.negative)):
        print(f"{title}: {len(table):,} gene sets, {int((table['padj'] < 0.05).sum())} with "
              "padj < 0.05")
        shown = table[cols].reset_index()
        shown["pathway"] = [n if len(n) <= 48 else n[:47] + "…" for n in shown["pathway"]]
        _show_top(shown, "sets, by NES away from zero", args.out or args.report)
        print()
    if args.plot:
        _write_plots(res, args.plot, args.plot_sets or
                     list(res.positive.index[:1]) + list(res.negative.index[:1]))
    if args.report:
        index = write_gsea_report(res, args.report, parameters={
            "ranking": f"{Path(args.rnk).name} ({len(ranking):,} genes)",
            "gene sets": Path(args.gmt).name, "seed": args.seed, "min size": args.min_size,
            "max size": args.max_size, "oclstat": __version__, "seconds": f"{elapsed:.2f}"})
        print(f"wrote the report to {index}", file=sys.stderr)
    t = res.table
    print(f"{len(ranking):,} genes, {len(t)} sets ({res.n_filtered} outside {args.min_size}.."
          f"{args.max_size}), {args.resamples} random sets per size, {res.method}"
          f" ({res.n_multilevel} sets by multilevel splitting): "
          f"{int((t['padj'] < 0.05).sum())} with padj < 0.05; {res.device}, {elapsed:.2f} s",
          file=sys.stderr)
    return 0


def _param_row(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--param needs 6 numbers, got {text!r}") from None
    if len(values) != 6:
        raise argparse.ArgumentTypeError(
            f"--param needs 6 comma-separated numbers (range,shape,variance,nugget,"
            f"anisoRatio,anisoAngleRadians), got {len(values)}")
    return values


def _cmd_fields(args) -> int:
    import time

    from ._fields import fields_on_grid, grid_coords, simulate_fields
    from .plot import plot_fields

    params = args.param or [[0.3, 1.5, 1.0, 0.0, 1.0, 0.0]]
    coords = grid_coords(args.nx, args.ny, xlim=tuple(args.xlim), ylim=tuple(args.ylim))
    device = _device(args, several=True)
    client = _client(args.scheduler)
    t0 = time.perf_counter()
    try:
        f = simulate_fields(coords, params, args.n_sim, seed=args.seed,
                            dtype=np.dtype(args.dtype), device=None if client else device,
                            client=client)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    images = fields_on_grid(f, args.nx, args.ny)
    np.save(args.out, images)
    if args.png:
        flat = images.reshape(-1, args.ny, args.nx)
        labels = [", ".join(f"{k} {v:g}" for k, v in zip(("range", "shape", "var"), p[:3],
                                                         strict=True)) for p in params]
        titles = [f"{labels[p]} | sim {s + 1}" for p in range(len(params))
                  for s in range(args.n_sim)]
        # one row per parameter set, one colour scale for every panel
        plot_fields(flat, titles=titles, max_cols=args.n_sim).savefig(args.png, dpi=110)
    print(f"{len(params)} parameter sets x {args.n_sim} fields on a {args.nx} x {args.ny} grid "
          f"-> {args.out} {images.shape}; {'Dask' if client else _label(device)}, "
          f"{elapsed:.3f} s", file=sys.stderr)
    return 0


_COLUMN_FUNCTIONS = {"log": np.log, "sqrt": np.sqrt, "log10": np.log10, "exp": np.exp}


def _column(frame, spec: str, flag: str):
    """A column of ``frame`` named ``spec``, or ``f(name)`` for f in log, log10, sqrt, exp."""
    import re

    m = re.fullmatch(r"\s*(\w+)\((.+)\)\s*", spec)
    fn, name = (m.group(1), m.group(2).strip()) if m else (None, spec.strip())
    if fn is not None and fn not in _COLUMN_FUNCTIONS:
        raise ValueError(f"{flag} {spec}: unknown function {fn}(); use "
                         f"{', '.join(sorted(_COLUMN_FUNCTIONS))}")
    if name not in frame.columns:
        raise ValueError(f"{flag} {spec}: no column {name!r} (the file has "
                         f"{', '.join(map(str, frame.columns[:12]))})")
    col = frame[name].astype(float)
    if fn is None:
        return col.rename(name)
    with np.errstate(all="ignore"):
        out = _COLUMN_FUNCTIONS[fn](col)
    if not np.isfinite(out).all():
        raise ValueError(f"{flag} {spec}: {fn}() is not finite for some rows")
    return out.rename(spec.strip())


def _fixed_params(items) -> dict:
    out = {}
    for item in items or ():
        for part in item.split(","):
            key, sep, value = part.partition("=")
            if not sep:
                raise ValueError(f"--param {item}: write name=value, e.g. shape=1.5")
            try:
                out[key.strip()] = float(value)
            except ValueError:
                raise ValueError(f"--param {item}: {value!r} is not a number") from None
    return out


def _cmd_fit_matern(args) -> int:
    import io
    import time

    import pandas as pd

    from ._fields import grid_coords
    from ._spatial import fit_matern, predict_matern
    from .plot import plot_kriging, plot_profiles

    text, _ = open_text(args.data)
    frame = pd.read_csv(io.StringIO(text), sep=None, engine="python")
    cols = [c.strip() for c in args.coords.split(",")]
    if len(cols) != 2:
        raise ValueError(f"--coords {args.coords}: name two columns, e.g. x,y")
    coords = pd.concat([_column(frame, c, "--coords") for c in cols], axis=1)
    y = _column(frame, args.response, "--response")
    covs = [_column(frame, c, "--covariates") for c in args.covariates.split(",")] \
        if args.covariates else []
    X = pd.concat([pd.Series(1.0, index=frame.index, name="(Intercept)"), *covs], axis=1)
    client = _client(args.scheduler)
    device = None if client else _device(args, several=True)
    t0 = time.perf_counter()
    try:
        fit = fit_matern(coords, y, X, params=_fixed_params(args.param),
                         estimate=tuple(e.strip() for e in args.estimate.split(",")),
                         method=args.method, profiles=not args.no_profiles,
                         profile2d=not args.no_profile2d, level=args.level, tol=args.tol,
                         device=device, client=client)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    device = device[0] if isinstance(device, (list, tuple)) else device
    table = fit.to_frame().reset_index()
    if args.out:
        table.to_csv(args.out, sep="\t", index=False, float_format="%.10g")
        rows = [curve.rename(columns={name: "value"}).assign(parameter=name)
                for name, curve in fit.profiles.items()]
        if fit.profile2d is not None:
            rows.append(fit.profile2d.assign(parameter="range x shape"))
        if rows:
            prof_path = str(Path(args.out).with_suffix("")) + ".profiles.tsv"
            pd.concat(rows, ignore_index=True).to_csv(prof_path, sep="\t", index=False,
                                                      float_format="%.10g")
            print(f"wrote the profiles to {prof_path}", file=sys.stderr)
    _show_top(table, "parameters", args.out)
    fp = fit.fields_params
    print(f"log-likelihood ({fit.method}) {fit.loglik:.6f}; fields' terms: aRange "
          f"{fp['aRange']:.6g}, lambda {fp['lambda']:.6g}, sigma2 {fp['sigma2']:.6g}, "
          f"tau {fp['tau']:.6g}")
    if args.profile_png and (fit.profiles or fit.profile2d is not None):
        plot_profiles(fit).savefig(args.profile_png, dpi=110)
    if args.png:
        lo, hi = coords.min().to_numpy(), coords.max().to_numpy()
        grid = grid_coords(args.map_size, args.map_size, xlim=(lo[0], hi[0]),
                           ylim=(lo[1], hi[1]))
        x0 = np.tile(X.mean().to_numpy(), (len(grid), 1))   # covariates at their means
        pred = predict_matern(fit, grid, x0, device=device)
        fig = plot_kriging(pred, points=coords.to_numpy())
        if covs:
            fig.axes[0].set_title("kriging mean (covariates at their means)")
        fig.savefig(args.png, dpi=110)
    print(f"{len(y):,} points, {X.shape[1]} covariates, estimated "
          f"{', '.join(fit.estimated)}: {fit.evaluations:,} likelihoods; "
          f"{'Dask' if args.scheduler else _label(device)}, {elapsed:.2f} s", file=sys.stderr)
    return 0


def _device(args, several: bool = False):
    """``--device`` as ``device=``: None, one device (index or name), or with ``several`` a
    comma-separated list that shares the work."""
    spec = getattr(args, "device", None)
    if not spec:
        return None
    items = [int(d) if d.strip().isdigit() else d.strip() for d in spec.split(",")]
    if len(items) == 1:
        return items[0]
    if not several:
        raise ValueError(f"--device: oclstat {args.command} runs on one device, got {spec!r}")
    return items


def _label(device, workload: str | None = None) -> str:
    """The device(s) a command ran on, for its summary line (``workload``: the capability's
    default CPU implementation, see runtime_for)."""
    if isinstance(device, list):
        return ", ".join(get_runtime(d).info.label for d in device)
    return runtime_for(device, workload).info.label


def _client(address):
    """A Dask client for --scheduler ADDRESS (None without it), with oclstat's worker plugin."""
    if not address:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("--scheduler needs dask.distributed: pip install 'oclstat[dask]'") \
            from None
    from .distributed import OclstatPlugin

    client = Client(address)
    client.register_plugin(OclstatPlugin())
    return client


def _cmd_epistasis(args) -> int:
    import time

    from ._epistasis import epistasis
    from .genotypes import read_genotype_table, read_plink


    data = read_plink(args.bfile) if args.bfile else read_genotype_table(
        args.csv, layout=args.layout, header=args.header, row_names=args.row_names)
    if args.devices and not args.device:
        print("oclstat epistasis: --devices is now --device (the old name goes in the next "
              "release)", file=sys.stderr)
        args.device = args.devices
    if args.epi_cc and args.order != 2:
        raise ValueError(f"--epi-cc writes pairs (PLINK's .epi.cc): it needs --order 2, not "
                         f"{args.order}")
    device = _device(args, several=True)
    client = _client(args.scheduler)
    t0 = time.perf_counter()
    try:
        res = epistasis(data, order=args.order, score=args.score, top=args.top,
                         device=None if client else device, client=client,
                         backend=args.backend, progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    if args.out:
        res.table.to_csv(args.out, sep="\t", index=False)
    if args.epi_cc:
        _write_epi_cc(res.table, args.score, args.epi_cc)
    _show_top(res.table, "combinations, best first", args.out)
    n = res.combinations
    rate = n / max(elapsed, 1e-9)
    print(f"{data.genotypes.shape[0]:,} SNPs x {data.genotypes.shape[1]:,} samples, order "
          f"{args.order}: {n:,} combinations in {elapsed:.2f} s ({_si(rate)} combinations/s, "
          f"{_si(rate * data.genotypes.shape[1])} combination-samples/s)", file=sys.stderr)
    return 0


def _write_epi_cc(table, score: str, path) -> None:
    """The pairs as PLINK's ``--epistasis`` writes them (``.epi.cc``, whitespace-aligned):
    CHR1 SNP1 CHR2 SNP2, then the search score (K2 or MI) where PLINK has OR_INT, and the
    likelihood-ratio G statistic of the 9 x 2 table with its degrees of freedom and p-value
    where PLINK has its 1-df interaction chi-square and P. CHR is 0 without a .bim."""
    import pandas as pd

    chr1 = table["chr1"] if "chr1" in table else pd.Series(["0"] * len(table))
    chr2 = table["chr2"] if "chr2" in table else pd.Series(["0"] * len(table))
    out = pd.DataFrame({"CHR1": list(chr1), "SNP1": list(table["name1"]), "CHR2": list(chr2),
                        "SNP2": list(table["name2"]), score.upper(): list(table[score]),
                        "STAT": list(table["G"]), "DF": list(table["df"]),
                        "P": list(table["p"])})
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(out.to_string(index=False, float_format=lambda v: f"{v:.6g}") + "\n")


def _si(value: float) -> str:
    """A rate with an SI prefix: 1.23 k, 45.6 M, 7.89 G."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g}"


def _float_count(text: str) -> int:
    """A non-negative integer, also written as 1e6."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1000 or 1e6, got "
                                         f"{text!r}") from None
    if not np.isfinite(value) or value != int(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(value)


_float_count.__name__ = "count"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="oclstat", description="Vendor-portable GPU statistics for genomics (OpenCL)."
    )

    parser.add_argument("--version", action="version", version=f"oclstat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--device", default=None,
                       help="device index, name or substring (default: OCLSTAT_DEVICE, best "
                            "GPU); for permtest, gsea, fields and epistasis a comma-separated "
                            "list shares the work")
        return p

    add("devices", "list the OpenCL devices").set_defaults(func=_cmd_devices)

    p = add("demo", "run every capability on small built-in data")
    p.add_argument("--section", action="append", help="run only this section (repeatable)")
    p.set_defaults(func=_cmd_demo)

    p = add("rng", "draw random numbers from MRG31k3p streams to a file")
    p.add_argument("distribution",
                   choices=["uniform", "normal", "exponential", "integers", "raw"])
    p.add_argument("--n", type=_float_count, nargs="+", required=True,
                   help="output size (several numbers: a shape), e.g. --n 1e6")
    p.add_argument("--seed", type=_float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--streams", default=None,
                   help="a Streams file (.npz from Streams.save) to draw from and advance")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--low", type=float, default=0.0)
    p.add_argument("--high", type=float, default=1.0)
    p.add_argument("--loc", type=float, default=0.0)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--rate", type=float, default=1.0)
    p.add_argument("--out", required=True, help="output file (.npy, .csv, .tsv) or - for stdout")
    p.set_defaults(func=_cmd_rng)

    def layout_flags(p):
        p.add_argument("--header", type=_yes_no, default="auto",
                       help="the first row holds column names: yes, no or auto (default: from "
                            "the content; an ambiguous file is refused)")
        p.add_argument("--row-names", type=_yes_no, default="auto",
                       help="the first column holds row names: yes, no or auto")

    p = add("fisher", "Fisher's exact test of an r x c table (as R's fisher.test: exact for "
                      "2 x 2 and small tables, simulated on the device otherwise)")
    p.add_argument("table", help="CSV or TSV of counts (header row and row names optional; "
                                 "R's write.csv and pandas' to_csv are read as written)")
    layout_flags(p)
    p.add_argument("--out", default=None, help="write the result (TSV, one row) here")
    p.add_argument("--method", choices=["auto", "exact", "simulate"], default="auto",
                   help="exact (2 x 2, or enumerate the tables), simulate (Monte Carlo on the "
                        "device) or auto (default: exact where it is quick)")
    p.add_argument("--alternative", choices=["two-sided", "less", "greater"],
                   default="two-sided", help="2 x 2 tables: the odds ratio's alternative")
    p.add_argument("--conf-level", type=float, default=0.95,
                   help="confidence level of the odds ratio's interval (2 x 2)")
    p.add_argument("--null-odds-ratio", type=float, default=1.0,
                   help="odds ratio under the null hypothesis (2 x 2; R's or)")
    p.add_argument("--resamples", type=_float_count, default=2000,
                   help="tables to simulate (R's B), e.g. 1e6 (default 2000)")
    p.add_argument("--seed", type=_float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--dtype", choices=["auto", "float64", "float32"], default="auto",
                   help="precision of the sampling arithmetic (counts are exact either way)")
    p.add_argument("--statistics", default=None,
                   help="also save the simulated statistics to this .npy file")
    p.set_defaults(func=_cmd_fisher)

    p = add("permtest", "exact two-sample permutation tests, one per feature (row)")
    p.add_argument("a", nargs="?", help="CSV/TSV of the first group: one feature per row, "
                                        "samples in columns")
    p.add_argument("b", nargs="?", help="CSV/TSV of the second group: the same features "
                                        "(paired by row name when both files name them, else "
                                        "by position)")
    p.add_argument("--data", help="instead of A B: one features x samples table ...")
    p.add_argument("--groups", help="... and its samples' groups: a CLS file, lines of "
                                    "'sample label', or one label per sample")
    layout_flags(p)
    p.add_argument("--windows", type=int, default=None,
                   help="discretise each feature into this many equal windows (needed for "
                        "non-integer data), e.g. 256")
    p.add_argument("--alternative", choices=["two-sided", "less", "greater"],
                   default="two-sided")
    p.add_argument("--two-sided", choices=["double", "distance"], default="double",
                   help="two-sided rule: twice the smaller tail (scipy) or |T - E T| (R's coin)")
    p.add_argument("--mid-p", action="store_true", help="mid-P values")
    p.add_argument("--out", default=None, help="write the results table (TSV) here")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run chunks of features as tasks on this Dask scheduler")
    p.set_defaults(func=_cmd_permtest)

    p = add("fields", "simulate Gaussian random fields (Matérn) on a grid")
    p.add_argument("--nx", type=int, default=60)
    p.add_argument("--ny", type=int, default=80)
    p.add_argument("--xlim", type=float, nargs=2, default=[0.0, 1.0])
    p.add_argument("--ylim", type=float, nargs=2, default=[0.0, 1.0])
    p.add_argument("--param", type=_param_row, action="append",
                   help="range,shape,variance,nugget,anisoRatio,anisoAngleRadians (repeatable)")
    p.add_argument("--n-sim", type=int, default=5, help="fields per parameter set")
    p.add_argument("--seed", type=_float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--out", required=True, help=".npy file: (n_params, n_sim, ny, nx)")
    p.add_argument("--png", default=None, help="also draw the fields into this PNG")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run chunks of parameter sets as tasks on this Dask scheduler")
    p.set_defaults(func=_cmd_fields)

    p = add("epistasis", "exhaustive 2-, 3- or 4-way epistasis search (K2 or mutual information)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--bfile", help="PLINK 1 binary prefix (PREFIX.bed/.bim/.fam)")
    src.add_argument("--csv", help="0/1/2 genotype table (CSV/TSV, .gz ok)")
    p.add_argument("--layout", choices=["auto", "snp-major", "sample-major"], default="auto",
                   help="--csv: one row per SNP, a row VarSam holding the phenotype "
                        "(snp-major, BitEpi's), or one row per sample, the phenotype in a "
                        "column class/y/phenotype/status/label or the last (sample-major); "
                        "auto: snp-major when a row is named VarSam")
    layout_flags(p)
    p.add_argument("--order", type=int, default=4, choices=[2, 3, 4],
                   help="SNPs per combination (default 4)")
    p.add_argument("--score", choices=["k2", "mi"], default="k2",
                   help="k2: Bayesian K2 score, lower is better (default); mi: mutual "
                        "information, higher is better")
    p.add_argument("--top", type=int, default=20, help="best combinations kept (default 20)")
    p.add_argument("--backend", choices=["auto", "opencl", "cuda"], default="auto",
                   help="cuda: the tensor-core path (NVIDIA GPUs with CuPy); auto: OpenCL")
    p.add_argument("--devices", default=None, help=argparse.SUPPRESS)  # old name of --device
    p.add_argument("--out", default=None, help="write the hits (TSV) here")
    p.add_argument("--epi-cc", default=None, metavar="FILE",
                   help="order 2: also write the hits as PLINK's .epi.cc (CHR1 SNP1 CHR2 SNP2 "
                        "SCORE STAT DF P; STAT is the G statistic, see the README)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the search as tasks on this Dask scheduler (tcp://host:8786)")
    p.set_defaults(func=_cmd_epistasis)

    def gene_set_flags(p, *, weight: str, out: str, report: str, scheduler: str):
        """The flags gsea and prerank share."""
        p.add_argument("--weight", type=float, default=1.0, help=weight)
        p.add_argument("--min-size", type=int, default=15)
        p.add_argument("--max-size", type=int, default=500)
        p.add_argument("--seed", type=_float_count, default=None,
                       help="integer seed (default: random), e.g. 42 or 1e3")
        p.add_argument("--case-insensitive", action="store_true",
                       help="match gene names in upper case")
        p.add_argument("--out", default=None, help=out)
        p.add_argument("--plot", default=None, metavar="DIR",
                       help="write running-sum plots (PNG) into DIR (needs matplotlib)")
        p.add_argument("--plot-set", dest="plot_sets", action="append",
                       help="set to plot (repeatable; default: the top set of each direction)")
        p.add_argument("--report", default=None, metavar="DIR", help=report)
        p.add_argument("--scheduler", default=None, metavar="ADDRESS", help=scheduler)

    p = add("gsea", "gene set enrichment analysis with phenotype permutations")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--gct", help="expression as GCT 1.2/1.3")
    src.add_argument("--expr", help="expression: GCT or tab-separated NAME DESCRIPTION samples...")
    p.add_argument("--cls", required=True, help="two-class CLS file")
    p.add_argument("--gmt", required=True, help="gene sets (GMT)")
    p.add_argument("--resamples", "--perms", dest="resamples", type=_float_count, default=1000,
                   help="phenotype permutations (1e6 is ok; --perms is the old name)")
    p.add_argument("--metric", default="signal_to_noise",
                   choices=["signal_to_noise", "t_test", "diff_of_classes", "ratio_of_classes",
                            "log2_ratio_of_classes"])
    gene_set_flags(p, weight="ES weight p (0, 1, 1.5, 2, ...)",
                   out="write the results table (TSV) here",
                   report="write Broad's report into DIR: index.html with both directions' "
                          "tables and enrichment plots, and the tables as TSV",
                   scheduler="run the permutations as tasks on this Dask scheduler")
    p.set_defaults(func=_cmd_gsea)

    p = add("prerank", "preranked gene set enrichment analysis (a ranked gene list, gene-set "
                       "permutations and multilevel p-values, as fgsea)")
    p.add_argument("--rnk", required=True,
                   help="ranked gene list: gene and statistic per line (.rnk, TSV; .gz ok)")
    p.add_argument("--gmt", required=True, help="gene sets (GMT)")
    p.add_argument("--resamples", type=_float_count, default=1000,
                   help="random gene sets per set size (fgsea's nPermSimple; 1e5 is ok)")
    p.add_argument("--method", choices=["multilevel", "simple"], default="multilevel",
                   help="multilevel: small p-values by adaptive multilevel splitting (fgsea's "
                        "default); simple: resampling only")
    p.add_argument("--eps", type=float, default=1e-50,
                   help="smallest p-value to estimate (0: no bound; default 1e-50)")
    p.add_argument("--sample-size", type=_float_count, default=101,
                   help="chains per set size in multilevel splitting (fgsea's sampleSize)")
    gene_set_flags(p, weight="ES weight p (fgsea's gseaParam)",
                   out="write fgsea's table (TSV) here",
                   report="write an HTML report into DIR: both directions' tables with "
                          "enrichment plots, and the tables as TSV",
                   scheduler="run the resamples as tasks on this Dask scheduler")
    p.set_defaults(func=_cmd_prerank)

    p = add("fit-matern", "maximum-likelihood fit of a linear model with a Matérn field "
                          "(profile intervals, a kriging map)")
    p.add_argument("data", help="CSV/TSV with the coordinates, response and covariates")
    p.add_argument("--coords", required=True, help="the two coordinate columns, e.g. x,y")
    p.add_argument("--response", required=True,
                   help="the response column, or log(col), sqrt(col), log10(col)")
    p.add_argument("--covariates", default=None,
                   help="covariate columns (an intercept is added), e.g. 'sqrt(dist),elev'")
    p.add_argument("--param", action="append", default=None,
                   help="values of parameters not estimated, e.g. shape=1.5 (repeatable); "
                        "defaults shape=1, nugget=0.1, anisoRatio=1, anisoAngleRadians=0")
    p.add_argument("--estimate", default="range,nugget",
                   help="parameters to estimate among range, shape, nugget, anisoRatio, "
                        "anisoAngleRadians (default range,nugget)")
    p.add_argument("--method", choices=["ML", "REML"], default="ML")
    p.add_argument("--level", type=float, default=0.95, help="confidence level")
    p.add_argument("--tol", type=float, default=1e-4,
                   help="convergence tolerance on the log scale of the parameters")
    p.add_argument("--no-profiles", action="store_true",
                   help="skip the 1-D profile likelihoods (and their intervals)")
    p.add_argument("--no-profile2d", action="store_true",
                   help="skip the range x shape profile")
    p.add_argument("--out", default=None,
                   help="write the fit (TSV) here, and the profiles beside it (.profiles.tsv)")
    p.add_argument("--png", default=None, help="draw a kriging map of the mean into this PNG")
    p.add_argument("--profile-png", default=None, help="draw the profiles into this PNG")
    p.add_argument("--map-size", type=int, default=100, help="map grid cells per side")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="evaluate the batches of likelihoods as tasks on this Dask scheduler")
    p.set_defaults(func=_cmd_fit_matern)
    return parser


def check_output_path(path, flag: str) -> None:
    """Refuse, before any work, an output file that cannot be written: its folder missing or
    not writable, or the path a folder."""
    if path in (None, "-"):
        return
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ValueError(f"{flag} {path}: is a folder, not a file")
    if not parent.is_dir():
        raise ValueError(f"{flag} {path}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"{flag} {path}: the folder {parent} is not writable")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{flag} {path}: the file exists and is not writable")


@contextlib.contextmanager
def _output(path):
    """The name to write ``path`` under: a temporary file beside it, renamed to ``path`` when
    the block succeeds and removed when it does not (Ctrl-C, a full disk): never a half-written
    output. Yields None when ``path`` is None."""
    if path is None:
        yield None
        return
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        yield str(tmp)
        if tmp.exists():
            os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


_OUTPUT_FLAGS = {"out": "--out", "statistics": "--statistics", "png": "--png",
                 "profile_png": "--profile-png"}


def _check_outputs(args) -> None:
    for attr, flag in _OUTPUT_FLAGS.items():
        check_output_path(getattr(args, attr, None), flag)
    folders = [(f, getattr(args, a, None)) for a, f in (("plot", "--plot"),
                                                        ("report", "--report"))]
    for flag, folder in folders:
        if not folder:
            continue
        if Path(folder).exists() and not Path(folder).is_dir():
            raise ValueError(f"{flag} {folder}: is a file; {flag} takes a folder")
        parent = Path(folder) if Path(folder).is_dir() else Path(folder).parent
        if str(parent) and not parent.exists():
            raise ValueError(f"{flag} {folder}: the folder {parent} does not exist")
    wanted = [f for f, folder in folders if folder] + [
        flag for attr, flag in (("png", "--png"), ("profile_png", "--profile-png"))
        if getattr(args, attr, None)]
    if wanted:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError(f"{wanted[0]} needs matplotlib: pip install matplotlib") from None


def main(argv=None) -> int:
    parser = build_parser()
    if argv is None and len(sys.argv) == 1 or argv == []:
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    if any(a == "--perms" or a.startswith("--perms=") for a in given):
        print("oclstat gsea: --perms is now --resamples (the old name goes in the next "
              "release)", file=sys.stderr)
    try:
        _check_outputs(args)
        return args.func(args)
    except KeyboardInterrupt:
        print(f"oclstat {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, KeyError, NoDeviceError, FileNotFoundError, OSError,
            MemoryError) as exc:
        print(f"oclstat {args.command}: error: {_as_flags(str(exc))}", file=sys.stderr)
        return 2


def _as_flags(message: str) -> str:
    """An error message with the Python argument names replaced by the command's flags (the
    names of :mod:`oclstat._vocabulary`)."""
    return python_to_cli(message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
