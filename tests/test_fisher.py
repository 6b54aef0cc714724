"""oclstat.fisher_sim / random_table against brute-force enumeration, scipy and R."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import gammaln

import oclstat
from oclstat import _fisher as F
from oclstat._fisher import opencl as fisher_opencl
from oclstat._fisher import plan as fisher_plan
from oclstat._fisher import result as fisher_result
from oclstat._results import r_number
from oclstat.datasets import fisher_table

# ----------------------------------------------------------------------------- references


def all_tables(rows, cols):
    """Every table of non-negative integers with these margins (brute force, small only)."""
    rows, cols = list(rows), list(cols)
    if len(rows) == 1:
        yield np.array([cols])
        return
    first = rows[0]
    for cells in itertools.product(*(range(c + 1) for c in cols)):
        if sum(cells) != first:
            continue
        for rest in all_tables(rows[1:], [c - v for c, v in zip(cols, cells, strict=True)]):
            yield np.vstack([cells, rest])


def table_log_prob(t, rows, cols):
    n = sum(rows)
    return (gammaln(np.add(rows, 1)).sum() + gammaln(np.add(cols, 1)).sum() - gammaln(n + 1)
            - gammaln(t + 1).sum())


def exact_fisher_p(x):
    """Fisher's exact p-value by enumeration: total probability of tables at most as probable
    as ``x`` (with a relative tolerance of 1e-7 as R's exact fisher.test)."""
    x = np.asarray(x)
    rows, cols = x.sum(1), x.sum(0)
    lp_obs = table_log_prob(x, rows, cols)
    total = 0.0
    for t in all_tables(rows, cols):
        lp = table_log_prob(t, rows, cols)
        if lp <= lp_obs + 1e-7:
            total += math.exp(lp)
    return min(1.0, total)


def within_mc_error(p_mc, p_true, b, z=4.5):
    se = math.sqrt(max(p_true * (1 - p_true), 1e-12) / b)
    return abs(p_mc - p_true) <= z * se + 1.0 / b


SMALL_TABLES = [
    np.array([[3, 1], [1, 3]]),
    np.array([[12, 5, 7], [3, 9, 4], [6, 2, 11]]),
    np.array([[2, 0, 3], [1, 4, 0]]),
    np.array([[1, 2, 1, 0], [3, 3, 6, 1], [2, 1, 4, 3]]),
    np.array([[5, 0], [0, 5], [2, 3]]),
]

# ----------------------------------------------------------------------------- random tables


@pytest.mark.parametrize(
    "rows,cols",
    [([3, 2, 4], [4, 5]), ([10, 0, 7], [5, 0, 12]), ([1, 1], [2]), ([40, 3, 100, 7], [60, 90]),
     ([500, 700, 300], [200, 400, 600, 300])],
)
def test_random_tables_keep_their_margins(rows, cols):
    t = oclstat.random_table(rows, cols, size=4000, seed=3)
    assert t.shape == (4000, len(rows), len(cols)) and t.dtype == np.int64
    assert (t >= 0).all()
    assert (t.sum(axis=2) == rows).all()
    assert (t.sum(axis=1) == cols).all()


@pytest.mark.parametrize("rows,cols", [([3, 2, 4], [4, 5]), ([2, 3, 2], [3, 1, 3])])
def test_random_tables_follow_the_multivariate_hypergeometric_law(rows, cols):
    """Chi-square over the whole table distribution (every possible table is a cell)."""
    n = 200_000
    drawn = oclstat.random_table(rows, cols, size=n, seed=12)
    tables = list(all_tables(rows, cols))
    index = {t.tobytes(): i for i, t in enumerate(tables)}
    counts = np.bincount([index[t.tobytes()] for t in drawn.astype(tables[0].dtype)],
                         minlength=len(tables))
    probs = np.exp([table_log_prob(t, rows, cols) for t in tables])
    assert abs(probs.sum() - 1) < 1e-12
    expected = probs * n
    big = expected >= 5
    observed = np.concatenate([counts[big], [counts[~big].sum()]])
    expected = np.concatenate([expected[big], [expected[~big].sum()]])
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    chi2 = ((observed - expected) ** 2 / expected).sum()
    assert stats.chi2.sf(chi2, len(observed) - 1) > 1e-4, chi2


def test_random_table_cell_means_match_scipy():
    rows, cols = [120, 80, 45], [60, 100, 85]
    t = oclstat.random_table(rows, cols, size=100_000, seed=4)
    law = stats.random_table(rows, cols)
    mean = law.mean()
    # cell variance of the multivariate hypergeometric law
    n = sum(rows)
    r, c = np.array(rows)[:, None], np.array(cols)[None, :]
    var = r * c * (n - r) * (n - c) / (n**2 * (n - 1))
    assert np.all(np.abs(t.mean(axis=0) - mean) < 5 * np.sqrt(var / len(t)))
    assert np.allclose(t.var(axis=0), var, rtol=0.03)


def test_random_table_reproducible_and_seed_dependent():
    a = oclstat.random_table([30, 20, 10], [25, 35], size=500, seed=9)
    b = oclstat.random_table([30, 20, 10], [25, 35], size=500, seed=9)
    c = oclstat.random_table([30, 20, 10], [25, 35], size=500, seed=10)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_random_table_size_shapes_and_prefix():
    a = oclstat.random_table([4, 5], [3, 6], size=(2, 3), seed=1)
    assert a.shape == (2, 3, 2, 2)
    assert oclstat.random_table([4, 5], [3, 6], size=0, seed=1).shape == (0, 2, 2)


def test_random_table_bad_margins():
    with pytest.raises(ValueError, match="same total"):
        oclstat.random_table([3, 2], [4, 2])
    with pytest.raises(ValueError, match="row_sums holds negative"):
        oclstat.random_table([-1, 2], [1, 0])
    with pytest.raises(ValueError, match="col_sums must be a non-empty 1-D"):
        oclstat.random_table([3], [[1, 2]])
    with pytest.raises(ValueError, match="non-integer"):
        oclstat.random_table([1.5, 2.5], [2, 2])


# ----------------------------------------------------------------------------- the test


@pytest.mark.parametrize("x", SMALL_TABLES, ids=lambda x: "x".join(map(str, x.shape)))
def test_pvalue_matches_exact_enumeration(x):
    b = 100_000
    res = oclstat.fisher_sim(x, n_resamples=b, seed=21)
    p = exact_fisher_p(x)
    assert within_mc_error(res.pvalue, p, b), (res.pvalue, p)
    assert res.statistic == pytest.approx(-gammaln(x + 1).sum(), rel=1e-15)
    assert res.pvalue == (1 + res.count) / (b + 1)


def test_two_by_two_matches_scipy_fisher_exact():
    x = np.array([[8, 2], [1, 5]])
    res = oclstat.fisher_sim(x, n_resamples=200_000, seed=5)
    p = stats.fisher_exact(x).pvalue
    assert within_mc_error(res.pvalue, p, 200_000)


def test_r_by_c_matches_scipy_monte_carlo():
    x = np.array([[6, 2, 1], [1, 5, 4], [2, 2, 7]])
    b_ref, b = 20_000, 100_000
    ref = stats.fisher_exact(x, method=stats.PermutationMethod(n_resamples=b_ref, rng=1))
    res = oclstat.fisher_sim(x, n_resamples=b, seed=6)
    se = math.sqrt(ref.pvalue * (1 - ref.pvalue) * (1 / b + 1 / b_ref))
    assert abs(res.pvalue - ref.pvalue) < 4.5 * se


def test_empty_rows_and_columns_are_dropped_as_in_r():
    x = np.array([[3, 0, 1], [0, 0, 0], [1, 0, 4]])
    res = oclstat.fisher_sim(x, n_resamples=20_000, seed=2)
    assert res.table.tolist() == [[3, 1], [1, 4]]
    assert within_mc_error(res.pvalue, exact_fisher_p(res.table), 20_000)


def test_null_distribution_is_the_statistic_of_the_simulated_tables():
    """fisher_sim and random_table with the same seed make the same tables."""
    x = np.array([[10, 4, 6], [3, 12, 5]])
    b = 3000
    res = oclstat.fisher_sim(x, n_resamples=b, seed=8, return_statistics=True)
    tables = oclstat.random_table(x.sum(1), x.sum(0), size=b, seed=8)
    want = -gammaln(tables + 1).sum(axis=(1, 2))
    assert res.null_distribution.shape == (b,)
    np.testing.assert_allclose(res.null_distribution, want, rtol=0, atol=1e-9)
    assert res.count == int((want <= res.statistic / fisher_plan.ALMOST_ONE).sum())


def test_ties_are_counted_like_r():
    """A table whose probability equals the observed one (a permutation of its cells) is at
    least as extreme: the observed statistic must not lose ties to rounding."""
    x = np.array([[2, 1], [1, 2]])  # tables (2,1,1,2) and (1,2,2,1) are equally probable
    res = oclstat.fisher_sim(x, n_resamples=50_000, seed=3, return_statistics=True)
    # every table here is (k, 3-k, 3-k, k): equally or less probable than x except none
    assert res.count == int((res.null_distribution <= res.statistic / fisher_plan.ALMOST_ONE).sum())
    assert within_mc_error(res.pvalue, exact_fisher_p(x), 50_000)
    assert res.pvalue == pytest.approx(1.0, abs=0.01)  # all tables are at most as probable


def test_same_seed_same_count_whatever_the_launch_sizes(monkeypatch):
    x = fisher_table("weekday").to_numpy()
    a = oclstat.fisher_sim(x, n_resamples=5000, seed=31)
    monkeypatch.setattr(fisher_opencl, "MAX_STREAMS", 2**18)
    monkeypatch.setattr(fisher_opencl, "_TARGET_LAUNCH_S", 1e-6)  # many short launches
    b = oclstat.fisher_sim(x, n_resamples=5000, seed=31)
    assert a.count == b.count and a.pvalue == b.pvalue


@pytest.mark.parametrize("shape,total", [((3, 3), 20), ((5, 7), 80), ((12, 12), 3000),
                                         ((20, 30), 500), ((2, 9), 7)])
def test_lanes_make_the_one_stream_kernels_counts(monkeypatch, shape, total):
    """Where each work-item runs as scalar code (pocl's CPU drivers) the counts come from
    several streams per work-item side by side (fisher_rcont2_count_lanes): every stream makes
    the resamples it makes alone, from the same draws, so the counts and the streams' states
    after the draws are the one-stream kernel's, bit for bit, at any width and resample count
    (a last round cut short, lanes past the table's streams)."""
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    try:
        rt = oclstat.get_runtime("pocl")
    except oclstat.NoDeviceError:
        pytest.skip("no usable pocl device")
    if not rt.scalar_work_items or not rt.info.fp64:
        pytest.skip("the lanes kernel runs on pocl's CPU drivers with double precision")
    rng = np.random.default_rng(sum(shape) + total)
    p = np.outer(rng.dirichlet(np.full(shape[0], 3.0)), rng.dirichlet(np.full(shape[1], 3.0)))
    x = rng.multinomial(total, p.ravel()).reshape(shape)
    seen = {}
    for lanes in ("1", "4", "8", "16"):
        monkeypatch.setenv("OCLSTAT_LANES", lanes)
        assert fisher_opencl._lanes(rt, np.float64, 16, False) == int(lanes)
        st = oclstat.random.create_streams(60, seed=(7, 7, 7, 7, 7, 7))
        counts = [int(oclstat.fisher_sim(x, n_resamples=b, seed=5, device=rt).count)
                  for b in (1, 7, 2_003)]
        counts.append(int(oclstat.fisher_sim(x, n_resamples=637, streams=st, device=rt).count))
        seen[lanes] = (counts, st.to_matrix().tolist())
    assert all(v == seen["1"] for v in seen.values()), {k: v[0] for k, v in seen.items()}


def test_streams_are_advanced_in_place():
    x = np.array([[5, 3, 2], [1, 6, 4]])
    st = oclstat.random.create_streams(64)
    copy = st.copy()
    a = oclstat.fisher_sim(x, n_resamples=1000, streams=st, return_statistics=True)
    b = oclstat.fisher_sim(x, n_resamples=1000, streams=copy, return_statistics=True)
    c = oclstat.fisher_sim(x, n_resamples=1000, streams=st, return_statistics=True)
    assert np.array_equal(a.null_distribution, b.null_distribution)
    assert not np.array_equal(a.null_distribution, c.null_distribution)
    assert st != copy


def test_float32_sampling_agrees():
    x = np.array([[12, 5, 7], [3, 9, 4], [6, 2, 11]])
    res = oclstat.fisher_sim(x, n_resamples=100_000, seed=4, dtype=np.float32)
    assert within_mc_error(res.pvalue, exact_fisher_p(x), 100_000)
    t = oclstat.random_table([300, 200], [100, 150, 250], size=2000, seed=1, dtype=np.float32)
    assert (t.sum(axis=2) == [300, 200]).all() and (t.sum(axis=1) == [100, 150, 250]).all()


def test_large_margins_do_not_overflow():
    x = np.array([[400_000, 350_000, 250_123], [390_000, 360_000, 249_000],
                  [10_000, 12_000, 9_000]])
    res = oclstat.fisher_sim(x, n_resamples=4000, seed=1, return_statistics=True)
    assert np.isfinite(res.null_distribution).all()
    assert 0 < res.pvalue <= 1
    t = oclstat.random_table(x.sum(1), x.sum(0), size=500, seed=2)
    assert (t.sum(axis=2) == x.sum(1)).all() and (t.sum(axis=1) == x.sum(0)).all()
    # the cell (0, 0) follows its hypergeometric law: mean within 5 s.e.
    law = stats.hypergeom(x.sum(), x.sum(0)[0], x.sum(1)[0])
    assert abs(t[:, 0, 0].mean() - law.mean()) < 5 * law.std() / math.sqrt(500)


def test_table_too_large_for_the_device_is_a_clear_error(rt):
    total = rt.info.max_alloc // 8 + 10
    if total > fisher_plan.MAX_TOTAL:
        pytest.skip("this device can hold a log-factorial table for any 32-bit total")
    x = np.array([[total // 2, 1], [total - total // 2 - 2, 1]])
    with pytest.raises(ValueError, match="log-factorial table"):
        oclstat.fisher_sim(x, n_resamples=10, seed=1)


def test_calibration_under_the_null():
    """Tables drawn under the null (fixed margins): P(p <= a) <= a, and close to a when ties
    are rare (large counts)."""
    rows, cols = [60, 50, 40, 30], [45, 55, 80]
    k = 3000
    null_tables = oclstat.random_table(rows, cols, size=k, seed=1234)
    res = oclstat.fisher_sim_batch(null_tables, n_resamples=199, seed=99)
    p = res.pvalue
    for a in (0.01, 0.05, 0.1, 0.25, 0.5):
        frac = (p <= a).mean()
        sd = math.sqrt(a * (1 - a) / k)
        assert frac <= a + 4 * sd, (a, frac)
        assert frac >= a - 4 * sd - 0.01, (a, frac)
    assert stats.kstest(p, "uniform").pvalue > 1e-3


# ----------------------------------------------------------------------------- batches


def test_batch_of_tables_of_different_shapes():
    b = 50_000
    res = oclstat.fisher_sim_batch(SMALL_TABLES, n_resamples=b, seed=17)
    assert len(res) == len(SMALL_TABLES) and res.n_resamples == b
    for x, p in zip(SMALL_TABLES, res.pvalue, strict=True):
        assert within_mc_error(p, exact_fisher_p(x), b)
    frame = res.to_frame()
    assert list(frame.columns) == ["statistic", "count", "pvalue", "qvalue"]
    assert res[1].pvalue == res.pvalue[1]


def test_three_d_input_is_a_batch():
    x = np.stack([SMALL_TABLES[1], SMALL_TABLES[1].T])
    res = oclstat.fisher_sim(x, n_resamples=2000, seed=1)
    assert isinstance(res, oclstat.FisherSimBatchResult) and len(res) == 2


def test_bh_qvalues_match_r_definition():
    res = oclstat.FisherSimBatchResult(np.zeros(5), np.array([0.01, 0.04, 0.03, 0.5, 0.2]),
                                       np.zeros(5, int), 100)
    # R: p.adjust(c(0.01, 0.04, 0.03, 0.5, 0.2), "BH")
    np.testing.assert_allclose(res.qvalues(), [0.05, 0.0666666667, 0.0666666667, 0.5, 0.25])


def test_batch_errors_name_the_table():
    with pytest.raises(ValueError, match=r"tables\[1\] must have at least 2 rows"):
        oclstat.fisher_sim_batch([np.eye(2, dtype=int) * 3, np.array([[1, 2], [0, 0]])])
    with pytest.raises(ValueError, match="tables must be 3-D"):
        oclstat.fisher_sim_batch(np.eye(3))
    with pytest.raises(ValueError, match="tables is empty"):
        oclstat.fisher_sim_batch([])


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "table,kind,message",
    [
        ([[1, -2], [3, 4]], ValueError, "negative"),
        ([[1.5, 2], [3, 4]], ValueError, "non-integer"),
        ([[np.nan, 2], [3, 4]], ValueError, "NaN"),
        ([1, 2, 3], ValueError, "2-D"),
        ([[1, 2, 3]], ValueError, "at least 2 rows"),
        ([[0, 0], [0, 5]], ValueError, "at least 2 rows and 2 columns"),
        ([[True, False], [False, True]], TypeError, "integer counts"),
        ([["a", "b"], ["c", "d"]], TypeError, "integer counts"),
        ([[2**31, 1], [1, 1]], ValueError, "count above"),
    ],
)
def test_bad_tables_raise_clear_errors(table, kind, message):
    with pytest.raises(kind, match=message):
        oclstat.fisher_sim(table, n_resamples=10, seed=1)


def test_bad_arguments_raise_clear_errors():
    x = [[3, 1], [1, 3]]
    with pytest.raises(ValueError, match="n_resamples must be >= 1"):
        oclstat.fisher_sim(x, n_resamples=0)
    with pytest.raises(TypeError, match="n_resamples must be an integer"):
        oclstat.fisher_sim(x, n_resamples=10.5)
    with pytest.raises(ValueError, match="either streams= or seed="):
        oclstat.fisher_sim(x, seed=1, streams=oclstat.random.create_streams(4))
    with pytest.raises(TypeError, match="dtype"):
        oclstat.fisher_sim(x, dtype=np.int32)
    with pytest.raises(ValueError, match="needs at least one per table"):
        oclstat.fisher_sim_batch([x, x, x], streams=oclstat.random.create_streams(2))


def test_report_prints_like_r():
    res = F.FisherSimResult(-12.5, 0.40506, 40505, 100000)
    text = res.report()
    assert "Fisher's Exact Test for Count Data with simulated p-value (based on\n\t1e+05 " in text
    assert "p-value = 0.4051" in text and "alternative hypothesis: two.sided" in text
    assert r_number(2000) == "2000" and r_number(10**6) == "1e+06"
    assert r_number(123456) == "123456" and r_number(20000) == "20000"
    assert fisher_result._r_pvalue(1e-20) == "< 2.2e-16"
    assert fisher_result._r_pvalue(7e-05) == "= 7e-05"


# ----------------------------------------------------------------------------- R


def _r_matrix(ro, x):
    return ro.r["matrix"](ro.IntVector(np.asarray(x).ravel(order="F").tolist()),
                          nrow=np.asarray(x).shape[0])


@pytest.mark.r
@pytest.mark.parametrize("x", SMALL_TABLES[1:], ids=lambda x: "x".join(map(str, x.shape)))
def test_agrees_with_r_exact_fisher_test(R, x):
    p_exact = R.r["fisher.test"](_r_matrix(R, x)).rx2("p.value")[0]
    assert p_exact == pytest.approx(exact_fisher_p(x), rel=1e-6)  # the enumeration reference
    res = oclstat.fisher_sim(x, n_resamples=100_000, seed=41)
    assert within_mc_error(res.pvalue, p_exact, 100_000)


@pytest.mark.r
@pytest.mark.slow
@pytest.mark.parametrize("name,b", [("month", 200_000), ("weekday", 2_000_000)])
def test_agrees_with_r_simulated_fisher_test(R, name, b):
    """R's fisher.test(simulate.p.value = TRUE) and oclstat on the example tables: the two
    Monte Carlo estimates agree within their joint sampling error."""
    x = fisher_table(name).to_numpy()
    R.r["set.seed"](2024)
    b_r = min(b, 200_000)
    p_r = R.r["fisher.test"](_r_matrix(R, x), **{"simulate.p.value": True, "B": b_r})
    p_r = p_r.rx2("p.value")[0]
    res = oclstat.fisher_sim(x, n_resamples=b, seed=2024)
    p = max(res.pvalue, p_r)
    se = math.sqrt(p * (1 - p) * (1 / b + 1 / b_r))
    assert abs(res.pvalue - p_r) <= 4.5 * se + 2 / b_r, (res.pvalue, p_r)


@pytest.mark.r
def test_statistic_is_r_statistic(R):
    x = fisher_table("month").to_numpy()
    r_stat = -R.r["sum"](R.r["lfactorial"](_r_matrix(R, x)))[0]
    assert oclstat.fisher_sim(x, n_resamples=10, seed=1).statistic == pytest.approx(
        r_stat, rel=1e-14)


def test_log_factorial_fixed_matches_gammaln_and_checks_its_argument():
    for total in (0, 10, 12865, 3_000_000):
        t, bits = F.log_factorial_fixed(total)
        k = np.unique(np.r_[0, min(1, total), np.linspace(0, total, 50).astype(int)])
        np.testing.assert_allclose(t[k] / 2.0**bits, gammaln(k + 1.0), rtol=1e-14, atol=2**-bits)
        assert 2 * float(t[-1]) < 2.0**63  # room for the device's sums
    with pytest.raises(ValueError, match="total must be >= 0"):
        F.log_factorial_fixed(-1)
    with pytest.raises(TypeError, match="total must be an integer"):
        F.log_factorial_fixed(2.5)


def test_example_tables_and_bad_name():
    month = fisher_table("month")
    assert month.shape == (12, 12) and month.index[0] == "Jan" and int(month.values.sum()) == 12865
    with pytest.raises(ValueError, match="name must be one of"):
        fisher_table("year")


def test_benjamini_hochberg_leaves_nan_out():
    from oclstat._multitest import benjamini_hochberg

    q = benjamini_hochberg([0.01, np.nan, 0.04])
    # R: p.adjust(c(0.01, NA, 0.04), "BH") gives 0.02 NA 0.04
    assert np.isnan(q[1]) and q[0] == pytest.approx(0.02) and q[2] == pytest.approx(0.04)
