"""The public function of the exact permutation test."""

from __future__ import annotations

import numpy as np

from .._labels import as_labelled, oriented, paired
from .._readers.inference import input_of
from .._scale import executor
from .._validation import as_int
from . import tasks
from .opencl import device_pvalues
from .plan import ALTERNATIVES, MAX_SUM, TWO_SIDED
from .result import PermutationTestResult
from .validate import (
    _aligned_features,
    _as_samples,
    group_summary,
    split_by_groups,
    window_scores,
)

# ----------------------------------------------------------------------------- the test


def permutation_test(x, y=None, *, groups=None, classes=None, n_windows=None,
                     alternative="two-sided", two_sided="double", mid_p=False, axis=-1,
                     return_null=False, device=None, client=None, progress=None):
    """Exact two-sample permutation test of the sum of the first sample's scores.

    Parameters
    ----------
    x, y : array_like or DataFrame
        The two groups: 1-D (one feature) or 2-D with one feature per row (samples along
        ``axis``); x and y must have the same features (DataFrames are matched by feature
        label, never by position).
    n_windows : int, optional
        Discretise each feature into this many equal windows (>= 2). Required for data that is
        not integer-valued; integer data is tested exactly as it is when omitted.
    alternative : {"two-sided", "less", "greater"}
        "greater": the first sample's scores tend to be larger.
    mid_p : bool
        Count the probability of the observed statistic half (mid-P).
    axis : int
        The samples' axis of 2-D input.
    return_null : bool
        Also return the exact null distribution of every feature.
    device : device or list of devices, optional
        One device (see :func:`oclstat.get_runtime`) or several that share the features.
    client : dask.distributed.Client or LocalDevices, optional
        Run chunks of features as tasks (the same p-values).
    progress : bool or None
        Progress bar (None: automatic).

    Returns
    -------
    PermutationTestResult
        ``statistic`` and ``pvalue`` per feature; ``to_frame()`` adds BH q-values.

    See Also
    --------
    scipy.stats.permutation_test : Monte Carlo or exhaustive permutations on the CPU.
    scipy.stats.mannwhitneyu : the rank-based cousin.

    Notes
    -----
    The null distribution of the sum over all C(m + n, m) relabellings is counted by Green's
    dynamic programme, one feature per work-group, in exact arithmetic scaled per feature (no
    sampling error); R's ``coin::oneway_test(distribution = "exact")`` gives the same
    p-values.

    References
    ----------
    .. [1] Green, B. F. (1977). A practical interactive program for randomization tests of
           location. The American Statistician 31(1), 37-39.
    .. [2] Hothorn, T., Hornik, K., van de Wiel, M. A. and Zeileis, A. (2006). A Lego system
           for conditional inference. The American Statistician 60(3), 257-263.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(1.0, 1.0, size=(3, 12)); y = rng.normal(0.0, 1.0, size=(3, 30))
    >>> res = permutation_test(x, y, n_windows=64)
    >>> res.pvalue.shape, bool((res.pvalue <= 1).all())
    ((3,), True)
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    if two_sided not in TWO_SIDED:
        raise ValueError(f"two_sided must be one of {TWO_SIDED}, got {two_sided!r}")
    names = None
    given = (x, y, groups)
    if groups is not None:
        if y is not None:
            raise ValueError("pass y or groups=, not both")
        x = as_labelled(oriented(x, groups, "x", "groups"), "x")
        x, y, names = split_by_groups(x, as_labelled(groups, "groups"), classes, axis)
    elif y is None:
        raise ValueError("permutation_test needs y (the second sample) or groups= (one label "
                         "per sample of x)")
    elif classes is not None:
        raise ValueError("classes= goes with groups=")
    x, y = paired(x, y, "x", "y")
    x, y, features = _aligned_features(as_labelled(x, "x"), as_labelled(y, "y"), axis)
    one_feature = np.ndim(x) == 1 and np.ndim(y) == 1
    xs = _as_samples(x, "x", axis)
    ys = _as_samples(y, "y", axis)
    if xs.shape[0] != ys.shape[0]:
        raise ValueError(f"x and y must hold the same number of features, got {xs.shape[0]} "
                         f"and {ys.shape[0]}")
    m, n = xs.shape[1], ys.shape[1]
    summary = group_summary(xs, ys)
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
    top = scores.sum(axis=1)
    if top.max() > MAX_SUM:
        raise ValueError(f"the sums of scores reach {int(top.max())}; integer data with so wide "
                         "a range must be discretised: pass n_windows")

    with executor(device, client, "permutation") as ex:
        if ex.several:
            if return_null:
                raise ValueError("return_null=True is not available with client= or several "
                                 "devices; it needs every null table on this host")
            base, p = tasks.merge(ex.map(tasks.plan(scores, m, n, alternative, mid_p,
                                                    two_sided=two_sided),
                                         progress=progress, desc="permutation_test tasks"))
            null_x = None
        else:
            base, p, null_x = device_pvalues(ex.runtime, scores, m, n, alternative, mid_p,
                                             return_null, progress, two_sided)
    x_scores = scores[:, :m].sum(axis=1)

    statistic = x_scores + offset
    null_offset = base + offset
    common = dict(two_sided=two_sided, groups=names, n_x=m, n_y=n,
                  input=input_of(*given))
    if one_feature:
        return PermutationTestResult(
            statistic[0].item(), float(p[0]), alternative, bool(mid_p), w,
            null_x[0] if return_null else None, null_offset[0].item() if return_null else None,
            **common, **{k: float(v[0]) for k, v in summary.items()})
    return PermutationTestResult(statistic, p, alternative, bool(mid_p), w,
                                 null_x if return_null else None,
                                 null_offset if return_null else None, features, **common,
                                 **summary)
