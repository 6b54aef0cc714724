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

Inside: ``validate`` (samples, labelled features, window scores), ``plan`` (row lengths,
buffers, batches), ``opencl`` (the programme on the device), ``tails`` (p-values), ``result``
(the frozen result), ``api`` (the public function).
"""

from __future__ import annotations

from .api import permutation_test
from .result import PermutationTestResult
from .validate import window_scores

__all__ = ["PermutationTestResult", "permutation_test", "window_scores"]
