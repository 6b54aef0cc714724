"""``oclstat fit-matern``: maximum-likelihood fit of a linear model with a Matérn field."""

from __future__ import annotations

import re
import time
import warnings
from pathlib import Path

import numpy as np

from .. import _readers as readers  # its readers import pandas when first used
from .._scale import executor
from ._common import (
    device_label,
    device_of,
    note,
    read_line,
    say,
    scheduler_client,
    scheduler_flag,
    show_top,
)
from ._outputs import output

NAME = "fit-matern"
HELP = ("maximum-likelihood fit of a linear model with a Matérn field (profile intervals, a "
        "kriging map)")
OUTPUTS = (("out", "--out", False), ("png", "--png", True),
           ("profile_png", "--profile-png", True))
_COLUMN_FUNCTIONS = {"log": np.log, "sqrt": np.sqrt, "log10": np.log10, "exp": np.exp}


def add_arguments(p) -> None:
    p.add_argument("data", help="CSV/TSV with the coordinates, response and covariates (R's "
                                "write.csv and write.csv2 and pandas' to_csv are read as "
                                "written)")
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
    scheduler_flag(p, "the batches of likelihoods")


def column(frame, spec: str, flag: str):
    """A column of ``frame`` named ``spec``, or ``f(name)`` for f in log, log10, sqrt, exp."""
    m = re.fullmatch(r"\s*(\w+)\((.+)\)\s*", spec)
    fn, name = (m.group(1), m.group(2).strip()) if m else (None, spec.strip())
    if fn is not None and fn not in _COLUMN_FUNCTIONS:
        raise ValueError(f"{flag} {spec}: unknown function {fn}(); use "
                         f"{', '.join(sorted(_COLUMN_FUNCTIONS))}")
    if name not in frame.columns:
        raise ValueError(f"{flag} {spec}: no column {name!r} (the file has "
                         f"{', '.join(map(str, frame.columns[:12]))})")
    if frame[name].dtype.kind not in "fiu":
        bad = next(v for v in frame[name] if not _is_number(v))
        raise ValueError(f"{flag} {spec}: column {name!r} is not numeric (it holds {bad!r})")
    col = frame[name].astype(float)
    if fn is None:
        return col.rename(name)
    with np.errstate(all="ignore"):
        out = _COLUMN_FUNCTIONS[fn](col)
    if not np.isfinite(out).all():
        raise ValueError(f"{flag} {spec}: {fn}() is not finite for some rows")
    return out.rename(spec.strip())


def _is_number(v) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def fixed_params(items) -> dict:
    """``--param name=value,...`` as a dict."""
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


def run(args) -> int:
    import pandas as pd

    from .._fields import grid_coords
    from .._spatial import fit_matern, predict_matern

    if args.png or args.profile_png:
        from ..plot import _pyplot

        _pyplot("--png" if args.png else "--profile-png")
    frame = readers.read_frame(args.data)
    cols = [c.strip() for c in args.coords.split(",")]
    if len(cols) != 2:
        raise ValueError(f"--coords {args.coords}: name two columns, e.g. x,y")
    coords = pd.concat([column(frame, c, "--coords") for c in cols], axis=1)
    y = column(frame, args.response, "--response")
    covs = [column(frame, c, "--covariates") for c in args.covariates.split(",")] \
        if args.covariates else []
    X = pd.concat([pd.Series(1.0, index=frame.index, name="(Intercept)"), *covs], axis=1)
    client = scheduler_client(args.scheduler)
    device = None if client else device_of(args, several=True)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")        # said below, in the caller's words
            fit = fit_matern(coords, y, X, params=fixed_params(args.param),
                             estimate=tuple(e.strip() for e in args.estimate.split(",")),
                             method=args.method, profiles=not args.no_profiles,
                             profile2d=not args.no_profile2d, level=args.level, tol=args.tol,
                             device=device, client=client)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    device = executor(device, None).device
    table = fit.to_frame().reset_index()
    with output(args.out, "--out") as fh:
        if fh is not None:
            table.to_csv(fh, sep="\t", index=False, float_format="%.10g")
    if args.out and args.out != "-":
        rows = [curve.rename(columns={name: "value"}).assign(parameter=name)
                for name, curve in fit.profiles.items()]
        if fit.profile2d is not None:
            rows.append(fit.profile2d.assign(parameter="range x shape"))
        if rows:
            prof_path = str(Path(args.out).with_suffix("")) + ".profiles.tsv"
            with output(prof_path, "--out (profiles)") as fh:
                pd.concat(rows, ignore_index=True).to_csv(fh, sep="\t", index=False,
                                                          float_format="%.10g")
            note(f"wrote the profiles to {prof_path}")
    show_top(args, table, "parameters")
    fp = fit.fields_params
    say(args, f"log-likelihood ({fit.method}) {fit.loglik:.6f}; fields' terms: aRange "
        f"{fp['aRange']:.6g}, lambda {fp['lambda']:.6g}, sigma2 {fp['sigma2']:.6g}, "
        f"tau {fp['tau']:.6g}")
    for reason in fit.degenerate:
        say(args, f"warning: a degenerate fit: {reason}")
    if args.profile_png and (fit.profiles or fit.profile2d is not None):
        from ..plot import plot_profiles

        with output(args.profile_png, "--profile-png", binary=True) as fh:
            plot_profiles(fit).savefig(fh, dpi=110, format="png")
    if args.png:
        from ..plot import plot_kriging

        lo, hi = coords.min().to_numpy(), coords.max().to_numpy()
        grid = grid_coords(args.map_size, args.map_size, xlim=(lo[0], hi[0]),
                           ylim=(lo[1], hi[1]))
        x0 = np.tile(X.mean().to_numpy(), (len(grid), 1))   # covariates at their means
        pred = predict_matern(fit, grid, x0, device=device)
        fig = plot_kriging(pred, points=coords.to_numpy())
        if covs:
            fig.axes[0].set_title("kriging mean (covariates at their means)")
        with output(args.png, "--png", binary=True) as fh:
            fig.savefig(fh, dpi=110, format="png")
    note(read_line(frame.attrs['input']),
         f"{len(y):,} points, {X.shape[1]} covariates, estimated "
         f"{', '.join(fit.estimated)}: {fit.evaluations:,} likelihoods; "
         f"{'Dask' if args.scheduler else device_label(device)}, {elapsed:.2f} s")
    return 0
