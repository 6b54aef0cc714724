"""The device side of :func:`oclstat.gsea_prerank` (cl_kernels/prerank.cl): the observed ES,
the gene-set-permutation null of every set size, and the multilevel chains.

The null of one batch of permutations (a permutations x rankings x sizes ES table) is reduced
on the device to integer counts: for every size, how many null ES are >= 0 and <= 0 and their
fixed-point sums (round(ES 2^32), for NES); for every set, how many null ES of its size are at
least as extreme as its own. Integer counts and sums do not depend on how the permutations
are split into batches, tasks or devices. The observed walks (:func:`observed_walks`) give
every set's ES, both extremes (fgsea's tie rule) and where the leading edge ends, for every
ranking in one launch.

>>> import numpy as np, oclstat
>>> from oclstat._prerank.core import Ranking
>>> r = Ranking.from_stats(np.linspace(2, -2, 50), [f"g{i}" for i in range(50)], weight=1.0)
>>> plan = Plan(oclstat.get_runtime(), r.weights, np.array([5, 10]), np.float64)
>>> c = simple_counts(plan, [np.arange(5), np.arange(10, 20)], np.array([0.9, -0.1]),
...                   words=(1, 2, 3, 4, 5, 6), first=0, count=200)
>>> int(c.n_ge0[0] + c.n_le0[0] >= 200), c.n_more.shape
(1, (2, 2))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._enrichment.random_sets import Plan, null_batches
from .._random.mrg31k3p import create_stream_states
from .multilevel import Ruler

_U32, _U64 = np.uint32, np.uint64

#: Moves a multilevel chain tries per member and level: about one accepted move per member
#: (as fgsea: S k accepted moves per level) from the previous level's acceptance rate, at
#: least MIN_TRIES and at most MAX_TRIES per member.
MIN_TRIES, MAX_TRIES = 1, 100

#: A level whose median did not advance (the chains moved too little: sets of a few genes
#: with discrete ES, few chains) is tried again from where the chains are, with RETRY_BOOST
#: times the moves, up to MAX_RETRIES times (at most MAX_TRIES * max(k, 16) moves per chain),
#: before the group stops there (fgsea's "couldn't advance the median").
MAX_RETRIES, RETRY_BOOST = 3, 4

#: Scale of the fixed-point ES sums.
FIXED = 2.0**32

#: Most bytes the multilevel chains of one climb take: many rankings climb in batches of
#: whole rankings within it (and within a quarter of the device's memory).
MAX_CHAINS = 1 << 30

@dataclass
class SimpleCounts:
    """Integer counts of a range of permutations; ``+`` merges ranges."""

    n_ge0: np.ndarray      # per size: null ES >= 0
    n_le0: np.ndarray      # per size: null ES <= 0
    sum_pos: np.ndarray    # per size: sum of round(max(ES, 0) 2^32)
    sum_neg: np.ndarray    # per size: sum of round(min(ES, 0) 2^32)
    n_more: np.ndarray     # per set: (null >= ES, null <= ES) of its size
    count: int

    def __add__(self, other: SimpleCounts) -> SimpleCounts:
        return SimpleCounts(self.n_ge0 + other.n_ge0, self.n_le0 + other.n_le0,
                            self.sum_pos + other.sum_pos, self.sum_neg + other.sum_neg,
                            self.n_more + other.n_more, self.count + other.count)


@dataclass
class Walks:
    """The observed running sums of every set on every ranking (rankings x sets): the
    maximum ``mx`` and minimum ``mn`` as the device computes the null's, and the first
    member at each (``at_mx``, ``at_mn``: indices into the set's ascending positions)."""

    mx: np.ndarray
    mn: np.ndarray
    at_mx: np.ndarray
    at_mn: np.ndarray

    def score(self, score_type: str) -> np.ndarray:
        """fgsea's score of every set: "pos" the maximum, "neg" the minimum, "std" the
        deviation of larger magnitude (the minimum on an exact tie, as the kernels pick)."""
        if score_type == "pos":
            return self.mx
        if score_type == "neg":
            return self.mn
        return np.where(self.mx > -self.mn, self.mx, self.mn)


def observed_walks(plan: Plan, positions: list) -> Walks:
    """:class:`Walks` of the sets ``positions[q]`` (ascending ranking positions, the same
    sizes in every ranking) on every ranking q of ``plan``."""
    rt = plan.rt
    n_sets = len(positions[0])
    flat = [p for ranking in positions for p in ranking]
    ptr = np.zeros(len(flat) + 1, dtype=np.int64)
    np.cumsum([p.size for p in flat], out=ptr[1:])
    if ptr[-1] >= 2**32:
        raise ValueError("the sets of all rankings hold more than 2^32 members; run fewer "
                         "rankings at once")
    members = np.concatenate(flat).astype(_U32)
    mx = np.empty(len(flat), dtype=plan.real)
    mn = np.empty(len(flat), dtype=plan.real)
    at = np.empty(2 * len(flat), dtype=_U32)
    bufs = [rt.empty(a.nbytes) for a in (mx, mn, at)]
    rt.launch(plan.kernel("es_sets"), len(flat), plan.w, _U32(plan.n),
              rt.to_device(ptr.astype(_U32), writable=False),
              rt.to_device(members, writable=False), _U32(n_sets), _U32(len(positions)),
              *bufs)
    for buf, out in zip(bufs, (mx, mn, at), strict=True):
        rt.read(buf, out)
    shape = (len(positions), n_sets)
    return Walks(mx.astype(np.float64).reshape(shape), mn.astype(np.float64).reshape(shape),
                 at[0::2].astype(np.int64).reshape(shape), at[1::2].astype(np.int64)
                 .reshape(shape))


def observed_es(plan: Plan, positions: list[np.ndarray]) -> np.ndarray:
    """The ES of every set (ascending ranking positions) as the device computes the null's."""
    return observed_walks(plan, [positions]).score(plan.score_type)[0]


def simple_counts(plan: Plan, positions: list[np.ndarray], es_obs: np.ndarray, *, words,
                  first: int, count: int) -> SimpleCounts:
    """Permutations ``first .. first + count - 1`` (MRG31k3p streams of seed ``words``) reduced
    to :class:`SimpleCounts` against the observed ES of every set (one ranking)."""
    return simple_counts_many(plan, [positions], [es_obs], words=words, first=first,
                              count=count)[0]


def simple_counts_many(plan: Plan, positions: list, es_obs: list, *, words, first: int,
                       count: int) -> list:
    """:func:`simple_counts` of every ranking of ``plan`` (``positions[q]``, ``es_obs[q]``:
    ranking q's sets, of the same sizes in every ranking) from one pass: each random set is
    drawn once and scored on every ranking, so ranking q's counts equal a run on it alone.
    The counts are taken on the device, batch by batch (integer sums: any split gives the
    same counts)."""
    rt, sizes = plan.rt, plan.sizes
    n_sizes, n_rank, n_sets = sizes.size, plan.n_rank, len(positions[0])
    size_of = np.searchsorted(sizes, [p.size for p in positions[0]]).astype(_U32)
    obs = np.ascontiguousarray(np.vstack([np.asarray(e, dtype=np.float64) for e in es_obs]),
                               dtype=plan.real)
    stats = np.zeros((n_rank, n_sizes, 4), dtype=np.int64)
    more = np.zeros((n_rank, n_sets, 2), dtype=np.int64)
    stats_buf, more_buf = rt.to_device(stats), rt.to_device(more)
    size_buf = rt.to_device(size_of, writable=False)
    obs_buf = rt.to_device(obs, writable=False)
    done = 0
    for _, es_buf, c in null_batches(plan, words=words, first=first, count=count):
        rt.launch(plan.kernel("size_stats"), n_rank * n_sizes, es_buf, _U32(c), _U32(n_rank),
                  _U32(n_sizes), stats_buf)
        rt.launch(plan.kernel("set_counts"), n_rank * n_sets, es_buf, _U32(c), _U32(n_rank),
                  _U32(n_sizes), _U32(n_sets), size_buf, obs_buf, more_buf)
        done += c
    rt.read(stats_buf, stats)
    rt.read(more_buf, more)
    return [SimpleCounts(stats[q, :, 0], stats[q, :, 1], stats[q, :, 2], stats[q, :, 3],
                         more[q], done) for q in range(n_rank)]


class Chains:
    """The chains of several multilevel groups (one set size, direction and ranking each) on
    one device: ``S`` chains per group. ``segments``: (first stream, groups) of consecutive
    runs of groups, chain i of the run's group g drawing from stream ``first + g S + i`` of
    the seed (default one run from ``first``); ``group_rank``: each group's ranking (a row of
    the plan's weights; default 0)."""

    def __init__(self, plan: Plan, group_k, group_dir, sample_size: int, *, words, first: int,
                 group_rank=None, segments=None):
        rt = self.rt = plan.rt
        self.plan = plan
        self.S = int(sample_size)
        k = np.asarray(group_k, dtype=_U32)
        self.n_groups = k.size
        segments = [(first, self.n_groups)] if segments is None else segments
        if sum(count for _, count in segments) != self.n_groups:
            raise ValueError("the segments must cover the groups")
        rank = np.zeros(self.n_groups, dtype=_U32) if group_rank is None else \
            np.asarray(group_rank, dtype=_U32)
        self.n_chains = self.n_groups * self.S
        base = np.zeros(self.n_groups, dtype=_U64)
        base[1:] = np.cumsum(k.astype(np.uint64) * _U64(self.S))[:-1]
        total = int(k.astype(np.int64).sum()) * self.S
        self.k = rt.to_device(k, writable=False)
        self.dir = rt.to_device(np.asarray(group_dir, dtype=_U32), writable=False)
        self.base = rt.to_device(base, writable=False)
        self.rank = rt.to_device(rank, writable=False)
        self.chains = [rt.empty(total * 4), rt.empty(total * 4)]
        self.states = rt.to_device(np.concatenate(
            [create_stream_states(words, count * self.S, first=f) for f, count in segments
             if count]))
        self.es = rt.empty(self.n_chains * plan.real.itemsize)
        self.pos = rt.empty(self.n_chains * 4)
        self.bound = rt.empty(self.n_groups * plan.real.itemsize)
        self.active = rt.empty(self.n_groups * 4)
        self.tries = rt.empty(self.n_groups * 4)
        self.accepted = rt.empty(self.n_chains * 4)
        self.source = rt.empty(self.n_chains * 4)

    def _read(self):
        es = np.empty(self.n_chains, dtype=self.plan.real)
        ok = np.empty(self.n_chains, dtype=_U32)
        self.rt.read(self.es, es)
        self.rt.read(self.pos, ok)
        if self.plan.score_type != "std":
            ok[:] = 1          # one-sided: every chain's positive ES is its score
        return es.astype(np.float64).reshape(self.n_groups, self.S), \
            ok.astype(bool).reshape(self.n_groups, self.S)

    def start(self):
        """Draw the first sets; ``(es_pos, is_pos)``, each groups x S."""
        self.rt.launch(self.plan.kernel("ml_start"), self.n_chains, self.states, self.plan.w,
                       _U32(self.plan.n), _U32(self.S), self.k, self.dir, self.base,
                       self.rank, _U32(self.n_chains), self.chains[0], self.es, self.pos)
        return self._read()

    def copy(self, source: np.ndarray, active: np.ndarray) -> None:
        """Chain c of the next level starts as chain ``source[g, i]`` of its group."""
        rt = self.rt
        src = (source.astype(np.int64) + np.arange(self.n_groups)[:, None] * self.S)
        rt.write(self.source, np.ascontiguousarray(src.ravel(), dtype=_U32))
        rt.write(self.active, np.ascontiguousarray(active, dtype=_U32))
        rt.launch(self.plan.kernel("ml_copy"), self.n_chains, self.chains[0], self.chains[1],
                  _U32(self.S), self.k, self.base, self.active, self.source,
                  _U32(self.n_chains))
        self.chains.reverse()

    def perturb(self, bound: np.ndarray, tries: np.ndarray):
        """``tries[g]`` moves per chain above each group's ``bound`` (0: the group rests);
        ``(es_pos, is_pos, accepted)``."""
        rt = self.rt
        rt.write(self.bound, np.ascontiguousarray(bound, dtype=self.plan.real))
        rt.write(self.tries, np.ascontiguousarray(tries, dtype=_U32))
        rt.launch(self.plan.kernel("ml_perturb"), self.n_chains, self.states, self.plan.w,
                  _U32(self.plan.n), _U32(self.S), self.k, self.dir, self.base, self.rank,
                  self.bound, self.tries, _U32(self.n_chains), self.chains[0], self.es,
                  self.pos, self.accepted)
        acc = np.empty(self.n_chains, dtype=_U32)
        rt.read(self.accepted, acc)
        es, ok = self._read()
        return es, ok, acc.astype(np.int64).reshape(self.n_groups, self.S)


def climb(plan: Plan, groups, sample_size: int, *, words, first: int) -> list:
    """Multilevel splitting for ``groups`` ((size, direction, target |ES|, eps) each) until
    every group's levels reach its target or its eps; returns a
    :class:`~.multilevel.Ruler` per group (chains drawing from streams ``first ..`` of seed
    ``words``)."""
    return _climb(Chains(plan, [g[0] for g in groups], [g[1] for g in groups], sample_size,
                         words=words, first=first), groups, sample_size)


def chain_bytes(group_k, sample_size: int, real) -> int:
    """Device bytes of the chains of groups of sizes ``group_k``: the positions twice (this
    level and the next), each chain's stream state, score and counters, each group's
    parameters.

    >>> chain_bytes([15, 500], 101, np.float64)
    425080
    """
    k = np.asarray(group_k, dtype=np.int64)
    real = np.dtype(real).itemsize
    per_chain = 6 * 4 + real + 3 * 4            # state; ES; sign, accepted, source
    per_group = 5 * 4 + 8 + real                # k, dir, rank, active, tries; base; bound
    return int(k.sum()) * sample_size * 2 * 4 + k.size * (sample_size * per_chain + per_group)


def ranking_batches(plan: Plan, groups_of: list, sample_size: int) -> list[tuple[int, int]]:
    """``(first, end)`` of consecutive rankings whose chains climb together: as many as fit in
    MAX_CHAINS bytes, one buffer and a quarter of the device's memory (at least one)."""
    budget = min(MAX_CHAINS, plan.rt.max_items(1, fraction=0.25))
    batches, start, used = [], 0, 0
    for q, groups in enumerate(groups_of):
        need = chain_bytes([g[0] for g in groups], sample_size, plan.real)
        if q > start and used + need > budget:
            batches.append((start, q))
            start, used = q, 0
        used += need
    batches.append((start, len(groups_of)))
    return batches


def climb_many(plan: Plan, groups_of: list, sample_size: int, *, words, first: int) -> list:
    """:func:`climb` for the groups of every ranking at once (``groups_of[q]``: ranking q's
    groups, ranking q the plan's weights row q), one launch per level for all of them (for
    as many rankings as :func:`ranking_batches` lets climb together); a list of ranking q's
    rulers per ranking. Each ranking's chains draw the streams a climb on that ranking alone
    draws (``first ..``), and a group's levels depend on its own chains only: every ruler is
    the one :func:`climb` gives for that ranking alone, in any batch."""
    out = []
    for lo, hi in ranking_batches(plan, groups_of, sample_size):
        batch = groups_of[lo:hi]
        flat = [g for groups in batch for g in groups]
        if not flat:
            out.extend([] for _ in batch)
            continue
        rank = np.repeat(np.arange(lo, hi), [len(groups) for groups in batch])
        chains = Chains(plan, [g[0] for g in flat], [g[1] for g in flat], sample_size,
                        words=words, first=first, group_rank=rank,
                        segments=[(first, len(groups)) for groups in batch])
        rulers = _climb(chains, flat, sample_size)
        ends = np.cumsum([len(groups) for groups in batch])
        out.extend(rulers[e - len(groups):e] for e, groups in zip(ends, batch, strict=True))
    return out


def _climb(chains: Chains, groups, sample_size: int) -> list:
    es, ok = chains.start()
    rulers = [Ruler(sample_size) for _ in groups]
    k = np.array([g[0] for g in groups], dtype=np.int64)
    active = np.ones(len(groups), dtype=bool)
    tries = 2 * k                      # the first level: acceptance not known yet
    source = np.zeros((len(groups), sample_size), dtype=np.uint32)
    retries = np.zeros(len(groups), dtype=np.int64)
    while True:
        for g in np.flatnonzero(active):
            source[g] = rulers[g].record(es[g], ok[g])
            if rulers[g].stuck and retries[g] < MAX_RETRIES:
                rulers[g].undo()       # move the chains more, from where they are
                source[g] = np.arange(sample_size)
                retries[g] += 1
            elif not rulers[g].stuck:
                retries[g] = 0
            active[g] = rulers[g].needs_more(groups[g][2], groups[g][3])
        if not active.any():
            return rulers
        chains.copy(source, active)
        bound = np.array([r.scores[-1] for r in rulers])
        boosted = np.minimum(tries * RETRY_BOOST ** retries, MAX_TRIES * np.maximum(k, 16))
        now = np.where(retries > 0, np.maximum(boosted, tries), tries)
        es, ok, accepted = chains.perturb(bound, np.where(active, now, 0))
        # next level: about one accepted move per member (integers: the same on every device)
        got = accepted.sum(axis=1)
        want = -(-k * now * sample_size // np.maximum(got, 1))
        tries = np.clip(want, MIN_TRIES * k, MAX_TRIES * k)
