"""``oclstat demo``: every capability on small built-in data."""

from __future__ import annotations

from ._common import device_of

NAME = "demo"
HELP = "run every capability on small built-in data"
OUTPUTS = ()


def add_arguments(p) -> None:
    p.add_argument("--section", action="append", help="run only this section (repeatable)")


def run(args) -> int:
    from ..demo import run as run_demo

    run_demo(device=device_of(args), sections=args.section or None)
    return 0
