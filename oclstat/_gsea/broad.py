"""GSEA results in Broad GSEA's report columns: one table per direction, ordered by NES away
from zero (:mod:`oclstat.report` writes them with plots as HTML)."""

from __future__ import annotations

import pandas as pd

__all__ = ["BROAD_COLUMNS", "broad_table", "prerank_broad_table"]

#: The columns of Broad GSEA's ``gsea_report_for_*`` tables, in Broad's order (EnrichmentMap
#: reads them by position: name 0, SIZE 3, ES 4, NES 5, NOM p 6, FDR 7, FWER 8, RANK AT MAX 9).
BROAD_COLUMNS = ("NAME", "GS<br> follow link to MSigDB", "GS DETAILS", "SIZE", "ES", "NES",
                 "NOM p-val", "FDR q-val", "FWER p-val", "RANK AT MAX", "LEADING EDGE")


def _edge_text(part) -> list:
    return [f"tags={t:.0%}, list={u:.0%}, signal={s:.0%}" for t, u, s in
            zip(part["leading_edge_tags"], part["leading_edge_list"],
                part["leading_edge_signal"], strict=True)]


def _frame(names, size, es, nes, pval, fdr, fwer, rank, edge) -> pd.DataFrame:
    names = list(names)
    return pd.DataFrame({"NAME": names, "GS<br> follow link to MSigDB": names,
                         "GS DETAILS": ["Details ..."] * len(names), "SIZE": size, "ES": es,
                         "NES": nes, "NOM p-val": pval, "FDR q-val": fdr, "FWER p-val": fwer,
                         "RANK AT MAX": rank, "LEADING EDGE": edge})


def broad_table(table: pd.DataFrame, direction: str) -> pd.DataFrame:
    """The sets of one direction ("pos": ES >= 0, "neg": ES < 0) in Broad's columns, ordered
    by NES away from zero (ties by name).

    >>> t = pd.DataFrame({"es": [0.5, -0.4], "nes": [1.5, -1.2], "pval": [0.01, 0.2],
    ...                   "fdr": [0.02, 0.3], "fwer": [0.03, 0.5], "size": [20, 30],
    ...                   "rank_at_max": [100, 900], "leading_edge_tags": [0.55, 0.4],
    ...                   "leading_edge_list": [0.14, 0.2], "leading_edge_signal": [0.63, 0.5]},
    ...                  index=pd.Index(["UP", "DOWN"], name="term"))
    >>> broad_table(t, "pos").iloc[0]["LEADING EDGE"]
    'tags=55%, list=14%, signal=63%'
    """
    if direction not in ("pos", "neg"):
        raise ValueError(f"direction must be 'pos' or 'neg', got {direction!r}")
    part = table[table["es"] >= 0] if direction == "pos" else table[table["es"] < 0]
    key = -part["nes"] if direction == "pos" else part["nes"]
    part = part.assign(_key=key.to_numpy(), _name=list(part.index)).sort_values(
        ["_key", "_name"], kind="stable")
    return _frame(part.index, part["size"].to_numpy(), part["es"].to_numpy(),
                  part["nes"].to_numpy(), part["pval"].to_numpy(), part["fdr"].to_numpy(),
                  part["fwer"].to_numpy(), part["rank_at_max"].to_numpy(), _edge_text(part))


def prerank_broad_table(table: pd.DataFrame, direction: str) -> pd.DataFrame:
    """A preranked result's sets of one direction ("pos": ES > 0, "neg": ES <= 0) in Broad's
    columns (its GSEAPreranked report), ordered by NES away from zero: FDR q-val is fgsea's
    padj (Benjamini-Hochberg) and FWER p-val Bonferroni's min(1, p m) over the m sets tested,
    both stated in the report; sets without a p-value (NaN) keep NaN.

    >>> t = pd.DataFrame({"ES": [0.5], "NES": [1.5], "pval": [0.01], "padj": [0.02],
    ...                   "size": [20], "rank_at_max": [100], "leading_edge_tags": [0.5],
    ...                   "leading_edge_list": [0.1], "leading_edge_signal": [0.6]},
    ...                  index=pd.Index(["UP"], name="pathway"))
    >>> prerank_broad_table(t, "pos")[["NAME", "FDR q-val", "FWER p-val"]].to_dict("records")
    [{'NAME': 'UP', 'FDR q-val': 0.02, 'FWER p-val': 0.01}]
    """
    if direction not in ("pos", "neg"):
        raise ValueError(f"direction must be 'pos' or 'neg', got {direction!r}")
    part = table[table["ES"] > 0] if direction == "pos" else table[table["ES"] <= 0]
    key = -part["NES"] if direction == "pos" else part["NES"]
    part = part.assign(_key=key.to_numpy(), _name=list(part.index)).sort_values(
        ["_key", "_name"], kind="stable")
    fwer = (part["pval"] * len(table)).clip(upper=1.0)
    return _frame(part.index, part["size"].to_numpy(), part["ES"].to_numpy(),
                  part["NES"].to_numpy(), part["pval"].to_numpy(), part["padj"].to_numpy(),
                  fwer.to_numpy(), part["rank_at_max"].to_numpy(), _edge_text(part))
