"""The tiled epistasis search: combinations as a binary matrix product, shared by the CUDA
tensor-core path (:mod:`oclstat._epistasis.cuda`) and its OpenCL twin
(``cl_kernels/epistasis_tiles.cl``).

A combination of ``order`` SNPs is a *row item* (one SNP for order 2, a pair otherwise) and a
*column item* (one SNP for orders 2 and 3, a pair for order 4). With complete genotypes its
3^order x 2 table follows from the AND + popcount counts of the genotype-0/1 patterns of the
row item against those of the column item (a binary matrix product: 64 x 64 per tile) and from
the lower-order tables of its SNP subsets (``cl_kernels/include/oclstat/epistasis_cells.clh``).
Row items are sorted by their last SNP and column items by their first, so the tiles holding a
row tile's combinations are a run of column tiles; the run lengths give the tile numbering.

>>> plan = tile_plan(10, 4)
>>> plan.combinations
210
>>> int(plan.n_tiles) >= 1
True
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np

from .._constants import EPI_MICRO, EPI_NONE, EPI_TILE, TC_KCHUNK
from .._progress import Progress
from .opencl import Candidates
from .plan import _Best, on_every_device, rank_ranges
from .scores import score_tables

TILE = EPI_TILE
#: Words of 32 samples per staged chunk: each class's vectors are padded to a multiple.
KCHUNK_WORDS = TC_KCHUNK
NONE = EPI_NONE
#: Tiles per launch (the candidate buffer holds every combination of a launch).
LAUNCH_TILES = 8192
FIRST_LAUNCH_TILES = 64


@dataclass
class TilePlan:
    """Row and column items, and the numbering of the tiles that hold combinations."""

    order: int
    row_snps: int
    col_snps: int
    rows: np.ndarray       # (row tiles * RI, row_snps) uint16, NONE = padding
    cols: np.ndarray       # (column tiles * CI, col_snps) uint16
    first_ct: np.ndarray   # (row tiles,) uint32: first column tile of each row tile's run
    cum: np.ndarray        # (row tiles + 1,) uint64: tiles before each row tile
    combinations: int

    @property
    def n_rt(self) -> int:
        return len(self.first_ct)

    @property
    def n_tiles(self) -> int:
        return int(self.cum[-1])

    @property
    def threads(self) -> int:
        """Work-items per tile of the OpenCL search (EPI_TILE_ITEMS in epistasis_tiles.cl):
        one per EPI_MICRO rows by max(EPI_MICRO, column patterns) columns of products."""
        return (TILE // EPI_MICRO) * (TILE // max(EPI_MICRO, 1 << self.col_snps))

    @property
    def launch_capacity(self) -> int:
        """Combinations the largest launch of :func:`run_tiled` can hold."""
        return min(max(LAUNCH_TILES, FIRST_LAUNCH_TILES), self.n_tiles) * self.per_tile

    @property
    def per_tile(self) -> int:
        """Combinations a tile can hold (its row items times its column items)."""
        return (TILE >> self.row_snps) * (TILE >> self.col_snps)

    def defines(self) -> dict:
        return {"ORDER": self.order, "ROW_SNPS": self.row_snps, "COL_SNPS": self.col_snps}


def _combinations(n: int, size: int) -> np.ndarray:
    """Every ascending ``size``-subset of range(n), in lexicographic order (rows)."""
    items = np.arange(n, dtype=np.int64)[:, None]
    for _ in range(size - 1):
        last = items[:, -1]
        counts = n - 1 - last                      # larger SNPs that can follow each item
        first = np.cumsum(counts) - counts         # where each item's run starts
        items = np.column_stack([np.repeat(items, counts, axis=0),
                                 np.arange(counts.sum()) + np.repeat(last + 1 - first, counts)])
    return items


def _items(n_snps: int, size: int, sort_by_last: bool, lowest: int, highest: int):
    """SNPs (size 1), pairs or triples (ascending) whose sort key lies in [lowest, highest]."""
    items = _combinations(n_snps, size)
    key = items[:, -1] if sort_by_last else items[:, 0]
    keep = (key >= lowest) & (key <= highest)
    items, key = items[keep], key[keep]
    other = items[:, 0] if sort_by_last else items[:, -1]
    return items[np.lexsort((other, key))]


def _pad(items: np.ndarray, per_tile: int) -> np.ndarray:
    n = -(-len(items) // per_tile) * per_tile
    out = np.full((n, items.shape[1]), NONE, dtype=np.uint16)
    out[: len(items)] = items
    return out


#: The tile item lists hold 16-bit SNP indices (NONE pads them): the tiled and tensor-core
#: searches take at most this many SNPs; the bit-vector search has no such limit.
TILE_MAX_SNPS = NONE - 1


def tile_plan(n_snps: int, order: int) -> TilePlan:
    """The tile layout of a search over ``n_snps`` SNPs (``order`` 2 to 5): row items are
    SNPs (order 2) or pairs, column items the other ``order - row_snps`` SNPs."""
    if n_snps > TILE_MAX_SNPS:
        raise ValueError(f"the tiled search indexes SNPs in 16 bits: at most {TILE_MAX_SNPS:,} "
                         f"SNPs, got {n_snps:,} (backend='opencl' searches any number)")
    row_snps = 1 if order == 2 else 2
    col_snps = order - row_snps
    ri, ci = TILE >> row_snps, TILE >> col_snps
    # a row item's last SNP needs col_snps larger SNPs; a column's first needs row_snps smaller
    rows = _items(n_snps, row_snps, True, row_snps - 1, n_snps - 1 - col_snps)
    cols = _items(n_snps, col_snps, False, row_snps, n_snps - col_snps)
    rows_p, cols_p = _pad(rows, ri), _pad(cols, ci)
    n_rt, n_ct = len(rows_p) // ri, len(cols_p) // ci
    row_min = rows[::ri, -1]                                   # smallest last SNP per row tile
    col_max = cols[np.minimum(np.arange(1, n_ct + 1) * ci, len(cols)) - 1, 0]
    first = np.searchsorted(col_max, row_min, side="right").astype(np.uint32)
    cum = np.zeros(n_rt + 1, dtype=np.uint64)
    cum[1:] = np.cumsum(n_ct - first.astype(np.int64))
    return TilePlan(order, row_snps, col_snps, rows_p, cols_p, first, cum,
                    math.comb(n_snps, order))


def tile_bits(search) -> tuple[np.ndarray, int, int, int, int]:
    """The tiled kernels' bit vectors (n_snps, 2 classes, 2 genotypes, words) uint32 from a
    prepared search (complete genotypes), the words used per class and the class sizes."""
    if not search.complete:
        raise ValueError("the tiled/tensor-core epistasis search needs complete genotypes "
                         "(no -1); use backend='opencl' for data with missing genotypes")
    present = np.bitwise_or.reduce(search.bits[0], axis=1)     # SNP 0: (2 classes, words)
    sizes = [int(np.unpackbits(present[c].view(np.uint8)).sum()) for c in (0, 1)]
    kwords = [max(1, -(-n // (32 * KCHUNK_WORDS))) * KCHUNK_WORDS for n in sizes]
    wstride = max(kwords)
    words = np.ascontiguousarray(search.bits[:, :, :2, :]).view(np.uint32)
    out = np.zeros(words.shape[:3] + (wstride,), dtype=np.uint32)
    n = min(wstride, words.shape[3])
    out[..., :n] = words[..., :n]
    return out, kwords[0], kwords[1], sizes[0], sizes[1]


def lower_table_words(n_snps: int, order: int) -> tuple[int, int, int, int]:
    """uint32 words of the t1, t2, t3 and t4 tables (t2 from order 3, t3 from order 4, t4 for
    order 5; a one-word stand-in where an order needs none)."""
    t1 = n_snps * 4
    t2 = math.comb(n_snps, 2) * 8 if order >= 3 else 1
    t3 = math.comb(n_snps, 3) * 16 if order >= 4 else 1
    t4 = math.comb(n_snps, 4) * 32 if order >= 5 else 1
    return t1, t2, t3, t4


def _drive(launch, blocks, best: _Best, lock, bar) -> None:
    """One device's loop: launch the next range of tiles (pulled from the shared iterator
    ``blocks`` under ``lock``), then read the previous launch's candidates while it runs
    (before it, while the top-k is not full yet)."""
    pending = None

    def merge():
        scores, combos = pending[0]()
        with lock:
            best.merge(scores, combos)
            bar.update(pending[1])

    while True:
        with lock:
            got = next(blocks, None)
            full = len(best.scores) >= best.top
        if got is None:
            break
        if pending is not None and not full:
            merge()
            pending = None
        with lock:
            threshold = best.threshold()
        read = launch(*got, threshold)
        if pending is not None:
            merge()
        pending = (read, got[1])
    if pending is not None:
        merge()


def run_tiled(search, launch, plan: TilePlan, progress=None, start: int = 0,
              stop: int | None = None):
    """Run the tiles ``start`` .. ``stop - 1`` (default: all) through ``launch(block0, n_blocks,
    threshold) -> read`` in launches of at most LAUNCH_TILES (a small first one, so the top-k
    threshold filters the rest); ``read()`` returns the launch's candidates (scores, combos)
    and is called after the next launch is queued. ``launch`` may be a list, one per device:
    each device's thread pulls the next range of tiles, and the result does not depend on who
    ran what. Returns the merged top-k (the same ``_Best`` as the bit-vector search)."""
    launches = list(launch) if isinstance(launch, (list, tuple)) else [launch]
    best, lock = _Best.empty(search.top, search.order), threading.Lock()
    stop = plan.n_tiles if stop is None else stop
    blocks = rank_ranges(start, stop, FIRST_LAUNCH_TILES, LAUNCH_TILES)
    with Progress(total=max(1, stop - start), desc=f"epistasis order {search.order} (tiles)",
                  enabled=progress) as bar:
        on_every_device(lambda run: _drive(run, blocks, best, lock, bar), launches)
    return best


class OpenCLTiles:
    """The tiled search on an OpenCL runtime (popcount products): ``launch`` for
    :func:`run_tiled`. The lower-order tables are built on the device at construction."""

    #: Local memory of epi_tiles_search: two staged chunks of TILE pattern words (rows padded
    #: to TILE + 4), the item lists.
    LOCAL_BYTES = 2 * KCHUNK_WORDS * (TILE + 4) * 4 + 2 * TILE * 2

    def __init__(self, rt, search, plan: TilePlan):
        self.rt, self.plan, self.order, self.n_snps = rt, plan, search.order, search.n_snps
        bits, self.kw0, self.kw1, self.n0, self.n1 = tile_bits(search)
        self.wstride = bits.shape[3]
        defines = {**plan.defines(), "SCORE": ("k2", "mi").index(search.score)}
        if max(self.n0, self.n1) < 1 << 16:
            defines["EPI_PS_USHORT"] = 1         # both classes' counts in one word when scored
        self.kernel = rt.kernel("epistasis_tiles.cl", "search", defines)
        self.bits = rt.to_device(bits, writable=False)
        lf, nln, _ = score_tables(search.n_samples)
        self.lf, self.nln = rt.to_device(lf, writable=False), rt.to_device(nln, writable=False)
        self.rows = rt.to_device(plan.rows, writable=False)
        self.cols = rt.to_device(plan.cols, writable=False)
        self.cum = rt.to_device(plan.cum, writable=False)
        self.first = rt.to_device(plan.first_ct, writable=False)
        self.tables = self._lower_tables(defines, search.n_snps)
        self.sets = [Candidates(rt, plan.launch_capacity, self.order) for _ in range(2)]
        self.launches = 0

    def _lower_tables(self, defines, n_snps):
        """t1 .. t4 on the device (t2 from order 3, t3 from order 4, t4 for order 5; 1-word
        stand-ins below)."""
        rt = self.rt
        args = (self.bits, np.uint32(self.wstride), np.uint32(self.kw0), np.uint32(self.kw1),
                np.uint32(n_snps))
        tables = [rt.empty(words * 4) if size < self.order       # (stand-ins hold 0)
                  else rt.to_device(np.zeros(words, dtype=np.uint32))
                  for size, words in enumerate(lower_table_words(n_snps, self.order), 1)]
        rt.launch(rt.kernel("epistasis_tiles.cl", "lower_t1", defines), n_snps, *args,
                  tables[0])
        for size in range(2, self.order):       # 32 neighbouring first SNPs per group
            kernel = rt.kernel("epistasis_tiles.cl", f"lower_t{size}", defines)
            grid = (n_snps,) * (2 if size < 4 else 3)       # pairs, or triples for t4
            rt.launch_nd(kernel, grid, (32,) + (1,) * (len(grid) - 1), *args,
                         tables[size - 1])
        return tables

    def read_tables(self) -> list[np.ndarray]:
        """The lower-order tables, for tests."""
        sizes = lower_table_words(self.n_snps, self.order)
        return [self.rt.read(b, np.empty(n, dtype=np.uint32)) for b, n in
                zip(self.tables, sizes, strict=True)]

    def launch(self, block0: int, n_blocks: int, threshold: int):
        rt, p = self.rt, self.plan
        cands = self.sets[self.launches % 2]
        self.launches += 1
        cands.reset()
        event = rt.launch(self.kernel, n_blocks * p.threads, self.bits,
                          np.uint32(self.wstride), np.uint32(self.kw0), np.uint32(self.kw1),
                          self.rows, self.cols, self.cum, self.first, np.uint32(p.n_rt),
                          np.uint64(block0), *self.tables, np.uint32(self.n0),
                          np.uint32(self.n1), self.lf, self.nln, np.int64(threshold),
                          cands.count, cands.scores, cands.snps,
                          np.uint32(min(n_blocks * p.per_tile, cands.cap)),
                          local_size=p.threads)
        return lambda: cands.read(after=event)


#: The lower-order tables a CPU device (whose memory is the host's) may hold: 1 GiB (order 4
#: up to about 470 SNPs); a GPU takes a quarter of its own memory.
HOST_TABLE_BYTES = 1 << 30


def tiles_fit(rt, search) -> bool:
    """Whether the tiled search can run on ``rt``: complete genotypes, lower-order tables that
    fit the device (a quarter of its memory; on a CPU at most HOST_TABLE_BYTES), and the
    tile's local memory."""
    if not search.complete or search.n_snps > TILE_MAX_SNPS:
        return False
    words = lower_table_words(search.n_snps, search.order)
    budget = rt.info.global_mem // 4
    if rt.is_cpu:                  # a CPU device's memory is the host's
        budget = min(budget, HOST_TABLE_BYTES)
    return (4 * max(words) <= rt.info.max_alloc
            and 4 * sum(words) <= budget
            and OpenCLTiles.LOCAL_BYTES <= rt.local_mem)


def tiles_chosen(search, runtimes) -> bool:
    """Whether an OpenCL search runs as tiles: order 5 always (the bit-vector search stops at
    4; an error where the tiles do not fit), orders 3 and 4 with every device in its GPU
    schedule (16 or 8 popcounts per combination and word where the bit-vector search does 81
    or 27; at order 2 both do 4) and the tiles fitting every device (:func:`tiles_fit`)."""
    fit = all(tiles_fit(rt, search) for rt in runtimes)
    if search.order == 5:
        if not fit:
            need = 4 * sum(lower_table_words(search.n_snps, 5))
            raise ValueError(f"order 5 over {search.n_snps} SNPs needs {need / 2**30:.1f} GiB "
                             "of lower-order tables (128 bytes per SNP quadruple), more than "
                             "the device allows (a quarter of its memory; at most 1 GiB on a "
                             "CPU): search fewer SNPs (snps=)")
        return True
    return search.order >= 3 and all(rt.gpu_schedule for rt in runtimes) and fit


def search_tiles(runtimes, search, progress=None):
    """Run a prepared search (:func:`oclstat.epistasis.prepare`) as tiles on one runtime or a
    list of them (the tiles shared out as they finish)."""
    runtimes = runtimes if isinstance(runtimes, (list, tuple)) else [runtimes]
    plan = tile_plan(search.n_snps, search.order)
    return run_tiled(search, [OpenCLTiles(rt, search, plan).launch for rt in runtimes], plan,
                     progress)
