"""The spatial models' frozen results: likelihoods of a parameter table, and a fit with its
profiles."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._results import Result
from .validate import MODEL_COLUMNS, ModelData


@dataclass(frozen=True, repr=False)
class MaternLoglik(Result):
    """Profile log-likelihoods of a Matérn model, one row per parameter set and response.

    ``loglik``, ``sigma2`` (m, q); ``beta``, ``se`` (m, p, q); ``params`` (m, 5) in the columns
    of :data:`MODEL_COLUMNS`; ``tau2 = nugget * sigma2``; ``jacobian`` (q,) the Box-Cox
    log-Jacobians already in ``loglik`` (zeros without Box-Cox). The generalised least
    squares' pieces everything above is made of: ``logdet`` (m,) log det V, V the correlation
    matrix plus nugget I, and ``cross`` (m, p + q, p + q) BᵀV⁻¹B with B = [X, y] (the
    responses as transformed), as gpuRandom's ``getProfLogL`` returns them."""

    params: np.ndarray
    loglik: np.ndarray
    beta: np.ndarray
    se: np.ndarray
    sigma2: np.ndarray
    method: str
    n: int
    responses: tuple
    covariates: tuple
    jacobian: np.ndarray
    logdet: np.ndarray
    cross: np.ndarray

    @property
    def tau2(self) -> np.ndarray:
        return self.params[:, 2:3] * self.sigma2

    def _repr_fields(self) -> dict:
        best = np.unravel_index(int(np.nanargmax(self.loglik)), self.loglik.shape)
        return dict(sets=self.params.shape[0], n=self.n,
                    responses=self.responses, method=self.method,
                    best_loglik=float(self.loglik[best]),
                    best_set=int(best[0]))

    def _repr_note(self) -> str:
        return "; .to_frame() for the table"

    def to_frame(self):
        """A DataFrame, one row per (parameter set, response): the parameters, loglik, sigma2,
        tau2 and, per covariate, its estimate and standard error."""
        import pandas as pd

        m, q = self.loglik.shape
        rows = {"set": np.repeat(np.arange(m), q),
                "response": np.tile(np.array(self.responses, dtype=object), m)}
        for i, c in enumerate(MODEL_COLUMNS):
            rows[c] = np.repeat(self.params[:, i], q)
        rows["loglik"] = self.loglik.ravel()
        rows["sigma2"] = self.sigma2.ravel()
        rows["tau2"] = self.tau2.ravel()
        for j, c in enumerate(self.covariates):
            rows[f"beta[{c}]"] = self.beta[:, j, :].ravel()
            rows[f"se[{c}]"] = self.se[:, j, :].ravel()
        return pd.DataFrame(rows)


class DegenerateFitWarning(UserWarning):
    """A fit whose maximum lies on a bound of the search, or whose interval cannot be given
    (:attr:`MaternFit.degenerate` says why)."""


@dataclass(frozen=True, repr=False)
class MaternFit(Result):
    """A maximum-likelihood fit of y = Xβ + U + ε, U a Matérn field with variance sigma2, ε
    white noise with variance tau2 = nugget * sigma2.

    ``params`` maps the five :data:`MODEL_COLUMNS` to their values (estimated or fixed);
    ``estimated`` names the estimated ones; ``ci`` a DataFrame (parameter -> estimate, lower,
    upper) from the profile likelihood for the non-linear parameters and Wald intervals for
    β; ``profiles`` a dict (parameter -> DataFrame value, loglik); ``profile2d`` a DataFrame
    (range, shape, loglik) or None; ``evaluations`` the likelihoods computed."""

    params: dict
    estimated: tuple
    loglik: float
    method: str
    beta: np.ndarray
    se: np.ndarray
    sigma2: float
    data: ModelData
    ci: object
    profiles: dict
    profile2d: object
    evaluations: int
    level: float
    #: Why the fit is degenerate (a parameter at a bound of the search, an interval that
    #: cannot be given), one sentence each; empty for an ordinary fit.
    degenerate: tuple = ()

    @property
    def tau2(self) -> float:
        return self.params["nugget"] * self.sigma2

    @property
    def fields_params(self) -> dict:
        """The fit in fields' terms (Matern(d / aRange), lambda = tau2 / sigma2)."""
        nu = self.params["shape"]
        return {"aRange": self.params["range"] / math.sqrt(8.0 * nu), "smoothness": nu,
                "lambda": self.params["nugget"], "sigma2": self.sigma2, "tau": math.sqrt(
                    self.tau2)}

    @property
    def n_params(self) -> int:
        """Estimated parameters: the non-linear ones, β and sigma2."""
        return len(self.estimated) + self.beta.size + 1

    @property
    def aic(self) -> float:
        return -2.0 * self.loglik + 2.0 * self.n_params

    def _repr_fields(self) -> dict:
        shown = {k: round(v, 6) for k, v in self.params.items() if k in self.estimated}
        return dict(n=self.data.coords.shape[0], method=self.method,
                    loglik=self.loglik, sigma2=self.sigma2, **shown,
                    evaluations=self.evaluations)

    def _repr_note(self) -> str:
        note = "; DEGENERATE: " + " ".join(self.degenerate) if self.degenerate else ""
        return "; .to_frame() for the table" + note

    def to_frame(self):
        """One row per parameter: estimate, lower and upper confidence limits, whether it was
        estimated; the non-linear parameters, sigma2, tau2 and β."""
        import pandas as pd

        rows = []
        for name in MODEL_COLUMNS:
            lo = hi = np.nan
            if self.ci is not None and name in self.ci.index:
                lo, hi = self.ci.loc[name, ["lower", "upper"]]
            rows.append((name, self.params[name], lo, hi, name in self.estimated))
        rows.append(("sigma2", self.sigma2, np.nan, np.nan, True))
        rows.append(("tau2", self.tau2, np.nan, np.nan, "nugget" in self.estimated))
        z = _normal_quantile(0.5 + self.level / 2.0)
        for j, c in enumerate(self.data.covariates):
            b, s = float(self.beta[j]), float(self.se[j])
            rows.append((c, b, b - z * s, b + z * s, True))
        return pd.DataFrame(rows, columns=["parameter", "estimate", "lower", "upper",
                                           "estimated"]).set_index("parameter")


def _normal_quantile(p: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(p))
