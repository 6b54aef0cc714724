"""Small example data shipped with oclstat (published counts; see ``oclstat/data/*/README.md``).

>>> t = fisher_table("weekday")
>>> t.shape, int(t.values.sum())
((7, 12), 12865)
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

DATA_DIR = Path(__file__).resolve().parent / "data"
FISHER_TABLES = ("month", "weekday")


def fisher_table(name: str) -> pd.DataFrame:
    """One of the two congenital-anomaly tables (births in the US, 2018) as a DataFrame of
    counts: ``"month"`` (12 birth months x 12 anomalies) or ``"weekday"`` (7 x 12)."""
    if name not in FISHER_TABLES:
        raise ValueError(f"name must be one of {FISHER_TABLES}, got {name!r}")
    return pd.read_csv(DATA_DIR / "fisher" / f"{name}.csv", index_col=0)


def shared_data_file(*parts: str) -> Path | None:
    """A file of the project's shared real data (``../shared/data`` beside the checkout, or
    ``$OCLSTAT_SHARED_DATA``), or None where it is absent (an installed wheel on its own)."""
    roots = [os.environ.get("OCLSTAT_SHARED_DATA"), Path.cwd().parent / "shared" / "data",
             Path(__file__).resolve().parents[2] / "shared" / "data"]
    for root in roots:
        if root and (Path(root).joinpath(*parts)).is_file():
            return Path(root).joinpath(*parts)
    return None
