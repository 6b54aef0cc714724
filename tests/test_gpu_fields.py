"""On a machine with a GPU and pocl: Matérn, LDLᵀ and simulated fields agree between devices."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat
from oclstat.fields import grid_coords

pytestmark = pytest.mark.gpu
PARAMS = np.array([[0.3, 1.5, 1.0, 0.0, 1.0, 0.0], [0.2, 0.5, 1.0, 0.0, 2.0, 0.5],
                   [0.5, 2.5, 1.0, 0.01, 1.0, 0.0], [0.1, 0.05, 1.0, 0.0, 1.0, 0.0],
                   [0.4, 19.0, 2.0, 0.01, 1.5, 1.0]])
# (the last one needs its nugget: without it the matrix of a smooth field on this grid is not
# positive definite in double precision, numpy's cholesky refuses it too)


def test_matern_ldl_fields_gpu_vs_pocl(gpu_rt, cpu_rt):
    coords = grid_coords(30, 20)
    a = oclstat.matern_cov(coords, PARAMS, device=gpu_rt)
    b = oclstat.matern_cov(coords, PARAMS, device=cpu_rt)
    np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-300)
    la = oclstat.ldl_batch(a, device=gpu_rt)
    lb = oclstat.ldl_batch(a, device=cpu_rt)
    np.testing.assert_allclose(la.L, lb.L, atol=1e-9)
    np.testing.assert_allclose(la.D, lb.D, rtol=1e-9)
    fa = oclstat.simulate_fields(coords, PARAMS, 4, seed=3, device=gpu_rt)
    fb = oclstat.simulate_fields(coords, PARAMS, 4, seed=3, device=cpu_rt)
    np.testing.assert_allclose(fa, fb, atol=1e-8)


def test_large_batch_on_gpu(gpu_rt):
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 1500, 1500))
    a = x @ x.transpose(0, 2, 1) + 1500 * np.eye(1500)
    r = oclstat.ldl_batch(a, device=gpu_rt)
    rec = (r.L * r.D[:, None, :]) @ r.L.transpose(0, 2, 1)
    assert np.abs(rec - a).max() <= 1e-10 * np.abs(a).max()
