"""Exact two-sample permutation tests by Green's dynamic programme, for many features at once.

:func:`permutation_test` re-creates "Green CUDA" (Ekvall, Höhle & Käll 2021, "Parallelized
calculation of permutation tests") in OpenCL: for every feature (a row of ``x`` and of ``y``)
the statistic is the sum of the first sample's scores, and its exact null distribution over all
``C(m + n, m)`` relabelings comes from the dynamic programme over the pooled scores, run on the
device for a batch of features per launch.

**Scores.** Integer-valued data is tested as it is (the pooled minimum of each feature is
subtracted on the device side, which shifts the statistic and its null distribution alike).
Real-valued data, or any data when ``n_windows`` is given, is discretised per feature into
``n_windows`` equal windows between the pooled minimum and maximum:

    score = min(n_windows - 1, floor(n_windows * (v - min) / (max - min)))

so the minimum gets 0 and the maximum ``n_windows - 1`` (a constant feature scores 0 everywhere
and gets p = 1). The reported statistic is then the sum of the first sample's window indices.

**Numerics.** The programme keeps probabilities, not counts: each step is a convex combination
(``P_i[j][s] = (i-j)/i P_{i-1}[j][s] + j/i P_{i-1}[j-1][s-z_i]``), so nothing overflows at any
sample size and tail probabilities keep their relative accuracy down to about 1e-300. The
smaller group is the one whose subsets are enumerated. On a device without float64 each
probability is a float mantissa with an integer exponent (unbounded range, 24-bit precision per
step: p-values to a relative error below 3 N 2^-24 for N pooled samples, about 2e-4 at
N = 1,200).

**p-values.** ``greater``: P(T >= t), ``less``: P(T <= t), ``two-sided``: twice the smaller
of the two, capped at 1; with ``mid_p=True`` the probability of T = t counts half.

>>> import numpy as np, oclstat
>>> x = np.array([3, 5, 6, 9]); y = np.array([1, 2, 2, 4, 3])
>>> res = oclstat.permutation_test(x, y, alternative="greater")
>>> int(res.statistic), round(float(res.pvalue), 6)     # 3 of the 126 relabelings reach 23
(23, 0.02381)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._constants import GREEN_MAX_PARTS
from ._labels import check_unique, is_default_index
from ._multitest import benjamini_hochberg
from ._progress import Progress
from ._runtime import DeviceCapabilityError, get_runtime
from ._validation import as_int, check_host_memory, host_memory_available

__all__ = ["PermutationTestResult", "permutation_test", "window_scores"]

ALTERNATIVES = ("two-sided", "less", "greater")
_U32 = np.uint32
_U64 = np.uint64
#: Largest sum of a feature's pooled scores (the device indexes sums with 32-bit integers).
MAX_SUM = 2**32 - 2
#: Buffers one feature's programme may be spread over (when it exceeds one allocation).
MAX_PARTS = GREEN_MAX_PARTS
#: Device schedule of the programme: None (automatic: "feature" on CPUs, "steps" on GPUs),
#: "feature" (one work-item per feature, in place) or "steps" (one launch per step).
SCHEDULE: str | None = None


@dataclass(frozen=True)
class PermutationTestResult:
    """Result of :func:`permutation_test` (arrays over features, scalars for 1-D input).

    statistic
        Sum of the first sample's scores (original units for integer data tested as it is,
        window indices otherwise).
    pvalue
        Exact p-value for ``alternative`` (mid-P if asked).
    null_distribution
        With ``return_null=True``: ``null_distribution[..., t]`` is P(T = null_offset + t).
    null_offset
        Statistic value of index 0 of ``null_distribution``.
    features
        The feature names (DataFrame input), in the order of the arrays.
    """

    statistic: np.ndarray | float
    pvalue: np.ndarray | float
    alternative: str
    mid_p: bool
    n_windows: int | None
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    null_offset: np.ndarray | float | None = field(default=None, repr=False)
    features: list | None = field(default=None, repr=False)

    def qvalues(self) -> np.ndarray:
        """Benjamini-Hochberg q-values over the features (R's ``p.adjust(p, "BH")``)."""
        return benjamini_hochberg(self.pvalue)

    def to_frame(self):
        """A pandas DataFrame, one row per feature: statistic, pvalue, qvalue."""
        import pandas as pd

        return pd.DataFrame({"statistic": np.atleast_1d(self.statistic),
                             "pvalue": np.atleast_1d(self.pvalue),
                             "qvalue": np.atleast_1d(self.qvalues())},
                            index=pd.Index(self.features, name="feature")
                            if self.features is not None else None)


# ----------------------------------------------------------------------------- input


def _aligned_features(x, y, axis):
    """x and y as arrays with their features in the same order: DataFrames that name their
    features are paired by name (names that repeat or differ are an error); unlabelled
    inputs by position. Returns (x, y, feature names or None)."""
    import pandas as pd

    def features_of(a):
        if not isinstance(a, pd.DataFrame):
            return None
        index = a.index if axis in (-1, 1) else a.columns
        return None if is_default_index(index) else list(index)

    fx, fy = features_of(x), features_of(y)
    if fx is None or fy is None:        # one group unlabelled: paired by position
        named = fx if fx is not None else fy
        if named is not None:
            check_unique(named, "the features")
        return (x.to_numpy() if isinstance(x, pd.DataFrame) else x,
                y.to_numpy() if isinstance(y, pd.DataFrame) else y, named)
    check_unique(fx, "x's features")
    check_unique(fy, "y's features")
    only_x = [f for f in fx if f not in set(fy)]
    only_y = [f for f in fy if f not in set(fx)]
    if only_x or only_y:
        raise ValueError(f"x and y name different features: {len(only_x)} only in x (e.g. "
                         f"{only_x[:3]}), {len(only_y)} only in y (e.g. {only_y[:3]})")
    if axis in (-1, 1):
        y = y.loc[fx]
    else:
        y = y.loc[:, fx]
    return x.to_numpy(), y.to_numpy(), fx


def _as_samples(a, name: str, axis: int) -> np.ndarray:
    arr = np.asarray(a)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold numbers, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D (one feature) or 2-D (features x samples), got "
                         f"{arr.ndim}-D")
    if arr.ndim == 2:
        if axis not in (-1, 0, 1, -2):
            raise ValueError(f"axis must be 0 or 1 (or -1, -2) for 2-D input, got {axis}")
        arr = np.moveaxis(arr, axis, -1)
    else:
        arr = arr[None, :]
    if arr.shape[-1] == 0:
        raise ValueError(f"{name} is an empty group: every feature needs at least one sample")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(f"{name} holds NaN or infinite values (feature {bad[0]}, sample "
                         f"{bad[1]}); remove or impute them first")
    return arr


def window_scores(pooled: np.ndarray, n_windows: int) -> np.ndarray:
    """Window index of every value: ``min(W - 1, floor(W (v - min) / (max - min)))`` with the
    minimum and maximum of each row (a constant row scores 0).

    >>> window_scores(np.array([[0.0, 0.5, 0.99, 1.0]]), 4).tolist()
    [[0, 2, 3, 3]]
    """
    v = np.asarray(pooled, dtype=np.float64)
    lo = v.min(axis=-1, keepdims=True)
    span = v.max(axis=-1, keepdims=True) - lo
    safe = np.where(span > 0, span, 1.0)
    scores = np.floor(n_windows * ((v - lo) / safe))
    return np.clip(scores, 0, n_windows - 1).astype(np.int64)


# ----------------------------------------------------------------------------- device


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
    per_feature_schedule = SCHEDULE == "feature" or (SCHEDULE is None and not rt.gpu_schedule)
    n_buffers = 1 if per_feature_schedule else 2
    row_bytes = row_len * 8
    per_feature = (k + 1) * row_bytes
    # a feature larger than one allocation is spread over up to MAX_PARTS buffers
    rows_per_alloc = rt.info.max_alloc // row_bytes
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
    fit = rt.max_items(per_feature * n_buffers, fraction=0.4)
    batch = 1 if parts > 1 else max(1, min(n_features, fit, rt.info.max_alloc // per_feature,
                                           host_rows))
    return {"csum": csum, "smax": smax, "row_len": row_len, "batch": batch,
            "per_feature": per_feature, "n_buffers": n_buffers, "parts": parts,
            "per_part": per_part if parts > 1 else k + 1,
            "per_feature_schedule": per_feature_schedule}


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
    with Progress(n_features, desc="permutation_test", enabled=progress) as bar:
        for f0 in range(0, n_features, batch):
            f1 = min(n_features, f0 + batch)
            nf = f1 - f0
            part_bytes = nf * per_part * row_len * 8
            # n_buffers tables (old and new in the GPU schedule), each as four part arguments
            # (unused parts: a 1-byte stand-in)
            bufs = [[rt.empty(part_bytes) if q < parts else rt.empty(1) for q in range(4)]
                    for _ in range(n_buffers)]
            d_scores = rt.to_device(np.ascontiguousarray(scores[f0:f1], dtype=_U32), False)
            d_csum = rt.to_device(np.ascontiguousarray(csum[f0:f1], dtype=_U32), False)
            if plan["per_feature_schedule"]:  # zeroes its own buffer
                kernel = rt.kernel("permutation.cl", "feature", defines, options)
                rt.launch(kernel, nf, *bufs[0], _U32(per_part), d_scores, d_csum, _U32(n),
                          _U32(k), _U64(row_len), _U64(nf), local_size=1)
            else:
                for table in bufs:
                    for b in table[:parts]:
                        rt.fill(b, zero, part_bytes)
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
            for table in bufs:
                for b in table:
                    b.release()
            bar.update(nf)
            if raw.dtype != np.float64:
                pairs = raw.view(np.float32).reshape(nf, row_len, 2)
                exponent = np.clip(pairs[..., 1], -10_000, 10_000).astype(np.int64)
                raw = np.ldexp(pairs[..., 0].astype(np.float64), exponent)
            yield f0, raw


def _tail_pvalues(probs, sorted_scores, scores, m, n, alternative, mid_p):
    """(statistic index base, the null of x's sum, p-values) of a batch of features."""
    row_len = probs.shape[1]
    x_scores = scores[:, :m].sum(axis=1)
    total = scores.sum(axis=1)
    if m <= n:
        null_x = probs  # P(sum of x's scores = s), s = 0 .. row_len - 1
        base = np.zeros(len(scores), dtype=np.int64)
    else:
        # the y-sum s_y has law probs; x's sum is total - s_y. Index t <-> x-sum base + t.
        smax_y = sorted_scores[:, -n:].sum(axis=1)
        t = np.arange(row_len)
        src = smax_y[:, None] - t[None, :]
        ok = src >= 0
        null_x = np.where(ok, np.take_along_axis(probs, np.clip(src, 0, None), axis=1), 0.0)
        base = total - smax_y
    idx = x_scores - base
    rows = np.arange(len(scores))
    p_eq = null_x[rows, idx]
    # each tail summed from its own end, so small tail probabilities keep their precision
    p_le = np.cumsum(null_x, axis=1)[rows, idx]                     # P(T <= t)
    p_ge = np.cumsum(null_x[:, ::-1], axis=1)[:, ::-1][rows, idx]   # P(T >= t)
    if mid_p:
        p_ge = p_ge - 0.5 * p_eq
        p_le = p_le - 0.5 * p_eq
    if alternative == "greater":
        p = p_ge
    elif alternative == "less":
        p = p_le
    else:
        p = np.minimum(1.0, 2.0 * np.minimum(p_ge, p_le))
    return base, null_x, np.clip(p, 0.0, 1.0)


# ----------------------------------------------------------------------------- the test


def permutation_test(x, y, *, n_windows=None, alternative="two-sided", mid_p=False, axis=-1,
                     return_null=False, device=None, progress=None):
    """Exact two-sample permutation test of the sum of the first sample's scores.

    Parameters
    ----------
    x, y : array_like
        The two groups: 1-D (one feature) or 2-D with one feature per row (samples along
        ``axis``); x and y must have the same number of features.
    n_windows : int, optional
        Discretise each feature into this many equal windows (>= 2). Required for data that is
        not integer-valued; integer data is tested exactly as it is when omitted.
    alternative : {"two-sided", "less", "greater"}
        "greater": the first sample's scores tend to be larger.
    mid_p : bool
        Count the probability of the observed statistic half (mid-P).
    return_null : bool
        Also return the exact null distribution of every feature.
    device, progress
        Device (see :func:`oclstat.get_runtime`) and progress bar (None: automatic).

    Returns
    -------
    PermutationTestResult

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(1.0, 1.0, size=(3, 12)); y = rng.normal(0.0, 1.0, size=(3, 30))
    >>> res = permutation_test(x, y, n_windows=64)
    >>> res.pvalue.shape, bool((res.pvalue <= 1).all())
    ((3,), True)
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    x, y, features = _aligned_features(x, y, axis)
    one_feature = np.ndim(x) == 1 and np.ndim(y) == 1
    xs = _as_samples(x, "x", axis)
    ys = _as_samples(y, "y", axis)
    if xs.shape[0] != ys.shape[0]:
        raise ValueError(f"x and y must hold the same number of features, got {xs.shape[0]} "
                         f"and {ys.shape[0]}")
    m, n = xs.shape[1], ys.shape[1]
    pooled = np.concatenate([xs, ys], axis=1)
    if n_windows is not None:
        w = as_int(n_windows, "n_windows", minimum=2, maximum=2**20)
        scores = window_scores(pooled, w)
        offset = np.zeros(len(pooled), dtype=np.int64)
    else:
        w = None
        if pooled.dtype.kind == "f" and (pooled != np.round(pooled)).any():
            raise ValueError("x and y hold non-integer values: pass n_windows to discretise "
                             "them (e.g. n_windows=256)")
        if pooled.dtype.kind == "f" and np.abs(pooled).max() > 2**52:
            raise ValueError("x and y hold integers too large to test exactly")
        ints = pooled.astype(np.int64)
        low = ints.min(axis=1, keepdims=True)
        scores = ints - low
        offset = m * low[:, 0]  # statistic = sum of x's scores + m * low
    k = min(m, n)
    top = scores.sum(axis=1)
    if top.max() > MAX_SUM:
        raise ValueError(f"the sums of scores reach {int(top.max())}; integer data with so wide "
                         "a range must be discretised: pass n_windows")

    rt = get_runtime(device)
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
                                                      scores[f0:f1], m, n, alternative, mid_p)
        if return_null:
            null_x[f0:f1] = null_b
    x_scores = scores[:, :m].sum(axis=1)

    statistic = x_scores + offset
    null_offset = base + offset
    if one_feature:
        return PermutationTestResult(
            statistic[0].item(), float(p[0]), alternative, bool(mid_p), w,
            null_x[0] if return_null else None, null_offset[0].item() if return_null else None)
    return PermutationTestResult(statistic, p, alternative, bool(mid_p), w,
                                 null_x if return_null else None,
                                 null_offset if return_null else None, features)
