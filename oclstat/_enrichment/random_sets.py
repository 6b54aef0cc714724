"""The random-set null on a device (cl_kernels/prerank.cl): a ranking's exact weights, the set
sizes and the score type as a :class:`Plan`, and the enrichment scores of random gene sets of
every size drawn from MRG31k3p streams, one batch of permutations at a time. Preranked GSEA's
gene-set permutations and Broad's gene-set permutation of phenotype GSEA both draw their null
here.

>>> import numpy as np, oclstat
>>> plan = Plan(oclstat.get_runtime(), np.arange(50, 0, -1), np.array([5, 10]), np.float64)
>>> [(f, t.shape) for f, t in null_tables(plan, words=(1, 2, 3, 4, 5, 6), first=0, count=3)]
[(0, (3, 1, 2))]
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from .._random.mrg31k3p import create_stream_states

_U32, _U64 = np.uint32, np.uint64

#: Largest null ES table of one batch (bytes): many rankings at once take fewer permutations
#: per batch rather than more memory.
MAX_TABLE = 256 << 20

#: The kernels' codes of fgsea's score types.
SCORE_TYPES = {"std": 0, "pos": 1, "neg": 2}


class Plan:
    """The fixed-point weights of one ranking (a vector) or of several rankings of the same
    genes (rankings x genes), the needed sizes and the score type (fgsea's ``scoreType``:
    "std", "pos" or "neg") on one device."""

    def __init__(self, rt, weights: np.ndarray, sizes: np.ndarray, dtype,
                 score_type: str = "std"):
        self.rt = rt
        self.score_type = score_type
        self.score = _U32(SCORE_TYPES[score_type])
        self.real = np.dtype(dtype)
        weights = np.atleast_2d(np.asarray(weights, dtype=np.int64))
        self.n_rank, self.n = int(weights.shape[0]), int(weights.shape[1])
        self.sizes = np.unique(np.asarray(sizes, dtype=np.int64)).astype(_U32)
        self.defines = rt.real_defines(self.real)
        self._weights = weights
        self.w = rt.to_device(np.ascontiguousarray(weights.ravel()), writable=False)
        self.sizes_buf = rt.to_device(self.sizes, writable=False)
        kmax = int(self.sizes[-1])
        per_perm = kmax * 4 + self.n_rank * (self.sizes.size * self.real.itemsize + 8)
        cap = 65536 if rt.gpu_schedule else 4096
        by_buffer = rt.info.max_alloc // max(kmax * 4, self.n_rank * self.sizes.size
                                             * self.real.itemsize)
        by_table = MAX_TABLE // (self.n_rank * self.sizes.size * self.real.itemsize)
        self.batch = int(max(1, min(cap, rt.max_items(per_perm, fraction=0.25), by_buffer,
                                    by_table)))

    @cached_property
    def wt(self):
        """The weights gene-major (wt[r * n_rank + q]) for the null, whose walks take every
        ranking in turn; made on first use (the multilevel chains read ``w``)."""
        if self.n_rank == 1:
            return self.w
        return self.rt.to_device(np.ascontiguousarray(self._weights.T), writable=False)

    def kernel(self, name):
        return self.rt.kernel("prerank.cl", name, self.defines)


def null_batches(plan: Plan, *, words, first: int, count: int, sizes=None):
    """The simple null of permutations ``first .. first + count - 1`` one batch at a time on
    the device: ``(first, buffer, count)``, the buffer holding ES[q, j, p] of permutation p's
    random set of size ``sizes[j]`` (default ``plan.sizes``; ascending, distinct, none larger
    than the plan's) on ranking q (reused from batch to batch)."""
    rt = plan.rt
    if sizes is None:
        sizes, sizes_buf = plan.sizes, plan.sizes_buf
    else:
        sizes = np.asarray(sizes, dtype=_U32)
        sizes_buf = rt.to_device(sizes, writable=False)
    n_sizes, kmax, n_rank = sizes.size, int(sizes[-1]), plan.n_rank
    batch = min(plan.batch, count)
    members = rt.empty(batch * kmax * 4)
    totals = rt.empty(batch * n_rank * 8)
    es_buf = rt.empty(batch * n_rank * n_sizes * plan.real.itemsize)
    for f in range(first, first + count, batch):
        c = min(batch, first + count - f)
        states = rt.to_device(create_stream_states(words, c, first=f), writable=False)
        rt.launch(plan.kernel("null"), c, states, _U64(0), _U32(c), plan.wt, _U32(plan.n),
                  _U32(n_rank), sizes_buf, _U32(n_sizes), plan.score, members, totals,
                  es_buf)
        yield f, es_buf, c


def null_tables(plan: Plan, *, words, first: int, count: int, sizes=None):
    """The simple null one batch at a time on the host: ``(first, table)`` with table[p, q, j]
    the ES of permutation p's random set of size ``sizes[j]`` (default ``plan.sizes``) on
    ranking q."""
    batch = min(plan.batch, count)
    n_sizes = plan.sizes.size if sizes is None else len(sizes)
    raw = np.empty(batch * plan.n_rank * n_sizes, dtype=plan.real)
    for f, es_buf, c in null_batches(plan, words=words, first=first, count=count,
                                      sizes=sizes):
        part = raw[:c * plan.n_rank * n_sizes].reshape(plan.n_rank, n_sizes, c)
        plan.rt.read(es_buf, part)
        yield f, part.transpose(2, 0, 1).copy()
