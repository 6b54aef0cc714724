"""The checks of :func:`oclstat.ora`: the universe, the gene lists and the gene sets, matched
to the universe as fgsea's ``fora`` matches them."""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._enrichment.gene_sets import match_gene_sets
from .._validation import as_int

#: fgsea's words when genes of a list are not in the universe.
NOT_IN_UNIVERSE = ("Not all of the input genes belong to the universe, such genes were "
                   "removed")


def _names(values, what: str) -> list[str]:
    """Gene names as strings; refuses a bare string, missing and empty names."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{what} must be a list of gene names, got {type(values).__name__}")
    out = []
    for v in values:
        if v is None or (isinstance(v, float) and np.isnan(v)) or v is pd.NA:
            raise ValueError(f"{what} has a missing gene name (None/NaN); remove it first")
        name = str(v)
        if not name:
            raise ValueError(f"{what} has an empty gene name; remove it first")
        out.append(name)
    return out


def universe_names(universe) -> list[str]:
    """The universe's genes, in order: non-empty and without duplicates."""
    if universe is None:
        raise TypeError("universe is required: the genes the lists were drawn from (e.g. "
                        "every gene measured)")
    names = _names(universe, "universe")
    if len(names) < 2:
        raise ValueError(f"universe needs at least 2 genes, got {len(names)}")
    seen = pd.Index(names)
    if seen.has_duplicates:
        raise ValueError(f"universe has duplicate gene {seen[seen.duplicated()][0]!r}; give "
                         "each gene once")
    return names


def gene_lists(genes, index: dict) -> tuple[list[str], np.ndarray, bool]:
    """(list names, membership rows (n_lists, universe) bool, several lists given?). One list
    (a sequence of names) or several ({name: names}); genes outside the universe are dropped
    with fgsea's warning, repeated genes count once."""
    many = isinstance(genes, Mapping)
    lists = dict(genes) if many else {"genes": genes}
    if not lists:
        raise ValueError("genes is empty: give a list of gene names or {name: list}")
    names = [str(k) for k in lists]
    if len(set(names)) != len(names):
        raise ValueError("genes has two lists of one name")
    rows = np.zeros((len(lists), len(index)), dtype=bool)
    outside = False
    for i, (name, members) in enumerate(lists.items()):
        what = f"genes[{name!r}]" if many else "genes"
        for g in _names(members, what):
            j = index.get(g)
            if j is None:
                outside = True
            else:
                rows[i, j] = True
    if outside:
        warnings.warn(NOT_IN_UNIVERSE, UserWarning, stacklevel=3)
    return names, rows, many


def sets_in_universe(gene_sets, universe: list[str], min_size, max_size):
    """({name: sorted universe indices}, number left out): each set's genes in the universe,
    kept when ``min_size <= size <= max_size`` (default: one less than the universe, fgsea's
    ``maxSize``)."""
    n = len(universe)
    min_size = as_int(min_size, "min_size", minimum=1)
    if max_size is None or (isinstance(max_size, float) and max_size == np.inf):
        max_size = n - 1
    max_size = as_int(max_size, "max_size", minimum=1)
    if max_size < min_size:
        raise ValueError(f"max_size ({max_size}) must be >= min_size ({min_size})")
    matched = match_gene_sets(gene_sets, universe, min_size, max_size, what="universe")
    return matched.by_name(), matched.n_left_out
