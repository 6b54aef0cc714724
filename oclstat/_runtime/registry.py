"""One :class:`Runtime` per device, shared by every call: :func:`get_runtime` and
:func:`runtime_for`."""

from __future__ import annotations

import threading

from .choice import select_device
from .runtime import Runtime

_RUNTIMES: dict = {}
_RUNTIMES_LOCK = threading.Lock()


def get_runtime(device=None) -> Runtime:
    """The :class:`Runtime` (context, queues, compiled kernels) of one OpenCL device.

    Parameters
    ----------
    device : None, int, str or Runtime, optional
        None: ``OCLSTAT_DEVICE`` if set, else the best device (GPUs, then accelerators, then
        CPU runtimes; simulators never by default). An int is an index of :func:`devices`; a
        string is a common name (pocl, intel, nvidia/cuda, amd/rocm, oclgrind, cpu, gpu) or a
        substring of the platform or device name. A Runtime is returned as it is.

    Returns
    -------
    Runtime
        Created once per device and shared.

    Raises
    ------
    NoDeviceError
        If no device matches (the message lists the devices present).

    See Also
    --------
    devices : the devices present.

    Notes
    -----
    ``OCLSTAT_SCHEDULE=gpu`` makes a CPU runtime compile and launch the kernels as on a GPU
    (work-group sizes, local memory, loop orders), so the GPU code paths are tested without
    a GPU; ``OCLSTAT_NO_FP64=1`` makes it behave as a device without double precision.

    References
    ----------
    .. [1] Khronos Group. The OpenCL Specification, version 3.0.

    Examples
    --------
    >>> import oclstat
    >>> rt = oclstat.get_runtime()
    >>> rt is oclstat.get_runtime(rt.info.index)
    True
    """
    return runtime_for(device)


def runtime_for(device=None, workload: str | None = None) -> Runtime:
    """:func:`get_runtime` for a capability: with ``device=None`` (and no environment
    setting) the CPU implementation measured best for ``workload`` (a key of
    :data:`CPU_PREFERENCE_BY_WORKLOAD`) comes first; GPUs still come before CPUs.

    >>> runtime_for(None, "ldl").info.type in ("GPU", "CPU", "ACC")
    True
    """
    if isinstance(device, Runtime):
        return device
    dev = select_device(device, workload)
    key = dev.int_ptr
    with _RUNTIMES_LOCK:
        rt = _RUNTIMES.get(key)
        if rt is None:
            rt = Runtime(dev)
            _RUNTIMES[key] = rt
        return rt
