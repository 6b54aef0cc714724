"""UCell scores (Andreatta and Carmona 2021): each signature's Mann-Whitney U statistic among
a cell's top-ranked genes, as UCell's ``ScoreSignatures_UCell``.

In one cell the genes are ranked by decreasing expression (equal values share their average
rank, data.table's ``frankv(ties.method = "average")``), ranks past ``max_rank`` count as
``max_rank``, and a signature of L genes with rank sum R scores
1 - (R - L(L + 1)/2) / (L max_rank - L(L + 1)/2): 1 when its genes are the cell's top L,
0 when none is among the top ``max_rank``. Members named with a trailing ``-`` form a
negative signature whose score, times ``w_neg``, is subtracted (the difference clipped at
0); a trailing ``+`` is dropped. A member the data lacks counts at rank ``max_rank``
(``missing_genes="impute"``, UCell's default) or is left out (``"skip"``).

A block of cells is ranked at a time; a sparse block from its non-zero values alone
(:func:`~.core.sparse_positions`), never made dense.
"""

from __future__ import annotations

import numpy as np

from .._readers.gmx import as_gene_sets
from .._validation import as_finite, as_int
from .api import AnnDataOutput, _device_cells, _frame, _score_blocks
from .cell_ranks import CELLS_PER_LAUNCH, DeviceCells
from .core import _is_sparse, ranking, sparse_positions
from .validate import expression as read_expression

__all__ = ["ucell"]


def ucell(expression, gene_sets, *, max_rank: int = 1500, w_neg: float = 1.0,
          missing_genes: str = "impute", genes=None, samples=None, layer=None,
          progress=None, device=None, inplace: bool = True, copy: bool = False):
    """UCell scores of every signature in every cell, as UCell's ``ScoreSignatures_UCell``.

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x cells (an AnnData is cells x genes).
    gene_sets : dict, path or DataFrame
        Signatures {name: genes}, a GMT file or a decoupler net (``source``, ``target``);
        a gene named with a trailing ``-`` belongs to the signature's negative part, a
        trailing ``+`` is dropped.
    max_rank : int, default 1500
        Ranks past it count as it (UCell's ``maxRank``; at most the number of genes: a larger
        value is lowered to it, as UCell does). No signature may have more members.
    w_neg : float, default 1
        The weight of the negative part (UCell's ``w_neg``, >= 0).
    missing_genes : {"impute", "skip"}, default "impute"
        Members the data lacks count at rank ``max_rank``, or are left out.
    genes, samples, layer, progress, device : optional
        As :func:`oclstat.ssgsea`.
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    DataFrame
        Signatures x cells, in [0, 1]; with an AnnData also stored in
        ``.obsm["score_ucell"]`` (cells x signatures).
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    aucell : the area under the recovery curve of the top-ranked genes.

    Notes
    -----
    A member listed twice counts once. A signature whose members are all missing under
    ``"skip"`` scores 0, as in UCell. What was read from the names is kept with the scores:
    ``attrs["negative_members"]`` (per signature, the genes read as negative, their ``-``
    removed) and ``attrs["absent_members"]`` (per signature, the members not in the data).

    References
    ----------
    .. [1] Andreatta, M. and Carmona, S. J. (2021). UCell: robust and scalable single-cell gene
           signature scoring. Computational and Structural Biotechnology Journal 19,
           3796-3798.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(3)
    >>> x = pd.DataFrame(rng.poisson(1.0, size=(400, 4)), index=[f"g{i}" for i in range(400)])
    >>> x.iloc[:10, 0] += 30
    >>> s = oclstat.ucell(x, {"up": [f"g{i}" for i in range(10)]}, max_rank=100)
    >>> round(float(s.loc["up", "0"]), 3), bool(s.loc["up", "3"] < 0.6)
    (1.0, True)
    """
    output = AnnDataOutput(expression, inplace, copy)
    sets = as_gene_sets(gene_sets)
    if not isinstance(sets, dict) or not sets:
        raise TypeError("gene_sets must be a non-empty dict {name: genes}, a GMT path or a "
                        "decoupler net (source, target)")
    if missing_genes not in ("impute", "skip"):
        raise ValueError(f"missing_genes must be 'impute' or 'skip', got {missing_genes!r}")
    w_neg = as_finite(w_neg, "w_neg", nonnegative=True)
    m, g, s, sparse = read_expression(expression, genes, samples, layer)
    n = m.shape[0]
    k = min(as_int(max_rank, "max_rank", minimum=1), n)
    index = {name: i for i, name in enumerate(g)}
    names, parts, negatives, missing = [], [], {}, {}
    for name, members in sets.items():
        if isinstance(members, str) or not hasattr(members, "__iter__"):
            raise TypeError(f"gene set {name!r} must be a list of gene names")
        members = [str(x) for x in members]
        if len(members) > k:
            raise ValueError(f"signature {name!r} has {len(members)} genes, more than "
                             f"max_rank={k}; raise max_rank or shorten the signature")
        negative = list(dict.fromkeys(x[:-1] for x in members if x.endswith("-")))
        positive = list(dict.fromkeys(x.removesuffix("+") for x in members
                                      if not x.endswith("-")))
        names.append(str(name))
        parts.append((_members(positive, index, missing_genes),
                      _members(negative, index, missing_genes)))
        if negative:
            negatives[str(name)] = negative
        absent = [x for x in positive + negative if x not in index]
        if absent:
            missing[str(name)] = absent

    flat = [rows for part in parts for rows, _ in part]     # positive, negative, ...
    cells = _device_cells(device, sparse, flat, n, "ucell")

    def score(block, j0, j1):
        if cells is not None and DeviceCells.usable(cells.rt, block):
            sums = cells.capped_ranks(block, k)
            return ucell_scores(lambda i, sign: sums[2 * i + sign], parts, k, w_neg,
                                block.shape[1])
        return ucell_block(block, parts, k, w_neg)

    out = _score_blocks(m, sparse, len(names), score, desc="ucell", progress=progress,
                        size=None if cells is None else CELLS_PER_LAUNCH)
    frame = _frame(out, names, s, "ucell", {"max_rank": k, "w_neg": w_neg,
                                            "missing_genes": missing_genes,
                                            "negative_members": negatives,
                                            "absent_members": missing})
    return output.give(frame, {"score": frame}, "ucell")


def _members(genes: list, index: dict, missing_genes: str) -> tuple[np.ndarray, int]:
    """(rows of the genes the data has, how many it lacks that count: 0 under "skip")."""
    rows = np.array([index[x] for x in genes if x in index], dtype=np.int64)
    missing = 0 if missing_genes == "skip" else len(genes) - rows.size
    return rows, missing


def ucell_block(x, parts: list, max_rank: int, w_neg: float) -> np.ndarray:
    """UCell scores (signatures x cells) of a genes x cells block; ``parts[s]`` the positive
    and negative members of signature s, each (rows, missing count)."""
    n = x.shape[0]
    ascending = sparse_positions(x)[1] if _is_sparse(x) else ranking(np.asarray(x))[1]
    clipped = np.minimum(n + 1.0 - ascending, float(max_rank))    # decreasing, capped
    return ucell_scores(lambda i, sign: clipped[parts[i][sign][0]].sum(axis=0), parts,
                        max_rank, w_neg, x.shape[1])


def ucell_scores(summed, parts: list, max_rank: int, w_neg: float, n_cells: int) -> np.ndarray:
    """UCell scores from ``summed(s, sign)``: the capped ranks of signature s's positive
    (sign 0) or negative (sign 1) members summed in each cell."""
    def u(i, sign):
        rows, missing = parts[i][sign]
        length = rows.size + missing
        if length == 0:
            return np.zeros(n_cells)
        least = length * (length + 1) / 2.0
        total = summed(i, sign) + missing * float(max_rank)
        return 1.0 - (total - least) / (length * float(max_rank) - least)

    out = np.empty((len(parts), n_cells))
    for i in range(len(parts)):
        out[i] = np.maximum(u(i, 0) - w_neg * u(i, 1), 0.0)
    return out
