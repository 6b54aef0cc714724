"""``oclstat devices``: the OpenCL devices found, each implementation's version and state, the
default marked, and which CPU implementation each workload takes."""

from __future__ import annotations

import sys

from .._runtime import NoDeviceError, cpu_defaults, devices, get_runtime, host_line
from .._vocabulary import python_to_cli
from ._common import device_of

NAME = "devices"
HELP = "list the OpenCL devices (unusable ones with the reason and the fix)"
OUTPUTS = ()


def add_arguments(p) -> None:
    """No options besides --device (which device would be the default)."""


def run(args) -> int:
    found = devices()
    problem = None
    try:
        chosen = get_runtime(device_of(args)).info.index
    except NoDeviceError as exc:
        chosen, problem = -1, str(exc)
    print(host_line())
    for d in found:
        mark = "*" if d.index == chosen else " "
        print(f"{mark} {d}")
    vector = [d.implementation for d in found
              if d.usable and d.type == "CPU" and get_runtime(d.index).vector_popcount]
    if vector:
        print("epistasis counts bits eight words per instruction (AVX-512 vpopcntq) on: "
              + ", ".join(vector))
    widths = [f"{d.implementation} {d.simd_bytes * 8}-bit" for d in found
              if d.usable and d.type == "CPU" and d.simd_bytes]
    if widths:
        print("vector registers the CPU compilers target (lanes of the fast pair test): "
              + ", ".join(widths))
    print("(* = the device oclstat uses by default; choose with --device or OCLSTAT_DEVICE; "
          "devices marked UNUSABLE failed a test build and are never chosen)")
    defaults = cpu_defaults()
    if defaults:
        rest = defaults.pop("*")
        by = {}
        for workload, impl in defaults.items():
            by.setdefault(impl, []).append(workload)
        parts = [f"{', '.join(w)}: {impl}" for impl, w in by.items() if impl != rest]
        print("CPU implementation per workload (the order measured in benchmarks/RESULTS.md, "
              "among the usable ones): " + "; ".join([*parts, f"everything else: {rest}"]))
    if problem is not None:                 # the devices are listed above: the first line
        print(f"oclstat devices: error: {python_to_cli(problem.splitlines()[0], NAME)}",
              file=sys.stderr)
        return 2
    return 0
