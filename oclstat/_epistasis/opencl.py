"""The bit-vector search on OpenCL devices (cl_kernels/epistasis.cl): rank ranges pulled by
one thread per device, two candidate sets per device so the next launch is queued before the
last one's candidates are read."""

from __future__ import annotations

import itertools
import threading

import numpy as np

from .._constants import EPI_LANES
from .._progress import Progress
from .plan import (
    _NO_LIMIT,
    PER_ITEM_CPU,
    PER_ITEM_GPU,
    Search,
    _Best,
    _chunk,
    on_every_device,
    rank_ranges,
)
from .scores import genotype_counts, score_tables


class Candidates:
    """One set of candidate buffers (counter, scores, SNP indices) that a launch appends to."""

    def __init__(self, rt, cap: int, order: int):
        self.rt, self.cap, self.order = rt, int(cap), order
        self.count = rt.empty(4)
        self.scores = rt.empty(self.cap * 8)
        self.snps = rt.empty(self.cap * order * 4)

    def reset(self) -> None:
        self.rt.fill(self.count, np.zeros(1, dtype=np.uint32), 4)

    def read(self, after=None) -> tuple[np.ndarray, np.ndarray]:
        """(scores int64, SNP indices) once the launch ``after`` has finished (read on the
        runtime's transfer queue, so launches queued later keep the device busy)."""
        rt = self.rt
        k = int(min(rt.read(self.count, np.empty(1, dtype=np.uint32), wait_for=after)[0],
                    self.cap))
        return (rt.read(self.scores, np.empty(k, dtype=np.int64), wait_for=after),
                rt.read(self.snps, np.empty((k, self.order), dtype=np.uint32), wait_for=after))


#: Bytes of suffix-cell cache of one CPU launch (all its work-items); launches are cut to fit.
SCRATCH_BYTES = 64 << 20


def _scratch_words(rt, search: Search) -> int:
    """Words of epistasis.cl's suffix-cell cache per work-item: 2 classes x 3^(order-1) cells x
    the words of a vector in the CPU schedule with complete genotypes at orders 3 and 4."""
    if rt.gpu_schedule or not search.complete or search.order < 3:
        return 0
    return 2 * 3 ** (search.order - 1) * search.n_words


def _device_bits(bits: np.ndarray, gpu_schedule: bool) -> np.ndarray:
    """The bit vectors as epistasis.cl reads them: SNP-major (n_snps, 2, 3, n_words) in the CPU
    schedule, word-major (2, 3, n_words, n_snps) in the GPU schedule (neighbouring lanes score
    neighbouring SNPs: their words are neighbours)."""
    return np.ascontiguousarray(bits.transpose(1, 2, 3, 0)) if gpu_schedule else bits


def _work_items(n: int, per_item: int, gpu_schedule: bool) -> int:
    """Work-items of a launch of ``n`` combinations: ``per_item`` each, in whole lane blocks of
    EPI_LANES in the GPU schedule (lane l of a block takes every EPI_LANES-th combination).

    >>> _work_items(1000, 8, True), _work_items(1000, 8, False)
    (128, 125)
    """
    if not gpu_schedule:
        return -(-n // per_item)
    return -(-n // (EPI_LANES * per_item)) * EPI_LANES


def _run_device(rt, search: Search, ranges, chunk: int, best: _Best, lock, bar):
    """Pull rank ranges from ``ranges`` and search them on ``rt``; two candidate sets
    alternate, so the next launch is queued before the last one's candidates are read."""
    kernel = rt.kernel("epistasis.cl", "search",
                       search.defines(rt.gpu_schedule, rt.popcount_defines))
    bits = rt.to_device(_device_bits(search.bits, rt.gpu_schedule), writable=False)
    lf, nln, _ = score_tables(search.n_samples)
    lf_b, nln_b = rt.to_device(lf, writable=False), rt.to_device(nln, writable=False)
    per_item = PER_ITEM_GPU if rt.gpu_schedule else PER_ITEM_CPU
    sets = [Candidates(rt, chunk, search.order) for _ in range(2)]   # chunk: largest range
    words = _scratch_words(rt, search)
    scratch = rt.empty(max(8, -(-chunk // per_item) * words * 8))
    counts = rt.to_device(genotype_counts(search.bits), writable=False)
    pending = None

    def collect(item):
        event, cands, n = item
        scores, combos = cands.read(after=event)
        with lock:
            best.merge(scores, combos)
            bar.update(n)

    for i in itertools.count():
        with lock:
            item = next(ranges, None)
            thr = best.threshold()
        if item is None:
            break
        if thr == _NO_LIMIT and pending is not None:   # no top-k yet: wait for one
            collect(pending)
            pending = None
            with lock:
                thr = best.threshold()
        rank0, n = item
        cands = sets[i % 2]
        cands.reset()
        items = _work_items(n, per_item, rt.gpu_schedule)
        event = rt.launch(kernel, items, bits, np.uint32(search.n_words),
                          np.uint32(search.n_snps), np.uint64(rank0), np.uint64(n),
                          np.uint32(per_item), lf_b, nln_b, np.int64(thr), cands.count,
                          cands.scores, cands.snps, np.uint32(cands.cap), scratch, counts)
        if pending is not None:
            collect(pending)
        pending = (event, cands, n)
    if pending is not None:
        collect(pending)


def run_search(search: Search, runtimes, start: int = 0, stop: int | None = None,
               progress=None) -> _Best:
    """Search the colex ranks start .. stop - 1 (default: all) of a prepared search on one or
    several runtimes (threads pulling launch-sized ranges; the result does not depend on who
    ran what). Returns the top-k."""
    stop = search.combinations if stop is None else int(stop)
    best = _Best.empty(search.top, search.order)
    lock = threading.Lock()
    chunk = _chunk(any(rt.gpu_schedule for rt in runtimes))
    for rt in runtimes:           # a CPU launch's suffix-cell cache stays within SCRATCH_BYTES
        words = _scratch_words(rt, search)
        if words:
            chunk = min(chunk, max(1, SCRATCH_BYTES // (8 * words)) * PER_ITEM_CPU)
    ranges = rank_ranges(start, stop, chunk=chunk)
    with Progress(total=max(1, stop - start), desc=f"epistasis order {search.order}",
                  enabled=progress) as bar:
        on_every_device(lambda rt: _run_device(rt, search, ranges, chunk, best, lock, bar),
                        runtimes)
    return best
