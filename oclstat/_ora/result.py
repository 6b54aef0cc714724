"""Over-representation's frozen result, in fgsea's ``fora`` columns."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .._results import Result

#: fgsea's fora columns, in its order.
FORA_COLUMNS = ("pathway", "pval", "padj", "foldEnrichment", "overlap", "size", "overlapGenes")


@dataclass(frozen=True, repr=False)
class OraResult(Result):
    """Result of :func:`ora`.

    table
        One row per gene set (index ``pathway``; with several gene lists, per list and set,
        index ``(list, pathway)``), in fgsea's ``fora`` columns: ``pval`` (P(overlap >= the
        observed one), hypergeometric), ``padj`` (Benjamini-Hochberg over the sets, per
        list), ``foldEnrichment`` ((overlap / list size) / (set size / universe size)),
        ``overlap``, ``size`` (the set's genes in the universe), ``overlapGenes`` (in the
        universe's order; empty lists when not asked for). Sorted by p-value within each list.
    list_sizes
        The genes of each list in the universe (a Series by list name).
    universe_size
        The genes of the universe.
    n_filtered
        Gene sets left out by the size limits.
    """

    table: pd.DataFrame
    list_sizes: pd.Series
    universe_size: int
    n_filtered: int
    device: str
    gene_sets: dict = field(default_factory=dict, repr=False)

    def _repr_fields(self) -> dict:
        t = self.table
        top = None
        if len(t):
            top = f"{t.index[0]} (overlap {t['overlap'].iloc[0]}, padj {t['padj'].iloc[0]:.3g})"
        return dict(lists=len(self.list_sizes),
                    sets=len(t) // max(1, len(self.list_sizes)),
                    universe=self.universe_size,
                    significant=int((t["padj"] < 0.05).sum()) if len(t) else 0, top=top)

    @property
    def several(self) -> bool:
        """Whether the result holds several gene lists (index ``(list, pathway)``)."""
        return isinstance(self.table.index, pd.MultiIndex)

    def to_frame(self) -> pd.DataFrame:
        """fgsea's table: one row per set (and list), with ``pathway`` (and ``list``) columns."""
        out = self.table.reset_index()
        first = ["list"] if self.several else []
        return out[first + list(FORA_COLUMNS)]

    def pvalues(self) -> pd.DataFrame:
        """Sets x lists of p-values (sets in the order given)."""
        t = self.table.reset_index()
        if not self.several:
            t["list"] = self.list_sizes.index[0]
        wide = t.pivot(index="pathway", columns="list", values="pval")
        return wide.loc[list(self.gene_sets), list(self.list_sizes.index)]
