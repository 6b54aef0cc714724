"""Fisher's exact test of an r x c table by the network algorithm (Mehta and Patel), one stage
per column on the device (cl_kernels/fisher_exact.cl), the stages merged on the host.

The table is filled column by column. A node is the sorted vector of the row totals still to
be filled; a path's value is the log of the conditional probability of the columns filled so
far (a product of multivariate hypergeometric terms, telescoping to the table's probability),
kept in exact fixed-point integers (the log-factorials of :func:`log_factorial_fixed`), so
that tables of equal probability have equal values and every decision is the same on every
device. A node keeps its distinct past values and their weights; for each daughter, bounds on
the log-probability of its completions (:mod:`cl_kernels/fisher_exact.cl`) settle most past
values at once: all completions at most as probable as the observed table (their mass is
counted, and a node's completions sum to probability 1), or none; the undecided ones move to
the daughter. A table counts when its log-probability is at most the observed one's plus
R's tolerance (FEXACT's ``tol = 3.45254e-7``, on the log scale).

``hybrid=True`` is R's ``fisher.test(hybrid = TRUE)``: an undecided past value whose
remaining table meets Cochran's conditions (``expect``, ``percnt``, ``emin``: 80% of its
expected counts at least 5, none below 1) is approximated by the chi-square law of the
remaining table instead of being carried on.

>>> from oclstat._fisher.network import network_pvalue
>>> round(network_pvalue([[1, 2, 1, 0], [3, 3, 6, 1], [10, 10, 14, 9], [6, 7, 12, 11]]).pvalue,
...       12)                                        # R: fisher.test(Job) 0.78268493896563884
0.782684938966
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .._progress import Progress
from .._runtime import DeviceCapabilityError
from .._scale import executor
from .plan import log_factorial_fixed

__all__ = ["network_pvalue", "NetworkResult", "TOLERANCE", "MERGE_TOLERANCE", "MAX_ENTRIES",
           "MAX_ARCS", "ExactTooLarge"]

#: Tables count when log P(table) <= log P(observed) + TOLERANCE (FEXACT's ``tol``, R).
TOLERANCE = 3.45254e-7
#: Past values of one node closer than this (in log units) are one value, their masses kept:
#: tables of equal probability have fixed-point values that differ by the rounding of the
#: different log-factorials they are summed from.
MERGE_TOLERANCE = 2.0**-30
#: The most undecided past values the network may hold at once (memory: about 40 bytes each).
MAX_ENTRIES = 50_000_000
#: The most arcs (a node and one way to fill the next column) a stage may hold: past it the
#: test stops before launching (about 2 hours on a 2-core CPU, minutes on a GPU).
MAX_ARCS = 1e10
_MAX_ROWS = 16
#: Up to this many bytes of merged values, a stage is merged in one pass (room for every
#: value, compacted on the host) instead of a counting pass and a writing pass.
_MERGE_BYTES = 1 << 29


class ExactTooLarge(ValueError):
    """The exact test would pass its memory or time limit."""


@dataclass(frozen=True)
class NetworkResult:
    """The p-value, the probability of the observed table, and what the network held:
    ``stages`` (columns processed), ``peak_entries`` (largest number of undecided past values
    at once), ``work_items`` (launched), ``arcs`` (node and column allocation pairs
    evaluated), ``seconds``."""

    pvalue: float
    table_probability: float
    stages: int
    peak_entries: int
    work_items: int
    arcs: int
    seconds: float


def _fill_bounds(n: int, caps: np.ndarray, lf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For every row total r in 0..n: the least and the largest sum of log x_j! over the ways
    to spread r across columns with totals ``caps`` (x_j <= caps_j): water-filling (as even as
    the caps allow) and greedy (the largest columns first). Where r exceeds the caps, the
    bound is of no use and is set so that it never decides."""
    caps = np.sort(np.asarray(caps, dtype=np.int64))
    r = np.arange(n + 1, dtype=np.int64)
    rem, left = r.copy(), np.full(n + 1, len(caps), dtype=np.int64)
    lo = np.zeros(n + 1, dtype=np.int64)
    open_ = np.ones(n + 1, dtype=bool)
    for cap in caps:
        share = np.where(left > 0, rem // np.maximum(left, 1), 0)
        full = open_ & (cap <= share)
        lo[full] += lf[cap]
        rem[full] -= cap
        left[full] -= 1
        spread = open_ & ~full
        q = rem[spread] // left[spread]
        extra = rem[spread] - q * left[spread]
        lo[spread] += (left[spread] - extra) * lf[q] + extra * lf[np.minimum(q + 1, n)]
        rem[spread] = 0
        open_ &= full
    hi = np.zeros(n + 1, dtype=np.int64)
    rem = r.copy()
    for cap in caps[::-1]:
        take = np.minimum(rem, cap)
        hi += lf[take]
        rem -= take
    bad = rem > 0                          # more than the columns hold: never a daughter's row
    lo[bad] = 0
    hi[bad] = np.iinfo(np.int64).max // 64
    return lo, hi


def _cochran_offset(rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For tables with these remaining row totals (one per line, zeros allowed) and column
    totals: (df, K) with -2 log P(table) ~ K + chi-square(df) (Stirling's approximation of the
    multivariate hypergeometric law, as the hybrid algorithm uses)."""
    rows = np.asarray(rows, dtype=np.float64)
    cols = np.asarray(cols, dtype=np.float64)
    nz = rows > 0
    m = nz.sum(axis=1).astype(np.float64)
    k = float(len(cols))
    n = rows.sum(axis=1)
    log_rows = np.where(nz, np.log(np.where(nz, rows, 1.0)), 0.0).sum(axis=1)
    df = (m - 1.0) * (k - 1.0)
    offset = ((k - 1.0) * log_rows + (m - 1.0) * np.log(cols).sum() + df * math.log(2 * math.pi)
              - (m * k - 1.0) * np.log(n))
    return df, offset


def _chi2_upper(x: np.ndarray, df: np.ndarray) -> np.ndarray:
    from scipy.special import gammaincc

    return gammaincc(df / 2.0, np.maximum(x, 0.0) / 2.0)


def _prefix(V: np.ndarray, W: np.ndarray, start: np.ndarray, bits: int):
    """Per node: vref (its largest value) and P (its prefix sums of W exp(V - vref)), P laid
    out with one more element per node (node n's at start[n] + n)."""
    n_nodes = len(start) - 1
    counts = np.diff(start)
    node_of = np.repeat(np.arange(n_nodes), counts)
    vref = V[start[1:] - 1]
    terms = W * np.exp((V - vref[node_of]).astype(np.float64) / 2.0**bits)
    csum = np.cumsum(terms)
    base = np.r_[0.0, csum][start[:-1]]
    P = np.zeros(len(V) + n_nodes)
    pos = np.arange(len(V)) + node_of + 1
    P[pos] = csum - base[node_of]
    return vref, P


def _items(rows: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
    """The work-items of a stage: (node, count given to the node's last row) pairs."""
    rest = rows[:, :-1].sum(axis=1)
    lo = np.maximum(0, c - rest)
    hi = np.minimum(rows[:, -1], c)
    n = np.maximum(hi - lo + 1, 0)
    node = np.repeat(np.arange(len(rows)), n)
    first = np.repeat(lo, n)
    offsets = np.arange(n.sum()) - np.repeat(np.cumsum(n) - n, n)
    return node.astype(np.uint32), (first + offsets).astype(np.int32)


def _stage_arcs(rows: np.ndarray, c: int, sample: int = 2048) -> float:
    """The number of ways to fill a column of total ``c`` below every node (``rows``: the
    nodes' remaining row totals), counted by a dynamic programme over the rows in floating
    point; over a random sample of the nodes (scaled) when there are many."""
    n_nodes = len(rows)
    pick = rows
    if n_nodes > sample:
        pick = rows[np.random.default_rng(0).choice(n_nodes, sample, replace=False)]
    ways = np.zeros((len(pick), c + 1))
    ways[:, 0] = 1.0
    for i in range(pick.shape[1]):
        cap = np.minimum(pick[:, i], c).astype(np.int64)
        csum = np.cumsum(ways, axis=1)
        # ways'(s) = sum_{x=0..cap} ways(s - x) = csum(s) - csum(s - cap - 1)
        shifted = np.zeros_like(csum)
        for k in np.unique(cap):
            sel = cap == k
            if k + 1 <= c:
                shifted[sel, k + 1:] = csum[sel, : c - k]
        ways = csum - shifted
    return float(ways[:, c].sum()) * (n_nodes / len(pick))


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows (in lexicographic order) and each row's index among them: one int64
    key per row where the values fit (mixed radix), else numpy's row-wise unique."""
    base = int(rows.max()) + 1 if rows.size else 1
    if base ** rows.shape[1] < 2**62:
        weights = base ** np.arange(rows.shape[1] - 1, -1, -1, dtype=np.int64)
        keys = rows.astype(np.int64) @ weights
        uniq, first, did = np.unique(keys, return_index=True, return_inverse=True)
        return rows[first], did.ravel()
    daughters, did = np.unique(rows, axis=0, return_inverse=True)
    return daughters, did.ravel()


def _next_stage(rt, merge, recs, d_V, d_W, start, real, bits):
    """The undecided past values of the records (kind 0), merged per daughter on the device
    (``merge``: cl_kernels/fisher_exact.cl's merge_runs): the daughters' rows (sorted), their
    CSR offsets, values and weights. The records are put in a fixed order first, so the result
    does not depend on the order the device wrote them in."""
    node, i1, i2, arc, mult, rows = recs
    m = rows.shape[1]
    if len(node) == 0:
        return np.zeros((0, m), np.int32), np.zeros(1, np.int64), np.zeros(0, np.int64), \
            np.zeros(0)
    daughters, did = _unique_rows(rows)
    order = np.lexsort((i1, arc, node, did))
    did, node, i1, i2, arc, mult = (a[order] for a in (did, node, i1, i2, arc, mult))
    n_d = len(daughters)
    run_first = np.r_[0, np.cumsum(np.bincount(did, minlength=n_d))].astype(np.uint32)
    src = (start[node] + i1).astype(np.uint64)
    length = (i2 - i1).astype(np.uint32)
    bufs = [rt.to_device(a, writable=False) for a in (
        run_first, src, length, arc.astype(np.int64), mult.astype(real))]
    scratch = [rt.empty(max(8 * len(node), 8)), rt.empty(max(4 * len(node), 8)),
               rt.empty(max(4 * len(node), 8))]
    count = np.zeros(n_d, dtype=np.uint64)
    d_count = rt.to_device(count)
    tol = (np.int64(max(1, int(MERGE_TOLERANCE * 2.0**bits))), np.int32(bits))
    room = np.r_[0, np.cumsum(np.bincount(did, weights=length, minlength=n_d))].astype(np.uint64)
    one_pass = int(room[-1]) * (8 + np.dtype(real).itemsize) <= _MERGE_BYTES
    if one_pass:                  # room for every value: one merge, then the host compacts
        first = room
    else:                         # a counting merge first, then the exact offsets
        rt.launch(merge, n_d, np.uint32(n_d), *bufs, d_V, d_W, *scratch, np.int32(0),
                  rt.empty(8), d_count, rt.empty(8), rt.empty(8), *tol)
        rt.read(d_count, count)
        first = np.r_[0, np.cumsum(count)].astype(np.uint64)
    size = int(first[-1])
    values = np.empty(size, dtype=np.int64)
    weights = np.empty(size, dtype=real)
    d_out_V, d_out_W = rt.empty(max(values.nbytes, 8)), rt.empty(max(weights.nbytes, 8))
    rt.launch(merge, n_d, np.uint32(n_d), *bufs, d_V, d_W, *scratch, np.int32(1),
              rt.to_device(first[:-1].copy(), writable=False), d_count, d_out_V, d_out_W, *tol)
    if size:
        rt.read(d_out_V, values)
        rt.read(d_out_W, weights)
    if one_pass:
        rt.read(d_count, count)
        counts = count.astype(np.int64)
        keep = np.repeat(first[:-1].astype(np.int64) - np.r_[0, np.cumsum(counts)[:-1]],
                         counts) + np.arange(int(counts.sum()))
        values, weights = values[keep], weights[keep]
        first = np.r_[0, np.cumsum(counts)].astype(np.uint64)
    return daughters.astype(np.int32), first.astype(np.int64), values, \
        weights.astype(np.float64)


def _hybrid_mass(recs, V, W, start, thr, bits, cols_left):
    """The chi-square approximation of the records of kind 1 (hybrid)."""
    node, i1, i2, arc, mult, rows = recs
    lengths = (i2 - i1).astype(np.int64)
    total = int(lengths.sum())
    if total == 0:
        return 0.0
    rec = np.repeat(np.arange(len(node)), lengths)
    within = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    src = start[node][rec] + i1[rec] + within
    u = (V[src] + arc[rec]).astype(np.float64) / 2.0**bits
    df, offset = _cochran_offset(rows, cols_left)
    tail = _chi2_upper(-2.0 * (thr / 2.0**bits - u) - offset[rec], df[rec])
    return float(np.sum(W[src] * mult[rec] * np.exp(u) * tail))


def network_pvalue(table, *, hybrid: bool = False, expect: float = 5.0, percnt: float = 80.0,
                   emin: float = 1.0, max_entries: int = MAX_ENTRIES,
                   max_seconds: float | None = None, dtype=np.float64, device=None,
                   progress=None) -> NetworkResult:
    """The exact p-value of Fisher's test of ``table`` (R's ``fisher.test`` on r x c tables,
    also ``hybrid``); empty rows and columns are dropped (a table left with one row or column
    has p = 1). Raises :class:`ExactTooLarge` past ``max_entries`` or ``max_seconds``."""
    t0 = time.perf_counter()
    t = np.asarray(table, dtype=np.int64)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    if t.ndim != 2 or min(t.shape) < 2:
        return NetworkResult(1.0, 1.0, 0, 0, 0, 0, time.perf_counter() - t0)
    if t.shape[0] > t.shape[1]:
        t = t.T
    m = t.shape[0]
    if m > _MAX_ROWS:
        raise ExactTooLarge(f"the exact test handles tables with at most {_MAX_ROWS} rows or "
                            f"columns in their smaller dimension, got {m}")
    rows0 = np.sort(t.sum(axis=1))
    cols = np.sort(t.sum(axis=0))                  # smallest column first, as FEXACT
    n = int(t.sum())
    lf, bits = log_factorial_fixed(n)
    lf = np.asarray(lf, dtype=np.int64)
    observed = int(lf[t.sum(axis=1)].sum() + lf[t.sum(axis=0)].sum() - lf[n] - lf[t].sum())
    thr = observed + int(round(TOLERANCE * 2.0**bits))
    rt = executor(device, None, "fisher_exact", several=False).runtime
    if np.dtype(dtype) == np.float64 and not rt.info.fp64:
        raise DeviceCapabilityError("the exact test's mass in float64 needs a device with "
                                    "double precision; pass dtype=numpy.float32")
    defines = rt.real_defines(dtype)
    defines.update(M=str(m), EXPECT100=str(int(round(expect * 100))),
                   PERCNT=str(int(round(percnt))), EMIN100=str(int(round(emin * 100))))
    if hybrid:
        defines["HYBRID"] = "1"
    kernel = rt.kernel("fisher_exact.cl", "network_stage", defines)
    merge = rt.kernel("fisher_exact.cl", "merge_runs", defines)
    real = np.dtype(dtype)
    fact = np.array([math.factorial(i) for i in range(m + 1)], dtype=np.uint64)
    d_fact = rt.to_device(fact, writable=False)
    d_lf = rt.to_device(lf, writable=False)

    node_rows = rows0[None, :].astype(np.int32)
    start = np.array([0, 1], dtype=np.int64)
    V = np.zeros(1, dtype=np.int64)
    W = np.ones(1)
    p = 0.0
    peak, items_run, arcs_run = 1, 0, 0
    capacity = 1 << 18
    stages = len(cols) - 1
    with Progress(total=stages, desc="exact test", enabled=progress) as bar:
        for j in range(stages):
            c = int(cols[j])
            rest = cols[j + 1:]
            arcs_here = _stage_arcs(node_rows, c)
            if arcs_here > MAX_ARCS:
                raise ExactTooLarge(
                    f"the exact test would enumerate about {arcs_here:.2g} ways to fill column "
                    f"{j + 1} of {stages + 1} (the limit is {MAX_ARCS:.0e})")
            f_tab, g_tab = _fill_bounds(n, rest, lf)
            item_node, item_top = _items(node_rows, c)
            n_items = len(item_node)
            vref, P = _prefix(V, W, start, bits)
            nr = int(node_rows[0].sum())
            log_choose = int(lf[nr] - lf[c] - lf[nr - c])
            bufs = [rt.to_device(a, writable=False) for a in (
                item_node, item_top, node_rows.ravel(), start.astype(np.uint32), V,
                P.astype(real), vref, rest.astype(np.int32), f_tab, g_tab)]
            d_W = rt.to_device(W.astype(real), writable=False)
            while True:
                mass = np.empty(n_items, dtype=real)
                arcs = np.empty(n_items, dtype=np.uint32)
                counter = np.zeros(1, dtype=np.uint32)
                d_mass = rt.empty(max(mass.nbytes, 8))
                d_arcs = rt.empty(max(arcs.nbytes, 8))
                d_count = rt.to_device(counter)
                recs_dev = [rt.empty(max(capacity * size, 8))
                            for size in (4, 4, 4, 8, 8, 4 * m, 1)]
                rt.launch(kernel, n_items, np.uint32(n_items), bufs[0], bufs[1], bufs[2],
                          bufs[3], bufs[4], bufs[5], bufs[6], np.int32(c),
                          np.int32(len(rest)), bufs[7], np.int64(lf[rest].sum()), bufs[8],
                          bufs[9], d_lf, np.int64(thr), np.int64(log_choose), np.int32(bits),
                          d_fact, d_mass, d_count, np.uint32(capacity), *recs_dev, d_arcs)
                rt.read(d_count, counter)
                n_rec = int(counter[0])
                if n_rec <= capacity:
                    break
                capacity = 1 << int(math.ceil(math.log2(n_rec * 1.25)))
            rt.read(d_mass, mass)
            rt.read(d_arcs, arcs)
            items_run += n_items
            arcs_run += int(arcs.sum(dtype=np.int64))
            p += float(np.sum(mass.astype(np.float64)))
            host = [np.empty(n_rec, dtype=dt) for dt in (np.uint32, np.uint32, np.uint32,
                                                          np.int64, np.uint64)]
            for h, d in zip(host, recs_dev[:5], strict=True):
                if n_rec:
                    rt.read(d, h)
            rows = np.empty((n_rec, m), dtype=np.int32)
            kind = np.empty(n_rec, dtype=np.uint8)
            if n_rec:
                rt.read(recs_dev[5], rows)
                rt.read(recs_dev[6], kind)
            recs = (*[h.astype(np.int64) for h in host[:4]], host[4].astype(np.float64), rows)
            if hybrid and kind.any():
                approx = kind == 1
                p += _hybrid_mass(tuple(a[approx] for a in recs), V, W, start, thr, bits, rest)
                recs = tuple(a[~approx] for a in recs)
            node_rows, start, V, W = _next_stage(rt, merge, recs, bufs[4], d_W, start, real,
                                                 bits)
            peak = max(peak, len(V))
            bar.update(1)
            if len(V) > max_entries:
                raise ExactTooLarge(
                    f"the exact test would hold more than {max_entries:,} partial tables at "
                    f"once (stage {j + 1} of {stages})")
            if max_seconds is not None and time.perf_counter() - t0 > max_seconds:
                raise ExactTooLarge(f"the exact test would take more than {max_seconds:g} s "
                                    f"(stage {j + 1} of {stages} after "
                                    f"{time.perf_counter() - t0:.1f} s)")
            if len(V) == 0:
                break
    prob = math.exp(observed / 2.0**bits)
    return NetworkResult(min(1.0, p), prob, stages, peak, items_run, arcs_run,
                         time.perf_counter() - t0)
