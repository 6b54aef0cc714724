"""The public function of preranked GSEA."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._enrichment.gene_sets import match_gene_sets
from .._enrichment.inputs import probes_to_genes, read_paths, weight_and_sizes
from .._enrichment.walks import balanced_extremes
from .._labels import as_labelled
from .._multitest import benjamini_hochberg
from .._random.streams import as_seed, fresh_seed
from .._readers.inference import input_of
from .._scale import executor
from .._validation import as_float_dtype, as_int
from . import tasks
from .core import Ranking, SetMembers, null_statistics
from .multilevel import multilevel_error, simple_decision_error, simple_error
from .result import PrerankResult
from .validate import _eps, _method, _ranking, _score_type


def gsea_prerank(
    ranking,
    gene_sets,
    *,
    n_resamples: int = 1000,
    method: str = "multilevel",
    weight: float = 1.0,
    min_size: int = 15,
    max_size: int = 500,
    eps: float = 1e-50,
    sample_size: int = 101,
    score_type: str = "std",
    case_sensitive: bool = True,
    chip=None,
    collapse: str = "Collapse",
    collapse_mode: str | None = None,
    seed=None,
    dtype=None,
    device=None,
    client=None,
    progress=None,
) -> PrerankResult | dict:
    """Preranked gene set enrichment analysis with gene-set permutations on the device, as
    fgsea computes it.

    Parameters
    ----------
    ranking : Series, DataFrame, dict or path
        One statistic per gene (a Series indexed by gene, a two-column table gene/statistic,
        a dict, or an ``.rnk`` file); genes are ranked by decreasing statistic. A DataFrame
        of several numeric columns indexed by gene is several rankings (contrasts, cell
        types), run together: each random gene set is drawn once and scored on every
        ranking, and each column's result equals a run on that column alone with the same
        seed.
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    n_resamples : int, optional
        Random gene sets per set size (fgsea's ``nperm``/``nPermSimple``). With
        ``method="multilevel"`` they give NES and the p-values that simple sampling resolves.
    method : {"multilevel", "simple"}, optional
        "simple": p-values from ``n_resamples`` random sets only (at best 1/(n+1));
        "multilevel": the sets whose p-value simple sampling cannot resolve get adaptive
        multilevel splitting (fgseaMultilevel), with p-values down to ``eps``.
    weight : float, optional
        ES weight p (``|stat|^p``; fgsea's ``gseaParam``).
    min_size, max_size : int, optional
        Sets with fewer or more genes of the ranking are left out.
    eps : float, optional
        Lower bound of the multilevel p-values (0: none); smaller p-values are reported as
        ``eps`` with log2err NaN, as fgsea does.
    sample_size : int, optional
        Chains per set size in multilevel splitting (fgsea's ``sampleSize``; made odd).
    score_type : {"std", "pos", "neg"}, optional
        fgsea's ``scoreType``: "std" the two-sided ES (the larger deviation of the running
        sum); "pos" its maximum and "neg" its minimum, for one-tailed tests (sets expected
        only at the top, or only at the bottom, of the ranking; fgsea's answer to "statistics
        of one sign"). The null ES and p-values are then one-sided.
    case_sensitive : bool, optional
        Match gene names exactly (False: ignore case).
    chip : dict or path, optional
        Probe -> gene symbol (a CHIP file): the ranking's names are probes, collapsed to genes
        first as Broad's GSEAPreranked does (:func:`oclstat.io.collapse_probes`).
    collapse : str, optional
        Broad's ``Collapse`` (default), ``Remap_Only`` or ``No_Collapse``.
    collapse_mode : str, optional
        Broad's ``Max_probe`` (the default when collapsing), ``Median_of_probes``,
        ``Mean_of_probes``, ``Sum_of_probes`` or ``Abs_max_of_probes``; without ``chip``,
        entries that share a name are collapsed with it.
    seed : int or sequence of 6 ints, optional
        Seed of the MRG31k3p streams; the same seed gives the same result on every device.
    dtype : numpy dtype, optional
        float64 (default where the device has it) or float32.
    device : int, str or list, optional
        The device, or several to share the work.
    client : dask.distributed.Client, optional
        Run as tasks on a Dask cluster.
    progress : bool, optional
        Show progress bars.

    Returns
    -------
    PrerankResult or dict
        ``table`` in fgsea's columns (pathway, pval, padj, log2err, ES, NES, size,
        leadingEdge), sorted by p-value; ``to_frame()`` gives it with a pathway column. For
        a table of rankings, a dict {column: PrerankResult}.

    See Also
    --------
    gsea : phenotype permutations from an expression matrix.
    oclstat.io.read_rnk : the ranked-list reader.

    Notes
    -----
    The ES is Subramanian et al.'s weighted running sum. The null of a set of size k is the ES
    of random sets of k genes of the ranking: each random draw sequence (one MRG31k3p stream
    per permutation) gives, by its prefixes, one random set of every needed size, so sets of
    equal size share their null (fgsea's scheme). NES is ES over the mean null ES of its sign;
    p is ``(k + 1) / (n + 1)`` over the null ES of the set's sign; padj is Benjamini-Hochberg.
    With ``method="multilevel"``, a set gets multilevel splitting when its simple p-value
    would be less accurate than splitting's (fgsea's rule, comparing the two ``log2err``);
    ``log2err`` is the expected standard deviation of ``log2(p)``. Genes with equal
    statistics keep their input order (a warning gives their share). Weights are exact
    integers, so scores, counts and p-values are identical on every OpenCL device.

    **Ties of the extremes.** When the running sum's largest positive and largest negative
    deviations are exactly equal (possible with the exact integer weights), the ES is 0, its
    NES 0, its p-value 1 and its leading edge empty: fgsea's rule (``calcGseaStat``).
    GSEApy keeps the negative extreme instead (``np.where(|max| > |min|, max, min)``), as
    :func:`gsea` (GSEApy's and Broad's phenotype-permutation test) does. The null ES keep
    fgsea's rule for random sets (the first extreme reached), as fgsea's do.

    References
    ----------
    .. [1] Subramanian, A. et al. (2005). Gene set enrichment analysis. PNAS 102(43),
           15545-15550.
    .. [2] Korotkevich, G. et al. (2021). Fast gene set enrichment analysis. bioRxiv
           060012 (fgsea and its multilevel method).

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(1)
    >>> stat = pd.Series(rng.normal(size=2000), index=[f"G{i}" for i in range(2000)])
    >>> stat.iloc[:40] += 3.0
    >>> res = oclstat.gsea_prerank(stat, {"up": [f"G{i}" for i in range(40)],
    ...                                   "any": [f"G{i}" for i in range(500, 560)]},
    ...                            n_resamples=1000, seed=1)
    >>> res.table.index[0], bool(res.table.loc["up", "pval"] < 1e-10)
    ('up', True)
    """
    method = _method(method)
    score_type = _score_type(score_type)
    eps = _eps(eps)
    weight, n_resamples, min_size, max_size = weight_and_sizes(weight, n_resamples, min_size,
                                                                max_size)
    sample_size = as_int(sample_size, "sample_size", minimum=3)
    sample_size += 1 - sample_size % 2
    ranking = probes_to_genes(ranking, chip, collapse, collapse_mode, "ranking")
    _, _, gene_sets, ranking = read_paths(gene_sets=gene_sets, ranking=ranking)
    columns, stat_list, names = _rankings(as_labelled(ranking, "ranking"))
    ranks = [Ranking.from_stats(stats, names, weight=weight) for stats in stat_list]
    words = fresh_seed() if seed is None else as_seed(seed)
    # the genes are the same in every ranking: the sets are matched once, then placed in
    # each ranking's order
    matched = match_gene_sets(gene_sets, names, min_size, max_size,
                              case_sensitive=case_sensitive, what="ranking")
    sets, n_filtered = matched.by_name(), matched.n_left_out
    layout = SetMembers(sets)
    set_names = layout.names
    placed = [layout.positions(rank.inverse) for rank in ranks]
    positions_of = [p for _, p in placed]
    sizes = np.unique(layout.sizes)
    size_index = np.searchsorted(sizes, layout.sizes)
    members = {s: [names[g] for g in sets[s]] for s in set_names}

    outcomes = []
    with executor(device, client, "gsea") as ex:
        rt = None if ex.several else ex.runtime
        dtype = as_float_dtype(dtype) if dtype is not None else (
            rt.default_real() if rt is not None else np.dtype(np.float64))
        label = rt.info.label if rt is not None else f"tasks on {type(ex.client).__name__}"
        weights = np.vstack([r.weights for r in ranks])
        walks = tasks.observed(ex, weights, sizes, positions_of, dtype=dtype,
                               score_type=score_type)
        scores = walks.score(score_type)
        observed = []
        for q, rank in enumerate(ranks):
            # fgsea's rule: equally high positive and negative extremes give ES = 0 (the
            # null's ES keep fgsea's first-extreme rule); one-sided scores have no such tie
            balanced = _balanced(walks, q, rank, positions_of[q], score_type)
            observed.append((np.where(balanced, 0.0, scores[q]), balanced))
        all_counts = tasks.simple_null_many(
            ex, weights, sizes, positions_of, [es for es, _ in observed], words=words,
            n_resamples=n_resamples, dtype=dtype, score_type=score_type, progress=progress)
        pending = []
        for positions, (es_obs, _), counts in zip(positions_of, observed, all_counts,
                                                  strict=True):
            summary = null_statistics(counts, es_obs, size_index, score_type)
            pval, nes = summary.pval.copy(), summary.nes.copy()
            log2err = simple_error(summary.n_more, n_resamples)
            ml = np.zeros(len(set_names), dtype=bool)
            if method == "multilevel":
                unbalanced = summary.mode < 10
                pval[unbalanced] = nes[unbalanced] = log2err[unbalanced] = np.nan
                ml = _needs_multilevel(summary, n_resamples, sample_size) & ~unbalanced
            outcomes.append((pval, nes, log2err, ml, summary.n_more))
            pending.append(_MultilevelGroups(positions, es_obs, summary, ml, n_resamples,
                                             eps, score_type))
        # the multilevel groups of every ranking climb together (one launch per level)
        rulers = tasks.multilevel_many(ex, weights, [p.groups for p in pending],
                                       sample_size=sample_size, words=words,
                                       first=n_resamples, dtype=dtype,
                                       score_type=score_type, progress=progress)
        for q, (group, found) in enumerate(zip(pending, rulers, strict=True)):
            pval, nes, log2err, ml, n_more = outcomes[q]
            if ml.any():
                pval, log2err = group.pvalues(found, pval, log2err, sample_size, eps)
            outcomes[q] = (pval, nes, log2err, ml, n_more)
    results = {}
    info = input_of(ranking, gene_sets)
    for q, (column, rank, (es_obs, balanced), (pval, nes, log2err, ml, n_more)) in enumerate(zip(
            columns, ranks, observed, outcomes, strict=True)):
        unbalanced = np.isnan(pval)
        if unbalanced.any():
            where = "" if column is None else f"ranking {column!r}: "
            warnings.warn(f"{where}{int(unbalanced.sum())} gene sets have (almost) no null ES "
                          "of their sign (the statistics are nearly all of one sign): their "
                          "p-values and NES are NaN, as fgsea's; more resamples may help",
                          UserWarning, stacklevel=2)
        table = _table(rank, set_names, placed[q], walks, q, es_obs, nes, pval, log2err,
                       balanced, score_type, n_more)
        results[column] = PrerankResult(
            table=table,
            ranking=pd.Series(rank.stats, index=pd.Index(rank.names, name="gene"),
                              name=column),
            gene_sets=members,
            method=method, weight=weight, n_resamples=n_resamples, sample_size=sample_size,
            eps=eps, n_filtered=n_filtered, n_multilevel=int(ml.sum()), device=label,
            input=info, score_type=score_type,
        )
    return results[None] if None in results else results


def _balanced(walks, q, rank, positions, score_type) -> np.ndarray:
    """Which sets of ranking q have equally high positive and negative extremes (fgsea's ES
    = 0), decided exactly (:func:`balanced_extremes`) where the device's extremes are
    close."""
    out = np.zeros(len(positions), dtype=bool)
    if score_type != "std":
        return out
    mx, mn = walks.mx[q], walks.mn[q]
    near = np.abs(mx + mn) <= 1e-6 * np.maximum(1.0, np.abs(mx))
    n = len(rank.names)
    for i in np.flatnonzero(near):
        out[i] = balanced_extremes(rank.weights[positions[i]], positions[i], n)
    return out


def _rankings(ranking) -> tuple[list, list, list]:
    """``(columns, statistics, genes)``: one ranking (columns ``[None]``) or a table of
    rankings, one numeric column each, indexed by gene (GSEApy's several rankings at once)."""
    if (isinstance(ranking, pd.DataFrame) and ranking.shape[1] >= 2
            and all(ranking[c].dtype.kind in "iuf" for c in ranking.columns)):
        if isinstance(ranking.index, pd.RangeIndex):
            raise ValueError(f"ranking: {ranking.shape[1]} numeric columns and no gene index; "
                             "a table needs two columns (gene, statistic), or numeric columns "
                             "indexed by gene (several rankings)")
        columns = [str(c) for c in ranking.columns]
        if len(set(columns)) != len(columns):
            raise ValueError("ranking: a table of rankings names a column twice")
        values = ranking.to_numpy(dtype=np.float64)
        missing = np.isnan(values).sum(axis=0)
        if missing.any():
            c = int(np.flatnonzero(missing)[0])
            raise ValueError(f"ranking {columns[c]!r} has {int(missing[c])} missing statistics: "
                             "rankings run together must rank the same genes (run that column "
                             "on its own without them)")
        # the genes (names, duplicates) and the first column checked as one ranking; the
        # others for their values only
        _, names = _ranking(ranking.iloc[:, 0])
        bad = ~np.isfinite(values)
        if bad.any():
            g, c = (int(v[0]) for v in np.nonzero(bad))
            raise ValueError(f"ranking {columns[c]!r} has {int(bad[:, c].sum())} missing or "
                             f"infinite statistics (first: {names[g]!r}); remove those genes "
                             "first")
        return columns, [np.ascontiguousarray(values[:, c]) for c in range(values.shape[1])], \
            names
    stats, names = _ranking(ranking)
    return [None], [stats], names


def _needs_multilevel(summary, n_resamples, sample_size) -> np.ndarray:
    """fgsea's rule: splitting where its expected log2 error is below simple sampling's."""
    p_simple = (summary.n_more + 1.0) / (n_resamples + 1.0)
    return multilevel_error(p_simple, sample_size) < simple_decision_error(summary.n_more,
                                                                            n_resamples)


class _MultilevelGroups:
    """One ranking's multilevel groups (one per set size and sign of the sets in ``ml``: the
    largest |ES| of each as its target; each size's eps scaled by its smallest probability
    of the ES's sign from the simple null, fgsea's denomProb) and, from their rulers, the
    sets' p-values."""

    def __init__(self, positions, es_obs, summary, ml, n_resamples, eps, score_type):
        self.idx = np.flatnonzero(ml)
        self.es_obs = es_obs
        self.denom = (summary.mode + 1.0) / (n_resamples + 1.0)
        lower = es_obs < 0 if score_type == "std" else \
            np.full(es_obs.shape, score_type == "neg")
        self.key_of = {int(i): (int(positions[i].size), int(lower[i])) for i in self.idx}
        target: dict = {}
        eps_of: dict = {}
        for i in self.idx:
            key = self.key_of[int(i)]
            target[key] = max(target.get(key, 0.0), abs(float(es_obs[i])))
            eps_of[key[0]] = min(eps_of.get(key[0], 1.0), eps * float(self.denom[i]))
        self.keys = sorted(target)
        self.groups = [(k, d, target[(k, d)], eps_of[k]) for k, d in self.keys]

    def pvalues(self, rulers, pval, log2err, sample_size, eps):
        """The sets' multilevel p-values (divided by denomProb) and log2err, from the rulers
        of :attr:`groups`."""
        by_key = dict(zip(self.keys, rulers, strict=True))
        pval, log2err = pval.copy(), log2err.copy()
        for i in self.idx:
            p, reliable = by_key[self.key_of[int(i)]].pvalue(abs(float(self.es_obs[i])))
            pval[i] = min(1.0, p / float(self.denom[i]))
            log2err[i] = multilevel_error(pval[i], sample_size) if reliable else np.nan
            if pval[i] < eps:
                pval[i], log2err[i] = eps, np.nan
        return pval, log2err


def _table(rank, set_names, placed, walks, q, es_obs, nes, pval, log2err, balanced,
           score_type, n_more) -> pd.DataFrame:
    """fgsea's columns and Broad's leading-edge numbers of ranking q's sets (``placed``: the
    sets' ascending positions, flat and per set; ``walks``: where the running sums peak;
    ``n_more``: fgseaSimple's nMoreExtreme, the simple null's ES as extreme as each set's)."""
    flat, positions = placed
    n = len(rank.names)
    k = np.array([p.size for p in positions], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(k)[:-1]])
    es = walks.score(score_type)[q]
    top = np.full(k.size, score_type == "pos") if score_type != "std" else es >= 0
    if score_type == "neg":
        top[:] = False
    peak = np.where(top, walks.at_mx[q], walks.at_mn[q])
    at = flat[start + peak].astype(np.int64)
    # Broad's RANK AT MAX and leading-edge numbers (_enrichment/walks.py, leading_edge_stats)
    rank_at = np.where(top, at, np.maximum(0, at - 1))
    tags = np.where(top, peak + 1, k - peak) / k
    frac = np.where(top, rank_at + 1, n - rank_at) / n
    signal = np.where(n > k, tags * (1.0 - frac) * n / np.maximum(n - k, 1), 0.0)
    names = np.asarray(rank.names, dtype=object)
    leading = []
    for i, pos in enumerate(positions):
        if balanced[i]:                 # ES = 0: no leading edge (fgsea's empty one)
            leading.append([])
        else:
            leading.append(names[pos[: peak[i] + 1] if top[i] else pos[peak[i]:][::-1]]
                           .tolist())
    edge = np.stack([rank_at, tags, frac, signal], axis=1)
    edge[balanced] = 0.0
    table = pd.DataFrame(
        {
            "pval": pval,
            "padj": benjamini_hochberg(pval),
            "log2err": log2err,
            "ES": es_obs,
            "NES": nes,
            "size": k,
            "leadingEdge": leading,
            "nMoreExtreme": np.asarray(n_more, dtype=np.int64),
            "rank_at_max": edge[:, 0].astype(np.int64),
            "leading_edge_tags": edge[:, 1],
            "leading_edge_list": edge[:, 2],
            "leading_edge_signal": edge[:, 3],
        },
        index=pd.Index(set_names, name="pathway"),
    )
    order = np.lexsort((np.arange(len(table)), -np.abs(table["NES"].to_numpy()),
                        table["pval"].to_numpy()))
    return table.iloc[order]
