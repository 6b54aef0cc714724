"""``oclstat fields``: Gaussian random fields (Matérn) simulated on a grid."""

from __future__ import annotations

import argparse
import time

import numpy as np

from ._common import device_label, device_of, float_count, note, scheduler_client, scheduler_flag
from ._outputs import output

NAME = "fields"
HELP = "simulate Gaussian random fields (Matérn) on a grid"
OUTPUTS = (("out", "--out", True), ("png", "--png", True))


def param_row(text: str) -> list[float]:
    """``--param``: six comma-separated numbers."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--param needs 6 numbers, got {text!r}") from None
    if len(values) != 6:
        raise argparse.ArgumentTypeError(
            f"--param needs 6 comma-separated numbers (range,shape,variance,nugget,"
            f"anisoRatio,anisoAngleRadians), got {len(values)}")
    return values


def add_arguments(p) -> None:
    p.add_argument("--nx", type=int, default=60)
    p.add_argument("--ny", type=int, default=80)
    p.add_argument("--xlim", type=float, nargs=2, default=[0.0, 1.0])
    p.add_argument("--ylim", type=float, nargs=2, default=[0.0, 1.0])
    p.add_argument("--param", type=param_row, action="append",
                   help="range,shape,variance,nugget,anisoRatio,anisoAngleRadians (repeatable)")
    p.add_argument("--n-sim", type=int, default=5, help="fields per parameter set")
    p.add_argument("--seed", type=float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--out", required=True, help=".npy file: (n_params, n_sim, ny, nx)")
    p.add_argument("--png", default=None, help="also draw the fields into this PNG")
    scheduler_flag(p, "chunks of parameter sets")


def _check_size(args, n_params: int) -> None:
    """Refuse, before any work, an --out that is not .npy and a grid whose fields or Matérn
    covariance (points^2 per parameter set, factorised whole) cannot fit in memory."""
    from .._validation import check_host_memory
    from ._outputs import _special, standard_stream

    if not (standard_stream(args.out) is not None or _special(args.out)
            or str(args.out).endswith(".npy")):
        raise ValueError(f"--out {args.out}: the fields are written as NumPy .npy (an array of "
                         "parameter sets x fields x ny x nx); give a name ending in .npy")
    for name in ("nx", "ny", "n_sim"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got "
                             f"{getattr(args, name)}")
    points = args.nx * args.ny
    item = np.dtype(args.dtype).itemsize
    check_host_memory(points * points * item, f"a {args.nx:,} x {args.ny:,} grid's Matérn "
                      f"covariance ({points:,} points, {points:,}^2 entries)",
                      "simulate a coarser grid (fields are exact: the covariance of every pair "
                      "of points is factorised)")
    check_host_memory(n_params * args.n_sim * points * item,
                      f"{n_params} x {args.n_sim} fields on a {args.nx:,} x {args.ny:,} grid",
                      "ask for fewer fields or a coarser grid")


def run(args) -> int:
    from .._fields import fields_on_grid, grid_coords, simulate_fields

    if args.png:
        from ..plot import _pyplot

        _pyplot("--png")
    params = args.param or [[0.3, 1.5, 1.0, 0.0, 1.0, 0.0]]
    _check_size(args, len(params))
    coords = grid_coords(args.nx, args.ny, xlim=tuple(args.xlim), ylim=tuple(args.ylim))
    device = device_of(args, several=True)
    client = scheduler_client(args.scheduler)
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
    with output(args.out, "--out", binary=True) as fh:
        np.save(fh, images)
    if args.png:
        from ..plot import plot_fields

        flat = images.reshape(-1, args.ny, args.nx)
        labels = [", ".join(f"{k} {v:g}" for k, v in zip(("range", "shape", "var"), p[:3],
                                                         strict=True)) for p in params]
        titles = [f"{labels[p]} | sim {s + 1}" for p in range(len(params))
                  for s in range(args.n_sim)]
        # one row per parameter set, one colour scale for every panel
        fig = plot_fields(flat, titles=titles, max_cols=args.n_sim)
        with output(args.png, "--png", binary=True) as fh:
            fig.savefig(fh, dpi=110, format="png")
    note(f"{len(params)} parameter sets x {args.n_sim} fields on a {args.nx} x {args.ny} grid "
         f"-> {args.out} {images.shape}; {'Dask' if client else device_label(device)}, "
         f"{elapsed:.3f} s")
    return 0
