"""Timing helpers shared by the benchmarks: medians, device time, bandwidth floors, tables."""

from __future__ import annotations

import os
import statistics
import time
from datetime import date
from pathlib import Path

import numpy as np


def shared_data(*parts: str) -> Path:
    """A folder or file of the shared real data: under ``$OCLSTAT_SHARED_DATA`` when set (a copy
    carried to a machine where ``../shared`` is absent, such as the lent GPU), else
    ``../shared/data`` beside the checkout. The path may not exist; callers check."""
    root = os.environ.get("OCLSTAT_SHARED_DATA")
    base = Path(root) if root else Path(__file__).resolve().parents[2] / "shared" / "data"
    return base.joinpath(*parts)


def median_time(fn, repeat: int = 5, warmup: int = 1) -> float:
    """Median wall time of ``fn()`` in seconds (after ``warmup`` untimed calls)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def median_device_time(rt, fn, repeat: int = 5, warmup: int = 1) -> float:
    """Median device time (sum of OpenCL profiling events) of the kernels ``fn()`` launches."""
    for _ in range(warmup):
        fn()
    rt.finish()
    times = []
    for _ in range(repeat):
        with rt.profile() as prof:
            fn()
        times.append(prof.seconds)
    return statistics.median(times)


def write_bandwidth(rt, nbytes: int = 1 << 28) -> float:
    """Measured write bandwidth of the device in bytes/s (clEnqueueFillBuffer of ``nbytes``)."""
    import pyopencl as cl

    nbytes = min(nbytes, rt.info.max_alloc // 2)
    buf = rt.empty(nbytes)
    pattern = np.zeros(1, dtype=np.float32)
    best = float("inf")
    for _ in range(5):
        ev = cl.enqueue_fill_buffer(rt.queue, buf, pattern, 0, nbytes)
        ev.wait()
        best = min(best, (ev.profile.end - ev.profile.start) * 1e-9)
    return nbytes / best


def copy_bandwidth(rt, nbytes: int = 1 << 28) -> float:
    """Measured device-to-device copy bandwidth (bytes read + written per second)."""
    import pyopencl as cl

    nbytes = min(nbytes, rt.info.max_alloc // 2)
    a, b = rt.empty(nbytes), rt.empty(nbytes)
    best = float("inf")
    for _ in range(5):
        ev = cl.enqueue_copy(rt.queue, b, a, byte_count=nbytes)
        ev.wait()
        best = min(best, (ev.profile.end - ev.profile.start) * 1e-9)
    return 2 * nbytes / best


def host_lines() -> list[str]:
    """What a ratio measured on this machine depends on: the CPU's model and vector
    extensions, and every OpenCL implementation present with its version and state."""
    from oclstat._runtime import NoDeviceError, host_line, host_report

    try:
        lines = host_report()
    except NoDeviceError as exc:
        lines = [host_line(), f"OpenCL: {exc}"]
    return [f"# {line}" for line in lines] + [f"# {os.cpu_count()} CPUs; date: {date.today()}"]


def blas_line() -> str:
    """The BLAS numpy runs and the kernel it chose for this CPU (threadpoolctl), and whether
    an environment variable pins that choice (a peer measured at its fastest has none)."""
    pinned = [f"{k}={os.environ[k]}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
              if k in os.environ]
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        found = "threadpoolctl not installed (pip install 'oclstat[bench]')"
    else:
        found = "; ".join(f"{i.get('internal_api')} {i.get('version')} kernel "
                          f"{i.get('architecture')}, {i.get('num_threads')} threads"
                          for i in threadpool_info() if i.get("user_api") == "blas") or "none"
    return (f"# numpy's BLAS: {found}; "
            + (f"PINNED by {' '.join(pinned)}" if pinned else "kernel chosen by the library"))


def header(rt, title: str) -> str:
    """A benchmark's first lines: its title, the device it measures and :func:`host_lines`."""
    return "\n".join([f"# {title}",
                      f"# device: {rt.info.label} ({rt.info.type}, {rt.info.compute_units} CUs)",
                      *host_lines()])


def table(rows: list[dict], columns: list[str]) -> str:
    """A plain fixed-width table of ``rows`` (dicts) with the given columns."""
    text = [[str(r.get(c, "")) for c in columns] for r in rows]
    widths = [max(len(c), *(len(t[i]) for t in text)) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(t, widths, strict=True)) for t in text]
    return "\n".join(out)


def clock_hz(rt) -> float:
    """The device's clock (OpenCL's, else the host's for a CPU device, else 2 GHz)."""
    mhz = rt.device.max_clock_frequency
    if not mhz and rt.is_cpu:
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("cpu MHz"):
                    mhz = float(line.split(":")[1])
                    break
        except OSError:
            pass
    return (mhz or 2000.0) * 1e6
