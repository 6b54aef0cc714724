"""Gene sets matched to the genes of the data: one rule for every enrichment (phenotype and
preranked GSEA, over-representation, the single-sample scores and GESECA).

>>> m = match_gene_sets({"a": ["G2", "G1", "X"], "b": ["G3"]}, ["G1", "G2", "G3", "G4"], 2, 3)
>>> m.names, [i.tolist() for i in m.members], m.n_left_out
(['a'], [[0, 1]], 1)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._readers.gmx import as_gene_sets
from .._validation import as_int


class MatchedSets(NamedTuple):
    """The kept sets' names, their members (indices into the genes: ascending, or in the set's
    own order when asked) and how many sets were left out."""

    names: list
    members: list
    n_left_out: int

    def by_name(self) -> dict[str, np.ndarray]:
        """``{name: members as uint32}`` (the GSEA kernels' index type)."""
        return {n: m.astype(np.uint32) for n, m in zip(self.names, self.members, strict=True)}


def match_gene_sets(gene_sets, genes, min_size, max_size=None, *, case_sensitive: bool = True,
                    ordered: bool = False, allow_empty: bool = False,
                    what: str = "data") -> MatchedSets:
    """Each set's genes of ``genes`` (unknown and repeated names dropped), kept when
    ``min_size <= size <= max_size`` (no upper bound for None) and smaller than the data.

    ``gene_sets`` is a dict ``{name: genes}``, a GMT/GMX path or a decoupler net; names are
    compared as strings, in upper case unless ``case_sensitive``. Members come ascending, or
    with ``ordered`` in the set's own order (GSVA's ``fmatch``). No set kept is an error
    naming the sizes and the first genes of the data (``what`` names the data), unless
    ``allow_empty``.
    """
    sets = as_gene_sets(gene_sets)
    if not isinstance(sets, dict):
        raise TypeError("gene_sets must be a dict {name: genes}, a GMT path or a decoupler net "
                        f"(source, target), got {type(sets).__name__}")
    if not sets:
        raise ValueError("gene_sets is empty")
    min_size = as_int(min_size, "min_size", minimum=1)
    max_size = None if max_size is None else as_int(max_size, "max_size", minimum=1)
    genes = [str(g) for g in genes]
    fold = (lambda s: s) if case_sensitive else (lambda s: s.upper())
    index: dict[str, int] = {}
    for i, g in enumerate(genes):
        key = fold(g)
        if key in index:
            raise ValueError(f"genes {genes[index[key]]!r} and {g!r} are the same name in upper "
                             "case; use case_sensitive=True")
        index[key] = i
    names, members = [], []
    for name, listed in sets.items():
        if isinstance(listed, str) or not hasattr(listed, "__iter__"):
            raise TypeError(f"gene set {name!r} must be a list of gene names")
        found = dict.fromkeys(index[k] for k in map(fold, map(str, listed)) if k in index)
        idx = np.array(list(found) if ordered else sorted(found), dtype=np.int64)
        if min_size <= idx.size < len(genes) and (max_size is None or idx.size <= max_size):
            names.append(str(name))
            members.append(idx)
    if not members and not allow_empty:
        sizes = (f"between min_size={min_size} and max_size={max_size}" if max_size is not None
                 else f"at least min_size={min_size}")
        raise ValueError(f"no gene set has {sizes} genes of the {what} (first genes: "
                         f"{genes[:3]}); check the gene names or the sizes")
    return MatchedSets(names, members, len(sets) - len(members))
