"""The Fisher test on an OpenCL device: random tables drawn by Patefield's algorithm
(cl_kernels/fisher.cl) in launches that adapt to the device, counts and statistics read back."""

from __future__ import annotations

import time

import numpy as np

from .._progress import Progress
from .._random.streams import check_stream_source, stream_buffer
from .plan import _TARGET_LAUNCH_S, _U32, _U64, MAX_STREAMS, _Margins, _pow2_at_least


def _run_rcont2(rt, margins: list[_Margins], thresholds: np.ndarray, n_resamples: int,
                logfact: np.ndarray, bits: int, *, seed, streams, dtype, store_stats: bool,
                store_tables: bool, progress, desc: str):
    """Draw ``n_resamples`` tables for each margin set (``logfact``, ``bits``: the fixed-point
    log-factorials of :func:`log_factorial_fixed` for the largest total); returns (counts
    per table, statistics or None, tables or None)."""
    k = len(margins)
    check_stream_source(seed, streams)
    if streams is not None:
        per_table = streams.n_streams // k
        if per_table < 1:
            raise ValueError(
                f"streams holds {streams.n_streams} streams; a batch of {k} tables needs at "
                "least one per table"
            )
    else:
        per_table = max(1, min(n_resamples, MAX_STREAMS // k))
    n_items = k * per_table

    nr_max = max(m.shape[0] for m in margins)
    nc_max = _pow2_at_least(max(m.shape[1] for m in margins))
    dims = np.zeros((k, 3), dtype=_U32)
    rows = np.zeros((k, nr_max), dtype=_U32)
    cols = np.zeros((k, nc_max), dtype=_U32)
    for t, m in enumerate(margins):
        nr, nc = m.shape
        dims[t] = (nr, nc, m.row_totals.sum())
        rows[t, :nr] = m.row_totals
        cols[t, :nc] = m.col_totals
    cells = int(max(nr * nc for nr, nc in (m.shape for m in margins)))

    defines = rt.real_defines(dtype)
    defines["NC_MAX"] = str(nc_max)
    lanes = _lanes(rt, dtype, nc_max, store_stats or store_tables)
    if lanes > 1:
        return _run_lanes(rt, lanes, defines, dims, rows, cols, thresholds, logfact, bits,
                          per_table, n_resamples, seed=seed, streams=streams, dtype=dtype,
                          progress=progress, desc=desc)
    group = None
    if rt.gpu_schedule and nc_max <= 64:      # column totals in local memory, not a stack
        defines["COLUMN_LOCAL"] = "1"
    if rt.scalar_work_items:                  # hypergeometric.clh: exits after each step
        defines["HYPER_EXIT_EACH_STEP"] = "1"
    options = () if dtype == np.float64 else ("-cl-fp32-correctly-rounded-divide-sqrt",)
    kernel = rt.kernel("fisher.cl", "rcont2_count", defines, options)
    if "COLUMN_LOCAL" in defines:
        group = rt.local_size(kernel)
        while group > 1 and group * nc_max * 4 > rt.local_mem:
            group //= 2
    col_local = rt.local_memory(4 * nc_max * (group or 1))

    states, user_streams, d_counts = _count_buffers(rt, n_items, seed, streams)
    d_dims = rt.to_device(dims, writable=False)
    d_rows = rt.to_device(rows, writable=False)
    d_cols = rt.to_device(cols, writable=False)
    d_logfact = rt.to_device(logfact, writable=False)
    d_threshold = rt.to_device(np.ascontiguousarray(thresholds, dtype=np.int64), writable=False)
    spill = rt.empty(n_items * nc_max * 4) if nc_max > 64 else rt.empty(4)
    scale = dtype.type(2.0**-bits)

    total_rounds = -(-n_resamples // per_table)
    bytes_per_round = 0
    if store_stats:
        bytes_per_round += k * per_table * 8
    if store_tables:
        bytes_per_round += per_table * cells * 4
    max_rounds = total_rounds
    if bytes_per_round:
        max_rounds = max(1, min(total_rounds, rt.max_items(bytes_per_round, fraction=0.25)))
    stats = np.empty((k, n_resamples), dtype=np.int64) if store_stats else None
    tables = np.empty((n_resamples, cells), dtype=_U32) if store_tables else None
    d_stats = rt.empty(max_rounds * k * per_table * 8) if store_stats else rt.empty(8)
    d_tables = rt.empty(max_rounds * per_table * cells * 4) if store_tables else rt.empty(4)
    store = _U32((1 if store_stats else 0) | (2 if store_tables else 0))

    def launch(round0, n_rounds, b0, b1):
        rt.launch(kernel, n_items, states, _U64(n_items), _U64(per_table),
                  _U64(n_resamples), _U64(round0), _U64(n_rounds), d_dims,
                  _U64(nr_max), d_rows, d_cols, d_logfact, scale, d_threshold, d_counts,
                  store, d_stats, d_tables, spill, col_local, local_size=group)
        if store_stats:
            chunk = np.empty((k, n_rounds * per_table), dtype=np.int64)
            rt.read(d_stats, chunk)
            stats[:, b0:b1] = chunk[:, : b1 - b0]
        if store_tables:
            chunk = np.empty((n_rounds * per_table, cells), dtype=_U32)
            rt.read(d_tables, chunk)
            tables[b0:b1] = chunk[: b1 - b0]
        rt.finish()

    _adaptive_rounds(launch, n_resamples, per_table, max_rounds, progress, desc)
    return _count_totals(rt, d_counts, user_streams, k, per_table), stats, tables


def _count_buffers(rt, n_items: int, seed, streams):
    """``(states, user_streams, counts)``: the streams of ``n_items`` work-items (from the
    seed, or the caller's streams, whose state moves on) and their zeroed 64-bit counts."""
    states, user_streams = stream_buffer(rt, n_items, seed=seed, streams=streams)
    return states, user_streams, rt.to_device(np.zeros(n_items, dtype=_U64))


def _count_totals(rt, d_counts, user_streams, k: int, per_table: int) -> np.ndarray:
    """Each table's count over its ``per_table`` streams (and the caller's streams told that
    their state moved on on the device)."""
    counts = np.empty(k * per_table, dtype=_U64)
    rt.read(d_counts, counts)
    if user_streams is not None:
        user_streams._device_changed()
    return counts.reshape(k, per_table).sum(axis=1).astype(np.int64)


def _adaptive_rounds(launch, n_resamples: int, per_table: int, max_rounds: int | None,
                     progress, desc: str) -> None:
    """Every round of ``per_table`` resamples through ``launch(round0, n_rounds, b0, b1)``
    (resamples b0..b1; it returns once they are done), in launches that grow toward
    _TARGET_LAUNCH_S seconds each (at most ``max_rounds``, None: no bound; the results do
    not depend on them), with progress counted in resamples."""
    total_rounds = -(-n_resamples // per_table)
    max_rounds = total_rounds if max_rounds is None else max_rounds
    round0, rounds = 0, 1
    with Progress(n_resamples, desc=desc, enabled=progress) as bar:
        while round0 < total_rounds:
            n_rounds = min(rounds, total_rounds - round0, max_rounds)
            b0 = round0 * per_table
            b1 = min(n_resamples, (round0 + n_rounds) * per_table)
            t0 = time.perf_counter()
            launch(round0, n_rounds, b0, b1)
            elapsed = time.perf_counter() - t0
            round0 += n_rounds
            bar.update(b1 - b0)
            grow = _TARGET_LAUNCH_S / max(elapsed, 1e-4)
            rounds = max(1, min(rounds * 8, int(n_rounds * grow)))


def _lanes(rt, dtype, nc_max: int, store: bool) -> int:
    """Streams per work-item of the counting kernel: two vector registers' worth of doubles
    (16 with AVX-512, 8 with AVX2; at most 16) where each work-item runs as scalar code
    (pocl's CPU drivers: fisher_rcont2_count_lanes, the same draws side by side), else 1: the
    walk's divisions of one register overlap the other's (on an AVX-512 Xeon, pocl 3.0 and
    3.1, the month table: 8 lanes 0.41 s, 16 lanes 0.33 s). Statistics, tables, float32 and
    more than 64 columns take the one-stream kernel."""
    if not rt.scalar_work_items or np.dtype(dtype) != np.float64 or store or nc_max > 64:
        return 1
    return rt.lanes(dtype, register=True, registers=2)


def _run_lanes(rt, lanes: int, defines: dict, dims, rows, cols, thresholds, logfact, bits,
               per_table: int, n_resamples: int, *, seed, streams, dtype, progress, desc):
    """:func:`_run_rcont2`'s counts with ``lanes`` streams of one table per work-item: the
    same streams make the same resamples, so the counts are the one-stream kernel's."""
    k = dims.shape[0]
    n_items = k * per_table
    per_item = -(-per_table // lanes)
    n_work = k * per_item
    kernel = rt.kernel("fisher.cl", "rcont2_count_lanes", {**defines, "LANES": str(lanes)})
    states, user_streams, d_counts = _count_buffers(rt, n_items, seed, streams)
    args = (rt.to_device(dims, writable=False), _U64(rows.shape[1]),
            rt.to_device(rows, writable=False), rt.to_device(cols, writable=False),
            rt.to_device(logfact, writable=False), dtype.type(2.0**-bits),
            rt.to_device(np.ascontiguousarray(thresholds, dtype=np.int64), writable=False))

    def launch(round0, n_rounds, b0, b1):
        rt.launch(kernel, n_work, states, _U64(per_table), _U64(per_item), _U64(n_work),
                  _U64(n_resamples), _U64(round0), _U64(n_rounds), *args, d_counts)
        rt.finish()

    _adaptive_rounds(launch, n_resamples, per_table, None, progress, desc)
    return _count_totals(rt, d_counts, user_streams, k, per_table), None, None
