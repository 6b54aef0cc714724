"""The OpenCL runtime: the only package that touches pyopencl.

It finds devices and proves each one usable before choosing it, keeps one context and one
in-order queue per device, builds each kernel file once per (device, file, build options) and
launches kernels. Capability modules ask it for a :class:`Runtime` and never import pyopencl
themselves. One module per idea:

``icd``       at import, OpenCL implementations installed from PyPI registered with the ICD
              loader, then pyopencl imported;
``errors``    the errors users see and the sentence that says how to get a device;
``switches``  the environment switches (``OCLSTAT_SCHEDULE``, ``OCLSTAT_NO_FP64``, ...);
``device``    discovery, :class:`DeviceInfo`, and the usability probe (a tiny kernel built
              and run once per implementation, driver and CPU, the verdict cached);
``choice``    which usable device a call runs on (``device=``, ``OCLSTAT_DEVICE``,
              ``PYOPENCL_CTX``, then GPUs, accelerators, and the fastest CPU implementation for
              the workload);
``sources``   the kernel sources inside the package, headers inlined;
``runtime``   :class:`Runtime`: context, queues, programs, buffers, launches, profiles;
``registry``  one Runtime per device, shared: :func:`get_runtime`, :func:`runtime_for`.

**Switches for testing without a GPU** (environment variables, read at each use):

``OCLSTAT_SCHEDULE=gpu``
    every capability takes the code path it takes on a GPU (one work-item per stream, GSEA
    "pairs", the permutation test one launch per step, tiled LDLᵀ, tiled epistasis), with a
    GPU's work-group limits (at most 256 work-items, 48 KiB of local memory). ``cpu`` forces
    the CPU paths; unset or ``auto``: by device type. See :attr:`Runtime.gpu_schedule`.
``OCLSTAT_NO_FP64=1``
    treat every device as one without double precision: float64 requests are refused and
    the capabilities run their float32 / integer paths.
``OCLSTAT_POISON=1``
    fill every new device buffer with 0xFF bytes, so a kernel that reads memory nobody wrote
    gives a different answer (tests compare against a run without it).
``OCLSTAT_NO_VPOPCNT=1``
    count the epistasis tables' bits one word at a time even where the CPU has AVX-512
    VPOPCNTDQ and pocl can use it (:attr:`Runtime.vector_popcount`; the counts are the same).
``OCLSTAT_CACHE_DIR``
    where the probe's verdicts are kept (default: ``oclstat`` in the user's cache folder).

>>> import oclstat
>>> rt = oclstat.get_runtime()          # the best usable device present
>>> rt.info.usable and rt.info.name != ""
True
"""

from .icd import cl, register_pip_icds  # noqa: I001 - first: registers ICDs before pyopencl
from .choice import (ALIASES, CPU_PREFERENCE, CPU_PREFERENCE_BY_WORKLOAD, cpu_defaults,
                     select_device)
from .device import (SIMULATORS, DeviceInfo, cpu_extensions, cpu_model, devices, host_line,
                     host_report)
from .errors import (HOW_TO_GET_A_DEVICE, DeviceCapabilityError, DeviceUnusableError,
                     KernelBuildError, KernelBuildWarning, NoDeviceError, compiler_warnings)
from .registry import get_runtime, runtime_for
from .runtime import BUILT, FILL_PIECE, GPU_LOCAL_MEM, GPU_MAX_GROUP, Profile, Runtime
from .sources import kernel_dir, kernel_source
from .switches import schedule_setting

__all__ = [
    "ALIASES", "BUILT", "CPU_PREFERENCE", "CPU_PREFERENCE_BY_WORKLOAD", "FILL_PIECE",
    "GPU_LOCAL_MEM", "GPU_MAX_GROUP", "HOW_TO_GET_A_DEVICE", "SIMULATORS", "DeviceCapabilityError",
    "DeviceInfo", "DeviceUnusableError", "KernelBuildError", "KernelBuildWarning",
    "NoDeviceError", "Profile", "Runtime", "cl", "compiler_warnings", "cpu_defaults",
    "cpu_extensions", "cpu_model", "devices", "get_runtime", "host_line", "host_report",
    "kernel_dir", "kernel_source", "register_pip_icds", "runtime_for", "schedule_setting",
    "select_device",
]
