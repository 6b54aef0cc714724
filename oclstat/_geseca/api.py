"""The public function of gene set co-regulation analysis: :func:`geseca`."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._enrichment.gene_sets import match_gene_sets
from .._multitest import benjamini_hochberg
from .._prerank.multilevel import multilevel_error, simple_decision_error, simple_error
from .._random.streams import as_seed, fresh_seed
from .._results import r_number
from .._scale import executor
from .._validation import as_finite, as_float_dtype, as_int
from . import validate
from .multilevel import climb, pvalue
from .opencl import Chains, Plan
from .result import GESECA_COLUMNS, SIMPLE_COLUMNS, GesecaResult

#: Most device bytes the chains of one batch of set sizes take.
MAX_CHAIN_BYTES = 1 << 30

#: fgsea's warnings.
SMALL_SAMPLE = "sampleSize is too small, so sampleSize = 3 is set."
BELOW_EPS = ("For some pathways, in reality P-values are less than {eps}. You can set the "
             "`eps` argument to zero for better estimation.")


def geseca(expression, gene_sets, *, min_size: int = 1, max_size=None, center: bool = True,
           scale: bool = False, n_resamples: int = 1000, method: str = "multilevel",
           sample_size: int = 101, eps: float = 1e-50, genes=None, samples=None, seed=None,
           dtype=None, device=None) -> GesecaResult:
    """Gene set co-regulation analysis (GESECA, fgsea's ``geseca``): which gene sets move
    together across the samples (a time course, cells, spots, patients) more than random
    sets of their size, with no groups or contrast given.

    Parameters
    ----------
    expression : DataFrame, array, AnnData or path
        Genes x samples (a DataFrame indexed by gene; an array with ``genes=``; an AnnData's
        cells x genes ``.X``; a GCT or table file).
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns).
    min_size, max_size : int, optional
        Sets with fewer or more genes of the data are left out (default 1 and one less than
        the genes).
    center, scale : bool, optional
        Centre each gene on its mean (default) and scale it to unit variance (R's ``scale``,
        as fgsea) before scoring.
    n_resamples : int, optional
        Random sets of every size for the simple p-values (fgsea's ``nPermSimple``, or
        ``nperm`` of ``gesecaSimple``).
    method : {"multilevel", "simple"}, optional
        "simple": p-values (k + 1) / (n + 1) from the random sets only, with
        ``nMoreExtreme`` (``gesecaSimple``); "multilevel": the sets simple sampling cannot
        resolve get adaptive multilevel splitting, p-values down to ``eps`` (``geseca``).
    sample_size : int, optional
        Chains per set size in multilevel splitting (made odd; at least 3, with fgsea's
        warning).
    eps : float, optional
        Lower bound of the multilevel p-values (0: none); smaller ones are reported as ``eps``
        with log2err NaN and fgsea's warning.
    genes, samples : sequence of str, optional
        Row and column names when ``expression`` is an array.
    seed : int or sequence of 6 ints, optional
        Seed of the MRG31k3p streams; the same seed gives the same table on every device.
    dtype : numpy dtype, optional
        Precision of the scores on the device (default float64 where the device has it).
    device : str, int, Runtime, optional
        The OpenCL device (default: the best present).

    Returns
    -------
    GesecaResult
        ``.table`` in fgsea's columns by p-value: ``pctVar``, ``pval``, ``padj``,
        ``log2err`` (``nMoreExtreme`` with ``method="simple"``), ``size``.

    See Also
    --------
    gsea_prerank : enrichment in a ranking of genes (fgsea's ``fgsea``).
    ora : over-representation in a list of genes (fgsea's ``fora``).

    Notes
    -----
    With E the centred genes x samples matrix, the score of a set G of k genes is the
    squared length of its profile, sum over samples j of (sum over i in G of E_ij)^2, and
    ``pctVar`` is score / k / sum(E^2) x 100. The null draws random sets of k genes. The
    device works on E as 32-bit integers (2^b E, rounded, with profiles exact below 2^53) and
    sums the squares in one fixed order, so the same seed gives the same random sets, moves
    and p-values on every OpenCL implementation; ``pctVar`` is computed from E itself in
    float64.

    References
    ----------
    .. [1] Golovkin, A. et al. (2023). Gene set co-regulation analysis (GESECA). fgsea
       1.26+, bioRxiv 2023.09 (fgsea's ``geseca`` vignette).

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(0)
    >>> E = pd.DataFrame(rng.normal(size=(300, 12)), index=[f"g{i}" for i in range(300)])
    >>> E.iloc[:20] += np.sin(np.arange(12))          # 20 genes share a profile
    >>> res = oclstat.geseca(E, {"module": [f"g{i}" for i in range(20)],
    ...                          "random": [f"g{i}" for i in range(100, 140)]}, seed=1)
    >>> res.table.index.tolist(), bool(res.table.loc["module", "pval"] < 1e-6)
    (['module', 'random'], True)
    """
    if method not in ("multilevel", "simple"):
        raise ValueError(f"method must be 'multilevel' or 'simple', got {method!r}")
    n_resamples = as_int(n_resamples, "n_resamples", minimum=1)
    sample_size = as_int(sample_size, "sample_size", minimum=1)
    eps = as_finite(eps, "eps", nonnegative=True)
    E, genes, _ = validate.expression(expression, genes, samples, center, scale)
    if max_size is not None and max_size == np.inf:
        max_size = None                                    # fgsea's maxSize = Inf
    names, members, n_filtered = match_gene_sets(gene_sets, genes, min_size, max_size,
                                                 allow_empty=True)
    words = fresh_seed() if seed is None else as_seed(seed)
    rt = executor(device, several=False).runtime
    simple = method == "simple"
    if not names:
        cols = SIMPLE_COLUMNS if simple else GESECA_COLUMNS
        return GesecaResult(pd.DataFrame({c: [] for c in cols[1:]}, index=pd.Index(
            [], name="pathway")), n_resamples, 0, n_filtered, words, rt.info.label, {})
    if sample_size < 3:
        warnings.warn(SMALL_SAMPLE, UserWarning, stacklevel=2)
        sample_size = 3
    sample_size += 1 - sample_size % 2
    eps = min(1.0, eps)
    dtype = rt.default_real() if dtype is None else as_float_dtype(dtype)
    size = np.array([len(s) for s in members], dtype=np.int64)
    pct = _pct_var(E, members, size)

    plan = Plan(rt, E, size, dtype)
    observed = plan.scores(members)
    where = np.searchsorted(plan.sizes, size)
    more = np.zeros(len(names), dtype=np.int64)
    for table in plan.null_batches(words, n_resamples):
        more += (table[where] >= observed[:, None]).sum(axis=1)
    pval = (more + 1) / (n_resamples + 1)
    log2err = simple_error(more, n_resamples)
    n_ml = 0
    if not simple:
        rough = pval
        ml = multilevel_error(rough, sample_size) < simple_decision_error(more, n_resamples)
        n_ml = int(ml.sum())
        if n_ml:
            pval, log2err = _multilevel(plan, observed, size, ml, pval.copy(), log2err.copy(),
                                        sample_size, eps, words, first=n_resamples)
            if np.any(np.isnan(log2err[ml]) & (pval[ml] == eps)):
                warnings.warn(BELOW_EPS.format(eps=r_number(eps)), UserWarning, stacklevel=2)
    table = pd.DataFrame({"pctVar": pct, "pval": pval, "padj": benjamini_hochberg(pval)},
                         index=pd.Index(names, name="pathway"))
    if simple:
        table["nMoreExtreme"] = more
    else:
        table["log2err"] = log2err
    table["size"] = size
    table = table.iloc[np.argsort(pval, kind="stable")]
    return GesecaResult(table, n_resamples, n_ml, n_filtered, words, rt.info.label,
                        {n: [genes[i] for i in idx] for n, idx in zip(names, members,
                                                                      strict=True)})


def _pct_var(E: np.ndarray, members: list, size: np.ndarray) -> np.ndarray:
    """Each set's score over its size and the total variance, in percent (float64, from E)."""
    total = float(np.sum(E * E))
    scores = np.array([float(np.sum(E[idx].sum(axis=0) ** 2)) for idx in members])
    with np.errstate(invalid="ignore", divide="ignore"):
        return scores / size / total * 100


def _multilevel(plan, observed, size, ml, pval, log2err, sample_size, eps, words, first):
    """Multilevel p-values of the sets ``ml``: one group of chains per set size, climbing to
    the largest observed score of its sets."""
    ks = np.unique(size[ml])
    groups = [(int(k), float(observed[ml & (size == k)].max()), eps) for k in ks]
    budget = min(MAX_CHAIN_BYTES, plan.rt.max_items(1, fraction=0.25))
    levels, lo = [], 0
    while lo < len(ks):                 # groups a batch at a time; group g: streams first + g S
        hi = lo + 1
        while hi < len(ks) and Chains.bytes_needed(ks[lo:hi + 1], sample_size, plan.n, plan.m,
                                                   plan.real) <= budget:
            hi += 1
        chains = Chains(plan, ks[lo:hi], sample_size, words=words, first=first + lo * sample_size)
        levels += climb(chains, groups[lo:hi], sample_size)
        lo = hi
    for i in np.flatnonzero(ml):
        p, err = pvalue(levels[int(np.searchsorted(ks, size[i]))], observed[i], sample_size)
        if p < eps:
            p, err = eps, np.nan
        pval[i], log2err[i] = p, err
    return pval, log2err
