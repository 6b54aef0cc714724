"""Executors for oclstat's tasks: several OpenCL devices of one process, or a Dask cluster.

Every capability that scales out takes ``client=`` (and ``device=`` a list of devices, which
is ``client=LocalDevices(device)``): it plans its work as tasks, an executor runs them, it
merges the results into exactly what one device gives (:mod:`oclstat._scale`, the protocol):

* :func:`oclstat.epistasis`: equal ranges of tiles (when every worker's device runs the search
  as tiles: GPU schedules, and order 5) or of colex ranks, each returning its top-k, merged by
  (score, SNP indices);
* :func:`oclstat.gsea`: batches of permutations in two rounds (integer counts and fixed-point
  sums, then null NES counts; the ES table never travels);
* :func:`oclstat.permutation_test`: chunks of features;
* :func:`oclstat.fisher_sim_batch`: chunks of tables, each drawing from the streams a single
  call gives its tables.

An executor is :class:`LocalDevices` or a ``dask.distributed.Client`` whose workers run
:class:`OclstatPlugin` (each worker uses its own OpenCL device; programs are built once per
worker process). A task lost with its worker is recomputed by Dask; every task is a pure
function of its inputs, so the result does not change.

>>> import numpy as np, oclstat
>>> from oclstat.distributed import LocalDevices
>>> g = np.random.default_rng(0).integers(0, 3, size=(10, 200)); y = np.arange(200) % 2
>>> with LocalDevices([None]) as pool:
...     a = oclstat.epistasis(g, y, order=2, top=5, client=pool)
>>> a.table.equals(oclstat.epistasis(g, y, order=2, top=5).table)
True
"""

from __future__ import annotations

import warnings

from ._runtime import get_runtime
from ._scale import LocalDevices, set_worker_device

__all__ = ["LocalDevices", "OclstatPlugin"]

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
        set_worker_device(self.device)
        rt = get_runtime(self.device)
        worker.oclstat_device = rt.info.label


# ----------------------------------------------------------------------------- old names


def permutation_test(x, y, *, client, chunk=None, **kwargs):
    """Deprecated: :func:`oclstat.permutation_test` takes ``client=`` itself."""
    from ._permutation import permutation_test as public

    warnings.warn("oclstat.distributed.permutation_test is deprecated: pass client= to "
                  "oclstat.permutation_test", DeprecationWarning, stacklevel=2)
    return public(x, y, client=client, **kwargs)


def fisher_sim_batch(tables, n_resamples=2000, *, client, seed, chunk=None):
    """Deprecated: :func:`oclstat.fisher_sim_batch` takes ``client=`` itself (and now gives
    the same counts as one call). Returns (statistic, pvalue, count) as before."""
    from ._fisher import fisher_sim_batch as public

    warnings.warn("oclstat.distributed.fisher_sim_batch is deprecated: pass client= to "
                  "oclstat.fisher_sim_batch", DeprecationWarning, stacklevel=2)
    res = public(tables, n_resamples, seed=seed, client=client)
    return res.statistic, res.pvalue, res.count
