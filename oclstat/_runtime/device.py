"""Device discovery: every OpenCL device present, what it offers, and whether it works.

An implementation is proven usable before it is chosen. The first time a device is described
on a machine, a tiny kernel is built and run on it (:func:`probe`); a device that fails is
listed with the reason and the fix (:attr:`DeviceInfo.problem`) and is never a default. The
outcome is kept in oclstat's cache folder beside pyopencl's kernel cache (``OCLSTAT_CACHE_DIR``,
else the user's cache folder), keyed by platform, device, driver version, the CPU and the
environment variables that change how an implementation compiles (``POCL_*``,
``CL_CONFIG_*``), so later processes read it instead of building.

>>> import oclstat
>>> all(d.usable or d.problem for d in oclstat.devices())
True
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform as host_platform
import re
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import HOW_TO_GET_A_DEVICE, NoDeviceError
from .icd import IMPORT_ERROR, cl, release_icd_dir
from .switches import flag

#: Platforms that simulate a device (never chosen unless named).
SIMULATORS = ("oclgrind",)
#: Environment variables whose values change how an implementation compiles (part of the
#: probe's cache key).
BUILD_ENVIRONMENT = ("POCL_", "CL_CONFIG_", "OCLGRIND_")
#: The probe: a kernel every OpenCL implementation must build and run. It also writes the
#: width, in bytes, of the vector registers its compiler targets, from the target's macros
#: (clang's: pocl), or 0 where the compiler defines none (Intel's).
PROBE_SOURCE = """__kernel void oclstat_probe(__global uint *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n) out[i] = 3u * i + 1u;
    if (i == 0u) {
#if defined(__AVX512F__)
        out[n] = 64u;
#elif defined(__AVX__)
        out[n] = 32u;
#elif defined(__SSE2__) || defined(__ARM_NEON)
        out[n] = 16u;
#else
        out[n] = 0u;
#endif
    }
}
"""
PROBE_ITEMS = 64


@dataclass(frozen=True)
class DeviceInfo:
    """What oclstat knows about one OpenCL device (see :func:`devices`).

    ``usable`` is False when the device failed oclstat's probe (a tiny kernel built and run
    once per implementation, driver and CPU); ``problem`` then says why and what to do.
    """

    index: int
    platform: str
    name: str
    type: str
    compute_units: int
    global_mem: int
    max_alloc: int
    local_mem: int
    max_work_group_size: int
    fp64: bool
    version: str
    driver: str
    usable: bool = True
    problem: str = ""
    #: the vector registers the device's compiler targets, in bytes (64 with AVX-512, 32 with
    #: AVX2): from the probe's target macros, else the device's native vector width
    simd_bytes: int = 0

    @property
    def label(self) -> str:
        """``"platform | device"``, the string device substrings are matched against."""
        return f"{self.platform} | {self.name}"

    @property
    def simulator(self) -> bool:
        """Whether the device is a simulator (oclgrind): correct, slow, never a default."""
        return any(s in self.platform.lower() for s in SIMULATORS)

    @property
    def implementation(self) -> str:
        """The OpenCL implementation and its version, e.g. ``"pocl 3.1+debian"``."""
        return implementation_name(self.platform, self.driver)

    def __str__(self) -> str:
        gib = 2.0**30
        text = (
            f"[{self.index}] {self.type:<4} {self.label}  ({self.compute_units} CUs, "
            f"{self.global_mem / gib:.1f} GiB, max alloc {self.max_alloc / gib:.1f} GiB, "
            f"fp64 {'yes' if self.fp64 else 'no'}; {self.implementation})"
        )
        return text if self.usable else f"{text}\n      UNUSABLE: {self.problem}"


# ----------------------------------------------------------------------------- discovery


def require_pyopencl() -> None:
    if cl is None:
        raise NoDeviceError(f"pyopencl cannot be imported ({IMPORT_ERROR}). {HOW_TO_GET_A_DEVICE}")


def platforms() -> list:
    require_pyopencl()
    try:
        found = cl.get_platforms()
    except (cl.Error, RuntimeError) as exc:
        raise NoDeviceError(f"no OpenCL platform found ({exc}). {HOW_TO_GET_A_DEVICE}") from exc
    finally:
        release_icd_dir()
    if not found:
        raise NoDeviceError(f"no OpenCL platform found. {HOW_TO_GET_A_DEVICE}")
    return found


def type_name(dev) -> str:
    t = dev.type
    if t & cl.device_type.GPU:
        return "GPU"
    if t & cl.device_type.ACCELERATOR:
        return "ACC"
    if t & cl.device_type.CPU:
        return "CPU"
    return "OTHER"


def device_pairs() -> list[tuple]:
    """All (platform, device) pairs in a stable order: platforms, then their devices."""
    pairs = []
    for plat in platforms():
        try:
            devs = plat.get_devices()
        except cl.Error:
            continue
        pairs.extend((plat, d) for d in devs)
    if not pairs:
        raise NoDeviceError(f"OpenCL platforms exist but expose no device. {HOW_TO_GET_A_DEVICE}")
    return pairs


def is_simulator(plat) -> bool:
    return any(s in plat.name.lower() for s in SIMULATORS)


def implementation_name(platform_name: str, driver: str) -> str:
    """A platform's common name and its driver version (``"pocl 3.0-rc2"``)."""
    lower = platform_name.lower()
    if "portable computing language" in lower:
        return f"pocl {driver}"
    if lower.startswith("intel(r) opencl") and "graphics" not in lower:
        return f"Intel OpenCL CPU runtime {driver}"
    if driver.lower().startswith(lower):
        return driver
    return f"{platform_name.strip()} {driver}"


def version_key(driver: str) -> tuple:
    """The numbers of a driver version, for "the newer first" (``"3.1+debian"`` > ``"3.0-rc2"``;
    a release candidate sorts below the release)."""
    numbers = tuple(int(n) for n in re.findall(r"\d+", driver.split("-rc")[0])[:3])
    return (*numbers, 0 if "-rc" in driver else 1)


def describe(dev, index: int | None = None) -> DeviceInfo:
    """The :class:`DeviceInfo` of a ``pyopencl.Device`` (its index in :func:`devices` found
    when not given), with the probe's verdict."""
    plat = dev.platform
    if index is None:
        index = next((i for i, (_, d) in enumerate(device_pairs()) if d == dev), -1)
    fp64 = (bool(dev.double_fp_config) or "cl_khr_fp64" in dev.extensions) and not flag(
        "OCLSTAT_NO_FP64")
    verdict = _verdict(plat, dev)
    simd = verdict["simd_bytes"] or 4 * int(dev.native_vector_width_float)
    return DeviceInfo(
        index=index,
        platform=plat.name.strip(),
        name=dev.name.strip(),
        type=type_name(dev),     # oclgrind claims every type: GPU, so it takes GPU paths
        compute_units=int(dev.max_compute_units),
        global_mem=int(dev.global_mem_size),
        max_alloc=int(dev.max_mem_alloc_size),
        local_mem=int(dev.local_mem_size),
        max_work_group_size=int(dev.max_work_group_size),
        fp64=fp64,
        version=dev.version.strip(),
        driver=dev.driver_version.strip(),
        usable=verdict["usable"],
        problem=str(verdict.get("problem", "")),
        simd_bytes=int(simd),
    )


def devices(usable: bool | None = None) -> list[DeviceInfo]:
    """Every OpenCL device present, in the order the indices of ``device=`` refer to.

    Parameters
    ----------
    usable : bool, optional
        True: only the devices that passed oclstat's probe (what a list of devices to run on
        should hold); False: only those that failed; None (default): all of them.

    Returns
    -------
    list of DeviceInfo
        One entry per device (index, platform, name, type, memory, fp64, implementation,
        usable and, where not, the problem and its fix), real devices and simulators alike;
        ``get_runtime()`` picks the default among the usable ones.

    See Also
    --------
    get_runtime : the runtime of one device.

    Notes
    -----
    Each implementation is proven before it is chosen: a tiny kernel is built and run on it
    once per implementation, driver version and CPU (the verdict is cached). PyPI's pocl 3.0
    (LLVM 14), for one, cannot compile for AMD Zen 5 CPUs; it is then listed as unusable, with
    the fix, and never chosen. Intel's OpenCL CPU runtime installed from PyPI is registered
    with the ICD loader when oclstat is imported (``OCLSTAT_REGISTER_ICDS=0`` turns that off),
    so it is listed beside pocl.

    References
    ----------
    .. [1] Khronos Group. The OpenCL Specification, version 3.0.

    Examples
    --------
    >>> import oclstat
    >>> all(d.index == i for i, d in enumerate(oclstat.devices()))
    True
    >>> all(d.usable for d in oclstat.devices(usable=True))
    True
    """
    found = [describe(d, i) for i, (_, d) in enumerate(device_pairs())]
    return found if usable is None else [d for d in found if d.usable == bool(usable)]


# ----------------------------------------------------------------------------- the probe

_VERDICTS: dict[str, dict] = {}
_VERDICTS_LOCK = threading.Lock()


def cache_dir() -> Path:
    """oclstat's cache folder: ``OCLSTAT_CACHE_DIR``, else ``oclstat`` in the user's cache
    folder (beside pyopencl's kernel cache)."""
    env = os.environ.get("OCLSTAT_CACHE_DIR", "").strip()
    if env:
        return Path(env)
    try:
        from platformdirs import user_cache_dir
    except ImportError:   # pragma: no cover - platformdirs comes with pyopencl
        return Path.home() / ".cache" / "oclstat"
    return Path(user_cache_dir("oclstat", False))


def cpu_model() -> str:
    """The host CPU's model name (and family/model numbers, where Linux tells them)."""
    fields = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "cpu family", "model") and key not in fields:
                fields[key] = value.strip()
            if len(fields) == 3:
                break
    if not fields:
        return host_platform.processor() or host_platform.machine()
    return (f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}, "
            f"model {fields.get('model', '?')})")


#: The vector extensions that decide how fast the kernels' CPU code is, in the order printed.
VECTOR_EXTENSIONS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                     "avx512_vnni", "avx512_vpopcntdq", "avx512_bitalg")


@functools.cache
def cpu_extensions() -> tuple[str, ...]:
    """The host CPU's vector extensions among :data:`VECTOR_EXTENSIONS` (Linux's flag names,
    from ``/proc/cpuinfo``; empty where the system does not say)."""
    flags: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "flags":
                flags = set(value.split())
                break
    return tuple(x for x in VECTOR_EXTENSIONS if x in flags)


def host_line() -> str:
    """One line naming the host CPU and its vector extensions (what CPU figures depend on)."""
    return (f"host CPU: {cpu_model()}; vector extensions: "
            f"{' '.join(cpu_extensions()) or 'not reported'}")


def host_report() -> list[str]:
    """:func:`host_line`, then every OpenCL device with its implementation's version and, for
    an unusable one, why: printed beside every benchmark's figures."""
    return [host_line()] + [f"OpenCL [{d.index}] {d.type} {d.implementation}: {d.name}"
                            + ("" if d.usable else f" (UNUSABLE: {d.problem})")
                            for d in devices()]


def _build_environment() -> str:
    items = sorted((k, v) for k, v in os.environ.items() if k.startswith(BUILD_ENVIRONMENT))
    return hashlib.sha1(repr(items).encode()).hexdigest()[:12]


def _key(plat, dev) -> str:
    return " | ".join([plat.name.strip(), plat.version.strip(), dev.name.strip(),
                       dev.driver_version.strip(), dev.version.strip(), cpu_model(),
                       _build_environment()])


def _reason(text: str) -> str:
    """The line of a driver's error that says what went wrong."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    pick = next((ln for ln in lines if re.search(r"error|invalid", ln, re.I)
                 and not ln.startswith("clBuildProgram failed")), None)
    pick = pick or (lines[0] if lines else "no message")
    return pick if len(pick) <= 160 else pick[:157] + "..."


def probe(dev) -> tuple[str, int]:
    """Build and run :data:`PROBE_SOURCE` on ``dev``: ("" when it works, else the reason; the
    vector register bytes its compiler targets, 0 when not said)."""
    try:
        ctx = cl.Context([dev])
        queue = cl.CommandQueue(ctx, dev)
        with warnings.catch_warnings():     # a driver's notes on a build that worked
            warnings.simplefilter("ignore")
            program = cl.Program(ctx, PROBE_SOURCE).build(cache_dir=False)
        out = np.zeros(PROBE_ITEMS + 1, dtype=np.uint32)
        buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
        program.oclstat_probe(queue, (PROBE_ITEMS,), None, buf, np.uint32(PROBE_ITEMS))
        cl.enqueue_copy(queue, out, buf)
        queue.finish()
    except Exception as exc:   # noqa: BLE001 - any failure of the driver is the verdict, never a crash
        return _reason(str(exc)), 0
    want = 3 * np.arange(PROBE_ITEMS, dtype=np.uint32) + 1
    if not np.array_equal(out[:PROBE_ITEMS], want):
        return "the probe kernel ran but wrote wrong numbers", 0
    return "", int(out[PROBE_ITEMS]) if out[PROBE_ITEMS] in (16, 32, 64) else 0


def fix_for(platform_name: str, driver: str, reason: str) -> str:
    """The one line a user reads: which implementation fails, why, and what to do."""
    name = implementation_name(platform_name, driver)
    if "portable computing language" in platform_name.lower():
        old = version_key(driver) < (3, 1)
        what = (f"{name} (PyPI's pocl-binary-distribution, LLVM 14)" if old else name)
        if re.search(r"target cpu|target-cpu '|unknown cpu", reason, re.I):
            return (f"{what} cannot compile for this CPU ({reason}): install Debian's "
                    "pocl-opencl-icd (apt-get install pocl-opencl-icd), or use --device intel "
                    "(pip install \"oclstat[intel]\")")
        return (f"{what} cannot build kernels here ({reason}): check the POCL_* environment "
                + ("variables, install Debian's pocl-opencl-icd" if old else "variables")
                + ", or use --device intel (pip install \"oclstat[intel]\")")
    return (f"{name} cannot build kernels here ({reason}): update the driver, or choose "
            "another device (oclstat devices)")


def _read_cache(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _write_cache(path: Path, key: str, verdict: dict) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        entries = _read_cache(path)
        entries[key] = verdict
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entries, indent=1, sort_keys=True))
        os.replace(tmp, path)


def _verdict(plat, dev) -> dict:
    """The probe's verdict on a device (usable, problem, reason, simd_bytes): from this
    process, the cache folder, or a new probe (then cached)."""
    key = _key(plat, dev)
    with _VERDICTS_LOCK:
        if key in _VERDICTS:
            return _VERDICTS[key]
        path = cache_dir() / "usability.json"
        cached = _read_cache(path).get(key)
        if (isinstance(cached, dict) and isinstance(cached.get("usable"), bool)
                and isinstance(cached.get("simd_bytes"), int)):
            verdict = cached
        else:
            reason, simd = probe(dev)
            problem = fix_for(plat.name.strip(), dev.driver_version.strip(), reason) \
                if reason else ""
            verdict = {"usable": not reason, "problem": problem, "reason": reason,
                       "simd_bytes": simd}
            _write_cache(path, key, verdict)
        _VERDICTS[key] = verdict
        return verdict


def usability(plat, dev) -> tuple[bool, str]:
    """(usable, problem) of a device: the probe's verdict (:func:`_verdict`)."""
    verdict = _verdict(plat, dev)
    return verdict["usable"], str(verdict.get("problem", ""))
