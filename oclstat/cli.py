"""The ``oclstat`` command line.

    oclstat devices
    oclstat demo [--device D]
    oclstat rng normal --n 1000000 --seed 1 --out z.npy

Every sub-command accepts ``--device`` (index or name substring, as ``OCLSTAT_DEVICE``).

>>> main(["rng", "uniform", "--n", "3", "--seed", "1", "--out", "-"])
0...
0
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from . import random as ocr
from ._runtime import NoDeviceError, devices, get_runtime


def _cmd_devices(args) -> int:
    found = devices()
    try:
        chosen = get_runtime(args.device).info.index
    except NoDeviceError:
        chosen = -1
    for d in found:
        mark = "*" if d.index == chosen else " "
        print(f"{mark} {d}")
    print("(* = the device oclstat uses by default; choose with --device or OCLSTAT_DEVICE)")
    return 0


def _cmd_demo(args) -> int:
    from .demo import run

    run(device=args.device, sections=args.section or None)
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
    size = tuple(args.n) if len(args.n) > 1 else args.n[0]
    streams = ocr.Streams.load(args.streams) if args.streams else None
    seed = None if streams is not None else args.seed
    common = dict(streams=streams, seed=seed, device=args.device, progress=None)
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


def _float_count(text: str) -> int:
    value = float(text)
    if value != int(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(value)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="oclstat", description="Vendor-portable GPU statistics for genomics (OpenCL)."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def add(name, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--device", default=None,
                       help="device index or name substring (default: OCLSTAT_DEVICE, best GPU)")
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
    p.add_argument("--seed", type=int, default=None, help="integer seed (default: random)")
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
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, NoDeviceError, FileNotFoundError) as exc:
        print(f"oclstat {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
