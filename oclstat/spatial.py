"""Gaussian spatial models: the public names of :mod:`oclstat._spatial` (batched Matérn
likelihoods, maximum-likelihood fits with profile intervals, kriging).

>>> from oclstat.spatial import MODEL_COLUMNS
>>> MODEL_COLUMNS
('range', 'shape', 'nugget', 'anisoRatio', 'anisoAngleRadians')
"""

from __future__ import annotations

from ._spatial import (
    MODEL_COLUMNS,
    DegenerateFitWarning,
    MaternFit,
    MaternLoglik,
    fit_matern,
    matern_loglik,
    predict_matern,
)

__all__ = ["MODEL_COLUMNS", "DegenerateFitWarning", "MaternFit", "MaternLoglik", "fit_matern",
           "matern_loglik", "predict_matern"]
