"""The factorisation's frozen result."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._results import Result


@dataclass(frozen=True, repr=False)
class LdlResult(Result):
    """``A = L diag(D) Lᵀ`` per matrix: ``L`` (batch, n, n) unit lower triangular, ``D``
    (batch, n), ``logdet`` (batch,) = sum(log D)."""

    L: np.ndarray
    D: np.ndarray
    logdet: np.ndarray

    def _repr_fields(self) -> dict:
        return dict(matrices=self.L.shape[0], n=self.L.shape[1],
                    dtype=self.L.dtype.name)

    def to_frame(self):
        """A pandas DataFrame, one row per matrix: logdet and the smallest pivot of D."""
        import pandas as pd

        return pd.DataFrame({"logdet": self.logdet, "min_pivot": self.D.min(axis=1)},
                            index=pd.RangeIndex(len(self.logdet), name="matrix"))
