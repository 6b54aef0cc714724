"""fgsea's ``collapsePathways``: the independent pathways among significant ones.

Pathways of a result are taken in its order (most significant first). A pathway not yet
explained becomes a main pathway, and every other unexplained pathway is tested conditionally
on it, twice, with one-tailed preranked GSEA (``score_type`` "pos" for ES >= 0, "neg" below,
simple gene-set permutations): on the ranking without the main pathway's genes, and on the
ranking of its genes only. A pathway significant in neither (its smaller p-value above
``pval_threshold``) is explained by the main one, its parent. Korotkevich et al.'s procedure,
as fgsea 1.31 runs it (sets of at least one gene, at most all but one gene of the ranking).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._enrichment.inputs import read_paths
from .._labels import as_labelled
from .._random.streams import as_seed, fresh_seed
from .._validation import as_int
from .api import gsea_prerank
from .result import PrerankResult
from .validate import _ranking

__all__ = ["collapse_pathways", "CollapsedPathways"]


@dataclass(frozen=True, eq=False)
class CollapsedPathways:
    """Result of :func:`collapse_pathways`.

    main
        The main (independent) pathways, in the result's order.
    parent
        For every pathway, the main pathway that explains it (None for a main pathway), in
        the result's order: fgsea's ``parentPathways``.
    """

    main: list
    parent: pd.Series

    def to_frame(self) -> pd.DataFrame:
        """One row per pathway: ``pathway``, ``parent`` (None for main pathways), ``main``."""
        return pd.DataFrame({"pathway": list(self.parent.index),
                             "parent": list(self.parent.to_numpy()),
                             "main": [p is None for p in self.parent.to_numpy()]})


def collapse_pathways(result, gene_sets, ranking=None, *, pval_threshold: float = 0.05,
                      n_resamples: int | None = None, weight: float = 1.0,
                      case_sensitive: bool = True, seed=None, dtype=None,
                      device=None, client=None) -> CollapsedPathways:
    """The independent pathways among ``result``'s: fgsea's ``collapsePathways``.

    Parameters
    ----------
    result : PrerankResult or DataFrame
        The pathways to collapse, most significant first (fgsea's advice: the significant
        ones ordered by p-value), with their ES: a :func:`gsea_prerank` result (its table's
        order) or a table with ``ES`` and the pathway names as index or ``pathway`` column.
    gene_sets : dict or path
        {name: genes} or a GMT file; must hold every pathway of ``result``.
    ranking : Series, DataFrame, dict or path, optional
        The statistics (as :func:`gsea_prerank` takes them); default ``result.ranking``.
    pval_threshold : float, optional
        A pathway whose conditional p-values are both above this is explained.
    n_resamples : int, optional
        Gene-set permutations of each conditional test (default ``10 / pval_threshold``, as
        fgsea's ``nperm``).
    weight : float, optional
        ES weight (fgsea's ``gseaParam``).
    case_sensitive : bool, optional
        Match gene names exactly.
    seed : int or sequence of 6 ints, optional
        The same seed gives the same answer on every device.
    dtype : numpy dtype, optional
        float64 (default where the device has it) or float32.
    device : int, str or list, optional
        The device, or several to share the work.
    client : dask.distributed.Client, optional
        Run the conditional tests as tasks on a Dask cluster.

    Returns
    -------
    CollapsedPathways
        ``main`` and ``parent`` (fgsea's ``mainPathways`` and ``parentPathways``).

    See Also
    --------
    gsea_prerank : the test the conditional tests repeat, one-tailed.

    Notes
    -----
    Each conditional test uses fresh streams of the seed (one derived seed per test), so the
    same seed gives the same main pathways on every device. As in fgsea, the answer is a
    heuristic of the pathways' order: give the most significant first.

    References
    ----------
    .. [1] Korotkevich, G. et al. (2021). Fast gene set enrichment analysis. bioRxiv
           060012 (fgsea and its collapsePathways).

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(1)
    >>> stat = pd.Series(rng.normal(size=1000), index=[f"G{i}" for i in range(1000)])
    >>> stat.iloc[:40] += 3.0
    >>> sets = {"top": [f"G{i}" for i in range(40)], "inside": [f"G{i}" for i in range(25)],
    ...         "other": [f"G{i}" for i in range(500, 530)]}
    >>> res = oclstat.gsea_prerank(stat, sets, min_size=5, seed=1)
    >>> oclstat.collapse_pathways(res, sets, seed=1).parent["inside"]
    'top'
    """
    threshold = _threshold(pval_threshold)
    n_resamples = (int(round(10 / threshold)) if n_resamples is None
                   else as_int(n_resamples, "n_resamples", minimum=1))
    es = _result_es(result)
    if ranking is None:
        if not isinstance(result, PrerankResult):
            raise ValueError("ranking is needed when result is a table")
        ranking = result.ranking
    _, _, gene_sets, ranking = read_paths(gene_sets=gene_sets, ranking=ranking)
    stats, names = _ranking(as_labelled(ranking, "ranking"))
    stat = pd.Series(stats, index=names)
    if not isinstance(gene_sets, dict):
        raise TypeError("gene_sets must be a dict {name: genes} or a GMT path")
    missing = [p for p in es.index if p not in gene_sets]
    if missing:
        raise ValueError(f"gene_sets lacks {len(missing)} pathways of result (first: "
                         f"{missing[0]!r})")
    fold = (lambda s: s) if case_sensitive else (lambda s: s.upper())
    universe = {fold(g): g for g in names}
    sets = {p: [universe[fold(str(g))] for g in dict.fromkeys(gene_sets[p])
                if fold(str(g)) in universe] for p in es.index}
    words = np.random.SeedSequence(
        list(fresh_seed() if seed is None else as_seed(seed))).generate_state(4 * len(sets) + 4)
    parent: dict = dict.fromkeys(es.index)
    step = 0
    for p in es.index:
        if parent[p] is not None:
            continue
        check = [q for q in es.index if parent[q] is None and q != p]
        if not check:
            break
        inside = set(sets[p])
        outside = [g for g in names if g not in inside]
        min_p = dict.fromkeys(check, 1.0)
        for genes in (outside, sets[p]):
            for score_type, side in (("pos", es[check] >= 0), ("neg", es[check] < 0)):
                tested = [q for q, s in zip(check, side, strict=True) if s]
                pvals = _conditional(stat.loc[genes], {q: sets[q] for q in tested},
                                     score_type, n_resamples, weight, int(words[step]), dtype,
                                     device, client)
                step += 1
                for q, pv in pvals.items():
                    min_p[q] = min(min_p[q], pv)
        for q in check:
            if min_p[q] > threshold:
                parent[q] = p
    main = [p for p in es.index if parent[p] is None]
    return CollapsedPathways(main, pd.Series([parent[p] for p in es.index], index=es.index,
                                             dtype=object, name="parent"))


def _conditional(stat: pd.Series, sets: dict, score_type: str, n_resamples: int,
                 weight: float, seed: int, dtype, device, client) -> dict:
    """One-tailed simple p-values of ``sets`` on the ranking ``stat`` (fgseaSimple with
    sizes 1 to all but one gene); sets without genes there, or with all of them, are left
    out as fgsea leaves them out."""
    genes = set(stat.index)
    sets = {q: g for q, g in sets.items() if 1 <= len(genes.intersection(g)) < len(stat)}
    if not sets or len(stat) < 3:
        return {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # ties and one-sided nulls
        res = gsea_prerank(stat, sets, n_resamples=n_resamples, method="simple",
                           score_type=score_type, min_size=1, max_size=len(stat) - 1,
                           seed=seed, dtype=dtype, device=device, client=client)
    return {q: float(v) for q, v in res.table["pval"].items() if np.isfinite(v)}


def _threshold(value) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"pval_threshold must be a number, got {value!r}") from None
    if not 0 < value < 1:
        raise ValueError(f"pval_threshold must be in (0, 1), got {value}")
    return value


def _result_es(result) -> pd.Series:
    """The ES of ``result``'s pathways, in its order."""
    table = result.table if isinstance(result, PrerankResult) else result
    if not isinstance(table, pd.DataFrame):
        raise TypeError("result must be a gsea_prerank result or a table with an ES column, "
                        f"got {type(result).__name__}")
    if "pathway" in table.columns:
        table = table.set_index("pathway")
    if "ES" not in table.columns:
        raise ValueError("result: the table needs an ES column")
    es = pd.Series(table["ES"].to_numpy(dtype=np.float64),
                   index=[str(p) for p in table.index])
    if es.index.has_duplicates:
        raise ValueError("result names a pathway twice")
    if es.isna().any():
        raise ValueError("result has pathways without an ES")
    return es
