"""The likelihood of a linear model with a Matérn field, from what the device returns.

For one parameter set, V = R + nugget I (R the Matérn correlation) and the device returns
log det V and M = Bᵀ V⁻¹ B for B = [X, Y] (covariates, responses). For each response y,
generalised least squares gives

    β̂ = (XᵀV⁻¹X)⁻¹ XᵀV⁻¹y,  RSS = yᵀV⁻¹y - (XᵀV⁻¹y)ᵀβ̂,

and the variance of the field is profiled out in closed form:

    ML:    σ̂² = RSS / n,        ℓ = -n/2 (log 2π + 1 + log σ̂²) - ½ log det V
    REML:  σ̂² = RSS / (n - p),  ℓ = -(n-p)/2 (log 2π + 1 + log σ̂²) - ½ log det V
                                     - ½ log det XᵀV⁻¹X

(REML without the constant ½ log det XᵀX, as fields' ``lnProfileREML`` and geostatsp), with
se(β̂) = sqrt(σ̂² diag((XᵀV⁻¹X)⁻¹)). With Box-Cox powers λ the responses are
(y^λ - 1)/λ (log y at 0) and the log-Jacobian (λ - 1) Σ log y is added to ℓ, so that
likelihoods of different powers compare.
"""

from __future__ import annotations

import math

import numpy as np

LOG_2PI = math.log(2.0 * math.pi)


def boxcox_columns(y: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Transformed responses (n, len(lam)) and their log-Jacobians."""
    v = y[:, 0]
    logs = np.log(v)
    cols = [logs if lm == 0 else np.expm1(lm * logs) / lm for lm in lam]
    return np.column_stack(cols), (lam - 1.0) * logs.sum()


def profile_gls(logdet: np.ndarray, cross: np.ndarray, n: int, p: int, method: str):
    """ML or REML profile likelihoods from log det V (m,) and M = BᵀV⁻¹B (m, p+q, p+q):
    (loglik (m, q), beta (m, p, q), se (m, p, q), sigma2 (m, q))."""
    mxx = cross[:, :p, :p]
    mxy = cross[:, :p, p:]
    myy = np.diagonal(cross[:, p:, p:], axis1=1, axis2=2)
    chol = np.linalg.cholesky(mxx)
    beta = np.linalg.solve(mxx, mxy)
    rss = myy - np.einsum("mpq,mpq->mq", mxy, beta)
    dof = n if method == "ML" else n - p
    sigma2 = rss / dof
    loglik = -0.5 * dof * (LOG_2PI + 1.0 + np.log(sigma2)) - 0.5 * logdet[:, None]
    if method == "REML":
        logdet_x = 2.0 * np.log(np.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)
        loglik = loglik - 0.5 * logdet_x[:, None]
    inv_diag = np.diagonal(np.linalg.inv(mxx), axis1=1, axis2=2)
    se = np.sqrt(inv_diag[:, :, None] * sigma2[:, None, :])
    return loglik, beta, se, sigma2
