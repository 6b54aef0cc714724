"""Phenotype GSEA's definitions on the host, the reference the device follows: the ranking
metrics (class and profile) and the tie rule. The enrichment walk itself (weights, ES, running
sums) is the enrichments' floor, :mod:`oclstat._enrichment.walks`."""

from __future__ import annotations

import numpy as np

#: Metrics of a continuous profile (Broad's, for ``#numeric`` phenotypes).
PROFILE_METRICS = ("pearson", "cosine", "manhattan", "euclidean")


def ranking_metric(values: np.ndarray, pheno: np.ndarray,
                   metric: str) -> tuple[np.ndarray, np.ndarray]:
    """The ranking metric of every gene (rows of ``values``), in float64: for class A =
    ``pheno`` (a boolean mask), or for the continuous profile ``pheno`` (one value per sample)
    with the profile metrics (Broad's Pearson, Cosine, Manhattan and Euclidean).

    Returns ``(metric, key)``: ``key`` is what genes are ranked by (the ratio for
    ``log2_ratio_of_classes``, whose ranking it shares; the metric itself otherwise).

    >>> v = np.array([[1.0, 2.0, 3.0, 5.0]]); m = np.array([True, True, False, False])
    >>> ranking_metric(v, m, "diff_of_classes")[0].tolist()
    [-2.5]
    >>> ranking_metric(v, np.array([1.0, 2.0, 3.0, 5.0]), "pearson")[0].tolist()
    [1.0]
    """
    if metric in PROFILE_METRICS:
        return (m := _profile_metric(values, np.asarray(pheno, dtype=np.float64), metric)), m
    a, b = values[:, pheno], values[:, ~pheno]
    ma, mb = a.mean(axis=1), b.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric in ("signal_to_noise", "abs_signal_to_noise"):
            sa = np.maximum(a.std(axis=1, ddof=1), 0.2 * np.abs(ma))
            sb = np.maximum(b.std(axis=1, ddof=1), 0.2 * np.abs(mb))
            sa[sa == 0] = 0.2
            sb[sb == 0] = 0.2
            m = (ma - mb) / (sa + sb)
            if metric == "abs_signal_to_noise":
                m = np.abs(m)
        elif metric == "t_test":
            va, vb = a.var(axis=1, ddof=1), b.var(axis=1, ddof=1)
            m = (ma - mb) / np.sqrt(va / a.shape[1] + vb / b.shape[1])
        elif metric == "diff_of_classes":
            m = ma - mb
        else:
            m = ma / mb
    m = np.where(np.isfinite(m), m, 0.0)
    if metric == "log2_ratio_of_classes":
        return np.log2(m), m
    return m, m


def profile_scale(values: np.ndarray, template: np.ndarray, metric: str):
    """``(x, t, scale)``: the expression and profile as the device reads them (centred for
    Pearson) and, per gene, the product of the two norms that divides the sum of products
    (Pearson, Cosine; ones for the distances)."""
    x = np.asarray(values, dtype=np.float64)
    t = np.asarray(template, dtype=np.float64)
    if metric == "pearson":
        x = x - x.mean(axis=1, keepdims=True)
        t = t - t.mean()
    if metric in ("pearson", "cosine"):
        scale = np.sqrt((x * x).sum(axis=1)) * np.sqrt((t * t).sum())
    else:
        scale = np.ones(x.shape[0])
    return x, t, scale


def _profile_metric(values, template, metric):
    x, t, scale = profile_scale(values, template, metric)
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric in ("pearson", "cosine"):
            m = (x @ t) / scale
        elif metric == "manhattan":
            m = np.abs(x - t).sum(axis=1)
        else:
            m = np.sqrt(((x - t) ** 2).sum(axis=1))
    return np.where(np.isfinite(m), m, 0.0)


def _order(key: np.ndarray) -> np.ndarray:
    """Gene indices by decreasing key, equal keys by decreasing index (the documented tie rule)."""
    idx = np.arange(key.size)
    return np.lexsort((-idx, -key))

