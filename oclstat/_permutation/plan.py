"""Planning the programme on the device: row lengths, buffers (split over several when one
feature exceeds an allocation), batches of features that fit device and host memory."""

from __future__ import annotations

import numpy as np

from .._constants import GREEN_MAX_PARTS
from .._runtime import DeviceCapabilityError
from .._validation import host_memory_available

ALTERNATIVES = ("two-sided", "less", "greater")
#: Two-sided rules: twice the smaller tail (scipy), or the distance from the mean (coin).
TWO_SIDED = ("double", "distance")
_U32 = np.uint32
_U64 = np.uint64
#: Largest sum of a feature's pooled scores (the device indexes sums with 32-bit integers).
MAX_SUM = 2**32 - 2
#: Buffers one feature's programme may be spread over (when it exceeds one allocation).
MAX_PARTS = GREEN_MAX_PARTS
#: Steps of the programme the CPU schedule makes per sweep over a feature's rows (the table
#: goes through the cache once per sweep; the rows between steps stay in cache).
FUSED_STEPS = 3
#: Features per compute unit in one launch of the CPU schedule (its buffers are reused from
#: launch to launch: a table for every feature of a large batch would be gigabytes written
#: once, where a core works on one feature at a time).
CPU_FEATURES_PER_UNIT = 16
#: Largest table of a batch in the GPU schedule (each of its two buffers): runs whose batches
#: filled 17 GiB buffers stalled on an H200 (CPTAC at 1,024 windows, 400 per group), where
#: batches of 13 GiB ran at the expected rate; more batches cost a few launches each.
GPU_TABLE_BYTES = 4 << 30



def _plan(rt, scores: np.ndarray, k: int):
    """Sizes of the programme for the features (rows of ``scores``, sorted ascending): the
    cumulative sums, the largest reachable sum per step, the row length and the batch of
    features per launch (device memory) as a dict."""
    n_features, n = scores.shape
    csum = np.concatenate([np.zeros((n_features, 1), np.int64), np.cumsum(scores, axis=1)], 1)
    steps = np.arange(n + 1)
    take = np.minimum(steps, k)
    smax = csum[:, steps] - csum[:, steps - take]  # (F, N + 1): largest reachable sum
    row_len = int(smax[:, n].max()) + 1
    # CPU schedule: one work-item per feature, in place; GPU schedule: one launch per step
    per_feature_schedule = not rt.gpu_schedule
    n_buffers = 1 if per_feature_schedule else 2
    row_bytes = row_len * 8
    per_feature = (k + 1) * row_bytes
    # a feature larger than one allocation is spread over up to MAX_PARTS buffers
    rows_per_alloc = rt.info.max_alloc // row_bytes
    # steps per sweep of the CPU schedule: its ring of 2 (levels - 1) rows is one allocation
    levels = min(_levels(rt, n), 1 + rows_per_alloc // 2) if per_feature_schedule else 1
    parts = -(-(k + 1) // max(1, rows_per_alloc))
    if parts > MAX_PARTS or rows_per_alloc < 1 or \
            per_feature * n_buffers > 0.8 * rt.info.global_mem:
        raise DeviceCapabilityError(
            f"one feature's programme needs {per_feature * n_buffers / 1e9:.3g} GB of device "
            f"memory (sums up to {row_len - 1} for subsets of {k} samples); "
            f"{rt.info.label} has {rt.info.global_mem / 1e9:.3g} GB ({rt.info.max_alloc / 1e9:.3g}"
            " GB per allocation); use fewer windows (n_windows) or a device with more memory")
    per_part = -(-(k + 1) // parts)
    host_rows = max(1, int(0.2 * host_memory_available()) // (4 * row_bytes))
    ring = 2 * (levels - 1) * row_bytes             # the CPU schedule's rows between steps
    fit = rt.max_items(per_feature * n_buffers + ring, fraction=0.4)
    batch = 1 if parts > 1 else max(1, min(n_features, fit, rt.info.max_alloc // per_feature,
                                           rt.info.max_alloc // max(1, ring), host_rows))
    if per_feature_schedule:    # a few features per core at a time: the tables stay mapped
        batch = min(batch, CPU_FEATURES_PER_UNIT * max(1, rt.info.compute_units))
    else:
        batch = min(batch, max(1, GPU_TABLE_BYTES // per_feature))
    return {"csum": csum, "smax": smax, "row_len": row_len, "batch": batch,
            "per_feature": per_feature, "n_buffers": n_buffers, "parts": parts,
            "per_part": per_part if parts > 1 else k + 1,
            "per_feature_schedule": per_feature_schedule, "levels": levels,
            "ring_bytes": ring}


def _levels(rt, n: int) -> int:
    """Steps the CPU schedule makes per sweep over a feature's rows: :data:`FUSED_STEPS`
    (at most n), except on Intel's CPU runtime, where the fused sweeps measured slower than
    one step per sweep (benchmarks/RESULTS.md, issue 17)."""
    if "intel(r) opencl" in rt.info.platform.lower():
        return 1
    return max(1, min(FUSED_STEPS, n))
