"""Green's programme on an OpenCL device (cl_kernels/permutation.cl), a batch of features at
a time, in the CPU or the GPU schedule, in double or (without fp64) float pairs."""

from __future__ import annotations

import numpy as np

from .._progress import Progress
from .._validation import check_host_memory
from .plan import _U32, _U64, _plan
from .tails import _tail_pvalues


def _null_batches(rt, scores: np.ndarray, k: int, plan: dict, progress):
    """P(sum of a random k-subset of row f = s) for the features, a batch at a time: yields
    (first feature, probabilities (batch, row length) float64)."""
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
                last = rt.kernel("permutation.cl", "last_row", defines, options)
                raw = np.empty((nf, row_len), dtype=entry)
                with rt.writing_into(raw) as target:
                    rt.launch(last, nf * row_len, *bufs[0], _U32(per_part), target, _U32(k),
                              _U64(row_len), _U64(nf))
                bar.update(nf)
                if raw.dtype != np.float64:
                    pairs = raw.view(np.float32).reshape(nf, row_len, 2)
                    exponent = np.clip(pairs[..., 1], -10_000, 10_000).astype(np.int64)
                    raw = np.ldexp(pairs[..., 0].astype(np.float64), exponent)
                yield f0, raw
    finally:
        for table in bufs:
            for b in table:
                b.release()
        ring.release()


def device_pvalues(rt, scores: np.ndarray, m: int, n: int, alternative: str, mid_p: bool,
                   return_null: bool, progress, two_sided: str = "double"):
    """(index base, p-values, null tables or None) of the features (rows of ``scores``: x's
    ``m`` scores, then y's ``n``) on ``rt``, a batch of features at a time."""
    k = min(m, n)
    sorted_scores = np.sort(scores, axis=1)
    plan = _plan(rt, sorted_scores, k)
    n_features, row_len = len(scores), plan["row_len"]
    if return_null:
        check_host_memory(n_features * row_len * 8, f"return_null=True ({n_features} features "
                          f"x {row_len} sums)", "leave return_null off (p-values need only a "
                          "batch at a time) or test fewer features at once")
    p = np.empty(n_features)
    base = np.empty(n_features, dtype=np.int64)
    null_x = np.empty((n_features, row_len)) if return_null else None
    for f0, probs in _null_batches(rt, sorted_scores, k, plan, progress):
        f1 = f0 + len(probs)
        base[f0:f1], null_b, p[f0:f1] = _tail_pvalues(probs, sorted_scores[f0:f1],
                                                      scores[f0:f1], m, n, alternative, mid_p,
                                                      two_sided)
        if return_null:
            null_x[f0:f1] = null_b
    return base, p, null_x
