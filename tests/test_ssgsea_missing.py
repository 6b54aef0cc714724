"""ssGSEA with missing values (``nan_policy``) against GSVA 2's own ssgsea() on the same
calls (pinned in rbridge/tests/testthat/gsva2_na_reference.csv by
tests/data/make_gsva2_na_reference.py), against a literal transcription of GSVA 2's walk with
missing values, and the refusals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gsva2_reference import assert_equals_long_table
from scipy import sparse, stats

import oclstat

HERE = Path(__file__).resolve().parent
PINNED = HERE.parent / "rbridge" / "tests" / "testthat"
POLICY = {"everything": "propagate", "na.rm": "omit"}


def _inputs():
    x = pd.read_csv(PINNED / "gsva2_na_input.csv", index_col=0)
    g = list(x.index)
    sets = {"up": g[0:15], "mid": g[9:40], "big": g[49:100], "six": g[100:106],
            "three": ["G40", "G41", "G42"], "one": ["nope", "G2"]}
    return x, sets


def test_equals_gsva2_on_its_own_calls():
    x, sets = _inputs()
    ref = pd.read_csv(PINNED / "gsva2_na_reference.csv")
    assert ref["score"].isna().sum() > 20          # the pinned cases do reach NaN scores
    for case, want in ref.groupby("case", sort=False):
        p = want.iloc[0]
        # GSVA 2 warns where "na.rm" left a set too few members (its NA scores)
        warns = p["use"] == "na.rm" and want["score"].isna().any()
        with pytest.warns(UserWarning, match="fewer than") if warns else _no_warning():
            got = oclstat.ssgsea(x, sets, alpha=float(p["alpha"]), normalize=bool(p["normalize"]),
                                 min_size=int(p["min_size"]), nan_policy=POLICY[p["use"]])
        assert_equals_long_table(got, want, case)


class _no_warning:
    def __enter__(self):
        import warnings
        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def _gsva2_walk(x, sets, alpha, policy, min_size):
    """GSVA 2's ssgsea() with missing values written out sample by sample: colRanks(ties
    "average") among the values present, truncated; order(decreasing) with NA last (or
    dropped for "na.rm"); .fastRndWalk(NArm) on each set's positions."""
    n_all, b = x.shape
    out = np.full((len(sets), b), np.nan)
    for j in range(b):
        col = x[:, j]
        present = ~np.isnan(col)
        r = np.full(n_all, np.nan)
        r[present] = np.trunc(stats.rankdata(col[present], method="average"))
        key = np.where(present, r, -np.inf)
        order = np.argsort(-key, kind="stable")
        if policy == "omit":
            order = order[present[order]]
        n = order.size
        place = {int(g): p + 1 for p, g in enumerate(order)}
        for s, idx in enumerate(sets):
            if policy == "propagate" and not present[idx].all():
                continue
            pos = np.array([place[int(g)] for g in idx if int(g) in place], dtype=float)
            members = np.array([int(g) for g in idx if int(g) in place])
            if pos.size < min_size:
                continue
            ra = r[members] ** alpha
            out[s, j] = (ra * (n - pos + 1)).sum() / ra.sum() - \
                (n * (n + 1) / 2 - (n - pos + 1).sum()) / (n - pos.size)
    return out


@pytest.mark.parametrize("policy", ["propagate", "omit"])
@pytest.mark.parametrize("min_size", [1, 4])
def test_equals_gsva2_walk_written_out(policy, min_size):
    rng = np.random.default_rng(5)
    x = np.round(rng.normal(size=(60, 9)), 1)                 # rounded: ties
    x[rng.random(x.shape) < 0.1] = np.nan
    x[:, 4] = np.nan                                          # a sample with nothing
    genes = [f"g{i}" for i in range(60)]
    sets = {"a": genes[:10], "b": genes[5:30], "c": genes[40:46], "d": genes[50:53]}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = oclstat.ssgsea(x, sets, genes=genes, nan_policy=policy, min_size=min_size,
                             normalize=False)
    idx = [np.array([genes.index(g) for g in v]) for k, v in sets.items()
           if len(v) >= min_size]
    want = _gsva2_walk(x, idx, 0.25, policy, min_size)
    np.testing.assert_array_equal(np.isnan(got.to_numpy()), np.isnan(want))
    np.testing.assert_allclose(got.to_numpy(), want, rtol=1e-12, atol=1e-12)


def test_without_missing_values_every_policy_gives_the_same_scores():
    rng = np.random.default_rng(2)
    x = pd.DataFrame(rng.normal(size=(80, 7)), index=[f"g{i}" for i in range(80)])
    sets = {"a": [f"g{i}" for i in range(12)], "b": [f"g{i}" for i in range(30, 60)]}
    base = oclstat.ssgsea(x, sets)
    for policy in ("propagate", "omit"):
        pd.testing.assert_frame_equal(oclstat.ssgsea(x, sets, nan_policy=policy), base,
                                      check_exact=True)


def test_missing_values_refused_or_named():
    x, sets = _inputs()
    with pytest.raises(ValueError, match="missing or infinite"):
        oclstat.ssgsea(x, sets)                                  # nan_policy="raise"
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        oclstat.ssgsea(x, sets, nan_policy="na.rm")
    with pytest.raises(ValueError, match="flavor='gsva'"):
        oclstat.ssgsea(x, sets, nan_policy="omit", flavor="gseapy")
    inf = x.copy()
    inf.iloc[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        oclstat.ssgsea(inf, sets, nan_policy="propagate")
    sp = sparse.csc_matrix(np.nan_to_num(x.to_numpy(), nan=0.0))
    sp.data[0] = np.nan
    with pytest.raises(ValueError, match="dense expression only"):
        oclstat.ssgsea(sp, sets, genes=list(x.index), nan_policy="omit")
    empty = x.copy()
    empty.iloc[:, :] = np.nan
    empty.iloc[0, :] = 1.0
    with pytest.raises(ValueError, match="every score is NaN"):
        oclstat.ssgsea(empty, {"up": ["G2", "G3"]}, nan_policy="propagate")
