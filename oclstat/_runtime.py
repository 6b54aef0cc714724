"""The OpenCL runtime: the only module that touches pyopencl.

It finds devices, chooses one, keeps one context and one in-order queue per device, builds each
kernel file once per (device, file, build options) with ``cl_kernels/include`` on the include
path, and launches kernels. Capability modules ask it for a :class:`Runtime` and never import
pyopencl themselves.

Device choice, first match wins:

1. the ``device=`` argument: an index into :func:`devices`, a common name (``"pocl"``,
   ``"intel"``, ``"nvidia"``/``"cuda"``, ``"amd"``/``"rocm"``, ``"oclgrind"``, ``"cpu"``,
   ``"gpu"``), a case-insensitive substring of "platform | device name | type", a
   :class:`DeviceInfo`, a ``pyopencl.Device`` or a :class:`Runtime`;
2. the environment variable ``OCLSTAT_DEVICE`` (index, name or substring, as above);
3. ``PYOPENCL_CTX`` (pyopencl's ``"platform[:device]"``, each part an index or a substring);
4. the first GPU, then the first accelerator, then the fastest CPU implementation
   (:data:`CPU_PREFERENCE`). A simulator (oclgrind) is never chosen unless named.

A name or substring that several devices match picks the best of them in the same order.
Nothing here ever prompts.

**OpenCL implementations installed from PyPI.** pocl and oclgrind register themselves in
pyopencl's own ICD directory. Intel's CPU runtime (``pip install "oclstat[intel]"``, the
packages ``intel-opencl-rt`` and ``intel-cmplr-lib-rt``) installs ``lib/libintelocl.so`` into the
environment; at import, before pyopencl looks for platforms, this module makes the ICD loader
see it (``OCL_ICD_VENDORS`` pointed at a directory holding its ICD file and copies of the
system's, so nothing already registered is hidden). Set ``OCLSTAT_REGISTER_ICDS=0`` to skip.

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

>>> import oclstat
>>> rt = oclstat.get_runtime()          # the best device present
>>> rt.info.name != ""
True
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import site
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._constants import KERNEL_DEFINES

#: ICD libraries that PyPI packages install into an environment's ``lib/`` folder.
_PIP_ICD_LIBRARIES = ("libintelocl.so",)


def _pip_icd_libraries() -> list[Path]:
    """The OpenCL implementations installed from PyPI into this environment (or the user's)."""
    bases = [Path(sys.prefix)]
    with contextlib.suppress(Exception):
        bases.append(Path(site.getuserbase()))
    found = []
    for base in bases:
        for name in _PIP_ICD_LIBRARIES:
            lib = base / "lib" / name
            if lib.is_file() and lib.resolve() not in {f.resolve() for f in found}:
                found.append(lib)
    return found


def _write_atomically(path: Path, text: str) -> None:
    if path.is_file() and path.read_text() == text:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def register_pip_icds() -> Path | None:
    """Make the ICD loader see OpenCL implementations installed from PyPI (see the module
    docstring). Returns the vendors directory it set up, or None when nothing was needed.
    Must run before pyopencl first lists platforms; importing oclstat does it."""
    if os.environ.get("OCLSTAT_REGISTER_ICDS", "1").strip() == "0":
        return None
    libs = _pip_icd_libraries()
    current = os.environ.get("OCL_ICD_VENDORS", "").strip()
    if not libs or current.endswith(".icd"):       # the user named one ICD file: respect it
        return None
    source = Path(current or "/etc/OpenCL/vendors")
    existing = {}
    if source.is_dir():
        for icd in sorted(source.glob("*.icd")):
            with contextlib.suppress(OSError):
                existing[icd.name] = icd.read_text()
    wanted = [lib for lib in libs
              if not any(lib.name in text for text in existing.values())]
    if not wanted:
        return None
    key = hashlib.sha1(f"{source}|{existing}|{wanted}".encode()).hexdigest()[:16]
    target = Path(tempfile.gettempdir()) / f"oclstat-icd-{os.getuid()}-{os.getpid()}-{key}"
    try:
        target.mkdir(mode=0o755, exist_ok=True)
        for name, text in existing.items():
            _write_atomically(target / name, text)
        for lib in wanted:
            _write_atomically(target / f"oclstat-{lib.stem}.icd", f"{lib.resolve()}\n")
    except OSError as exc:
        warnings.warn(f"oclstat could not register {', '.join(map(str, wanted))} with the "
                      f"OpenCL ICD loader ({exc})", RuntimeWarning, stacklevel=2)
        return None
    _ICD_DIR.update(path=target, previous=os.environ.get("OCL_ICD_VENDORS"))
    os.environ["OCL_ICD_VENDORS"] = str(target)
    return target


#: The vendors directory this process made (removed once the ICD loader has read it).
_ICD_DIR: dict = {}


def _release_icd_dir() -> None:
    """After the ICD loader has listed the platforms (it reads the vendors directory once per
    process): put OCL_ICD_VENDORS back as it was, so child processes register again, and
    remove the directory, so nothing is left in the temporary folder."""
    path = _ICD_DIR.pop("path", None)
    if path is None:
        return
    previous = _ICD_DIR.pop("previous", None)
    if os.environ.get("OCL_ICD_VENDORS") == str(path):
        if previous is None:
            os.environ.pop("OCL_ICD_VENDORS", None)
        else:
            os.environ["OCL_ICD_VENDORS"] = previous
    shutil.rmtree(path, ignore_errors=True)


register_pip_icds()

try:  # pyopencl is a hard dependency, but give a helpful message if it is missing
    import pyopencl as cl

    _IMPORT_ERROR: Exception | None = None
except ImportError as exc:  # pragma: no cover - exercised only without pyopencl
    cl = None
    _IMPORT_ERROR = exc

HOW_TO_GET_A_DEVICE = (
    "oclstat needs an OpenCL platform. For the CPU, install pocl with "
    "`pip install \"oclstat[pocl]\"` (pyopencl's wheels bundle pocl); for a GPU, install the "
    "vendor's OpenCL driver (NVIDIA: the CUDA driver's libnvidia-opencl and an ICD file in "
    "/etc/OpenCL/vendors; AMD: ROCm; Intel: intel-opencl-icd). `oclstat devices` lists what is "
    "found."
)


class NoDeviceError(RuntimeError):
    """No usable OpenCL platform or device, or the requested device does not exist."""


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


#: Platforms that simulate a device (never chosen unless named).
SIMULATORS = ("oclgrind",)
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


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def schedule_setting() -> str:
    """``OCLSTAT_SCHEDULE``: "auto" (by device type), "cpu" or "gpu"."""
    value = os.environ.get("OCLSTAT_SCHEDULE", "").strip().lower() or "auto"
    if value not in ("auto", "cpu", "gpu"):
        raise ValueError(f"OCLSTAT_SCHEDULE must be auto, cpu or gpu, got {value!r}")
    return value


@dataclass(frozen=True)
class DeviceInfo:
    """What oclstat knows about one OpenCL device (see :func:`devices`)."""

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

    @property
    def label(self) -> str:
        """``"platform | device"``, the string device substrings are matched against."""
        return f"{self.platform} | {self.name}"

    @property
    def simulator(self) -> bool:
        """Whether the device is a simulator (oclgrind): correct, slow, never a default."""
        return any(s in self.platform.lower() for s in SIMULATORS)

    def __str__(self) -> str:
        gib = 2.0**30
        return (
            f"[{self.index}] {self.type:<4} {self.label}  ({self.compute_units} CUs, "
            f"{self.global_mem / gib:.1f} GiB, max alloc {self.max_alloc / gib:.1f} GiB, "
            f"fp64 {'yes' if self.fp64 else 'no'})"
        )


# ----------------------------------------------------------------------------- discovery


def _require_pyopencl() -> None:
    if cl is None:
        raise NoDeviceError(f"pyopencl cannot be imported ({_IMPORT_ERROR}). {HOW_TO_GET_A_DEVICE}")


def _platforms() -> list:
    _require_pyopencl()
    try:
        platforms = cl.get_platforms()
    except (cl.Error, RuntimeError) as exc:
        raise NoDeviceError(f"no OpenCL platform found ({exc}). {HOW_TO_GET_A_DEVICE}") from exc
    finally:
        _release_icd_dir()
    if not platforms:
        raise NoDeviceError(f"no OpenCL platform found. {HOW_TO_GET_A_DEVICE}")
    return platforms


def _type_name(dev) -> str:
    t = dev.type
    if t & cl.device_type.GPU:
        return "GPU"
    if t & cl.device_type.ACCELERATOR:
        return "ACC"
    if t & cl.device_type.CPU:
        return "CPU"
    return "OTHER"


def _device_list() -> list[tuple]:
    """All (platform, device) pairs in a stable order: platforms, then their devices."""
    pairs = []
    for platform in _platforms():
        try:
            devs = platform.get_devices()
        except cl.Error:
            continue
        pairs.extend((platform, d) for d in devs)
    if not pairs:
        raise NoDeviceError(f"OpenCL platforms exist but expose no device. {HOW_TO_GET_A_DEVICE}")
    return pairs


def _is_simulator(platform) -> bool:
    return any(s in platform.name.lower() for s in SIMULATORS)


def _info(index: int, platform, dev) -> DeviceInfo:
    fp64 = (bool(dev.double_fp_config) or "cl_khr_fp64" in dev.extensions) and not _flag(
        "OCLSTAT_NO_FP64")
    return DeviceInfo(
        index=index,
        platform=platform.name.strip(),
        name=dev.name.strip(),
        type=_type_name(dev),     # oclgrind claims every type: GPU, so it takes GPU paths
        compute_units=int(dev.max_compute_units),
        global_mem=int(dev.global_mem_size),
        max_alloc=int(dev.max_mem_alloc_size),
        local_mem=int(dev.local_mem_size),
        max_work_group_size=int(dev.max_work_group_size),
        fp64=fp64,
        version=dev.version.strip(),
        driver=dev.driver_version.strip(),
    )


def devices() -> list[DeviceInfo]:
    """Every OpenCL device present, in the order the indices of ``device=`` refer to.

    Returns
    -------
    list of DeviceInfo
        One entry per device (index, platform, name, type, memory, fp64, ...), real devices and
        simulators alike; ``get_runtime()`` picks the default among them.

    See Also
    --------
    get_runtime : the runtime of one device.

    Notes
    -----
    Intel's OpenCL CPU runtime installed from PyPI is registered with the ICD loader when
    oclstat is imported (``OCLSTAT_REGISTER_ICDS=0`` turns that off), so it is listed beside
    pocl.

    References
    ----------
    .. [1] Khronos Group. The OpenCL Specification, version 3.0.

    Examples
    --------
    >>> import oclstat
    >>> all(d.index == i for i, d in enumerate(oclstat.devices()))
    True
    """
    return [_info(i, p, d) for i, (p, d) in enumerate(_device_list())]


def _preference(pair, cpu_order=CPU_PREFERENCE) -> tuple:
    """Sort key of a device for default choices: real devices before simulators, GPUs, then
    accelerators, then CPUs in ``cpu_order``; ties keep the listing order."""
    platform, dev = pair
    kind = _type_name(dev)
    rank = {"GPU": 0, "ACC": 1, "CPU": 2}.get(kind, 3)
    pname = platform.name.lower()
    cpu_rank = next((i for i, c in enumerate(cpu_order) if c in pname), len(cpu_order))
    return (_is_simulator(platform), rank, cpu_rank if kind == "CPU" else 0)


def _best(pairs: list[tuple], workload: str | None = None):
    order = CPU_PREFERENCE_BY_WORKLOAD.get(workload, CPU_PREFERENCE)
    return min(pairs, key=lambda pair: _preference(pair, order))[1]


def _match(spec: str, pairs: list[tuple], what: str):
    spec = spec.strip()
    if spec.lstrip("-").isdigit():
        i = int(spec)
        if not 0 <= i < len(pairs):
            raise NoDeviceError(
                f"{what}={spec!r}: no device with that index; there are {len(pairs)}:\n"
                + _listing()
            )
        return pairs[i][1]
    needle = spec.lower()
    if needle in ALIASES:
        field_, values = ALIASES[needle]
        if field_ == "type":
            found = [(p, d) for p, d in pairs if _type_name(d) in values
                     and not (_is_simulator(p) and needle != "oclgrind")]
        else:
            found = [(p, d) for p, d in pairs if any(v in p.name.lower() for v in values)]
        if found:
            return _best(found)
        raise NoDeviceError(f"{what}={spec!r} matches no device. Devices:\n" + _listing())
    found = [(p, d) for p, d in pairs
             if needle in f"{p.name} | {d.name} | {_type_name(d)}".lower()]
    if found:
        return _best(found)
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
    pairs = _device_list()
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
    real = [pair for pair in pairs if not _is_simulator(pair[0])]
    if not real:
        raise NoDeviceError("only a simulator (oclgrind) is present, and oclstat never chooses "
                            f"one by default: pass device='oclgrind'. {HOW_TO_GET_A_DEVICE}")
    return _best(real, workload)


# ----------------------------------------------------------------------------- kernels on disk


def kernel_dir() -> Path:
    """The kernel sources: ``oclstat/cl_kernels`` (in a source tree a link to the top-level
    ``cl_kernels/``, in a wheel the copy the wheel carries): one lookup either way."""
    kdir = Path(__file__).resolve().parent / "cl_kernels"
    if not (kdir / "include" / "oclstat").is_dir():
        raise FileNotFoundError(f"oclstat's kernel sources are missing: {kdir} (a broken "
                                "install; reinstall oclstat)")
    return kdir


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](oclstat/[\w.]+)[>"]', re.M)


def kernel_source(filename: str) -> str:
    """The source of ``cl_kernels/<filename>`` with oclstat's headers written in place of their
    ``#include`` lines (``#line`` directives keep the compiler's file names and lines). No
    include path reaches the compiler, so a folder with a space in its name cannot break a
    build, and the source that is compiled (and cached) holds every header it uses."""
    kdir = kernel_dir()

    def expand(name: str, path: Path, depth: int) -> str:
        if depth > 16:
            raise RecursionError(f"{name}: headers include each other too deeply")
        text = path.read_text()
        out, pos = [], 0
        for m in _INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append(text[pos:m.start()])
            header = m.group(1)
            out.append(f'#line 1 "{header}"\n{expand(header, kdir / "include" / header, depth + 1)}'
                       f'\n#line {line + 1} "{name}"')
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)

    return expand(filename, kdir / filename, 0)


# ----------------------------------------------------------------------------- the runtime


class Profile:
    """Collects the events of kernels launched inside :meth:`Runtime.profile`."""

    def __init__(self) -> None:
        self.events: list = []
        self.names: list[str] = []

    def add(self, kernel, event) -> None:
        self.events.append(event)
        self.names.append(getattr(kernel, "function_name", "?"))

    @property
    def seconds(self) -> float:
        """Sum of device execution times (profiling events) of the kernels launched."""
        return sum(self.by_kernel().values())

    def by_kernel(self) -> dict[str, float]:
        """Device seconds per kernel name, largest first."""
        total: dict[str, float] = {}
        for name, ev in zip(self.names, self.events, strict=True):
            ev.wait()
            total[name] = total.get(name, 0.0) + (ev.profile.end - ev.profile.start) * 1e-9
        return dict(sorted(total.items(), key=lambda kv: -kv[1]))


#: Largest piece of one device fill (Runtime.fill).
FILL_PIECE = 1 << 30
#: A GPU schedule's limits: work-items per group and local memory per group.
GPU_MAX_GROUP = 256
GPU_LOCAL_MEM = 48 * 1024
#: Every (kernel file, defines, options) built in this process (for the resource and no-fp64
#: checks of the test-suite, which compile exactly what ran).
BUILT: set = set()


class Runtime:
    """One device with its context, queue and program cache. Get one with :func:`get_runtime`."""

    def __init__(self, device) -> None:
        _require_pyopencl()
        self.device = device
        self.context = cl.Context([device])
        self.queue = cl.CommandQueue(
            self.context, device, properties=cl.command_queue_properties.PROFILING_ENABLE
        )
        pairs = _device_list()
        index = next((i for i, (_, d) in enumerate(pairs) if d == device), -1)
        self.info = _info(index, device.platform, device)
        self._programs: dict = {}
        self._kernels: dict = {}
        self._lock = threading.RLock()
        self._profiles: list[Profile] = []
        self._transfer_queue = None

    def __repr__(self) -> str:
        return f"Runtime({self.info.label!r})"

    # -- capabilities ---------------------------------------------------------------------

    @property
    def is_cpu(self) -> bool:
        """Whether the device is a CPU (host memory is device memory: no copies needed)."""
        return self.info.type == "CPU"

    @property
    def builtin_popcount(self) -> bool:
        """Whether kernels count bits with the compiler's ``__builtin_popcountl`` rather than
        OpenCL's ``popcount``: on the clang-based CPU implementations, where ``popcount`` is
        an out-of-line library call (pocl) or compiles to slower code (Intel's)."""
        platform = self.info.platform.lower()
        return self.is_cpu and ("portable computing language" in platform
                                or "intel(r) opencl" in platform)

    @property
    def scalar_work_items(self) -> bool:
        """Whether each work-item of a kernel with data-dependent loops runs as scalar code
        (pocl's CPU drivers), rather than in SIMD lanes beside other work-items (GPUs, Intel's
        CPU runtime), where a lane that leaves a loop early waits for the slowest. Kernels
        then choose early exits over fewer, later tests (hypergeometric.clh). False in a GPU
        schedule, which takes the GPU's code paths everywhere."""
        platform = self.info.platform.lower()
        return (not self.gpu_schedule and self.is_cpu
                and "portable computing language" in platform)

    @property
    def gpu_schedule(self) -> bool:
        """Whether capabilities take their GPU code paths: on GPUs, accelerators and
        simulators, or anywhere with ``OCLSTAT_SCHEDULE=gpu`` (``cpu`` forces the CPU paths)."""
        setting = schedule_setting()
        if setting == "auto":
            return not self.is_cpu
        return setting == "gpu"

    @property
    def max_group(self) -> int:
        """Largest work-group size a GPU schedule may use: the device's, at most 256 (what
        every current GPU runs at full occupancy)."""
        return min(self.info.max_work_group_size, GPU_MAX_GROUP)

    @property
    def local_mem(self) -> int:
        """Local memory a kernel may use: the device's, at most 48 KiB in a GPU schedule (the
        default per work-group on NVIDIA GPUs)."""
        if self.gpu_schedule:
            return min(self.info.local_mem, GPU_LOCAL_MEM)
        return self.info.local_mem

    def require_fp64(self, what: str = "float64") -> None:
        """Raise :class:`DeviceCapabilityError` if the device has no double precision."""
        if not self.info.fp64:
            raise DeviceCapabilityError(
                f"{what} needs double precision, which device {self.info.label!r} does not "
                "support; pass dtype=numpy.float32 or choose another device (oclstat devices)"
            )

    def default_real(self) -> np.dtype:
        """float64 where the device has it, else float32."""
        return np.dtype(np.float64 if self.info.fp64 else np.float32)

    def real_defines(self, dtype) -> dict[str, str]:
        """Build defines for a kernel computing in ``dtype`` (float32 or float64)."""
        dt = np.dtype(dtype)
        if dt == np.float64:
            self.require_fp64("dtype=float64")
            return {"REAL": "double", "OCLSTAT_REAL_IS_DOUBLE": "1"}
        if dt == np.float32:
            return {"REAL": "float"}
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64, got {dt}")

    def lanes(self, dtype) -> int:
        """Streams per work-item for kernels built on ``lanes.clh``: 1 in a GPU schedule (one
        stream per work-item), a 256-bit SIMD register's worth on CPUs (4 doubles, 8 floats).
        The environment variable ``OCLSTAT_LANES`` overrides it (1, 2, 4, 8 or 16)."""
        env = os.environ.get("OCLSTAT_LANES", "").strip()
        if env:
            if env not in ("1", "2", "4", "8", "16"):
                raise ValueError(f"OCLSTAT_LANES must be 1, 2, 4, 8 or 16, got {env!r}")
            return int(env)
        if self.gpu_schedule:
            return 1
        return max(1, 32 // np.dtype(dtype).itemsize)

    def max_items(self, bytes_per_item: int, fraction: float = 0.5) -> int:
        """How many items of ``bytes_per_item`` fit in one buffer (``max_alloc``) and in the
        given fraction of global memory: the chunk size for work cut to fit the device."""
        limit = min(self.info.max_alloc, int(self.info.global_mem * fraction))
        return max(1, limit // max(1, int(bytes_per_item)))

    # -- programs -------------------------------------------------------------------------

    def program(self, filename: str, defines: dict | None = None, options: tuple = ()):
        """The built program for ``cl_kernels/<filename>`` with ``-D`` defines and extra build
        ``options`` (cached per file, defines and options)."""
        defines = dict(defines or {})
        if self.info.fp64:
            defines.setdefault("OCLSTAT_FP64", "1")
        key = (filename, tuple(sorted((k, str(v)) for k, v in defines.items())), tuple(options))
        with self._lock:
            prg = self._programs.get(key)
            if prg is not None:
                return prg
            source = kernel_source(filename)
            every = {**KERNEL_DEFINES, **dict(key[1])}
            options = [*key[2], *(f"-D{k}={v}" for k, v in sorted(every.items()))]
            try:
                with warnings.catch_warnings():        # its logs are read below instead
                    warnings.simplefilter("ignore", cl.CompilerWarning)
                    prg = cl.Program(self.context, source).build(options=options)
                self._warn_about(prg, filename)
            except cl.Error as exc:
                raise KernelBuildError(
                    f"building {filename} with {' '.join(options)} failed on "
                    f"{self.info.label}:\n{exc}", str(exc)
                ) from exc
            self._programs[key] = prg
            BUILT.add((filename, key[1], key[2]))
            return prg

    def _warn_about(self, prg, filename: str) -> None:
        """Show the compiler's warnings about ``filename`` (not its remarks or progress notes:
        Intel's compiler reports every vectorised loop) as :class:`KernelBuildWarning`."""
        try:
            log = prg.get_build_info(self.device, cl.program_build_info.LOG) or ""
        except cl.Error:
            return
        found = compiler_warnings(log)
        if found:
            warnings.warn(KernelBuildWarning(f"building {filename} on {self.info.label}: "
                                             + " | ".join(found[:5])), stacklevel=3)

    def kernel(self, filename: str, name: str, defines: dict | None = None, options: tuple = ()):
        """The kernel ``<file stem>_<name>`` of :meth:`program` (every kernel is named after its
        file: ``rt.kernel("random.cl", "fill_raw")`` is ``random_fill_raw``; cached)."""
        prg = self.program(filename, defines, options)
        with self._lock:
            key = (id(prg), name)
            k = self._kernels.get(key)
            if k is None:
                k = getattr(prg, f"{Path(filename).stem}_{name}")
                self._kernels[key] = k
            return k

    # -- buffers --------------------------------------------------------------------------

    def to_device(self, array: np.ndarray, writable: bool = True, share: bool = False):
        """A buffer holding a copy of ``array``. With ``share=True`` on a CPU device the
        buffer is ``array``'s own memory (``USE_HOST_PTR``, no copy): keep ``array`` alive
        and unchanged while kernels read it."""
        mf = cl.mem_flags
        arr = np.ascontiguousarray(array)
        place = mf.USE_HOST_PTR if share and self.is_cpu else mf.COPY_HOST_PTR
        flags = (mf.READ_WRITE if writable else mf.READ_ONLY) | place
        if arr.nbytes == 0:
            return self.empty(1)
        return cl.Buffer(self.context, flags, hostbuf=arr)

    def empty(self, nbytes: int):
        """An uninitialised read-write buffer of ``nbytes`` bytes (0xFF bytes with
        ``OCLSTAT_POISON=1``)."""
        if nbytes > self.info.max_alloc:
            raise DeviceCapabilityError(
                f"a buffer of {nbytes} bytes exceeds the device's max allocation "
                f"({self.info.max_alloc} bytes) on {self.info.label}"
            )
        buf = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, size=max(1, int(nbytes)))
        if _flag("OCLSTAT_POISON"):
            cl.enqueue_fill_buffer(self.queue, buf, np.full(1, 0xFF, dtype=np.uint8), 0,
                                   max(1, int(nbytes)))
        return buf

    def device_array(self, array, dtype, size: int, name: str = "out"):
        """The buffer of a ``pyopencl.array.Array`` the caller passed as ``out=``, after checking
        it is on this device's context, contiguous, of ``dtype`` and holds ``size`` elements."""
        import pyopencl.array as cl_array

        if not isinstance(array, cl_array.Array):
            raise TypeError(f"{name} must be a pyopencl.array.Array, got {type(array).__name__}")
        if array.context != self.context:
            raise ValueError(f"{name} lives in another OpenCL context than {self.info.label!r}")
        if array.dtype != np.dtype(dtype):
            raise TypeError(f"{name} must have dtype {np.dtype(dtype)}, got {array.dtype}")
        if array.size != size:
            raise ValueError(f"{name} must hold {size} elements, got {array.size}")
        if not (array.flags.c_contiguous or array.flags.f_contiguous):
            raise ValueError(f"{name} must be contiguous")
        return array.data

    def read(self, buffer, out: np.ndarray, wait_for=None) -> np.ndarray:
        """Copy ``buffer`` into the contiguous host array ``out`` (blocking).

        With ``wait_for`` (a launch's event), the copy waits for that launch only: it runs on a
        second queue, so launches queued after it keep the device busy meanwhile."""
        if not out.flags.c_contiguous:      # the copy would land in memory order, not index
            raise ValueError("Runtime.read needs a C-contiguous host array")
        if out.nbytes:
            if wait_for is None:
                cl.enqueue_copy(self.queue, out, buffer, is_blocking=True)
            else:
                cl.enqueue_copy(self.transfer_queue, out, buffer, is_blocking=True,
                                wait_for=[wait_for])
        return out

    @property
    def transfer_queue(self):
        """A second in-order queue on the device, for reads that must not wait for every
        launch queued so far (see :meth:`read`)."""
        with self._lock:
            if self._transfer_queue is None:
                self._transfer_queue = cl.CommandQueue(self.context, self.device)
            return self._transfer_queue

    @contextlib.contextmanager
    def writing_into(self, host: np.ndarray, scratch=None, *, update: bool = False):
        """A buffer for a kernel to fill whose contents are in ``host`` when the block exits.

        On CPU devices the buffer *is* ``host`` (``USE_HOST_PTR``, synchronised by a map): no
        copy. On GPUs it is ``scratch`` (if large enough) or a new buffer, copied back at exit.
        With ``update=True`` the buffer starts with ``host``'s contents (kernels working in
        place: on GPUs they are copied there first).
        """
        if host.nbytes == 0:
            yield scratch if scratch is not None else self.empty(1)
            return
        if not host.flags.c_contiguous:
            raise ValueError("writing_into needs a C-contiguous host array")
        if self.is_cpu:
            mf = cl.mem_flags
            access = mf.READ_WRITE if update else mf.WRITE_ONLY
            buf = cl.Buffer(self.context, access | mf.USE_HOST_PTR, hostbuf=host)
            yield buf
            mapped, _ = cl.enqueue_map_buffer(
                self.queue, buf, cl.map_flags.READ, 0, host.shape, host.dtype, is_blocking=True
            )
            mapped.base.release(self.queue)
            buf.release()
        else:
            buf = scratch if scratch is not None and scratch.size >= host.nbytes else None
            if buf is None:
                buf = self.empty(host.nbytes)
            if update:
                cl.enqueue_copy(self.queue, buf, host)
            yield buf
            self.read(buf, host)

    def fill(self, buffer, pattern: np.ndarray, nbytes: int) -> None:
        """Fill the first ``nbytes`` of ``buffer`` with ``pattern`` (e.g. zeros) on the device,
        in pieces of at most :data:`FILL_PIECE` bytes (one fill of more than 2^31 patterns
        stalled NVIDIA's OpenCL driver on an H200)."""
        step = FILL_PIECE - FILL_PIECE % pattern.nbytes
        for offset in range(0, int(nbytes), step):
            cl.enqueue_fill_buffer(self.queue, buffer, pattern, offset,
                                   min(step, int(nbytes) - offset))

    def write(self, buffer, array: np.ndarray) -> None:
        """Copy a contiguous host array into ``buffer`` (blocking)."""
        if array.nbytes:
            cl.enqueue_copy(self.queue, buffer, np.ascontiguousarray(array), is_blocking=True)

    # -- launches -------------------------------------------------------------------------

    def kernel_group_size(self, kernel) -> int:
        """The largest work-group size ``kernel`` can run with here (at most 256 in a GPU
        schedule)."""
        wg = int(kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE,
                                            self.device))
        return min(wg, self.max_group) if self.gpu_schedule else wg

    def local_size(self, kernel) -> int:
        """Work-group size for 1-D launches: 256 in a GPU schedule, 64 on CPUs (bounded by the
        kernel).

        It is fixed rather than left to the driver because pocl compiles a work-group function
        for every new local size it meets (a third of a second each)."""
        return int(min(self.max_group if self.gpu_schedule else 64, self.kernel_group_size(kernel)))

    def spread_local_size(self, kernel, n_items: int) -> int:
        """:meth:`local_size`, made smaller on a CPU when ``n_items`` would otherwise fill fewer
        than two work-groups per compute unit (a CPU runs one work-group per thread, so 32
        work-items in one group use one core). A power of two, so that pocl meets few sizes.

        >>> import oclstat
        >>> rt = oclstat.get_runtime()
        >>> k = rt.kernel("random.cl", "fill_raw", {"REAL": "float", "LANES": 1})
        >>> 1 <= rt.spread_local_size(k, 10) <= rt.local_size(k)
        True
        """
        size = self.local_size(kernel)
        if self.gpu_schedule:
            return size
        want = max(1, n_items // (2 * self.info.compute_units))
        while size > 1 and size > want:
            size //= 2
        return size

    @staticmethod
    def local_memory(nbytes: int):
        """A ``__local`` kernel argument of ``nbytes`` bytes."""
        return cl.LocalMemory(max(1, int(nbytes)))

    def launch(self, kernel, n_items: int, *args, local_size: int | None = None):
        """Run ``kernel`` over ``n_items`` work-items (1-D; the global size is rounded up to a
        multiple of the work-group size, kernels guard their index). Returns the event."""
        if n_items <= 0:
            return None
        lsize = local_size if local_size is not None else self.local_size(kernel)
        gsize = -(-n_items // lsize) * lsize
        with self._lock:      # a kernel's arguments are shared state: set and enqueue at once
            event = kernel(self.queue, (gsize,), (lsize,), *args)
        for prof in self._profiles:
            prof.add(kernel, event)
        return event

    def launch_nd(self, kernel, global_size: tuple, local_size: tuple, *args):
        """Run ``kernel`` over an N-D range; each global size is rounded up to a multiple of
        the local size (kernels guard their indices). Returns the event."""
        if any(g <= 0 for g in global_size):
            return None
        gsize = tuple(-(-g // lo) * lo for g, lo in zip(global_size, local_size, strict=True))
        with self._lock:
            event = kernel(self.queue, gsize, tuple(local_size), *args)
        for prof in self._profiles:
            prof.add(kernel, event)
        return event

    def finish(self) -> None:
        self.queue.finish()

    @contextlib.contextmanager
    def profile(self) -> Iterator[Profile]:
        """Record the kernels launched in this block; ``.seconds`` is their device time.

        >>> import oclstat, numpy as np
        >>> rt = oclstat.get_runtime()
        >>> with rt.profile() as prof:
        ...     _ = oclstat.random.uniform(1000, seed=1, device=rt)
        >>> prof.seconds > 0
        True
        """
        prof = Profile()
        self._profiles.append(prof)
        try:
            yield prof
        finally:
            self._profiles.remove(prof)


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
