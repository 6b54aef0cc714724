"""The univariate linear model (ULM, decoupler's default method) of every gene set in every
sample: the t-value of the slope of the sample's expression regressed on the set's weights
over all genes.

In one sample, with y the expression of the n genes and x a set's weights (its members'
weights, 0 for every other gene), the slope's t-value is t = r sqrt(df / ((1 - r)(1 + r)))
with r the Pearson correlation of x and y and df = n - 2 (decoupler adds 2.2e-16 to each
bracket, so a perfect fit gives a large finite t, and so does this module); its two-sided
p-value is 2 P(T_df > |t|), adjusted by Benjamini-Hochberg over the sets of each sample.

The sums are those of a matrix product of the weights with the expression, a block of
samples at a time: a sparse expression is multiplied as it is (never made dense), its
genes' sums of squares read from its non-zero values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._multitest import benjamini_hochberg
from .._readers.gmx import as_weighted_gene_sets
from .._results import Result
from .._validation import as_int
from .api import AnnDataOutput, _blocks
from .validate import expression as read_expression
from .validate import nonzero_per_gene

__all__ = ["UlmResult", "ulm"]

#: What decoupler adds to 1 - r and 1 + r in the t-value.
_TINY = 2.2e-16

#: Samples multiplied with the weights at once: one matrix product each (memory: 8 bytes x
#: sets per sample for the result, the block's own values for a dense block).
CELLS_PER_PRODUCT = 8192


@dataclass(frozen=True, repr=False)
class UlmResult(Result):
    """The t-values (``scores``), their two-sided p-values (``pvalues``) and the p-values
    adjusted over the sets of each sample (``padj``), each sets x samples; ``n_genes``, the
    genes the models were fitted over (those expressed in some sample); ``left_out``, the
    genes expressed in no sample, left out as decoupler leaves them out."""

    scores: pd.DataFrame
    pvalues: pd.DataFrame
    padj: pd.DataFrame
    n_genes: int
    left_out: tuple = ()

    def __repr__(self) -> str:
        s, c = self.scores.shape
        dropped = f"; {len(self.left_out)} expressed nowhere left out" if self.left_out else ""
        return (f"UlmResult({s} gene sets x {c} samples, fitted over {self.n_genes} "
                f"genes{dropped})")


def ulm(expression, gene_sets, *, min_size: int = 5, genes=None, samples=None,
        layer=None, inplace: bool = True, copy: bool = False) -> UlmResult:
    """Univariate linear model scores of every gene set in every sample, as decoupler's
    ``ulm``.

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x samples (an AnnData is cells x genes).
    gene_sets : DataFrame, dict or path
        A decoupler net (``source``, ``target`` and, optionally, ``weight`` columns: a net
        without weights weighs every member 1, as decoupler), ``{name: genes}`` (weights 1)
        or a GMT file.
    min_size : int, default 5
        Sets with fewer members among the expressed genes are left out (decoupler's
        ``tmin``).
    genes, samples, layer : optional
        As :func:`oclstat.ssgsea`.
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    UlmResult
        ``scores``, ``pvalues`` and ``padj`` (sets x samples). With an AnnData the scores
        and adjusted p-values are also stored as decoupler stores them, in
        ``.obsm["score_ulm"]`` and ``.obsm["padj_ulm"]`` (cells x sets).
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    zscore, ssgsea : unweighted single-sample scores.

    Notes
    -----
    As decoupler: genes with no non-zero value in any sample are left out before the sets
    are counted and the models fitted (its ``empty=True``); a set's weights for genes the
    data lacks are dropped. A sample whose values are all equal has no fit: its scores are
    NaN (decoupler drops such samples). The sets keep their order of first appearance
    (decoupler sorts them by name).

    References
    ----------
    .. [1] Badia-i-Mompel, P. et al. (2022). decoupleR: ensemble of computational methods
           to infer biological activities from omics data. Bioinformatics Advances 2,
           vbac016.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(0)
    >>> x = pd.DataFrame(rng.normal(size=(40, 3)), index=[f"g{i}" for i in range(40)])
    >>> x.iloc[:8, 0] += 3.0
    >>> net = pd.DataFrame({"source": "T", "target": [f"g{i}" for i in range(8)]})
    >>> res = oclstat.ulm(x, net)
    >>> bool(res.scores.loc["T", "0"] > 5), bool(res.padj.loc["T", "0"] < 1e-4)
    (True, True)
    """
    output = AnnDataOutput(expression, inplace, copy)
    min_size = as_int(min_size, "min_size", minimum=1)
    sets = as_weighted_gene_sets(gene_sets)
    if not isinstance(sets, dict) or not sets:
        raise TypeError("gene_sets must be a decoupler net (source, target[, weight]), a "
                        "non-empty dict {name: genes} or a GMT path")
    m, g, s, sparse = read_expression(expression, genes, samples, layer)
    expressed = nonzero_per_gene(m) > 0
    left_out = tuple(name for name, keep in zip(g, expressed, strict=True) if not keep)
    if not expressed.all():
        m = m[np.flatnonzero(expressed)]
        g = [name for name, keep in zip(g, expressed, strict=True) if keep]
    n = len(g)
    if n < 3:
        raise ValueError(f"expression: {n} genes with a non-zero value; a linear model "
                         "needs at least 3")
    names, weights = _weights(sets, g, min_size)
    df = n - 2
    mean_w = np.asarray(weights.mean(axis=1)).ravel()
    squares_w = np.asarray(weights.multiply(weights).sum(axis=1)).ravel()
    sd_w = np.sqrt(np.maximum(squares_w - n * mean_w * mean_w, 0.0) / (n - 1))
    t = np.empty((len(names), m.shape[1]))
    for j0, j1, block in _column_blocks(m, sparse):
        t[:, j0:j1] = _tvalues(block, weights, mean_w, sd_w, n, df, sparse)
    from scipy.stats import t as student_t

    p = 2.0 * student_t.sf(np.abs(t), df)
    padj = benjamini_hochberg(p, axis=0)

    def frame(values):
        return pd.DataFrame(values, index=pd.Index(names, name="gene_set"),
                            columns=pd.Index(s, name="sample"))

    result = UlmResult(scores=frame(t), pvalues=frame(p), padj=frame(padj), n_genes=n,
                       left_out=left_out)
    return output.give(result, {"score": result.scores, "padj": result.padj}, "ulm")


def _weights(sets: dict, genes: list, min_size: int):
    """The names of the sets with at least ``min_size`` members among ``genes`` and their
    weights over ``genes`` (a sparse sets x genes matrix, 0 for non-members)."""
    from scipy import sparse

    index = {name: i for i, name in enumerate(genes)}
    names, rows, cols, values = [], [], [], []
    for name, members in sets.items():
        found = {index[gene]: w for gene, w in members.items() if gene in index}
        if len(found) >= min_size:
            rows += [len(names)] * len(found)
            cols += list(found)
            values += list(found.values())
            names.append(name)
    if not names:
        raise ValueError(f"no gene set has min_size={min_size} or more members among the "
                         f"expressed genes (first genes: {genes[:3]})")
    return names, sparse.csr_matrix((values, (rows, cols)), shape=(len(names), len(genes)))


def _column_blocks(m, sparse: bool):
    """Blocks of CELLS_PER_PRODUCT samples: an in-memory CSC matrix's as views of its arrays
    (read only here, never copied), anything else as :func:`~.api._blocks` cuts it."""
    from scipy.sparse import csc_matrix

    if not (sparse and isinstance(m, csc_matrix) and m.has_canonical_format):
        yield from _blocks(m, sparse, size=CELLS_PER_PRODUCT)
        return
    for j0 in range(0, m.shape[1], CELLS_PER_PRODUCT):
        j1 = min(m.shape[1], j0 + CELLS_PER_PRODUCT)
        p0, p1 = m.indptr[j0], m.indptr[j1]
        yield j0, j1, csc_matrix((m.data[p0:p1], m.indices[p0:p1], m.indptr[j0:j1 + 1] - p0),
                                 shape=(m.shape[0], j1 - j0), copy=False)


def _tvalues(block, weights, mean_w, sd_w, n: int, df: int, sparse: bool) -> np.ndarray:
    """Sets x b t-values of a genes x b block of samples: the covariance of each set's
    weights w with the sample's values y is (w . y - mean(w) sum(y)) / (n - 1), from the
    members' values alone (the weights are sparse)."""
    if sparse:
        total = np.asarray(block.sum(axis=0)).ravel()
        squares = np.asarray(block.multiply(block).sum(axis=0)).ravel()
        var_y = (squares - total * total / n) / (n - 1)
        products = (block.T @ weights.T).toarray().T       # a CSC block's transpose is CSR
    else:
        y = np.asarray(block, dtype=np.float64)
        total = y.sum(axis=0)
        yc = y - total / n
        var_y = (yc * yc).sum(axis=0) / (n - 1)
        products = weights @ y
    cov = (products - mean_w[:, None] * total[None, :]) / (n - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / (sd_w[:, None] * np.sqrt(np.maximum(var_y, 0.0))[None, :])
        r[:, var_y <= 0] = np.nan
        return r * np.sqrt(df / ((1.0 - r + _TINY) * (1.0 + r + _TINY)))
