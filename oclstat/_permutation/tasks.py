"""The permutation test as tasks (the scale-out protocol, :mod:`oclstat._scale`): chunks of
features; every feature is independent and exact, so any chunking gives the same answer."""

from __future__ import annotations

import numpy as np

from .._scale import Task, task_runtime
from .opencl import device_pvalues

#: Features per task.
CHUNK_FEATURES = 2048


def _chunk(scores, m, n, alternative, mid_p, two_sided="double"):
    base, p, _ = device_pvalues(task_runtime(), scores, m, n, alternative, mid_p, False, False,
                                two_sided)
    return base, p


def plan(scores: np.ndarray, m: int, n: int, alternative: str, mid_p: bool,
         chunk: int | None = None, two_sided: str = "double") -> list[Task]:
    """Tasks over chunks of the features' scores (rows: x's m, then y's n)."""
    chunk = chunk or CHUNK_FEATURES
    return [Task(_chunk, (scores[a:a + chunk], m, n, alternative, mid_p, two_sided))
            for a in range(0, len(scores), chunk)]


def merge(results) -> tuple[np.ndarray, np.ndarray]:
    """(index base, p-values) of every feature, in order."""
    return (np.concatenate([r[0] for r in results]), np.concatenate([r[1] for r in results]))
