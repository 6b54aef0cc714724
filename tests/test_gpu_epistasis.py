"""On a machine with a GPU and pocl: the same hits, scores bit for bit, on both devices."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("order", [2, 3, 4])
def test_gpu_equals_pocl(gpu_rt, cpu_rt, order):
    rng = np.random.default_rng(order)
    g = rng.integers(0, 3, size=(30, 1500)).astype(np.int8)
    y = rng.integers(0, 2, size=1500)
    a = oclstat.epistasis(g, y, order=order, top=50, devices=[gpu_rt])
    b = oclstat.epistasis(g, y, order=order, top=50, devices=[cpu_rt])
    assert a.equals(b)
    g[rng.random(g.shape) < 0.02] = -1
    a = oclstat.epistasis(g, y, order=order, top=50, devices=[gpu_rt])
    b = oclstat.epistasis(g, y, order=order, top=50, devices=[gpu_rt, cpu_rt])
    assert a.equals(b)
