"""Planning a spatial model's evaluations: the fields' constants of a parameter set (variance
1: the variance is profiled out), the bordered matrices' size and the chunks that fit."""

from __future__ import annotations

import numpy as np

from .._fields.plan import _matrix_chunks


def field_params(p: np.ndarray) -> np.ndarray:
    """The fields' parameter rows (variance 1) of model rows (range, shape, nugget ratio,
    anisoRatio, anisoAngleRadians)."""
    rng, nu, nug, ratio, angle = p.T
    return np.column_stack([rng, nu, np.ones_like(rng), nug, ratio, angle])


def bordered_chunks(rt, n_sets: int, n: int, k: int) -> list[tuple[int, int]]:
    """Parameter sets per launch: a bordered (n + k)² matrix per set in one allocation."""
    size = n + k
    return _matrix_chunks(rt, n_sets, size * size * 8, "matern_loglik")
