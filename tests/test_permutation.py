"""oclstat.permutation_test against brute-force enumeration, scipy, the hypergeometric law and
R's coin."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

import oclstat
from oclstat._permutation import plan as permutation_plan
from oclstat._permutation import window_scores


def brute_force(x, y):
    """(statistic, P(T >= t), P(T <= t), P(T = t), null dict) over all relabelings."""
    pooled = np.concatenate([x, y])
    m, total = len(x), len(pooled)
    sums = np.array([pooled[list(c)].sum() for c in itertools.combinations(range(total), m)])
    t = x.sum()
    values, counts = np.unique(sums, return_counts=True)
    null = dict(zip(values.tolist(), (counts / len(sums)).tolist(), strict=True))
    return t, (sums >= t).mean(), (sums <= t).mean(), (sums == t).mean(), null


def expected_p(ge, le, eq, alternative, mid_p):
    if mid_p:
        ge, le = ge - eq / 2, le - eq / 2
    if alternative == "greater":
        return ge
    if alternative == "less":
        return le
    return min(1.0, 2 * min(ge, le))


CASES = [(4, 5), (6, 3), (1, 7), (5, 5), (7, 1)]


@pytest.mark.parametrize("m,n", CASES)
@pytest.mark.parametrize("mid_p", [False, True])
def test_equals_brute_force_enumeration_with_ties(m, n, mid_p):
    rng = np.random.default_rng(m * 10 + n)
    features = 6
    x = rng.integers(-3, 5, size=(features, m))  # small range: many ties, negative values
    y = rng.integers(-2, 6, size=(features, n))
    for alternative in ("two-sided", "less", "greater"):
        res = oclstat.permutation_test(x, y, alternative=alternative, mid_p=mid_p,
                                       return_null=True)
        for f in range(features):
            t, ge, le, eq, null = brute_force(x[f], y[f])
            assert res.statistic[f] == t
            want = expected_p(ge, le, eq, alternative, mid_p)
            assert res.pvalue[f] == pytest.approx(want, rel=1e-12, abs=1e-300)
            got = {int(res.null_offset[f]) + i: p for i, p in enumerate(res.null_distribution[f])
                   if p > 0}
            assert got.keys() == null.keys()
            for v, p in null.items():
                assert got[v] == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("schedule", ["feature", "steps"])
def test_both_device_schedules_agree_with_enumeration(monkeypatch, schedule):
    """The per-feature (CPU) and per-step (GPU) kernels, both run here."""
    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"feature": "cpu", "steps": "gpu"}[schedule])
    rng = np.random.default_rng(99)
    x, y = rng.integers(0, 12, size=(5, 6)), rng.integers(0, 12, size=(5, 4))
    res = oclstat.permutation_test(x, y, alternative="less", mid_p=True)
    for f in range(5):
        t, ge, le, eq, _ = brute_force(x[f], y[f])
        assert res.pvalue[f] == pytest.approx(expected_p(ge, le, eq, "less", True), rel=1e-12)


@pytest.mark.parametrize("fused", [1, 2, 3, 5, 200])
def test_fused_steps_give_the_bits_of_the_step_schedule(rt, monkeypatch, fused):
    """The CPU schedule's sweeps over several steps at once (rows between steps in a ring)
    compute what the GPU schedule computes one step per launch, bit for bit: ties, zero
    scores, x larger or smaller than y, a step count that the sweep size does not divide."""
    rng = np.random.default_rng(31)
    cases = [(rng.normal(size=(4, 9)), rng.normal(0.3, 1, size=(4, 14)), 16),
             (rng.normal(size=(3, 25)), rng.normal(0.3, 1, size=(3, 6)), 32),
             (rng.integers(0, 3, size=(3, 12)), rng.integers(0, 3, size=(3, 11)), 4),
             (rng.normal(size=(2, 1)), rng.normal(size=(2, 4)), 8)]
    for x, y, w in cases:
        monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
        want = oclstat.permutation_test(x, y, n_windows=w, return_null=True, device=rt)
        monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
        monkeypatch.setattr(permutation_plan, "_levels", lambda rt, n: min(fused, n))
        got = oclstat.permutation_test(x, y, n_windows=w, return_null=True, device=rt)
        np.testing.assert_array_equal(got.null_distribution, want.null_distribution)
        np.testing.assert_array_equal(got.pvalue, want.pvalue)


def test_one_feature_gives_scalars():
    res = oclstat.permutation_test([3, 5, 6, 9], [1, 2, 2, 4, 3], alternative="greater")
    assert isinstance(res.statistic, int) and isinstance(res.pvalue, float)
    assert res.pvalue == pytest.approx(3 / 126, rel=1e-12)


def test_axis_zero_means_samples_in_rows():
    rng = np.random.default_rng(1)
    x, y = rng.integers(0, 9, size=(5, 3)), rng.integers(0, 9, size=(6, 3))
    a = oclstat.permutation_test(x, y, axis=0)
    b = oclstat.permutation_test(x.T, y.T)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_matches_scipy_permutation_test(alternative):
    rng = np.random.default_rng(7)
    x, y = rng.normal(0.5, 1, 6), rng.normal(0, 1, 7)
    w = 16
    scores = window_scores(np.concatenate([x, y])[None, :], w)[0]
    ref = stats.permutation_test((scores[:6], scores[6:]), lambda a, b: a.sum(),
                                 permutation_type="independent", alternative=alternative,
                                 n_resamples=np.inf)
    res = oclstat.permutation_test(x, y, n_windows=w, alternative=alternative)
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_window_rule():
    v = np.array([[2.0, 4.0, 6.0, 10.0, 9.999]])
    assert window_scores(v, 4).tolist() == [[0, 1, 2, 3, 3]]
    assert window_scores(np.array([[5.0, 5.0, 5.0]]), 8).tolist() == [[0, 0, 0]]
    res = oclstat.permutation_test([5.0, 5.0], [5.0, 5.0, 5.0], n_windows=8)
    assert res.pvalue == 1.0


def test_binary_scores_follow_the_hypergeometric_law_deep_into_the_tails():
    """0/1 scores: the sum of x's scores is hypergeometric. Checks m = n = 600 (the published
    code's double counts overflow far earlier) down to probabilities of 1e-300."""
    m = n = 600
    x = np.r_[np.ones(560), np.zeros(40)]
    y = np.r_[np.ones(40), np.zeros(560)]
    res = oclstat.permutation_test(x, y, alternative="greater", return_null=True)
    null = res.null_distribution
    law = stats.hypergeom(m + n, 600, m)
    support = np.arange(len(null)) + res.null_offset
    ref = law.pmf(support)
    assert null.sum() == pytest.approx(1.0, rel=1e-12)
    big = ref > 1e-300
    assert big.sum() > 500
    np.testing.assert_allclose(null[big], ref[big], rtol=1e-9)
    assert res.pvalue == pytest.approx(law.sf(559), rel=1e-9)  # 4.8e-235
    assert 1e-300 < res.pvalue < 1e-200


@pytest.mark.parametrize("schedule", ["feature", "steps"])
def test_without_fp64_float_pairs_keep_the_deep_tails(rt, monkeypatch, schedule):
    """On a device without float64 the programme runs in (float mantissa, integer exponent)
    pairs: the hypergeometric law to 3 N 2^-24 relative, down to 1e-300 and beyond."""
    import dataclasses

    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"feature": "cpu", "steps": "gpu"}[schedule])
    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info, fp64=False))
    m = n = 300
    x = np.r_[np.ones(280), np.zeros(20)]
    y = np.r_[np.ones(20), np.zeros(280)]
    res = oclstat.permutation_test(x, y, alternative="greater", return_null=True, device=rt)
    law = stats.hypergeom(m + n, 300, m)
    ref = law.pmf(np.arange(len(res.null_distribution)) + res.null_offset)
    big = ref > 1e-300
    bound = 3 * (m + n) * 2.0**-24
    np.testing.assert_allclose(res.null_distribution[big], ref[big], rtol=bound)
    assert res.pvalue == pytest.approx(law.sf(279), rel=bound)        # about 1e-130
    rng = np.random.default_rng(5)
    a, b = rng.integers(0, 9, size=(4, 13)), rng.integers(0, 9, size=(4, 11))
    monkeypatch.undo()
    want = oclstat.permutation_test(a, b, device=rt).pvalue
    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info, fp64=False))
    np.testing.assert_allclose(oclstat.permutation_test(a, b, device=rt).pvalue, want,
                               rtol=3 * 24 * 2.0**-24)


@pytest.mark.slow
def test_large_samples_do_not_overflow():
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 3, size=2000), rng.integers(0, 3, size=1500)
    res = oclstat.permutation_test(x, y, return_null=True)
    assert np.isfinite(res.null_distribution).all()
    assert res.null_distribution.sum() == pytest.approx(1.0, rel=1e-10)
    # mean of the null: m times the pooled mean
    support = np.arange(res.null_distribution.size) + res.null_offset
    mean = (support * res.null_distribution).sum()
    assert mean == pytest.approx(2000 * np.r_[x, y].mean(), rel=1e-10)


def test_calibration_under_the_null():
    rng = np.random.default_rng(2024)
    features = 3000
    x = rng.normal(size=(features, 9))
    y = rng.normal(size=(features, 14))
    res = oclstat.permutation_test(x, y, n_windows=64)
    p = res.pvalue
    for a in (0.01, 0.05, 0.1, 0.5):
        frac = (p <= a).mean()
        sd = math.sqrt(a * (1 - a) / features)
        assert a - 4 * sd - 0.01 <= frac <= a + 4 * sd, (a, frac)
    mid = oclstat.permutation_test(x, y, n_windows=64, mid_p=True).pvalue
    assert stats.kstest(mid, "uniform").pvalue > 1e-3


def test_qvalues_and_frame():
    rng = np.random.default_rng(5)
    x = rng.integers(0, 20, size=(10, 5))
    y = rng.integers(0, 20, size=(10, 6))
    res = oclstat.permutation_test(x, y)
    frame = res.to_frame()
    assert list(frame.columns) == ["n_x", "n_y", "mean_x", "mean_y", "mean_diff", "effect_size",
                                   "statistic", "pvalue", "qvalue"] and len(frame) == 10
    assert (res.qvalues() >= res.pvalue - 1e-15).all()


@pytest.mark.parametrize(
    "x,y,kwargs,kind,message",
    [
        ([], [1, 2], {}, ValueError, "x is an empty group"),
        ([1, 2], np.empty((1, 0)), {}, ValueError, "y is an empty group"),
        ([1.0, np.nan], [1, 2], {"n_windows": 8}, ValueError, "NaN"),
        ([1, 2], [3, 4], {"n_windows": 1}, ValueError, "n_windows must be >= 2"),
        (np.ones((3, 4)), np.ones((2, 4)), {}, ValueError, "same number of features"),
        ([0.5, 1.5], [1, 2], {}, ValueError, "pass n_windows"),
        ([1, 2], [3, 4], {"alternative": "two.sided"}, ValueError, "alternative must be"),
        (["a"], [1], {}, TypeError, "x must hold numbers"),
        (np.ones((2, 2, 2)), np.ones((2, 2, 2)), {}, ValueError, "1-D .* or 2-D"),
        ([0, 2**40], [1, 5], {}, ValueError, "pass n_windows"),
    ],
)
def test_bad_input_raises_clear_errors(x, y, kwargs, kind, message):
    with pytest.raises(kind, match=message):
        oclstat.permutation_test(x, y, **kwargs)


# ----------------------------------------------------------------------------- R coin


@pytest.mark.r
def test_agrees_with_coin_exact_oneway_test(R):
    try:
        R.r("suppressMessages(library(coin))")
    except Exception:  # noqa: BLE001 - rpy2 raises RRuntimeError
        pytest.skip("R package coin is not installed")
    rng = np.random.default_rng(11)
    for m, n in [(8, 11), (15, 6)]:
        x = rng.integers(0, 30, size=m)
        y = rng.integers(5, 35, size=n)
        R.globalenv["v"] = R.IntVector(np.r_[x, y].tolist())
        R.r(f'g <- factor(c(rep("x", {m}), rep("y", {n})), levels = c("x", "y"))')
        coin = {}
        for alt in ("greater", "less", "two.sided"):
            t = R.r(f'oneway_test(v ~ g, distribution = exact(), alternative = "{alt}")')
            coin[alt] = R.r["pvalue"](t)[0]
            coin["stat"] = R.r["statistic"](t, "linear")[0]
        for alt in ("greater", "less"):
            res = oclstat.permutation_test(x, y, alternative=alt)
            assert res.statistic == coin["stat"]
            assert res.pvalue == pytest.approx(coin[alt], rel=1e-9)
        two = oclstat.permutation_test(x, y).pvalue
        assert two == pytest.approx(min(1, 2 * min(coin["greater"], coin["less"])), rel=1e-9)
        distance = oclstat.permutation_test(x, y, two_sided="distance").pvalue
        assert distance == pytest.approx(coin["two.sided"], rel=1e-9)     # coin's |T - E T|
        windowed = oclstat.permutation_test(x + 0.5, y, n_windows=16, two_sided="distance")
        scores = np.floor(16 * (np.r_[x + 0.5, y] - min(x.min() + 0.5, y.min()))
                          / (max(x.max() + 0.5, y.max()) - min(x.min() + 0.5, y.min())))
        R.globalenv["s"] = R.FloatVector(np.clip(scores, 0, 15).tolist())
        t = R.r('oneway_test(s ~ g, distribution = exact(), alternative = "two.sided")')
        assert windowed.pvalue == pytest.approx(R.r["pvalue"](t)[0], rel=1e-9)


def test_dataframes_are_paired_by_feature_name(rt):
    """Rows of x and y named in different orders are paired by name, not by position;
    names that differ or repeat are an error."""
    import pandas as pd

    rng = np.random.default_rng(8)
    names = [f"prot{i}" for i in range(6)]
    x = pd.DataFrame(rng.integers(0, 30, size=(6, 5)), index=names)
    y = pd.DataFrame(rng.integers(0, 30, size=(6, 8)) + 5, index=names)
    want = oclstat.permutation_test(x.to_numpy(), y.to_numpy(), device=rt)
    got = oclstat.permutation_test(x, y.sample(frac=1, random_state=2), device=rt)
    np.testing.assert_array_equal(got.pvalue, want.pvalue)
    assert got.to_frame().index.tolist() == names
    with pytest.raises(ValueError, match="different features"):
        oclstat.permutation_test(x, y.rename(index={"prot0": "other"}), device=rt)
    with pytest.raises(ValueError, match="appears more than once"):
        oclstat.permutation_test(x, y.rename(index={"prot1": "prot0"}), device=rt)


@pytest.mark.parametrize("schedule", ["feature", "steps"])
def test_a_feature_larger_than_one_allocation_is_spread_over_buffers(rt, monkeypatch,
                                                                     schedule):
    """The programme's table may exceed one allocation (3000 vs 3000 samples in 64 windows
    needs several GB): its rows are spread over up to four buffers, with the same numbers."""
    import dataclasses

    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"feature": "cpu", "steps": "gpu"}[schedule])
    rng = np.random.default_rng(12)
    x, y = rng.normal(size=(3, 40)), rng.normal(0.4, 1, size=(3, 45))
    want = oclstat.permutation_test(x, y, n_windows=32, return_null=True, device=rt)
    plan_one = permutation_plan._plan(rt, np.sort(window_scores(
        np.concatenate([x, y], 1), 32), axis=1), 40)
    assert plan_one["parts"] == 1
    per_feature = plan_one["per_feature"]
    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info,
                                                        max_alloc=per_feature // 3 + 8))
    got = oclstat.permutation_test(x, y, n_windows=32, return_null=True, device=rt)
    np.testing.assert_array_equal(got.null_distribution, want.null_distribution)
    np.testing.assert_array_equal(got.pvalue, want.pvalue)
    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info,
                                                        max_alloc=per_feature // 6))
    with pytest.raises(oclstat.DeviceCapabilityError, match="GB per allocation"):
        oclstat.permutation_test(x, y, n_windows=32, device=rt)


def test_gpu_batches_are_capped_and_give_the_same_bits(rt, monkeypatch):
    """The GPU schedule's batch tables stay under GPU_TABLE_BYTES (17 GiB tables stalled an
    H200): a cap of about two features' tables gives many batches and the same numbers."""
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(7, 12)), rng.normal(0.5, 1, size=(7, 15))
    want = oclstat.permutation_test(x, y, n_windows=32, return_null=True, device=rt)
    scores = np.sort(window_scores(np.concatenate([x, y], 1), 32), axis=1)
    per_feature = permutation_plan._plan(rt, scores, 12)["per_feature"]
    monkeypatch.setattr(permutation_plan, "GPU_TABLE_BYTES", 2 * per_feature + 1)
    assert permutation_plan._plan(rt, scores, 12)["batch"] == 2
    got = oclstat.permutation_test(x, y, n_windows=32, return_null=True, device=rt)
    np.testing.assert_array_equal(got.null_distribution, want.null_distribution)
    np.testing.assert_array_equal(got.pvalue, want.pvalue)


def test_distance_rule_equals_its_definition_on_the_null(rt):
    """two_sided="distance": P(|T - E T| >= |t - E T|) summed from the exact null table."""
    rng = np.random.default_rng(21)
    x, y = rng.integers(0, 12, size=(5, 7)), rng.integers(0, 12, size=(5, 9))
    for mid_p in (False, True):
        res = oclstat.permutation_test(x, y, two_sided="distance", mid_p=mid_p,
                                       return_null=True, device=rt)
        for f in range(5):
            values = res.null_offset[f] + np.arange(res.null_distribution.shape[1])
            mu = 7 * np.r_[x[f], y[f]].mean()
            far = np.abs(values - mu)
            t = abs(res.statistic[f] - mu)
            null = res.null_distribution[f]
            want = null[far > t + 1e-9].sum() + (0.5 if mid_p else 1.0) * \
                null[np.abs(far - t) <= 1e-9].sum()
            assert res.pvalue[f] == pytest.approx(want, rel=1e-12)


def _pvalues_from_table(res, f, alternative, two_sided, mid_p):
    """One feature's p-value summed in numpy from the null table return_null gives."""
    null = res.null_distribution[f]
    values = res.null_offset[f] + np.arange(null.size)
    t = res.statistic[f]
    eq = null[values == t].sum()
    le = null[values <= t].sum() - (0.5 * eq if mid_p else 0.0)
    ge = null[values >= t].sum() - (0.5 * eq if mid_p else 0.0)
    if alternative == "less":
        return le
    if alternative == "greater":
        return ge
    if two_sided == "double":
        return min(1.0, 2 * min(le, ge))
    mean = null @ values                                               # E T
    far, obs = np.abs(values - mean), abs(t - mean)
    return null[far > obs + 1e-9].sum() + (0.5 if mid_p else 1.0) * \
        null[np.abs(far - obs) <= 1e-9].sum()


@pytest.mark.parametrize(("m", "n"), [(6, 11), (11, 6)])
def test_tails_summed_on_the_device_equal_the_hosts(rt, m, n):
    """fp64 devices sum each feature's tails there (permutation_tails): every alternative and
    two-sided rule, mid-p or not, x drawn (m <= n) or y drawn, equals numpy's sums over the
    null table that return_null brings back, and the bits do not depend on return_null. The
    planted feature puts p deep in a tail, where it keeps its relative precision."""
    rng = np.random.default_rng(31)
    x = rng.integers(0, 15, size=(6, m))
    y = rng.integers(0, 15, size=(6, n))
    x[0], y[0] = 40 + np.arange(m), np.arange(n)            # p = 1 / C(m + n, m)
    for alternative in ("two-sided", "less", "greater"):
        for two_sided in ("double", "distance"):
            for mid_p in (False, True):
                kw = dict(alternative=alternative, two_sided=two_sided, mid_p=mid_p, device=rt)
                full = oclstat.permutation_test(x, y, return_null=True, **kw)
                lean = oclstat.permutation_test(x, y, **kw)
                np.testing.assert_array_equal(full.pvalue, lean.pvalue)
                want = [_pvalues_from_table(full, f, alternative, two_sided, mid_p)
                        for f in range(6)]
                np.testing.assert_allclose(full.pvalue, want, rtol=1e-12, atol=0)
    deep = oclstat.permutation_test(x, y, alternative="greater", device=rt).pvalue[0]
    assert deep == pytest.approx(1 / math.comb(m + n, m), rel=1e-13)


def test_one_matrix_and_group_labels(rt):
    import pandas as pd

    rng = np.random.default_rng(4)
    data = rng.integers(0, 20, size=(6, 10))
    labels = np.array(list("abbabaabba"))
    res = oclstat.permutation_test(data, groups=labels, device=rt)
    ref = oclstat.permutation_test(data[:, labels == "a"], data[:, labels == "b"], device=rt)
    np.testing.assert_array_equal(res.pvalue, ref.pvalue)
    assert res.groups == ("a", "b") and (res.n_x, res.n_y) == (5, 5)
    swapped = oclstat.permutation_test(data, groups=labels, classes=("b", "a"),
                                       alternative="less", device=rt)
    np.testing.assert_allclose(swapped.pvalue, oclstat.permutation_test(
        data, groups=labels, alternative="greater", device=rt).pvalue, rtol=1e-12)
    frame = res.to_frame()
    np.testing.assert_allclose(frame["mean_x"], data[:, labels == "a"].mean(axis=1))
    np.testing.assert_allclose(frame["mean_diff"], frame["mean_x"] - frame["mean_y"])
    sd = np.sqrt(((data[:, labels == "a"].var(axis=1, ddof=1) * 4)
                  + data[:, labels == "b"].var(axis=1, ddof=1) * 4) / 8)
    np.testing.assert_allclose(frame["effect_size"], frame["mean_diff"] / sd)
    # a DataFrame's samples matched to a Series of labels by name, not by position
    samples = [f"s{i}" for i in range(10)]
    df = pd.DataFrame(data, index=[f"g{i}" for i in range(6)], columns=samples)
    series = pd.Series(labels, index=samples).sample(frac=1, random_state=3)
    by_name = oclstat.permutation_test(df, groups=series, device=rt)
    np.testing.assert_array_equal(by_name.pvalue, res.pvalue)
    assert by_name.to_frame().index.tolist() == list(df.index)
    with pytest.raises(ValueError, match="no label for 1 sample"):
        oclstat.permutation_test(df, groups=series.drop("s3"), device=rt)


@pytest.mark.parametrize("kwargs, message", [
    ({"groups": list("aab")}, "groups has 3 labels but x has 4 samples"),
    ({"groups": list("aaaa")}, "exactly 2 labels"),
    ({"groups": list("abca")}, "exactly 2 labels"),
    ({"groups": list("abab"), "classes": ("a", "c")}, "not in classes"),
    ({"groups": list("abab"), "y": [1, 2]}, "pass y or groups=, not both"),
    ({}, "needs y"),
    ({"y": [1, 2], "two_sided": "twice"}, "two_sided must be one of"),
])
def test_group_input_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        oclstat.permutation_test([1, 2, 3, 4], **kwargs)
