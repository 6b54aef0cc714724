"""The epistasis search as tasks (the scale-out protocol, :mod:`oclstat._scale`): equal ranges
of one numbering of the combinations, each searched on its worker's device; the top-k lists
merge by (score, SNP indices) into exactly one device's result.

The numbering is chosen once per search, before the tasks go out (:func:`route`), so that the
ranges of every worker cover each combination once: the tiles of :mod:`.tiles` where every
worker runs the search as tiles, else the colex ranks of the bit-vector search. A worker runs
tiles on its current CUDA GPU's tensor cores (:mod:`.cuda`; a Dask-CUDA worker's own GPU) when
the backend allows and the search suits them, else on its OpenCL device (GPU schedules with
tables that fit, and order 5 everywhere); both number the tiles alike and give the same
scores. A worker builds a search's tiles and lower-order tables once per device and keeps them
while the search lives.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from dataclasses import dataclass

from .._scale import Task, task_runtime
from . import cuda
from .opencl import run_search
from .plan import Search, _Best
from .tiles import OpenCLTiles, run_tiled, tile_plan, tiles_chosen, tiles_fit

#: Tasks per search (at most; fewer when there are fewer combinations or tiles).
MAX_TASKS = 64
ROUTES = ("ranks", "tiles")


@dataclass(frozen=True)
class SearchShape:
    """What decides a device's route for a search (:func:`.tiles.tiles_chosen`), small enough
    to ask every worker about."""

    n_snps: int
    order: int
    complete: bool


def _on_cuda(search, backend: str) -> bool:
    """Whether this worker runs ``search``'s tiles on its current CUDA GPU."""
    return backend != "opencl" and not cuda.unsuited(search) and cuda.available()[0]


def engine(shape: SearchShape, backend: str = "opencl") -> str:
    """How this worker runs a search of ``shape``: "cuda" (tiles on its current CUDA GPU's
    tensor cores), "tiles" (OpenCL tiles) or "ranks" (OpenCL bit vectors)."""
    if _on_cuda(shape, backend):
        return "cuda"
    return "tiles" if tiles_chosen(shape, [task_runtime()]) else "ranks"


def route(client, search: Search, backend: str = "opencl") -> str:
    """"tiles" when every worker of ``client`` (a Dask client or LocalDevices: its ``run``
    calls a function once on every worker) runs ``search`` as tiles (:func:`engine`), else
    "ranks". Order 5 runs only as tiles: a worker that cannot hold its tables raises here;
    ``backend="cuda"`` raises when a worker has no suitable CUDA GPU."""
    engines = client.run(engine, SearchShape(search.n_snps, search.order, search.complete),
                         backend)
    if backend == "cuda":
        lacking = [w for w, e in engines.items() if e != "cuda"]
        if lacking or not engines:
            why = cuda.unsuited(search) or ["no CUDA GPU of compute capability 8.0+ there"]
            raise ValueError(f"backend='cuda' cannot run on the workers {lacking}: "
                             f"{'; '.join(why)}")
    return "tiles" if engines and all(e != "ranks" for e in engines.values()) else "ranks"


def _ranks(search: Search, start: int, stop: int):
    best = run_search(search, [task_runtime()], start, stop)
    return best.scores, best.combos


class _DeviceTiles:
    """One device's tiles of one search (built by the first task that needs them); the lock
    runs that device's tasks of the search one after another."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tiles = None        # OpenCLTiles or cuda.TensorCoreTiles


_HELD: dict = {}
_HELD_LOCK = threading.Lock()


def _device_tiles(search: Search, device) -> _DeviceTiles:
    """The tiles of ``search`` on ``device`` held by this process, dropped when the search
    is."""
    key = (id(search), device)
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            held = _HELD[key] = _DeviceTiles()
            weakref.finalize(search, _HELD.pop, key, None)
    return held


def _build_tiles(search: Search, on_cuda: bool, backend: str):
    """The worker's tiles: on its CUDA GPU (checked against OpenCL first; with
    ``backend="auto"`` a failure there falls back to OpenCL tiles, which number the tiles
    alike), else on its OpenCL device."""
    plan = tile_plan(search.n_snps, search.order)
    if on_cuda:
        try:
            return cuda.TensorCoreTiles(search, plan)
        except Exception as exc:
            if backend == "cuda":
                raise
            warnings.warn(f"the CUDA tensor-core path could not run on this worker ({exc}); "
                          "using OpenCL tiles", RuntimeWarning, stacklevel=2)
    rt = task_runtime()
    if not tiles_fit(rt, search):                # a worker that joined after route() asked
        raise ValueError(f"the tiles of this order-{search.order} search over "
                         f"{search.n_snps} SNPs do not fit {rt.info.label} (its lower-order "
                         "tables or the tile's local memory)")
    return OpenCLTiles(rt, search, plan)


def _tiles(search: Search, start: int, stop: int, backend: str = "opencl"):
    on_cuda = _on_cuda(search, backend)
    device = ("cuda", cuda.current_device()) if on_cuda else id(task_runtime())
    held = _device_tiles(search, device)
    with held.lock:
        if held.tiles is None:
            held.tiles = _build_tiles(search, on_cuda, backend)
        best = run_tiled(search, held.tiles.launch, held.tiles.plan, start=start, stop=stop)
    return best.scores, best.combos


def plan(search: Search, shared, n_tasks: int | None = None, numbering: str = "ranks",
         backend: str = "opencl") -> list[Task]:
    """Tasks over equal ranges of colex ranks (``numbering="ranks"``) or of tiles ("tiles", as
    :func:`route` chooses; each worker's tiles on CUDA where ``backend`` allows, see
    :func:`engine`); ``shared`` is the search as the executor holds it
    (``client.scatter(search)``)."""
    if numbering not in ROUTES:
        raise ValueError(f"numbering must be one of {ROUTES}, got {numbering!r}")
    tiled = numbering == "tiles"
    total = tile_plan(search.n_snps, search.order).n_tiles if tiled else search.combinations
    n_tasks = n_tasks or max(1, min(total, MAX_TASKS))
    bounds = [total * i // n_tasks for i in range(n_tasks + 1)]
    extra = (backend,) if tiled else ()
    return [Task(_tiles if tiled else _ranks, (shared, a, b, *extra))
            for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def merge(search: Search, results) -> _Best:
    """The top-k of all the tasks' top-k lists."""
    best = _Best.empty(search.top, search.order)
    for scores, combos in results:
        best.merge(scores, combos)
    return best
