"""Green's programme on an OpenCL device (cl_kernels/permutation.cl), a batch of features at
a time, in the CPU or the GPU schedule, in double or (without fp64) float pairs."""

from __future__ import annotations

import numpy as np

from .._constants import GREEN_TAIL_LANES
from .._progress import Progress
from .._validation import check_host_memory
from .plan import _U32, _U64, _plan
from .tails import _null_of_x, _pvalues_from_sums, _tail_pvalues, _x_sum_base


def _null_batches(rt, scores: np.ndarray, k: int, plan: dict, progress, tails=None,
                  want_table: bool = True):
    """P(sum of a random k-subset of row f = s) for the features, a batch at a time: yields
    (first feature, probabilities (batch, row length) float64 or None, tail sums (batch, 5) or
    None). ``tails`` (fp64 devices): the arguments of permutation_tails (observed and total
    x-sums of every feature, whether x is the subset drawn, m, m + n), whose five sums per
    feature are then computed on the device; the table comes back only with ``want_table``."""
    n_features, n = scores.shape
    csum, smax, row_len, batch = plan["csum"], plan["smax"], plan["row_len"], plan["batch"]
    n_buffers = plan["n_buffers"]
    if rt.info.fp64:
        defines, entry, zero = rt.real_defines(np.float64), np.float64, np.zeros(1)
    else:   # (mantissa, exponent) float pairs: float's precision, unbounded range
        defines, entry = {**rt.real_defines(np.float32), "GREEN_WIDE": 1}, np.dtype("2f4")
        zero = np.array([0.0, -1e30], dtype=np.float32)
    options = () if rt.info.fp64 else ("-cl-fp32-correctly-rounded-divide-sqrt",)
    per_part, parts = plan["per_part"], plan["parts"]
    levels = plan["levels"]
    part_bytes = min(batch, n_features) * per_part * row_len * 8
    # n_buffers tables (old and new in the GPU schedule), each as four part arguments
    # (unused parts: a 1-byte stand-in), and the CPU schedule's ring; reused by every batch
    bufs = [[rt.empty(part_bytes) if q < parts else rt.empty(1) for q in range(4)]
            for _ in range(n_buffers)]
    ring = rt.empty(max(1, min(batch, n_features) * plan["ring_bytes"]))
    try:
        with Progress(n_features, desc="permutation_test", enabled=progress) as bar:
            for f0 in range(0, n_features, batch):
                f1 = min(n_features, f0 + batch)
                nf = f1 - f0
                d_scores = rt.to_device(np.ascontiguousarray(scores[f0:f1], dtype=_U32), False)
                d_csum = rt.to_device(np.ascontiguousarray(csum[f0:f1], dtype=_U32), False)
                if plan["per_feature_schedule"]:  # zeroes its own buffer
                    kernel = rt.kernel("permutation.cl", "feature", defines, options)
                    rt.launch(kernel, nf, *bufs[0], _U32(per_part), ring, _U32(levels), d_scores,
                              d_csum, _U32(n), _U32(k), _U64(row_len), _U64(nf), local_size=1)
                else:
                    for table in bufs:
                        for b in table[:parts]:
                            rt.fill(b, zero, nf * per_part * row_len * 8)
                    k_start = rt.kernel("permutation.cl", "start", defines, options)
                    k_step = rt.kernel("permutation.cl", "step", defines, options)
                    rt.launch(k_start, nf, *bufs[0], _U32(per_part), _U64(nf), _U64(row_len))
                    for i in range(1, n + 1):
                        width = int(smax[f0:f1, i].max()) + 1
                        rt.launch(k_step, nf * width, *bufs[0], *bufs[1], _U32(per_part),
                                  d_scores, d_csum, _U32(n), _U32(i), _U32(k), _U64(row_len),
                                  _U64(nf), _U64(width))
                        bufs.reverse()
                sums = None
                if tails is not None:
                    sums = _tail_sums(rt, bufs[0], per_part, k, row_len, f0, f1, tails, defines,
                                      options)
                raw = None
                if want_table or tails is None:
                    last = rt.kernel("permutation.cl", "last_row", defines, options)
                    raw = np.empty((nf, row_len), dtype=entry)
                    with rt.writing_into(raw) as target:
                        rt.launch(last, nf * row_len, *bufs[0], _U32(per_part), target,
                                  _U32(k), _U64(row_len), _U64(nf))
                    if raw.dtype != np.float64:
                        pairs = raw.view(np.float32).reshape(nf, row_len, 2)
                        exponent = np.clip(pairs[..., 1], -10_000, 10_000).astype(np.int64)
                        raw = np.ldexp(pairs[..., 0].astype(np.float64), exponent)
                bar.update(nf)
                yield f0, raw, sums
    finally:
        for table in bufs:
            for b in table:
                b.release()
        ring.release()


def _tail_sums(rt, table, per_part, k, row_len, f0, f1, tails, defines, options):
    """permutation_tails over features f0 .. f1 - 1 of a batch: (f1 - f0, 5) float64."""
    nf = f1 - f0
    observed = rt.to_device(np.ascontiguousarray(tails["observed"][f0:f1]), False)
    total = rt.to_device(np.ascontiguousarray(tails["total"][f0:f1]), False)
    sums = np.empty((nf, 5))
    kernel = rt.kernel("permutation.cl", "tails", defines, options)
    with rt.writing_into(sums) as out:
        rt.launch_nd(kernel, (nf * GREEN_TAIL_LANES,), (GREEN_TAIL_LANES,), *table,
                     _U32(per_part), _U32(k), _U64(row_len), _U64(nf), observed, total,
                     _U32(tails["x_drawn"]), np.int64(tails["m"]), np.int64(tails["mn"]), out,
                     rt.local_memory(5 * GREEN_TAIL_LANES * 8))
    return sums


def device_pvalues(rt, scores: np.ndarray, m: int, n: int, alternative: str, mid_p: bool,
                   return_null: bool, progress, two_sided: str = "double"):
    """(index base, p-values, null tables or None) of the features (rows of ``scores``: x's
    ``m`` scores, then y's ``n``) on ``rt``, a batch of features at a time. On fp64 devices the
    tails are summed there (only the tables asked for come back); else on the host."""
    k = min(m, n)
    sorted_scores = np.sort(scores, axis=1)
    plan = _plan(rt, sorted_scores, k)
    n_features, row_len = len(scores), plan["row_len"]
    if return_null:
        check_host_memory(n_features * row_len * 8, f"return_null=True ({n_features} features "
                          f"x {row_len} sums)", "leave return_null off (p-values need only a "
                          "batch at a time) or test fewer features at once")
    x_sums = scores[:, :m].sum(axis=1, dtype=np.int64)
    totals = scores.sum(axis=1, dtype=np.int64)
    tails = None
    if rt.info.fp64:
        tails = {"observed": x_sums, "total": totals, "x_drawn": int(m <= n), "m": m,
                 "mn": m + n}
    p = np.empty(n_features)
    base = _x_sum_base(sorted_scores, totals, m, n)
    null_x = np.empty((n_features, row_len)) if return_null else None
    batches = _null_batches(rt, sorted_scores, k, plan, progress, tails, return_null)
    for f0, probs, sums in batches:
        f1 = f0 + len(sums if probs is None else probs)
        if sums is None:
            p[f0:f1] = _tail_pvalues(probs, base[f0:f1], x_sums[f0:f1], totals[f0:f1], m, n,
                                     alternative, mid_p, two_sided)
        else:
            p[f0:f1] = _pvalues_from_sums(sums, alternative, mid_p, two_sided)
        if return_null:
            null_x[f0:f1] = _null_of_x(probs, base[f0:f1], totals[f0:f1], m, n)
    return base, p, null_x
