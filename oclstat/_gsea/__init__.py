"""Gene set enrichment analysis with phenotype permutations (Subramanian et al. 2005).

:func:`gsea` re-creates rapidGSEA/cudaGSEA and computes what Broad GSEA and GSEApy report: for
each gene set the enrichment score (ES) of the observed labelling, the nominal p-value, the
normalised ES (NES), Broad's FDR q-value and the FWER p-value, from ``n_resamples`` permutations of
the class labels (class sizes kept). The permutations run on the device in batches; only
per-set counts and sums and per-permutation maxima come back (the ES table stays there).

**Metric** (class A = ``classes[0]``, the first class of a CLS file): ``signal_to_noise``
(mu_A - mu_B) / (sigma_A + sigma_B) with Broad's floor sigma >= 0.2|mu| (0.2 when mu = 0),
``t_test`` (mu_A - mu_B) / sqrt(s_A^2/n_A + s_B^2/n_B), ``diff_of_classes``,
``ratio_of_classes`` and ``log2_ratio_of_classes`` (these two need positive expression).
Standard deviations use n - 1. A metric that is not finite (t_test of a gene constant in both
classes) counts as 0.

**Ranking and ties.** Genes are ranked by decreasing metric; genes with equal metric are
ranked by decreasing position in the input (the later row first), which is what GSEApy's
stable ascending sort followed by a reversal gives. This rule is used for the observed ranking
and inside every permutation.

**Enrichment score.** Walking down the ranking, a member of the set adds |m|^p / N_R (N_R the
sum of |m|^p over the members), a non-member subtracts 1 / (N - N_H); the ES is the extreme of
the running sum of larger magnitude (the negative one on an exact tie). Weights p = 0, 1, 1.5
and 2 use correctly rounded arithmetic (other p use ``pow``).

**Statistics** (as Broad GSEA and GSEApy): nominal p = fraction of same-sign null ES at least as
extreme; NES = ES / mean of the same-sign null ES of the set; FDR q = (fraction of all sets'
same-sign null NES at least as extreme) / (fraction of observed same-sign NES at least as
extreme), capped at 1; FWER p = fraction of permutations whose most extreme same-sign null NES
over all sets is at least as extreme.

**Gene sets** are restricted to the genes of the expression data, then filtered to
``min_size <= size <= max_size``. With ``case_sensitive=False`` gene names are compared in upper
case (GSEApy does that when fewer than 90% of the data's names are upper case).

>>> import numpy as np, pandas as pd, oclstat
>>> rng = np.random.default_rng(0)
>>> expr = pd.DataFrame(rng.normal(size=(60, 8)), index=[f"g{i}" for i in range(60)])
>>> expr.iloc[:10, :4] += 2.0                      # genes g0..g9 up in class A
>>> sets = {"up": [f"g{i}" for i in range(10)], "other": [f"g{i}" for i in range(30, 45)]}
>>> res = oclstat.gsea(expr, ["A"] * 4 + ["B"] * 4, sets, n_resamples=200, min_size=5, seed=1)
>>> bool(res.table.loc["up", "es"] > 0.8), bool(res.table.loc["up", "pval"] < 0.05)
(True, True)

Inside: ``validate`` (expression, phenotype, gene sets), ``core`` (metrics, weights, ES on the
host), ``opencl`` (permutation batches on the device), ``stats`` (NES, p, FDR, FWER), ``result``
(the frozen result), ``api`` (the public function).
"""

from __future__ import annotations

from .._enrichment.walks import enrichment_score
from .api import gsea
from .core import ranking_metric
from .result import GseaResult
from .validate import METRICS

__all__ = ["GseaResult", "gsea", "METRICS", "ranking_metric", "enrichment_score"]
