"""The adapters of the R functions that the R package's file of the same name defines: listDevices
and setDevice (the devices of the R session).
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, r_function


@r_function("listDevices", "devices")
def list_devices(*, device=None):
    from .._runtime import devices

    found = devices()
    return RValue({"index": np.array([d.index for d in found], dtype=np.int32),
                   "type": Characters(d.type for d in found),
                   "platform": Characters(d.platform for d in found),
                   "name": Characters(d.name for d in found),
                   "computeUnits": np.array([d.compute_units for d in found], dtype=np.int32),
                   "globalMemGiB": np.array([d.global_mem / 2**30 for d in found]),
                   "maxAllocGiB": np.array([d.max_alloc / 2**30 for d in found]),
                   "localMemKiB": np.array([d.local_mem / 2**10 for d in found]),
                   "maxWorkGroupSize": np.array([d.max_work_group_size for d in found],
                                                dtype=np.int32),
                   "fp64": np.array([bool(d.fp64) for d in found]),
                   "implementation": Characters(d.implementation for d in found),
                   "usable": np.array([bool(d.usable) for d in found]),
                   "problem": Characters(d.problem for d in found)}, "data.frame")


@r_function("setDevice", "get_runtime")
def set_device(device=None):
    """The index and label of ``device`` (the bridge keeps the index); of the default device
    for None."""
    from .._runtime import get_runtime

    if isinstance(device, float) and device.is_integer():
        device = int(device)
    info = get_runtime(device).info
    return RValue({"index": int(info.index), "label": f"[{info.index}] {info.platform} | "
                                                      f"{info.name}"})
