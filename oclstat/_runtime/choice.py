"""Device choice: which usable device a call runs on.

First match wins:

1. the ``device=`` argument: an index into :func:`devices`, a common name (``"pocl"``,
   ``"intel"``, ``"nvidia"``/``"cuda"``, ``"amd"``/``"rocm"``, ``"oclgrind"``, ``"cpu"``,
   ``"gpu"``), a case-insensitive substring of "platform | device name | type", a
   :class:`DeviceInfo`, a ``pyopencl.Device`` or a :class:`Runtime`;
2. the environment variable ``OCLSTAT_DEVICE`` (index, name or substring, as above);
3. ``PYOPENCL_CTX`` (pyopencl's ``"platform[:device]"``, each part an index or a substring);
4. the first usable GPU, then accelerator, then the fastest usable CPU implementation for the
   workload (:data:`CPU_PREFERENCE_BY_WORKLOAD`, else :data:`CPU_PREFERENCE`). A simulator
   (oclgrind) is never chosen unless named.

A name or substring that several devices match picks the best usable one in the same order,
and of two versions of one implementation (PyPI's pocl 3.0 and Debian's pocl 3.1) the newer.
A device that failed the probe (:mod:`.devices`) is never chosen: naming it raises
:class:`DeviceUnusableError` with the one line that says why and what to do. Nothing here ever
prompts.
"""

from __future__ import annotations

import os

import numpy as np

from .device import (
    DeviceInfo,
    describe,
    device_pairs,
    devices,
    is_simulator,
    type_name,
    usability,
    version_key,
)
from .errors import HOW_TO_GET_A_DEVICE, DeviceUnusableError, NoDeviceError
from .icd import cl
from .runtime import Runtime

#: CPU implementations from the fastest to the slowest on oclstat's kernels (measured in
#: benchmarks/bench_implementations.py); the default CPU device is the first one present.
CPU_PREFERENCE = ("intel(r) opencl", "portable computing language")
#: Workloads whose measured order of CPU implementations differs from :data:`CPU_PREFERENCE`
#: (benchmarks/RESULTS.md, "Issue 17: the fastest on the CPU"): pocl's compiler
#: vectorises the loops inside one work-item (the in-cache LDLᵀ of small matrices, Green's
#: programme, the epistasis search's word loops, the GSEA running sums), which Intel's runs
#: across work-items. "gsea" covers both GSEA capabilities (phenotype and preranked).
CPU_PREFERENCE_BY_WORKLOAD = {
    "ldl": ("portable computing language", "intel(r) opencl"),
    "permutation": ("portable computing language", "intel(r) opencl"),
    "epistasis": ("portable computing language", "intel(r) opencl"),
    "gsea": ("portable computing language", "intel(r) opencl"),
    # the exact r x c Fisher test's network stages (each work-item loops over the ways to
    # fill a column): pocl 6.2 s, Intel 18.8 s on a 5 x 5 table of n = 165 (2026-11-25)
    "fisher_exact": ("portable computing language", "intel(r) opencl"),
}
#: Common names of implementations: each matches a platform-name substring (or a type).
ALIASES = {
    "pocl": ("platform", ("portable computing language", "pocl")),
    "intel": ("platform", ("intel",)),
    "nvidia": ("platform", ("nvidia",)),
    "cuda": ("platform", ("nvidia",)),
    "amd": ("platform", ("amd accelerated parallel processing", "amd", "rocm")),
    "rocm": ("platform", ("amd accelerated parallel processing", "amd", "rocm")),
    "oclgrind": ("platform", ("oclgrind",)),
    "cpu": ("type", ("CPU",)),
    "gpu": ("type", ("GPU",)),
    "acc": ("type", ("ACC",)),
    "accelerator": ("type", ("ACC",)),
}


def _preference(pair, cpu_order=CPU_PREFERENCE) -> tuple:
    """Sort key of a device for default choices: real devices before simulators, GPUs, then
    accelerators, then CPUs in ``cpu_order``, then the newer driver of one implementation;
    ties keep the listing order."""
    platform, dev = pair
    kind = type_name(dev)
    rank = {"GPU": 0, "ACC": 1, "CPU": 2}.get(kind, 3)
    pname = platform.name.lower()
    cpu_rank = next((i for i, c in enumerate(cpu_order) if c in pname), len(cpu_order))
    newer = tuple(-n for n in version_key(dev.driver_version))
    return (is_simulator(platform), rank, cpu_rank if kind == "CPU" else 0, newer)


def _usable(pairs: list[tuple]) -> list[tuple]:
    return [pair for pair in pairs if usability(*pair)[0]]


def _best(pairs: list[tuple], workload: str | None = None, what: str = "device"):
    """The best usable device of ``pairs``; DeviceUnusableError when none is usable."""
    order = CPU_PREFERENCE_BY_WORKLOAD.get(workload, CPU_PREFERENCE)
    usable = _usable(pairs)
    if usable:
        return min(usable, key=lambda pair: _preference(pair, order))[1]
    first = min(pairs, key=lambda pair: _preference(pair, order))
    raise DeviceUnusableError(f"{what}: {usability(*first)[1]}")


def cpu_defaults() -> dict[str, str]:
    """The CPU implementation each workload runs on by default here (usable ones only):
    ``{"permutation": "pocl 3.1+debian", ...}``, ``"*"`` for every other workload."""
    cpus = [pair for pair in _usable(device_pairs()) if type_name(pair[1]) == "CPU"
            and not is_simulator(pair[0])]
    out = {}
    for workload in ("*", *CPU_PREFERENCE_BY_WORKLOAD):
        if cpus:
            dev = _best(cpus, None if workload == "*" else workload)
            out[workload] = describe(dev).implementation
    return out


def _match(spec: str, pairs: list[tuple], what: str):
    spec = spec.strip()
    if spec.lstrip("-").isdigit():
        i = int(spec)
        if not 0 <= i < len(pairs):
            raise NoDeviceError(
                f"{what}={spec!r}: no device with that index; there are {len(pairs)}:\n"
                + _listing()
            )
        ok, problem = usability(*pairs[i])
        if not ok:
            raise DeviceUnusableError(f"{what}={spec!r}: {problem}")
        return pairs[i][1]
    needle = spec.lower()
    if needle in ALIASES:
        field_, values = ALIASES[needle]
        if field_ == "type":
            found = [(p, d) for p, d in pairs if type_name(d) in values
                     and not (is_simulator(p) and needle != "oclgrind")]
        else:
            found = [(p, d) for p, d in pairs if any(v in p.name.lower() for v in values)]
        if found:
            return _best(found, what=f"{what}={spec!r}")
        raise NoDeviceError(f"{what}={spec!r} matches no device. Devices:\n" + _listing())
    found = [(p, d) for p, d in pairs
             if needle in f"{p.name} | {d.name} | {type_name(d)}".lower()]
    if found:
        return _best(found, what=f"{what}={spec!r}")
    raise NoDeviceError(f"{what}={spec!r} matches no device. Devices:\n" + _listing())


def _listing() -> str:
    try:
        return "\n".join(f"  {d}" for d in devices())
    except NoDeviceError as exc:
        return f"  ({exc})"


def _from_pyopencl_ctx(spec: str, pairs: list[tuple]):
    parts = spec.split(":")
    platforms = []
    for p, _ in pairs:
        if p not in platforms:
            platforms.append(p)
    pspec = parts[0].strip()
    if pspec.isdigit():
        if int(pspec) >= len(platforms):
            raise NoDeviceError(f"PYOPENCL_CTX={spec!r}: no platform {pspec}")
        platform = platforms[int(pspec)]
    elif pspec:
        found = [p for p in platforms if pspec.lower() in p.name.lower()]
        if not found:
            raise NoDeviceError(f"PYOPENCL_CTX={spec!r} matches no platform")
        platform = found[0]
    else:
        platform = platforms[0]
    devs = [d for p, d in pairs if p == platform]
    dspec = parts[1].strip() if len(parts) > 1 else ""
    if not dspec:
        return devs[0]
    if dspec.isdigit():
        if int(dspec) >= len(devs):
            raise NoDeviceError(f"PYOPENCL_CTX={spec!r}: platform has no device {dspec}")
        return devs[int(dspec)]
    found = [d for d in devs if dspec.lower() in d.name.lower()]
    if not found:
        raise NoDeviceError(f"PYOPENCL_CTX={spec!r} matches no device")
    return found[0]


def select_device(device=None, workload: str | None = None):
    """The ``pyopencl.Device`` that ``device=`` (or the environment) designates; with
    ``device=None`` and no environment setting, the best device for ``workload`` (a key of
    :data:`CPU_PREFERENCE_BY_WORKLOAD`; it only orders CPU implementations)."""
    if isinstance(device, Runtime):
        return device.device
    if cl is not None and isinstance(device, cl.Device):
        return device
    pairs = device_pairs()
    if isinstance(device, DeviceInfo):
        return _match(str(device.index), pairs, "device")
    if isinstance(device, (int, np.integer)) and not isinstance(device, bool):
        return _match(str(int(device)), pairs, "device")
    if isinstance(device, str):
        return _match(device, pairs, "device")
    if device is not None:
        raise TypeError(
            "device must be None, an index, a name substring, a DeviceInfo, a pyopencl.Device "
            f"or a Runtime; got {type(device).__name__}"
        )
    env = os.environ.get("OCLSTAT_DEVICE", "").strip()
    if env:
        return _match(env, pairs, "OCLSTAT_DEVICE")
    ctx = os.environ.get("PYOPENCL_CTX", "").strip()
    if ctx:
        return _from_pyopencl_ctx(ctx, pairs)
    real = [pair for pair in pairs if not is_simulator(pair[0])]
    if not real:
        raise NoDeviceError("only a simulator (oclgrind) is present, and oclstat never chooses "
                            f"one by default: pass device='oclgrind'. {HOW_TO_GET_A_DEVICE}")
    if not _usable(real):
        problems = "; ".join(sorted({usability(*pair)[1] for pair in real}))
        raise DeviceUnusableError(f"no usable OpenCL device: {problems}")
    return _best(real, workload)
