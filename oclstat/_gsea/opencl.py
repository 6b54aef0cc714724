"""The device side of :func:`oclstat.gsea`: permutation batches from labels to null statistics.

Plan: permutations are cut into batches that fit the device; each batch runs
``gsea_labels -> gsea_metric -> gsea_rank -> gsea_es_(walk|pairs) -> gsea_set_stats``
(cl_kernels/gsea.cl). The per-set sums give every set's same-sign null means (NES); then
``gsea_null_counts`` runs over each batch's ES table again, which stays on the device when all
batches fit (else it is recomputed from the same streams). Only counts, sums and per-permutation
extremes come back to the host.

>>> import numpy as np, oclstat
>>> rng = np.random.default_rng(1)
>>> x = rng.normal(size=(40, 6)); mask = np.array([1, 1, 1, 0, 0, 0], bool)
>>> out = null_statistics(oclstat.get_runtime(), x, mask, [np.arange(10, dtype=np.uint32)],
...                       np.array([0.3]), metric="signal_to_noise", weight=1.0, n_resamples=50,
...                       seed=1, dtype=np.float64, return_null=True,
...                       progress=False)
>>> out.es_table.shape, bool(0 <= out.pval[0] <= 1)
((1, 50), True)
"""

from __future__ import annotations

import numpy as np

from .._enrichment.walks import weight_bits
from .._progress import Progress
from .._random.mrg31k3p import create_stream_states
from .._random.streams import as_seed, stream_buffer
from .core import PROFILE_METRICS, profile_scale
from .stats import NullStatistics, _fdr_fwer, normalisation

_U32, _U64 = np.uint32, np.uint64


_METRIC_CODE = {
    "signal_to_noise": 0,
    "t_test": 1,
    "diff_of_classes": 2,
    "ratio_of_classes": 3,
    "log2_ratio_of_classes": 4,
    "abs_signal_to_noise": 5,
    "pearson": 6,
    "cosine": 7,
    "manhattan": 8,
    "euclidean": 9,
}


#: Shuffled profiles per work-item in gsea_metric_profile (each expression value is read once
#: for PPI of them). 4 was the class metrics' choice too when they read every sample (8 was
#: slower on an H100, benchmarks/RESULTS.md); gsea_metric now runs one permutation per item.
PPI = 4


NB_MIN = 2048    # buckets per permutation in gsea_rank: at least this, about 4 genes per
NB_MAX = 1 << 16  # bucket where local memory holds the counts (fewer comparisons per gene)


CAP_MIN = 1024   # members per pack in gsea_es_pairs (at least the largest set)


#: Largest ES table (bytes) that return_null=True brings back.
MAX_RETURNED_TABLE = 2 << 30


def _weight_mode(weight: float) -> tuple[int, str]:
    modes = {0.0: 0, 1.0: 1, 2.0: 2, 1.5: 3}
    return modes.get(weight, 4), repr(float(weight))


def _totals(xt: np.ndarray) -> np.ndarray:
    """Each gene's sum and sum of squares over the samples (rows of the sample-major ``xt``),
    added in sample order in float64: (2, genes), what gsea_metric takes the smaller class's
    sums from."""
    out = np.zeros((2, xt.shape[1]))
    for row in xt.astype(np.float64):
        out[0] += row
        out[1] += row * row
    return out


def _pow2_at_most(n: int) -> int:
    return 1 << (max(1, int(n)).bit_length() - 1)


class _Plan:
    """Buffers, kernels and sizes of one gsea run on one device."""

    def __init__(self, rt, values, pheno, sets, metric, weight, n_resamples, dtype):
        """``pheno``: the class-A mask, or the continuous profile of the profile metrics."""
        self.rt = rt
        self.profile = metric in PROFILE_METRICS
        real = np.dtype(dtype)
        self.real = real
        mode, wp = _weight_mode(weight)
        self.ppi = PPI
        self.defines = {
            **rt.real_defines(real),
            "METRIC": _METRIC_CODE[metric],
            "WEIGHT_MODE": mode,
            "WEIGHT_P": wp,
            "PPI": self.ppi,
            "NB": self._buckets(rt, values.shape[0]),
            "WEIGHT_BITS": weight_bits(values.shape[0]),
        }
        self.n_genes, self.n = values.shape
        self.n_words = -(-self.n // 32)
        self.n_sets = len(sets)
        if self.profile:
            # sample-major (neighbouring work-items, genes, read neighbouring values), as the
            # host's metric reads them: centred for pearson; the norms' products per gene
            x, t, scale = profile_scale(values, pheno, metric)
            self.n_a = 0
            self.xt = rt.to_device(np.ascontiguousarray(x.T, dtype=real), writable=False)
            self.centre = rt.to_device(scale.astype(real), writable=False)
            self.template = rt.to_device(t.astype(real), writable=False)
        else:
            self.n_a = int(pheno.sum())
            centre = values.mean(axis=1)
            xt = np.ascontiguousarray((values - centre[:, None]).T, dtype=real)
            self.xt = rt.to_device(xt, writable=False)
            self.centre = rt.to_device(centre.astype(real), writable=False)
            self.totals = rt.to_device(_totals(xt).astype(real), writable=False)
        # gsea_metric reads the samples of the smaller class only
        self.defines["MINORITY_A"] = int(self.n_a <= self.n - self.n_a)
        self.set_size = rt.to_device(np.array([s.size for s in sets], dtype=_U32), writable=False)
        self.schedule = self._choose(sets)
        self.defines["RANKED"] = int(self.schedule == "pairs")
        if self.schedule == "pairs":
            self._pack(sets)
            wanted = np.unique(np.concatenate([s.astype(_U32) for s in sets]))
        else:
            self._gene_index(sets)
            wanted = np.zeros(1, dtype=_U32)     # every gene is ranked
        self.n_wanted = wanted.size if self.schedule == "pairs" else 0
        self.wanted = rt.to_device(wanted, writable=False)
        self.n_resamples = n_resamples
        self.batch = self._batch_size()

    # -- planning ---------------------------------------------------------------------------

    @staticmethod
    def _buckets(rt, n_genes: int) -> int:
        """Buckets of gsea_rank: a power of two near n_genes / 4 (each gene is compared with
        the others of its bucket), at least NB_MIN, at most what local memory holds (two
        counts per bucket beside the reduction's 20 bytes per work-item)."""
        want = _pow2_at_most(max(NB_MIN, n_genes // 4))
        room = _pow2_at_most(max(NB_MIN, (rt.local_mem - 1024 - 20 * 256) // 8))
        return max(NB_MIN, min(want, room, NB_MAX))

    def _choose(self, sets) -> str:
        """The ES schedule: "pairs" in a GPU schedule when the largest pack fits local memory,
        else "walk" (see cl_kernels/gsea.cl)."""
        largest = max(s.size for s in sets)
        self.cap = max(CAP_MIN, largest)
        local_bytes = self.cap * (4 + 8 + 2 * self.real.itemsize)
        fits = local_bytes <= self.rt.local_mem - 1024
        return "pairs" if self.rt.gpu_schedule and fits else "walk"

    def _pack(self, sets) -> None:
        """Sets, largest first, filled into packs of at most ``cap`` members (next fit)."""
        by_size = sorted(range(len(sets)), key=lambda s: (-sets[s].size, s))
        members, member_set, set_begin, pack_begin = [], [], np.zeros(len(sets), _U32), [0]
        filled = 0
        for s in by_size:
            k = sets[s].size
            if filled + k > self.cap:
                pack_begin.append(pack_begin[-1] + filled)
                filled = 0
            set_begin[s] = pack_begin[-1] + filled
            members.append(sets[s])
            member_set.append(np.full(k, s, dtype=_U32))
            filled += k
        pack_begin.append(pack_begin[-1] + filled)
        rt = self.rt
        self.n_packs = len(pack_begin) - 1
        self.pack_begin = rt.to_device(np.array(pack_begin, dtype=_U32), writable=False)
        self.members = rt.to_device(np.concatenate(members).astype(_U32), writable=False)
        self.member_set = rt.to_device(np.concatenate(member_set), writable=False)
        self.set_begin = rt.to_device(set_begin, writable=False)

    def _gene_index(self, sets) -> None:
        """For every gene, the sets it belongs to (CSR, ascending set index)."""
        pairs_g = np.concatenate([s.astype(np.int64) for s in sets])
        pairs_s = np.concatenate([np.full(s.size, i, dtype=np.int64) for i, s in enumerate(sets)])
        order = np.lexsort((pairs_s, pairs_g))
        ptr = np.zeros(self.n_genes + 1, dtype=_U32)
        np.cumsum(np.bincount(pairs_g, minlength=self.n_genes), out=ptr[1:])
        self.gene_ptr = self.rt.to_device(ptr, writable=False)
        self.gene_sets = self.rt.to_device(pairs_s[order].astype(_U32), writable=False)

    def _batch_size(self) -> int:
        r = self.real.itemsize
        index_bytes = 12 if self.schedule == "walk" else 8     # rank, slots (and order)
        per_perm = self.n_genes * (2 * r + index_bytes) + self.n_words * 4 + self.n_sets * r
        if self.profile:
            per_perm += self.n * 4
        if self.schedule == "walk":
            per_perm += self.n_sets * (2 * r + 16 + 4)
        limit = self.rt.max_items(per_perm, fraction=0.25)
        by_buffer = self.rt.info.max_alloc // max(self.n_genes * max(r, 4), self.n_sets * r)
        cap = 32768 if self.rt.gpu_schedule else 4096
        size = max(self.ppi, min(self.n_resamples, limit, by_buffer, cap))
        return -(-size // self.ppi) * self.ppi

    # -- kernels ----------------------------------------------------------------------------

    def kernel(self, name):
        return self.rt.kernel("gsea.cl", name, self.defines)

    def local(self, name, most: int) -> int:
        return _pow2_at_most(min(most, self.rt.kernel_group_size(self.kernel(name))))

    def allocate(self) -> None:
        rt, pb, g, r = self.rt, self.batch, self.n_genes, self.real.itemsize
        self.labels = rt.empty(pb * (self.n if self.profile else self.n_words) * 4)
        self.key = rt.empty(pb * g * r)
        self.rank = rt.empty(pb * g * 4)
        # the walk reads the genes in rank order; the pairs read the members' ranks alone
        self.order = rt.empty(pb * g * 4 if self.schedule == "walk" else 4)
        self.slots = rt.empty(pb * g * 4)
        self.slot_key = rt.empty(pb * g * r)
        self.wexp = rt.empty(pb * 4)
        self.stats = rt.empty(self.n_sets * 5 * 8)
        if self.schedule == "walk":
            self.scratch = rt.empty(pb * self.n_sets * 2 * r)
            self.sums = rt.empty(pb * self.n_sets * 2 * 8)
            self.hits = rt.empty(pb * self.n_sets * 4)

    def run_batch(self, states, first: int, count: int, es_buf) -> None:
        """Permutations first .. first + count - 1 into ``es_buf`` (sets x count)."""
        rt, g = self.rt, self.n_genes
        local = rt.local_memory
        lg = 128 if rt.gpu_schedule else 64
        if self.profile:
            rt.launch(self.kernel("shuffle"), count, states, _U64(first), _U32(self.n),
                      self.labels, _U32(count))
            rt.launch_nd(self.kernel("metric_profile"), (g, -(-count // self.ppi)), (lg, 1),
                         self.xt, self.centre, self.template, self.labels, _U32(g),
                         _U32(self.n), _U32(count), self.key)
        else:
            rt.launch(self.kernel("labels"), count, states, _U64(first), _U32(self.n),
                      _U32(self.n_a), _U32(self.n_words), self.labels, _U32(count))
            rt.launch_nd(self.kernel("metric"), (g, count), (lg, 1), self.xt, self.centre,
                         self.totals, self.labels, _U32(g), _U32(self.n), _U32(self.n_a),
                         _U32(self.n_words), _U32(count), self.key)
        nb = self.defines["NB"]
        lr = min(self.local("rank", 256), nb)
        rt.launch_nd(self.kernel("rank"), (count * lr,), (lr,), self.key, _U32(g),
                     self.slots, self.slot_key, self.rank, self.order, self.wexp,
                     self.wanted, _U32(self.n_wanted),
                     local(4 * nb), local(4 * nb), local(4 * lr),
                     local(2 * lr * self.real.itemsize))
        if self.schedule == "pairs":
            lp = self.local("es_pairs", 256 if rt.gpu_schedule else 64)
            rs = self.real.itemsize
            rt.launch_nd(self.kernel("es_pairs"), (self.n_packs * lp, count), (lp, 1),
                         self.key, self.rank, self.wexp, _U32(g), self.pack_begin,
                         self.members, self.member_set, self.set_begin, self.set_size, es_buf,
                         _U32(count), local(4 * self.cap), local(8 * self.cap),
                         local(rs * self.cap), local(rs * self.cap))
        else:
            rt.launch(self.kernel("es_walk"), count, self.key, self.order, self.wexp,
                      _U32(g), self.gene_ptr, self.gene_sets, self.set_size,
                      _U32(self.n_sets), self.scratch, self.sums, self.hits, es_buf,
                      _U32(count))


def task_states(seed, first: int, count: int) -> np.ndarray:
    """MRG31k3p states of streams ``first .. first + count - 1`` of ``seed`` (permutation i uses
    stream i), for a batch computed on its own (a task on another worker)."""
    return create_stream_states(as_seed(seed), count, first=first)


def batch_stats(plan, states, first, count, es_obs_buf, es_buf):
    """Permutations first .. first + count - 1 (states index ``first`` is the first of them)
    into ``es_buf``; returns their per-set stats (n_sets, 5) int64."""
    rt = plan.rt
    plan.run_batch(states, first, count, es_buf)
    out = np.empty((plan.n_sets, 5), dtype=np.int64)
    rt.launch(plan.kernel("set_stats"), plan.n_sets, es_buf, _U32(count),
              _U32(plan.n_sets), es_obs_buf, plan.stats)
    rt.read(plan.stats, out)
    return out


class NullCounter:
    """The second pass over a batch: its null NES counted against the observed NES."""

    def __init__(self, plan, pos_mean, neg_mean, nes, es_obs):
        rt = self.rt = plan.rt
        self.plan = plan
        self.obs_pos = np.sort(nes[es_obs >= 0])
        self.obs_neg = np.sort(nes[es_obs < 0])
        self.hp = np.empty(self.obs_pos.size + 1, dtype=_U32)
        self.hn = np.empty(self.obs_neg.size + 1, dtype=_U32)
        self.hp_buf, self.hn_buf = rt.empty(self.hp.nbytes), rt.empty(self.hn.nbytes)
        real = plan.real

        def dev(a):
            return rt.to_device(np.ascontiguousarray(a if a.size else np.zeros(1), dtype=real),
                                writable=False)

        self.args = [dev(pos_mean), dev(neg_mean), dev(self.obs_pos), _U32(self.obs_pos.size),
                     dev(self.obs_neg), _U32(self.obs_neg.size), self.hp_buf, self.hn_buf]
        self.ext_buf = rt.empty(plan.batch * 2 * real.itemsize)

    def count(self, es_buf, count):
        """(hist_pos int64, hist_neg int64, extremes (count, 2)) of one batch's ES table."""
        rt, zero = self.rt, np.zeros(1, dtype=_U32)
        rt.fill(self.hp_buf, zero, self.hp.nbytes)
        rt.fill(self.hn_buf, zero, self.hn.nbytes)
        rt.launch(self.plan.kernel("null_counts"), count, es_buf, _U32(count),
                  _U32(self.plan.n_sets), *self.args, self.ext_buf)
        rt.read(self.hp_buf, self.hp)
        rt.read(self.hn_buf, self.hn)
        part = np.empty((count, 2), dtype=self.plan.real)
        rt.read(self.ext_buf, part)
        return self.hp.astype(np.int64), self.hn.astype(np.int64), part.astype(np.float64)


def null_statistics(rt, values, pheno, sets, es_obs, *, metric, weight, n_resamples, seed, dtype,
                    return_null, progress) -> NullStatistics:
    """NES, nominal p, FDR and FWER of every set from ``n_resamples`` label permutations."""
    n_sets = len(sets)
    plan = _Plan(rt, values, pheno, sets, metric, weight, n_resamples, dtype)
    plan.allocate()
    states, _ = stream_buffer(rt, n_resamples, seed=seed)
    r = plan.real.itemsize
    batches = [(f, min(plan.batch, n_resamples - f)) for f in range(0, n_resamples, plan.batch)]
    keep = n_sets * n_resamples * r <= 0.45 * rt.info.global_mem and len(batches) <= 4096
    if return_null and n_sets * n_resamples * 8 > MAX_RETURNED_TABLE:
        raise ValueError(f"return_null=True would bring back {n_sets} x {n_resamples} null ES; "
                         "use it for smaller runs")
    es_obs_buf = rt.to_device(np.ascontiguousarray(es_obs, dtype=plan.real), writable=False)
    totals = np.zeros((n_sets, 5), dtype=np.int64)
    kept, table = [], (np.empty((n_sets, n_resamples)) if return_null else None)
    scratch_es = None if keep else rt.empty(n_sets * plan.batch * r)
    work = n_resamples * (1 if keep else 2)
    with Progress(total=work, desc="gsea", enabled=progress) as bar:
        for first, count in batches:
            es_buf = rt.empty(n_sets * count * r) if keep else scratch_es
            totals += batch_stats(plan, states, first, count, es_obs_buf, es_buf)
            if table is not None:
                part = np.empty((n_sets, count), dtype=plan.real)
                rt.read(es_buf, part)
                table[:, first:first + count] = part
            if keep:
                kept.append(es_buf)
            bar.update(count)
        pos_mean, neg_mean, nes, pval = normalisation(totals, es_obs)
        counter = NullCounter(plan, pos_mean, neg_mean, nes, es_obs)
        hist_pos = np.zeros(counter.hp.size, dtype=np.int64)
        hist_neg = np.zeros(counter.hn.size, dtype=np.int64)
        extremes = np.empty((n_resamples, 2))
        for i, (first, count) in enumerate(batches):
            if keep:
                es_buf = kept[i]
            else:
                es_buf = scratch_es
                plan.run_batch(states, first, count, es_buf)
                bar.update(count)
            hp, hn, part = counter.count(es_buf, count)
            hist_pos += hp
            hist_neg += hn
            extremes[first:first + count] = part
    fdr, fwer = _fdr_fwer(nes, es_obs, counter.obs_pos, counter.obs_neg, hist_pos, hist_neg,
                          extremes)
    return NullStatistics(nes, pval, fdr, fwer, table, totals[:, 4].copy())
