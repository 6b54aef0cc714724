"""The fields as tasks (the scale-out protocol, :mod:`oclstat._scale`): every function is a map
over a batch of matrices, so the batch is cut into chunks of matrices and the chunks' results
are joined in order; each matrix is computed alone, so any chunking gives the same numbers."""

from __future__ import annotations

import numpy as np

from .._scale import Task, task_runtime

#: Matrices per task.
CHUNK_MATRICES = 32


def on_task_device(host_fn, *args):
    """``host_fn(runtime, *args)`` on the task's device."""
    return host_fn(task_runtime(), *args)


def plan(host_fn, batched: tuple, shared: tuple = (), chunk: int | None = None) -> list[Task]:
    """Tasks of ``host_fn(rt, *batched_chunk, *shared)`` over chunks of the first axis of every
    array in ``batched`` (they have the same length)."""
    chunk = chunk or CHUNK_MATRICES
    n = len(batched[0])
    return [Task(on_task_device, (host_fn, *(x[a:a + chunk] for x in batched), *shared))
            for a in range(0, n, chunk)]


def merge(results):
    """The chunks' results joined along the batch axis (tuples element by element)."""
    if isinstance(results[0], tuple):
        return tuple(np.concatenate(parts) for parts in zip(*results, strict=True))
    return np.concatenate(results)
