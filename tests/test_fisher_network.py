"""The exact r x c test (network algorithm, oclstat._fisher.network) against R's fisher.test on
its own help-page tables and on random tables (values frozen in tests/data, and live where R
is installed), against two enumerations written here that share nothing with it (every
table; a meet in the middle without bounds), on every OpenCL implementation; R's degenerate
tables; the hybrid rule; the limits.

R's FEXACT bounds the least probable completions of a node heuristically; on large tables it
counts slightly fewer tables than the exact rule (by up to 8e-9 of the p-value on tables of a
few hundred thousand partial tables): the values frozen here agree to 1e-9, and the
bound-free enumeration below is the judge where they would not.
"""

from __future__ import annotations

import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import oclstat
from oclstat._fisher import exact
from oclstat._fisher.network import TOLERANCE, ExactTooLarge, network_pvalue
from oclstat._fisher.plan import log_factorial_fixed

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from fisher_rxc_from_r import CASES

JOB = [[1, 3, 10, 6], [2, 3, 10, 7], [1, 6, 14, 12], [0, 1, 9, 11]]
MP6 = [[1, 2, 2, 1, 1, 0, 1], [2, 0, 0, 2, 3, 0, 0], [0, 1, 1, 1, 2, 7, 3],
       [1, 1, 2, 0, 0, 0, 1], [0, 1, 1, 1, 1, 0, 0]]


def test_r_help_page_tables():
    """fisher.test(Job) 0.78268493896563884, fisher.test(MP6) 0.039289643655332343 (R 4.2)."""
    assert oclstat.fisher_test(JOB).pvalue == pytest.approx(0.78268493896563884, rel=1e-9)
    assert oclstat.fisher_test(MP6).pvalue == pytest.approx(0.039289643655332343, rel=1e-9)
    assert oclstat.fisher_test(np.array(JOB).T).pvalue == pytest.approx(
        oclstat.fisher_test(JOB).pvalue, rel=1e-12)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_frozen_r_values(case):
    table, r_exact, _ = CASES[case]
    assert oclstat.fisher_test(table).pvalue == pytest.approx(r_exact, rel=1e-9, abs=1e-14)


@pytest.mark.r
def test_live_r(R):
    rng = np.random.default_rng(int.from_bytes(b"live", "little"))
    for _ in range(6):
        r, c = rng.integers(3, 6, size=2)
        t = rng.multinomial(int(rng.integers(20, 70)), np.full(r * c, 1 / (r * c))).reshape(r, c)
        t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
        R.globalenv["x"] = R.r.matrix(R.IntVector(t.T.ravel()), nrow=t.shape[0])
        want = R.r("fisher.test(x, workspace = 2e8)$p.value")[0]
        assert oclstat.fisher_test(t).pvalue == pytest.approx(want, rel=1e-9, abs=1e-14), t


def _brute(table):
    """Every table with these margins, one by one (small tables only)."""
    t = np.asarray(table)
    rows, cols = t.sum(axis=1), t.sum(axis=0)
    n = int(t.sum())

    def logp(x):
        return (sum(math.lgamma(v + 1) for v in rows) + sum(math.lgamma(v + 1) for v in cols)
                - math.lgamma(n + 1) - sum(math.lgamma(v + 1) for v in np.ravel(x)))

    obs = logp(t)

    def fill(j, left):
        if j == len(cols) - 1:
            yield [tuple(left)]
            return
        for x in itertools.product(*(range(min(v, cols[j]) + 1) for v in left)):
            if sum(x) == cols[j]:
                for rest in fill(j + 1, [a - b for a, b in zip(left, x, strict=True)]):
                    yield [x, *rest]

    p = 0.0
    for cols_ in fill(0, list(rows)):
        x = np.array(cols_).T
        lp = logp(x)
        if lp <= obs + TOLERANCE:
            p += math.exp(lp)
    return p


def _middle(table):
    """A meet in the middle without any bound: the first half of the columns' partial tables
    (every one, unsorted rows), the second half's completions of each, joined by sorting."""
    t = np.asarray(table)
    if t.shape[0] > t.shape[1]:
        t = t.T
    rows, cols, n = t.sum(axis=1), t.sum(axis=0), int(t.sum())
    lf, bits = log_factorial_fixed(n)
    lf = np.asarray(lf, np.int64)
    obs = int(lf[rows].sum() + lf[cols].sum() - lf[n] - lf[t].sum())
    thr = obs + int(round(TOLERANCE * 2.0**bits)) - int(lf[rows].sum() - lf[n])
    half = len(cols) // 2

    def spread(left, c):
        for x in itertools.product(*(range(min(v, c) + 1) for v in left)):
            if sum(x) == c:
                yield np.array(x)

    def walk(left, columns):
        states = {tuple(left): {0: 1}}
        for c in columns:
            new = {}
            for node, values in states.items():
                for x in spread(node, c):
                    arc = int(lf[c] - lf[x].sum())
                    d = new.setdefault(tuple(np.array(node) - x), {})
                    for v, w in values.items():
                        d[v + arc] = d.get(v + arc, 0) + w
            states = new
        return states

    p = 0.0
    for node, front in walk(rows, cols[:half]).items():
        back = walk(np.array(node), cols[half:])[tuple([0] * len(node))]
        b = np.array(sorted(back))
        mass = np.r_[0.0, np.cumsum([back[v] * math.exp((v - b[-1]) / 2.0**bits) for v in b])]
        for v, w in front.items():
            k = np.searchsorted(b, thr - v, side="right")
            p += w * math.exp((v + int(b[-1]) + int(lf[rows].sum() - lf[n])) / 2.0**bits) * mass[k]
    return p


@pytest.mark.parametrize("seed", range(6))
def test_equals_two_independent_enumerations(seed, rt):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(2, 5, size=2)
    t = rng.multinomial(int(rng.integers(8, 16)), np.full(r * c, 1 / (r * c))).reshape(r, c)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    if min(t.shape) < 2 or t.shape == (2, 2):
        t = np.array([[3, 1, 2], [0, 2, 4], [1, 1, 0]])
    got = network_pvalue(t, device=rt).pvalue
    assert got == pytest.approx(_brute(t), rel=1e-11)
    assert got == pytest.approx(exact.enumerate_pvalue(t)[0], rel=1e-9)
    big = rng.multinomial(60, np.full(16, 1 / 16)).reshape(4, 4)
    assert network_pvalue(big, device=rt).pvalue == pytest.approx(_middle(big), rel=1e-11)


def test_degenerate_tables_as_r():
    """R: p = 1, estimate 0, interval 0 to Inf for 2 x 2 with an empty margin; p = 1 for
    cbind(0, c(0, 0, 0, 1)) (PR#1662); the simulated test drops empty rows and columns and
    needs two of each."""
    for t in ([[0, 3], [0, 4]], [[0, 0], [3, 4]], [[0, 0], [0, 5]]):
        res = oclstat.fisher_test(t)
        assert (res.pvalue, res.odds_ratio, res.conf_int) == (1.0, 0.0, (0.0, math.inf))
    res = oclstat.fisher_test([[0, 0], [0, 0], [0, 0], [0, 1]])
    assert res.pvalue == 1.0 and res.method == "exact"
    assert oclstat.fisher_test([[0, 2, 3], [0, 0, 0], [0, 4, 1]]).pvalue == pytest.approx(
        oclstat.fisher_test([[2, 3], [4, 1]]).pvalue, rel=1e-12)
    with pytest.raises(ValueError, match="needs 2 or more non-zero row totals"):
        oclstat.fisher_test([[0, 0], [0, 0], [0, 0], [0, 1]], method="simulate", seed=1)
    with pytest.raises(ValueError, match="table holds no counts"):
        oclstat.fisher_test([[0, 0], [0, 0]])


def test_hybrid_is_r_hybrid_rule():
    """R's hybrid = TRUE approximates the partial tables whose remaining table meets Cochran's
    conditions by the chi-square law. Which partial tables reach that test depends on the
    network's bounds, which are not FEXACT's: on the frozen tables the hybrid p-value equals
    R's to 1e-12 where the approximation applies to the same nodes, and is within 0.1% of R's
    hybrid p-value elsewhere (measured: at most 7.2e-4 relative; Job: R 0.77411585, here
    0.77387714, exact 0.78268494)."""
    hyb = oclstat.fisher_test(JOB, hybrid=True)
    assert hyb.hybrid == (5.0, 80.0, 1.0)
    assert hyb.pvalue == pytest.approx(0.77411584815932433, rel=1e-3)
    assert hyb.pvalue != pytest.approx(oclstat.fisher_test(JOB).pvalue, rel=1e-3)
    assert "hybrid using asym.chisq. iff (exp=5,\n\tperc=80, Emin=1)" in hyb.report()
    assert oclstat.fisher_test(MP6, hybrid=True).pvalue == pytest.approx(
        0.039289643655332343, rel=1e-9)      # Cochran's conditions never met, as R says
    same = 0
    for table, _r_exact, r_hybrid in CASES[2:]:
        h = oclstat.fisher_test(table, hybrid=True).pvalue
        assert h == pytest.approx(r_hybrid, rel=1e-3), (table, h, r_hybrid)
        same += h == pytest.approx(r_hybrid, rel=1e-12)
    assert same >= 20                        # most tables: R's hybrid value to 1e-12


def test_same_answer_on_every_implementation(cpu_rt):
    t = CASES[20][0]
    ref = network_pvalue(t, device=cpu_rt)
    for info in oclstat.devices(usable=True):
        if info.type != "CPU" or "Oclgrind" in info.platform:
            continue
        got = network_pvalue(t, device=info.index)
        assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-13), info
        assert got.peak_entries == ref.peak_entries          # the same network, exactly


def test_float32_masses_agree_to_float_precision(rt):
    p64 = network_pvalue(MP6, device=rt).pvalue
    p32 = network_pvalue(MP6, device=rt, dtype=np.float32).pvalue
    assert p32 == pytest.approx(p64, rel=1e-5)


def test_limits_name_the_simulated_test():
    with pytest.raises(ExactTooLarge, match="use method='simulate'"):
        oclstat.fisher_test(JOB, max_entries=10)
    with pytest.raises(ValueError, match="max_entries must be >= 1"):
        oclstat.fisher_test(JOB, max_entries=0)
    with pytest.raises(ValueError, match="hybrid_pars must be three numbers"):
        oclstat.fisher_test(JOB, hybrid=True, hybrid_pars=(5, 80))


def test_pvalues_are_valid_under_the_null():
    """P(p <= alpha) <= alpha (up to sampling error) for tables drawn with Job's margins."""
    job = np.array(JOB)
    tables = oclstat.random_table(job.sum(axis=1), job.sum(axis=0), size=300, seed=5)
    p = np.array([network_pvalue(t).pvalue for t in tables])
    for alpha in (0.05, 0.1, 0.25):
        assert (p <= alpha).mean() <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / len(p))
    assert (p <= 0.5).mean() >= 0.3


@pytest.mark.slow
def test_beyond_r():
    """R (workspace = 2e8) takes 38 s here and 84 s on a loaded 2-core machine for this
    table: p 0.89983378141233106; the exact value (the bound-free enumeration agrees on
    smaller tables) is 0.8998337892119..."""
    t = [[8, 6, 5, 7, 6], [5, 7, 9, 4, 8], [6, 5, 7, 8, 5], [4, 8, 6, 9, 7], [9, 4, 8, 5, 9]]
    res = oclstat.fisher_test(t)
    assert res.pvalue == pytest.approx(0.89983378141233106, rel=1e-8)
