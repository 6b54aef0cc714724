"""GESECA (oclstat.geseca) against brute-force enumeration of every gene set of a size,
against fgsea 1.31.6's geseca and gesecaSimple (frozen by tests/data/make_geseca_fgsea.py),
for calibration under the null, and on bad input."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import oclstat

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
from geseca_fgsea import CASES
from make_geseca_fgsea import dataset


def _scores(E: np.ndarray, combos: np.ndarray) -> np.ndarray:
    """The GESECA score of every row of ``combos`` (gene indices), in float64."""
    return (E[combos].sum(axis=1) ** 2).sum(axis=1)


@pytest.fixture(scope="module")
def small():
    """26 genes x 5 samples, centred, a module of 6 genes, and the exact null of size 6
    (every one of the 230,230 sets)."""
    rng = np.random.default_rng(7)
    E = rng.normal(size=(26, 5))
    E[:6] += 0.9 * rng.normal(size=5)
    frame = pd.DataFrame(E, index=[f"g{i}" for i in range(26)])
    centred = E - E.mean(axis=1, keepdims=True)
    null = _scores(centred, np.array(list(itertools.combinations(range(26), 6))))
    return frame, centred, null


def _exact(centred, null, idx) -> float:
    return float(np.mean(null >= _scores(centred, np.array([idx]))[0] * (1 - 1e-12)))


def test_simple_pvalues_match_enumeration(small, rt):
    frame, centred, null = small
    rng = np.random.default_rng(1)
    sets = {f"s{j}": [f"g{i}" for i in rng.choice(26, 6, replace=False)] for j in range(8)}
    n = 20000
    res = oclstat.geseca(frame, sets, method="simple", n_resamples=n, seed=5, device=rt)
    for name, genes in sets.items():
        p = _exact(centred, null, [int(g[1:]) for g in genes])
        k = res.table.loc[name, "nMoreExtreme"]
        assert abs(k - n * p) <= 4.5 * np.sqrt(n * p * (1 - p)) + 1, (name, k, n * p)
        assert res.table.loc[name, "pval"] == (k + 1) / (n + 1)


def test_multilevel_pvalue_of_the_module_matches_enumeration(small, rt):
    frame, centred, null = small
    p = _exact(centred, null, list(range(6)))
    assert 1e-5 < p < 1e-3                     # beyond what 1,000 random sets resolve
    logs = []
    for seed in range(6):
        t = oclstat.geseca(frame, {"module": [f"g{i}" for i in range(6)]}, seed=seed,
                           eps=0, device=rt).table
        logs.append(np.log2(t.loc["module", "pval"]))
        err = t.loc["module", "log2err"]
    # six runs: the mean log2 p within 4 standard errors of the exact value
    assert abs(np.mean(logs) - np.log2(p)) <= 4 * err / np.sqrt(6) + 0.05, (logs, np.log2(p))


def test_pct_var_is_fgsea_definition(small, rt):
    frame, centred, _ = small
    t = oclstat.geseca(frame, {"a": ["g1", "g3", "g20"]}, method="simple", seed=1,
                       device=rt).table
    want = _scores(centred, np.array([[1, 3, 20]]))[0] / 3 / np.sum(centred ** 2) * 100
    assert t.loc["a", "pctVar"] == pytest.approx(want, rel=1e-13)


@pytest.fixture(scope="module")
def fgsea_case():
    E, sets = dataset()
    ref = pd.DataFrame(CASES, columns=["pathway", "pctVar", "log10p", "sd", "log2err",
                                       "nMoreExtreme", "size"]).set_index("pathway")
    return E, sets, ref


def test_geseca_agrees_with_fgsea(fgsea_case, rt):
    """pctVar to 1e-12; the mean log10 p of four runs within 4 standard deviations of fgsea's
    mean of four (each run's sd: log2err x log10(2))."""
    E, sets, ref = fgsea_case
    runs = [oclstat.geseca(E, sets, eps=0, seed=s, device=rt).table for s in range(4)]
    ours = pd.concat([np.log10(r["pval"]) for r in runs], axis=1).mean(axis=1)
    assert np.allclose(runs[0]["pctVar"].loc[ref.index], ref["pctVar"], rtol=1e-12, atol=0)
    assert (runs[0]["size"].loc[ref.index] == ref["size"]).all()
    for name, r in ref.iterrows():
        if np.isfinite(r["log2err"]):
            bound = 4 * np.sqrt(2 / 4) * r["log2err"] * np.log10(2) + 0.02
            assert abs(ours[name] - r["log10p"]) <= bound, (name, ours[name], r["log10p"])
        else:                  # beyond fgsea's last level: both far below 1e-80
            assert ours[name] < -80 and r["log10p"] < -80


def test_geseca_simple_agrees_with_fgsea(fgsea_case, rt):
    E, sets, ref = fgsea_case
    n = 2000
    t = oclstat.geseca(E, sets, method="simple", n_resamples=n, seed=1, device=rt).table
    assert list(t.columns) == ["pctVar", "pval", "padj", "nMoreExtreme", "size"]
    for name, r in ref.iterrows():
        p = (r["nMoreExtreme"] + 0.5) / n
        sd = np.sqrt(2 * n * p * (1 - p))          # the difference of two binomial counts
        assert abs(t.loc[name, "nMoreExtreme"] - r["nMoreExtreme"]) <= 4.5 * sd + 2, name


def test_calibrated_under_the_null(rt):
    """Sets of genes with no shared signal: simple p-values uniform (KS), multilevel
    p-values of each set near its simple one."""
    rng = np.random.default_rng(11)
    E = pd.DataFrame(rng.normal(size=(2000, 8)), index=[f"g{i}" for i in range(2000)])
    sets = {f"s{j}": [f"g{i}" for i in rng.choice(2000, 25, replace=False)]
            for j in range(300)}
    t = oclstat.geseca(E, sets, method="simple", n_resamples=2000, seed=2, device=rt).table
    assert stats.kstest(t["pval"], "uniform").pvalue > 0.01
    assert 0.03 < np.mean(t["pval"] < 0.05) < 0.08


@pytest.mark.filterwarnings("ignore:For some pathways")
def test_same_seed_same_table(rt):
    E, sets = dataset()
    a = oclstat.geseca(E, sets, seed=9, device=rt).table
    b = oclstat.geseca(E, sets, seed=9, device=rt).table
    pd.testing.assert_frame_equal(a, b)
    c = oclstat.geseca(E, sets, seed=10, device=rt).table
    assert not a["pval"].equals(c["pval"])


@pytest.mark.filterwarnings("ignore:For some pathways")
def test_same_answer_on_every_implementation(rt):
    E, sets = dataset()
    ref = oclstat.geseca(E, sets, seed=4, eps=1e-20, device=rt).table
    for info in oclstat.devices(usable=True):
        if info.type != "CPU" or "Oclgrind" in info.platform:
            continue
        got = oclstat.geseca(E, sets, seed=4, eps=1e-20, device=info.index).table
        pd.testing.assert_frame_equal(got, ref, check_exact=True)


def test_eps_floor_warns_as_fgsea(fgsea_case, rt):
    E, sets, _ = fgsea_case
    with pytest.warns(UserWarning, match="in reality P-values are less than 1e-10"):
        t = oclstat.geseca(E, sets, eps=1e-10, seed=1, device=rt).table
    assert (t["pval"] >= 1e-10).all()
    assert t.loc[t["pval"] == 1e-10, "log2err"].isna().all()
    assert t["log2err"].isna().any()


def test_small_sample_size_warns_and_uses_three(small, rt):
    frame = small[0]
    with pytest.warns(UserWarning, match="sampleSize = 3 is set"):
        oclstat.geseca(frame, {"m": [f"g{i}" for i in range(6)]}, sample_size=1, seed=1,
                       device=rt)


def test_no_set_in_range_gives_an_empty_table(small, rt):
    frame = small[0]
    res = oclstat.geseca(frame, {"m": ["g1", "g2"]}, min_size=5, device=rt)
    assert res.table.empty and list(res.to_frame().columns) == \
        ["pathway", "pctVar", "pval", "padj", "log2err", "size"]


def test_one_gene_sets_and_scale(small, rt):
    frame = small[0]
    t = oclstat.geseca(frame, {"one": ["g3"], "two": ["g0", "g1"]}, scale=True, seed=1,
                       device=rt).table
    assert t.loc["one", "size"] == 1 and 0 < t.loc["one", "pval"] <= 1
    sd = frame.std(axis=1, ddof=1).to_numpy()[:, None]
    z = (frame.to_numpy() - frame.to_numpy().mean(axis=1, keepdims=True)) / sd
    want = ((z[0] + z[1]) ** 2).sum() / 2 / (z ** 2).sum() * 100
    assert t.loc["two", "pctVar"] == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("change, message", [
    (lambda E: E.set_axis(["g1"] + list(E.index[1:]), axis=0), "duplicate gene name 'g1'"),
    (lambda E: E.mask(E.index.to_series().eq("g2"), axis=0), "missing or infinite"),
])
def test_bad_expression_is_refused(small, rt, change, message):
    with pytest.raises(ValueError, match=message):
        oclstat.geseca(change(small[0].copy()), {"m": ["g3", "g4"]}, device=rt)


def test_too_large_for_host_memory_is_refused_before_any_work(rt):
    from scipy import sparse

    cells = sparse.csc_matrix((np.ones(3), ([0, 5, 9], [1, 7, 1_999_999])),
                              shape=(40000, 2_000_000))      # 80 billion values once dense
    with pytest.raises(ValueError, match="needs .* GB of host memory.*variable genes"):
        oclstat.geseca(cells, {"m": ["g1", "g2"]}, genes=[f"g{i}" for i in range(40000)],
                       device=rt)


def test_bad_arguments_are_refused(small, rt):
    frame = small[0]
    sets = {"m": ["g3", "g4"]}
    with pytest.raises(ValueError, match="method must be"):
        oclstat.geseca(frame, sets, method="fast", device=rt)
    with pytest.raises(ValueError, match="eps"):
        oclstat.geseca(frame, sets, eps=-1, device=rt)
    with pytest.raises(ValueError, match="n_resamples"):
        oclstat.geseca(frame, sets, n_resamples=0, device=rt)
    with pytest.raises(ValueError, match="genes="):
        oclstat.geseca(frame.to_numpy(), sets, device=rt)
    const = frame.copy()
    const.iloc[2] = 1.0
    with pytest.raises(ValueError, match="Cannot rescale a constant"):
        oclstat.geseca(const, sets, scale=True, device=rt)
    with pytest.raises(TypeError, match="center and scale"):
        oclstat.geseca(frame, sets, center="yes", device=rt)


def test_command_line_writes_the_api_table(tmp_path, capsys, rt):
    from oclstat.cli import main

    E, sets = dataset()
    E.index.name = "gene"
    E.to_csv(tmp_path / "E.tsv", sep="\t")
    (tmp_path / "s.gmt").write_text("".join(f"{k}\tna\t" + "\t".join(v) + "\n"
                                            for k, v in sets.items()))
    out = tmp_path / "res.tsv"
    assert main(["geseca", "--expr", str(tmp_path / "E.tsv"), "--gmt", str(tmp_path / "s.gmt"),
                 "--seed", "4", "--eps", "0", "--out", str(out), "--quiet",
                 "--device", str(rt.info.index)]) == 0
    got = pd.read_csv(out, sep="\t").set_index("pathway")
    want = oclstat.geseca(E, sets, seed=4, eps=0, device=rt).table
    assert list(got.columns) == ["pctVar", "pval", "padj", "log2err", "size"]
    assert list(got.index) == list(want.index)
    assert np.allclose(got["pval"], want["pval"], rtol=1e-5)
    assert "by multilevel splitting" in capsys.readouterr().err
