"""Preranked gene set enrichment analysis with gene-set permutations and multilevel p-values
(fgsea's method, Korotkevich et al.), on the device.

:func:`gsea_prerank` starts from a ranked gene list (a differential-expression statistic per
gene) and reports, for every gene set, fgsea's columns: ES, NES, nominal p, BH-adjusted p,
log2err and the leading edge.

**Null.** The null of a set of size k is the ES of random k-gene sets of the same ranking. One
work-item per resample draws a sequence of distinct genes (MRG31k3p stream i for resample i,
rejection of repeats, so every prefix is a uniform random set) and scores its prefix of every
needed size: sets of equal size share their null, as in fgsea. Only integer counts and
fixed-point sums come back (:mod:`.opencl`).

**Multilevel.** Where simple sampling cannot resolve a p-value (fgsea's rule: multilevel's
expected log2 error is smaller), the sets of each size and sign get adaptive multilevel
splitting: ``sample_size`` chains of random sets climb levels of ES by Metropolis moves on the
device, the host records each level's median (:mod:`.multilevel`), and p-values come down to
``eps`` with fgsea's ``log2err``.

**Exactness.** Gene weights are exact integers and every ES point one correctly rounded
division of exact sums, so the observed ES, every null ES and every move's acceptance are the
same on every device, and the same seed gives the same table for any number of devices or
tasks.
"""

from .api import gsea_prerank
from .collapse import CollapsedPathways, collapse_pathways
from .result import PrerankResult

__all__ = ["gsea_prerank", "PrerankResult", "collapse_pathways", "CollapsedPathways"]
