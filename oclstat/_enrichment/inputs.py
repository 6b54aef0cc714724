"""The enrichments' inputs: paths read (expression, CLS, GMT/GMX, RNK), probes collapsed to
genes (Broad's Collapse Dataset), the walk's weight and the gene-set size bounds checked.

>>> weight_and_sizes(1, 1000, 15, 500)
(1.0, 1000, 15, 500)
>>> weight_and_sizes(-1, 1000, 15, 500)
Traceback (most recent call last):
ValueError: weight must be a finite number >= 0, got -1.0
"""

from __future__ import annotations

import numpy as np

from .. import io as _io
from .._readers.gmx import as_gene_sets
from .._readers.text import is_path
from .._validation import as_int


def read_paths(expression=None, phenotype=None, gene_sets=None, ranking=None):
    """The inputs given as paths, read (GCT/expression, CLS, GMT or GMX, RNK); others unchanged. The
    readers' outputs carry what was read (``input``), which the result keeps."""
    return (_io.read_expression(expression) if is_path(expression) else expression,
            _io.read_cls(phenotype) if is_path(phenotype) else phenotype,
            as_gene_sets(gene_sets),
            _io.read_rnk(ranking) if is_path(ranking) else ranking)


def probes_to_genes(data, chip, collapse, mode, kind: str):
    """``data`` (``kind`` "expression" or "ranking") collapsed to genes (Broad's Collapse
    Dataset, :func:`oclstat.io.collapse_probes`) when a CHIP or a collapse mode is given, else
    unchanged; a path is read first (repeated names kept). What was done joins the data's
    ``input``."""
    if chip is None and mode is None:
        if collapse not in (None, "Collapse", "No_Collapse", "collapse", "no_collapse"):
            raise ValueError(f"collapse={collapse!r} needs a chip (probe -> gene symbol)")
        return data
    if is_path(data):
        data = (_io.read_expression(data, duplicates="keep") if kind == "expression"
                else _io.read_rnk(data))
    out = _io.collapse_probes(data, chip, mode=mode or "Max_probe",
                              collapse=collapse or "Collapse")
    info = getattr(data, "attrs", {}).get("input")
    if out is not data:
        out.attrs["input"] = (info.with_notes(out.attrs["collapse"]) if info is not None
                              else None)
    return out


def weight_and_sizes(weight, n_resamples, min_size, max_size):
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
