"""The device side of the rank-based scores (ssGSEA, AUCell, UCell) of cells held sparse: each
cell ranked on the device from its stored values alone, and each set's sum over its members
taken there too, so that nothing of the size genes x cells is built on the host
(cl_kernels/singlesample.cl: ``cell_ranks``, ``ssgsea_sums``, ``member_sums``).

A cell of m stored values costs m^2 comparisons (each value counts the values above it,
equal to it and equal in an earlier row): nothing to a GPU, but more than the host's sort on
a CPU, so the scores take this path on devices with the GPU schedule only. Positions and
average ranks come out as integers, the same on every device; AUCell's areas and UCell's
capped ranks are integer sums; ssGSEA weighs with the host's table (one weight per
twice-rank) and sums over each set's members in their order as the host does: the same bits
as the host's blocks (:func:`~.core.ssgsea_block`, :func:`~.core.aucell_block`,
:func:`~.ucell.ucell_block`). Cells with more than :data:`MAX_VALUES_PER_CELL` stored values
(dense ones) stay on the host.

>>> import numpy as np, oclstat
>>> from scipy import sparse
>>> from oclstat._singlesample import core
>>> x = sparse.random(300, 20, density=0.1, format="csc", random_state=1)
>>> sets = [np.arange(12), np.arange(40, 90)]
>>> cells = DeviceCells(oclstat.get_runtime(), sets, n_genes=300)
>>> ours = cells.ssgsea(x, alpha=0.25, flavor="gsva")
>>> bool(np.array_equal(ours, core.ssgsea_block(x, sets, 0.25, "gsva")))
True
"""

from __future__ import annotations

import numpy as np

from .._runtime import NoDeviceError, cl, schedule_setting, select_device
from .._scale import executor
from .core import ssgsea_weights

__all__ = ["DeviceCells", "MAX_VALUES_PER_CELL", "CELLS_PER_LAUNCH", "cells_runtime"]

#: Stored values per cell up to which the device ranks the cell (m^2 comparisons).
MAX_VALUES_PER_CELL = 8192
#: Cells ranked and scored per launch of each kernel.
CELLS_PER_LAUNCH = 4096

_U32 = np.uint32


def cells_runtime(device, workload: str):
    """The runtime that ranks sparse cells, or None for the host's sort: a device with the
    GPU schedule (a GPU, or ``OCLSTAT_SCHEDULE=gpu``) and fp64. With ``device=None`` a CPU is
    not even opened (its context would cost more than it gives), and no device at all means
    the host."""
    if device is None and schedule_setting() != "gpu":
        try:
            if select_device(None, workload).type & cl.device_type.CPU:
                return None
        except NoDeviceError:
            return None
    rt = executor(device, None, workload, several=False).runtime
    return rt if rt.gpu_schedule and rt.info.fp64 else None


class DeviceCells:
    """Rank-based scores of blocks of sparse cells on the device ``rt`` for the gene sets
    ``sets`` (arrays of rows of ``n_genes`` genes), sent once."""

    def __init__(self, rt, sets: list, *, n_genes: int):
        self.rt, self.n, self.n_sets = rt, int(n_genes), len(sets)
        members = np.concatenate([np.asarray(s, dtype=np.int64) for s in sets] or [[]])
        bounds = np.concatenate([[0], np.cumsum([len(s) for s in sets])])
        self.members = rt.to_device(np.append(members, 0).astype(_U32), writable=False)
        self.bounds = rt.to_device(bounds.astype(_U32), writable=False)
        self._weights = {}

    @staticmethod
    def usable(rt, block) -> bool:
        """Whether this path serves ``block`` on ``rt``: a device with the GPU schedule and
        fp64, and no cell of more than MAX_VALUES_PER_CELL stored values."""
        counts = np.diff(block.indptr)
        return bool(rt.gpu_schedule and rt.info.fp64 and
                    (counts.size == 0 or int(counts.max()) <= MAX_VALUES_PER_CELL))

    def ssgsea(self, block, *, alpha: float, flavor: str) -> np.ndarray:
        """Unnormalised ssGSEA scores, sets x cells (:func:`~.core.ssgsea_block`)."""
        key = (float(alpha), flavor)
        if key not in self._weights:
            self._weights[key] = self.rt.to_device(ssgsea_weights(self.n, alpha, flavor),
                                                   writable=False)
        return self._blocks(block, flavor == "gseapy", "ssgsea_sums", np.float64,
                            (self._weights[key],))

    def areas(self, block, max_rank: int) -> np.ndarray:
        """AUCell's areas under the recovery curves up to ``max_rank``, sets x cells
        (integers as float64)."""
        return self._blocks(block, False, "member_sums", np.uint64,
                            (), (_U32(0), _U32(max_rank))).astype(np.float64)

    def capped_ranks(self, block, max_rank: int) -> np.ndarray:
        """UCell's sums of each member's rank by decreasing value capped at ``max_rank``
        (average ranks for ties), sets x cells."""
        twice = self._blocks(block, False, "member_sums", np.uint64, (),
                             (_U32(1), _U32(max_rank)))
        return twice.astype(np.float64) / 2.0

    def _blocks(self, block, rows_decreasing, name, dtype, before, after=()) -> np.ndarray:
        from scipy import sparse

        block = sparse.csc_matrix(block, dtype=np.float64)
        block.sum_duplicates()                 # rows in increasing order within a cell
        block.eliminate_zeros()
        out = np.empty((self.n_sets, block.shape[1]), dtype=dtype)
        for c0 in range(0, block.shape[1], CELLS_PER_LAUNCH):
            c1 = min(block.shape[1], c0 + CELLS_PER_LAUNCH)
            out[:, c0:c1] = self._launch(block[:, c0:c1], rows_decreasing, name, dtype,
                                         before, after)
        return out

    def _launch(self, block, rows_decreasing, name, dtype, before, after) -> np.ndarray:
        rt = self.rt
        defines = rt.real_defines(np.dtype(np.float64))   # the file's other kernels need it
        if rows_decreasing:
            defines["ROWS_DECREASING"] = 1
        b, nnz = block.shape[1], int(block.nnz)
        cell_of = np.repeat(np.arange(b), np.diff(block.indptr))
        positive = np.bincount(cell_of, weights=block.data > 0, minlength=b).astype(_U32)
        start = rt.to_device(block.indptr.astype(_U32), writable=False)
        rows = rt.to_device(np.append(block.indices, 0).astype(_U32), writable=False)
        pos, rank2 = rt.empty(max(1, nnz) * 4), rt.empty(max(1, nnz) * 4)
        if nnz:
            group = 128 if rt.gpu_schedule else 64
            rt.launch_nd(rt.kernel("singlesample.cl", "cell_ranks", defines), (b * group,),
                         (group,), rt.to_device(block.data, writable=False), start,
                         _U32(self.n), _U32(b), pos, rank2)
        out = rt.empty(self.n_sets * b * np.dtype(dtype).itemsize)
        rt.launch_nd(rt.kernel("singlesample.cl", name, defines), (b, self.n_sets), (64, 1),
                     rows, start, rt.to_device(positive, writable=False), pos, rank2,
                     self.members, self.bounds, *before, _U32(self.n), _U32(b),
                     _U32(self.n_sets), *after, out)
        result = np.empty((self.n_sets, b), dtype=dtype)
        rt.read(out, result)
        return result
