"""Checks of GSEA's inputs: expression, phenotype (aligned to the samples by label), gene
sets restricted to the data and filtered by size."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from .. import io as _io
from .._labels import aligned, is_default_index
from .._validation import as_int

METRICS = (
    "signal_to_noise",
    "t_test",
    "diff_of_classes",
    "ratio_of_classes",
    "log2_ratio_of_classes",
)


_ALIASES = {"s2n": "signal_to_noise"}


def read_paths(expression=None, phenotype=None, gene_sets=None, ranking=None):
    """The inputs given as paths, read (GCT/expression, CLS, GMT or GMX, RNK); others unchanged. The
    readers' outputs carry what was read (``input``), which the result keeps."""
    def path(x):
        return isinstance(x, (str, os.PathLike))

    return (_io.read_expression(expression) if path(expression) else expression,
            _io.read_cls(phenotype) if path(phenotype) else phenotype,
            _io.read_gene_set_file(gene_sets) if path(gene_sets) else gene_sets,
            _io.read_rnk(ranking) if path(ranking) else ranking)


def probes_to_genes(data, chip, collapse, mode, kind: str):
    """``data`` (``kind`` "expression" or "ranking") collapsed to genes (Broad's Collapse
    Dataset, :func:`oclstat.io.collapse_probes`) when a CHIP or a collapse mode is given, else
    unchanged; a path is read first (repeated names kept). What was done joins the data's
    ``input``."""
    if chip is None and mode is None:
        if collapse not in (None, "Collapse", "No_Collapse", "collapse", "no_collapse"):
            raise ValueError(f"collapse={collapse!r} needs a chip (probe -> gene symbol)")
        return data
    if isinstance(data, (str, os.PathLike)):
        data = (_io.read_expression(data, duplicates="keep") if kind == "expression"
                else _io.read_rnk(data))
    out = _io.collapse_probes(data, chip, mode=mode or "Max_probe",
                              collapse=collapse or "Collapse")
    info = getattr(data, "attrs", {}).get("input")
    if out is not data:
        out.attrs["input"] = (info.with_notes(out.attrs["collapse"]) if info is not None
                              else None)
    return out


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


def _weight_and_sizes(weight, n_resamples, min_size, max_size):
    """``(weight, n_resamples, min_size, max_size)`` checked (gsea and gsea_prerank)."""
    try:
        weight = float(weight)
    except (TypeError, ValueError):
        raise TypeError(f"weight must be a number, got {weight!r}") from None
    if not np.isfinite(weight) or weight < 0:
        raise ValueError(f"weight must be a finite number >= 0, got {weight}")
    n_resamples = as_int(n_resamples, "n_resamples", minimum=1)
    min_size = as_int(min_size, "min_size", minimum=1)
    max_size = as_int(max_size, "max_size", minimum=1)
    if max_size < min_size:
        raise ValueError(f"max_size ({max_size}) must be >= min_size ({min_size})")
    return weight, n_resamples, min_size, max_size


def _gene_sets(gene_sets, names, min_size, max_size, case_sensitive, what="expression data"):
    if isinstance(gene_sets, (str, os.PathLike)):
        gene_sets = _io.read_gene_set_file(gene_sets)
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
            f"{what} (first genes: {names[:3]}); check the gene names or the sizes"
        )
    return kept, len(gene_sets) - len(kept)
