"""On a machine with a GPU and a CPU device: spatial likelihoods, fits, kriging, the batched
solves and products and the normal quantiles agree between the devices."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat
from oclstat.fields import grid_coords

pytestmark = pytest.mark.gpu


def test_spatial_gpu_vs_cpu(gpu_rt, cpu_rt):
    coords = grid_coords(24, 20) + np.random.default_rng(1).uniform(-0.005, 0.005, (480, 2))
    y = np.sin(6 * coords[:, 0]) + coords[:, 1] + np.random.default_rng(2).normal(0, .1, 480)
    X = np.column_stack([np.ones(480), coords[:, 1]])
    params = {"range": np.geomspace(0.05, 1.0, 40), "shape": np.tile([0.5, 1.0, 2.5, 12.0], 10),
              "nugget": np.geomspace(1e-3, 1.0, 40)}
    a = oclstat.matern_loglik(coords, y, X, params, method="REML", device=gpu_rt)
    b = oclstat.matern_loglik(coords, y, X, params, method="REML", device=cpu_rt)
    np.testing.assert_allclose(a.loglik, b.loglik, rtol=1e-10)
    np.testing.assert_allclose(a.beta, b.beta, rtol=1e-8, atol=1e-10)
    fa = oclstat.fit_matern(coords, y, X, profile2d=False, device=gpu_rt)
    fb = oclstat.fit_matern(coords, y, X, profile2d=False, device=cpu_rt)
    assert fa.loglik == pytest.approx(fb.loglik, abs=1e-6)
    pa = oclstat.predict_matern(fa, grid_coords(50, 50), np.column_stack(
        [np.ones(2500), grid_coords(50, 50)[:, 1]]), device=gpu_rt)
    pb = oclstat.predict_matern(fa, grid_coords(50, 50), np.column_stack(
        [np.ones(2500), grid_coords(50, 50)[:, 1]]), device=cpu_rt)
    np.testing.assert_allclose(pa[["mean", "sd"]], pb[["mean", "sd"]], rtol=1e-9, atol=1e-12)


def test_linalg_and_quantiles_gpu_vs_cpu(gpu_rt, cpu_rt):
    rng = np.random.default_rng(3)
    low = np.tril(rng.normal(size=(20, 300, 300))) + 20 * np.eye(300)
    rhs = rng.normal(size=(20, 300, 7))
    np.testing.assert_allclose(oclstat.solve_triangular_batch(low, rhs, device=gpu_rt),
                               oclstat.solve_triangular_batch(low, rhs, device=cpu_rt),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(oclstat.gemm_batch(low, rhs, device=gpu_rt),
                               oclstat.gemm_batch(low, rhs, device=cpu_rt), rtol=1e-12,
                               atol=1e-12)
    p = rng.uniform(size=10_000)
    np.testing.assert_allclose(oclstat.special.qnorm(p, device=gpu_rt),
                               oclstat.special.qnorm(p, device=cpu_rt), rtol=1e-14, atol=1e-15)
