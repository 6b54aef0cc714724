"""What every command shares: argument types, the device and scheduler options, the table
layout options, printing a result table, and where the report goes."""

from __future__ import annotations

import argparse
import sys

import numpy as np

from .._runtime import get_runtime, runtime_for
from .._vocabulary import python_to_cli
from ._outputs import to_stdout

__all__ = ["float_count", "yes_no", "device_of", "device_label", "scheduler_client",
           "layout_flags", "show_top", "si", "report_stream", "say", "note", "read_line"]


def float_count(text: str) -> int:
    """A non-negative integer, also written as 1e6."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number such as 1000 or 1e6, got "
                                         f"{text!r}") from None
    if not np.isfinite(value) or value != int(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(value)


float_count.__name__ = "count"


def yes_no(text: str):
    """``yes``/``no``/``auto`` as True/False/"auto"."""
    value = {"auto": "auto", "yes": True, "no": False}.get(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected yes, no or auto, got {text!r}")
    return value


yes_no.__name__ = "yes/no/auto"


def layout_flags(p) -> None:
    """``--header`` and ``--row-names``: the layout of a table the content cannot settle."""
    p.add_argument("--header", type=yes_no, default="auto",
                   help="the first row holds column names: yes, no or auto (default: from "
                        "the content, stated in the summary; an ambiguous file is refused)")
    p.add_argument("--row-names", type=yes_no, default="auto",
                   help="the first column holds row names: yes, no or auto")


def device_of(args, several: bool = False):
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


def device_label(device, workload: str | None = None) -> str:
    """The device(s) a command ran on, for its summary line (``workload``: the capability's
    default CPU implementation, see runtime_for)."""
    if isinstance(device, list):
        return ", ".join(get_runtime(d).info.label for d in device)
    return runtime_for(device, workload).info.label


def scheduler_client(address):
    """A Dask client for --scheduler ADDRESS (None without it), with oclstat's worker plugin."""
    if not address:
        return None
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("--scheduler needs dask.distributed: pip install 'oclstat[dask]'") \
            from None
    from ..distributed import OclstatPlugin

    client = Client(address)
    client.register_plugin(OclstatPlugin())
    return client


def scheduler_flag(p, what: str) -> None:
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help=f"run {what} as tasks on this Dask scheduler (tcp://host:8786)")


def report_stream(args):
    """Where a command prints its report: standard error when a result goes to standard
    output (``--out -``), else standard output."""
    outs = [getattr(args, a, None) for a in ("out", "epi_cc", "statistics")]
    return sys.stderr if to_stdout(*outs) else sys.stdout


def say(args, *lines) -> None:
    """Print report lines where :func:`report_stream` says."""
    stream = report_stream(args)
    for line in lines:
        print(line, file=stream)


def show_top(args, frame, what: str, n: int = 20) -> None:
    """The first ``n`` rows of a result table in the report, with how many are left."""
    import pandas as pd

    out = getattr(args, "out", None) or getattr(args, "report", None)
    with pd.option_context("display.width", 160, "display.max_columns", 30,
                           "display.float_format", lambda v: f"{v:.4g}"):
        say(args, frame.head(n).to_string(index=False))
    left = len(frame) - n
    if left > 0:
        where = f"all of them are in {out}" if out and out != "-" else \
            "--out FILE writes all of them"
        noun, _, order = what.partition(", ")
        say(args, f"... {left:,} more {noun} ({order + '; ' if order else ''}{where})")


def si(value: float) -> str:
    """A rate with an SI prefix: 1.23 k, 45.6 M, 7.89 G."""
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}"
    return f"{value:.3g}"


def note(*lines) -> None:
    """Lines for standard error (what was read, where things were written, timings)."""
    for line in lines:
        print(line, file=sys.stderr)


def read_line(info) -> str:
    """The one line saying what was read (a ReadInfo), in the command line's words."""
    return "read: " + python_to_cli(info.summary())
