"""oclstat.fisher_test: Fisher's exact test as R's fisher.test computes it. 2 x 2 tables against
scipy (p-value, conditional MLE, interval) and R (also the null odds ratio and the printed
report); r x c tables against a brute-force enumeration written here and against R's network
algorithm; the automatic choice between exact and simulated; calibration; bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.special import gammaln
from scipy.stats import fisher_exact
from scipy.stats.contingency import odds_ratio

import oclstat
from oclstat._fisher import exact

ALTERNATIVES = ("two-sided", "less", "greater")


def _tables_2x2(n=40, seed=5):
    rng = np.random.default_rng(seed)
    out = [np.array([[0, 5], [4, 0]]), np.array([[7, 0], [0, 3]]), np.array([[0, 0], [3, 4]]),
           np.array([[12, 1], [2, 15]]), np.array([[1, 1], [1, 1]])]
    out += [rng.integers(0, 25, size=(2, 2)) for _ in range(n)]
    return [t for t in out if (t.sum(axis=0) > 0).all() and (t.sum(axis=1) > 0).all()]


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_two_by_two_equals_scipy(alternative):
    for t in _tables_2x2():
        res = oclstat.fisher_test(t, alternative=alternative, conf_level=0.9)
        assert res.method == "exact" and res.n_resamples is None
        ref_p = fisher_exact(t, alternative=alternative).pvalue
        assert res.pvalue == pytest.approx(ref_p, rel=1e-9, abs=1e-15), t
        ref = odds_ratio(t, kind="conditional")
        assert res.odds_ratio == pytest.approx(ref.statistic, rel=1e-8), t
        ci = ref.confidence_interval(0.9, alternative=alternative)
        for mine, theirs in zip(res.conf_int, (ci.low, ci.high), strict=True):
            if math.isinf(theirs) or theirs == 0:
                assert mine == theirs, t
            else:
                assert mine == pytest.approx(theirs, rel=1e-7), t


def _r_matrix(R, x):
    return R.r["matrix"](R.IntVector(x.T.ravel().tolist()), nrow=x.shape[0])


def _close_to_uniroot(mine: float, r_value: float) -> bool:
    """R finds roots with uniroot's default tolerance (eps^0.25 ~ 1.2e-4) on psi in (0, 1) or
    on 1/psi; a value agrees when it is that close on the scale R searched."""
    if math.isinf(mine) or mine == 0:
        return mine == r_value
    tol = 3 * np.finfo(float).eps ** 0.25
    return abs(mine - r_value) <= tol if r_value <= 1 else abs(1 / mine - 1 / r_value) <= tol


@pytest.mark.r
@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("null", [1.0, 0.4, 3.0])
def test_two_by_two_equals_r(R, alternative, null):
    r_alt = alternative.replace("-", ".")
    for t in _tables_2x2(15, seed=8):
        res = oclstat.fisher_test(t, alternative=alternative, null_odds_ratio=null)
        ref = R.r["fisher.test"](_r_matrix(R, t), alternative=r_alt, **{"or": null})
        assert res.pvalue == pytest.approx(ref.rx2("p.value")[0], rel=1e-9, abs=1e-15), t
        assert _close_to_uniroot(res.odds_ratio, ref.rx2("estimate")[0]), t
        for mine, theirs in zip(res.conf_int, ref.rx2("conf.int"), strict=True):
            assert _close_to_uniroot(mine, theirs), (t, res.conf_int, list(ref.rx2("conf.int")))


@pytest.mark.r
def test_report_prints_like_r(R):
    t = np.array([[3, 1], [1, 3]])
    res = oclstat.fisher_test(t)
    printed = "\n".join(R.r("function(x) capture.output(print(fisher.test(x)))")(
        _r_matrix(R, t)))
    mine = res.report().replace("data:  x", "data:  x")
    # every line but the estimate's digits (uniroot's tolerance, see fisher_test's Notes)
    for a, b in zip(mine.splitlines()[:7], printed.splitlines()[:7], strict=True):
        assert a == b
    assert mine.splitlines()[-2] == printed.splitlines()[-2] == "odds ratio "
    assert len(mine.splitlines()) == len(printed.splitlines())


def _brute_force_pvalue(x: np.ndarray) -> float:
    """Every table with x's margins, by itertools, with probabilities from gammaln."""
    rows, cols = x.sum(axis=1), x.sum(axis=0)
    n = int(x.sum())
    const = gammaln(rows + 1).sum() + gammaln(cols + 1).sum() - gammaln(n + 1)

    def logp(t):
        return const - gammaln(np.asarray(t) + 1).sum()

    free = [range(0, min(int(rows[i]), int(cols[j])) + 1)
            for i in range(len(rows) - 1) for j in range(len(cols) - 1)]
    observed = logp(x)
    total = 0.0
    for cells in itertools.product(*free):
        t = np.zeros_like(x)
        t[:-1, :-1] = np.array(cells).reshape(len(rows) - 1, len(cols) - 1)
        t[:-1, -1] = rows[:-1] - t[:-1, :-1].sum(axis=1)
        t[-1, :] = cols - t[:-1, :].sum(axis=0)
        if (t < 0).any():
            continue
        lp = logp(t)
        if lp <= observed + math.log1p(1e-7):
            total += math.exp(lp)
    return min(1.0, total)


@pytest.mark.parametrize("x", [
    np.array([[3, 1, 0], [1, 3, 2]]),
    np.array([[2, 0, 1], [0, 3, 1], [1, 1, 2]]),
    np.array([[4, 1, 2, 0], [0, 2, 1, 3]]),
    np.array([[5, 5], [5, 5], [0, 1]]),
    np.array([[1, 2, 3], [3, 2, 1], [2, 2, 2]]),
])
def test_r_by_c_equals_brute_force(x):
    res = oclstat.fisher_test(x, method="exact")
    assert res.method == "exact" and res.odds_ratio is None
    assert res.pvalue == pytest.approx(_brute_force_pvalue(x), rel=1e-10)


@pytest.mark.r
def test_r_by_c_equals_r_network_algorithm(R):
    rng = np.random.default_rng(3)
    for _ in range(12):
        x = rng.integers(0, 6, size=(int(rng.integers(2, 4)), int(rng.integers(3, 5))))
        x = x[x.sum(axis=1) > 0][:, x.sum(axis=0) > 0]
        if min(x.shape) < 2:
            continue
        res = oclstat.fisher_test(x)
        ref = R.r["fisher.test"](_r_matrix(R, x)).rx2("p.value")[0]
        assert res.method == "exact"
        assert res.pvalue == pytest.approx(ref, rel=1e-6), x


def test_table_counts_are_exact():
    # 2 x c tables with margins (r1, r2) and columns c_j: the first row determines the table
    x = np.array([[1, 2, 3], [2, 2, 1]])
    _, n_tables = exact.enumerate_pvalue(x)
    brute = sum(1 for a in range(4) for b in range(5) for c in range(5)
                if a + b + c == 6 and a <= 3 and b <= 4 and c <= 4)
    assert n_tables == brute


def test_exact_is_the_default_and_auto_falls_back_saying_so():
    big = np.array([[1, 2, 1, 0], [3, 3, 6, 1], [10, 10, 14, 9], [6, 7, 12, 11]])
    assert oclstat.fisher_test(big).method == "exact"
    with pytest.raises(ValueError, match="more than 100 partial tables.*use method='simulate'"):
        oclstat.fisher_test(big, max_entries=100)
    res = oclstat.fisher_test(big, method="auto", max_entries=100, n_resamples=20000, seed=7)
    assert res.method == "simulate" and res.n_resamples == 20000
    assert "simulated instead" in res.note and "note: the exact test was too large" in \
        res.report()
    assert 0.74 < res.pvalue < 0.82                # R's exact fisher.test(Job): 0.7827
    assert "simulated p-value" in res.report() and "seed: 7" in res.report()
    drawn = oclstat.fisher_test(big, method="simulate", n_resamples=3000)
    assert isinstance(drawn.seed, int)             # a drawn seed, printed, repeats the run
    again = oclstat.fisher_test(big, method="simulate", n_resamples=3000, seed=drawn.seed)
    assert again.count == drawn.count and f"seed: {drawn.seed}" in drawn.report()
    with pytest.raises(ValueError, match="use the simulated test"):
        exact.enumerate_pvalue(big, max_entries=1000)
    sim = oclstat.fisher_test(np.array([[3, 1], [1, 3]]), method="simulate", seed=1,
                              n_resamples=5000)
    assert sim.method == "simulate" and sim.odds_ratio == pytest.approx(6.408319658, rel=1e-8)


def test_exact_two_by_two_is_valid_under_the_null():
    """P(p <= alpha) <= alpha for tables drawn with fixed margins (a discrete test is
    conservative, never anti-conservative), and not uselessly so."""
    tables = oclstat.random_table([20, 25], [18, 27], size=2000, seed=11)
    p = np.array([oclstat.fisher_test(t).pvalue for t in tables])
    for alpha in (0.01, 0.05, 0.1):
        rate = (p <= alpha).mean()
        assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / len(p))
        assert rate >= alpha / 3


def test_result_frame_and_report():
    res = oclstat.fisher_test(np.array([[12, 1], [2, 15]]), alternative="greater")
    frame = res.to_frame()
    assert frame.loc[0, "rows"] == 2 and frame.loc[0, "total"] == 30
    assert frame.loc[0, "conf_high"] == math.inf
    text = res.report()
    assert "alternative hypothesis: true odds ratio is greater than 1" in text
    assert "95 percent confidence interval:" in text and "odds ratio " in text
    assert repr(res).startswith("FisherTestResult(table=2x2")
    rc = oclstat.fisher_test(np.array([[3, 1, 0], [1, 3, 2]]))
    assert "alternative hypothesis: two.sided" in rc.report() and rc.network.stages == 2


@pytest.mark.parametrize("kwargs, message", [
    ({"alternative": "two.sided"}, "alternative must be one of"),
    ({"method": "network"}, "method must be one of"),
    ({"conf_level": 1.5}, "conf_level must be between 0 and 1"),
    ({"null_odds_ratio": -1}, "null_odds_ratio must be >= 0"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        oclstat.fisher_test(np.array([[3, 1], [1, 3]]), **kwargs)


def test_options_that_only_2x2_tables_have():
    x = np.array([[3, 1, 0], [1, 3, 2]])
    with pytest.raises(ValueError, match="applies to 2 x 2 tables"):
        oclstat.fisher_test(x, alternative="less")
    with pytest.raises(ValueError, match="null_odds_ratio applies to 2 x 2"):
        oclstat.fisher_test(x, null_odds_ratio=2.0)
    with pytest.raises(ValueError, match="two-sided with null_odds_ratio=1 only"):
        oclstat.fisher_test(np.array([[3, 1], [1, 3]]), method="simulate", alternative="less")
