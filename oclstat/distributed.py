"""Run the heavy searches as tasks: on a Dask cluster, or on several devices of one process.

``client`` is a ``dask.distributed.Client`` (optional extra ``oclstat[dask]``) or a
:class:`LocalDevices` (several OpenCL devices in this process, no Dask). The functions that take
it cut their work into tasks and merge the results exactly as the single-device path would:

* :func:`oclstat.epistasis` (``client=``): the colex ranks of the combinations, cut into tasks
  of equal combination counts, each returning its top-k; merged by
  (score, SNP indices), the result is identical to one device's.
* :func:`oclstat.gsea` (``client=``): permutation batches; permutation i always draws from
  MRG31k3p stream i of the seed, so the permutations are the same for any number of tasks or
  workers. Round one returns per-set counts and fixed-point ES sums (integers: identical for
  any grouping), round two the null NES counts and per-permutation extremes (each task
  recomputes its permutations: the ES table never travels). Identical to one device's result.
* :func:`permutation_test` and :func:`fisher_sim_batch` here: chunks of features as tasks.

Each Dask worker uses its own OpenCL device (:class:`OclstatPlugin`, or ``OCLSTAT_DEVICE`` in the
worker's environment); programs are built once per worker process (the runtime caches them).
A task lost with its worker is recomputed by Dask; every task is a pure function of its
inputs, so the result does not change.

>>> import numpy as np, oclstat
>>> from oclstat.distributed import LocalDevices
>>> g = np.random.default_rng(0).integers(0, 3, size=(10, 200)); y = np.arange(200) % 2
>>> with LocalDevices([None]) as pool:
...     a = oclstat.epistasis(g, y, order=2, top=5, client=pool)
>>> a.equals(oclstat.epistasis(g, y, order=2, top=5))
True
"""

from __future__ import annotations

import queue
import threading
from concurrent.futures import Future

import numpy as np

from . import _gsea_device as _gd
from ._runtime import get_runtime

__all__ = ["LocalDevices", "OclstatPlugin", "permutation_test", "fisher_sim_batch",
           "epistasis_on", "gsea_null_statistics"]

#: Permutations per GSEA task (the task count is n_perm / this, at most MAX_TASKS).
TASK_PERMUTATIONS = 4096
MAX_TASKS = 256
_THREAD = threading.local()
_WORKER_DEVICE = None


def _task_runtime():
    """The runtime a task runs on: its LocalDevices thread's device, else the worker's."""
    device = getattr(_THREAD, "device", None)
    if device is None:
        device = _WORKER_DEVICE
    return get_runtime(device)


# ----------------------------------------------------------------------------- executors


class LocalDevices:
    """Several OpenCL devices of this process as a task executor (one thread per device pulling
    tasks from a shared queue: dynamic scheduling). ``submit``/``scatter`` mimic Dask's Client.

    ``devices``: indices, names or None (the default device), e.g. ``LocalDevices([0, 1])``.
    """

    def __init__(self, devices):
        self.devices = list(devices)
        if not self.devices:
            raise ValueError("LocalDevices needs at least one device")
        for d in self.devices:
            get_runtime(d)                       # fail now on a bad device name
        self._queue: queue.Queue = queue.Queue()
        self._threads = [threading.Thread(target=self._serve, args=(d,), daemon=True)
                         for d in self.devices]
        for t in self._threads:
            t.start()

    def _serve(self, device):
        _THREAD.device = device if device is not None else get_runtime(None).info.index
        while True:
            item = self._queue.get()
            if item is None:
                return
            fut, fn, args, kwargs = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                fut.set_exception(exc)

    def submit(self, fn, *args, pure=True, **kwargs) -> Future:
        fut: Future = Future()
        self._queue.put((fut, fn, args, kwargs))
        return fut

    def scatter(self, data, broadcast=True):
        return data

    def close(self):
        for _ in self._threads:
            self._queue.put(None)
        for t in self._threads:
            t.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _completed(futures):
    """(future, result) as tasks finish, for Dask or concurrent futures."""
    if futures and isinstance(futures[0], Future):
        from concurrent.futures import as_completed

        for f in as_completed(futures):
            yield f, f.result()
        return
    from distributed import as_completed

    for f, result in as_completed(futures, with_results=True):
        yield f, result


try:  # the Dask worker plugin (only when dask.distributed is installed)
    from distributed.diagnostics.plugin import WorkerPlugin as _WorkerPlugin
except ImportError:  # pragma: no cover - optional extra
    _WorkerPlugin = object


class OclstatPlugin(_WorkerPlugin):
    """Dask worker plugin: every worker uses ``device`` (index or name; None: the worker's
    ``OCLSTAT_DEVICE`` or best device) and builds oclstat's runtime once at start-up.
    ``client.register_plugin(OclstatPlugin(device=0))``."""

    name = "oclstat"

    def __init__(self, device=None):
        self.device = device

    def setup(self, worker):
        global _WORKER_DEVICE
        _WORKER_DEVICE = self.device
        rt = get_runtime(self.device)
        worker.oclstat_device = rt.info.label


# ----------------------------------------------------------------------------- epistasis


def _epistasis_task(search, start, stop):
    best = search.run([_task_runtime()], start, stop)
    return best.scores, best.combos


def epistasis_on(client, search, *, n_tasks=None, progress=None):
    """Cut a prepared epistasis search (:func:`oclstat.epistasis.prepare`) into tasks of equal
    combination counts (ranges of colex ranks) and merge their top-k lists (exact)."""
    from ._progress import Progress
    from .epistasis import _Best

    total = search.combinations
    n_tasks = n_tasks or max(1, min(total, 64))
    bounds = [total * i // n_tasks for i in range(n_tasks + 1)]
    data = client.scatter(search, broadcast=True)
    futures = [client.submit(_epistasis_task, data, a, b, pure=False)
               for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    best = _Best.empty(search.top, search.order)
    with Progress(total=len(futures), desc="epistasis tasks", enabled=progress) as bar:
        for _, (scores, combos) in _completed(futures):
            best.merge(scores, combos)
            bar.update(1)
    return best


# ----------------------------------------------------------------------------- gsea


def _gsea_plan(inputs, count):
    values, mask, sets, metric, weight, dtype = inputs
    plan = _gd._Plan(_task_runtime(), values, mask, sets, metric, weight, count, dtype, None)
    plan.allocate()
    return plan


def _gsea_batches(plan, count):
    return [(f, min(plan.batch, count - f)) for f in range(0, count, plan.batch)]


def _gsea_stats_task(inputs, es_obs, seed, first, count):
    plan = _gsea_plan(inputs, count)
    rt = plan.rt
    states = rt.to_device(_gd.task_states(seed, first, count))
    es_obs_buf = rt.to_device(np.ascontiguousarray(es_obs, dtype=plan.real), writable=False)
    es_buf = rt.empty(plan.n_sets * plan.batch * plan.real.itemsize)
    totals = np.zeros((plan.n_sets, 5), dtype=np.int64)
    for f, c in _gsea_batches(plan, count):
        totals += _gd.batch_stats(plan, states, f, c, es_obs_buf, es_buf)
    return totals


def _gsea_counts_task(inputs, es_obs, norm, seed, first, count):
    pos_mean, neg_mean, nes = norm
    plan = _gsea_plan(inputs, count)
    rt = plan.rt
    states = rt.to_device(_gd.task_states(seed, first, count))
    es_buf = rt.empty(plan.n_sets * plan.batch * plan.real.itemsize)
    counter = _gd.NullCounter(plan, pos_mean, neg_mean, nes, es_obs)
    hp = np.zeros(counter.hp.size, dtype=np.int64)
    hn = np.zeros(counter.hn.size, dtype=np.int64)
    extremes = np.empty((count, 2))
    for f, c in _gsea_batches(plan, count):
        plan.run_batch(states, f, c, es_buf)
        a, b, part = counter.count(es_buf, c)
        hp += a
        hn += b
        extremes[f:f + c] = part
    return hp, hn, extremes


def gsea_null_statistics(client, values, mask, sets, es_obs, *, metric, weight, n_perm, seed,
                         dtype, n_tasks=None, progress=None):
    """The distributed form of the device null statistics (see the module docstring)."""
    from . import random as _random
    from ._progress import Progress

    n_sets = len(sets)
    words = _random._fresh_seed() if seed is None else _random.as_seed(seed)
    n_tasks = n_tasks or max(1, min(MAX_TASKS, -(-n_perm // TASK_PERMUTATIONS)))
    edges = np.linspace(0, n_perm, n_tasks + 1).astype(np.int64)
    pieces = [(int(a), int(b - a)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    inputs = client.scatter((values, mask, list(sets), metric, weight, np.dtype(dtype)),
                            broadcast=True)
    with Progress(total=2 * len(pieces), desc="gsea tasks", enabled=progress) as bar:
        futures = [client.submit(_gsea_stats_task, inputs, es_obs, words, f, c, pure=False)
                   for f, c in pieces]
        totals = np.zeros((n_sets, 5), dtype=np.int64)
        for _, part in _completed(futures):
            totals += part
            bar.update(1)
        pos_mean, neg_mean, nes, pval = _gd.normalisation(totals, es_obs)
        futures = [client.submit(_gsea_counts_task, inputs, es_obs, (pos_mean, neg_mean, nes),
                                 words, f, c, pure=False) for f, c in pieces]
        order = {id(fut): piece for fut, piece in zip(futures, pieces, strict=True)}
        obs_pos, obs_neg = np.sort(nes[es_obs >= 0]), np.sort(nes[es_obs < 0])
        hist_pos = np.zeros(obs_pos.size + 1, dtype=np.int64)
        hist_neg = np.zeros(obs_neg.size + 1, dtype=np.int64)
        extremes = np.empty((n_perm, 2))
        for fut, (hp, hn, part) in _completed(futures):
            first, count = order[id(fut)]
            hist_pos += hp
            hist_neg += hn
            extremes[first:first + count] = part
            bar.update(1)
    fdr, fwer = _gd._fdr_fwer(nes, es_obs, obs_pos, obs_neg, hist_pos, hist_neg, extremes)
    return _gd.NullStatistics(nes, pval, fdr, fwer, None)


# ----------------------------------------------------------------------------- feature chunks


def _perm_task(x, y, kwargs):
    from .permutation import permutation_test as local

    res = local(x, y, device=_task_runtime(), **kwargs)
    return np.atleast_1d(res.statistic), np.atleast_1d(res.pvalue)


def permutation_test(x, y, *, client, chunk=2048, **kwargs):
    """:func:`oclstat.permutation_test` on feature chunks (rows of ``x`` and ``y``, samples in
    the last axis) as tasks; the same result as one call (each feature is independent)."""
    from .permutation import PermutationTestResult

    x, y = np.asarray(x), np.asarray(y)
    if x.ndim != 2 or y.ndim != 2 or x.shape[0] != y.shape[0]:
        raise ValueError("x and y must be 2-D with the same rows (features x samples)")
    if kwargs.get("return_null"):
        raise ValueError("return_null is not supported on a cluster; use the local function")
    edges = list(range(0, x.shape[0], chunk)) + [x.shape[0]]
    futures = [client.submit(_perm_task, x[a:b], y[a:b], kwargs, pure=False)
               for a, b in zip(edges[:-1], edges[1:], strict=True)]
    parts = [f.result() for f in futures]
    return PermutationTestResult(
        statistic=np.concatenate([p[0] for p in parts]),
        pvalue=np.concatenate([p[1] for p in parts]),
        alternative=kwargs.get("alternative", "two-sided"), mid_p=kwargs.get("mid_p", False),
        n_windows=kwargs.get("n_windows"))


def _chunk_seed(seed, index: int) -> tuple[int, ...]:
    """The seed of table chunk ``index``: six words from numpy's SeedSequence of (seed, index)."""
    from . import random as _random

    words = _random.as_seed(seed)
    ss = np.random.SeedSequence([*words, index])
    return tuple(int(v) % 2147462579 or 1 for v in ss.generate_state(6))


def _fisher_task(tables, n_resamples, seed):
    from .fisher import fisher_sim_batch as local

    res = local(tables, n_resamples, seed=seed, device=_task_runtime())
    return res.statistic, res.pvalue, res.count


def fisher_sim_batch(tables, n_resamples=2000, *, client, seed, chunk=1024):
    """:func:`oclstat.fisher_sim_batch` on chunks of ``chunk`` tables; chunk c uses the seed
    :func:`_chunk_seed`(seed, c), so the result depends on ``chunk`` but not on the workers.
    Returns (statistic, pvalue, count) arrays over all tables."""
    items = list(tables)
    edges = list(range(0, len(items), chunk)) + [len(items)]
    futures = [client.submit(_fisher_task, items[a:b], n_resamples, _chunk_seed(seed, i),
                             pure=False)
               for i, (a, b) in enumerate(zip(edges[:-1], edges[1:], strict=True))]
    parts = [f.result() for f in futures]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))
