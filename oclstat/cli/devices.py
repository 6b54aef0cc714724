"""``oclstat devices``: the OpenCL devices found, the default marked."""

from __future__ import annotations

from .._runtime import NoDeviceError, devices, get_runtime
from ._common import device_of

NAME = "devices"
HELP = "list the OpenCL devices"
OUTPUTS = ()


def add_arguments(p) -> None:
    """No options besides --device (which device would be the default)."""


def run(args) -> int:
    found = devices()
    try:
        chosen = get_runtime(device_of(args)).info.index
    except NoDeviceError:
        chosen = -1
    for d in found:
        mark = "*" if d.index == chosen else " "
        print(f"{mark} {d}")
    print("(* = the device oclstat uses by default; choose with --device or OCLSTAT_DEVICE)")
    return 0
