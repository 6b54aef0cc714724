"""GSEA results in Broad GSEA's report columns: one table per direction, ordered by NES away
from zero (:mod:`oclstat.report` writes them with plots as HTML)."""

from __future__ import annotations

import pandas as pd

__all__ = ["BROAD_COLUMNS", "broad_table"]

#: The columns of Broad GSEA's ``gsea_report_for_*`` tables.
BROAD_COLUMNS = ("NAME", "SIZE", "ES", "NES", "NOM p-val", "FDR q-val", "FWER p-val",
                 "RANK AT MAX", "LEADING EDGE")


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
    edge = [f"tags={t:.0%}, list={u:.0%}, signal={s:.0%}" for t, u, s in
            zip(part["leading_edge_tags"], part["leading_edge_list"],
                part["leading_edge_signal"], strict=True)]
    return pd.DataFrame({"NAME": list(part.index), "SIZE": part["size"].to_numpy(),
                         "ES": part["es"].to_numpy(), "NES": part["nes"].to_numpy(),
                         "NOM p-val": part["pval"].to_numpy(),
                         "FDR q-val": part["fdr"].to_numpy(),
                         "FWER p-val": part["fwer"].to_numpy(),
                         "RANK AT MAX": part["rank_at_max"].to_numpy(),
                         "LEADING EDGE": edge})
