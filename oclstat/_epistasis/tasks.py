"""The epistasis search as tasks (the scale-out protocol, :mod:`oclstat._scale`): equal ranges
of one numbering of the combinations, each searched on its worker's device; the top-k lists
merge by (score, SNP indices) into exactly one device's result.

The numbering is chosen once per search, before the tasks go out (:func:`route`), so that the
ranges of every worker cover each combination once: the tiles of :mod:`.tiles` where every
worker's device runs the search as tiles (GPU schedules, complete genotypes, tables that fit;
order 5 always), else the colex ranks of the bit-vector search. A worker builds a search's
tiles and lower-order tables once per device and keeps them while the search lives.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from .._scale import Task, task_runtime
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


def _takes_tiles(shape: SearchShape) -> bool:
    return tiles_chosen(shape, [task_runtime()])


def route(client, search: Search) -> str:
    """"tiles" when every worker of ``client`` (a Dask client or LocalDevices: its ``run``
    calls a function once on every worker's device) runs ``search`` as tiles, else "ranks".
    Order 5 runs only as tiles: a worker that cannot hold its tables raises here."""
    answers = client.run(_takes_tiles, SearchShape(search.n_snps, search.order,
                                                   search.complete))
    return "tiles" if answers and all(answers.values()) else "ranks"


def _ranks(search: Search, start: int, stop: int):
    best = run_search(search, [task_runtime()], start, stop)
    return best.scores, best.combos


class _DeviceTiles:
    """One device's tiles of one search (built by the first task that needs them); the lock
    runs that device's tasks of the search one after another."""

    def __init__(self):
        self.lock = threading.Lock()
        self.tiles: OpenCLTiles | None = None


_HELD: dict = {}
_HELD_LOCK = threading.Lock()


def _device_tiles(search: Search, rt) -> _DeviceTiles:
    """The tiles of ``search`` on ``rt`` held by this process, dropped when the search is."""
    key = (id(search), id(rt))
    with _HELD_LOCK:
        held = _HELD.get(key)
        if held is None:
            held = _HELD[key] = _DeviceTiles()
            weakref.finalize(search, _HELD.pop, key, None)
    return held


def _tiles(search: Search, start: int, stop: int):
    rt = task_runtime()
    held = _device_tiles(search, rt)
    with held.lock:
        if held.tiles is None:
            if not tiles_fit(rt, search):        # a worker that joined after route() asked
                raise ValueError(f"the tiles of this order-{search.order} search over "
                                 f"{search.n_snps} SNPs do not fit {rt.info.label} (its "
                                 "lower-order tables or the tile's local memory)")
            held.tiles = OpenCLTiles(rt, search, tile_plan(search.n_snps, search.order))
        best = run_tiled(search, held.tiles.launch, held.tiles.plan, start=start, stop=stop)
    return best.scores, best.combos


def plan(search: Search, shared, n_tasks: int | None = None, numbering: str = "ranks"
         ) -> list[Task]:
    """Tasks over equal ranges of colex ranks (``numbering="ranks"``) or of tiles ("tiles", as
    :func:`route` chooses); ``shared`` is the search as the executor holds it
    (``client.scatter(search)``)."""
    if numbering not in ROUTES:
        raise ValueError(f"numbering must be one of {ROUTES}, got {numbering!r}")
    tiled = numbering == "tiles"
    total = tile_plan(search.n_snps, search.order).n_tiles if tiled else search.combinations
    n_tasks = n_tasks or max(1, min(total, MAX_TASKS))
    bounds = [total * i // n_tasks for i in range(n_tasks + 1)]
    fn = _tiles if tiled else _ranks
    return [Task(fn, (shared, a, b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)
            if b > a]


def merge(search: Search, results) -> _Best:
    """The top-k of all the tasks' top-k lists."""
    best = _Best.empty(search.top, search.order)
    for scores, combos in results:
        best.merge(scores, combos)
    return best
