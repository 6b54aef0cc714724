"""Shared device code checked on its own: exact_math.clh (exp, long -> REAL) and
hypergeometric.clh."""

import math

import numpy as np
import pytest
from scipy import stats

from oclstat._fisher import log_factorial_fixed
from oclstat._random.streams import stream_buffer


def _exp_on_device(rt, x, dtype):
    kernel = rt.kernel("selftest.cl", "exact_exp_values", rt.real_defines(dtype))
    xs = np.ascontiguousarray(x, dtype=dtype)
    y = np.empty_like(xs)
    d_x = rt.to_device(xs, writable=False)
    d_y = rt.empty(y.nbytes)
    rt.launch(kernel, len(xs), d_x, d_y, np.uint64(len(xs)))
    return rt.read(d_y, y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_exp_within_two_ulp_of_numpy(rt, dtype):
    if dtype == np.float64 and not rt.info.fp64:
        pytest.skip("no float64 on this device")
    lo = -700.0 if dtype == np.float64 else -85.0
    x = np.concatenate([np.linspace(lo, 80.0, 200_001), [0.0, -1e-300, 1e-12, -0.5, 0.5]])
    x = x.astype(dtype)
    got = _exp_on_device(rt, x, dtype)
    want = np.exp(x.astype(np.float64))  # double reference, rounded once to dtype
    ref = want.astype(dtype)
    ulp = np.spacing(np.abs(ref)).astype(np.float64)
    err = np.abs(got.astype(np.float64) - want) / ulp
    assert err.max() <= 2.0, (x[err.argmax()], got[err.argmax()], ref[err.argmax()])


def test_exact_exp_underflows_to_zero_and_is_finite(rt):
    dtype = np.float64 if rt.info.fp64 else np.float32
    got = _exp_on_device(rt, np.array([-1e4, -800.0, -709.0, 1e4]), dtype)
    assert got[0] == 0 and got[1] == 0 and np.isfinite(got).all()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_long_to_real_rounds_like_the_conversion(rt, dtype):
    """oclstat_long_to_real (built from 32-bit halves in double) against numpy's conversion,
    which rounds to nearest, ties to even: the extremes, values around 2^53 and 2^24 where
    rounding starts, ties, and random longs of every magnitude."""
    if dtype == np.float64 and not rt.info.fp64:
        pytest.skip("no float64 on this device")
    rng = np.random.default_rng(17)
    edges = [0, 1, -1, 2**31 - 1, -(2**31), 2**32, 2**32 - 1, -(2**32) - 1, 2**63 - 1, -(2**63),
             2**53 + 1, 2**53 + 3, -(2**53) - 1, 2**54 + 2, 2**54 + 6, 2**62 + 2**9,  # ties
             2**24 + 1, 2**24 + 3, -(2**24) - 1, 2**62 + 2**9 + 1]
    shifts = rng.integers(0, 63, size=20_000)
    rand = (rng.integers(-(2**62), 2**62, size=shifts.size) >> shifts).astype(np.int64)
    x = np.concatenate([np.array(edges, dtype=np.int64), rand])
    kernel = rt.kernel("selftest.cl", "long_to_real_values", rt.real_defines(dtype))
    y = np.empty(x.size, dtype=dtype)
    d_y = rt.empty(y.nbytes)
    rt.launch(kernel, x.size, rt.to_device(x, writable=False), d_y, np.uint64(x.size))
    np.testing.assert_array_equal(rt.read(d_y, y), x.astype(dtype))


def _hyper_on_device(rt, draws, marked, total, n_streams, per_stream, seed, dtype=None,
                     each_step=False):
    dtype = dtype or (np.float64 if rt.info.fp64 else np.float32)
    logfact, bits = log_factorial_fixed(total)
    defines = rt.real_defines(dtype)
    if each_step:
        defines["HYPER_EXIT_EACH_STEP"] = "1"
    kernel = rt.kernel("selftest.cl", "hypergeometric_values", defines)
    states, _ = stream_buffer(rt, n_streams, seed=seed)
    out = np.empty(n_streams * per_stream, dtype=np.uint32)
    d_out = rt.empty(out.nbytes)
    rt.launch(kernel, n_streams, states, np.uint64(n_streams), np.uint64(per_stream),
              np.uint32(draws), np.uint32(marked), np.uint32(total),
              rt.to_device(logfact, writable=False), dtype(2.0**-bits), d_out)
    return rt.read(d_out, out).astype(np.int64)


@pytest.mark.parametrize(
    "draws,marked,total",
    [(5, 3, 10), (40, 25, 100), (1000, 300, 5000), (7, 9, 12), (200_000, 600_000, 1_000_000),
     # short supports, the mode at or next to an end: the walk runs past hi or below lo
     (2, 1, 4), (9, 10, 12), (60, 2, 61), (30, 40, 50), (12, 30, 200)],
)
def test_hypergeometric_law(rt, draws, marked, total):
    """Chi-square goodness of fit against scipy.stats.hypergeom over the likely support."""
    _assert_hypergeometric(_hyper_on_device(rt, draws, marked, total, 4096, 50, seed=11),
                           draws, marked, total)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hypergeometric_law_with_counts_above_float_precision(rt, dtype):
    """Counts above 2^24, where float rounds them: the ratios use counts formed exactly (in
    float32 a difference of two rounded counts was off by one: of the 4 values of this law,
    2 were drawn)."""
    if dtype == np.float64 and not rt.info.fp64:
        pytest.skip("no fp64")
    total = 23_000_000
    draws, marked = total - 3, 17_250_000  # 3 items left out; the support is 4 values > 2^24
    x = _hyper_on_device(rt, draws, marked, total, 4096, 4, seed=12, dtype=dtype)
    assert x.min() > 2**24
    _assert_hypergeometric(x, draws, marked, total)


def _assert_hypergeometric(x, draws, marked, total):
    law = stats.hypergeom(total, marked, draws)
    lo, hi = max(0, draws + marked - total), min(draws, marked)
    assert x.min() >= lo and x.max() <= hi
    # bins: every value with expected count >= 20, tails pooled
    support = np.arange(lo, hi + 1)
    pmf = law.pmf(support)
    n = len(x)
    keep = support[pmf * n >= 20]
    edges = np.concatenate([[lo - 0.5], keep[:-1] + 0.5, [hi + 0.5]])
    observed = np.histogram(x, bins=edges)[0]
    # bin i holds the integers in (edges[i], edges[i+1]): P = F(floor(e[i+1])) - F(floor(e[i]))
    expected = np.diff(np.concatenate([[0.0], law.cdf(np.floor(edges[1:]))])) * n
    assert abs(expected.sum() - n) < 1e-6 * n
    chi2 = ((observed - expected) ** 2 / expected).sum()
    p = stats.chi2.sf(chi2, len(observed) - 1)
    assert p > 1e-4, (chi2, len(observed))
    sd = math.sqrt(law.var() / n)
    assert abs(x.mean() - law.mean()) < 5 * sd


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hypergeometric_walk_tests_after_each_step_or_each_pass_alike(rt, dtype):
    """The walk's two builds (hypergeometric.clh: a test per pass of four steps, or after each
    step with HYPER_EXIT_EACH_STEP) add the same probabilities in the same order: the same
    draws, near the ends of the support and far from them."""
    if dtype == np.float64 and not rt.info.fp64:
        pytest.skip("no fp64")
    for draws, marked, total in [(2, 1, 4), (9, 10, 12), (60, 2, 61), (30, 40, 50),
                                 (12, 30, 200), (1000, 300, 5000), (200_000, 600_000, 10**6)]:
        a = _hyper_on_device(rt, draws, marked, total, 512, 8, seed=3, dtype=dtype)
        b = _hyper_on_device(rt, draws, marked, total, 512, 8, seed=3, dtype=dtype,
                             each_step=True)
        np.testing.assert_array_equal(a, b, err_msg=str((draws, marked, total)))
        lo, hi = max(0, draws + marked - total), min(draws, marked)
        assert a.min() >= lo and a.max() <= hi


def test_hypergeometric_degenerate_cases(rt):
    assert (_hyper_on_device(rt, 0, 5, 10, 64, 4, seed=1) == 0).all()
    assert (_hyper_on_device(rt, 4, 0, 10, 64, 4, seed=1) == 0).all()
    assert (_hyper_on_device(rt, 7, 10, 10, 64, 4, seed=1) == 7).all()  # every item marked
    assert (_hyper_on_device(rt, 10, 6, 10, 64, 4, seed=1) == 6).all()  # every item drawn


def test_hypergeometric_same_stream_same_draws(rt):
    a = _hyper_on_device(rt, 300, 400, 1000, 256, 20, seed=5)
    b = _hyper_on_device(rt, 300, 400, 1000, 256, 20, seed=5)
    c = _hyper_on_device(rt, 300, 400, 1000, 256, 20, seed=6)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
