"""oclstat.gsea_prerank against independent references: a textbook running-sum walk, GSEApy's
prerank on a ranking built from the P53 data (signal-to-noise, upper-case gene names) with
Hallmark and C2, a long simple run for the multilevel p-values, fgsea where R has it; its
calibration under a random ranking; the same answer for any split of the work; clear errors."""

from __future__ import annotations

import bisect
import io
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import oclstat
from oclstat._prerank.multilevel import Ruler, multilevel_error, simple_error
from oclstat._prerank.result import FGSEA_COLUMNS

sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))


def textbook_es(stats: pd.Series, genes, p: float) -> float:
    """Subramanian et al.'s running sum in floating point, written from the paper."""
    ranked = stats.sort_values(ascending=False, kind="stable")
    hit = ranked.index.isin(list(genes))
    w = np.abs(ranked.to_numpy()) ** p
    nr = w[hit].sum()
    step = np.where(hit, w / nr, -1.0 / (len(ranked) - hit.sum()))
    walk = np.cumsum(step)
    return walk.max() if walk.max() > -walk.min() else walk.min()


def random_ranking(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.Series(rng.normal(size=n), index=[f"G{i}" for i in range(n)])


# ------------------------------------------------------------------ enrichment scores

@pytest.mark.parametrize("weight", [0.0, 1.0, 1.5, 2.0])
def test_es_equal_a_textbook_running_sum(rt, weight):
    stat = random_ranking(500, seed=1)
    rng = np.random.default_rng(2)
    sets = {f"s{i}": list(rng.choice(stat.index, size=int(rng.integers(5, 60)), replace=False))
            for i in range(30)}
    sets["top"] = list(stat.sort_values().index[-20:])
    res = oclstat.gsea_prerank(stat, sets, n_resamples=20, method="simple", weight=weight,
                               min_size=5, seed=1, device=rt)
    for name, genes in sets.items():
        assert res.table.loc[name, "ES"] == pytest.approx(textbook_es(stat, genes, weight),
                                                          abs=1e-12), name


def test_device_es_equal_the_host_rule_bit_for_bit(rt):
    from oclstat._prerank.core import Ranking
    from oclstat._prerank.opencl import Plan, observed_es

    stat = random_ranking(800, seed=3)
    r = Ranking.from_stats(stat.to_numpy(), list(stat.index), weight=1.0)
    rng = np.random.default_rng(4)
    pos = [np.sort(rng.choice(800, size=k, replace=False)) for k in (5, 17, 40, 200)]
    dev = observed_es(Plan(rt, r.weights, [p.size for p in pos], np.float64), pos)
    host = [r.enrichment(p)[0] for p in pos]
    assert dev.tolist() == host


class _DirectChain:
    """fgsea's Metropolis chain written directly (tests/mrg_reference.py draws the numbers):
    a uniform start of k distinct positions; per try, a random member replaced by a random
    gene when the new set's running sum, walked point by point, rises above the bound."""

    def __init__(self, w, k, direction, state):
        self.weight, self.n, self.k, self.state = (w[::-1] if direction else w), w.size, k, state
        self.pos = []
        while len(self.pos) < k:
            r = self.below(self.n)
            if r not in self.pos:
                bisect.insort(self.pos, r)

    def below(self, m):
        from mrg_reference import M1, step

        while True:
            self.state, z = step(self.state)
            if z - 1 < M1 - M1 % m:
                return (z - 1) % m

    def above(self, members, bound):
        nr = int(self.weight[members].sum())
        hit, miss = 1.0 / float(nr if nr > 0 else self.k), 1.0 / float(self.n - self.k)
        c = 0
        for h, r in enumerate(members):
            c += int(self.weight[r]) if nr > 0 else 1
            if float(c) * hit - float(r - h) * miss > bound:
                return True
        return False

    def perturb(self, bound, tries):
        """The accepted moves of ``tries`` tries."""
        pos, moves = self.pos, 0
        for _ in range(tries):
            u, v = self.below(self.k), self.below(self.n)
            j = bisect.bisect_left(pos, v)
            if j < self.k and pos[j] == v:
                moves += j == u
                continue
            new = sorted(pos[:u] + pos[u + 1:] + [v])
            if self.above(new, bound):
                pos, moves = new, moves + 1
        self.pos = pos
        return moves


@pytest.mark.filterwarnings("ignore:ranking.*tie")
@pytest.mark.parametrize("zeros", [False, True])
def test_chain_moves_equal_direct_metropolis_moves(rt, zeros):
    """The device judges a move on the chain's chunks before changing the set, skipping the
    chunks whose bound stays below the level (cl_kernels/prerank.cl, prerank_ml_perturb): every
    set and count of accepted moves must be those of moves made directly (the new set formed,
    every point walked), over two levels (the second bound the first level's upper quartile,
    so that most tries fall near it), on set sizes from 1 to n - 1, both directions, ties and,
    with ``zeros``, sets of zero total weight (every member then counts 1/k)."""
    from oclstat._prerank.core import Ranking
    from oclstat._prerank.opencl import Chains, Plan
    from oclstat._random.mrg31k3p import create_stream_states

    n, s = 300, 5
    rng = np.random.default_rng(7)
    stat = np.round(rng.normal(size=n), 1)
    if zeros:
        stat[rng.choice(n, size=n - 30, replace=False)] = 0.0
    r = Ranking.from_stats(stat, [f"G{i}" for i in range(n)], weight=1.0)
    groups = [(1, 0), (2, 1), (3, 0), (9, 1), (40, 0), (150, 1), (n - 1, 0)]
    k = np.array([g[0] for g in groups])
    plan = Plan(rt, r.weights, k, np.float64)
    words = (11, 12, 13, 14, 15, 16)
    chains = Chains(plan, k, [g[1] for g in groups], s, words=words, first=5)
    states = create_stream_states(words, len(groups) * s, first=5)
    direct = [_DirectChain(r.weights, size, direction, tuple(int(x) for x in states[g * s + i]))
              for g, (size, direction) in enumerate(groups) for i in range(s)]
    es, _ = chains.start()
    tries = 3 * k + 3
    for level in range(2):
        bound = np.quantile(es, 0.5 if level == 0 else 0.75, axis=1)
        es, _, accepted = chains.perturb(bound, tries)
        sets = np.empty(int(k.sum()) * s, dtype=np.uint32)
        rt.read(chains.chains[0], sets)
        at = 0
        for g, size in enumerate(k):
            for i in range(s):
                chain = direct[g * s + i]
                moves = chain.perturb(bound[g], int(tries[g]))
                assert sets[at:at + size].tolist() == chain.pos, (level, groups[g], i)
                assert accepted[g, i] == moves, (level, groups[g], i)
                at += size
        assert 0 < accepted.sum() < tries.sum() * s   # moves were both taken and refused


def test_walks_without_division_find_the_divided_extremes(rt):
    """The device finds the running sum's extremes with products and divides only near the
    extreme so far (cl_kernels/prerank.cl, prerank_extremes_at): its maxima, minima and where
    they are must be the divided walk's (the host rule) bit for bit, on rankings with many
    equal statistics (exactly equal points) and on several rankings at once."""
    from oclstat._enrichment.walks import fixed_weights, gene_weights, weight_bits
    from oclstat._prerank.core import Ranking
    from oclstat._prerank.opencl import Plan, observed_walks

    rng = np.random.default_rng(7)
    n = 600
    stats = [rng.normal(size=n), np.round(rng.normal(size=n), 1), np.ones(n),
             np.repeat([2.0, -1.0, 0.5], n // 3)]
    ranks = [Ranking.from_stats(s, [f"g{i}" for i in range(n)], weight=1.0) for s in stats]
    sizes = (1, 2, 3, 15, 16, 100, 299, n - 1)
    pos = [np.sort(rng.choice(n, size=k, replace=False)) for k in sizes]
    pos.append(np.arange(5, 5 + 40))                  # a block: long runs of equal steps
    real = np.dtype(rt.default_real()).type     # float32 where the device has no fp64
    walks = observed_walks(Plan(rt, np.vstack([r.weights for r in ranks]),
                                [p.size for p in pos], real), [pos] * len(ranks))
    for q, r in enumerate(ranks):
        w_all = gene_weights(r.stats, 1.0)
        for i, p in enumerate(pos):
            w = fixed_weights(w_all[p], float(w_all.max()), weight_bits(n))
            nr, k = int(w.sum()), p.size
            c = np.cumsum(w)
            hit = (c.astype(real) / real(nr) if nr else
                   np.arange(1, k + 1).astype(real) / real(k))
            before = ((c - w).astype(real) / real(nr) if nr else
                      np.arange(k).astype(real) / real(k))
            miss = (p - np.arange(k)).astype(real) / real(n - k)
            tops, bottoms = hit - miss, before - miss
            assert walks.mx[q, i] == tops.max() and walks.at_mx[q, i] == np.argmax(tops)
            assert walks.mn[q, i] == bottoms.min() and walks.at_mn[q, i] == np.argmin(bottoms)


@pytest.fixture(scope="module")
def p53_ranking(shared_data):
    """Signal-to-noise of P53 (MUT vs WT), genes with upper-case names only (GSEApy would
    upper-case the rest and merge names, see test_gsea_gseapy.py)."""
    from oclstat._gsea.core import ranking_metric

    d = shared_data / "gsea"
    expr = oclstat.io.read_expression(d / "P53.txt")
    pheno = oclstat.io.read_cls(d / "P53.cls")
    mask = np.array([lab == pheno.classes[0] for lab in pheno.labels])
    snr, _ = ranking_metric(expr.to_numpy(), mask, "signal_to_noise")
    stat = pd.Series(snr, index=expr.index)
    return stat[[g == g.upper() for g in stat.index]]


@pytest.fixture(scope="module")
def gmts(shared_data):
    d = shared_data / "gsea"
    return {"hallmark": oclstat.io.read_gmt(d / "h.all.v7.0.symbols.gmt"),
            "c2": oclstat.io.read_gmt(d / "c2.all.v5.0.symbols.gmt")}


def _gseapy_prerank(stat, sets, n_resamples, seed=3):
    gseapy = pytest.importorskip("gseapy")
    res = gseapy.prerank(rnk=stat, gene_sets=sets, permutation_num=n_resamples, threads=2,
                         seed=seed, outdir=None, no_plot=True, min_size=15, max_size=500,
                         verbose=False)
    table = res.res2d.set_index("Term")
    for col in ("ES", "NES", "NOM p-val"):
        table[col] = table[col].astype(float)
    return table


@pytest.mark.parametrize("collection", ["hallmark", "c2"])
def test_p53_es_equal_gseapy_prerank(rt, p53_ranking, gmts, collection, tmp_path):
    rnk = tmp_path / "p53.rnk"
    oclstat.io.write_rnk(p53_ranking, rnk)
    gp = _gseapy_prerank(p53_ranking, gmts[collection], n_resamples=2)
    ours = oclstat.gsea_prerank(rnk, gmts[collection], n_resamples=2, method="simple", seed=1,
                                device=rt)
    common = gp.index.intersection(ours.table.index)
    assert len(common) == len(gp) == len(ours.table)
    np.testing.assert_allclose(ours.table.loc[common, "ES"], gp.loc[common, "ES"], rtol=0,
                               atol=1e-10)


def test_p53_simple_pvalues_within_monte_carlo_error_of_gseapy(rt, p53_ranking, gmts):
    n = 2000
    gp = _gseapy_prerank(p53_ranking, gmts["hallmark"], n_resamples=n)
    ours = oclstat.gsea_prerank(p53_ranking, gmts["hallmark"], n_resamples=n, method="simple",
                                seed=5, device=rt).table.loc[gp.index]
    p_gp, p_us = gp["NOM p-val"].to_numpy(), ours["pval"].to_numpy()
    sd = np.sqrt(2 * np.maximum(p_gp, 1 / n) * (1 - p_gp) / n)
    assert np.all(np.abs(p_us - p_gp) < 5 * sd + 2.0 / n)
    np.testing.assert_allclose(ours["NES"], gp["NES"], rtol=0.05)


# ------------------------------------------------------------------ p-values

def _planted(shift, n=3000, size=30, seed=7):
    stat = random_ranking(n, seed=seed)
    genes = list(stat.index[:size])
    stat.iloc[:size] += shift
    return stat, genes


def test_multilevel_pvalues_agree_with_a_long_simple_run(rt):
    stat, up = _planted(1.0)
    down = list(stat.index[1000:1040])
    stat.loc[down] -= 0.75
    sets = {"up": up, "down": down}
    long = oclstat.gsea_prerank(stat, sets, n_resamples=200_000, method="simple", seed=2,
                                device=rt).table
    ml = oclstat.gsea_prerank(stat, sets, n_resamples=1000, seed=3, device=rt)
    assert ml.n_multilevel == 2
    for name in sets:
        p_long, p_ml = long.loc[name, "pval"], ml.table.loc[name, "pval"]
        assert 1e-5 < p_long < 1e-2, (name, p_long)    # resolved by 200,000 resamples
        err = math.hypot(ml.table.loc[name, "log2err"], long.loc[name, "log2err"])
        assert abs(math.log2(p_ml) - math.log2(p_long)) < 3 * err + 0.3, (name, p_ml, p_long)


def test_multilevel_reaches_tiny_pvalues_and_floors_them_at_eps(rt):
    stat, up = _planted(3.0)
    res = oclstat.gsea_prerank(stat, {"up": up}, n_resamples=1000, seed=4, device=rt).table
    p = res.loc["up", "pval"]
    assert 1e-50 < p < 1e-12
    assert 0 < res.loc["up", "log2err"] < 2
    floored = oclstat.gsea_prerank(stat, {"up": up}, n_resamples=1000, eps=1e-6, seed=4,
                                   device=rt).table
    assert floored.loc["up", "pval"] == 1e-6 and np.isnan(floored.loc["up", "log2err"])


@pytest.mark.parametrize("score_type", ["std", "pos", "neg"])
def test_simple_pvalues_are_calibrated_under_a_random_ranking(rt, score_type):
    stat = random_ranking(3000, seed=11)
    rng = np.random.default_rng(12)
    sets = {f"s{i}": list(rng.choice(stat.index, size=int(rng.integers(15, 80)), replace=False))
            for i in range(300)}
    res = oclstat.gsea_prerank(stat, sets, n_resamples=2000, method="simple", seed=13,
                               score_type=score_type, device=rt).table
    p = res["pval"].to_numpy()
    assert sps.kstest(p, "uniform").pvalue > 0.01
    assert 0.02 < np.mean(p < 0.05) < 0.09


def test_multilevel_ruler_against_a_known_tail():
    """Chains whose ES are uniform draws conditioned to climb: each level halves the tail, so
    after L full levels the p-value of the last threshold is about 2^-L."""
    rng = np.random.default_rng(0)
    r = Ruler(101)
    bound = 0.0
    for _ in range(10):
        es = bound + (1 - bound) * rng.random(101)
        r.record(es, np.ones(101, bool))
        bound = r.scores[-1]
    p, ok = r.pvalue(bound)
    assert ok and 2**-12 < p < 2**-8
    assert r.pvalue(0.0)[0] == pytest.approx(1.0, abs=0.02)


def test_error_estimates_follow_fgseas_formulas():
    """fgsea's multilevelError(1e-10, 101) and the simple error of p = 1/1001, with trigamma
    values from mpmath (psi(1, 51), psi(1, 102), psi(1, 1001); psi(1, 1) = pi^2 / 6)."""
    assert multilevel_error(1e-10, 101) == pytest.approx(
        math.sqrt(34 * (0.0198013332266971 - 0.00985213705839288)) / math.log(2), rel=1e-12)
    assert simple_error(0, 1000) == pytest.approx(
        math.sqrt(math.pi**2 / 6 - 0.000999500166666633) / math.log(2), rel=1e-12)


def _one_gene_pvalue(n: int, i: int) -> float:
    """The exact multilevel target of a one-gene set at ranking position i (0-based) of n,
    by enumerating every one-gene random set: P(ES >= ES_i | ES >= 0) with fgsea's ES of one
    gene (top 1 - j / (n - 1), bottom -j / (n - 1), 0 when equal)."""
    j = np.arange(n)
    top, bottom = 1.0 - j / (n - 1), -j / (n - 1)
    es = np.where(top > -bottom, top, np.where(top < -bottom, bottom, 0.0))
    return float(np.sum((es >= es[i]) & (es >= 0)) / np.sum(es >= 0))


def test_multilevel_moves_sets_of_one_gene_past_their_ties(rt):
    """Sets of one gene have few distinct ES, so with 5 chains a level's median can stay put
    when the chains barely move; the level is then moved again (more moves) before the group
    stops. The p-values must reach the exact ones (brute-force enumeration) with a finite
    log2err, where stopping at the first stalled level gave p 100x too large and NaN."""
    stat = random_ranking(3000, seed=21).sort_values(ascending=False)
    for i in (1, 4, 29):
        exact = _one_gene_pvalue(3000, i)
        for seed in (1, 2, 3):
            row = oclstat.gsea_prerank(stat, {"one": [stat.index[i]]}, min_size=1, eps=0,
                                       sample_size=5, seed=seed, device=rt).table.loc["one"]
            assert np.isfinite(row["log2err"]), (i, seed)
            assert abs(math.log2(row["pval"] / exact)) <= 3 * row["log2err"] + 1, \
                (i, seed, row["pval"], exact)


# ------------------------------------------------------------------ one answer

def test_same_seed_same_table_for_any_split(rt):
    stat, up = _planted(1.2, n=1500)
    sets = {"up": up, "other": list(stat.index[500:540]), "low": list(stat.index[900:920])}
    one = oclstat.gsea_prerank(stat, sets, n_resamples=3000, seed=9, device=rt).table
    two = oclstat.gsea_prerank(stat, sets, n_resamples=3000, seed=9, device=[rt, rt]).table
    pd.testing.assert_frame_equal(one, two)
    other = oclstat.gsea_prerank(stat, sets, n_resamples=3000, seed=10, device=rt).table
    assert not one["pval"].equals(other["pval"])


# ------------------------------------------------------------------ shape

def test_result_reads_like_fgsea(rt):
    stat, up = _planted(1.0, n=1000)
    sets = {"up": up, "down": list(stat.index[-40:]), **{f"r{i}": list(stat.index[i::50])
                                                        for i in range(12)}}
    res = oclstat.gsea_prerank(stat, sets, n_resamples=500, seed=1, device=rt)
    frame = res.to_frame()
    assert tuple(frame.columns[:8]) == FGSEA_COLUMNS
    assert frame["pathway"].iloc[0] == "up"
    assert list(res.table["pval"]) == sorted(res.table["pval"])
    assert res.table.loc["up", "leadingEdge"][0] == up[0] or \
        res.table.loc["up", "leadingEdge"][0] in up
    assert len(repr(res)) < 300 and "PrerankResult" in repr(res)
    text = str(res)
    assert "ES > 0" in text and "ES <= 0" in text and "more" in text
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        res.method = "simple"


# ------------------------------------------------------------------ inputs

def test_read_rnk_reads_what_people_write(tmp_path):
    import gzip

    text = "# from DESeq2\ngene\tstat\nTP53\t2.5\nMDM2\t-1\nCDKN1A 0.5\n"
    path = tmp_path / "x.rnk.gz"
    path.write_bytes(gzip.compress(("\ufeff" + text).encode()))
    got = oclstat.io.read_rnk(path)
    assert got.to_dict() == {"TP53": 2.5, "MDM2": -1.0, "CDKN1A": 0.5}
    out = io.StringIO()
    oclstat.io.write_rnk(got, out)
    assert oclstat.io.read_rnk(io.StringIO(out.getvalue())).equals(got)


@pytest.mark.parametrize("text, message", [
    ("A\t1\nB\tx\n", "line 2: statistic 'x' of gene 'B'"),
    ("A\t1\nA\t2\n", "gene 'A' is also on line 1"),
    ("A\t1\nB\tnan\n", "line 2: statistic of gene 'B' is missing"),
    ("A\t1\nB\tinf\n", "statistic of gene 'B' is inf"),
    ("A\n", "needs a gene and a statistic"),
    ("TP53\tNA\nMDM2\t1\n", "line 1: statistic of gene 'TP53' is missing"),
])
def test_bad_rnk_files_name_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        oclstat.io.read_rnk(io.StringIO(text))


def test_bad_input_raises_clear_errors(rt):
    stat = random_ranking(200)
    sets = {"s": list(stat.index[:20])}
    dup = pd.concat([stat, stat.iloc[:1]])
    nan = stat.copy()
    nan.iloc[3] = np.nan
    cases = [
        (dict(ranking=dup), ValueError, "duplicate gene names .*'G0'"),
        (dict(ranking=nan), ValueError, "missing or infinite statistics .*'G3'"),
        (dict(gene_sets={"x": ["nope", "none"]}), ValueError, "no gene set .* of the ranking"),
        (dict(method="exact"), ValueError, "method must be one of"),
        (dict(eps=2), ValueError, "eps must be in"),
        (dict(n_resamples=0), ValueError, "n_resamples"),
        (dict(ranking=[1, 2, 3]), TypeError, "ranking must be a Series"),
        (dict(ranking=pd.DataFrame(np.ones((3, 3)))), ValueError, "two columns"),
        (dict(weight=-1), ValueError, "weight"),
    ]
    for change, exc, message in cases:
        kw = dict(ranking=stat, gene_sets=sets, n_resamples=10, device=rt, seed=1) | change
        with pytest.raises(exc, match=message):
            oclstat.gsea_prerank(kw.pop("ranking"), kw.pop("gene_sets"), **kw)


def test_ties_keep_input_order_with_a_warning(rt):
    stat = pd.Series([2.0, 1.0, 1.0, 1.0, -1.0] * 20, index=[f"G{i}" for i in range(100)])
    with pytest.warns(UserWarning, match="tie"):
        res = oclstat.gsea_prerank(stat, {"s": [f"G{i}" for i in range(0, 100, 5)]},
                                   n_resamples=10, method="simple", min_size=5, seed=1,
                                   device=rt)
    assert list(res.ranking.index[:3]) == ["G0", "G5", "G10"]


# ------------------------------------------------------------------ fgsea

def _fgsea_available() -> bool:
    if shutil.which("Rscript") is None:
        return False
    proc = subprocess.run(["Rscript", "-e", "quit(status = !requireNamespace('fgsea', "
                           "quietly = TRUE))"], capture_output=True)
    return proc.returncode == 0


@pytest.mark.r
@pytest.mark.skipif(not _fgsea_available(), reason="R package fgsea is not installed")
def test_multilevel_pvalues_agree_with_fgsea(rt, tmp_path):
    stat, up = _planted(1.6)
    sets = {"up": up, "down": list(stat.index[1000:1040]), "mid": list(stat.index[2000:2025])}
    stat.loc[sets["down"]] -= 1.0
    oclstat.io.write_rnk(stat, tmp_path / "r.rnk")
    oclstat.io.write_gmt(sets, tmp_path / "s.gmt")
    script = f"""
    suppressMessages(library(fgsea))
    r <- read.table('{tmp_path / "r.rnk"}', sep = '\\t', row.names = 1, quote = '',
                    comment.char = '')
    stats <- setNames(r[[1]], rownames(r))
    set.seed(1)
    res <- fgsea(gmtPathways('{tmp_path / "s.gmt"}'), stats, minSize = 15, eps = 0)
    write.table(data.frame(res$pathway, res$pval, res$log2err, res$ES, res$NES),
                '{tmp_path / "out.tsv"}', sep = '\\t', row.names = FALSE, col.names = FALSE)
    """
    subprocess.run(["Rscript", "-e", script], check=True, capture_output=True)
    fg = pd.read_csv(tmp_path / "out.tsv", sep="\t", header=None, index_col=0,
                     names=["pathway", "pval", "log2err", "ES", "NES"])
    ours = oclstat.gsea_prerank(stat, sets, n_resamples=1000, eps=0, seed=1, device=rt).table
    for name in sets:
        assert ours.loc[name, "ES"] == pytest.approx(fg.loc[name, "ES"], abs=1e-10)
        err = math.hypot(np.nan_to_num(ours.loc[name, "log2err"], nan=1.0),
                         np.nan_to_num(fg.loc[name, "log2err"], nan=1.0))
        assert abs(math.log2(ours.loc[name, "pval"]) - math.log2(fg.loc[name, "pval"])) \
            < 3 * err + 0.5, name


@pytest.mark.parametrize("score_type", ["std", "pos", "neg"])
def test_score_types_equal_fgseas_frozen_results(rt, score_type):
    """fgsea 1.31's ES, NES and (multilevel) p-values for scoreType std, pos and neg, frozen by
    tests/data/make_fgsea_score_types.py: ES to 1e-12, NES within 3% (two Monte Carlo means),
    log2 p within 3 combined log2err + 0.5 (fgsea's own error estimates), p-values down to
    1e-57."""
    from fgsea_score_types import CASES
    from make_fgsea_score_types import dataset

    stats, sets = dataset()
    ours = oclstat.gsea_prerank(stats, sets, n_resamples=10000, eps=0, min_size=1,
                                max_size=len(stats) - 1, score_type=score_type, seed=1,
                                device=rt).table
    cases = [c for c in CASES if c[0] == score_type]
    assert len(cases) == len(sets)
    for _, name, es, nes, pval, err in cases:
        row = ours.loc[name]
        assert row["ES"] == pytest.approx(es, abs=1e-12), name
        assert row["NES"] == pytest.approx(nes, rel=0.03, abs=1e-12), name
        e = math.hypot(np.nan_to_num(row["log2err"], nan=1.0), 1.0 if err is None else err)
        assert abs(math.log2(row["pval"]) - math.log2(pval)) < 3 * e + 0.5, name
    if score_type != "std":     # one-sided: the sets at the other end are not significant
        other = [c[1] for c in cases if c[1] in (("set06", "set07") if score_type == "pos"
                                                  else ("set00", "set01"))]
        assert all(ours.loc[c, "pval"] > 0.5 for c in other)


def test_score_type_pos_and_neg_are_the_running_sums_extremes(rt):
    """scoreType "pos" / "neg": the running sum's maximum / minimum, from the textbook walk."""
    stat = random_ranking(600, seed=21)
    rng = np.random.default_rng(22)
    sets = {f"s{i}": list(rng.choice(stat.index, size=int(rng.integers(5, 60)), replace=False))
            for i in range(25)}
    ranked = stat.sort_values(ascending=False, kind="stable")
    for score_type, pick in (("pos", np.max), ("neg", np.min)):
        res = oclstat.gsea_prerank(stat, sets, n_resamples=20, method="simple", min_size=5,
                                   score_type=score_type, seed=1, device=rt).table
        for name, genes in sets.items():
            hit = ranked.index.isin(genes)
            w = np.abs(ranked.to_numpy())
            step = np.where(hit, w / w[hit].sum(), -1.0 / (len(ranked) - hit.sum()))
            walk = np.concatenate([[0.0], np.cumsum(step)])
            assert res.loc[name, "ES"] == pytest.approx(pick(walk), abs=1e-12), name
    with pytest.raises(ValueError, match="score_type must be one of"):
        oclstat.gsea_prerank(stat, sets, score_type="both", device=rt)


@pytest.mark.parametrize("max_chains", [None, 1])
def test_a_table_of_rankings_gives_each_columns_own_result(rt, monkeypatch, max_chains):
    """Several rankings at once (one random draw scored on every ranking): each column's
    table equals a run on that column alone with the same seed, multilevel p-values
    included, bit for bit; also when the chains' memory lets only one ranking climb at a
    time (``max_chains`` 1 byte: a batch per ranking)."""
    from oclstat._prerank import opencl

    batches = []
    if max_chains is not None:
        monkeypatch.setattr(opencl, "MAX_CHAINS", max_chains)
        split = opencl.ranking_batches
        monkeypatch.setattr(opencl, "ranking_batches",
                            lambda *a: batches.append(split(*a)) or batches[-1])
    rng = np.random.default_rng(3)
    genes = [f"G{i}" for i in range(3000)]
    frame = pd.DataFrame(rng.normal(size=(3000, 4)), index=genes,
                         columns=["treated", "knockout", "day 3", "day 7"])
    frame.iloc[:40, 0] += 2.0
    frame.iloc[100:140, 2] -= 2.0
    sets = {f"s{i}": list(rng.choice(genes, int(rng.integers(15, 120)), replace=False))
            for i in range(40)}
    sets["top"], sets["mid"] = genes[:40], genes[100:140]
    many = oclstat.gsea_prerank(frame, sets, seed=5, n_resamples=1000, device=rt)
    assert list(many) == list(frame.columns)
    assert many["treated"].n_multilevel >= 1 and many["day 3"].n_multilevel >= 1
    for column in frame.columns:
        alone = oclstat.gsea_prerank(frame[column], sets, seed=5, n_resamples=1000, device=rt)
        pd.testing.assert_frame_equal(many[column].table, alone.table)
        assert many[column].ranking.name == column
    assert many["treated"].table.index[0] == "top" and many["day 3"].table.index[0] == "mid"
    if max_chains is not None:
        assert batches[0] == [(0, 1), (1, 2), (2, 3), (3, 4)]
    with pytest.raises(ValueError, match="ranking 'knockout' has 1 missing statistics"):
        broken = frame.copy()
        broken.iloc[5, 1] = np.nan
        oclstat.gsea_prerank(broken, sets, device=rt)
    with pytest.raises(ValueError, match="2 numeric columns and no gene index"):
        oclstat.gsea_prerank(frame.iloc[:, :2].reset_index(drop=True), sets, device=rt)


def _nested_sets():
    """3,000 genes, three shifted blocks (A at the top, B in the middle, C at the bottom), sets
    inside and around them, one set across A and B, and a random one."""
    rng = np.random.default_rng(5)
    n = 3000
    genes = [f"G{i}" for i in range(n)]
    stat = pd.Series(rng.normal(size=n), index=genes)
    a, b, c = list(range(60)), list(range(1500, 1540)), list(range(2900, 2950))
    stat.iloc[a] += 1.5
    stat.iloc[b] += 1.5
    stat.iloc[c] -= 1.5
    sets = {"A": a, "A_sub1": a[:30], "A_sub2": a[30:50],
            "A_plus": a + list(rng.choice(range(200, 1400), 20, replace=False)),
            "B": b, "B_sub": b[::2], "C": c, "C_sub": c[10:40],
            "D": list(rng.choice(n, 50, replace=False)), "AB": a[:20] + b[:20]}
    return stat, {k: [genes[i] for i in v] for k, v in sets.items()}


# fgsea 1.31.6: fgsea(p, stats, eps = 0), then collapsePathways(r[order(pval)][padj < 0.05], p,
# stats) gives these parents with set.seed(1), (2) and (3) alike (None: a main pathway).
FGSEA_PARENTS = {"C": None, "A": None, "A_plus": "A", "B": None, "AB": None, "C_sub": "C",
                 "A_sub1": "A", "A_sub2": "A", "B_sub": "B"}


@pytest.mark.parametrize("seed", [1, 2])
def test_collapse_pathways_equals_fgsea(rt, seed):
    stat, sets = _nested_sets()
    res = oclstat.gsea_prerank(stat, sets, min_size=1, eps=0, seed=1, device=rt)
    significant = res.table[res.table["padj"] < 0.05]
    assert list(significant.index) == list(FGSEA_PARENTS)      # fgsea's order by p-value
    collapsed = oclstat.collapse_pathways(significant, sets, stat, seed=seed, device=rt)
    assert dict(collapsed.parent) == FGSEA_PARENTS
    assert collapsed.main == ["C", "A", "B", "AB"]
    frame = collapsed.to_frame()
    assert list(frame.columns) == ["pathway", "parent", "main"]
    assert frame["main"].sum() == 4
    again = oclstat.collapse_pathways(significant, sets, stat, seed=seed, device=rt)
    assert dict(again.parent) == dict(collapsed.parent) and again.main == collapsed.main


def test_collapse_pathways_rejects_bad_input(rt):
    stat, sets = _nested_sets()
    res = oclstat.gsea_prerank(stat, sets, min_size=1, n_resamples=200, seed=1, device=rt)
    with pytest.raises(ValueError, match="pval_threshold must be in"):
        oclstat.collapse_pathways(res, sets, pval_threshold=1.5, device=rt)
    with pytest.raises(ValueError, match="gene_sets lacks 1 pathways"):
        oclstat.collapse_pathways(res, {k: v for k, v in sets.items() if k != "D"}, device=rt)
    with pytest.raises(ValueError, match="ranking is needed"):
        oclstat.collapse_pathways(res.table, sets, device=rt)
    with pytest.raises(ValueError, match="ES column"):
        oclstat.collapse_pathways(res.table.drop(columns="ES"), sets, stat, device=rt)


# ------------------------------------------------------------------ command line, report

def test_command_line_prerank_writes_fgseas_table_and_a_report(tmp_path, capsys, shared_data):
    """`oclstat prerank --rnk F --gmt F --out F --report DIR` on the Hallmark sets, and the
    report opened in a headless browser (as tests/test_gsea_report.py does for gsea)."""
    pytest.importorskip("matplotlib")
    from oclstat.cli import main

    stat, up = _planted(1.5, n=3000)
    rnk, gmt = tmp_path / "r.rnk", tmp_path / "s.gmt"
    oclstat.io.write_rnk(stat, rnk)
    sets = {"UP": up, "DOWN": list(stat.index[-40:]),
            **{f"RANDOM_{i}": list(stat.index[100 + i::97]) for i in range(25)}}
    oclstat.io.write_gmt(sets, gmt)
    out, report = tmp_path / "res.tsv", tmp_path / "rep"
    assert main(["prerank", "--rnk", str(rnk), "--gmt", str(gmt), "--seed", "1e3", "--out",
                 str(out), "--report", str(report)]) == 0
    text = capsys.readouterr()
    assert "ES > 0 (top of the ranking)" in text.out and "UP" in text.out
    assert "by multilevel splitting" in text.err
    table = pd.read_csv(out, sep="\t")
    assert tuple(table.columns[:8]) == FGSEA_COLUMNS and len(table) == len(sets)
    direct = oclstat.gsea_prerank(stat, sets, seed=1000).to_frame()
    np.testing.assert_allclose(table["pval"], direct["pval"], rtol=1e-5)
    index = report / "index.html"
    names = {p.name for p in report.iterdir()}
    assert {"prerank_report_top.tsv", "prerank_report_bottom.tsv"} <= names
    assert {n.rsplit("_", 1)[0] for n in names if n.startswith("gsea_report_for_")} == \
        {"gsea_report_for_na_pos", "gsea_report_for_na_neg"}
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.skip("chromium is not installed")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"]
    dom = subprocess.run([exe, *flags, "--dump-dom", index.as_uri()], capture_output=True,
                         text=True, timeout=120).stdout
    assert 'data-images-loaded="11"' in dom, dom[:300]    # 10 plots and the leading edges
    assert f'data-table-rows="{len(sets)}"' in dom and "Enriched at the top" in dom


def test_fgsea_rule_when_both_extremes_are_equal(rt):
    """fgsea's unit test (calcGseaStat): statistics 10:-10, the set at positions 10:12 (the
    genes of statistics 1, 0, -1): ES 0, NES 0, p 1 (Broad's and GSEApy's rule would give
    ES -0.5)."""
    stats = pd.Series(np.arange(10, -11, -1, dtype=float),
                      index=[f"g{i}" for i in range(1, 22)])
    res = oclstat.gsea_prerank(stats, {"s": ["g10", "g11", "g12"], "t": ["g1", "g2", "g3"]},
                               min_size=1, max_size=100, n_resamples=1000, seed=1, device=rt)
    row = res.table.loc["s"]
    assert (row["ES"], row["NES"], row["pval"]) == (0.0, 0.0, 1.0)
    assert row["leadingEdge"] == []
    assert res.table.loc["t", "ES"] == pytest.approx(1.0)
    from oclstat._enrichment.walks import enrichment_score

    assert enrichment_score(stats.to_numpy(), np.array([9, 10, 11]))[0] == pytest.approx(-0.5)


def test_command_line_runs_a_table_of_rankings(tmp_path, capsys):
    rng = np.random.default_rng(9)
    genes = [f"G{i}" for i in range(1500)]
    frame = pd.DataFrame(rng.normal(size=(1500, 3)), index=pd.Index(genes, name="gene"),
                         columns=["A", "B", "C"])
    frame.iloc[:30, 1] += 2.5
    path = tmp_path / "rankings.tsv"
    frame.to_csv(path, sep="\t")
    gmt = tmp_path / "s.gmt"
    oclstat.io.write_gmt({"top": genes[:30], "any": genes[700:760]}, gmt)
    out, report = tmp_path / "out.tsv", tmp_path / "rep"
    from oclstat.cli import main

    assert main(["prerank", "--rnk", str(path), "--gmt", str(gmt), "--seed", "4",
                 "--resamples", "300", "--out", str(out), "--report", str(report)]) == 0
    table = pd.read_csv(out, sep="\t")
    assert list(table.columns[:2]) == ["ranking", "pathway"]
    assert sorted(set(table["ranking"])) == ["A", "B", "C"]
    alone = oclstat.gsea_prerank(frame["B"], {"top": genes[:30], "any": genes[700:760]},
                                 seed=4, n_resamples=300).table
    got = table[table["ranking"] == "B"].set_index("pathway")
    np.testing.assert_allclose(got.loc[alone.index, "pval"], alone["pval"], rtol=1e-5)
    assert len(list((report / "B").glob("gsea_report_for_na_pos_*.tsv"))) == 1
    assert "B: 2 sets, 1 with padj < 0.05; top top" in capsys.readouterr().out


def test_command_line_rnk_with_trailing_tabs_is_one_ranking(tmp_path):
    """A spreadsheet export's trailing tab is not a second ranking."""
    stat = random_ranking(400, seed=4)
    rnk = tmp_path / "r.rnk"
    rnk.write_text("".join(f"{g}\t{v!r}\t\n" for g, v in stat.items()))
    gmt = tmp_path / "s.gmt"
    oclstat.io.write_gmt({"s": list(stat.index[:20])}, gmt)
    out = tmp_path / "out.tsv"
    from oclstat.cli import main

    assert main(["prerank", "--rnk", str(rnk), "--gmt", str(gmt), "--seed", "1",
                 "--resamples", "50", "--out", str(out)]) == 0
    assert "ranking" not in pd.read_csv(out, sep="\t").columns
