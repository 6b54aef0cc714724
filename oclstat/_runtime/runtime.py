"""The :class:`Runtime`: one device's context, queues, programs, buffers and launches."""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .._constants import KERNEL_DEFINES
from .device import cpu_extensions, describe, require_pyopencl
from .errors import (
    DeviceCapabilityError,
    DeviceUnusableError,
    KernelBuildError,
    KernelBuildWarning,
    compiler_warnings,
)
from .icd import cl
from .sources import kernel_source
from .switches import flag, schedule_setting


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
        require_pyopencl()
        self.info = describe(device)
        if not self.info.usable:
            raise DeviceUnusableError(f"device {self.info.label!r}: {self.info.problem}")
        self.device = device
        self.context = cl.Context([device])
        self.queue = cl.CommandQueue(
            self.context, device, properties=cl.command_queue_properties.PROFILING_ENABLE
        )
        self._programs: dict = {}
        self._kernels: dict = {}
        self._lock = threading.RLock()
        self._profiles: list[Profile] = []
        self._transfer_queue = None
        self._vector_popcount: bool | None = None

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
    def vector_popcount(self) -> bool:
        """Whether kernels count bits eight words per instruction with AVX-512 VPOPCNTDQ
        (``EPI_VPOPCNT``, oclstat/popcount.clh): a CPU device on a host that has the
        extension, with pocl (clang's ``target`` attribute enables it for the counting
        functions alone: pocl 3.1 compiles for ``skylake-avx512`` on a Zen 4, PyPI's pocl 3.0
        for the host's CPU on an Intel Xeon, neither vectorising the count by itself),
        outside a GPU schedule, and only once a build of
        ``popcount.cl`` that way has counted as numpy does on this device (else never, with a
        :class:`KernelBuildWarning`). ``OCLSTAT_NO_VPOPCNT=1`` turns it off (tests compare
        the two)."""
        if self.gpu_schedule or not self.is_cpu or flag("OCLSTAT_NO_VPOPCNT"):
            return False
        if "portable computing language" not in self.info.platform.lower():
            return False
        if "avx512_vpopcntdq" not in cpu_extensions():
            return False
        with self._lock:
            if self._vector_popcount is None:
                self._vector_popcount = self._vector_popcount_counts()
        return self._vector_popcount

    @property
    def popcount_defines(self) -> dict:
        """The build defines of oclstat/popcount.clh for this device: how the epistasis kernels
        count bits (:attr:`builtin_popcount`, :attr:`vector_popcount`)."""
        out = {}
        if self.builtin_popcount:
            out["EPI_BUILTIN_POPCOUNT"] = 1
        if self.vector_popcount:
            out["EPI_VPOPCNT"] = 1
        return out

    def _vector_popcount_counts(self) -> bool:
        """Whether ``popcount.cl`` built with EPI_VPOPCNT runs and counts as numpy does."""
        rows, n = 3, 13                                   # a tail past the eight-word steps
        words = np.random.default_rng(0).integers(0, 2**63, size=(rows + 2, n),
                                                  dtype=np.uint64) * np.uint64(3)
        m, z0, z1 = words[:rows], words[rows], words[rows + 1]
        bits = np.unpackbits(np.stack([m & z0, m & z1], axis=1).view(np.uint8), axis=-1)
        expected = bits.sum(axis=-1, dtype=np.uint32).ravel()
        got = np.zeros(2 * rows, dtype=np.uint32)
        try:
            kernel = self.kernel("popcount.cl", "rows",
                                 {"EPI_VPOPCNT": 1, "EPI_BUILTIN_POPCOUNT": 1})
            out = self.to_device(got)
            self.launch(kernel, 1, self.to_device(m), np.uint32(rows), self.to_device(z0),
                        self.to_device(z1), np.uint32(n), out)
            self.read(out, got)
        except (KernelBuildError, cl.Error) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        else:
            if np.array_equal(got, expected):
                return True
            reason = f"counted {got.tolist()}, numpy {expected.tolist()}"
        warnings.warn(f"{self.info.label}: AVX-512 vpopcntq not used ({reason}); the epistasis "
                      "kernels count one word at a time", KernelBuildWarning, stacklevel=3)
        return False

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

    def lanes(self, dtype, register: bool = False, registers: int = 1) -> int:
        """Items per work-item for kernels that run several in vector registers: 1 in a GPU
        schedule; on CPUs 256 bits' worth of ``dtype`` (4 doubles, 8 floats: the streams of
        ``lanes.clh``, where wider lanes are slower for uniform draws), or with ``register``
        ``registers`` whole vector registers as the device's compiler targets them
        (:attr:`DeviceInfo.simd_bytes`: 8 doubles with AVX-512), for lanes that do heavy
        arithmetic per item (the fast pair test's logarithms and divisions; two registers let
        a core overlap two chains of long-latency divisions); at most 16. The environment
        variable ``OCLSTAT_LANES`` overrides both (1, 2, 4, 8 or 16)."""
        env = os.environ.get("OCLSTAT_LANES", "").strip()
        if env:
            if env not in ("1", "2", "4", "8", "16"):
                raise ValueError(f"OCLSTAT_LANES must be 1, 2, 4, 8 or 16, got {env!r}")
            return int(env)
        if self.gpu_schedule:
            return 1
        width = (self.info.simd_bytes or 32) * max(1, int(registers)) if register else 32
        return max(1, min(16, width // np.dtype(dtype).itemsize))

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
        if flag("OCLSTAT_POISON"):
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
