"""On a machine with a GPU and pocl: the same seed gives the same numbers on both devices."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat.random as ocr

pytestmark = pytest.mark.gpu

CASES = [(1, 10), (7, 1001), (1000, 123_457), (2**18, 3_000_001)]


@pytest.mark.parametrize("n_streams, n", CASES)
def test_integers_and_uniforms_bit_identical_gpu_vs_pocl(gpu_rt, cpu_rt, n_streams, n):
    st = ocr.create_streams(n_streams, seed=2024)
    for fn, kw in [
        (ocr.random_raw, {}),
        (ocr.integers, {"low": -3, "high": 1000}),
        (ocr.uniform, {}),
        (ocr.uniform, {"dtype": np.float32}),
    ]:
        a_st, b_st = st.copy(), st.copy()
        a = fn(size=n, streams=a_st, device=gpu_rt, **kw)
        b = fn(size=n, streams=b_st, device=cpu_rt, **kw)
        assert np.array_equal(a, b), fn.__name__
        assert np.array_equal(a_st.current, b_st.current)


@pytest.mark.parametrize("n_streams, n", CASES)
def test_normals_and_exponentials_agree_to_rounding(gpu_rt, cpu_rt, n_streams, n):
    st = ocr.create_streams(n_streams, seed=7)
    for dtype, rtol in [(np.float64, 1e-12), (np.float32, 1e-5)]:
        for fn in (ocr.normal, ocr.exponential):
            a = fn(n, streams=st.copy(), dtype=dtype, device=gpu_rt)
            b = fn(n, streams=st.copy(), dtype=dtype, device=cpu_rt)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol)


def test_seed_path_bit_identical(gpu_rt, cpu_rt):
    a = ocr.random_raw(5_000_000, seed=11, device=gpu_rt)
    b = ocr.random_raw(5_000_000, seed=11, device=cpu_rt)
    assert np.array_equal(a, b)


def test_streams_created_on_gpu_equal_host(gpu_rt):
    for n in (1, 3, 4096, 2**18 + 1):
        assert np.array_equal(
            ocr.create_streams(n, on_device=True, device=gpu_rt).initial,
            ocr.create_streams(n).initial,
        )
