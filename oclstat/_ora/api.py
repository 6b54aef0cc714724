"""The public function of over-representation analysis: :func:`ora`."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._multitest import benjamini_hochberg
from .._scale import executor
from .opencl import overlaps
from .result import FORA_COLUMNS, OraResult
from .stats import upper_tail
from .validate import gene_lists, sets_in_universe, universe_names


def ora(genes, gene_sets, universe, *, min_size: int = 1, max_size=None,
        overlap_genes: bool = True, device=None) -> OraResult:
    """Over-representation of gene sets in gene lists: the one-sided hypergeometric test of
    fgsea's ``fora`` (GSEApy's ``enrich``, decoupler's ``ora``), for one list or many at once.

    Parameters
    ----------
    genes : list of str, or dict
        The genes of interest (say, the differentially expressed ones), or several such lists
        as {name: genes}: every list is tested against every set in one pass on the device.
        Genes outside the universe are dropped with fgsea's warning.
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used); each set is taken within the universe.
    universe : list of str
        Every gene the lists were drawn from (e.g. every gene measured), each once.
    min_size, max_size : int, optional
        Sets with fewer or more genes in the universe are left out (fgsea's ``minSize`` and
        ``maxSize``; default 1 and one less than the universe).
    overlap_genes : bool, optional
        Fill ``overlapGenes`` (the genes of the list in the set); False leaves empty lists,
        for many lists x many sets.
    device : str, int, Runtime, optional
        The OpenCL device that counts the overlaps (default: the best present).

    Returns
    -------
    OraResult
        ``.table`` in fgsea's columns (``pathway``, ``pval``, ``padj``, ``foldEnrichment``,
        ``overlap``, ``size``, ``overlapGenes``), by p-value; with several lists indexed by
        ``(list, pathway)``, padj over the sets of each list.

    See Also
    --------
    gsea_prerank : enrichment in a ranking instead of a list.

    Notes
    -----
    With N genes in the universe, K of them in the set and k in the list, the overlap q is
    hypergeometric under the null of a list drawn at random from the universe; the p-value is
    P(X >= q) (R's ``phyper(q - 1, K, N - K, k, lower.tail = FALSE)``, fgsea's rule) and the
    fold enrichment (q / k) / (K / N). The overlaps are AND + popcount counts of bit vectors
    over the universe, exact on every device.

    References
    ----------
    .. [1] Korotkevich, G. et al. (2021). Fast gene set enrichment analysis. bioRxiv
       060012 (fgsea's ``fora``).

    Examples
    --------
    >>> import oclstat
    >>> universe = [f"g{i}" for i in range(100)]
    >>> sets = {"first20": universe[:20], "last30": universe[70:]}
    >>> res = oclstat.ora(universe[:10] + ["g90"], sets, universe)
    >>> res.table["overlap"].to_dict()
    {'first20': 10, 'last30': 1}
    >>> print(f"{res.table['pval'].iloc[0]:.6g}")      # P(X >= 10 | N 100, K 20, k 11)
    1.05546e-07
    """
    names = universe_names(universe)
    index = {g: i for i, g in enumerate(names)}
    list_names, rows, several = gene_lists(genes, index)
    kept, n_filtered = sets_in_universe(gene_sets, names, min_size, max_size)
    set_names = list(kept)
    members = np.zeros((len(kept), len(names)), dtype=bool)
    for i, idx in enumerate(kept.values()):
        members[i, idx] = True
    rt = executor(device, several=False).runtime
    q = overlaps(rt, rows, members)                             # lists x sets
    n = len(names)
    size = members.sum(axis=1)                                  # K per set
    k = rows.sum(axis=1)                                        # per list
    pval = upper_tail(q, n, size[None, :], k[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        fold = (q / k[:, None]) / (size[None, :] / n)
    universe_arr = np.asarray(names, dtype=object)
    frames = []
    for i, name in enumerate(list_names):
        found = [list(universe_arr[idx[rows[i, idx]]]) if overlap_genes else []
                 for idx in kept.values()]
        part = pd.DataFrame({"pathway": set_names, "pval": pval[i],
                             "padj": benjamini_hochberg(pval[i]), "foldEnrichment": fold[i],
                             "overlap": q[i], "size": size, "overlapGenes": found})
        part = part.iloc[np.argsort(part["pval"].to_numpy(), kind="stable")]
        if several:
            part.insert(0, "list", name)
        frames.append(part)
    table = pd.concat(frames, ignore_index=True)
    table = table.set_index(["list", "pathway"] if several else "pathway")
    table = table[list(FORA_COLUMNS[1:])]
    return OraResult(table=table, list_sizes=pd.Series(k, index=list_names, name="size"),
                     universe_size=n, n_filtered=n_filtered, device=rt.info.label,
                     gene_sets={s: list(universe_arr[idx]) for s, idx in kept.items()})
