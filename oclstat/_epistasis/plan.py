"""Planning a search: the prepared data, launch-sized ranges of colex ranks and the running
top-k."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from .._validation import as_int
from ..genotypes import Genotypes
from .scores import SCORES, encode_bits, score_bits
from .validate import _inputs

#: The most combinations one search may hold: colex ranks are 64-bit, and the kernels' binomials
#: stay exact while 4 C(n, order) fits in 64 bits.
MAX_COMBINATIONS = 1 << 62


#: Combinations per device launch in a GPU schedule (the candidate buffers hold every one of
#: a launch); CPU schedules launch a quarter as many (candidate buffers live in host memory).
CHUNK_COMBINATIONS = 1 << 22


#: The first launch is small, so that the top-k threshold filters the later ones.
FIRST_CHUNK = 1 << 14


#: Combinations per work-item: few on GPUs (2^22 / 8 = 524,288 work-items per launch fill an
#: H100's 270k resident threads twice), more on CPUs (fewer unrankings).
PER_ITEM_GPU = 8


PER_ITEM_CPU = 256


def _chunk(gpu_schedule: bool) -> int:
    return CHUNK_COMBINATIONS if gpu_schedule else max(1, CHUNK_COMBINATIONS >> 2)


def rank_ranges(start: int, stop: int, first: int | None = None, chunk: int | None = None):
    """Launch-sized ranges ``(rank0, count)`` of the colex ranks start .. stop - 1: a small first
    one (so that the top-k threshold filters the rest), then ``chunk`` each."""
    first = FIRST_CHUNK if first is None else first
    chunk = CHUNK_COMBINATIONS if chunk is None else chunk
    pos, size = int(start), max(1, min(first, chunk))
    while pos < stop:
        n = min(size, stop - pos)
        yield pos, n
        pos, size = pos + n, max(1, chunk)


@dataclass
class _Best:
    top: int
    scores: np.ndarray
    combos: np.ndarray

    @classmethod
    def empty(cls, top: int, order: int) -> _Best:
        return cls(top, np.empty(0, dtype=np.int64), np.empty((0, order), dtype=np.int64))

    def threshold(self) -> int:
        return int(self.scores[self.top - 1]) if len(self.scores) >= self.top else _NO_LIMIT

    def merge(self, scores, combos):
        s = np.concatenate([self.scores, np.asarray(scores, dtype=np.int64)])
        c = np.concatenate([self.combos, np.asarray(combos, dtype=np.int64)])
        order = np.lexsort(tuple(c[:, i] for i in range(c.shape[1] - 1, -1, -1)) + (s,))
        keep = order[: self.top]
        self.scores, self.combos = s[keep], c[keep]


_NO_LIMIT = np.iinfo(np.int64).max


def on_every_device(work, devices) -> None:
    """``work(device)`` for each device, each in its own thread when there are several (the
    devices pull their share of a search from a common queue); the first error is raised."""
    if len(devices) == 1:
        work(devices[0])
        return
    errors = []

    def one(device):
        try:
            work(device)
        except Exception as exc:  # noqa: BLE001 - re-raised below
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(d,)) for d in devices]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


@dataclass
class Search:
    """One prepared search: the encoded data and what to compute (see :func:`prepare`)."""

    bits: np.ndarray
    n_words: int
    n_snps: int
    n_samples: int
    order: int
    score: str
    top: int
    complete: bool
    names: list
    index_map: np.ndarray
    #: (chromosomes, base-pair positions) of the searched SNPs, from a .bim file.
    loci: tuple | None = None

    @property
    def combinations(self) -> int:
        return math.comb(self.n_snps, self.order)

    def defines(self, gpu_schedule: bool = False, popcount: dict | None = None) -> dict:
        """Build defines of epistasis.cl for this search in the given schedule (CPU: one
        work-item per lane of scalar code), with the device's way of counting bits
        (``popcount``: Runtime.popcount_defines)."""
        out = {"ORDER": self.order, "SCORE": SCORES.index(self.score), **(popcount or {})}
        if gpu_schedule:
            out["EPI_CELL_OUTER"] = 1
        else:
            out["EPI_ONE_ITEM_PER_LANE"] = 1
            if self.complete:
                out["NO_MISSING"] = 1
        return out

    def values(self, scores: np.ndarray) -> np.ndarray:
        """Scores as reported: K2 (lower is better) or mutual information in nats (higher is
        better), from the device's fixed-point integers."""
        scale = 2.0 ** -score_bits(self.n_samples)
        v = np.asarray(scores, dtype=np.float64) * scale
        return v if self.score == "k2" else -v



def prepare(genotypes, phenotype=None, *, order=4, score="k2", top=10, snps=None,
            layout="snp-major") -> Search:
    """Check the inputs of :func:`epistasis` and encode them (shared with oclstat.distributed)."""
    order = as_int(order, "order", minimum=2, maximum=5)
    top = as_int(top, "top", minimum=1)
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    g, y, names, index_map = _inputs(genotypes, phenotype, snps, layout)
    n_snps = g.shape[0]
    if order > n_snps:
        raise ValueError(f"order {order} is larger than the number of SNPs ({n_snps})")
    if n_snps >= 2**32 - 1 or math.comb(n_snps, order) >= MAX_COMBINATIONS:
        raise ValueError(f"{n_snps:,} SNPs at order {order} make {math.comb(n_snps, order):.3g} "
                         f"combinations; one search ranks at most 2^62: search fewer SNPs "
                         "(snps=) or a lower order")
    bits, n_words = encode_bits(g, y)
    if bits.size >= 2**32:
        raise ValueError(f"{n_snps} SNPs x {g.shape[1]} samples make {bits.nbytes / 2**30:.0f} "
                         "GiB of bit vectors; the kernels address at most 2^32 words: search "
                         "fewer SNPs at a time (snps=)")
    complete = bool((g >= 0).all())
    if order == 5 and not complete:
        raise ValueError("order 5 runs as tiles, which count genotypes 0 and 1 and take the "
                         "rest from lower-order tables: it needs complete genotypes (no -1 or "
                         "NaN); drop or impute the missing ones, or search order 4 or lower")
    loci = None
    if isinstance(genotypes, Genotypes) and genotypes.chromosomes is not None:
        loci = ([genotypes.chromosomes[i] for i in index_map],
                np.asarray(genotypes.positions)[index_map])
    return Search(bits, n_words, n_snps, g.shape[1], order, score, top, complete, names,
                  index_map, loci)
