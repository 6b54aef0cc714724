"""Preranked GSEA as tasks (the scale-out protocol, :mod:`oclstat._scale`): the simple null in
ranges of permutations (permutation i draws from MRG31k3p stream i of the seed; the integer
counts of the ranges add up to one device's), and the multilevel groups in chunks (chain i of
group g draws from stream n_resamples + g S + i). Any number of tasks or workers gives the
same answer as one device."""

from __future__ import annotations

import numpy as np

from .._scale import Task, task_runtime
from .opencl import Plan, climb, climb_many, observed_walks, simple_counts_many

#: Permutations per task (at most MAX_TASKS tasks).
TASK_PERMUTATIONS = 8192
MAX_TASKS = 256

#: Multilevel groups per task.
TASK_GROUPS = 32


def pieces(total: int, per_task: int) -> list[tuple[int, int]]:
    """(first, count) of every task over ``total`` items.

    >>> pieces(10, 4)
    [(0, 3), (3, 3), (6, 4)]
    """
    n_tasks = max(1, min(MAX_TASKS, -(-total // per_task)))
    edges = np.linspace(0, total, n_tasks + 1).astype(np.int64)
    return [(int(a), int(b - a)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]


def _simple(inputs, words, first, count):
    weights, sizes, positions, es_obs, dtype, score_type = inputs
    plan = Plan(task_runtime(), weights, sizes, dtype, score_type)
    return simple_counts_many(plan, positions, es_obs, words=words, first=first, count=count)


def _climb(inputs, groups, sample_size, words, first):
    weights, dtype, score_type = inputs
    plan = Plan(task_runtime(), weights, [g[0] for g in groups], dtype, score_type)
    return climb(plan, groups, sample_size, words=words, first=first)


def _observed(weights, sizes, positions, dtype, score_type):
    return observed_walks(Plan(task_runtime(), weights, sizes, dtype, score_type), positions)


def observed(ex, weights, sizes, positions, *, dtype, score_type="std"):
    """The observed walks (:class:`~.opencl.Walks`) of every set on every ranking (rows of
    ``weights``; ``positions[q]`` ranking q's sets), computed as the null's are (on the
    executor's one device, else one task)."""
    if not ex.several:
        return observed_walks(Plan(ex.runtime, weights, sizes, dtype, score_type), positions)
    return ex.map([Task(_observed, (weights, sizes, positions, np.dtype(dtype),
                                    score_type))])[0]


def simple_null(ex, weights, sizes, positions, es_obs, *, words, n_resamples, dtype,
                score_type="std", progress=None):
    """The simple null's counts of one ranking (on one device, else merged over
    the executor's tasks)."""
    return simple_null_many(ex, np.atleast_2d(weights), sizes, [positions], [es_obs],
                            words=words, n_resamples=n_resamples, dtype=dtype,
                            score_type=score_type, progress=progress)[0]


def simple_null_many(ex, weights, sizes, positions, es_obs, *, words, n_resamples,
                     dtype, score_type="std", progress=None):
    """The simple null's counts of every ranking (rows of ``weights``; ``positions[q]`` and
    ``es_obs[q]`` ranking q's sets) from shared draws: a list, one per ranking."""
    if not ex.several:
        return simple_counts_many(Plan(ex.runtime, weights, sizes, dtype, score_type), positions,
                                  es_obs, words=words, first=0, count=n_resamples)
    inputs = ex.scatter((weights, sizes, positions, es_obs, np.dtype(dtype), score_type))
    parts = pieces(n_resamples, TASK_PERMUTATIONS)
    results = ex.map([Task(_simple, (inputs, words, f, c)) for f, c in parts],
                     progress=progress, desc="prerank tasks")
    total = results[0]
    for r in results[1:]:
        total = [a + b for a, b in zip(total, r, strict=True)]
    return total


def multilevel(ex, weights, groups, *, sample_size, words, first, dtype,
               score_type="std", progress=None):
    """The rulers of every group, in group order (on one device, else tasks)."""
    if not ex.several:
        plan = Plan(ex.runtime, weights, [g[0] for g in groups], dtype, score_type)
        return climb(plan, groups, sample_size, words=words, first=first)
    inputs = ex.scatter((weights, np.dtype(dtype), score_type))
    parts = pieces(len(groups), TASK_GROUPS)
    results = ex.map([Task(_climb, (inputs, groups[a:a + c], sample_size, words,
                                    first + a * sample_size)) for a, c in parts],
                     progress=progress, desc="multilevel tasks")
    return [r for part in results for r in part]


def multilevel_many(ex, weights, groups_of, *, sample_size, words, first, dtype,
                    score_type="std", progress=None):
    """The rulers of every ranking's groups (``groups_of[q]`` on ranking q, rows of
    ``weights``): on one device the groups of all rankings climb together, one launch per level;
    with tasks each ranking's groups in tasks, as :func:`multilevel`. Either way each
    ruler is the one ranking q alone gets."""
    if not any(groups_of):
        return [[] for _ in groups_of]
    if not ex.several:
        plan = Plan(ex.runtime, weights, [g[0] for groups in groups_of for g in groups], dtype,
                    score_type)
        return climb_many(plan, groups_of, sample_size, words=words, first=first)
    return [multilevel(ex, weights[q], groups, sample_size=sample_size, words=words,
                       first=first, dtype=dtype, score_type=score_type, progress=progress)
            if groups else [] for q, groups in enumerate(groups_of)]
