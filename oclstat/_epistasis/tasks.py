"""The epistasis search as tasks (the scale-out protocol, :mod:`oclstat._scale`): ranges of
colex ranks of equal combination counts, each searched on its worker's device; the top-k lists
merge by (score, SNP indices) into exactly one device's result."""

from __future__ import annotations

from .._scale import Task, task_runtime
from .opencl import run_search
from .plan import Search, _Best

#: Tasks per search (at most; fewer when there are fewer combinations).
MAX_TASKS = 64


def _ranks(search: Search, start: int, stop: int):
    best = run_search(search, [task_runtime()], start, stop)
    return best.scores, best.combos


def plan(search: Search, shared, n_tasks: int | None = None) -> list[Task]:
    """Tasks over equal ranges of ranks; ``shared`` is the search as the executor holds it
    (``client.scatter(search)``)."""
    total = search.combinations
    n_tasks = n_tasks or max(1, min(total, MAX_TASKS))
    bounds = [total * i // n_tasks for i in range(n_tasks + 1)]
    return [Task(_ranks, (shared, a, b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)
            if b > a]


def merge(search: Search, results) -> _Best:
    """The top-k of all the tasks' top-k lists."""
    best = _Best.empty(search.top, search.order)
    for scores, combos in results:
        best.merge(scores, combos)
    return best
