"""The runtime's errors and warnings, and the sentence that says how to get a device."""

from __future__ import annotations

import re

HOW_TO_GET_A_DEVICE = (
    "oclstat needs an OpenCL platform. For the CPU, install pocl with "
    "`pip install \"oclstat[pocl]\"` (pyopencl's wheels bundle pocl); for a GPU, install the "
    "vendor's OpenCL driver (NVIDIA: the CUDA driver's libnvidia-opencl and an ICD file in "
    "/etc/OpenCL/vendors; AMD: ROCm; Intel: intel-opencl-icd). `oclstat devices` lists what is "
    "found."
)


class NoDeviceError(RuntimeError):
    """No usable OpenCL platform or device, or the requested device does not exist."""


class DeviceUnusableError(NoDeviceError):
    """The device exists but failed oclstat's probe (it cannot build or run a tiny kernel);
    the message is one line: the implementation, why, and what to do."""


class DeviceCapabilityError(ValueError):
    """The chosen device lacks something the call needs (float64, memory, work-group size)."""


class KernelBuildError(RuntimeError):
    """An OpenCL program failed to build; ``log`` holds the compiler's output."""

    def __init__(self, message: str, log: str = "") -> None:
        super().__init__(message)
        self.log = log


class KernelBuildWarning(UserWarning):
    """A kernel built, but its compiler warned (the warning lines are in the message)."""


_WARNING_LINE = re.compile(r"\bwarning\b", re.I)
#: Warnings that report what a kernel asked for: Intel's compiler notes that it did not pack
#: work-items into SIMD lanes for a kernel whose vec_type_hint asks it not to
#: (OCLSTAT_ONE_ITEM_PER_LANE, oclstat/cpu.clh).
_EXPECTED_WARNING = re.compile(
    r"can.t be vectorized due to unsupported vec type hint"
    # NVIDIA's driver says this of every kernel it builds (it marks them noinline itself)
    r"|is a kernel, so overriding noinline attribute", re.I)


def compiler_warnings(log: str) -> list[str]:
    """The lines of a build log that warn about the kernels' code (not the notes above that
    every build of a driver prints)."""
    return [ln.strip() for ln in log.splitlines()
            if _WARNING_LINE.search(ln) and not _EXPECTED_WARNING.search(ln)]
