"""``oclstat rng``: random numbers from MRG31k3p streams, to a file or standard output."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ._common import device_of, float_count, note
from ._outputs import _special, output, standard_stream

NAME = "rng"
HELP = "draw random numbers from MRG31k3p streams to a file"
OUTPUTS = (("out", "--out", False), ("streams", "--streams", True))
_TEXT = {".csv": ",", ".txt": " ", ".tsv": "\t"}


def add_arguments(p) -> None:
    p.add_argument("distribution",
                   choices=["uniform", "normal", "exponential", "integers", "raw"])
    p.add_argument("--n", type=float_count, nargs="+", required=True,
                   help="output size (several numbers: a shape), e.g. --n 1e6")
    p.add_argument("--seed", type=float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--streams", default=None,
                   help="a Streams file (.npz from Streams.save) to draw from and advance")
    p.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    p.add_argument("--low", type=float, default=0.0)
    p.add_argument("--high", type=float, default=1.0)
    p.add_argument("--loc", type=float, default=0.0)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--rate", type=float, default=1.0)
    p.add_argument("--out", required=True,
                   help="output file (.npy; .csv, .tsv or .txt as text) or - for standard "
                        "output (text)")


def binary_out(path) -> bool:
    """Whether --out is written as .npy (else as text, one value or row per line): by its
    suffix; a standard stream, device or pipe (/dev/full, <(cmd)) takes text."""
    if standard_stream(path) is not None or _special(str(path)):
        return False
    suffix = Path(path).suffix
    if suffix == ".npy":
        return True
    if suffix in _TEXT:
        return False
    raise ValueError(f"--out must end in .npy, .csv, .tsv or .txt (or be -), got {path!r}")


def run(args) -> int:
    from .. import random as ocr

    size = tuple(args.n) if len(args.n) > 1 else args.n[0]
    streams = ocr.Streams.load(args.streams) if args.streams else None
    seed = None if streams is not None else args.seed
    common = dict(streams=streams, seed=seed, device=device_of(args), progress=None)
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
    binary = binary_out(args.out)
    with output(args.out, "--out", binary=binary) as fh:
        if binary:
            np.save(fh, values)
        else:
            delim = _TEXT.get(Path(args.out).suffix, " ")
            fmt = "%d" if values.dtype.kind in "iu" else "%.17g"
            np.savetxt(fh, values.reshape(-1, 1) if values.ndim < 2 else values, fmt=fmt,
                       delimiter=delim)
    if streams is not None:       # advanced in place: the next call continues
        with output(args.streams, "--streams", binary=True) as fh:
            streams.save(fh)
    if standard_stream(args.out) is None:
        note(f"wrote {values.size} {args.distribution} draws ({values.dtype}) to {args.out}")
    return 0
