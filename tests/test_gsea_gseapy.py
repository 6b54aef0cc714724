"""oclstat.gsea against GSEApy (``gseapy.gsea(..., permutation_type="phenotype")``) on the Broad
example data in ../shared/data/gsea: enrichment scores to 1e-6, NES, nominal p and FDR within
Monte Carlo error."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat
from oclstat._gsea import enrichment_score

gseapy = pytest.importorskip("gseapy")


def run_gseapy(data, cls, gmt, n_resamples, seed=7):
    res = gseapy.gsea(data=data, gene_sets=gmt, cls=cls, permutation_type="phenotype",
                      permutation_num=n_resamples, method="signal_to_noise", threads=2, seed=seed,
                      outdir=None, no_plot=True, min_size=15, max_size=500)
    table = res.res2d.set_index("Term")
    for col in ("ES", "NES", "NOM p-val", "FDR q-val", "FWER p-val"):
        table[col] = table[col].astype(float)
    return table


@pytest.fixture(scope="module")
def p53(shared_data):
    d = shared_data / "gsea"
    expr = oclstat.io.read_expression(d / "P53.txt")
    sets = oclstat.io.read_gmt(d / "c2.all.v5.0.symbols.gmt")
    return expr, oclstat.io.read_cls(d / "P53.cls"), sets


def test_p53_c2_enrichment_scores_match_gseapy(p53, rt):
    """P53 has 1,421 names that are not upper case (C14orf132, probe ids, Il2 next to IL2).
    GSEApy upper-cases the data's names when fewer than 90% are upper case and matches them to
    the sets; a name that is then present twice (IL2, Il2) resolves to its last row. oclstat
    matches names exactly. Sets whose members are the same either way agree to 1e-6; every
    other set agrees once GSEApy's membership rule is applied to oclstat's own ranking."""
    expr, pheno, sets = p53
    gp = run_gseapy(expr, pheno.labels, sets, n_resamples=2)
    ours = oclstat.gsea(expr, pheno, sets, n_resamples=1, seed=1, device=rt)
    ranked = list(ours.ranking.index)
    rank_of = {g: i for i, g in enumerate(ranked)}
    last_row = {}
    for name in expr.index:
        last_row[name.upper()] = name
    sorted_metric = ours.ranking.to_numpy()
    same_membership = 0
    for term, row in gp.iterrows():
        members = sets[term]
        gp_pos = np.sort([rank_of[last_row[g]] for g in set(members) if g in last_row])
        es, _ = enrichment_score(sorted_metric, gp_pos, 1.0)
        assert es == pytest.approx(row["ES"], abs=1e-6), term
        exact_pos = np.sort([rank_of[g] for g in set(members) if g in rank_of])
        if np.array_equal(exact_pos, gp_pos):
            same_membership += 1
            assert ours.table.loc[term, "es"] == pytest.approx(row["ES"], abs=1e-6), term
    assert same_membership > 2500   # 2,558 of GSEApy's 3,329 sets


@pytest.fixture(scope="module")
def leukemia(shared_data):
    d = shared_data / "gsea"
    expr = oclstat.io.read_expression(d / "Leukemia_hgu95av2.trim.gct")
    return expr, oclstat.io.read_cls(d / "Leukemia.cls"), d / "h.all.v7.0.symbols.gmt"


def test_leukemia_hallmark_statistics_within_monte_carlo_error(leukemia, rt):
    """1000 permutations each. The Monte Carlo spread of every statistic is measured from
    oclstat runs with 8 seeds; GSEApy's values must lie within 5 standard deviations of a
    difference of two independent runs (plus a small floor for discrete p-values)."""
    expr, pheno, gmt = leukemia
    gp = run_gseapy(expr, list(pheno.labels), str(gmt), n_resamples=1000)
    runs = [oclstat.gsea(expr, pheno, gmt, n_resamples=1000, seed=s, device=rt).table
            for s in range(8)]
    terms = runs[0].index
    assert set(terms) == set(gp.index)
    np.testing.assert_allclose(runs[0]["es"], gp.loc[terms, "ES"], atol=1e-6)
    # Broad's leading-edge numbers: GSEApy's "Tag %" (edge genes / set size) and "Gene %"
    # (the ranking up to / from the peak, two decimals)
    tags = gp.loc[terms, "Tag %"].str.split("/", expand=True).astype(int)
    np.testing.assert_array_equal(np.rint(runs[0]["leading_edge_tags"] * runs[0]["size"]),
                                  tags[0].to_numpy())
    np.testing.assert_array_equal(runs[0]["size"], tags[1].to_numpy())
    gene_pct = gp.loc[terms, "Gene %"].str.rstrip("%").astype(float)
    np.testing.assert_allclose(100 * runs[0]["leading_edge_list"], gene_pct, atol=0.0051)
    # oclstat counts the observed labelling, (k + 1) / (n + 1); GSEApy writes Broad's k / n:
    # they differ by at most 1/n, inside the floors
    for ours_col, gp_col, floor in [("nes", "NES", 0.01), ("pval", "NOM p-val", 0.01),
                                    ("fdr", "FDR q-val", 0.02)]:
        values = np.array([r.loc[terms, ours_col].to_numpy() for r in runs])
        spread = values.std(axis=0, ddof=1)
        diff = np.abs(values[0] - gp.loc[terms, gp_col].to_numpy())
        limit = 5 * np.sqrt(2) * spread + floor
        assert (diff <= limit).all(), (ours_col, terms[diff > limit].tolist())


@pytest.mark.parametrize("metric", ["signal_to_noise", "abs_signal_to_noise"])
def test_leukemia_gene_set_permutation_within_monte_carlo_error(leukemia, rt, metric):
    """Broad's -permute gene_set as GSEApy runs it (``permutation_type="gene_set"``), 1000
    random sets per set: ES to 1e-6, NES, nominal p, FDR and FWER within the Monte Carlo
    spread of 8 oclstat seeds (as above). Both draw random sets for each set independently,
    as Broad does: FWER, the share of permutations whose largest null NES over the sets
    reaches a set's NES, depends on that joint law."""
    expr, pheno, gmt = leukemia
    gp = gseapy.gsea(data=expr, gene_sets=str(gmt), cls=list(pheno.labels),
                     permutation_type="gene_set", permutation_num=1000, method=metric,
                     threads=2, seed=7, outdir=None, no_plot=True, min_size=15, max_size=500)
    gp = gp.res2d.set_index("Term")
    runs = [oclstat.gsea(expr, pheno, gmt, n_resamples=1000, seed=s, metric=metric,
                         permutation="gene_set", device=rt).table for s in range(8)]
    terms = runs[0].index
    assert set(terms) == set(gp.index)
    np.testing.assert_allclose(runs[0]["es"], gp.loc[terms, "ES"].astype(float), atol=1e-6)
    for ours_col, gp_col, floor in [("nes", "NES", 0.01), ("pval", "NOM p-val", 0.01),
                                    ("fdr", "FDR q-val", 0.02), ("fwer", "FWER p-val", 0.02)]:
        values = np.array([r.loc[terms, ours_col].to_numpy() for r in runs])
        spread = values.std(axis=0, ddof=1)
        diff = np.abs(values[0] - gp.loc[terms, gp_col].astype(float).to_numpy())
        limit = 5 * np.sqrt(2) * spread + floor
        assert (diff <= limit).all(), (ours_col, terms[diff > limit].tolist())
