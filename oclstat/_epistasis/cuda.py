"""The tiled epistasis search with the tile products on NVIDIA binary tensor cores (CuPy +
NVRTC): the optional CUDA backend, imported only when it is asked for or can run (it needs
CuPy, ``pip install oclstat[cuda]``, and a GPU of compute capability 8.0 or newer).

:class:`TensorCoreTiles` has the same ``launch`` as the OpenCL twin
(:class:`oclstat._epistasis.tiles.OpenCLTiles`), so :func:`oclstat._epistasis.tiles.run_tiled`
drives both (and several GPUs at once, :func:`search_tensor_cores`), and the results are the
same combinations with the same scores, bit for bit (checked on each device before its first
search, see :class:`TensorCoreTiles`). Needs complete genotypes; the lower-order tables (t3:
64 bytes per SNP triple for order 4) must fit in half the free device memory.

>>> from oclstat._epistasis.cuda import available
>>> ok, _ = available()
>>> if ok:                                       # only on a machine with a suitable GPU
...     import numpy as np, oclstat
...     g = np.random.default_rng(1).integers(0, 3, size=(20, 600))
...     y = np.arange(600) % 2
...     hits = oclstat.epistasis(g, y, order=2, top=3, backend="cuda")
"""

from __future__ import annotations

import threading

import numpy as np

from .._constants import KERNEL_DEFINES, TC_THREADS
from .._runtime import get_runtime, kernel_source
from .opencl import run_search
from .plan import prepare
from .scores import score_tables
from .tiles import (
    KCHUNK_WORDS,
    TILE,
    TILE_MAX_SNPS,
    lower_table_words,
    run_tiled,
    tile_bits,
    tile_plan,
)

SOURCE = "epistasis_tc.cu"      # in cl_kernels/, with the OpenCL kernels and shared headers
THREADS = TC_THREADS
_modules: dict = {}
_checked: dict = {}
_lock = threading.Lock()


def compile_options(defines: dict) -> tuple[str, ...]:
    """NVRTC options: no FMA contraction (scores add up as in OpenCL), the shared constants
    (oclstat/_constants.py) and the defines. The headers are written into the source
    (:func:`oclstat._runtime.kernel_source`): no include path."""
    every = {**KERNEL_DEFINES, **defines}
    return ("--fmad=false", *(f"-D{k}={v}" for k, v in sorted(every.items())))


def _module(defines: dict):
    """The compiled module for these defines on the current device (cached)."""
    import cupy

    dev = cupy.cuda.Device().id
    key = (dev, tuple(sorted(defines.items())))
    with _lock:
        mod = _modules.get(key)
        if mod is None:
            mod = cupy.RawModule(code=kernel_source(SOURCE), options=compile_options(defines))
            _modules[key] = mod
        return mod


def self_check(defines: dict | None = None, seed: int = 0) -> None:
    """Multiply two random 64 x 1024-bit matrices (and all-ones and single-bit ones) with the
    tensor-core tile code and compare with numpy; raises RuntimeError on any difference."""
    import cupy

    defines = defines or {"ORDER": 2, "SCORE": 0, "ROW_SNPS": 1, "COL_SNPS": 1}
    kernel = _module(defines).get_function("epistasis_tc_check")
    rng = np.random.default_rng(seed)
    kw = 2 * KCHUNK_WORDS
    cases = [rng.integers(0, 2**32, size=(2, TILE, kw), dtype=np.uint32),
             np.full((2, TILE, kw), 0xFFFFFFFF, dtype=np.uint32),
             np.zeros((2, TILE, kw), dtype=np.uint32)]
    cases[2][0, np.arange(TILE), np.arange(TILE) % kw] = 1 << (np.arange(TILE) % 32)
    cases[2][1, np.arange(TILE), np.arange(TILE) % kw] = 1 << (np.arange(TILE) % 32)
    for a, b in ((c[0], c[1]) for c in cases):
        out = cupy.zeros((TILE, TILE), dtype=cupy.uint32)
        kernel((1,), (THREADS,), (cupy.asarray(a), cupy.asarray(b), np.uint32(kw), out))
        both = a[:, None, :] & b[None, :, :]
        want = np.unpackbits(both.view(np.uint8), axis=-1).sum(axis=-1, dtype=np.int64)
        got = cupy.asnumpy(out).astype(np.int64)
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)[0]
            raise RuntimeError(
                f"the tensor-core AND+POPC product disagrees with numpy at {tuple(bad)}: "
                f"{got[tuple(bad)]} vs {want[tuple(bad)]}; use backend='opencl'")


def end_to_end_check(order: int, score: str) -> None:
    """A whole search on fixed random data (several tiles and sample chunks, every
    combination returned) must equal the OpenCL bit-vector search; raises RuntimeError."""
    rng = np.random.default_rng(12345)
    n_snps = {2: 70, 3: 40, 4: 22}[order]
    g = rng.integers(0, 3, size=(n_snps, 1100))
    y = (rng.random(1100) < 0.45).astype(int)
    search = prepare(g, y, order=order, score=score, top=10**6)
    plan = tile_plan(n_snps, order)
    got = run_tiled(search, TensorCoreTiles(search, plan, check=False).launch, plan,
                    progress=False)
    want = run_search(search, [get_runtime()])
    if not (np.array_equal(got.scores, want.scores) and np.array_equal(got.combos, want.combos)):
        raise RuntimeError(f"the tensor-core search (order {order}, {score}) disagrees with the "
                           f"OpenCL search on the check data; use backend='opencl'")


class TensorCoreTiles:
    """The tiled search on the current CUDA device: ``launch`` for ``run_tiled``. Before the
    first search of an order and score on a device, the tensor-core product (:func:`self_check`)
    and a whole search (:func:`end_to_end_check`) are checked."""

    def __init__(self, search, plan, check: bool = True):
        import cupy

        self.plan, self.order, self.n_snps = plan, search.order, search.n_snps
        bits, self.kw0, self.kw1, self.n0, self.n1 = tile_bits(search)
        defines = {**plan.defines(), "SCORE": ("k2", "mi").index(search.score)}
        if max(self.n0, self.n1) < 1 << 16:
            defines["EPI_PS_USHORT"] = 1         # 16 KiB of products per tile, not 32
        key = (cupy.cuda.Device().id, search.order, search.score)
        if check and key not in _checked:
            self_check(defines)
            end_to_end_check(search.order, search.score)
            _checked[key] = True
        words = lower_table_words(search.n_snps, search.order)
        need = 4 * sum(words)
        free, _ = cupy.cuda.Device().mem_info
        if need > free // 2:
            raise ValueError(
                f"the lower-order tables of {search.n_snps} SNPs need {need / 2**30:.1f} GiB, "
                f"more than half the free GPU memory ({free / 2**30:.1f} GiB); search fewer SNPs "
                f"(snps=) or use backend='opencl'")
        mod = _module(defines)
        self.kernel = mod.get_function("epistasis_tc_search")
        self.wstride = bits.shape[3]
        self.bits = cupy.asarray(bits)
        lf, nln, _ = score_tables(search.n_samples)
        self.lf, self.nln = cupy.asarray(lf), cupy.asarray(nln)
        self.rows, self.cols = cupy.asarray(plan.rows), cupy.asarray(plan.cols)
        self.cum, self.first = cupy.asarray(plan.cum), cupy.asarray(plan.first_ct)
        self.tables = [cupy.zeros(w, dtype=cupy.uint32) for w in words]
        args = (self.bits, np.uint32(self.wstride), np.uint32(self.kw0), np.uint32(self.kw1),
                np.uint32(search.n_snps))
        n, blocks = search.n_snps, -(-search.n_snps // THREADS)
        mod.get_function("epistasis_tc_lower_t1")((blocks,), (THREADS,), (*args, self.tables[0]))
        for size in range(2, search.order):
            mod.get_function(f"epistasis_tc_lower_t{size}")((blocks, n), (THREADS,),
                                                            (*args, self.tables[size - 1]))
        cap = plan.launch_capacity
        self.cand_s = cupy.empty(cap, dtype=cupy.int64)
        self.cand_c = cupy.empty((cap, self.order), dtype=cupy.uint32)
        self.count = cupy.zeros(1, dtype=cupy.uint32)

    def read_tables(self) -> list[np.ndarray]:
        """The lower-order tables, for tests."""
        import cupy

        return [cupy.asnumpy(t) for t in self.tables]

    def launch(self, block0: int, n_blocks: int, threshold: int):
        """Run the tiles and return their candidates through a ``read()`` (the launch and the
        read are synchronous here)."""
        import cupy

        p = self.plan
        self.count.fill(0)
        cap = min(n_blocks * p.per_tile, self.cand_s.size)
        t1, t2, t3, t4 = self.tables
        self.kernel((n_blocks,), (THREADS,), (
            self.bits, np.uint32(self.wstride), np.uint32(self.kw0), np.uint32(self.kw1),
            self.rows, self.cols, self.cum, self.first, np.uint32(p.n_rt), np.uint64(block0),
            t1, t2, t3, t4, np.uint32(self.n0), np.uint32(self.n1), self.lf, self.nln,
            np.int64(threshold), self.count, self.cand_s, self.cand_c, np.uint32(cap)))
        k = int(min(int(self.count.get()[0]), cap))
        out = cupy.asnumpy(self.cand_s[:k]), cupy.asnumpy(self.cand_c[:k])
        return lambda: out


def cuda_devices() -> list[int]:
    """The CUDA devices the tensor-core path uses: every visible one (``CUDA_VISIBLE_DEVICES``)
    of compute capability 8.0 or newer."""
    import cupy

    return [i for i in range(cupy.cuda.runtime.getDeviceCount())
            if int(cupy.cuda.Device(i).compute_capability) >= MIN_CAPABILITY]


def _on_device(device: int, launch):
    """``launch`` run with ``device`` current (CuPy's current device is per thread)."""
    import cupy

    def run(block0: int, n_blocks: int, threshold: int):
        with cupy.cuda.Device(device):
            return launch(block0, n_blocks, threshold)

    return run


def search_tensor_cores(search, progress=None, devices=None):
    """Run a prepared search (:func:`oclstat._epistasis.plan.prepare`) on the CUDA devices
    (default :func:`cuda_devices`): each holds the bit vectors and lower tables, and pulls
    ranges of tiles as it finishes the last; the result does not depend on who ran what."""
    import cupy

    devices = cuda_devices() if devices is None else list(devices)
    if not devices:
        raise ValueError("no CUDA device of compute capability 8.0 or newer")
    plan = tile_plan(search.n_snps, search.order)
    launches = []
    for device in devices:
        with cupy.cuda.Device(device):
            launches.append(_on_device(device, TensorCoreTiles(search, plan).launch))
    return run_tiled(search, launches, plan, progress)


MIN_CAPABILITY = 80


def unsuited(search) -> list[str]:
    """Why the tensor-core path cannot take this search (whatever the GPU); empty when it can.
    ``search`` needs ``complete``, ``order`` and ``n_snps``."""
    reasons = []
    if not search.complete:
        reasons.append("the genotypes have missing values (the tensor-core path needs "
                       "complete data)")
    if search.order == 5:
        reasons.append("order 5 (the tensor-core path searches orders 2 to 4)")
    if search.n_snps > TILE_MAX_SNPS:
        reasons.append(f"{search.n_snps:,} SNPs (the tensor-core tiles index at most "
                       f"{TILE_MAX_SNPS:,})")
    return reasons


def current_device() -> int:
    """The current CUDA device of this thread (a Dask-CUDA worker's own GPU is device 0)."""
    import cupy

    return cupy.cuda.Device().id


def available() -> tuple[bool, str]:
    """Whether the tensor-core path can run here, and if not, why (one line)."""
    try:
        import cupy
    except Exception as exc:  # noqa: BLE001 - any import failure means "not available"
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        return False, f"no CUDA device ({type(exc).__name__}: {exc})"
    if n == 0:
        return False, "no CUDA device"
    cc = int(cupy.cuda.Device().compute_capability)
    if cc < MIN_CAPABILITY:
        return False, (f"the current CUDA device has compute capability {cc / 10:.1f}; binary "
                       f"tensor cores with AND+POPC need 8.0 or newer")
    return True, f"CUDA device {cupy.cuda.Device().id} (sm_{cc})"
