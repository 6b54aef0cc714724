"""Preranked GSEA's frozen result, in fgsea's columns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._enrichment.walks import running_sum
from .._results import Result

#: Sets per direction ``str()`` shows.
_SHOWN = 10

#: fgsea's result columns, in its order.
FGSEA_COLUMNS = ("pathway", "pval", "padj", "log2err", "ES", "NES", "size", "leadingEdge")


@dataclass(frozen=True, repr=False)
class PrerankResult(Result):
    """Result of :func:`gsea_prerank`.

    table
        One row per gene set (index ``pathway``), in fgsea's columns: ``pval`` (nominal),
        ``padj`` (Benjamini-Hochberg), ``log2err`` (expected standard deviation of log2 p;
        NaN where fgsea gives NA), ``ES``, ``NES``, ``size`` (genes of the set in the ranking),
        ``leadingEdge`` (genes up to the ES peak, in ranking order); then Broad's
        ``rank_at_max``, ``leading_edge_tags``, ``_list`` and ``_signal``. Sorted by p-value.
    ranking
        The statistics in ranking order (a Series indexed by gene).
    """

    table: pd.DataFrame
    ranking: pd.Series
    gene_sets: dict
    method: str
    weight: float
    n_resamples: int
    sample_size: int
    eps: float
    n_filtered: int
    n_multilevel: int
    device: str
    #: fgsea's scoreType: "std" (two-sided), "pos" or "neg" (one-tailed).
    score_type: str = "std"

    #: Names the plots and the report use.
    metric = "statistic"
    classes = ("top of the ranking", "bottom of the ranking")

    def _repr_fields(self) -> dict:
        t = self.table
        top = None
        if len(t):
            top = f"{t.index[0]} (NES {t['NES'].iloc[0]:.3g}, padj {t['padj'].iloc[0]:.3g})"
        return dict(sets=len(t), genes=len(self.ranking),
                    method=self.method, n_resamples=self.n_resamples,
                    significant=int((t["padj"] < 0.05).sum()) if len(t) else 0, top=top)

    def __str__(self) -> str:
        parts = [repr(self)]
        cols = ["pval", "padj", "log2err", "ES", "NES", "size"]
        for title, table in (("ES > 0 (top of the ranking)", self.positive),
                             ("ES <= 0 (bottom of the ranking)", self.negative)):
            shown = table.head(_SHOWN)[cols]
            with pd.option_context("display.width", 140, "display.max_columns", 20,
                                   "display.max_colwidth", 48,
                                   "display.float_format", lambda v: f"{v:.4g}"):
                text = shown.to_string() if len(shown) else "(none)"
            more = len(table) - len(shown)
            parts.append(f"{title}: {len(table)} sets\n{text}"
                         + (f"\n... {more} more: .positive / .negative / .to_frame()"
                            if more > 0 else ""))
        return "\n\n".join(parts)

    def to_frame(self) -> pd.DataFrame:
        """fgsea's table: one row per set with a ``pathway`` column, by p-value."""
        out = self.table.reset_index()
        return out[list(FGSEA_COLUMNS) + [c for c in out.columns if c not in FGSEA_COLUMNS]]

    @property
    def positive(self) -> pd.DataFrame:
        """Sets with ES > 0, by decreasing NES."""
        t = self.table[self.table["ES"] > 0]
        return t.iloc[np.argsort(-t["NES"].to_numpy(), kind="stable")]

    @property
    def negative(self) -> pd.DataFrame:
        """Sets with ES <= 0, by increasing NES."""
        t = self.table[self.table["ES"] <= 0]
        return t.iloc[np.argsort(t["NES"].to_numpy(), kind="stable")]

    def running_sum(self, set_name: str) -> np.ndarray:
        """The running enrichment sum of ``set_name`` along the ranking."""
        return running_sum(self.ranking.to_numpy(), self._positions(set_name), self.weight)

    def _positions(self, set_name: str) -> np.ndarray:
        if set_name not in self.gene_sets:
            raise KeyError(f"no gene set {set_name!r} in this result")
        return np.sort(pd.Index(self.ranking.index).get_indexer(self.gene_sets[set_name]))

    def to_tsv(self, path) -> None:
        """Write fgsea's table as tab-separated text (leading-edge genes joined by ``;``)."""
        out = self.to_frame()
        out["leadingEdge"] = [";".join(g) for g in out["leadingEdge"]]
        out.to_csv(path, sep="\t", index=False, float_format="%.6g")
