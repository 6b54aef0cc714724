"""On a machine with a GPU and pocl: the per-step GPU schedule agrees with pocl to rounding."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat

pytestmark = pytest.mark.gpu


def test_gpu_and_pocl_agree(gpu_rt, cpu_rt):
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(300, 26)), rng.normal(0.3, 1, size=(300, 80))
    a = oclstat.permutation_test(x, y, n_windows=256, device=gpu_rt, return_null=True)
    b = oclstat.permutation_test(x, y, n_windows=256, device=cpu_rt, return_null=True)
    np.testing.assert_allclose(a.pvalue, b.pvalue, rtol=1e-12)
    np.testing.assert_allclose(a.null_distribution, b.null_distribution, rtol=1e-11, atol=1e-300)


def test_gpu_large_samples(gpu_rt):
    x = np.r_[np.ones(2600), np.zeros(2400)]
    y = np.r_[np.ones(2400), np.zeros(2600)]
    res = oclstat.permutation_test(x, y, alternative="greater", device=gpu_rt, return_null=True)
    assert res.null_distribution.sum() == pytest.approx(1.0, rel=1e-10)
