"""Gene set enrichment analysis with phenotype permutations (Subramanian et al. 2005).

:func:`gsea` re-creates rapidGSEA/cudaGSEA and computes what Broad GSEA and GSEApy report: for
each gene set the enrichment score (ES) of the observed labelling, the nominal p-value, the
normalised ES (NES), Broad's FDR q-value and the FWER p-value, from ``n_perm`` permutations of
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
>>> res = oclstat.gsea(expr, ["A"] * 4 + ["B"] * 4, sets, n_perm=200, min_size=5, seed=1)
>>> bool(res.table.loc["up", "es"] > 0.8), bool(res.table.loc["up", "pval"] < 0.05)
(True, True)
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import io as _io
from ._labels import aligned, is_default_index
from ._validation import as_float_dtype, as_int

__all__ = ["GseaResult", "gsea", "METRICS", "ranking_metric", "enrichment_score"]

METRICS = (
    "signal_to_noise",
    "t_test",
    "diff_of_classes",
    "ratio_of_classes",
    "log2_ratio_of_classes",
)
_ALIASES = {"s2n": "signal_to_noise"}
#: Device schedule of the ES step: None (automatic: "walk" on CPUs, "pairs" on GPUs), "walk"
#: or "pairs" (see cl_kernels/gsea.cl).
SCHEDULE: str | None = None


# ----------------------------------------------------------------------------- host reference


def ranking_metric(values: np.ndarray, mask: np.ndarray,
                   metric: str) -> tuple[np.ndarray, np.ndarray]:
    """The ranking metric of every gene (rows of ``values``) for class A = ``mask``, in float64.

    Returns ``(metric, key)``: ``key`` is what genes are ranked by (the ratio for
    ``log2_ratio_of_classes``, whose ranking it shares; the metric itself otherwise).

    >>> v = np.array([[1.0, 2.0, 3.0, 5.0]]); m = np.array([True, True, False, False])
    >>> ranking_metric(v, m, "diff_of_classes")[0].tolist()
    [-2.5]
    """
    a, b = values[:, mask], values[:, ~mask]
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "signal_to_noise":
            sa = np.maximum(a.std(axis=1, ddof=1), 0.2 * np.abs(ma))
            sb = np.maximum(b.std(axis=1, ddof=1), 0.2 * np.abs(mb))
            sa[sa == 0] = 0.2
            sb[sb == 0] = 0.2
            m = (ma - mb) / (sa + sb)
        elif metric == "t_test":
            va, vb = a.var(axis=1, ddof=1), b.var(axis=1, ddof=1)
            m = (ma - mb) / np.sqrt(va / a.shape[1] + vb / b.shape[1])
        elif metric == "diff_of_classes":
            m = ma - mb
        else:
            m = ma / mb
    m = np.where(np.isfinite(m), m, 0.0)
    if metric == "log2_ratio_of_classes":
        return np.log2(m), m
    return m, m


def _order(key: np.ndarray) -> np.ndarray:
    """Gene indices by decreasing key, equal keys by decreasing index (the documented tie rule)."""
    idx = np.arange(key.size)
    return np.lexsort((-idx, -key))


def weight_bits(n_genes: int) -> int:
    """Binary digits of the largest gene weight in the exact ES sums (cl_kernels/gsea.cl's
    WEIGHT_BITS): as many as keep a sum over all genes below 2^62, at most 52."""
    return int(min(52, 62 - max(1, int(n_genes)).bit_length()))


def gene_weights(metric: np.ndarray, weight: float) -> np.ndarray:
    """|m|^p of every gene, as the device computes it (p = 1.5: |m| sqrt(|m|))."""
    a = np.abs(np.asarray(metric, dtype=np.float64))
    if weight == 0:
        return np.ones_like(a)
    if weight == 1:
        return a
    if weight == 2:
        return a * a
    if weight == 1.5:
        return a * np.sqrt(a)
    return a**weight


def fixed_weights(weights: np.ndarray, top: float, bits: int) -> np.ndarray:
    """The weights as exact integers: round(w 2^(bits - E)), E the binary exponent of the
    largest weight ``top``; a power-of-two scaling, as on the device."""
    w = np.asarray(weights, dtype=np.float64)
    exponent = int(np.frexp(top)[1]) if top > 0 else 0
    return np.rint(np.ldexp(w, bits - exponent)).astype(np.int64)


def enrichment_score(sorted_metric: np.ndarray, positions: np.ndarray, weight: float = 1.0):
    """ES of a set whose members sit at ``positions`` (ascending) of a ranking whose metric,
    in ranking order, is ``sorted_metric``. Returns ``(es, peak)``: ``peak`` is the index into
    ``positions`` of the extreme (the leading edge is ``positions[:peak + 1]`` for ES >= 0,
    ``positions[peak:]`` otherwise).

    The weights are summed as exact integers (:func:`fixed_weights`, scaled by the largest
    weight of the whole ranking, :func:`weight_bits` digits) and each point of the walk is one
    correctly rounded division, exactly as the device computes the null ES.

    >>> enrichment_score(np.array([3.0, 2.0, 1.0, -1.0]), np.array([0, 1]))
    (np.float64(1.0), 1)
    """
    n, k = sorted_metric.size, positions.size
    w_all = gene_weights(sorted_metric, weight)
    w = fixed_weights(w_all[positions], float(w_all.max()) if n else 0.0, weight_bits(n))
    nr = int(w.sum())
    if nr > 0:
        c = np.cumsum(w)
        c = c.astype(np.float64) / np.float64(nr)
        cb = (np.cumsum(w) - w).astype(np.float64) / np.float64(nr)
    else:
        c = np.arange(1, k + 1, dtype=np.float64) / np.float64(k)
        cb = np.arange(k, dtype=np.float64) / np.float64(k)
    miss = (positions - np.arange(k)).astype(np.float64) / np.float64(n - k)
    tops, bottoms = c - miss, cb - miss
    i_max, i_min = int(np.argmax(tops)), int(np.argmin(bottoms))
    if tops[i_max] > -bottoms[i_min]:
        return tops[i_max], i_max
    return bottoms[i_min], i_min


def running_sum(sorted_metric: np.ndarray, positions: np.ndarray,
                weight: float = 1.0) -> np.ndarray:
    """The running enrichment sum at every position of the ranking (for plots)."""
    n, k = sorted_metric.size, positions.size
    hit = np.zeros(n, dtype=bool)
    hit[positions] = True
    w = np.abs(sorted_metric) ** weight if weight != 0 else np.ones(n)
    nr = w[hit].sum()
    step = np.where(hit, (w / nr) if nr > 0 else 1.0 / k, -1.0 / (n - k))
    return np.cumsum(step)


# ----------------------------------------------------------------------------- inputs


def _expression(expression, genes):
    if isinstance(expression, (str, os.PathLike)):
        expression = _io.read_expression(expression)
    if isinstance(expression, pd.DataFrame):
        if genes is not None:
            raise ValueError("genes= is only for array input; a DataFrame's index names the genes")
        names = [str(g) for g in expression.index]
        samples = None if is_default_index(expression.columns) else list(expression.columns)
        try:
            values = expression.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("expression must hold numbers only (genes x samples)") from None
    else:
        values = np.asarray(expression)
        if values.dtype.kind not in "iuf":
            raise TypeError(f"expression must be numeric, got dtype {values.dtype}")
        values = values.astype(np.float64)
        if values.ndim != 2:
            raise ValueError(f"expression must be 2-D (genes x samples), got shape {values.shape}")
        if genes is None:
            raise ValueError("genes= (one name per row) is needed when expression is an array")
        names = [str(g) for g in genes]
        if len(names) != values.shape[0]:
            raise ValueError(
                f"genes has {len(names)} names, expression has {values.shape[0]} rows"
            )
        samples = None
    if values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"expression needs at least 2 genes and 2 samples, got {values.shape}")
    bad = ~np.isfinite(values)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        raise ValueError(
            f"expression has {int(bad.sum())} missing or infinite values in {rows.size} genes "
            f"(first: {names[rows[0]]!r}); remove or impute them first"
        )
    if len(set(names)) != len(names):
        dup = pd.Index(names)[pd.Index(names).duplicated()][0]
        raise ValueError(
            f"expression has duplicate gene name {dup!r}; collapse to one row per gene"
        )
    return values, names, samples


def _phenotype(phenotype, classes, n_samples, samples=None) -> tuple[np.ndarray, tuple]:
    """The class-A mask of the samples; a labelled phenotype (Series or dict by sample name)
    is aligned to ``samples`` (the expression's column names, None for an array)."""
    if isinstance(phenotype, (str, os.PathLike)):
        phenotype = _io.read_cls(phenotype)
    if isinstance(phenotype, _io.Phenotype):
        labels, classes = list(phenotype.labels), classes or phenotype.classes
    else:
        arr = aligned(phenotype, samples, "phenotype", "the expression's samples (columns)")
        if arr.ndim != 1:
            raise ValueError(f"phenotype must be 1-D (one label per sample), got shape {arr.shape}")
        labels = arr.tolist()
    if len(labels) != n_samples:
        raise ValueError(
            f"phenotype has {len(labels)} labels but expression has {n_samples} samples"
        )
    distinct = list(dict.fromkeys(labels))
    if classes is None:
        if len(distinct) != 2:
            raise ValueError(f"phenotype must take exactly 2 values, got {len(distinct)}: "
                             f"{distinct[:5]}")
        classes = tuple(distinct)
    classes = tuple(classes)
    if len(classes) != 2 or classes[0] == classes[1]:
        raise ValueError(f"classes must be two distinct labels, got {classes!r}")
    extra = [x for x in distinct if x not in classes]
    if extra:
        raise ValueError(f"phenotype has labels {extra[:5]} that are not in classes {classes!r}")
    mask = np.array([x == classes[0] for x in labels], dtype=bool)
    return mask, classes


def _gene_sets(gene_sets, names, min_size, max_size, case_sensitive):
    if isinstance(gene_sets, (str, os.PathLike)):
        gene_sets = _io.read_gmt(gene_sets)
    if not isinstance(gene_sets, dict):
        raise TypeError("gene_sets must be a dict {name: genes} or a GMT path, got "
                        f"{type(gene_sets).__name__}")
    if not gene_sets:
        raise ValueError("gene_sets is empty")
    fold = (lambda s: s) if case_sensitive else (lambda s: s.upper())
    index: dict[str, int] = {}
    for i, g in enumerate(names):
        key = fold(g)
        if key in index:
            raise ValueError(f"genes {names[index[key]]!r} and {g!r} are the same name in upper "
                             "case; use case_sensitive=True")
        index[key] = i
    kept: dict[str, np.ndarray] = {}
    n_genes = len(names)
    for name, genes in gene_sets.items():
        if isinstance(genes, str) or not hasattr(genes, "__iter__"):
            raise TypeError(f"gene set {name!r} must be a list of gene names")
        idx = sorted({index[fold(str(g))] for g in genes if fold(str(g)) in index})
        if min_size <= len(idx) <= max_size and len(idx) < n_genes:
            kept[str(name)] = np.array(idx, dtype=np.uint32)
    if not kept:
        raise ValueError(
            f"no gene set has between min_size={min_size} and max_size={max_size} genes of the "
            f"expression data (first genes: {names[:3]}); check the gene names or the sizes"
        )
    return kept, len(gene_sets) - len(kept)


# ----------------------------------------------------------------------------- result


@dataclass
class GseaResult:
    """Result of :func:`gsea`.

    table
        One row per gene set (index: set name), sorted by decreasing NES: ``es``, ``nes``,
        ``pval`` (nominal), ``fdr`` (Broad's q-value), ``fwer``, ``size`` (genes of the set in
        the data) and ``leading_edge`` (the genes up to the ES peak, in ranking order).
    ranking
        The observed metric of every gene, in ranking order (a Series indexed by gene).
    es_null
        With ``return_null=True``: the null ES, sets x permutations (a DataFrame).
    """

    table: pd.DataFrame
    ranking: pd.Series
    gene_sets: dict
    metric: str
    weight: float
    classes: tuple
    n_perm: int
    n_filtered: int
    device: str
    es_null: pd.DataFrame | None = field(default=None, repr=False)

    def running_sum(self, set_name: str) -> np.ndarray:
        """The running enrichment sum of ``set_name`` along the ranking."""
        pos = self._positions(set_name)
        return running_sum(self.ranking.to_numpy(), pos, self.weight)

    def _positions(self, set_name: str) -> np.ndarray:
        if set_name not in self.gene_sets:
            raise KeyError(f"no gene set {set_name!r} in this result")
        where = pd.Index(self.ranking.index).get_indexer(self.gene_sets[set_name])
        return np.sort(where)

    def to_tsv(self, path) -> None:
        """Write the table as tab-separated text (leading-edge genes joined by ``;``)."""
        out = self.table.copy()
        out["leading_edge"] = [";".join(g) for g in out["leading_edge"]]
        out.index.name = "term"
        out.to_csv(path, sep="\t", float_format="%.6g")


# ----------------------------------------------------------------------------- API


def gsea(
    expression,
    phenotype,
    gene_sets,
    *,
    n_perm: int = 1000,
    metric: str = "signal_to_noise",
    weight: float = 1.0,
    min_size: int = 15,
    max_size: int = 500,
    seed=None,
    classes=None,
    genes=None,
    case_sensitive: bool = True,
    dtype=None,
    return_null: bool = False,
    device=None,
    client=None,
    progress=None,
) -> GseaResult:
    """Gene set enrichment analysis with ``n_perm`` phenotype permutations on the device.

    ``expression``: a genes x samples DataFrame (or GCT/expression path, or an array with
    ``genes=``); ``phenotype``: one label per sample, a :class:`oclstat.io.Phenotype` or a CLS
    path (``classes=(A, B)`` picks class A; default the first class of the CLS file or the first
    label seen); ``gene_sets``: {name: genes} or a GMT path. ``seed`` (int or six integers)
    makes the permutations reproducible: permutation ``i`` uses MRG31k3p stream ``i`` of the
    seed on every device and batch size. ``dtype``: float64 (the default where the device has
    it) or float32 (the default without fp64; faster on GPUs): the precision of the permuted
    metrics and ES; either way every device gives the same ranks and ES for the same seed.
    ``client``: a ``dask.distributed.Client`` or :class:`oclstat.distributed.LocalDevices`
    to run the permutations as tasks (the same result for the same seed; not with
    ``return_null``). See the module docstring for the definitions.
    """
    from . import _gsea_device
    from ._runtime import get_runtime

    metric = _ALIASES.get(metric, metric)
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {METRICS}, got {metric!r}")
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        raise TypeError(f"weight must be a number, got {weight!r}") from None
    if not np.isfinite(weight) or weight < 0:
        raise ValueError(f"weight must be a finite number >= 0, got {weight}")
    n_perm = as_int(n_perm, "n_perm", minimum=1)
    min_size = as_int(min_size, "min_size", minimum=1)
    max_size = as_int(max_size, "max_size", minimum=1)
    if max_size < min_size:
        raise ValueError(f"max_size ({max_size}) must be >= min_size ({min_size})")
    values, names, samples = _expression(expression, genes)
    mask, classes = _phenotype(phenotype, classes, values.shape[1], samples)
    n_a, n_b = int(mask.sum()), int((~mask).sum())
    need = 2 if metric in ("signal_to_noise", "t_test") else 1
    if min(n_a, n_b) < need:
        raise ValueError(f"phenotype: class sizes {n_a} ({classes[0]}) and {n_b} ({classes[1]}); "
                         f"metric {metric!r} needs at least {need} samples in each class")
    if metric in ("ratio_of_classes", "log2_ratio_of_classes") and values.min() <= 0:
        raise ValueError(f"metric {metric!r} needs positive expression values (the data has "
                         f"minimum {values.min():g}); use signal_to_noise or diff_of_classes")
    sets, n_filtered = _gene_sets(gene_sets, names, min_size, max_size, case_sensitive)

    # observed labelling, in float64 on the host
    m_obs, key_obs = ranking_metric(values, mask, metric)
    if np.all(key_obs == key_obs[0]):
        raise ValueError(f"the {metric} metric is {key_obs[0]:g} for every gene (is the "
                         "expression constant across samples?): no ranking, no enrichment")
    order = _order(key_obs)
    sorted_metric = m_obs[order]
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    set_names = list(sets)
    es_obs = np.empty(len(sets))
    leading = []
    for i, name in enumerate(set_names):
        pos = np.sort(position[sets[name]])
        es, peak = enrichment_score(sorted_metric, pos, weight)
        es_obs[i] = es
        edge = pos[: peak + 1] if es >= 0 else pos[peak:][::-1]
        leading.append([names[order[q]] for q in edge])

    if client is not None:
        from .distributed import gsea_null_statistics

        if return_null:
            raise ValueError("return_null=True is not available with client=")
        null = gsea_null_statistics(
            client, values, mask, [sets[s] for s in set_names], es_obs, metric=metric,
            weight=weight, n_perm=n_perm, seed=seed,
            dtype=np.float64 if dtype is None else as_float_dtype(dtype), progress=progress,
        )
        label = f"tasks on {type(client).__name__}"
    else:
        rt = get_runtime(device)
        dtype = rt.default_real() if dtype is None else as_float_dtype(dtype)
        null = _gsea_device.null_statistics(
            rt, values, mask, [sets[s] for s in set_names], es_obs, metric=metric,
            weight=weight, n_perm=n_perm, seed=seed, dtype=dtype, schedule=SCHEDULE,
            return_null=return_null, progress=progress,
        )
        label = rt.info.label
    table = pd.DataFrame(
        {
            "es": es_obs,
            "nes": null.nes,
            "pval": null.pval,
            "fdr": null.fdr,
            "fwer": null.fwer,
            "size": [len(sets[s]) for s in set_names],
            "leading_edge": leading,
        },
        index=pd.Index(set_names, name="term"),
    )
    es_null = None
    if null.es_table is not None:
        es_null = pd.DataFrame(null.es_table, index=table.index)
    table = table.sort_values("nes", ascending=False, kind="stable")
    ranking = pd.Series(sorted_metric, index=pd.Index([names[g] for g in order], name="gene"))
    return GseaResult(
        table=table,
        ranking=ranking,
        gene_sets={s: [names[g] for g in sets[s]] for s in set_names},
        metric=metric,
        weight=weight,
        classes=classes,
        n_perm=n_perm,
        n_filtered=n_filtered,
        device=label,
        es_null=es_null,
    )
