"""oclstat.random next to its peers, in one run, with the device's write-bandwidth floor.

    python benchmarks/bench_random.py [--device D] [--sizes small|full]

Every case writes n values; the floor is n * itemsize / (measured write bandwidth), the time no
generator can beat on that device. On a CPU device (pocl) the peer is numpy's default Generator
(PCG64; ziggurat normals) and times are wall times that include returning a numpy array. On a
GPU the oclstat figure is device time (OpenCL profiling events) of the draw into a device array,
and the peers are cupy.random and torch (CUDA events), when installed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, median_device_time, median_time, table, write_bandwidth

import oclstat
import oclstat.random as ocr


def _cuda_time(fn, sync, repeat=5):
    """Median time of fn() between CUDA events (cupy)."""
    import cupy as cp

    fn()
    sync()
    times = []
    for _ in range(repeat):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return float(np.median(times))


def gpu_peers(kind, n, dtype):
    """{peer name: seconds} for cupy and torch on the current CUDA device (those installed)."""
    peers = {}
    try:
        import cupy as cp

        gen = cp.random.default_rng(1) if hasattr(cp.random, "default_rng") else None
        cdt = cp.float64 if dtype == np.float64 else cp.float32
        if kind == "normal":
            peers["cupy.random.standard_normal"] = _cuda_time(
                lambda: cp.random.standard_normal(n, dtype=cdt), cp.cuda.Device().synchronize
            )
        elif kind == "uniform":
            peers["cupy.random.random"] = _cuda_time(
                lambda: cp.random.random(n, dtype=cdt), cp.cuda.Device().synchronize
            )
        del gen
        cp.get_default_memory_pool().free_all_blocks()
    except ImportError:
        pass
    try:
        import cupy as cp
        import torch

        tdt = torch.float64 if dtype == np.float64 else torch.float32
        out = torch.empty(n, dtype=tdt, device="cuda")
        fill = out.normal_ if kind == "normal" else out.uniform_
        peers[f"torch.{'normal_' if kind == 'normal' else 'uniform_'}"] = _cuda_time(
            fill, torch.cuda.synchronize
        )
        del out
        torch.cuda.empty_cache()
    except ImportError:
        pass
    return peers


def run_case(rt, kind, n, dtype, bandwidth, streams):
    fn = {"normal": ocr.normal, "uniform": ocr.uniform, "exponential": ocr.exponential}[kind]
    itemsize = np.dtype(dtype).itemsize
    floor = n * itemsize / bandwidth
    row = {"case": f"{kind} {np.dtype(dtype).name} n={n:.0e}", "floor_ms": f"{floor * 1e3:.3f}"}
    if rt.is_cpu:
        t = median_time(lambda: fn(n, streams=streams, dtype=dtype, device=rt), repeat=5)
        gen = np.random.default_rng(1)
        peer = {
            "normal": lambda: gen.standard_normal(n, dtype=dtype),
            "uniform": lambda: gen.random(n, dtype=dtype),
            "exponential": lambda: gen.standard_exponential(n, dtype=dtype),
        }[kind]
        tp = median_time(peer, repeat=5)
        peers = {"numpy Generator": tp}
        row["oclstat_ms"] = f"{t * 1e3:.2f} (wall)"
    else:
        import pyopencl.array as cla

        out = cla.empty(rt.queue, n, dtype)
        t = median_device_time(
            rt, lambda: fn(n, streams=streams, dtype=dtype, device=rt, out=out), repeat=5
        )
        del out
        peers = gpu_peers(kind, n, dtype)
        row["oclstat_ms"] = f"{t * 1e3:.3f} (device)"
    row["of_floor"] = f"{floor / t:.0%}"
    rows = []
    for name, tp in peers.items() or [("(no peer installed)", float("nan"))]:
        r = dict(row)
        r["peer"] = name
        r["peer_ms"] = f"{tp * 1e3:.3f}"
        r["peer/oclstat"] = f"{tp / t:.2f}x"
        rows.append(r)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--sizes", choices=["small", "full"], default=None,
                    help="small: 1e7 draws; full: also 1e8 normals and 1e9 float32 uniforms "
                         "(default: full on a GPU, small on a CPU)")
    args = ap.parse_args(argv)
    rt = oclstat.get_runtime(args.device)
    sizes = args.sizes or ("small" if rt.is_cpu else "full")
    print(header(rt, "bench_random: oclstat.random vs peers"))
    bw = write_bandwidth(rt)
    print(f"# measured write bandwidth: {bw / 1e9:.1f} GB/s (floor = bytes written / this)")
    streams = ocr.create_streams(ocr.MAX_DEFAULT_STREAMS, on_device=True, device=rt)
    cases = [("normal", 10**7, np.float64), ("uniform", 10**7, np.float64),
             ("normal", 10**7, np.float32), ("uniform", 10**7, np.float32),
             ("exponential", 10**7, np.float64)]
    if sizes == "full":
        cases += [("normal", 10**8, np.float64), ("uniform", 10**9, np.float32)]
    rows = []
    for kind, n, dtype in cases:
        if n * np.dtype(dtype).itemsize > rt.info.max_alloc and not rt.is_cpu:
            print(f"# skip {kind} n={n}: exceeds the device's max allocation")
            continue
        rows += run_case(rt, kind, n, dtype, bw, streams)
    print(table(rows, ["case", "oclstat_ms", "floor_ms", "of_floor", "peer", "peer_ms",
                       "peer/oclstat"]))
    print(stream_count_table(rt))
    return 0


def stream_count_table(rt, n=10**7):
    """10^7 float64 normals from few and from many streams: the time should not depend on the
    stream count (the target: 256 streams within 1.3x of 2^18)."""
    rows, base = [], None
    for n_streams in (2**18, 4096, 256, 16):
        st = ocr.create_streams(n_streams, seed=1, on_device=True, device=rt)
        if rt.is_cpu:
            t = min(median_time(lambda st=st: ocr.normal(n, streams=st, device=rt), repeat=5)
                    for _ in range(2))
        else:
            import pyopencl.array as cla

            out = cla.empty(rt.queue, n, np.float64)
            t = median_device_time(
                rt, lambda st=st, out=out: ocr.normal(n, streams=st, device=rt, out=out), repeat=5)
            del out
        base = base or t
        rows.append({"streams": f"{n_streams:,}", "oclstat_ms": f"{t * 1e3:.1f}",
                     "vs 2^18 streams": f"{t / base:.2f}x"})
    return "# 10^7 float64 normals by stream count\n" + table(
        rows, ["streams", "oclstat_ms", "vs 2^18 streams"])


if __name__ == "__main__":
    sys.exit(main())
