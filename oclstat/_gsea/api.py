"""The public function of GSEA with phenotype permutations."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._deprecation import renamed
from .._enrichment.gene_sets import match_gene_sets
from .._enrichment.inputs import probes_to_genes, read_paths, weight_and_sizes
from .._enrichment.walks import enrichment_score, leading_edge_stats
from .._labels import as_labelled, oriented
from .._random.streams import as_seed, fresh_seed
from .._readers.inference import input_of
from .._scale import executor
from .._validation import as_float_dtype
from . import gene_set_null, tasks
from .core import _order, ranking_metric
from .opencl import null_statistics
from .result import GseaResult
from .validate import _expression, _phenotype


@renamed(n_perm="n_resamples")
def gsea(
    expression,
    phenotype,
    gene_sets,
    *,
    n_resamples: int = 1000,
    metric: str | None = None,
    permutation: str = "phenotype",
    weight: float = 1.0,
    min_size: int = 15,
    max_size: int = 500,
    seed=None,
    classes=None,
    profile: str | None = None,
    genes=None,
    case_sensitive: bool = True,
    chip=None,
    collapse: str = "Collapse",
    collapse_mode: str | None = None,
    dtype=None,
    return_null: bool = False,
    device=None,
    client=None,
    progress=None,
) -> GseaResult:
    """Gene set enrichment analysis with phenotype permutations on the device.

    Parameters
    ----------
    expression : DataFrame, path or array_like
        Genes x samples (a DataFrame indexed by gene, a GCT/expression file, or an array with
        ``genes=``).
    phenotype : sequence, Series, Phenotype, ContinuousPhenotype or path
        One class label per sample, a :class:`oclstat.io.Phenotype` or a CLS file (two
        classes, or more with a comparison: ``classes="A_versus_B"``, ``"A_versus_REST"``, or
        the file as ``data.cls#A_versus_B``); or a continuous phenotype: a
        :class:`oclstat.io.ContinuousPhenotype` or ``#numeric`` CLS file (``data.cls#PROFILE``
        or ``profile=`` picks a profile), or one number per sample with a profile metric. A
        Series is matched to the samples by label.
    gene_sets : dict, path or DataFrame
        {name: genes}, a GMT file, or a decoupler net (``source`` and ``target`` columns;
        its weights are not used).
    n_resamples : int, optional
        Permutations (``n_perm=`` is the deprecated name).
    metric : str, optional
        Ranking metric (Broad GSEA's definitions; Broad's and GSEApy's names are accepted in
        any case: ``Signal2Noise``, ``tTest``, ``s2n``, ``abs_s2n``, ...). Two classes:
        "signal_to_noise" (the default, with Broad's variance floor), "t_test",
        "diff_of_classes", "ratio_of_classes", "log2_ratio_of_classes",
        "abs_signal_to_noise". A continuous profile: "pearson" (the default), "cosine",
        "manhattan", "euclidean".
    permutation : {"phenotype", "gene_set"}, optional
        What the null permutes (Broad's ``-permute``): the sample labels (or the profile's
        values), or the gene sets (random sets of each set's size on the observed ranking;
        Broad advises it for fewer than 7 samples per class, and an FDR cut of 5% rather than
        25%: ``result.fdr_threshold``).
    weight : float, optional
        ES weight p (0 classic Kolmogorov-Smirnov, 1 Broad's default).
    min_size, max_size : int, optional
        Sets with fewer or more genes in the data are left out.
    seed : int or six integers, optional
        Permutation ``i`` uses MRG31k3p stream ``i`` of the seed on every device, batch size
        and task split.
    classes : (str, str) or str, optional
        Class A and class B (default the CLS file's first class or the first label seen), or
        Broad's comparison "A_versus_B" (samples of other classes are left out) or
        "A_versus_REST" (every other class is B).
    profile : str, optional
        The profile of a continuous phenotype with several.
    genes : sequence of str, optional
        Gene names of an array ``expression``.
    case_sensitive : bool, optional
        Match gene names exactly (Broad GSEA ignores case when False).
    chip : dict or path, optional
        Probe -> gene symbol (a CHIP file): the expression's rows are probes, collapsed to
        genes first (Broad's Collapse Dataset, :func:`oclstat.io.collapse_probes`).
    collapse : str, optional
        Broad's ``Collapse`` (default), ``Remap_Only`` or ``No_Collapse``.
    collapse_mode : str, optional
        Broad's ``Max_probe`` (the default when collapsing), ``Median_of_probes``,
        ``Mean_of_probes``, ``Sum_of_probes`` or ``Abs_max_of_probes``; without ``chip``, rows
        that share a name are collapsed with it.
    dtype : numpy.float64 or numpy.float32, optional
        Precision of the permuted metrics (float32 by default on devices without fp64); every
        device gives the same ranks and ES for the same seed.
    return_null : bool, optional
        Keep the null ES of every set (``es_null``).
    device : device or list of devices, optional
        One device, or several that share the permutations.
    client : dask.distributed.Client or LocalDevices, optional
        Run the permutations as tasks (the same result for the same seed).
    progress : bool or None, optional
        Progress bar (None: automatic).

    Returns
    -------
    GseaResult
        ``table`` (one row per set, by decreasing NES: es, nes, pval, fdr, fwer, n_more,
        size, leading_edge), the ranking, and :meth:`GseaResult.running_sum` for plots.

    See Also
    --------
    oclstat.plot_enrichment : the running-sum plot of one set.
    oclstat.io.read_gct, oclstat.io.read_cls, oclstat.io.read_gmt : Broad's file formats.

    Notes
    -----
    ES, NES, nominal p, FDR q-value and FWER are Broad GSEA's definitions (phenotype
    permutations, NES by the mean of the same-signed null ES, FDR from the NES of every set).
    The ES of the permuted labellings come from exact integer sums of fixed-point weights,
    so they do not depend on the device or the order of summation.

    References
    ----------
    .. [1] Subramanian, A. et al. (2005). Gene set enrichment analysis: a knowledge-based
           approach for interpreting genome-wide expression profiles. PNAS 102(43),
           15545-15550.
    .. [2] Hundt, C., Hildebrandt, A. and Schmidt, B. (2016). rapidGSEA: speeding up gene set
           enrichment analysis on multi-core CPUs and CUDA-enabled GPUs. BMC Bioinformatics
           17, 394.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> rng = np.random.default_rng(1)
    >>> expr = pd.DataFrame(rng.normal(size=(200, 8)), index=[f"G{i}" for i in range(200)])
    >>> expr.iloc[:20, :4] += 2.0
    >>> res = oclstat.gsea(expr, ["a"] * 4 + ["b"] * 4, {"up": [f"G{i}" for i in range(20)]},
    ...                    n_resamples=200, min_size=10, seed=1)
    >>> res.table.index[0], bool(res.table["nes"].iloc[0] > 1)
    ('up', True)
    """

    permutation = _permutation(permutation)
    weight, n_resamples, min_size, max_size = weight_and_sizes(weight, n_resamples, min_size,
                                                                max_size)
    expression = probes_to_genes(expression, chip, collapse, collapse_mode, "expression")
    expression, phenotype, gene_sets, _ = read_paths(expression, phenotype, gene_sets)
    expression = as_labelled(oriented(expression, phenotype, "expression", "phenotype"),
                             "expression")
    values, names, samples = _expression(expression, genes)
    design, metric = _phenotype(phenotype, classes, values.shape[1], samples, metric=metric,
                                profile=profile)
    if design.kept is not None:
        values = values[:, design.kept]
    _check_design(values, design, metric, permutation)
    matched = match_gene_sets(gene_sets, names, min_size, max_size,
                              case_sensitive=case_sensitive, what="expression data")
    sets, n_filtered = matched.by_name(), matched.n_left_out

    # observed labelling, in float64 on the host
    m_obs, key_obs = ranking_metric(values, design.pheno, metric)
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
    edge_stats = np.empty((len(sets), 4))
    for i, name in enumerate(set_names):
        pos = np.sort(position[sets[name]])
        es, peak = enrichment_score(sorted_metric, pos, weight)
        es_obs[i] = es
        edge = pos[: peak + 1] if es >= 0 else pos[peak:][::-1]
        leading.append([names[order[q]] for q in edge])
        edge_stats[i] = leading_edge_stats(es, peak, pos, order.size)

    with executor(device, client, "gsea") as ex:
        null, label = _null(ex, permutation, values, design, sets, set_names, sorted_metric,
                            position, es_obs, metric=metric, weight=weight,
                            n_resamples=n_resamples, seed=seed, dtype=dtype,
                            return_null=return_null, progress=progress)
    table = pd.DataFrame(
        {
            "es": es_obs,
            "nes": null.nes,
            "pval": null.pval,
            "fdr": null.fdr,
            "fwer": null.fwer,
            "n_more": null.n_more,
            "size": [len(sets[s]) for s in set_names],
            "rank_at_max": edge_stats[:, 0].astype(np.int64),
            "leading_edge_tags": edge_stats[:, 1],
            "leading_edge_list": edge_stats[:, 2],
            "leading_edge_signal": edge_stats[:, 3],
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
        classes=design.classes,
        n_resamples=n_resamples,
        n_filtered=n_filtered,
        device=label,
        es_null=es_null,
        input=input_of(expression, phenotype, gene_sets),
        permutation=permutation,
        profile=design.profile,
        expression=pd.DataFrame(values, index=pd.Index(names, name="gene"), copy=False,
                                columns=_compared(samples, design, values.shape[1])),
        sample_labels=(tuple(float(v) for v in design.template) if design.template is not None
                       else tuple(design.classes[0] if a else design.classes[1]
                                  for a in design.mask)),
    )


def _compared(samples, design, n: int) -> list:
    """The names of the samples compared (those a comparison keeps; S1.. for an array)."""
    if samples is None:
        return [f"S{i + 1}" for i in range(n)]
    kept = range(len(samples)) if design.kept is None else np.flatnonzero(design.kept)
    return [str(samples[i]) for i in kept]


def _permutation(permutation) -> str:
    """Broad's ``-permute`` value (any case; "gene_set" also as "geneset" or "gene_sets")."""
    key = str(permutation).strip().lower().replace("-", "_")
    key = {"geneset": "gene_set", "gene_sets": "gene_set", "phenotypes": "phenotype"}.get(key,
                                                                                       key)
    if key not in ("phenotype", "gene_set"):
        raise ValueError(f"permutation must be 'phenotype' or 'gene_set', got {permutation!r}")
    return key


def _check_design(values, design, metric, permutation) -> None:
    """Class sizes and values the metric needs."""
    if design.mask is not None:
        mask = design.mask
        n_a, n_b = int(mask.sum()), int((~mask).sum())
        need = 2 if metric in ("signal_to_noise", "t_test", "abs_signal_to_noise") else 1
        a, b = design.classes
        if min(n_a, n_b) < need:
            raise ValueError(f"phenotype: class sizes {n_a} ({a}) and {n_b} ({b}); metric "
                             f"{metric!r} needs at least {need} samples in each class")
    if metric in ("ratio_of_classes", "log2_ratio_of_classes") and values.min() <= 0:
        raise ValueError(f"metric {metric!r} needs positive expression values (the data has "
                         f"minimum {values.min():g}); use signal_to_noise or diff_of_classes")


def _null(ex, permutation, values, design, sets, set_names, sorted_metric, position, es_obs,
          *, metric, weight, n_resamples, seed, dtype, return_null, progress):
    """``(null statistics, where they ran)``: Broad's gene-set permutation on one device, or
    the phenotype permutations on one device or as tasks on the executor ``ex``."""
    if permutation == "gene_set":
        if ex.several:
            raise ValueError("permutation='gene_set' runs on one device; client= and several "
                             "devices are for phenotype permutations")
        rt = ex.runtime
        dtype = rt.default_real() if dtype is None else as_float_dtype(dtype)
        null = gene_set_null.null_statistics(
            rt, sorted_metric, [np.sort(position[sets[s]]) for s in set_names], es_obs,
            weight=weight, n_resamples=n_resamples, seed=seed, dtype=dtype,
            return_null=return_null, progress=progress)
        return null, rt.info.label
    if ex.several:
        if return_null:
            raise ValueError("return_null=True is not available with client= or several "
                             "devices")
        words = fresh_seed() if seed is None else as_seed(seed)
        null = tasks.null_statistics(
            ex, values, design.pheno, [sets[s] for s in set_names], es_obs, metric=metric,
            weight=weight, n_resamples=n_resamples, words=words,
            dtype=np.float64 if dtype is None else as_float_dtype(dtype), progress=progress)
        return null, f"tasks on {type(ex.client).__name__}"
    rt = ex.runtime
    dtype = rt.default_real() if dtype is None else as_float_dtype(dtype)
    null = null_statistics(
        rt, values, design.pheno, [sets[s] for s in set_names], es_obs, metric=metric,
        weight=weight, n_resamples=n_resamples, seed=seed, dtype=dtype,
        return_null=return_null, progress=progress,
    )
    return null, rt.info.label
