"""Over-representation (oclstat.ora) against exact enumeration of the hypergeometric law,
R's phyper and p.adjust, fgsea's own fora tests, and its refusals of bad input."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import oclstat
from oclstat._ora import opencl as ora_device


def exact_upper_tail(q: int, n: int, size: int, k: int) -> float:
    """P(X >= q), X the overlap of a random k-subset of n with a fixed size-subset, summed in
    exact rationals."""
    total = math.comb(n, k)
    top = min(size, k)
    return float(sum(Fraction(math.comb(size, x) * math.comb(n - size, k - x), total)
                     for x in range(max(q, 0), top + 1)))


def random_case(seed, n=300, n_sets=25, n_lists=4):
    rng = np.random.default_rng(seed)
    universe = [f"G{i}" for i in range(n)]
    sets = {f"S{j}": list(rng.choice(universe, int(rng.integers(1, 120)), replace=False))
            for j in range(n_sets)}
    lists = {f"L{i}": list(rng.choice(universe, int(rng.integers(1, 80)), replace=False))
             for i in range(n_lists)}
    # a planted list: most of S0 and little else
    lists["planted"] = sets["S0"][: max(1, len(sets["S0"]) * 3 // 4)] + universe[:3]
    return universe, sets, lists


def test_equals_exact_enumeration_and_brute_force_overlaps(rt):
    universe, sets, lists = random_case(1)
    res = oclstat.ora(lists, sets, universe, device=rt)
    n = len(universe)
    for (name, pathway), row in res.table.iterrows():
        members, chosen = set(sets[pathway]), set(lists[name])
        q = len(members & chosen)
        assert row["overlap"] == q
        assert row["size"] == len(members)
        assert row["overlapGenes"] == [g for g in universe if g in members and g in chosen]
        want = exact_upper_tail(q, n, len(members), len(chosen))
        assert row["pval"] == pytest.approx(want, rel=1e-11, abs=1e-300)
        assert row["foldEnrichment"] == pytest.approx((q / len(chosen)) / (len(members) / n))
    planted = res.table.loc["planted"]
    assert planted.index[0] == "S0" and planted["padj"].iloc[0] < 1e-10


def test_hypergeometric_tails_to_machine_precision():
    """The vectorised tails (Loader's probabilities, the short side summed) against exact
    rational sums, at a universe of 20,000: tails on either side of the mean, the extremes
    (q = min(K, k): probabilities near 1e-280), q = 0 and impossible overlaps. The relative
    error stays below about eps x |log p| (an exponent that large carries that much)."""
    from oclstat._ora.stats import upper_tail

    n = 20_000
    rng = np.random.default_rng(12)
    size = rng.integers(1, 500, 60)
    k = rng.integers(1, 1000, 60)
    mean = size * k / n
    q = np.maximum(0, np.round(mean + rng.normal(0, 3, 60) * np.sqrt(mean + 1))).astype(int)
    q[:6] = np.minimum(size, k)[:6]
    q[6:9] = 0
    q[9] = min(size[9], k[9]) + 1
    got = upper_tail(q, n, size, k)
    for i in range(60):
        want = exact_upper_tail(int(q[i]), n, int(size[i]), int(k[i]))
        if want == 0:
            assert got[i] == 0
            continue
        bound = 4e-16 * max(1.0, -math.log(want)) + 4e-15
        assert abs(got[i] - want) <= bound * want, (q[i], size[i], k[i], got[i], want)


def test_many_lists_equal_one_list_at_a_time(rt):
    universe, sets, lists = random_case(2)
    together = oclstat.ora(lists, sets, universe, device=rt)
    assert together.several and list(together.list_sizes.index) == list(lists)
    for name, genes in lists.items():
        alone = oclstat.ora(genes, sets, universe, device=rt)
        assert not alone.several
        part = together.table.loc[name]
        assert list(part.index) == list(alone.table.index)
        for col in ("pval", "padj", "overlap", "size", "foldEnrichment"):
            np.testing.assert_array_equal(part[col].to_numpy(), alone.table[col].to_numpy())
    wide = together.pvalues()
    assert wide.shape == (len(sets), len(lists))
    assert wide.loc["S0", "planted"] == together.table.loc[("planted", "S0"), "pval"]


def test_overlaps_do_not_depend_on_chunks_or_devices(rt, monkeypatch):
    universe, sets, lists = random_case(3, n=1000, n_sets=40, n_lists=9)
    want = oclstat.ora(lists, sets, universe, device=rt).table
    monkeypatch.setattr(ora_device, "CHUNK_BYTES", 4 * 40 * 2)          # two lists a launch
    got = oclstat.ora(lists, sets, universe, device=rt).table
    np.testing.assert_array_equal(got["overlap"].to_numpy(), want["overlap"].to_numpy())
    for other in ("pocl", "intel"):
        try:
            dev = oclstat.get_runtime(other)
        except Exception:  # noqa: BLE001 - an implementation this machine lacks
            continue
        again = oclstat.ora(lists, sets, universe, device=dev).table
        np.testing.assert_array_equal(again["overlap"].to_numpy(), want["overlap"].to_numpy())
        np.testing.assert_array_equal(again["pval"].to_numpy(), want["pval"].to_numpy())


def test_fgsea_fora_tests(rt):
    """fgsea's tests/testthat/test_fora.R, with R's phyper values computed exactly."""
    universe = [str(i) for i in range(1, 11)]
    genes = [str(i) for i in range(1, 6)]
    res = oclstat.ora(genes, {"test_pathway": ["1", "2", "10"]}, universe, device=rt)
    assert len(res.table) == 1
    # phyper(1, 3, 7, 5, lower.tail = FALSE) = P(X >= 2)
    assert res.table["pval"].iloc[0] == pytest.approx(exact_upper_tail(2, 10, 3, 5), rel=1e-14)
    sets = {"test_pathway_1": ["1", "2", "10"], "test_pathway_2": [str(i) for i in range(1, 5)],
            "test_pathway_3": ["6", "7", "8"]}
    res = oclstat.ora(genes, sets, universe, device=rt)
    want = sorted([exact_upper_tail(2, 10, 3, 5), exact_upper_tail(4, 10, 4, 5),
                   exact_upper_tail(0, 10, 3, 5)])
    np.testing.assert_allclose(res.table["pval"].to_numpy(), want, rtol=1e-14)
    # pathways outside the universe are left out; none left is a clear error here
    res2 = oclstat.ora(genes, {"p1": ["11", "12", "13"], **sets}, universe, device=rt)
    assert len(res2.table) == 3 and res2.n_filtered == 1
    with pytest.raises(ValueError, match="no gene set"):
        oclstat.ora(genes, {"p1": ["11", "12", "13"]}, universe, device=rt)


@pytest.mark.r
def test_agrees_with_r_phyper_and_p_adjust(R, rt):
    universe, sets, lists = random_case(4, n=2000, n_sets=60, n_lists=1)
    genes = lists["L0"] + lists["planted"]
    res = oclstat.ora(genes, sets, universe, device=rt).to_frame()
    n = len(universe)
    k = len(set(genes))
    q = R.IntVector(res["overlap"].tolist())
    size = R.IntVector(res["size"].tolist())
    pval = np.array(R.r["phyper"](R.r["-"](q, 1), size, R.r["-"](n, size), k,
                                  **{"lower.tail": False}))
    np.testing.assert_allclose(res["pval"].to_numpy(), pval, rtol=1e-12, atol=1e-300)
    padj = np.array(R.r["p.adjust"](R.FloatVector(pval), "BH"))
    np.testing.assert_allclose(res["padj"].to_numpy(), padj, rtol=1e-12, atol=1e-300)


def test_calibration_under_the_null(rt):
    """Random lists: P(p <= alpha) is the test's exact size at alpha (the largest upper tail
    of the hypergeometric law at most alpha: the discrete test is conservative), within
    binomial error over 5,000 list x set pairs."""
    from scipy import stats

    rng = np.random.default_rng(11)
    universe = [f"G{i}" for i in range(2000)]
    sets = {f"S{j}": list(rng.choice(universe, 200, replace=False)) for j in range(20)}
    lists = {f"L{i}": list(rng.choice(universe, 150, replace=False)) for i in range(250)}
    p = oclstat.ora(lists, sets, universe, device=rt).table["pval"].to_numpy()
    tails = stats.hypergeom.sf(np.arange(-1, 151), 2000, 200, 150)   # P(X >= q), q = 0..151
    for alpha in (0.01, 0.05, 0.2, 0.5):
        size = tails[tails <= alpha].max()
        rate = (p <= alpha).mean()
        assert abs(rate - size) <= 4 * math.sqrt(size * (1 - size) / p.size), \
            (alpha, rate, size)
        assert size <= alpha


def test_genes_outside_the_universe_warn_as_fgsea_and_are_dropped(rt):
    universe = [f"G{i}" for i in range(50)]
    sets = {"a": universe[:10]}
    with pytest.warns(UserWarning, match="Not all of the input genes belong to the universe"):
        res = oclstat.ora(universe[:5] + ["X1", "X2"], sets, universe, device=rt)
    assert res.list_sizes.iloc[0] == 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        oclstat.ora(universe[:5] + universe[:5], sets, universe, device=rt)   # repeats count once


def test_gmt_path_and_size_limits(rt, tmp_path):
    universe = [f"G{i}" for i in range(60)]
    gmt = tmp_path / "sets.gmt"
    gmt.write_text("small\tdesc\tG1\tG2\nmid\tdesc\t" + "\t".join(universe[:20]) + "\n"
                   "all\tdesc\t" + "\t".join(universe) + "\n")
    res = oclstat.ora(universe[:8], gmt, universe, device=rt)
    assert set(res.table.index) == {"small", "mid"}        # the whole universe: maxSize N - 1
    res = oclstat.ora(universe[:8], gmt, universe, min_size=3, max_size=float("inf"),
                      device=rt)
    assert set(res.table.index) == {"mid"}


@pytest.mark.parametrize(("kwargs", "kind", "message"), [
    ({"universe": None}, TypeError, "universe is required"),
    ({"universe": ["a", "b", "a"]}, ValueError, "duplicate gene 'a'"),
    ({"universe": ["a", None, "b"]}, ValueError, "universe has a missing gene"),
    ({"universe": ["a", "", "b"]}, ValueError, "universe has an empty gene"),
    ({"universe": "abc"}, TypeError, "universe must be a list"),
    ({"genes": "a"}, TypeError, "genes must be a list"),
    ({"genes": {}}, ValueError, "genes is empty"),
    ({"genes": {"x": ["a", float("nan")]}}, ValueError, r"genes\['x'\] has a missing"),
    ({"min_size": 0}, ValueError, "min_size"),
    ({"min_size": 3, "max_size": 2}, ValueError, r"max_size \(2\) must be >= min_size"),
    ({"gene_sets": ["a", "b"]}, TypeError, "gene_sets must be a dict"),
    ({"gene_sets": {"s": "ab"}}, TypeError, "gene set 's' must be a list"),
])
def test_bad_input_raises_clear_errors(rt, kwargs, kind, message):
    args = {"genes": ["a", "b"], "gene_sets": {"s": ["a", "c"]},
            "universe": ["a", "b", "c", "d"], **kwargs}
    with pytest.raises(kind, match=message):
        oclstat.ora(args.pop("genes"), args.pop("gene_sets"), args.pop("universe"),
                    device=rt, **args)


def test_command_line_writes_the_functions_table(tmp_path, rt, capsys):
    from oclstat.cli import main

    universe, sets, lists = random_case(5)
    (tmp_path / "universe.txt").write_text("# every gene\ngene_symbol\n" + "\n".join(universe)
                                           + "\n")
    for name in ("L0", "planted"):
        (tmp_path / f"{name}.txt").write_text("\n".join(f"{g}\tx" for g in lists[name]))
    gmt = tmp_path / "sets.gmt"
    gmt.write_text("".join(f"{k}\tna\t" + "\t".join(v) + "\n" for k, v in sets.items()))
    out = tmp_path / "ora.tsv"
    args = ["ora", "--genes", str(tmp_path / "L0.txt"), "--genes",
            str(tmp_path / "planted.txt"), "--gmt", str(gmt), "--universe",
            str(tmp_path / "universe.txt"), "--out", str(out)]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "with padj < 0.05" in err
    assert "first line 'gene_symbol' read as a header" in err        # not a gene: N unchanged
    assert f"{len(universe):,} genes in the universe" in err
    got = pd.read_csv(out, sep="\t", keep_default_na=False)
    want = oclstat.ora({"L0": lists["L0"], "planted": lists["planted"]}, sets, universe,
                       device=rt).to_frame()
    assert list(got.columns) == ["list", *want.columns[1:]]
    assert list(got["list"]) == list(want["list"]) and list(got["pathway"]) == \
        list(want["pathway"])
    np.testing.assert_allclose(got["pval"], want["pval"], rtol=1e-5)
    np.testing.assert_array_equal(got["overlap"], want["overlap"])
    assert got["overlapGenes"].iloc[0] == ";".join(want["overlapGenes"].iloc[0])
    (tmp_path / "empty.txt").write_text("# nothing\n")
    assert main(["ora", "--genes", str(tmp_path / "empty.txt"), "--gmt", str(gmt),
                 "--universe", str(tmp_path / "universe.txt")]) == 2
    assert "--genes" in capsys.readouterr().err


def test_decoupler_nets_are_gene_sets_everywhere(rt):
    """A decoupler net (source, target, weight) gives the same answers as the dict it holds,
    in ORA, preranked GSEA and the single-sample scores (the weights are not used)."""
    import pandas as pd

    universe, sets, lists = random_case(6, n=400, n_sets=12)
    net = pd.DataFrame([(s, g, (-1.0) ** i) for s, members in sets.items()
                        for i, g in enumerate(members)], columns=["source", "target", "weight"])
    a = oclstat.ora(lists["planted"], net, universe, device=rt).table
    b = oclstat.ora(lists["planted"], sets, universe, device=rt).table
    pd.testing.assert_frame_equal(a, b)
    ranking = pd.Series(np.random.default_rng(6).normal(size=len(universe)), index=universe)
    big = {k: v for k, v in sets.items() if len(v) >= 15}
    big_net = net[net["source"].isin(list(big))]
    p1 = oclstat.gsea_prerank(ranking, big_net, n_resamples=200, seed=1, device=rt).table
    p2 = oclstat.gsea_prerank(ranking, big, n_resamples=200, seed=1, device=rt).table
    pd.testing.assert_frame_equal(p1, p2)
    expr = pd.DataFrame(np.random.default_rng(7).normal(size=(len(universe), 6)),
                        index=universe)
    pd.testing.assert_frame_equal(oclstat.aucell(expr, net), oclstat.aucell(expr, sets))
    with pytest.raises(ValueError, match="'source' column"):
        oclstat.ora(lists["L0"], net.rename(columns={"source": "set"}), universe, device=rt)
    with pytest.raises(ValueError, match="missing source or target"):
        oclstat.ora(lists["L0"], pd.concat([net, pd.DataFrame({"source": ["S1"],
                                                               "target": [None]})]),
                    universe, device=rt)
