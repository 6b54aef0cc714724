"""The adapters of the R functions that the R package's file of the same name defines: gpuRandom's
batched linear algebra, likelihoods and fits (backsolveBatch, crossprodBatch, gemmBatch,
getProfLogL, likfitLgmGpu), qqnormGpu and logfactSum.
"""

from __future__ import annotations

import numpy as np

from .base import Characters, RValue, dtype_of, r_function


@r_function("backsolveBatch", "solve_triangular_batch")
def backsolve_batch(A, B, lower=True, trans=False, unitDiagonal=False, *,
                    device=None):
    from .._linalg import solve_triangular_batch

    return solve_triangular_batch(A, B, lower=bool(lower), trans=bool(trans),
                                  unit_diagonal=bool(unitDiagonal), device=device)


@r_function("crossprodBatch", "crossprod_batch")
def crossprod_batch(A, B=None, D=None, *, device=None):
    from .._linalg import crossprod_batch as run

    return run(A, B, D, device=device)


@r_function("gemmBatch", "gemm_batch")
def gemm_batch(A, B, C=None, alpha=1.0, beta=0.0, transA=False, transB=False, *,
               device=None):
    from .._linalg import gemm_batch as run

    return run(A, B, C, alpha=float(alpha), beta=float(beta), trans_a=bool(transA),
               trans_b=bool(transB), device=device)


def _frame(frame) -> RValue:
    """A pandas DataFrame as an R data.frame (its index becomes a first column when named)."""
    cols: dict = {}
    if frame.index.name is not None:
        cols[str(frame.index.name)] = Characters(str(v) for v in frame.index)
    for c in frame.columns:
        v = frame[c]
        if v.dtype.kind in "biuf":
            cols[str(c)] = v.to_numpy()
        else:
            cols[str(c)] = Characters(str(x) for x in v)
    return RValue(cols, "data.frame")


@r_function("getProfLogL", "matern_loglik",
            renamed={"data": "coords", "formula": "y", "coordinates": "X"})
def get_prof_logl(coords, y, X=None, params=None, boxcox=None, type="double",
                  NparamPerIter=None, gpuElementsOnly=False, reml=False, Nglobal=None,
                  Nlocal=None, NlocalCache=None, verbose=False, *, gpurandom=False,
                  device=None):
    """oclstat's table (one row per parameter set and response), or with ``gpurandom`` (the R
    side evaluated gpuRandom's data/formula call into y and X) gpuRandom's list of pieces."""
    from .._spatial import matern_loglik

    method = "REML" if reml else "ML"
    if not gpurandom:
        res = matern_loglik(coords, y, X, params, method=method, boxcox=boxcox,
                            device=device)
        return _frame(res.to_frame())
    return _gpurandom_prof_logl(coords, np.asarray(y, dtype=float).ravel(), X, params,
                                boxcox, method, bool(gpuElementsOnly), device)


def _gpurandom_boxcox(boxcox) -> tuple[np.ndarray, bool]:
    """gpuRandom's order of the Box-Cox powers (1 first, then 0 when given, then the rest as
    given) and whether 1 was asked for (else its column is dropped at the end)."""
    lam = [float(v) for v in np.atleast_1d(np.asarray(1.0 if boxcox is None else boxcox,
                                                      dtype=float))]
    if not lam or not np.all(np.isfinite(lam)):
        raise ValueError(f"boxcox must be finite numbers, got {lam}")
    rest = [v for v in dict.fromkeys(lam) if v not in (0.0, 1.0)]
    return np.array([1.0] + ([0.0] if 0.0 in lam else []) + rest), 1.0 in lam


def _gpurandom_prof_logl(coords, y, X, params, boxcox, method, elements_only, device):
    """gpuRandom's getProfLogL from log det V and BᵀV⁻¹B: the responses y (power 1, as
    gpuRandom takes it), log y and (y^λ - 1)/λ share one factorisation per parameter set;
    jacobian = -2 (λ - 1) Σ log y and, with N = Nobs and p = Ncov,
    ML: -2 LogLik = N log(ssqResidual / N) + detVar + jacobian + N + N log 2π,
    REML: -2 LogLik = (N - p) log(ssqResidual / (N - p)) + detVar + detReml + jacobian
    + N log 2π + N - p."""
    from .._spatial import matern_loglik

    lam, has_one = _gpurandom_boxcox(boxcox)
    if len(lam) > 1 and not np.all(y > 0):
        raise ValueError("boxcox other than 1 needs a response > 0")
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(y)
    cols = [y if v == 1.0 else logs if v == 0.0 else np.expm1(v * logs) / v for v in lam]
    res = matern_loglik(coords, np.column_stack(cols), X, params, method=method,
                        device=device)
    n, p, q = res.n, len(res.covariates), len(lam)
    xvx, xvy = res.cross[:, :p, :p], res.cross[:, :p, p:]
    ssq_y = np.diagonal(res.cross[:, p:, p:], axis1=1, axis2=2)
    ssq_beta = np.einsum("mpq,mpq->mq", xvy, np.linalg.solve(xvx, xvy))
    ssq_resid = ssq_y - ssq_beta
    det_reml = np.linalg.slogdet(xvx)[1]
    # with 1 alone y may be any sign (no log taken); else y > 0 and lambda = 1 gives 0
    jac = np.zeros(1) if len(lam) == 1 else -2.0 * (lam - 1.0) * logs.sum()
    dof = n if method == "ML" else n - p
    m2ll = (dof * np.log(ssq_resid / dof) + res.logdet[:, None] + jac[None, :]
            + n * np.log(2.0 * np.pi) + dof)
    if method == "REML":
        m2ll = m2ll + det_reml[:, None]
    xvyxvx = np.concatenate([xvy, xvx], axis=2).reshape(-1, q + p)
    keep = slice(0 if has_one else 1, None)
    names = Characters(f"boxcox{round(v, 3):g}" for v in lam[keep])
    out = {"LogLik": RValue(-0.5 * m2ll[:, keep], attributes={
        "dimnames": [None, names]})} if not elements_only else {}
    out.update({"Infindex": np.zeros(0, dtype=np.int32), "Nobs": n, "Ncov": p,
                "Ndata": q - (0 if has_one else 1), "Nparam": int(res.params.shape[0]),
                "boxcox": lam[keep], "jacobian": jac[keep], "detVar": res.logdet,
                "detReml": det_reml, "ssqY": ssq_y[:, keep],
                "XVYXVX": np.concatenate([xvyxvx[:, :q][:, keep], xvyxvx[:, q:]], axis=1),
                "ssqBetahat": ssq_beta[:, keep], "ssqResidual": ssq_resid[:, keep]})
    return out


@r_function("likfitLgmGpu", "fit_matern", renamed={"data": "coords", "formula": "y"})
def likfit_lgm_gpu(coords, y, coordinates=None, params=None, boxcox=1.0,
                   paramToEstimate=("range", "nugget"), cilevel=0.95, type="double",
                   reml=False, NparamPerIter=None, df=1, minustwotimes=False,
                   Nglobal=None, Nlocal=None, NlocalCache=None, verbose=False, X=None,
                   param=None, profiles=True, profile2d=True, tol=1e-4, model=None,
                   alpha=None, shapeRestrict=1000, Betas=None, sdSpatial=None,
                   convexHullForBetas=False, *, device=None):
    """gpuRandom's likfitLgmGpu, fitted by Newton steps: ``data`` and ``formula`` arrive as
    the coordinates and the response (the R side evaluates a formula into y and X, and
    computes gpuRandom's grid form itself from getProfLogL, and its form on a fit, ``model``
    to ``convexHullForBetas``, from configParams and the profiles); gpuRandom's work sizes are
    accepted and ignored."""
    from .._spatial import fit_matern

    if params is not None and param is None:
        param = params
    estimate = [paramToEstimate] if isinstance(paramToEstimate, str) else list(paramToEstimate)
    fit = fit_matern(coords, y, X, params=dict(param or {}), estimate=tuple(estimate),
                     method="REML" if reml else "ML", profiles=bool(profiles),
                     profile2d=bool(profile2d), level=float(cilevel), tol=float(tol),
                     device=device)
    table = fit.to_frame()
    values = {k: float(v) for k, v in fit.params.items()}
    values.update(sigma2=fit.sigma2, tau2=fit.tau2)
    beta = dict(zip(fit.data.covariates, (float(b) for b in fit.beta), strict=True))
    out = {"parameters": values, "beta": beta, "summary": _frame(table),
           "optimal": {"logL": fit.loglik, "method": fit.method, "aic": fit.aic},
           "fields": dict(fit.fields_params),
           "profiles": {k: _frame(v) for k, v in fit.profiles.items()},
           "evaluations": int(fit.evaluations)}
    if fit.profile2d is not None:
        out["profile2d"] = _frame(fit.profile2d)
    return RValue(out)


@r_function("qqnormGpu", "random.qqnorm",
             renamed={"lower.tail": "lower_tail", "plot.it": "plot_it"})
def qqnorm_gpu(y, ylim=None, mu=0.0, sigma=1.0, lower_tail=True, main=None, xlab=None,
               ylab=None, plot_it=True, Nglobal=None, Nlocal=None, type="double",
               verbose=False, *, device=None):
    """The coordinates qnorm(ppoints(n), mu, sigma, lower.tail) in the ranks of y (R draws
    the plot; the graphical arguments are R's alone); ``type`` "float" gives them in single
    precision, as clrng's float kernel."""
    from .._special import qqnorm

    x, yy = qqnorm(y, device=device)
    x = float(mu) + float(sigma) * (x if bool(lower_tail) else -x)
    if dtype_of(type) == "float32":
        x = x.astype(np.float32).astype(np.float64)
    return RValue({"x": x, "y": yy})


@r_function("logfactSum", "special.logfact_sum")
def logfact_sum(x, Nglobal=None, *, device=None):
    """``Nglobal`` (clrng's work sizes) is accepted: the device chooses its own."""
    from .._special import logfact_sum as run

    return run(np.asarray(x), device=device)
