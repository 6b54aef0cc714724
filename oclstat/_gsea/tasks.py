"""GSEA's null statistics as tasks (the scale-out protocol, :mod:`oclstat._scale`), in two
rounds over batches of permutations. Permutation i always draws from MRG31k3p stream i of the
seed, so the permutations are the same for any number of tasks or workers. Round one returns
per-set counts and fixed-point ES sums (integers: identical for any grouping), round two the
null NES counts and per-permutation extremes (each task recomputes its permutations: the ES
table never travels). The result is identical to one device's."""

from __future__ import annotations

import numpy as np

from .._scale import Task, task_runtime
from .opencl import NullCounter, _Plan, batch_stats, task_states
from .stats import NullStatistics, _fdr_fwer, normalisation

#: Permutations per task (the task count is n_resamples / this, at most MAX_TASKS).
TASK_PERMUTATIONS = 4096
MAX_TASKS = 256


def _plan_on_worker(inputs, count):
    values, mask, sets, metric, weight, dtype = inputs
    plan = _Plan(task_runtime(), values, mask, sets, metric, weight, count, dtype)
    plan.allocate()
    return plan


def _batches(plan, count):
    return [(f, min(plan.batch, count - f)) for f in range(0, count, plan.batch)]


def _stats(inputs, es_obs, seed, first, count):
    plan = _plan_on_worker(inputs, count)
    rt = plan.rt
    states = rt.to_device(task_states(seed, first, count))
    es_obs_buf = rt.to_device(np.ascontiguousarray(es_obs, dtype=plan.real), writable=False)
    es_buf = rt.empty(plan.n_sets * plan.batch * plan.real.itemsize)
    totals = np.zeros((plan.n_sets, 5), dtype=np.int64)
    for f, c in _batches(plan, count):
        totals += batch_stats(plan, states, f, c, es_obs_buf, es_buf)
    return totals


def _counts(inputs, es_obs, norm, seed, first, count):
    pos_mean, neg_mean, nes = norm
    plan = _plan_on_worker(inputs, count)
    rt = plan.rt
    states = rt.to_device(task_states(seed, first, count))
    es_buf = rt.empty(plan.n_sets * plan.batch * plan.real.itemsize)
    counter = NullCounter(plan, pos_mean, neg_mean, nes, es_obs)
    hp = np.zeros(counter.hp.size, dtype=np.int64)
    hn = np.zeros(counter.hn.size, dtype=np.int64)
    extremes = np.empty((count, 2))
    for f, c in _batches(plan, count):
        plan.run_batch(states, f, c, es_buf)
        a, b, part = counter.count(es_buf, c)
        hp += a
        hn += b
        extremes[f:f + c] = part
    return hp, hn, extremes


def pieces(n_resamples: int, n_tasks: int | None = None) -> list[tuple[int, int]]:
    """(first permutation, count) of every task."""
    n_tasks = n_tasks or max(1, min(MAX_TASKS, -(-n_resamples // TASK_PERMUTATIONS)))
    edges = np.linspace(0, n_resamples, n_tasks + 1).astype(np.int64)
    return [(int(a), int(b - a)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]


def null_statistics(ex, values, mask, sets, es_obs, *, metric, weight, n_resamples, words,
                    dtype, progress=None) -> NullStatistics:
    """Both rounds as tasks on the executor ``ex`` (plan, run, merge, twice)."""
    parts = pieces(n_resamples)
    inputs = ex.scatter((values, mask, list(sets), metric, weight, np.dtype(dtype)))
    totals = sum(ex.map([Task(_stats, (inputs, es_obs, words, f, c)) for f, c in parts],
                        progress=progress, desc="gsea tasks (1/2)"))
    pos_mean, neg_mean, nes, pval = normalisation(totals, es_obs)
    results = ex.map([Task(_counts, (inputs, es_obs, (pos_mean, neg_mean, nes), words, f,
                                     c)) for f, c in parts],
                     progress=progress, desc="gsea tasks (2/2)")
    obs_pos, obs_neg = np.sort(nes[es_obs >= 0]), np.sort(nes[es_obs < 0])
    hist_pos = sum(r[0] for r in results)
    hist_neg = sum(r[1] for r in results)
    extremes = np.concatenate([r[2] for r in results])
    fdr, fwer = _fdr_fwer(nes, es_obs, obs_pos, obs_neg, hist_pos, hist_neg, extremes)
    return NullStatistics(nes, pval, fdr, fwer, None, totals[:, 4].copy())
