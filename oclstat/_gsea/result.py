"""GSEA's frozen result."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._enrichment.walks import running_sum
from .._results import Result
from .broad import broad_table

#: Sets per direction ``str()`` shows.
_SHOWN = 10


@dataclass(frozen=True, repr=False)
class GseaResult(Result):
    """Result of :func:`gsea`.

    table
        One row per gene set (index: set name), sorted by decreasing NES: ``es``, ``nes``,
        ``pval`` (nominal), ``fdr`` (Broad's q-value), ``fwer`` (p- and q-values count the
        observed labelling, (k + 1) / (n + 1), never 0), ``n_more`` (the k of ``pval``: null
        ES of the set's sign at least as extreme, fgsea's nMoreExtreme), ``size`` (genes of
        the set in the data), ``rank_at_max`` (where the running sum peaks), ``leading_edge_tags``,
        ``_list`` and ``_signal`` (Broad's leading-edge numbers) and ``leading_edge`` (the
        genes up to the ES peak, in ranking order). :attr:`positive` and :attr:`negative`
        give the two directions in Broad's report columns.
    ranking
        The observed metric of every gene, in ranking order (a Series indexed by gene).
    es_null
        With ``return_null=True``: the null ES, sets x permutations (a DataFrame).
    classes
        (class A, class B); ("na_pos", "na_neg") for a continuous ``profile`` (Broad's names
        of a ranking's two ends).
    permutation
        "phenotype" or "gene_set" (what the null permuted); :attr:`fdr_threshold` follows it.
    """

    table: pd.DataFrame
    ranking: pd.Series
    gene_sets: dict
    metric: str
    weight: float
    classes: tuple
    n_resamples: int
    n_filtered: int
    device: str
    es_null: pd.DataFrame | None = field(default=None, repr=False)
    permutation: str = "phenotype"
    #: The continuous profile's name (None for two classes).
    profile: str | None = None
    #: The expression the ranking came from (genes x the samples compared; not a copy), for
    #: the dataset of Broad's report folder; None where not kept.
    expression: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    #: Each compared sample's class (or profile value), for the folder's CLS file.
    sample_labels: tuple | None = field(default=None, compare=False, repr=False)

    @property
    def fdr_threshold(self) -> float:
        """The FDR q-value under which a set is reported (Broad's guide): 0.25 with phenotype
        permutations, 0.05 with gene-set permutations, whose null ignores gene-gene
        correlation and gives smaller q-values."""
        return 0.05 if self.permutation == "gene_set" else 0.25

    @property
    def n_perm(self) -> int:
        """Deprecated name of :attr:`n_resamples`."""
        warnings.warn("GseaResult.n_perm is now n_resamples (the old name goes in the next "
                      "release)", DeprecationWarning, stacklevel=2)
        return self.n_resamples

    def _repr_fields(self) -> dict:
        t = self.table
        top = None
        if len(t):
            best = t.index[0]
            top = f"{best} (NES {t['nes'].iloc[0]:.3g}, FDR {t['fdr'].iloc[0]:.3g})"
        design = (f"profile {self.profile}" if self.profile is not None
                  else f"{self.classes[0]} vs {self.classes[1]}")
        return dict(sets=len(t), n_resamples=self.n_resamples,
                    permutation=self.permutation, metric=self.metric, classes=design,
                    significant=(int((t["fdr"] < self.fdr_threshold).sum())
                                 if len(t) else 0), top=top)

    @property
    def positive(self) -> pd.DataFrame:
        """The sets enriched in ``classes[0]`` (ES >= 0) in Broad's report columns, by
        decreasing NES."""
        return broad_table(self.table, "pos")

    @property
    def negative(self) -> pd.DataFrame:
        """The sets enriched in ``classes[1]`` (ES < 0) in Broad's report columns, by
        increasing NES."""
        return broad_table(self.table, "neg")

    def __str__(self) -> str:
        parts = [repr(self)]
        for title, table in ((f"enriched in {self.classes[0]} (ES >= 0)", self.positive),
                             (f"enriched in {self.classes[1]} (ES < 0)", self.negative)):
            shown = table.head(_SHOWN).drop(columns=["GS<br> follow link to MSigDB",
                                                     "GS DETAILS", "LEADING EDGE"])
            with pd.option_context("display.width", 140, "display.max_columns", 20,
                                   "display.float_format", lambda v: f"{v:.4g}"):
                text = shown.to_string(index=False) if len(shown) else "(none)"
            more = len(table) - len(shown)
            parts.append(f"{title}: {len(table)} sets\n{text}"
                         + (f"\n... {more} more: .positive / .negative" if more > 0 else ""))
        return "\n\n".join(parts)

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
