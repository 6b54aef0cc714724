"""The device side of :func:`oclstat.ora`: overlaps of gene lists with gene sets as AND +
popcount of bit vectors over the universe (cl_kernels/ora.cl), the lists a chunk at a time.

>>> import numpy as np, oclstat
>>> lists = np.array([[1, 1, 0, 1]], bool); sets = np.array([[1, 0, 0, 1], [0, 1, 1, 0]], bool)
>>> overlaps(oclstat.get_runtime(), lists, sets).tolist()
[[2, 1]]
"""

from __future__ import annotations

import numpy as np

_U32 = np.uint32

#: Largest overlap table (bytes) one launch writes: the lists go in chunks below it.
CHUNK_BYTES = 256 << 20


def _words(members: np.ndarray) -> np.ndarray:
    """Boolean rows (n, genes) as little-endian 32-bit words (n, ceil(genes / 32))."""
    n, genes = members.shape
    padded = np.zeros((n, -(-genes // 32) * 32), dtype=bool)
    padded[:, :genes] = members
    return np.packbits(padded, axis=1, bitorder="little").view("<u4").astype(_U32)


def overlaps(rt, lists: np.ndarray, sets: np.ndarray) -> np.ndarray:
    """(lists, sets) int64 counts of the genes in both, from boolean membership rows over the
    universe (lists: n_lists x genes, sets: n_sets x genes)."""
    n_lists, n_sets = len(lists), len(sets)
    out = np.zeros((n_lists, n_sets), dtype=np.int64)
    if n_lists == 0 or n_sets == 0:
        return out
    set_words = np.ascontiguousarray(_words(sets).T)           # word-major
    n_words = set_words.shape[0]
    d_sets = rt.to_device(set_words, writable=False)
    kernel = rt.kernel("ora.cl", "overlap")
    chunk = max(1, min(n_lists, CHUNK_BYTES // (4 * n_sets)))
    local = min(64, rt.local_size(kernel))
    for l0 in range(0, n_lists, chunk):
        l1 = min(n_lists, l0 + chunk)
        d_lists = rt.to_device(_words(lists[l0:l1]), writable=False)
        counts = np.empty((l1 - l0, n_sets), dtype=_U32)
        with rt.writing_into(counts) as target:
            rt.launch_nd(kernel, (n_sets, l1 - l0), (local, 1), d_lists, d_sets,
                         _U32(n_words), _U32(l1 - l0), _U32(n_sets), target)
        out[l0:l1] = counts
    return out
