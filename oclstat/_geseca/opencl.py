"""The device side of :func:`oclstat.geseca` (cl_kernels/geseca.cl): the expression as
32-bit integers, the observed scores, the simple-sampling null of every set size and the chains of
multilevel splitting.

>>> import numpy as np, oclstat
>>> E = np.array([[1.0, -1.0], [0.5, -0.5], [-1.5, 1.5]])
>>> plan = Plan(oclstat.get_runtime(), E, sizes=[1, 2], dtype=np.float64)
>>> (plan.scores([np.array([0, 1]), np.array([2])]) / plan.unit**2).round(6).tolist()
[4.5, 4.5]
"""

from __future__ import annotations

import math

import numpy as np

from .._random.mrg31k3p import create_stream_states

_U32, _U64 = np.uint32, np.uint64

#: Largest null score table or member scratch of one batch (bytes).
MAX_TABLE = 256 << 20


class Plan:
    """The integer expression (genes x samples, row-centred on the host) and the needed set
    sizes on one device. ``unit`` is 2^b, the integer of 1.0: every value is below 2^30 in
    magnitude (32-bit rows) and every profile of at most ``max(sizes)`` genes an exact
    integer below 2^53."""

    def __init__(self, rt, E: np.ndarray, sizes, dtype):
        self.rt = rt
        self.real = np.dtype(dtype)
        self.n, self.m = (int(s) for s in E.shape)
        self.sizes = np.unique(np.asarray(sizes, dtype=np.int64)).astype(_U32)
        top = float(np.max(np.abs(E))) if E.size else 0.0
        kmax = int(self.sizes[-1]) if self.sizes.size else 1
        if top > 0:
            bits = min(30, 52 - math.ceil(math.log2(kmax + 1))) - math.frexp(top)[1]
            self.unit = math.ldexp(1.0, bits)
        else:
            self.unit = 1.0
        self.E = np.rint(E * self.unit).astype(np.int32)
        self.defines = rt.real_defines(self.real)
        self.e = rt.to_device(np.ascontiguousarray(self.E), writable=False)

    def kernel(self, name):
        return self.rt.kernel("geseca.cl", name, self.defines)

    def scores(self, members: list[np.ndarray]) -> np.ndarray:
        """The device's score of each set (gene indices), in units of ``unit**2``."""
        out = np.zeros(len(members), dtype=self.real)
        if not members:
            return out.astype(np.float64)
        ptr = np.zeros(len(members) + 1, dtype=_U32)
        ptr[1:] = np.cumsum([len(s) for s in members])
        flat = np.concatenate([np.asarray(s, dtype=_U32) for s in members])
        rt = self.rt
        buf = rt.empty(out.nbytes)
        rt.launch(self.kernel("scores"), len(members), self.e, _U32(self.m),
                  rt.to_device(ptr, writable=False),
                  rt.to_device(flat if flat.size else np.zeros(1, _U32), writable=False),
                  _U32(len(members)), buf)
        rt.read(buf, out)
        return out.astype(np.float64)

    def null_batches(self, words, count: int, first: int = 0):
        """Yields (size index, scores) tables (sizes x batch) of ``count`` random draws, draw
        p from stream ``first + p`` of seed ``words``."""
        rt = self.rt
        kmax = int(self.sizes[-1])
        per = kmax * 4 + 5 * self.sizes.size * self.real.itemsize
        batch = max(1, min(count, MAX_TABLE // per, rt.max_items(per, fraction=0.25)))
        sizes = rt.to_device(self.sizes, writable=False)
        kernel = self.kernel("null")
        for lo in range(0, count, batch):
            c = min(batch, count - lo)
            states = rt.to_device(create_stream_states(words, c, first=first + lo),
                                  writable=False)
            members = rt.empty(c * kmax * 4)
            lanes = rt.empty(c * self.sizes.size * 4 * self.real.itemsize)
            out = np.empty((self.sizes.size, c), dtype=self.real)
            buf = rt.empty(out.nbytes)
            rt.launch(kernel, c, states, _U64(0), _U32(c), self.e, _U32(self.n), _U32(self.m),
                      sizes, _U32(self.sizes.size), members, lanes, buf)
            rt.read(buf, out)
            yield out.astype(np.float64)


class Chains:
    """``S`` multilevel chains for each group (one set size each) on one device; chain i of
    group g draws from stream ``first + g S + i`` of seed ``words``."""

    def __init__(self, plan: Plan, group_k, sample_size: int, *, words, first: int):
        rt = self.rt = plan.rt
        self.plan = plan
        self.S = int(sample_size)
        k = np.asarray(group_k, dtype=_U32)
        self.n_groups = k.size
        self.n_chains = self.n_groups * self.S
        base = np.zeros(self.n_groups, dtype=_U64)
        base[1:] = np.cumsum(k.astype(np.uint64) * _U64(self.S))[:-1]
        total = int(k.astype(np.int64).sum()) * self.S
        self.k = rt.to_device(k, writable=False)
        self.base = rt.to_device(base, writable=False)
        self.states = rt.to_device(create_stream_states(words, self.n_chains, first=first))
        real = plan.real.itemsize
        self.chains = [rt.empty(total * 4), rt.empty(total * 4)]
        self.words = (plan.n + 31) // 32
        self.bits = [rt.empty(self.n_chains * self.words * 4) for _ in range(2)]
        self.profiles = [rt.empty(self.n_chains * plan.m * 8) for _ in range(2)]
        self.score = [rt.empty(self.n_chains * real) for _ in range(2)]
        self.bound = rt.empty(self.n_groups * real)
        self.tries = rt.empty(self.n_groups * 4)
        self.accepted = rt.to_device(np.zeros(self.n_chains, dtype=_U32))
        self.source = rt.empty(self.n_chains * 4)
        self.ids = rt.empty(self.n_chains * 4)

    @staticmethod
    def bytes_needed(group_k, sample_size: int, n: int, m: int, real) -> int:
        """Device bytes of the chains of groups of sizes ``group_k`` over ``n`` genes and
        ``m`` samples: members, bitmaps, profiles and scores twice (this level and the
        next), stream states and counters.

        >>> Chains.bytes_needed([15, 40], 101, 1000, 12, np.float64)
        145440
        """
        k = np.asarray(group_k, dtype=np.int64)
        chains = k.size * sample_size
        per_chain = 2 * (m * 8 + np.dtype(real).itemsize + (n + 31) // 32 * 4) + 6 * 4 + 3 * 4
        return int(k.sum()) * sample_size * 2 * 4 + chains * per_chain

    def _scores(self) -> np.ndarray:
        out = np.empty(self.n_chains, dtype=self.plan.real)
        self.rt.read(self.score[0], out)
        return out.astype(np.float64).reshape(self.n_groups, self.S)

    def start(self) -> np.ndarray:
        """Draw the first sets; their scores (groups x S)."""
        p = self.plan
        self.rt.launch(p.kernel("ml_start"), self.n_chains, self.states, p.e,
                       _U32(p.n), _U32(p.m), _U32(self.S), self.k, self.base,
                       _U32(self.n_chains), self.chains[0], self.bits[0], self.profiles[0],
                       self.score[0])
        return self._scores()

    def _ids(self, groups: np.ndarray) -> np.ndarray:
        """The chain ids of ``groups``."""
        return (np.asarray(groups, dtype=np.int64)[:, None] * self.S
                + np.arange(self.S)).ravel().astype(_U32)

    def copy(self, groups: np.ndarray, source: np.ndarray) -> None:
        """Chain i of each group in ``groups`` starts the next level as chain
        ``source[g, i]`` of its group."""
        if len(groups) == 0:
            return
        rt, p = self.rt, self.plan
        ids = self._ids(groups)
        src = (source[groups].astype(np.int64)
               + np.asarray(groups, dtype=np.int64)[:, None] * self.S).ravel()
        rt.write(self.ids, ids)
        rt.write(self.source, np.ascontiguousarray(src, dtype=_U32))
        kernel = p.kernel("ml_copy")
        for put in (0, 1):
            rt.launch(kernel, ids.size, self.chains[0], self.bits[0], self.profiles[0],
                      self.score[0], self.chains[1], self.bits[1], self.profiles[1],
                      self.score[1], _U32(p.n), _U32(p.m), _U32(self.S), self.k, self.base,
                      self.ids, self.source, _U32(ids.size), _U32(put))

    def perturb(self, bound: np.ndarray, tries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``tries[g]`` moves per chain keeping each group's score at least ``bound[g]``
        (0 tries: the group rests); ``(scores, accepted)``, each groups x S."""
        p, rt = self.plan, self.rt
        ids = self._ids(np.flatnonzero(tries))
        rt.write(self.bound, np.ascontiguousarray(bound, dtype=p.real))
        rt.write(self.tries, np.ascontiguousarray(tries, dtype=_U32))
        rt.write(self.ids, ids)
        rt.launch(p.kernel("ml_perturb"), ids.size, self.states, p.e, _U32(p.n),
                  _U32(p.m), _U32(self.S), self.k, self.base, self.bound, self.tries,
                  self.ids, _U32(ids.size), self.chains[0], self.bits[0], self.profiles[0],
                  self.score[0], self.accepted)
        acc = np.empty(self.n_chains, dtype=_U32)
        rt.read(self.accepted, acc)
        return self._scores(), acc.astype(np.int64).reshape(self.n_groups, self.S)
