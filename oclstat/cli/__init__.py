"""The ``oclstat`` command line: one module per command, each with its options
(``add_arguments``) and its runner (``run``).

    oclstat devices
    oclstat demo [--device D]
    oclstat rng normal --n 1000000 --seed 1 --out z.npy
    oclstat fisher TABLE.csv --resamples 1e6 --seed 1
    oclstat permtest A.csv B.csv --windows 256 --out results.tsv
    oclstat fields --nx 60 --ny 80 --param 0.3,1.5,1,0,1,0 --n-sim 5 --out f.npy --png f.png
    oclstat epistasis --bfile DS --order 2 --top 20 --out hits.tsv
    oclstat gsea --expr P53.txt --cls P53.cls --gmt c2.gmt --resamples 1000 --out results.tsv
    oclstat gsva --expr data.gct --gmt h.all.gmt --out scores.tsv   (also ssgsea, aucell)
    oclstat fit-matern meuse.csv --coords x,y --response "log(zinc)" --covariates "sqrt(dist)" \\
        --out fit.tsv --png map.png --profile-png profiles.png

Every sub-command accepts ``--device`` (index or name substring, as ``OCLSTAT_DEVICE``) and
``--quiet`` (no progress on stderr; by default a bar in a terminal, one line every 30 s in a
log file).
Outputs never destroy (:mod:`oclstat.cli._outputs`): ``-`` is standard output, links are
written through, devices and FIFOs in place, regular files only once complete. What a command
read, and every inference its readers made, is printed with the option that reverses it.

>>> main(["rng", "uniform", "--n", "3", "--seed", "1", "--out", "-"])
0...
0
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import stat
import sys
import tempfile
import warnings
from pathlib import Path

from .. import __version__
from .._progress import silenced
from .._runtime import NoDeviceError
from .._vocabulary import python_to_cli
from . import (
    aucell,
    demo,
    devices,
    epistasis,
    epistasis_merge,
    fields,
    fisher,
    fit_matern,
    geseca,
    gsea,
    gsva,
    ora,
    permtest,
    prerank,
    rng,
    ssgsea,
)
from ._outputs import check_folder, check_output

__all__ = ["main", "build_parser", "COMMANDS"]

#: The commands, in the order ``oclstat --help`` lists them.
COMMANDS = (devices, demo, rng, fisher, permtest, fields, epistasis, epistasis_merge, gsea,
            prerank, ora, geseca, ssgsea, gsva, aucell, fit_matern)


def build_parser() -> argparse.ArgumentParser:
    """The parser: one sub-parser per module of :data:`COMMANDS`, each with ``--device``."""
    parser = argparse.ArgumentParser(
        prog="oclstat", description="Vendor-portable GPU statistics for genomics (OpenCL).")
    parser.add_argument("--version", action="version", version=f"oclstat {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        p = sub.add_parser(command.NAME, help=command.HELP, description=command.HELP)
        p.add_argument("--device", default=None,
                       help="device index, name or substring (default: OCLSTAT_DEVICE, best "
                            "GPU); for permtest, gsea, prerank, fields, fit-matern and "
                            "epistasis a comma-separated list shares the work")
        p.add_argument("--quiet", action="store_true",
                       help="no progress on stderr (by default a bar in a terminal, a line "
                            "every 30 s in a log; OCLSTAT_PROGRESS_SECONDS sets the interval)")
        command.add_arguments(p)
        p.set_defaults(func=command.run, command_module=command)
    return parser


def check_outputs(args) -> None:
    """Refuse, before any work, outputs that cannot be written and missing plotting."""
    module = args.command_module
    for attr, flag, binary in module.OUTPUTS:
        check_output(getattr(args, attr, None), flag, binary=binary)
    for attr, flag in getattr(module, "FOLDERS", ()):
        check_folder(getattr(args, attr, None), flag)
    wanted = [flag for attr, flag in getattr(module, "FOLDERS", ()) if getattr(args, attr, None)]
    wanted += [flag for attr, flag, binary in module.OUTPUTS
               if binary and flag in ("--png", "--profile-png") and getattr(args, attr, None)]
    if wanted:
        from ..plot import _pyplot

        _pyplot(wanted[0])


def _read_pipes_once(args, folder: Path) -> None:
    """Inputs that are pipes or devices (``<(cmd)``, ``/dev/stdin``) copied once into regular
    files in ``folder``: readers look at a file more than once (its first lines, then all of
    it), which a pipe cannot give twice ("lseek failed", or an empty second read)."""
    module = args.command_module
    outputs = {attr for attr, *_ in module.OUTPUTS} | {attr for attr, _ in
                                                      getattr(module, "FOLDERS", ())}
    for attr, value in vars(args).items():
        if attr in outputs or not isinstance(value, str) or value in ("-", os.devnull):
            continue
        try:
            mode = os.stat(value).st_mode
        except (OSError, ValueError):
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode):
            copy = folder / f"{attr}-{Path(value).name}"
            with open(value, "rb") as src, open(copy, "wb") as dst:
                shutil.copyfileobj(src, dst)
            setattr(args, attr, str(copy))


def _show_warning(command: str):
    """Warnings on one line in the command's words, no source path."""
    def show(message, category, filename, lineno, file=None, line=None):
        text = python_to_cli(" ".join(str(message).split()), command)
        print(f"oclstat {command}: warning: {text}", file=sys.stderr)
    return show


def _quiet_stdout() -> None:
    """After a closed pipe: send what Python still has to write to /dev/null, so that the
    interpreter's exit does not complain (as coreutils end on SIGPIPE, without a word)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


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
    shown = warnings.showwarning
    warnings.showwarning = _show_warning(args.command)
    try:
        check_outputs(args)
        with tempfile.TemporaryDirectory(prefix="oclstat-") as folder, \
                silenced() if args.quiet else contextlib.nullcontext():
            _read_pipes_once(args, Path(folder))
            return args.func(args)
    except BrokenPipeError:
        _quiet_stdout()
        return 141
    except KeyboardInterrupt:
        print(f"oclstat {args.command}: interrupted", file=sys.stderr)
        return 130
    except (ValueError, TypeError, KeyError, NoDeviceError, FileNotFoundError, OSError,
            MemoryError, ImportError) as exc:
        print(f"oclstat {args.command}: error: {python_to_cli(_plain(exc), args.command)}",
              file=sys.stderr)
        return 2
    finally:                  # main() also runs inside Python (tests, notebooks): put it back
        warnings.showwarning = shown


def _plain(exc: BaseException) -> str:
    """An exception's message on one line (a KeyError's quotes dropped)."""
    if isinstance(exc, KeyError) and exc.args:
        return str(exc.args[0])
    return " ".join(str(exc).split("\n"))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
