"""On a machine with a GPU and pocl: random tables and Fisher counts are bit-identical."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat
from oclstat.datasets import fisher_table

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_random_tables_bit_identical_gpu_vs_pocl(gpu_rt, cpu_rt, dtype):
    for rows, cols, size in [([3, 2, 4], [4, 5], 10_001), ([500, 700, 300], [200, 400, 600, 300],
                                                           70_000)]:
        a = oclstat.random_table(rows, cols, size=size, seed=77, device=gpu_rt, dtype=dtype)
        b = oclstat.random_table(rows, cols, size=size, seed=77, device=cpu_rt, dtype=dtype)
        assert np.array_equal(a, b)


@pytest.mark.parametrize("name", ["month", "weekday"])
def test_fisher_counts_and_statistics_bit_identical_gpu_vs_pocl(gpu_rt, cpu_rt, name):
    x = fisher_table(name).to_numpy()
    kw = dict(n_resamples=300_000, seed=5, return_statistics=True)
    a = oclstat.fisher_sim(x, device=gpu_rt, **kw)
    b = oclstat.fisher_sim(x, device=cpu_rt, **kw)
    assert a.count == b.count
    assert np.array_equal(a.null_distribution, b.null_distribution)


def test_fisher_batch_counts_bit_identical_gpu_vs_pocl(gpu_rt, cpu_rt):
    tables = oclstat.random_table([60, 50, 40], [45, 55, 50], size=500, seed=3, device=cpu_rt)
    a = oclstat.fisher_sim_batch(tables, n_resamples=2000, seed=8, device=gpu_rt)
    b = oclstat.fisher_sim_batch(tables, n_resamples=2000, seed=8, device=cpu_rt)
    assert np.array_equal(a.count, b.count)
