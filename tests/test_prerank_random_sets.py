"""Multilevel p-values of given scores among random sets of one size
(:func:`oclstat._prerank.random_sets.random_set_pvalues`, fgsea's internal
``fgseaMultilevelCpp``): against the exact probabilities from every set of the size
(brute-force enumeration), one answer per seed on every implementation, and bad input."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import oclstat
from oclstat._prerank.multilevel import multilevel_error
from oclstat._prerank.random_sets import random_set_pvalues

N, K = 20, 4


@pytest.fixture(scope="module")
def every_set():
    """The ranking and, for every set of K of its N genes, the running sum's maximum (top),
    minimum (bottom) and the sign of its ES under fgsea's "std" rule."""
    rng = np.random.default_rng(5)
    stat = np.sort(rng.normal(size=N) * 2)[::-1]
    w = np.abs(stat)
    sets = np.array(list(itertools.combinations(range(N), K)))
    hits = np.cumsum(w[sets], axis=1) / w[sets].sum(axis=1, keepdims=True)
    misses = (sets - np.arange(K)) / (N - K)
    top = (hits - misses).max(axis=1)
    bottom = (np.hstack([np.zeros((len(sets), 1)), hits[:, :-1]]) - misses).min(axis=1)
    return stat, top, bottom


@pytest.mark.parametrize("es", [0.5, 0.7, 0.85, -0.6, -0.8])
@pytest.mark.parametrize("sign", [False, True])
def test_pvalues_are_the_exact_ones_within_their_error(rt, every_set, es, sign):
    """P(a random set's running sum reaches |es| on es's side [and its ES has es's sign]),
    counted over all C(20, 4) = 4,845 sets, within 4 expected log2 errors (three seeds)."""
    stat, top, bottom = every_set
    reach = top >= es if es > 0 else -bottom >= -es
    same_sign = top > -bottom if es > 0 else top < -bottom
    exact = float(np.mean(reach if sign else reach & same_sign))
    bound = 4 * float(multilevel_error(exact, 1001)) + 0.1
    for seed in (1, 2, 3):
        got = random_set_pvalues([es], stat, K, sample_size=1001, seed=seed, sign=sign,
                                 device=rt)
        assert abs(math.log2(got.pvalue[0] / exact)) <= bound, (seed, got.pvalue[0], exact)
        assert got.reliable[0]


def test_scores_of_both_signs_at_once_and_the_sign_correction(rt, every_set):
    stat = every_set[0]
    both = random_set_pvalues([0.7, -0.6, 0.5], stat, K, seed=4, device=rt)
    alone = random_set_pvalues([0.7, 0.5], stat, K, seed=4, device=rt)
    assert both.pvalue[[0, 2]].tolist() == alone.pvalue.tolist()      # one climb per side
    either = random_set_pvalues([0.7, -0.6, 0.5], stat, K, seed=4, sign=True, device=rt)
    assert np.all(either.pvalue >= both.pvalue)


def test_eps_stops_the_levels(rt):
    """fgsea's test: eps = 1e-5 keeps an extreme score's p-value above 1e-10."""
    stat = np.sort(np.random.default_rng(2).normal(size=2000))[::-1]
    deep = random_set_pvalues([0.95], stat, 50, sample_size=101, seed=42, eps=0, device=rt)
    capped = random_set_pvalues([0.95], stat, 50, sample_size=101, seed=42, eps=1e-5,
                                device=rt)
    assert deep.pvalue[0] < 1e-20
    assert 1e-10 <= capped.pvalue[0] < 1e-4
    assert not capped.reliable[0]                 # beyond the levels reached


def test_sets_of_all_genes_but_one(rt):
    """fgsea's test: 199 of 200 genes (few distinct sets) still climbs and stops."""
    stat = np.sort(np.random.default_rng(1).normal(size=200))[::-1]
    got = random_set_pvalues([0.5], stat, 199, sample_size=101, seed=7, eps=0.25, device=rt)
    assert 0.0 < got.pvalue[0] <= 1.0


def test_same_seed_same_answer_on_every_implementation(rt, every_set):
    stat = every_set[0]
    ref = random_set_pvalues([0.8, -0.7], stat, K, seed=11, device=rt).pvalue
    for info in oclstat.devices(usable=True):
        if info.type != "CPU" or info.simulator:
            continue
        got = random_set_pvalues([0.8, -0.7], stat, K, seed=11, device=info.index).pvalue
        assert got.tolist() == ref.tolist(), info.label


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(es=[0.5], ranking=[1.0, 2.0, 3.0], set_size=3), ValueError, "set_size"),
    (dict(es=[0.5], ranking=[1.0, 2.0, 3.0], set_size=0), ValueError, "set_size"),
    (dict(es=[np.nan], ranking=[1.0, 2.0, 3.0], set_size=1), ValueError, "es holds"),
    (dict(es=[1.5], ranking=[1.0, 2.0, 3.0], set_size=1), ValueError, "es must lie"),
    (dict(es=[0.5], ranking=[[1.0, 2.0]], set_size=1), ValueError, "ranking must be one"),
    (dict(es=[0.5], ranking=[0.0, 0.0, 0.0], set_size=1), ValueError, "every statistic"),
    (dict(es=[0.5], ranking=[1.0, 2.0, 3.0], set_size=1, eps=2), ValueError, "eps"),
    (dict(es=[0.5], ranking=[1.0, 2.0, 3.0], set_size=1, sample_size=1), ValueError,
     "sample_size"),
    (dict(es=["a"], ranking=[1.0, 2.0, 3.0], set_size=1), TypeError, "es must be numbers"),
])
def test_bad_input_names_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        random_set_pvalues(**kwargs)
