"""On a machine with a GPU and pocl: the same seed gives the same GSEA null on both devices."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import oclstat

pytestmark = pytest.mark.gpu


def data():
    rng = np.random.default_rng(4)
    x = np.exp(rng.normal(size=(3001, 40)))
    x[:50, :15] *= 1.5
    names = [f"G{i}" for i in range(3001)]
    sets = {f"S{j}": list(rng.choice(names, int(rng.integers(15, 400)), replace=False))
            for j in range(60)}
    return pd.DataFrame(x, index=names), ["A"] * 15 + ["B"] * 25, sets


@pytest.mark.parametrize("schedule", ["walk", "pairs"])
def test_same_es_table_on_gpu_and_pocl(gpu_rt, cpu_rt, monkeypatch, schedule):
    expr, labels, sets = data()
    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"walk": "cpu", "pairs": "gpu"}[schedule])
    a = oclstat.gsea(expr, labels, sets, n_resamples=300, seed=5, return_null=True, device=gpu_rt)
    b = oclstat.gsea(expr, labels, sets, n_resamples=300, seed=5, return_null=True, device=cpu_rt)
    np.testing.assert_array_equal(a.es_null.to_numpy(), b.es_null.to_numpy())
    pd.testing.assert_frame_equal(a.table, b.table)


def test_default_schedules_agree(gpu_rt, cpu_rt):
    expr, labels, sets = data()
    a = oclstat.gsea(expr, labels, sets, n_resamples=300, seed=5, return_null=True, device=gpu_rt)
    b = oclstat.gsea(expr, labels, sets, n_resamples=300, seed=5, return_null=True, device=cpu_rt)
    np.testing.assert_allclose(a.es_null.to_numpy(), b.es_null.to_numpy(), rtol=1e-12,
                               atol=1e-15)


def test_gpu_many_permutations(gpu_rt):
    expr, labels, sets = data()
    res = oclstat.gsea(expr, labels, sets, n_resamples=1 << 16, seed=1, device=gpu_rt)
    assert res.table["pval"].between(0, 1).all() and res.table["fdr"].between(0, 1).all()
