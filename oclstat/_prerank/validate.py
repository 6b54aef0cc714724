"""Checks of preranked GSEA's inputs: the ranking (a Series, a two-column table, a dict or an
``.rnk`` file), the method and its numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import io as _io
from .._readers.text import is_path

METHODS = ("multilevel", "simple")
SCORE_TYPES = ("std", "pos", "neg")


def _ranking(ranking) -> tuple[np.ndarray, list]:
    """``(stats, names)`` in input order; NaN, infinite, duplicate or missing names raise."""
    if is_path(ranking):
        ranking = _io.read_rnk(ranking)
    if isinstance(ranking, dict):
        ranking = pd.Series(ranking, dtype=object)
    if isinstance(ranking, pd.DataFrame):
        if ranking.shape[1] == 2:
            ranking = pd.Series(ranking.iloc[:, 1].to_numpy(),
                                index=ranking.iloc[:, 0].astype(str).to_numpy())
        elif ranking.shape[1] == 1:
            ranking = ranking.iloc[:, 0]
        else:
            raise ValueError(f"ranking: a table needs two columns (gene, statistic) or one "
                             f"column indexed by gene, got {ranking.shape[1]} columns")
    if not isinstance(ranking, pd.Series):
        raise TypeError("ranking must be a Series (gene -> statistic), a two-column table, a "
                        f"dict or an .rnk path, got {type(ranking).__name__}")
    names = [str(g) for g in ranking.index]
    try:
        stats = ranking.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("ranking: the statistics must be numbers") from None
    if stats.size < 3:
        raise ValueError(f"ranking needs at least 3 genes, got {stats.size}")
    bad = ~np.isfinite(stats)
    if bad.any():
        first = names[int(np.flatnonzero(bad)[0])]
        raise ValueError(f"ranking has {int(bad.sum())} missing or infinite statistics (first: "
                         f"{first!r}); remove those genes first")
    index = pd.Index(names)
    if index.has_duplicates:
        dup = index[index.duplicated()]
        raise ValueError(f"ranking has {dup.size} duplicate gene names (first: {dup[0]!r}); "
                         "keep one statistic per gene")
    return stats, names


def _method(method: str) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _score_type(score_type: str) -> str:
    if score_type not in SCORE_TYPES:
        raise ValueError(f"score_type must be one of {SCORE_TYPES}, got {score_type!r}")
    return score_type


def _eps(eps) -> float:
    try:
        eps = float(eps)
    except (TypeError, ValueError):
        raise TypeError(f"eps must be a number, got {eps!r}") from None
    if not 0 <= eps < 1:
        raise ValueError(f"eps must be in [0, 1) (0: no lower bound), got {eps}")
    return eps
