"""Every phenotype Broad's GSEA and GSEApy take: continuous (#numeric) profiles with Broad's
correlation and distance metrics, multi-class CLS files with A_versus_B / A_versus_REST, the
metric names of Broad and GSEApy, and gene-set permutation (Broad's -permute gene_set).

References: scipy's correlation and distances for the metrics; a host recomputation of the
device's null from independently generated permutations (tests/mrg_reference.py: the shuffles
of the profile, the random gene sets); Broad's formulas applied to the returned null table;
the same analysis run on the subset of samples the comparison keeps; calibration under the
null."""

from __future__ import annotations

import io

import mrg_reference as mrg
import numpy as np
import pandas as pd
import pytest
from broad_reference import broad_statistics
from scipy import stats
from scipy.spatial import distance

import oclstat
from oclstat._gsea import enrichment_score, ranking_metric
from oclstat.io import ContinuousPhenotype, Phenotype, read_cls, write_cls

SEED = (7, 8, 9, 10, 11, 12)


# ----------------------------------------------------------------------------- references


def _below(state, n):
    """MRG31k3p's exact integer in [0, n): rejection of the top of the range."""
    limit = mrg.M1 - mrg.M1 % n
    while True:
        state, z = mrg.step(state)
        if z - 1 < limit:
            return state, (z - 1) % n


def reference_shuffles(seed, n_resamples, n):
    """The device's shuffles: Fisher-Yates from the top, stream p for permutation p."""
    out = np.empty((n_resamples, n), dtype=np.int64)
    for p, state in enumerate(mrg.stream_starts(seed, n_resamples)):
        row = list(range(n))
        for s in range(n - 1, 0, -1):
            state, j = _below(state, s + 1)
            row[s], row[j] = row[j], row[s]
        out[p] = row
    return out


def reference_random_sets(seed, n_resamples, n_genes, kmax, first=0):
    """The device's random gene sets: distinct positions drawn in turn (a repeat is drawn
    again), stream first + p for permutation p; every prefix is a random set of its size."""
    out = np.empty((n_resamples, kmax), dtype=np.int64)
    for p, state in enumerate(mrg.stream_starts(seed, first + n_resamples)[first:]):
        seen: list[int] = []
        while len(seen) < kmax:
            state, r = _below(state, n_genes)
            if r not in seen:
                seen.append(r)
        out[p] = seen
    return out


def host_ranking(values, pheno, metric):
    m, key = ranking_metric(values, pheno, metric)
    order = np.lexsort((-np.arange(key.size), -key))
    pos = np.empty(order.size, dtype=np.int64)
    pos[order] = np.arange(order.size)
    return m[order], pos


def toy(seed=0, n_genes=240, n=12):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n_genes, n))
    profile = np.linspace(0.0, 3.0, n) + rng.normal(scale=0.2, size=n)
    x[:20] += 1.5 * profile
    names = [f"G{i}" for i in range(n_genes)]
    sets = {"up": names[:20], "mixed": names[10:40], "random": list(rng.choice(names, 25,
                                                                             replace=False)),
            "big": names[50:150]}
    return pd.DataFrame(x, index=names, columns=[f"S{j}" for j in range(n)]), profile, sets


# ----------------------------------------------------------------------------- metrics


def test_profile_metrics_against_scipy():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 9)) + 2.0
    t = rng.normal(size=9)
    pearson = [stats.pearsonr(row, t).statistic for row in x]
    cosine = [1.0 - distance.cosine(row, t) for row in x]
    manhattan = [distance.cityblock(row, t) for row in x]
    euclid = [distance.euclidean(row, t) for row in x]
    for metric, ref in (("pearson", pearson), ("cosine", cosine), ("manhattan", manhattan),
                        ("euclidean", euclid)):
        np.testing.assert_allclose(ranking_metric(x, t, metric)[0], ref, rtol=1e-12)


def test_abs_signal_to_noise_is_the_magnitude():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 8))
    mask = np.array([1, 1, 1, 1, 0, 0, 0, 0], bool)
    s2n = ranking_metric(x, mask, "signal_to_noise")[0]
    np.testing.assert_array_equal(ranking_metric(x, mask, "abs_signal_to_noise")[0],
                                  np.abs(s2n))


@pytest.mark.parametrize("name,ours", [("Signal2Noise", "signal_to_noise"),
                                       ("s2n", "signal_to_noise"), ("tTest", "t_test"),
                                       ("Ratio_of_Classes", "ratio_of_classes"),
                                       ("Diff_of_Classes", "diff_of_classes"),
                                       ("log2_Ratio_of_Classes", "log2_ratio_of_classes"),
                                       ("abs_s2n", "abs_signal_to_noise"),
                                       ("ABS_SIGNAL_TO_NOISE", "abs_signal_to_noise")])
def test_broad_and_gseapy_metric_names(rt, name, ours):
    expr, _, sets = toy(1)
    labels = ["a"] * 6 + ["b"] * 6
    data = np.exp(expr) if "ratio" in ours.lower() else expr
    a = oclstat.gsea(data, labels, sets, metric=name, n_resamples=30, seed=1, min_size=10,
                     device=rt)
    b = oclstat.gsea(data, labels, sets, metric=ours, n_resamples=30, seed=1, min_size=10,
                     device=rt)
    assert a.metric == ours
    pd.testing.assert_frame_equal(a.table, b.table)


# ----------------------------------------------------------------------------- continuous


@pytest.mark.parametrize("schedule", ["cpu", "gpu"])
@pytest.mark.parametrize("metric,weight", [("pearson", 1.0), ("cosine", 0.0),
                                           ("manhattan", 1.0), ("euclidean", 2.0)])
def test_continuous_null_equals_host_recomputation(rt, monkeypatch, schedule, metric, weight):
    expr, profile, sets = toy(2, n_genes=181, n=11)
    if metric in ("manhattan", "euclidean", "cosine"):
        expr = expr + 3.0          # distances and cosine read the values as they are
    monkeypatch.setenv("OCLSTAT_SCHEDULE", schedule)
    n_resamples = 29
    res = oclstat.gsea(expr, profile, sets, metric=metric, weight=weight,
                       n_resamples=n_resamples, min_size=10, seed=SEED, return_null=True,
                       device=rt)
    assert res.profile == "profile" and res.classes == ("na_pos", "na_neg")
    shuffles = reference_shuffles(SEED, n_resamples, profile.size)
    assert all(sorted(s) == list(range(profile.size)) for s in shuffles)
    values = expr.to_numpy()
    idx = {s: np.sort(expr.index.get_indexer(res.gene_sets[s])) for s in res.es_null.index}
    ref = np.empty(res.es_null.shape)
    for p, shuffle in enumerate(shuffles):
        m, pos = host_ranking(values, profile[shuffle], metric)
        for i, s in enumerate(res.es_null.index):
            ref[i, p] = enrichment_score(m, np.sort(pos[idx[s]]), weight)[0]
    np.testing.assert_allclose(res.es_null.to_numpy(), ref, rtol=1e-9, atol=1e-12)
    # the observed ES is the host's
    m, pos = host_ranking(values, profile, metric)
    for s in idx:
        assert res.table.loc[s, "es"] == enrichment_score(m, np.sort(pos[idx[s]]), weight)[0]


def test_shuffles_are_uniform_permutations():
    shuffles = reference_shuffles(SEED, 2400, 4)
    codes = [tuple(s) for s in shuffles]
    _, counts = np.unique(np.array(codes), axis=0, return_counts=True)
    assert counts.size == 24
    assert stats.chisquare(counts).pvalue > 0.001


def test_planted_profile_is_found_and_reported_at_both_ends(rt):
    expr, profile, sets = toy(5)
    expr.iloc[150:170] -= 1.5 * profile          # a set anti-correlated with the profile
    sets["down"] = list(expr.index[150:170])
    res = oclstat.gsea(expr, ContinuousPhenotype({"dose": tuple(profile)}), sets,
                       n_resamples=300, min_size=10, seed=3, device=rt)
    assert res.metric == "pearson" and res.profile == "dose"
    assert res.table.loc["up", "nes"] > 1.5 and res.table.loc["up", "fdr"] < 0.05
    assert res.table.loc["down", "nes"] < -1.5 and res.table.loc["down", "fdr"] < 0.05
    assert "up" in set(res.positive["NAME"]) and "down" in set(res.negative["NAME"])


def test_a_series_profile_is_aligned_to_the_samples(rt):
    expr, profile, sets = toy(6)
    series = pd.Series(profile, index=expr.columns)
    a = oclstat.gsea(expr, series.iloc[::-1], sets, metric="pearson", n_resamples=40, seed=2,
                     min_size=10, device=rt)
    b = oclstat.gsea(expr, profile, sets, metric="pearson", n_resamples=40, seed=2,
                     min_size=10, device=rt)
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.slow
def test_continuous_p_values_calibrated_under_the_null(rt):
    rng = np.random.default_rng(21)
    names = [f"G{i}" for i in range(150)]
    pvals = []
    for rep in range(120):
        x = pd.DataFrame(rng.normal(size=(150, 10)), index=names)
        sets = {"s": list(rng.choice(names, 15, replace=False))}
        res = oclstat.gsea(x, rng.normal(size=10), sets, metric="pearson", n_resamples=200,
                           min_size=5, seed=rep, device=rt)
        pvals.append(res.table["pval"].iloc[0])
    assert stats.kstest(pvals, "uniform").pvalue > 0.01


# ----------------------------------------------------------------------------- CLS files


NUMERIC = "#numeric\n#dose\n0 1 2 3 4 5\n#age\n31.5\t40 22 65 50 38\n"


def test_numeric_cls_profiles_and_selectors(tmp_path):
    path = tmp_path / "p.cls"
    path.write_text(NUMERIC)
    both = read_cls(path)
    assert isinstance(both, ContinuousPhenotype) and both.names == ["dose", "age"]
    with pytest.raises(ValueError, match="2 profiles.*profile="):
        both.profile()
    assert read_cls(f"{path}#age").profile()[1].tolist() == [31.5, 40, 22, 65, 50, 38]
    assert read_cls(path, profile="dose").names == ["dose"]
    with pytest.raises(ValueError, match="'weight' is not one of"):
        read_cls(f"{path}#weight")
    out = io.StringIO()
    write_cls(both, out)
    again = read_cls(io.StringIO(out.getvalue()))
    assert again.profiles == both.profiles


MULTI = "9 3 1\n# ctrl drugA drugB\n0 0 0 1 1 1 2 2 2\n"


def test_multi_class_cls_comparisons(tmp_path):
    path = tmp_path / "m.cls"
    path.write_text(MULTI)
    ph = read_cls(path)
    assert ph.classes == ("ctrl", "drugA", "drugB")
    with pytest.raises(ValueError, match="3 classes"):
        _ = ph.mask
    ab = read_cls(f"{path}#drugB_versus_ctrl")
    assert ab.classes == ("drugB", "ctrl")
    assert ab.labels == ("ctrl",) * 3 + (None,) * 3 + ("drugB",) * 3
    assert ab.mask[ab.kept].tolist() == [False] * 3 + [True] * 3
    rest = read_cls(path, comparison="drugA_versus_REST")
    assert rest.classes == ("drugA", "REST")
    assert rest.labels == ("REST",) * 3 + ("drugA",) * 3 + ("REST",) * 3
    assert "comparison 'drugA' versus every other class" in rest.input.summary()
    with pytest.raises(ValueError, match="drugC_versus_ctrl.*among the classes"):
        read_cls(f"{path}#drugC_versus_ctrl")
    with pytest.raises(ValueError, match="left samples out"):
        write_cls(ab, io.StringIO())
    out = io.StringIO()
    write_cls(ph, out)
    assert read_cls(io.StringIO(out.getvalue())) == ph


def test_class_names_with_versus_in_them():
    ph = Phenotype(("a_versus_b", "c", "a_versus_b"), ("a_versus_b", "c"))
    assert ph.compare("c_versus_a_versus_b").classes == ("c", "a_versus_b")


def test_a_versus_b_equals_the_run_on_those_samples_alone(rt, tmp_path):
    expr, _, sets = toy(7, n=9)
    expr.iloc[:20, 6:] += 2.0                    # up in drugB
    (tmp_path / "m.cls").write_text(MULTI)
    res = oclstat.gsea(expr, f"{tmp_path / 'm.cls'}#drugB_versus_ctrl", sets, n_resamples=60,
                       min_size=10, seed=5, device=rt)
    keep = [0, 1, 2, 6, 7, 8]
    alone = oclstat.gsea(expr.iloc[:, keep], ["ctrl"] * 3 + ["drugB"] * 3, sets,
                         classes=("drugB", "ctrl"), n_resamples=60, min_size=10, seed=5,
                         device=rt)
    pd.testing.assert_frame_equal(res.table, alone.table)
    assert res.classes == ("drugB", "ctrl")
    rest = oclstat.gsea(expr, read_cls(tmp_path / "m.cls"), sets, classes="drugB_versus_REST",
                        n_resamples=60, min_size=10, seed=5, device=rt)
    relabel = oclstat.gsea(expr, ["REST"] * 6 + ["drugB"] * 3, sets,
                           classes=("drugB", "REST"), n_resamples=60, min_size=10, seed=5,
                           device=rt)
    pd.testing.assert_frame_equal(rest.table, relabel.table)


def test_the_command_line_takes_broads_selectors(tmp_path, capsys):
    from oclstat.cli import main

    expr, profile, sets = toy(8, n=9)
    gct = tmp_path / "d.gct"
    oclstat.io.write_gct(expr, gct)
    gmt = tmp_path / "s.gmt"
    oclstat.io.write_gmt(sets, gmt)
    (tmp_path / "m.cls").write_text(MULTI)
    (tmp_path / "p.cls").write_text("#numeric\n#dose\n" + " ".join(map(str, profile)) + "\n")
    out = tmp_path / "t.tsv"
    assert main(["gsea", "--gct", str(gct), "--cls", f"{tmp_path / 'm.cls'}#drugA_versus_REST",
                 "--gmt", str(gmt), "--resamples", "40", "--min-size", "10", "--seed", "1",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "drugA 3 vs REST 6" in err and "phenotype permutations" in err
    assert main(["gsea", "--gct", str(gct), "--cls", str(tmp_path / "m.cls"), "--classes",
                 "drugB_versus_ctrl", "--gmt", str(gmt), "--resamples", "40", "--min-size",
                 "10", "--seed", "1", "--permute", "gene_set", "--metric", "tTest"]) == 0
    err = capsys.readouterr().err
    assert "drugB 3 vs ctrl 3, metric t_test" in err and "gene-set permutations" in err
    assert "FDR < 0.05" in err
    assert main(["gsea", "--gct", str(gct), "--cls", f"{tmp_path / 'p.cls'}#dose", "--gmt",
                 str(gmt), "--resamples", "40", "--min-size", "10", "--metric", "Pearson"]) == 0
    err = capsys.readouterr().err
    assert "profile dose, metric pearson" in err
    assert main(["gsea", "--gct", str(gct), "--cls", str(tmp_path / "m.cls"), "--gmt",
                 str(gmt), "--resamples", "40"]) == 2
    assert "A_versus_B" in capsys.readouterr().err


# ----------------------------------------------------------------------------- gene sets


def test_gene_set_null_equals_host_recomputation(rt):
    expr, _, sets = toy(9)
    sets["same_size_as_up"] = list(expr.index[100:120])
    # 'big' (120 of 240 genes) draws half the strong genes every time: all its null ES can
    # have one sign, and Broad's same-sign mean of the other is then empty (NES 1 here by the
    # package's convention, NaN in the reference)
    del sets["big"]
    labels = ["a"] * 6 + ["b"] * 6
    n_resamples = 41
    res = oclstat.gsea(expr, labels, sets, permutation="gene_set", n_resamples=n_resamples,
                       min_size=10, seed=SEED, return_null=True, device=rt)
    assert res.permutation == "gene_set" and res.fdr_threshold == 0.05
    values = expr.to_numpy()
    m, pos = host_ranking(values, np.array([x == "a" for x in labels]), "signal_to_noise")
    # Broad's law: every set its own random sets; the set in place r of the order by (size,
    # then index) draws permutation i from stream r * n_resamples + i
    names = list(res.es_null.index)
    sizes = np.array([len(res.gene_sets[s]) for s in names])
    assert len(set(sizes)) < len(sizes)          # some sets share a size: own draws still
    order = sorted(range(len(names)), key=lambda i: (sizes[i], i))
    ref = np.empty((len(names), n_resamples))
    for r, i in enumerate(order):
        draws = reference_random_sets(SEED, n_resamples, len(m), sizes[i],
                                      first=r * n_resamples)
        ref[i] = [enrichment_score(m, np.sort(d))[0] for d in draws]
    np.testing.assert_array_equal(res.es_null.to_numpy(), ref)
    # Broad's statistics from that table
    nes, pval, fdr, fwer = broad_statistics(res.table.loc[res.es_null.index, "es"].to_numpy(),
                                            ref)
    t = res.table.loc[res.es_null.index]
    for column, value in (("nes", nes), ("pval", pval), ("fdr", fdr), ("fwer", fwer)):
        np.testing.assert_allclose(t[column], value, rtol=1e-12)


def test_gene_set_statistics_do_not_depend_on_keeping_the_table(rt, monkeypatch):
    from oclstat._gsea import gene_set_null

    expr, _, sets = toy(10)
    labels = ["a"] * 6 + ["b"] * 6
    a = oclstat.gsea(expr, labels, sets, permutation="gene_set", n_resamples=70, min_size=10,
                     seed=3, device=rt)
    monkeypatch.setattr(gene_set_null, "KEEP_BYTES", 0)
    b = oclstat.gsea(expr, labels, sets, permutation="gene_set", n_resamples=70, min_size=10,
                     seed=3, device=rt)
    pd.testing.assert_frame_equal(a.table, b.table)


@pytest.mark.slow
def test_gene_set_p_values_calibrated_for_random_sets(rt):
    rng = np.random.default_rng(31)
    names = [f"G{i}" for i in range(300)]
    x = pd.DataFrame(rng.normal(size=(300, 8)), index=names)
    pvals = []
    for rep in range(150):
        sets = {"s": list(rng.choice(names, 20, replace=False))}
        res = oclstat.gsea(x, ["a"] * 4 + ["b"] * 4, sets, permutation="gene_set",
                           n_resamples=200, min_size=5, seed=rep, device=rt)
        pvals.append(res.table["pval"].iloc[0])
    assert stats.kstest(pvals, "uniform").pvalue > 0.01


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("pheno,kwargs,match", [
    ("profile", {"metric": "signal_to_noise"}, "two classes need one of|compares two classes"),
    ("labels", {"metric": "pearson"}, "needs one number per sample"),
    ("three", {}, "exactly 2 values.*A_versus_B"),
    ("three", {"classes": ("a", "b")}, "classes='a_versus_b' leaves"),
    ("three", {"classes": "a_versus_d"}, "A_versus_B"),
    ("labels", {"metric": "kolmogorov"}, "metric must be one of"),
    ("labels", {"permutation": "genes"}, "permutation must be"),
    ("constant", {"metric": "pearson"}, "constant"),
    ("labels", {"profile": "dose"}, "profile= is for continuous"),
])
def test_bad_phenotypes_are_clear_errors(rt, pheno, kwargs, match):
    expr, profile, sets = toy(11)
    value = {"profile": ContinuousPhenotype({"p": tuple(profile)}),
             "labels": ["a"] * 6 + ["b"] * 6,
             "three": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
             "constant": np.ones(12)}[pheno]
    with pytest.raises(ValueError, match=match):
        oclstat.gsea(expr, value, sets, n_resamples=10, min_size=10, device=rt, **kwargs)
