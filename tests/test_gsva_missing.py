"""GSVA with missing values (``nan_policy``) against GSVA 2's own code on the same calls
(its C and R, pinned in rbridge/tests/testthat/gsva2_gsva_na_reference.csv by
tests/data/make_gsva2_gsva_na_reference.py), against a transcription of GSVA 2's walk with
missing values, and the refusals."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gsva2_reference import assert_equals_long_table, walk_score
from scipy import sparse, stats

import oclstat
from oclstat._singlesample.missing import gsva_with_missing, varying_with_missing

HERE = Path(__file__).resolve().parent
PINNED = HERE.parent / "rbridge" / "tests" / "testthat"
POLICY = {"everything": "propagate", "na.rm": "omit"}


def _pinned_sets() -> dict:
    with open(PINNED / "gsva2_gsva_na_sets.gmt") as f:
        return {r[0]: r[2:] for r in (line.rstrip("\n").split("\t") for line in f)}


@pytest.mark.parametrize("case", ["gaussian_everything", "gaussian_narm", "gaussian_narm_min5",
                                  "gaussian_narm_options", "gaussian_narm_larger",
                                  "poisson_everything", "poisson_narm", "none_everything",
                                  "none_narm"])
def test_equals_gsva2_on_its_own_calls(case, rt):
    ref = pd.read_csv(PINNED / "gsva2_gsva_na_reference.csv")
    want = ref[ref["case"] == case]
    assert not want.empty
    p = want.iloc[0]
    x = pd.read_csv(PINNED / f"gsva2_gsva_na_{p['input']}.csv", index_col=0)
    sets = {k: v for k, v in _pinned_sets().items() if k in set(want["set"])}
    warns = p["use"] == "na.rm" and want["score"].isna().any()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = oclstat.gsva(x, sets, kcdf=p["kcdf"], nan_policy=POLICY[p["use"]],
                           min_size=int(p["min_size"]), tau=float(p["tau"]),
                           mx_diff=bool(p["max_diff"]), abs_ranking=bool(p["abs_ranking"]),
                           device=rt)
    assert any("fewer than" in str(w.message) for w in seen) == warns, case
    assert_equals_long_table(got, want, case)


def test_pinned_cases_reach_what_they_are_for():
    ref = pd.read_csv(PINNED / "gsva2_gsva_na_reference.csv")
    na = ref.groupby("case")["score"].apply(lambda s: s.isna().mean())
    # "everything" with a kernel: sets with a gene missing anywhere score NA in every sample,
    # the set without one ("up") scores everywhere; "na.rm" keeps nearly every score
    assert 0.5 < na["gaussian_everything"] < 1 and 0.5 < na["poisson_everything"] < 1
    up = ref[(ref["case"] == "gaussian_everything") & (ref["set"] == "up")]
    assert up["score"].notna().all()
    assert na["gaussian_narm"] < 0.05 and na["gaussian_narm_min5"] > na["gaussian_narm"]
    assert 0 < na["none_everything"] < na["gaussian_everything"]


def _gsva2_scores(z, sets, tau, mx_diff, abs_ranking, policy, min_size):
    """GSVA 2's .compute_gsva_scores(any_na = TRUE) written out sample by sample: R's
    colRanks(ties "last") among the estimates present, decreasing order statistics p - n_NA -
    r + 1 and rank scores |(p - n_NA) / 2 - r|, each set's step functions over all p genes."""
    p, b = z.shape
    out = np.full((len(sets), b), np.nan)
    for j in range(b):
        col = z[:, j]
        present = ~np.isnan(col)
        m = int(present.sum())
        r = np.full(p, np.nan)
        # ties "last": the later of equal values gets the lower rank
        keys = np.flatnonzero(present)
        order = np.lexsort((-keys, col[keys]))
        r[keys[order]] = np.arange(1, m + 1)
        dos, srs = p - (p - m) - r + 1, np.abs(m / 2 - r)
        for s, idx in enumerate(sets):
            rnk = dos[idx]
            if np.isnan(rnk).any():
                if policy == "propagate":
                    continue
                idx, rnk = idx[~np.isnan(rnk)], rnk[~np.isnan(rnk)]
            if idx.size < min_size or idx.size == 0:
                continue
            out[s, j] = walk_score(rnk, srs[idx], p, tau, mx_diff, abs_ranking)
    return out


@pytest.mark.parametrize("policy", ["propagate", "omit"])
@pytest.mark.parametrize("options", [(1.0, True, False, 1), (0.5, False, False, 3),
                                     (1.0, True, True, 4)])
def test_equals_gsva2_walk_written_out(policy, options):
    tau, mx_diff, abs_ranking, min_size = options
    rng = np.random.default_rng(11)
    z = np.round(rng.normal(size=(70, 9)), 1)                 # rounded: equal estimates
    z[rng.random(z.shape) < 0.12] = np.nan
    z[:, 3] = np.nan                                          # a sample with nothing
    z[:, 5] = np.round(rng.normal(size=70), 1)                # a sample with everything
    idx = [np.arange(0, 10), np.arange(5, 30), np.arange(40, 46), np.arange(50, 53)]
    idx = [i for i in idx if i.size >= min_size]      # GSVA 2 maps and sizes the sets first
    got = gsva_with_missing(z, idx, tau, mx_diff, abs_ranking, policy, min_size)
    want = _gsva2_scores(z, idx, tau, mx_diff, abs_ranking, policy, min_size)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_gsva2_gene_filter_with_missing_values():
    x = np.array([[1.0, np.nan, 2.0], [3.0, np.nan, 3.0], [np.nan, np.nan, np.nan],
                  [np.nan, 5.0, np.nan], [0.0, 1.0, 2.0]])
    # differing values stay, equal ones and a single value go, no value at all stays
    assert varying_with_missing(x).tolist() == [True, False, True, False, True]


def _data(rng, genes=80, samples=10, rate=0.08):
    x = pd.DataFrame(np.round(rng.normal(size=(genes, samples)), 2),
                     index=[f"g{i}" for i in range(genes)],
                     columns=[f"s{j}" for j in range(samples)])
    x.iloc[:12, :5] += 1.5
    y = x.copy()
    y[rng.random(x.shape) < rate] = np.nan
    sets = {"up": [f"g{i}" for i in range(12)], "b": [f"g{i}" for i in range(20, 50)]}
    return x, y, sets


def test_without_missing_values_every_policy_gives_the_same_scores(rt):
    x, _, sets = _data(np.random.default_rng(3))
    for kcdf in ("Gaussian", "Poisson", "none"):
        data = x.abs().round() if kcdf == "Poisson" else x
        base = oclstat.gsva(data, sets, kcdf=kcdf, device=rt)
        for policy in ("propagate", "omit"):
            got = oclstat.gsva(data, sets, kcdf=kcdf, nan_policy=policy, device=rt)
            np.testing.assert_array_equal(got.to_numpy(), base.to_numpy(), err_msg=kcdf)


def test_same_scores_however_the_samples_are_blocked(monkeypatch, rt):
    from oclstat._singlesample import api

    _, y, sets = _data(np.random.default_rng(4), samples=23)
    whole = oclstat.gsva(y, sets, nan_policy="omit", device=rt)
    monkeypatch.setattr(api, "SAMPLE_BLOCK", 4)
    np.testing.assert_array_equal(oclstat.gsva(y, sets, nan_policy="omit",
                                               device=rt).to_numpy(), whole.to_numpy())


def test_omit_kernel_estimate_is_the_mean_over_the_genes_values(rt):
    """The Gaussian estimate of a gene with missing values: the mean over its own values of
    the exact normal CDF (bandwidth: sd of those values / 4), written out."""
    from oclstat._singlesample.missing import gsva_density_with_missing

    rng = np.random.default_rng(8)
    x = rng.normal(size=(6, 12))
    x[rng.random(x.shape) < 0.25] = np.nan
    x[0, :3] = [0.1, 0.4, np.nan]
    got = gsva_density_with_missing(x, "Gaussian", "omit", rt=rt, tabulated=False)
    for i in range(x.shape[0]):
        v = x[i][~np.isnan(x[i])]
        h = v.std(ddof=1) / 4
        f = stats.norm.cdf((v[:, None] - v[None, :]) / h).mean(axis=1)
        np.testing.assert_allclose(got[i][~np.isnan(x[i])], np.log(f / (1 - f)), rtol=1e-12)
        assert np.isnan(got[i][np.isnan(x[i])]).all()
    prop = gsva_density_with_missing(x, "Gaussian", "propagate", rt=rt, tabulated=False)
    assert np.isnan(prop[np.isnan(x).any(axis=1)]).all()


def test_refusals():
    _, y, sets = _data(np.random.default_rng(5))
    with pytest.raises(ValueError, match="missing or infinite"):
        oclstat.gsva(y, sets)
    with pytest.raises(ValueError, match="nan_policy must be one of"):
        oclstat.gsva(y, sets, nan_policy="na.rm")
    with pytest.raises(ValueError, match="dense expression only"):
        oclstat.gsva(sparse.csr_matrix(np.nan_to_num(y.to_numpy()) + np.where(
            np.isnan(y.to_numpy()), np.nan, 0)), sets, genes=list(y.index),
            nan_policy="omit")
    one = y.copy()
    one.iloc[1:] = 1.0
    with pytest.raises(ValueError, match="genes vary across the samples"):
        oclstat.gsva(one, sets, nan_policy="omit")


def test_r_missing_values_as_numpy_missing_values(rt):
    """R's NA (a signalling NaN, payload 1954) scores as numpy's NaN: IEEE minimum and maximum
    would return the number beside it."""
    _, y, sets = _data(np.random.default_rng(6))
    v = y.to_numpy().copy()
    v.view(np.uint64)[np.isnan(v)] = np.uint64(0x7FF00000000007A2)
    assert np.isnan(v).sum() == y.isna().to_numpy().sum()
    r_na = pd.DataFrame(v, index=y.index, columns=y.columns)
    for policy in ("propagate", "omit"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            np.testing.assert_array_equal(
                oclstat.gsva(r_na, sets, nan_policy=policy, device=rt).to_numpy(),
                oclstat.gsva(y, sets, nan_policy=policy, device=rt).to_numpy())
            np.testing.assert_array_equal(
                oclstat.ssgsea(r_na, sets, nan_policy=policy).to_numpy(),
                oclstat.ssgsea(y, sets, nan_policy=policy).to_numpy())


@pytest.mark.parametrize("command", ["gsva", "ssgsea"])
def test_commands_take_the_policy(command, tmp_path, capsys):
    from oclstat.cli import main

    _, y, sets = _data(np.random.default_rng(7))
    y.index.name = "gene"
    y.to_csv(tmp_path / "expr.tsv", sep="\t", na_rep="NA")
    oclstat.io.write_gmt(sets, tmp_path / "s.gmt")
    out = tmp_path / "scores.tsv"
    args = [command, "--expr", str(tmp_path / "expr.tsv"), "--gmt", str(tmp_path / "s.gmt"),
            "--out", str(out)]
    assert main(args) != 0                                    # refused by default
    assert "missing" in capsys.readouterr().err
    assert main([*args, "--nan-policy", "omit"]) == 0
    got = pd.read_csv(out, sep="\t", index_col=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(oclstat, command)(y, sets, nan_policy="omit")
    np.testing.assert_allclose(got.loc[want.index, want.columns].to_numpy(), want.to_numpy(),
                               rtol=1e-9)
