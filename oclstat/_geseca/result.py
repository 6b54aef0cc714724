"""GESECA's frozen result, in fgsea's ``geseca`` / ``gesecaSimple`` columns."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from .._results import Result

#: fgsea's geseca columns, and gesecaSimple's.
GESECA_COLUMNS = ("pathway", "pctVar", "pval", "padj", "log2err", "size")
SIMPLE_COLUMNS = ("pathway", "pctVar", "pval", "padj", "nMoreExtreme", "size")


@dataclass(frozen=True, repr=False)
class GesecaResult(Result):
    """Result of :func:`geseca`.

    table
        One row per gene set kept (index ``pathway``), by p-value: ``pctVar`` (the percent
        of the total variance of the centred expression that the set's profile explains, per
        gene), ``pval``, ``padj`` (Benjamini-Hochberg over every set), ``log2err`` (the
        standard deviation of log2 p; NaN where p reached ``eps``) or, with
        ``method="simple"``, ``nMoreExtreme`` (random sets scoring at least as high), and
        ``size`` (the set's genes in the data).
    n_resamples
        Random sets of every size drawn for the simple p-values.
    n_multilevel
        Sets whose p-value came from multilevel splitting.
    seed
        The six words of the MRG31k3p seed (the same seed gives the same table on every
        device).
    """

    table: pd.DataFrame
    n_resamples: int
    n_multilevel: int
    n_filtered: int
    seed: tuple
    device: str
    gene_sets: dict = field(default_factory=dict, repr=False)

    def _repr_fields(self) -> dict:
        t = self.table
        top = None
        if len(t):
            top = f"{t.index[0]} (pctVar {t['pctVar'].iloc[0]:.3g}, p {t['pval'].iloc[0]:.3g})"
        return dict(sets=len(t), n_resamples=self.n_resamples,
                    multilevel=self.n_multilevel,
                    significant=int((t["padj"] < 0.05).sum()) if len(t) else 0, top=top)

    def to_frame(self) -> pd.DataFrame:
        """fgsea's table: one row per set with a ``pathway`` column."""
        cols = GESECA_COLUMNS if "log2err" in self.table else SIMPLE_COLUMNS
        return self.table.reset_index()[list(cols)]
