"""oclstat.gsea: observed scores against a plain running-sum walk and GSEApy, the device null
against a host recomputation of the same permutations, statistics against GSEApy, calibration,
determinism and bad input."""

from __future__ import annotations

import mrg_reference as mrg
import numpy as np
import pandas as pd
import pytest
from broad_reference import broad_statistics
from scipy import stats

import oclstat
from oclstat._gsea import core as gsea_core
from oclstat._gsea import enrichment_score, ranking_metric
from oclstat._gsea import opencl as _gsea_device

SEED = (11, 22, 33, 44, 55, 66)


# ----------------------------------------------------------------------------- references


def walk_es(metric_sorted, member_mask, weight):
    """The textbook running sum, one gene at a time (Subramanian et al. 2005)."""
    n, k = metric_sorted.size, int(member_mask.sum())
    w = np.abs(metric_sorted) ** weight
    nr = w[member_mask].sum()
    run, best = 0.0, 0.0
    for i in range(n):
        run += w[i] / nr if member_mask[i] else -1.0 / (n - k)
        if abs(run) > abs(best):
            best = run
    return best


def reference_labels(seed, n_resamples, n, n_a):
    """The permuted class-A masks the device draws: selection sampling, MRG31k3p stream i."""
    out = np.zeros((n_resamples, n), dtype=bool)
    for p, state in enumerate(mrg.stream_starts(seed, n_resamples)):
        need = n_a
        for s in range(n):
            left = n - s
            if need == 0:
                take = False
            elif need == left:
                take = True
            else:
                limit = mrg.M1 - mrg.M1 % left
                while True:
                    state, z = mrg.step(state)
                    if z - 1 < limit:
                        break
                take = (z - 1) % left < need
            out[p, s] = take
            need -= take
    return out


def host_null(values, masks, sets, metric, weight):
    """ES of every set under every permutation mask, recomputed on the host in float64."""
    table = np.empty((len(sets), len(masks)))
    for p, mask in enumerate(masks):
        m, key = ranking_metric(values, mask, metric)
        order = np.lexsort((-np.arange(key.size), -key))
        pos = np.empty(order.size, dtype=np.int64)
        pos[order] = np.arange(order.size)
        for i, idx in enumerate(sets):
            table[i, p] = enrichment_score(m[order], np.sort(pos[idx]), weight)[0]
    return table


def toy(seed=0, n_genes=300, n=(7, 6), shift=1.0, positive=False):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_genes, sum(n)))
    x[:20, : n[0]] += shift
    if positive:
        x = np.exp(x)
    names = [f"G{i}" for i in range(n_genes)]
    expr = pd.DataFrame(x, index=names)
    labels = ["A"] * n[0] + ["B"] * n[1]
    sets = {
        "up": names[:20],
        "mixed": names[10:40],
        "random": list(rng.choice(names, 25, replace=False)),
        "big": names[50:170],
    }
    return expr, labels, sets


# ----------------------------------------------------------------------------- observed ES


@pytest.mark.parametrize("weight", [0.0, 1.0, 1.5, 2.0])
def test_enrichment_score_equals_running_sum_walk(weight):
    rng = np.random.default_rng(5)
    for _ in range(20):
        m = np.sort(rng.normal(size=200))[::-1]
        mask = np.zeros(200, bool)
        mask[rng.choice(200, rng.integers(5, 60), replace=False)] = True
        es, _ = enrichment_score(m, np.flatnonzero(mask), weight)
        assert es == pytest.approx(walk_es(m, mask, weight), abs=1e-12)


def test_metrics_against_numpy_and_scipy():
    rng = np.random.default_rng(2)
    x = np.exp(rng.normal(size=(50, 9)))
    mask = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0], bool)
    a, b = x[:, mask], x[:, ~mask]
    t = stats.ttest_ind(a, b, axis=1, equal_var=False).statistic
    np.testing.assert_allclose(ranking_metric(x, mask, "t_test")[0], t, rtol=1e-12)
    np.testing.assert_allclose(ranking_metric(x, mask, "diff_of_classes")[0],
                               a.mean(1) - b.mean(1), rtol=1e-12)
    np.testing.assert_allclose(ranking_metric(x, mask, "log2_ratio_of_classes")[0],
                               np.log2(a.mean(1) / b.mean(1)), rtol=1e-12)
    sa = np.maximum(a.std(1, ddof=1), 0.2 * np.abs(a.mean(1)))
    sb = np.maximum(b.std(1, ddof=1), 0.2 * np.abs(b.mean(1)))
    np.testing.assert_allclose(ranking_metric(x, mask, "signal_to_noise")[0],
                               (a.mean(1) - b.mean(1)) / (sa + sb), rtol=1e-12)


def test_tie_rule_later_gene_first():
    key = np.array([1.0, 2.0, 1.0, 2.0, 0.5])
    assert gsea_core._order(key).tolist() == [3, 1, 2, 0, 4]


# ----------------------------------------------------------------------------- device null


@pytest.mark.parametrize("schedule", ["walk", "pairs"])
@pytest.mark.parametrize(
    "metric,weight",
    [
        ("signal_to_noise", 1.0),
        ("signal_to_noise", 0.0),
        ("t_test", 1.5),
        ("diff_of_classes", 2.0),
        ("ratio_of_classes", 1.0),
        ("log2_ratio_of_classes", 1.0),
        ("signal_to_noise", 0.7),
    ],
)
def test_device_null_equals_host_recomputation(rt, monkeypatch, schedule, metric, weight):
    expr, labels, sets = toy(1, n_genes=257, n=(7, 6), positive=True)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"walk": "cpu", "pairs": "gpu"}[schedule])
    n_resamples = 37
    res = oclstat.gsea(expr, labels, sets, n_resamples=n_resamples, metric=metric, weight=weight,
                       min_size=10, seed=SEED, return_null=True, device=rt)
    masks = reference_labels(SEED, n_resamples, 13, 7)
    assert (masks.sum(axis=1) == 7).all()
    idx = [np.sort(expr.index.get_indexer(res.gene_sets[s])) for s in res.es_null.index]
    ref = host_null(expr.to_numpy(), masks, idx, metric, weight)
    np.testing.assert_allclose(res.es_null.to_numpy(), ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("schedule", ["walk", "pairs"])
@pytest.mark.parametrize("n", [(5, 38), (38, 5), (32, 32), (1, 64)])
def test_device_null_reads_the_smaller_class_only(rt, monkeypatch, schedule, n):
    """gsea_metric sums the smaller class's samples and takes the other class's sums as the
    totals minus them: class A or B smaller, equal classes, one sample, label words with and
    without a tail. Every null ES equals the host's metric on the full classes."""
    expr, labels, sets = toy(3, n_genes=211, n=n)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"walk": "cpu", "pairs": "gpu"}[schedule])
    res = oclstat.gsea(expr, labels, sets, n_resamples=29, metric="t_test" if n[0] > 1 else
                       "diff_of_classes", min_size=10, seed=SEED, return_null=True, device=rt)
    masks = reference_labels(SEED, 29, sum(n), n[0])
    idx = [np.sort(expr.index.get_indexer(res.gene_sets[s])) for s in res.es_null.index]
    ref = host_null(expr.to_numpy(), masks, idx, res.metric, 1.0)
    np.testing.assert_allclose(res.es_null.to_numpy(), ref, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("permutation", ["phenotype", "gene_set"])
def test_n_more_counts_the_null_and_makes_the_nominal_p(rt, permutation):
    """``n_more`` (fgsea's nMoreExtreme) counted from the returned null table: the null ES of
    the set's sign at least as extreme as its ES; p = (n_more + 1) / (null ES of its sign + 1)."""
    expr, labels, sets = toy(5, n_genes=301, n=(9, 8))
    res = oclstat.gsea(expr, labels, sets, n_resamples=60, min_size=10, seed=6,
                       permutation=permutation, return_null=True, device=rt)
    for name, row in res.table.iterrows():
        null = res.es_null.loc[name].to_numpy()
        if row["es"] >= 0:
            more, sign = np.sum(null >= row["es"]), np.sum(null >= 0)
        else:
            more, sign = np.sum(null <= row["es"]), np.sum(null < 0)
        assert row["n_more"] == more, name
        assert row["pval"] == pytest.approx((more + 1) / (sign + 1), rel=1e-12), name


def test_batches_and_schedules_give_the_same_table(rt, monkeypatch):
    expr, labels, sets = toy(3, n_genes=301, n=(9, 8))
    runs = []
    for schedule, batch in [("walk", 4096), ("walk", 8), ("pairs", 12)]:
        monkeypatch.setenv("OCLSTAT_SCHEDULE", {"walk": "cpu", "pairs": "gpu"}[schedule])
        monkeypatch.setattr(_gsea_device._Plan, "_batch_size", lambda self, b=batch: b)
        runs.append(oclstat.gsea(expr, labels, sets, n_resamples=50, min_size=10, seed=4,
                                 return_null=True, device=rt))
    # exact integer weight sums: the two ES schedules give the same bits, not just close ones
    np.testing.assert_array_equal(runs[0].es_null, runs[1].es_null)
    np.testing.assert_array_equal(runs[0].es_null, runs[2].es_null)
    for r in runs[1:]:
        pd.testing.assert_frame_equal(r.table, runs[0].table, check_exact=True)


@pytest.mark.parametrize("schedule", ["walk", "pairs"])
def test_ranks_do_not_depend_on_the_bucket_count(rt, monkeypatch, schedule):
    """gsea_rank's bucket count is a speed choice: with few buckets (many genes per bucket,
    ties from rounded expression) and with many, the null ES equal the host's ranking (the
    larger gene index first among equal metrics) and each other bit for bit."""
    expr, labels, sets = toy(6, n_genes=1500, n=(6, 5))
    expr = expr.round(1)        # ties in the metric
    monkeypatch.setenv("OCLSTAT_SCHEDULE", {"walk": "cpu", "pairs": "gpu"}[schedule])
    group = _gsea_device._pow2_at_most(min(256, rt.max_group))
    runs = []
    for buckets in (group, 8192):
        monkeypatch.setattr(_gsea_device._Plan, "_buckets",
                            staticmethod(lambda rt, n, b=buckets: b))
        runs.append(oclstat.gsea(expr, labels, sets, n_resamples=23, min_size=10, seed=SEED,
                                 return_null=True, device=rt))
    np.testing.assert_array_equal(runs[0].es_null, runs[1].es_null)
    masks = reference_labels(SEED, 23, 11, 6)
    idx = [np.sort(expr.index.get_indexer(runs[0].gene_sets[s])) for s in runs[0].es_null.index]
    ref = host_null(expr.to_numpy(), masks, idx, "signal_to_noise", 1.0)
    np.testing.assert_allclose(runs[0].es_null.to_numpy(), ref, rtol=1e-9, atol=1e-12)


def test_bucket_count_fits_local_memory(rt):
    """About four genes per bucket, a power of two, within NB_MIN..NB_MAX and local memory."""
    for n_genes in (100, 20_639, 10**6):
        nb = _gsea_device._Plan._buckets(rt, n_genes)
        assert nb & (nb - 1) == 0
        assert _gsea_device.NB_MIN <= nb <= _gsea_device.NB_MAX
        assert nb == _gsea_device.NB_MIN or 8 * nb + 20 * 256 + 1024 <= rt.local_mem
        assert nb <= max(_gsea_device.NB_MIN, n_genes // 4)


def test_recomputation_when_the_table_does_not_stay(rt, monkeypatch):
    expr, labels, sets = toy(4)
    a = oclstat.gsea(expr, labels, sets, n_resamples=40, min_size=10, seed=9, device=rt)
    monkeypatch.setattr(_gsea_device._Plan, "_batch_size", lambda self: 8)
    real_info = rt.info
    monkeypatch.setattr(rt, "info", type(real_info)(**{**real_info.__dict__, "global_mem": 1000}))
    b = oclstat.gsea(expr, labels, sets, n_resamples=40, min_size=10, seed=9, device=rt)
    pd.testing.assert_frame_equal(a.table, b.table)


def test_statistics_from_the_null_table(rt):
    """NES, nominal p, FDR and FWER recomputed from the returned table by Broad's formulas."""
    expr, labels, sets = toy(6, n_genes=400)
    res = oclstat.gsea(expr, labels, sets, n_resamples=300, min_size=10, seed=2,
                       return_null=True, device=rt)
    t = res.table.loc[res.es_null.index]
    null = res.es_null.to_numpy()
    np.testing.assert_allclose(  # the fixed-point means are the means
        [np.rint(r[r >= 0] * 2.0**32).sum() / 2.0**32 / (r >= 0).sum() for r in null],
        [r[r >= 0].mean() for r in null], rtol=1e-9)
    nes, pval, fdr, fwer = broad_statistics(t["es"].to_numpy(), null)
    np.testing.assert_allclose(t["nes"], nes, rtol=1e-12)
    np.testing.assert_allclose(t["pval"], pval, rtol=1e-12)
    np.testing.assert_allclose(t["fdr"], fdr, rtol=1e-12)
    np.testing.assert_allclose(t["fwer"], fwer, rtol=1e-12)


def test_permutations_are_uniform_label_subsets():
    """The generator behind the device labels: all C(6, 3) subsets equally often."""
    masks = reference_labels(SEED, 2000, 6, 3)
    codes = masks.astype(int) @ (1 << np.arange(6))
    _, counts = np.unique(codes, return_counts=True)
    assert counts.size == 20
    assert stats.chisquare(counts).pvalue > 0.001


@pytest.mark.slow
def test_nominal_p_calibrated_under_the_null(rt):
    rng = np.random.default_rng(12)
    pvals = []
    for rep in range(150):
        x = rng.normal(size=(200, 12))
        names = [f"G{i}" for i in range(200)]
        sets = {"s": list(rng.choice(names, 20, replace=False))}
        res = oclstat.gsea(pd.DataFrame(x, index=names), [0] * 6 + [1] * 6, sets, n_resamples=200,
                           min_size=5, seed=rep, device=rt)
        pvals.append(res.table["pval"].iloc[0])
    assert stats.kstest(pvals, "uniform").pvalue > 0.01


def test_same_seed_same_result_other_seed_differs(rt):
    expr, labels, sets = toy(8)
    a = oclstat.gsea(expr, labels, sets, n_resamples=60, min_size=10, seed=5, device=rt)
    b = oclstat.gsea(expr, labels, sets, n_resamples=60, min_size=10, seed=5, device=rt)
    c = oclstat.gsea(expr, labels, sets, n_resamples=60, min_size=10, seed=6, device=rt)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not np.array_equal(a.table["pval"], c.table["pval"])


def test_planted_set_found_and_leading_edge(rt):
    expr, labels, sets = toy(9, shift=2.5)
    res = oclstat.gsea(expr, labels, sets, n_resamples=200, min_size=10, seed=1, device=rt)
    up = res.table.loc["up"]
    assert up["nes"] > 1.5 and up["pval"] < 0.01 and up["fdr"] < 0.05
    assert set(up["leading_edge"]) <= set(res.gene_sets["up"])
    rs = res.running_sum("up")
    assert rs.max() == pytest.approx(up["es"], abs=1e-12)


def test_degenerate_requests_are_errors_not_tables_of_nan(rt):
    """n_resamples=0 used to give NaN NES and p; constant expression an ES of 0.17 and NES 1."""
    expr, labels, sets = toy(1)
    with pytest.raises(ValueError, match="n_resamples must be >= 1"):
        oclstat.gsea(expr, labels, sets, n_resamples=0, min_size=10, device=rt)
    flat = pd.DataFrame(np.ones(expr.shape), index=expr.index, columns=expr.columns)
    with pytest.raises(ValueError, match="for every gene"):
        oclstat.gsea(flat, labels, sets, n_resamples=10, min_size=10, device=rt)


def test_phenotype_labels_are_aligned_to_the_expression_columns(rt):
    """A phenotype Series in another order than the expression's columns is matched by sample
    name (it used to be taken by position and gave other ES); disagreeing labels are an error."""
    expr, labels, sets = toy(2)
    expr.columns = [f"sample{i}" for i in range(expr.shape[1])]
    want = oclstat.gsea(expr, labels, sets, n_resamples=20, min_size=10, seed=3, device=rt)
    shuffled = pd.Series(labels, index=expr.columns).iloc[::-1]
    got = oclstat.gsea(expr, shuffled, sets, n_resamples=20, min_size=10, seed=3, device=rt)
    pd.testing.assert_frame_equal(got.table, want.table)
    got = oclstat.gsea(expr, dict(shuffled), sets, n_resamples=20, min_size=10, seed=3, device=rt)
    pd.testing.assert_frame_equal(got.table, want.table)
    with pytest.raises(ValueError, match="disagree"):
        oclstat.gsea(expr, shuffled.rename(index={"sample0": "other"}), sets, n_resamples=5,
                     min_size=10, device=rt)
    with pytest.raises(ValueError, match="appears more than once"):
        oclstat.gsea(expr, pd.Series(labels, index=["s"] * len(labels)), sets, n_resamples=5,
                     min_size=10, device=rt)


def test_to_tsv_round_trip(rt, tmp_path):
    expr, labels, sets = toy(1)
    res = oclstat.gsea(expr, labels, sets, n_resamples=20, min_size=10, seed=1, device=rt)
    res.to_tsv(tmp_path / "r.tsv")
    back = pd.read_csv(tmp_path / "r.tsv", sep="\t", index_col=0)
    np.testing.assert_allclose(back.loc[res.table.index, "es"], res.table["es"], rtol=1e-5)
    assert back.loc["up", "leading_edge"].split(";") == res.table.loc["up", "leading_edge"]


def test_plot_enrichment(rt, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    expr, labels, sets = toy(1)
    res = oclstat.gsea(expr, labels, sets, n_resamples=20, min_size=10, seed=1, device=rt)
    fig = oclstat.plot_enrichment(res, "up")
    fig.savefig(tmp_path / "up.png")
    assert (tmp_path / "up.png").stat().st_size > 1000
    with pytest.raises(KeyError, match="no gene set 'nope'"):
        oclstat.plot_enrichment(res, "nope")


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        ({"metric": "snr"}, ValueError, "metric must be one of"),
        ({"weight": -1}, ValueError, "weight must be"),
        ({"weight": "x"}, TypeError, "weight must be a number"),
        ({"n_resamples": -5}, ValueError, "n_resamples must be >= 1"),
        ({"min_size": 30, "max_size": 20}, ValueError, "max_size"),
        ({"min_size": 500}, ValueError, "no gene set has between"),
        ({"classes": ("A", "C")}, ValueError, "not in classes"),
        ({"metric": "ratio_of_classes"}, ValueError, "positive expression"),
    ],
)
def test_bad_arguments(rt, kwargs, exc, match):
    expr, labels, sets = toy(1)
    with pytest.raises(exc, match=match):
        oclstat.gsea(expr, labels, sets, **{"min_size": 10, "n_resamples": 5, **kwargs}, device=rt)


def test_bad_data(rt):
    expr, labels, sets = toy(1)
    with pytest.raises(ValueError, match="12 labels but expression has 13 samples"):
        oclstat.gsea(expr, labels[:-1], sets, device=rt)
    with pytest.raises(ValueError, match="exactly 2 values"):
        oclstat.gsea(expr, labels[:-1] + ["C"], sets, device=rt)
    bad = expr.copy()
    bad.iloc[3, 2] = np.nan
    with pytest.raises(ValueError, match="missing or infinite values in 1 genes"):
        oclstat.gsea(bad, labels, sets, device=rt)
    dup = expr.rename(index={"G1": "G0"})
    with pytest.raises(ValueError, match="duplicate gene name 'G0'"):
        oclstat.gsea(dup, labels, sets, device=rt)
    with pytest.raises(ValueError, match="at least 2 samples in each class"):
        oclstat.gsea(expr, ["A"] + ["B"] * 12, sets, device=rt)
    with pytest.raises(TypeError, match="gene_sets must be a dict"):
        oclstat.gsea(expr, labels, ["G1", "G2"], device=rt)
    with pytest.raises(ValueError, match="genes= \\(one name per row\\)"):
        oclstat.gsea(expr.to_numpy(), labels, sets, device=rt)
    lower = expr.rename(index={"G1": "g0"})
    with pytest.raises(ValueError, match="same name in upper case"):
        oclstat.gsea(lower, labels, sets, case_sensitive=False, device=rt)


def test_float32_null_close_to_float64(rt):
    expr, labels, sets = toy(2, n_genes=257)
    a = oclstat.gsea(expr, labels, sets, n_resamples=40, min_size=10, seed=3, return_null=True,
                     device=rt)
    b = oclstat.gsea(expr, labels, sets, n_resamples=40, min_size=10, seed=3, return_null=True,
                     dtype=np.float32, device=rt)
    np.testing.assert_allclose(b.es_null.to_numpy(), a.es_null.to_numpy(), atol=2e-5)
