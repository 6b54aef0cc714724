"""GSVA 2's pieces written out from its R code, for tests only (no oclstat code): a set's
walk as ``.gsvaRndWalk`` builds it, and the comparison of scores with GSVA 2's long tables."""

from __future__ import annotations

import numpy as np


def walk_score(dos, srs, p: int, tau: float, mx_diff: bool, abs_ranking: bool) -> float:
    """One set's score in one sample: its members' decreasing order statistics ``dos``
    (1-based) and rank scores ``srs``, the step functions in and out of the set over all
    ``p`` genes, the largest excursions (``maxDiff``; ``absRanking``) or the larger one."""
    at = np.asarray(dos).astype(int) - 1
    step_in = np.zeros(p)
    step_in[at] = np.asarray(srs) ** tau
    step_in = np.cumsum(step_in) / step_in.sum()
    step_out = np.ones(p)
    step_out[at] = 0
    step_out = np.cumsum(step_out) / step_out.sum()
    walk = step_in - step_out
    hi, lo = max(0.0, walk.max()), min(0.0, walk.min())
    if mx_diff:
        return hi - lo if abs_ranking else hi + lo
    return hi if hi + lo > 0 else lo


def assert_equals_long_table(got, want, case: str) -> None:
    """Scores (sets x samples DataFrame) equal a GSVA 2 long table (columns set, sample,
    score; sample by sample, sets within a sample; NA where GSVA 2 gave NA) to 1e-12."""
    pairs = [(k, c) for c in got.columns for k in got.index]
    assert pairs == list(zip(want["set"], want["sample"], strict=True)), case
    scores = got.to_numpy().ravel(order="F")
    np.testing.assert_array_equal(np.isnan(scores), want["score"].isna().to_numpy(),
                                  err_msg=case)
    np.testing.assert_allclose(scores, want["score"].to_numpy(), rtol=1e-12, atol=1e-14,
                               err_msg=case)
