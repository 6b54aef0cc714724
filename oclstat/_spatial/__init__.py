"""Gaussian spatial models: the likelihood of y = Xβ + U + ε (U a Matérn field) for whole
tables of parameter sets at once, maximum-likelihood fits with profile intervals, and kriging.

What gpuRandom's later code added (``likfitLgmGpu``, ``getProfLogL``, ``prof1dCov``,
``prof2dCov``): the covariance of every parameter set is built and factored on the device,
bordered by the covariates and responses so one LDLᵀ gives log det V and BᵀV⁻¹B; β and the
variance are profiled out in closed form (ML or REML) on the host from k x k matrices.

>>> import numpy as np, oclstat
>>> xy = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
>>> r = oclstat.matern_loglik(xy, [1.0, 2.0, 1.5, 2.5, 1.8], params={"range": 2.0, "shape": 1.0})
>>> r.loglik.shape
(1, 1)

Inside: ``validate`` (parameters, data aligned on labels), ``plan`` (constants, chunks),
``core`` (the profile likelihood from the device's pieces), ``search`` (batched Newton
maximisation), ``result`` (frozen results), ``opencl`` (bordered matrices, kriging solves),
``api`` (the public functions).
"""

from __future__ import annotations

from .api import fit_matern, matern_loglik, predict_matern
from .result import DegenerateFitWarning, MaternFit, MaternLoglik
from .validate import MODEL_COLUMNS

__all__ = ["MODEL_COLUMNS", "DegenerateFitWarning", "MaternFit", "MaternLoglik", "fit_matern",
           "matern_loglik", "predict_matern"]
