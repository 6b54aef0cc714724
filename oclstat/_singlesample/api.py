"""The public functions of single-sample enrichment: ssGSEA, GSVA and AUCell scores of every
gene set in every sample (or cell)."""

from __future__ import annotations

import os
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from .._enrichment.gene_sets import match_gene_sets
from .._progress import Progress
from .._scale import executor
from .._validation import as_bool, as_float_dtype, as_int
from .cell_ranks import CELLS_PER_LAUNCH, DeviceCells, cells_runtime
from .core import (
    SIGMA_FACTOR,
    SSGSEA_FLAVORS,
    aucell_block,
    aucell_max_area,
    gsva_block,
    gsva_density_block,
    plage_scores,
    row_sd,
    ssgsea_block,
    zscore_block,
)
from .missing import (
    NAN_POLICIES,
    gsva_density_with_missing,
    gsva_with_missing,
    ssgsea_with_missing,
    varying_with_missing,
)
from .opencl import density
from .sparse_gsva import nonzero_cdf, sparse_gsva_block
from .validate import BackedCells, in_memory
from .validate import expression as read_expression

#: Samples (cells) per block of the rank-based scores: bounded memory whatever their number
#: (a block is held dense: 8 bytes per gene and cell).
SAMPLE_BLOCK = 64

KCDFS = ("Gaussian", "Poisson", "none")


def _blocks(m, sparse, size=None):
    """(genes x b) blocks of the samples, in order: dense, or a sparse matrix's sparse blocks
    (ranked from their non-zero values, never densified)."""
    size = size or SAMPLE_BLOCK
    if isinstance(m, BackedCells) and sparse and size < BackedCells.CELLS_PER_READ:
        # one read of the file (and one transposition) for many blocks
        for r0 in range(0, m.shape[1], BackedCells.CELLS_PER_READ):
            chunk = m[:, r0:min(m.shape[1], r0 + BackedCells.CELLS_PER_READ)]
            for j0, j1, block in _blocks(chunk, sparse, size):
                yield r0 + j0, r0 + j1, block
        return
    for j0 in range(0, m.shape[1], size):
        j1 = min(m.shape[1], j0 + size)
        block = m[:, j0:j1]
        yield j0, j1, (block if sparse else np.asarray(block))


def _score_blocks(m, sparse, n_sets: int, score, *, desc: str = "scores",
                  progress=None, size=None) -> np.ndarray:
    """``score(block, j0, j1)`` (sets x b) of every block of ``size`` samples (default
    SAMPLE_BLOCK) into one sets x samples array, blocks scored by one thread per core
    (numpy's sorts release the GIL) with at most two blocks per thread in memory at once;
    progress counted in samples."""
    size = size or SAMPLE_BLOCK
    out = np.empty((n_sets, m.shape[1]))

    def work(j0, j1, block):
        out[:, j0:j1] = score(block, j0, j1)
        bar.update(j1 - j0)

    threads = max(1, min(os.cpu_count() or 1, -(-m.shape[1] // size)))
    pending = deque()
    with Progress(total=max(1, m.shape[1]), desc=desc, enabled=progress) as bar, \
            ThreadPoolExecutor(max_workers=threads) as pool:
        for j0, j1, block in _blocks(m, sparse, size):
            pending.append(pool.submit(work, j0, j1, block))
            if len(pending) >= 2 * threads:
                pending.popleft().result()
        for f in pending:
            f.result()
    return out


def _varying_genes(m, method: str):
    """(row means, row sds (n - 1), the rows that vary) of genes x samples ``m`` (dense, or
    sparse without a dense copy), as GSVA 1.46 filters them for its methods other than
    ssGSEA: fewer than two samples, or fewer than two genes that vary, stop as GSVA stops."""
    from scipy import sparse

    n = m.shape[1]
    if n < 2:
        raise ValueError(f"expression: {method} needs at least 2 samples, got {n} (with "
                         "one, every gene is constant, and GSVA discards constant genes and "
                         "stops); ssgsea and aucell score single samples")
    if isinstance(m, BackedCells) or sparse.issparse(m):       # from sums: no dense copy
        if isinstance(m, BackedCells):
            total, squares, _ = m.row_stats()
        else:
            total = np.asarray(m.sum(axis=1)).ravel()
            squares = np.asarray(m.multiply(m).sum(axis=1)).ravel()
        mean = total / n
        sd = np.sqrt(np.maximum(squares - n * mean * mean, 0.0) / (n - 1))
    else:
        mean, sd = m.mean(axis=1), row_sd(m)
    keep = sd >= 1e-10
    if keep.sum() < 2:
        raise ValueError(f"expression: {int(keep.sum())} of {keep.size:,} genes vary across "
                         "the samples; GSVA discards constant genes and stops with fewer than "
                         "two ('Less than two genes in the input assay object')")
    return mean, sd, keep


def _frame(scores, names, samples, method, attrs):
    out = pd.DataFrame(scores, index=pd.Index(names, name="gene_set"),
                       columns=pd.Index(samples, name="sample"))
    out.attrs.update({"method": method, **attrs})
    return out


class AnnDataOutput:
    """Where a single-sample function's results go when the expression is an AnnData, decided
    once, as scanpy decides it: written into it (``inplace``, the default), left out of it
    (``inplace=False``), or into a copy that is returned (``copy=True``); the keys are
    decoupler's, ``.obsm[f"{kind}_{method}"]`` (cells x sets). Checked before any work."""

    def __init__(self, expression, inplace=True, copy=False):
        for name, value in (("inplace", inplace), ("copy", copy)):
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} must be True or False, got {value!r}")
        self.expression = expression
        self.anndata = type(expression).__name__ == "AnnData"
        self.inplace, self.copy = bool(inplace), bool(copy)
        if self.copy and not self.anndata:
            raise ValueError("copy=True returns a copy of an AnnData with the scores in "
                             f".obsm; the expression is a {type(expression).__name__} (the "
                             "scores are returned as they are)")
        if self.copy and getattr(expression, "isbacked", False):
            raise ValueError("copy=True cannot copy a backed AnnData (read_h5ad(backed='r')) "
                             "into memory here: use inplace=True or inplace=False, or "
                             "adata.to_memory() first")

    def give(self, result, frames: dict, method: str):
        """What the function returns: the AnnData's copy holding ``frames`` ({kind: sets x
        cells frame}) with ``copy``, else ``result`` (the frames written into the AnnData
        given unless ``inplace=False``)."""
        if not self.anndata or not (self.inplace or self.copy):
            return result
        target = self.expression.copy() if self.copy else self.expression
        cells = list(map(str, target.obs_names))
        for kind, frame in frames.items():
            target.obsm[f"{kind}_{method}"] = frame.T.loc[cells]
        return target if self.copy else result


def _device_cells(device, sparse, sets, n_genes, workload):
    """The device that ranks a sparse expression's cells (:mod:`.cell_ranks`), with the sets
    sent; None for the host's sort (dense input, CPUs)."""
    rt = cells_runtime(device, workload) if sparse else None
    return None if rt is None else DeviceCells(rt, sets, n_genes=n_genes)


def ssgsea(expression, gene_sets, *, alpha: float = 0.25, normalize: bool = True,
           flavor: str = "gsva", min_size: int = 1, max_size: int | None = None,
           nan_policy: str = "raise", genes=None, samples=None, layer=None, progress=None,
           device=None, inplace: bool = True, copy: bool = False) -> pd.DataFrame:
    """Single-sample GSEA scores (Barbie et al. 2009) of every gene set in every sample, as
    GSVA 1.46 computes them (``gsva(method = "ssgsea")``).

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x samples (an AnnData is cells x genes: ``.X`` or ``.layers[layer]``).
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    alpha : float, optional
        The rank weight (GSVA's ``tau`` for ssGSEA; GSEApy's ``weight``).
    normalize : bool, optional
        Divide by the range of all scores (GSVA's ``ssgsea.norm``; GSEApy's NES).
    flavor : {"gsva", "gseapy"}, optional
        Whose ranks: GSVA 1.46's (average ranks truncated to integers, equal values ordered
        by increasing row) or GSEApy's ``sample_norm_method="rank"`` (10,000 x average rank
        / n, equal values ordered by decreasing row).
    min_size, max_size : int, optional
        Sets with fewer or more genes of the data are left out (GSVA's ``min.sz``,
        ``max.sz``: 1 and no limit).
    nan_policy : {"raise", "propagate", "omit"}, optional
        Missing values (NaN) in a dense expression, as GSVA 2's ``ssgseaParam(use =)``:
        refused (``"raise"``, the default; GSVA's ``"all.obs"``), a set with a missing member
        in a sample scores NaN there (``"propagate"``, GSVA's ``"everything"``), or each
        sample is scored over its genes with a value and each set over its members with one
        (``"omit"``, ``"na.rm"``; a set left with fewer than ``min_size`` scores NaN, with a
        warning). The normalisation skips NaN scores. Only with ``flavor="gsva"``; see
        :mod:`oclstat._singlesample.missing`.
    genes, samples : sequence of str, optional
        Names of an array's rows and columns.
    layer : str, optional
        The AnnData layer to score (default ``.X``).
    progress : bool, optional
        Progress over the samples: None (auto, see the README's "Progress"), True or False.
    device : optional
        A device with the GPU schedule (a GPU) ranks a sparse expression's cells and sums the
        sets there (:mod:`~oclstat._singlesample.cell_ranks`, the same bits as the host);
        otherwise, and by default on a CPU, the host sorts each cell's non-zero values.
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    DataFrame
        Sets x samples; with an AnnData also stored in ``.obsm["score_ssgsea"]`` (cells x
        sets, decoupler's key).
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    gsva, aucell : the other single-sample scores.

    Notes
    -----
    Each sample's genes get their average ranks (ascending expression) truncated to integers,
    as GSVA stores them, and are ordered by decreasing rank (equal ranks: the earlier row
    first); ``flavor="gseapy"`` weights and orders them as GSEApy does. A set's score is the
    sum over the ranking of its running-sum difference, in GSVA's closed form:
    sum_S R^a (n - p + 1) / sum_S R^a - (n (n + 1) / 2 - sum_S (n - p + 1)) / (n - k).
    Samples are scored in blocks of 64, one thread per core and at most two blocks per
    thread in memory (sparse matrices densified a block at a time, about 64 bytes per gene
    and cell of a block while ranking), so memory stays bounded whatever the number of
    cells.

    References
    ----------
    .. [1] Barbie, D. A. et al. (2009). Systematic RNA interference reveals that oncogenic
           KRAS-driven cancers require TBK1. Nature 462, 108-112.
    .. [2] Hänzelmann, S., Castelo, R. and Guinney, J. (2013). GSVA: gene set variation
           analysis for microarray and RNA-seq data. BMC Bioinformatics 14, 7.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(1)
    >>> x = pd.DataFrame(rng.normal(size=(100, 6)), index=[f"g{i}" for i in range(100)])
    >>> x.iloc[:10, :3] += 2
    >>> s = oclstat.ssgsea(x, {"up": [f"g{i}" for i in range(10)]})
    >>> bool((s.iloc[0, :3] > s.iloc[0, 3:].max()).all())
    True
    """
    output = AnnDataOutput(expression, inplace, copy)
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    if flavor not in SSGSEA_FLAVORS:
        raise ValueError(f"flavor must be one of {SSGSEA_FLAVORS}, got {flavor!r}")
    m, g, s, sparse = read_expression(expression, genes, samples, layer,
                                      missing=nan_policy != "raise")
    names, sets, _ = match_gene_sets(gene_sets, g, min_size, max_size)
    alpha = float(alpha)
    missing = isinstance(m, np.ndarray) and bool(np.isnan(m).any())
    if missing and flavor != "gsva":
        raise ValueError(f"nan_policy={nan_policy!r} scores as GSVA 2 (flavor='gsva'); "
                         f"GSEApy's flavor has no rule for missing values")
    cells = None if missing else _device_cells(device, sparse, sets, len(g), "ssgsea")

    def score(block, j0, j1):
        if missing:
            return ssgsea_with_missing(block, sets, alpha, nan_policy, min_size)
        if cells is not None and DeviceCells.usable(cells.rt, block):
            return cells.ssgsea(block, alpha=alpha, flavor=flavor)
        return ssgsea_block(block, sets, alpha, flavor)
    out = _score_blocks(m, sparse, len(sets), score, desc="ssgsea", progress=progress,
                        size=None if cells is None else CELLS_PER_LAUNCH)
    if missing and nan_policy == "omit" and np.isnan(out).any():
        warnings.warn(f"NaN scores of gene sets with fewer than {min_size} genes after "
                      f"removing missing values", stacklevel=2)
    if normalize:       # one score in all (one set, one sample): GSVA's Inf, as GSVA gives
        _normalize_by_range(out, missing)
    frame = _frame(out, names, s, "ssgsea", {"alpha": alpha, "normalize": bool(normalize),
                                             "flavor": flavor, "nan_policy": nan_policy})
    return output.give(frame, {"score": frame}, "ssgsea")


def _normalize_by_range(out: np.ndarray, missing: bool) -> None:
    """ssGSEA's normalisation in place (no second sets x cells copy): divided by the range of
    all scores, of those that are not NaN where values were missing (GSVA 2's
    ``range(es, na.rm = TRUE)``)."""
    if not missing:
        lo, hi = out.min(), out.max()
    elif np.isnan(out).all():
        raise ValueError("cannot normalise the ssGSEA scores: every score is NaN (missing "
                         "values everywhere); use normalize=False")
    else:
        lo, hi = np.nanmin(out), np.nanmax(out)
    with np.errstate(divide="ignore", invalid="ignore"):
        out /= hi - lo


def gsva(expression, gene_sets, *, kcdf: str = "Gaussian", abs_ranking: bool = False,
         tau: float = 1.0, mx_diff: bool = True, tabulated: bool = True, min_size: int = 1,
         max_size: int | None = None, sparse: bool = False, nan_policy: str = "raise",
         genes=None, samples=None, layer=None, dtype=None, device=None, progress=None,
         inplace: bool = True, copy: bool = False) -> pd.DataFrame:
    """Gene set variation analysis (Hänzelmann et al. 2013) of every gene set in every
    sample, as GSVA 1.46 computes it; the kernel CDF estimate on the device.

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x samples (an AnnData is cells x genes).
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    kcdf : {"Gaussian", "Poisson", "none"}, optional
        GSVA's ``kcdf``: a Gaussian kernel (continuous data), a Poisson kernel (counts), or
        the empirical CDF.
    abs_ranking, tau, mx_diff : optional
        GSVA's ``abs.ranking``, ``tau`` and ``mx.diff``.
    tabulated : bool, optional
        Read the normal CDF from GSVA 1.46's table (10,000 points of [0, 10], the point at or
        below the argument), as GSVA does; False: the exact CDF.
    min_size, max_size : int, optional
        GSVA's ``min.sz``, ``max.sz``.
    sparse : bool, optional
        GSVA 2's sparse algorithm (``gsvaParam(sparse = TRUE)``, its default for a
        dgCMatrix) for a sparse expression: each gene's CDF from its non-zero values alone
        (no log-odds), every sample's zeros below its non-zero values with one rank score,
        genes whose non-zero values are all equal left out (see Notes). A dense expression
        takes the classical algorithm, as in GSVA 2.
    nan_policy : {"raise", "propagate", "omit"}, optional
        Missing values (NaN) in a dense expression, as GSVA 2's ``gsvaParam(use =)``: refused
        (``"raise"``, the default; GSVA's ``"all.obs"``); a kernel gives a gene with a missing
        value no estimate anywhere, and a set with a member without one scores NaN in that
        sample (``"propagate"``, GSVA's ``"everything"``); or each gene's estimate comes from
        its values and each sample's ranks from its genes with one, each set scored over
        its members with one (``"omit"``, ``"na.rm"``; NaN with fewer than ``min_size``,
        with a warning). See :mod:`oclstat._singlesample.missing`.
    genes, samples, layer : optional
        Names of an array's rows and columns; the AnnData layer.
    dtype : numpy dtype, optional
        float64 (default where the device has it) or float32 for the kernel estimate.
    device : optional
        The OpenCL device.
    progress : bool, optional
        Progress of the kernel estimate and of the scores (as :func:`ssgsea`).
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    DataFrame
        Sets x samples; with an AnnData also stored in ``.obsm["score_gsva"]``.
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    ssgsea, aucell : the other single-sample scores.

    Notes
    -----
    Genes with constant expression are left out (GSVA does so for its own method); fewer than
    two samples, or fewer than two genes that vary, are refused, where GSVA 1.46 stops. For each
    gene i and sample j the kernel estimate F = mean over the samples k of Phi((x_ij - x_ik) /
    h_i), h_i = sd_i / 4 (Poisson: P(Poisson(x_ik + 0.5) <= x_ij)), becomes log(F / (1 - F));
    each sample's genes, ordered by decreasing score (equal scores: the earlier row first),
    get rank scores ``|n - p + 1 - n / 2|``, and each set's Kolmogorov-Smirnov-like running sum
    (hits + score^tau / their sum, misses - 1 / (n - k)) gives the largest positive plus the
    largest negative excursion (``mx_diff``). The Gaussian estimate, n^2 evaluations per gene,
    runs on the device in blocks of genes over all samples; the Poisson and empirical ones
    on the host (the Poisson CDF once per pair of a gene's distinct counts).

    With ``sparse`` and a sparse expression, GSVA 2's sparse algorithm: gene i's value at
    each of its m non-zero values v_k is F_k itself (the mean over its non-zero values of the
    kernel CDF, bandwidth sd(v) / 4; or their empirical CDF); in each sample the m_s genes
    with a value are ranked by increasing F (equal F: the later row first) and stand first,
    the zeros after them (the last zero row first); rank scores are ``|(m_s + 1) / 2 - (r +
    1)|`` for rank r and ``|(m_s + 1) / 2 - 1|`` for every zero (a sample without zeros: the
    dense scores). Stored zeros count as zeros (a dgCMatrix keeps none).

    References
    ----------
    .. [1] Hänzelmann, S., Castelo, R. and Guinney, J. (2013). GSVA: gene set variation
           analysis for microarray and RNA-seq data. BMC Bioinformatics 14, 7.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(2)
    >>> x = pd.DataFrame(rng.normal(size=(120, 8)), index=[f"g{i}" for i in range(120)])
    >>> x.iloc[:15, :4] += 2
    >>> v = oclstat.gsva(x, {"up": [f"g{i}" for i in range(15)]})
    >>> bool(v.iloc[0, :4].mean() > 0.3 > -0.3 > v.iloc[0, 4:].mean())
    True
    """
    output = AnnDataOutput(expression, inplace, copy)
    if kcdf not in KCDFS:
        raise ValueError(f"kcdf must be one of {KCDFS}, got {kcdf!r}")
    if nan_policy not in NAN_POLICIES:
        raise ValueError(f"nan_policy must be one of {NAN_POLICIES}, got {nan_policy!r}")
    sparse = as_bool(sparse, "sparse")
    m, g, s, is_sparse = read_expression(expression, genes, samples, layer,
                                         missing=nan_policy != "raise")
    m = in_memory(m)                  # every sample of a gene at once
    attrs = {"kcdf": kcdf, "tau": float(tau), "mx_diff": bool(mx_diff),
             "abs_ranking": bool(abs_ranking), "tabulated": bool(tabulated),
             "sparse": sparse and is_sparse, "nan_policy": nan_policy}
    if isinstance(m, np.ndarray) and np.isnan(m).any():
        frame = _gsva_with_missing(m, g, s, gene_sets, attrs, min_size=min_size,
                                   max_size=max_size, dtype=dtype, device=device,
                                   progress=progress)
        return output.give(frame, {"score": frame}, "gsva")
    if attrs["sparse"]:
        frame = _sparse_gsva(m, g, s, gene_sets, kcdf, attrs, min_size=min_size,
                             max_size=max_size, dtype=dtype, device=device, progress=progress)
        return output.give(frame, {"score": frame}, "gsva")
    x = m.toarray() if is_sparse else m
    _, sd, keep = _varying_genes(x, "gsva")
    if not keep.all():
        x, sd = x[keep], sd[keep]
    kept = [name for name, k in zip(g, keep, strict=True) if k]
    names, sets, _ = match_gene_sets(gene_sets, kept, min_size, max_size)
    n = x.shape[1]
    rt, real, where = _kernel_runtime(kcdf, device, dtype)
    if kcdf == "Gaussian":
        scores = density(rt, x, tabulated=tabulated, dtype=real,
                         bandwidth=sd / SIGMA_FACTOR, progress=progress)
    elif kcdf == "Poisson":
        scores = gsva_density_block(x, np.arange(n), "Poisson", False)
    else:
        # imported here: scipy.stats takes 0.6 s to import
        from scipy import stats

        ecdf = stats.rankdata(x, method="max", axis=1) / n     # R's ecdf(x)(x)
        with np.errstate(divide="ignore"):
            scores = np.log(ecdf / (1 - ecdf))
    out = _score_blocks(scores, False, len(sets), lambda block, j0, j1: gsva_block(
        block, sets, float(tau), bool(mx_diff), bool(abs_ranking)), desc="gsva scores",
                        progress=progress)
    frame = _frame(out, names, s, "gsva", {**attrs, "device": where})
    return output.give(frame, {"score": frame}, "gsva")


def _kernel_runtime(kcdf: str, device, dtype) -> tuple:
    """``(runtime, dtype, where)`` of GSVA's kernel estimate: the device and its precision for
    the Gaussian kernel (on the device), else none and float64 on the host."""
    if kcdf != "Gaussian":
        return None, np.float64, "host"
    rt = executor(device, None, "gsva", several=False).runtime
    return rt, rt.default_real() if dtype is None else as_float_dtype(dtype), rt.info.label


def _gsva_with_missing(x, g, s, gene_sets, attrs, *, min_size, max_size, dtype, device,
                       progress) -> pd.DataFrame:
    """:func:`gsva` of a dense expression with NaN, as GSVA 2 (:mod:`.missing`)."""
    keep = varying_with_missing(x)
    if keep.sum() < 2:
        raise ValueError(f"expression: {int(keep.sum())} of {keep.size:,} genes vary across "
                         "the samples (missing values aside); GSVA discards constant genes "
                         "and stops with fewer than two ('Less than two genes in the input "
                         "assay object')")
    if not keep.all():
        x = x[keep]
    kept = [name for name, k in zip(g, keep, strict=True) if k]
    names, sets, _ = match_gene_sets(gene_sets, kept, min_size, max_size)
    rt, real, where = _kernel_runtime(attrs["kcdf"], device, dtype)
    z = gsva_density_with_missing(x, attrs["kcdf"], attrs["nan_policy"], rt=rt,
                                  tabulated=attrs["tabulated"], dtype=real, progress=progress)
    out = _score_blocks(z, False, len(sets), lambda block, j0, j1: gsva_with_missing(
        block, sets, attrs["tau"], attrs["mx_diff"], attrs["abs_ranking"],
        attrs["nan_policy"], min_size), desc="gsva scores", progress=progress)
    if attrs["nan_policy"] == "omit" and np.isnan(out).any():
        warnings.warn(f"NaN scores of gene sets with fewer than {min_size} genes after "
                      f"removing missing values", stacklevel=3)
    return _frame(out, names, s, "gsva", {**attrs, "device": where})


def _sparse_gsva(m, g, s, gene_sets, kcdf, attrs, *, min_size, max_size, dtype, device,
                 progress) -> pd.DataFrame:
    """:func:`gsva` by GSVA 2's sparse algorithm (:mod:`.sparse_gsva`)."""
    rows = m.tocsr().astype(np.float64)
    rows.sum_duplicates()
    rows.eliminate_zeros()
    _, _, keep = _nonzero_genes(rows, "gsva")
    if not keep.all():
        rows = rows[np.flatnonzero(keep)]
    kept = [name for name, k in zip(g, keep, strict=True) if k]
    names, sets, _ = match_gene_sets(gene_sets, kept, min_size, max_size)
    rt, real, where = _kernel_runtime(kcdf, device, dtype)
    cdf = rows.copy()
    cdf.data = nonzero_cdf(rows, kcdf, rt=rt, tabulated=attrs["tabulated"], dtype=real,
                           progress=progress)
    out = _score_blocks(cdf.tocsc(), True, len(sets), lambda block, j0, j1: sparse_gsva_block(
        block, sets, attrs["tau"], attrs["mx_diff"], attrs["abs_ranking"]),
                        desc="gsva scores", progress=progress)
    return _frame(out, names, s, "gsva", {**attrs, "device": where})


def aucell(expression, gene_sets, *, max_rank=None, normalize: bool = True, ties: str = "first",
           seed=None, min_size: int = 1, max_size: int | None = None, genes=None,
           samples=None, layer=None, progress=None, device=None,
           inplace: bool = True, copy: bool = False) -> pd.DataFrame:
    """AUCell scores (Aibar et al. 2017) of every gene set in every cell: the area under the
    recovery curve of the set among the cell's top-ranked genes.

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x cells (an AnnData is cells x genes).
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    max_rank : int, optional
        The curve's extent (AUCell's ``aucMaxRank``): default 5% of the genes, rounded up
        (at least 2).
    normalize : bool, optional
        Divide by the best area a set of its size can have (AUCell's ``normAUC``), else by
        max_rank x the set's size.
    ties : {"first", "random"}, optional
        Equal values ranked by their row, or at random (AUCell's ``ties.method``) from
        ``seed``.
    seed : int, optional
        The seed of random tie-breaking: cell j's genes are shuffled by the generator of
        (seed, j), so a cell's score does not depend on the others (drawn and kept in
        ``attrs["seed"]`` when not given).
    min_size, max_size, genes, samples, layer, progress, device : optional
        As :func:`ssgsea` (the device ranks cells with ``ties="first"`` only).
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    DataFrame
        Sets x cells; with an AnnData also stored in ``.obsm["score_aucell"]``.
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    ssgsea, gsva : the other single-sample scores.

    Notes
    -----
    Each cell's genes are ranked by decreasing expression, equal values by their row
    (``ties="random"``: at random, as AUCell's default does). A member at rank r < max_rank
    adds max_rank - r to the area (the recovery curve counts it from r on), as AUCell's
    ``.auc`` sums it.

    References
    ----------
    .. [1] Aibar, S. et al. (2017). SCENIC: single-cell regulatory network inference and
           clustering. Nature Methods 14, 1083-1086.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(3)
    >>> x = pd.DataFrame(rng.poisson(1.0, size=(400, 5)), index=[f"g{i}" for i in range(400)])
    >>> x.iloc[:20, 0] += 20
    >>> a = oclstat.aucell(x, {"up": [f"g{i}" for i in range(20)]})
    >>> int(a.iloc[0].to_numpy().argmax())
    0
    """
    output = AnnDataOutput(expression, inplace, copy)
    m, g, s, sparse = read_expression(expression, genes, samples, layer)
    names, sets, _ = match_gene_sets(gene_sets, g, min_size, max_size)
    n = m.shape[0]
    k = max(2, int(np.ceil(0.05 * n))) if max_rank is None else \
        as_int(max_rank, "max_rank", minimum=2, maximum=n)
    if ties not in ("first", "random"):
        raise ValueError(f"ties must be 'first' or 'random', got {ties!r}")
    if ties == "random" and seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    seed = None if ties == "first" else as_int(seed, "seed", minimum=0)

    cells = _device_cells(device, sparse, sets, n, "aucell") if seed is None else None
    best = np.array([aucell_max_area(idx.size, k) if normalize else k * idx.size
                     for idx in sets], dtype=np.float64)[:, None]

    def score(block, j0, j1):
        if cells is not None and DeviceCells.usable(cells.rt, block):
            return cells.areas(block, k) / best
        shuffle = None if seed is None else np.column_stack(
            [np.random.default_rng([seed, j]).random(n) for j in range(j0, j1)])
        return aucell_block(block, sets, k, bool(normalize), shuffle)

    out = _score_blocks(m, sparse, len(sets), score, desc="aucell", progress=progress,
                        size=None if cells is None else CELLS_PER_LAUNCH)
    frame = _frame(out, names, s, "aucell", {"max_rank": k, "normalize": bool(normalize),
                                             "ties": ties, "seed": seed})
    return output.give(frame, {"score": frame}, "aucell")


def _nonzero_genes(m, method: str):
    """(means, sds (n - 1) of each gene's non-zero values, the genes kept) of a sparse genes x
    samples matrix, as GSVA's dgCMatrix path scales them: genes whose non-zero values are all
    equal (one non-zero value included) are left out, as GSVA 2 leaves them out."""
    from scipy import sparse

    if not sparse.issparse(m):
        raise ValueError("nonzero_only=True scales a sparse matrix's non-zero values; the "
                         "expression is not a scipy.sparse matrix")
    rows = m.tocsr()
    count = np.diff(rows.indptr)
    row = np.repeat(np.arange(rows.shape[0]), count)
    mean = np.bincount(row, rows.data, minlength=rows.shape[0]) / np.maximum(count, 1)
    dev = rows.data - mean[row]
    sd = np.sqrt(np.bincount(row, dev * dev, minlength=rows.shape[0]) /
                 np.maximum(count - 1, 1))
    spread = np.zeros(rows.shape[0])
    if rows.data.size:
        start = rows.indptr[:-1][count > 0]
        spread[count > 0] = np.maximum.reduceat(rows.data, start) - \
            np.minimum.reduceat(rows.data, start)
    keep = spread > 0
    if keep.sum() < 2:
        raise ValueError(f"expression: {int(keep.sum())} of {keep.size:,} genes have non-zero "
                         "values that vary; GSVA discards the others and stops with fewer "
                         f"than two ({method})")
    return mean, np.where(keep, sd, 1.0), keep


def _standardise(block, mean, sd, nonzero_only: bool) -> np.ndarray:
    """A genes x b block (dense or sparse) centred and scaled gene by gene, dense; with
    ``nonzero_only`` a sparse block's zeros stay zero (GSVA's dgCMatrix path)."""
    if not nonzero_only:
        dense = block.toarray() if hasattr(block, "toarray") else block
        return (dense - mean[:, None]) / sd[:, None]
    coo = block.tocoo()
    out = np.zeros(block.shape)
    out[coo.row, coo.col] = (coo.data - mean[coo.row]) / sd[coo.row]
    return out


def _standardised_sets(expression, gene_sets, min_size, max_size, genes, samples, layer,
                       method, ordered=False, nonzero_only=False):
    """What zscore and plage share: the varying genes, their means and sds, the sets."""
    m, g, s, sparse = read_expression(expression, genes, samples, layer)
    mean, sd, keep = _nonzero_genes(m, method) if nonzero_only else _varying_genes(m, method)
    if not keep.all():
        m, mean, sd = m[np.flatnonzero(keep)], mean[keep], sd[keep]
    kept = [name for name, k in zip(g, keep, strict=True) if k]
    names, sets, _ = match_gene_sets(gene_sets, kept, min_size, max_size, ordered=ordered)
    return m, sparse, s, mean, sd, names, sets


def zscore(expression, gene_sets, *, min_size: int = 1, max_size: int | None = None,
           nonzero_only: bool = False, genes=None, samples=None, layer=None,
           progress=None, inplace: bool = True, copy: bool = False) -> pd.DataFrame:
    """The z-score method (Lee et al. 2008) of every gene set in every sample, as GSVA 1.46's
    ``gsva(method = "zscore")``.

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x samples (an AnnData is cells x genes).
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    nonzero_only : bool, default False
        For a sparse matrix: centre and scale each gene's non-zero values only, zeros
        staying zero, and leave out genes whose non-zero values are all equal (GSVA's
        ``dgCMatrix`` path, in GSVA 1.46 and 2).
    min_size, max_size, genes, samples, layer, progress : optional
        As :func:`ssgsea`.
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    DataFrame
        Sets x samples; with an AnnData also stored in ``.obsm["score_zscore"]``.
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    plage, gsva, ssgsea : the other single-sample scores.

    Notes
    -----
    Each gene is standardised over the samples (mean 0, standard deviation 1 with divisor
    n - 1, R's ``scale``); a set's score in a sample is the sum of its members' values over
    the square root of its size. Constant genes are left out and too few samples or genes
    refused, as GSVA does. Sparse input is standardised as its dense values (GSVA 1.46's
    ``dgCMatrix`` path scales only the non-zero ones), a block of samples at a time.

    References
    ----------
    .. [1] Lee, E. et al. (2008). Inferring pathway activity toward precise disease
           classification. PLoS Computational Biology 4, e1000217.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> x = pd.DataFrame([[1.0, 2.0, 3.0], [2.0, 4.0, 9.0], [5.0, 5.0, 6.0]],
    ...                  index=["a", "b", "c"])
    >>> oclstat.zscore(x, {"ab": ["a", "b"]}).round(4).values.tolist()
    [[-1.2955, -0.1961, 1.4916]]
    """
    output = AnnDataOutput(expression, inplace, copy)
    m, sparse, s, mean, sd, names, sets = _standardised_sets(
        expression, gene_sets, min_size, max_size, genes, samples, layer, "zscore",
        nonzero_only=bool(nonzero_only))

    def score(block, j0, j1):
        return zscore_block(_standardise(block, mean, sd, bool(nonzero_only)), sets)

    out = _score_blocks(m, sparse, len(sets), score, desc="zscore", progress=progress)
    frame = _frame(out, names, s, "zscore", {})
    return output.give(frame, {"score": frame}, "zscore")


def plage(expression, gene_sets, *, min_size: int = 2, max_size: int | None = None,
          nonzero_only: bool = False, genes=None, samples=None, layer=None,
          inplace: bool = True, copy: bool = False) -> pd.DataFrame:
    """Pathway level analysis of gene expression (PLAGE, Tomfohr et al. 2005) of every gene
    set in every sample, as GSVA 1.46's ``gsva(method = "plage")``.

    Parameters
    ----------
    expression : DataFrame, array, scipy.sparse matrix, AnnData or path
        Genes x samples (an AnnData is cells x genes).
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    min_size : int, optional
        At least 2 (GSVA's ``svd`` of a one-gene set returns one number, not a score per
        sample).
    nonzero_only : bool, default False
        As :func:`zscore` (GSVA's ``dgCMatrix`` path).
    max_size, genes, samples, layer : optional
        As :func:`ssgsea`.
    inplace, copy : bool, optional
        With an AnnData, as scanpy: write the results into its ``.obsm`` (``inplace``, the
        default) or not, or write them into a copy and return that (``copy``).

    Returns
    -------
    DataFrame
        Sets x samples; with an AnnData also stored in ``.obsm["score_plage"]``.
    AnnData
        With ``copy=True``: a copy of the AnnData holding them in ``.obsm``.

    See Also
    --------
    zscore, gsva, ssgsea : the other single-sample scores.

    Notes
    -----
    Each gene is standardised over the samples as in :func:`zscore`; a set's scores are the
    first right singular vector of its members' standardised expression (members in the set's
    order, as GSVA matches them), with the sign LAPACK's ``dgesdd`` gives (R's ``svd``, numpy's
    ``linalg.svd``): a set's scores have unit length over the samples, and their sign is a
    convention, not a direction of change.

    References
    ----------
    .. [1] Tomfohr, J., Lu, J. and Kepler, T. B. (2005). Pathway level analysis of gene
           expression using singular value decomposition. BMC Bioinformatics 6, 225.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(1)
    >>> x = pd.DataFrame(rng.normal(size=(30, 6)), index=[f"g{i}" for i in range(30)])
    >>> v = oclstat.plage(x, {"s": ["g1", "g2", "g3"]})
    >>> float(np.round((v.to_numpy() ** 2).sum(), 12))
    1.0
    """
    output = AnnDataOutput(expression, inplace, copy)
    min_size = as_int(min_size, "min_size", minimum=2)
    m, sparse, s, mean, sd, names, sets = _standardised_sets(
        expression, gene_sets, min_size, max_size, genes, samples, layer, "plage",
        ordered=True, nonzero_only=bool(nonzero_only))
    m = in_memory(m)                  # every sample of a gene at once
    rows = m.tocsr() if sparse else m

    def standardised(idx):
        return _standardise(rows[idx], mean[idx], sd[idx], bool(nonzero_only))

    frame = _frame(plage_scores(standardised, sets), names, s, "plage", {})
    return output.give(frame, {"score": frame}, "plage")
