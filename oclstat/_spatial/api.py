"""The public functions of the spatial models."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .._fields.api import _map
from .._fields.opencl import _raise_if_not_pd
from .._runtime import DeviceCapabilityError
from .._scale import executor
from .._validation import as_finite
from . import search
from .core import boxcox_columns, profile_gls
from .opencl import loglik_pieces, whitened
from .result import DegenerateFitWarning, MaternFit, MaternLoglik
from .validate import MODEL_COLUMNS, as_boxcox, as_method, as_model_data, as_model_params

#: Parameters that may be estimated, all but the angle on the log scale.
_LOG = {"range": True, "shape": True, "nugget": True, "anisoRatio": True,
        "anisoAngleRadians": False}
_FIXED_DEFAULTS = {"shape": 1.0, "nugget": 0.1, "anisoRatio": 1.0, "anisoAngleRadians": 0.0}


def _require_fp64(device, client, what: str) -> None:
    """Refuse, before any work, a device without double precision: log-determinants and
    generalised least squares of Matérn matrices (condition numbers up to 1e12) are not sound
    in float32."""
    if client is not None:
        return                     # the workers' devices are checked where the tasks run
    for rt in executor(device, None).runtimes:
        if not rt.info.fp64:
            raise DeviceCapabilityError(
                f"{what} needs double precision (log-determinants and least squares of "
                f"Matérn covariances are not sound in float32), which device "
                f"{rt.info.label!r} does not have; choose another device (oclstat devices)")


def _pieces(p, data, border, device, client):
    logdet, cross, bad = _map(loglik_pieces, (p,), (data.coords, border), device, client,
                              "matern_loglik")
    return logdet, cross, bad


def matern_loglik(coords, y, X=None, params=None, *, method: str = "ML", boxcox=None,
                  device=None, client=None) -> MaternLoglik:
    """Profile log-likelihoods of a linear model with a Matérn field, for a table of parameter
    sets at once.

    The model is y = Xβ + U + ε with U a Matérn field of variance σ² and ε white noise of
    variance τ² = nugget σ²; β and σ² are profiled out in closed form (generalised least
    squares), so each row of ``params`` needs only the non-linear parameters.

    Parameters
    ----------
    coords : array_like or DataFrame, shape (n, 2)
        Locations of the observations.
    y : array_like, Series or DataFrame, shape (n,) or (n, q)
        Responses: one, or several sharing the covariance (several variables, or give
        ``boxcox`` for transforms of one).
    X : array_like or DataFrame, shape (n, p), optional
        Covariates, including the intercept column when wanted (default: an intercept only).
        When inputs carry labels (a pandas index), they are aligned on them.
    params : DataFrame, dict or array_like, shape (m, 5)
        One parameter set per row, columns ``range``, ``shape``, ``nugget`` (the ratio
        τ²/σ²), ``anisoRatio``, ``anisoAngleRadians`` (geostatsp's names and conventions;
        the last three default to 0, 1 and 0 in a DataFrame or dict).
    method : {"ML", "REML"}, optional
        Maximum likelihood or restricted maximum likelihood.
    boxcox : float or sequence of float, optional
        Box-Cox powers: each gives a response column (y^λ - 1)/λ (log y for 0) of the single
        positive response, with its log-Jacobian added to the likelihood.
    device : int, str, Runtime or list, optional
        The OpenCL device (it needs fp64); a list spreads the parameter sets over devices.
    client : dask.distributed.Client, optional
        Run chunks of parameter sets as tasks on a Dask cluster instead.

    Returns
    -------
    MaternLoglik
        ``loglik``, ``sigma2`` (m, q), ``beta``, ``se`` (m, p, q); ``to_frame()`` the table;
        ``logdet`` (m,) and ``cross`` (m, p + q, p + q), log det V and BᵀV⁻¹B.

    Raises
    ------
    ValueError
        For inconsistent data or parameters, or a covariance matrix that is not positive
        definite (repeated locations without a nugget), naming the row.
    DeviceCapabilityError
        On a device without double precision, before any work.

    See Also
    --------
    fit_matern : maximises this likelihood, with profile confidence intervals.
    matern_cov : the covariance matrices themselves.

    Notes
    -----
    For each parameter set the device builds the bordered matrix [[V, .], [Bᵀ, 0]] with
    V = R + nugget I and B = [X, y], factors it in place (LDLᵀ), and reads
    M = BᵀV⁻¹B from the factor's last rows with one weighted product; only log det V and M
    return to the host, where::

        ML:   ℓ = -n/2 (log 2π + 1 + log σ̂²) - ½ log det V,  σ̂² = RSS/n
        REML: ℓ = -(n-p)/2 (log 2π + 1 + log σ̂²) - ½ log det V - ½ log det XᵀV⁻¹X,
              σ̂² = RSS/(n-p)

    with RSS = yᵀV⁻¹y - yᵀV⁻¹X β̂. Matérn as in :func:`matern_cov`: correlation
    2^(1-ν)/Γ(ν) x^ν K_ν(x), x = sqrt(8ν) d / range (fields' aRange = range / sqrt(8ν)).

    References
    ----------
    .. [1] Brown, P. E. (2015). Model-based geostatistics the easy way. Journal of
       Statistical Software 63(12) (geostatsp's ``likfitLgm``).
    .. [2] Harville, D. A. (1977). Maximum likelihood approaches to variance component
       estimation. JASA 72, 320-338.

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> xy = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.5]])
    >>> y = np.array([1.0, 2.0, 1.5, 2.5, 1.8])
    >>> r = oclstat.matern_loglik(xy, y, params={"range": [0.5, 2.0], "shape": 1.0,
    ...                                          "nugget": 0.1})
    >>> np.round(r.loglik[:, 0], 4).tolist()
    [-3.6318, -3.6019]
    """
    data = as_model_data(coords, y, X)
    method = as_method(method)
    p = as_model_params(params)
    _require_fp64(device, client, "matern_loglik")
    lam = as_boxcox(boxcox, data.y)
    if lam is None:
        responses, jac, y_cols = data.responses, np.zeros(data.y.shape[1]), data.y
    else:
        y_cols, jac = boxcox_columns(data.y, lam)
        responses = tuple(f"boxcox({v:g})" for v in lam)
    border = np.column_stack([data.X, y_cols])
    logdet, cross, bad = _pieces(p, data, border, device, client)
    _raise_if_not_pd(bad, "params", "; repeated locations need a nugget > 0", covariance=True)
    n, k = data.X.shape
    loglik, beta, se, sigma2 = profile_gls(logdet, cross, n, k, method)
    return MaternLoglik(p, loglik + jac[None, :], beta, se, sigma2, method, n, responses,
                        data.covariates, jac, logdet, cross)


class _Objective:
    """The profile log-likelihood on the search's scale, with a cache of evaluated points."""

    def __init__(self, data, fixed: dict, names: tuple, method, device, client):
        self.data, self.fixed, self.names = data, fixed, names
        self.method, self.device, self.client = method, device, client
        self.border = np.column_stack([data.X, data.y])
        self.cache: dict = {}
        self.evaluations = 0

    def natural(self, z: np.ndarray) -> np.ndarray:
        """Parameter rows (m, 5) of search points (m, d)."""
        p = np.tile([self.fixed[c] for c in MODEL_COLUMNS], (z.shape[0], 1))
        for j, name in enumerate(self.names):
            i = MODEL_COLUMNS.index(name)
            p[:, i] = np.exp(z[:, j]) if _LOG[name] else z[:, j]
        return p

    def __call__(self, z: np.ndarray) -> np.ndarray:
        keys = [tuple(np.round(row, 12)) for row in z]
        todo = sorted({k for k in keys if k not in self.cache})
        if todo:
            p = self.natural(np.array(todo))
            logdet, cross, bad = _pieces(p, self.data, self.border, self.device, self.client)
            with np.errstate(invalid="ignore", divide="ignore"):
                ll, *_ = profile_gls(logdet, cross, *self.data.X.shape, self.method)
            ll = np.where((bad < 0)[:, None] & np.isfinite(ll), ll, -np.inf)[:, 0]
            self.evaluations += len(todo)
            self.cache.update(zip(todo, ll, strict=True))
        return np.array([self.cache[k] for k in keys])


def _distances(coords: np.ndarray) -> tuple[float, float]:
    """The smallest non-zero and the largest distance between the points (a sample of 2,000
    points when there are more)."""
    c = coords
    if len(c) > 2000:
        c = c[np.random.default_rng(0).choice(len(c), 2000, replace=False)]
    d = np.sqrt(((c[:, None, :] - c[None, :, :]) ** 2).sum(-1))
    pos = d[d > 0]
    return float(pos.min()), float(pos.max())


def _search_box(coords):
    dmin, dmax = _distances(coords)
    box = {"range": (math.log(dmin / 10.0), math.log(dmax * 100.0)),
           "shape": (math.log(0.05), math.log(20.0)),
           "nugget": (math.log(1e-8), math.log(1e4)),
           "anisoRatio": (0.0, math.log(100.0)),
           "anisoAngleRadians": (-math.pi / 2, math.pi / 2)}
    grid = {"range": np.geomspace(dmax / 40.0, dmax, 6),
            "shape": np.array([0.5, 1.0, 2.0]),
            "nugget": np.array([0.01, 0.1, 1.0]),
            "anisoRatio": np.array([1.5, 4.0]),
            "anisoAngleRadians": np.array([-3, -1, 1, 3]) * math.pi / 8}
    return box, grid


def fit_matern(coords, y, X=None, *, params=None, estimate=("range", "nugget"),
               method: str = "ML", grid=None, profiles: bool = True,
               profile2d: bool = True, level: float = 0.95, tol: float = 1e-4,
               device=None, client=None) -> MaternFit:
    """Maximum-likelihood fit of a linear model with a Matérn field (geostatsp's
    ``likfitLgm``, fields' ``spatialProcess``), with profile-likelihood intervals.

    Parameters
    ----------
    coords : array_like or DataFrame, shape (n, 2)
        Locations of the observations.
    y : array_like or Series, shape (n,)
        The response.
    X : array_like or DataFrame, shape (n, p), optional
        Covariates with the intercept column (default: an intercept only).
    params : dict, optional
        Values of the parameters not estimated (defaults: shape 1, nugget 0.1 (a ratio to
        the variance), anisoRatio 1, anisoAngleRadians 0); values of estimated ones are
        added to the starting grid.
    estimate : sequence of str, optional
        The non-linear parameters to estimate, among ``range``, ``shape``, ``nugget``,
        ``anisoRatio``, ``anisoAngleRadians`` (default: range and nugget, shape fixed).
    method : {"ML", "REML"}, optional
        The likelihood maximised.
    grid : dict, optional
        Starting grid values per estimated parameter (default: ranges from 1/40 of the
        largest distance to it, nugget 0.01, 0.1, 1, shape 0.5, 1, 2, ...).
    profiles : bool, optional
        Profile-likelihood curves and intervals for each estimated parameter (prof1d).
    profile2d : bool, optional
        The profile likelihood on a range x shape grid (prof2d).
    level : float, optional
        Confidence level of the intervals.
    tol : float, optional
        Convergence tolerance on the log scale of the parameters (relative change).
    device : int, str, Runtime or list, optional
        The OpenCL device (fp64); a list spreads each batch of evaluations over devices.
    client : dask.distributed.Client, optional
        Evaluate the batches as tasks on a Dask cluster instead.

    Returns
    -------
    MaternFit
        ``params``, ``loglik``, ``beta``, ``se``, ``sigma2``, ``tau2``, ``ci``,
        ``profiles``, ``profile2d``; ``to_frame()`` the table; ``fields_params`` the fit in
        fields' terms; see :func:`predict_matern` and :func:`oclstat.plot_profiles`.

    Raises
    ------
    ValueError
        For bad data, an unknown parameter name, or a fit whose likelihood cannot be
        evaluated anywhere on the grid.

    See Also
    --------
    matern_loglik : the likelihood of a table of parameter sets.
    predict_matern : kriging from the fit.

    Notes
    -----
    The search works on log range, log shape, log nugget, log anisoRatio and the angle: a
    grid evaluated in one batch, then rounds of batched Newton steps on quadratics through
    small designs around the best point (:mod:`oclstat._spatial.search`), until the step is
    below ``tol``. A profile is the likelihood maximised over the other estimated parameters
    at each of 13 values of one (all values' maximisations in the same batches); the
    interval is where it stays within χ²₁(level)/2 of the maximum, interpolated linearly
    (NaN where the profile does not fall that far inside the search box).

    References
    ----------
    .. [1] Brown, P. E. (2015). Model-based geostatistics the easy way. Journal of
       Statistical Software 63(12).
    .. [2] Nychka, D. et al. (2021). fields: Tools for spatial data (R package;
       ``spatialProcess``, ``MLESpatialProcess``).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> xy = oclstat.fields.grid_coords(8, 8)
    >>> y = oclstat.simulate_fields(xy, [[0.5, 1.0, 1.0, 0.05, 1.0, 0.0]], 1, seed=3)[0, 0]
    >>> fit = oclstat.fit_matern(xy, y, profiles=False, profile2d=False)
    >>> sorted(fit.params)
    ['anisoAngleRadians', 'anisoRatio', 'nugget', 'range', 'shape']
    """
    data = as_model_data(coords, y, X)
    _require_fp64(device, client, "fit_matern")
    if data.y.shape[1] != 1:
        raise ValueError(f"fit_matern fits one response; y has {data.y.shape[1]} columns "
                         "(use matern_loglik for several)")
    method = as_method(method)
    level = as_finite(level, "level")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    names = tuple(estimate)
    unknown = [v for v in names if v not in MODEL_COLUMNS]
    if unknown or len(set(names)) != len(names) or not names:
        raise ValueError(f"estimate must name distinct parameters among {list(MODEL_COLUMNS)}"
                         f", got {list(estimate)}")
    names = tuple(c for c in MODEL_COLUMNS if c in names)      # the table's order
    given = dict(params or {})
    bad = [k for k in given if k not in MODEL_COLUMNS]
    if bad:
        raise ValueError(f"params has unknown names {bad}; the parameters are "
                         f"{list(MODEL_COLUMNS)}")
    fixed = {**_FIXED_DEFAULTS, **given}
    if "range" not in names and "range" not in given:
        raise ValueError("params must give range when it is not estimated")
    fixed.setdefault("range", 1.0)
    as_model_params({c: [fixed[c]] for c in MODEL_COLUMNS})       # checks the fixed values
    box, default_grid = _search_box(data.coords)
    grid = {**default_grid, **{k: np.atleast_1d(np.asarray(v, float))
                               for k, v in (grid or {}).items()}}
    for name in names:
        if name in given:
            grid[name] = np.union1d(grid[name], [given[name]])
    lower = np.array([box[c][0] for c in names])
    upper = np.array([box[c][1] for c in names])
    axes = [np.clip(np.log(grid[c]) if _LOG[c] else grid[c], box[c][0], box[c][1])
            for c in names]
    objective = _Objective(data, fixed, names, method, device, client)
    start = search.grid_points(axes)
    values = objective(start)
    if not np.isfinite(values).any():
        raise ValueError("the likelihood cannot be evaluated at any grid point (is the "
                         "covariance singular everywhere?)")
    best = start[int(np.argmax(values))]
    step = np.array([search.spacing(a, b) for a, b in zip(axes, best, strict=True)]) / 2.0
    main = search.Problem(best.copy(), step)
    search.run_local(objective, [main], lower, upper, tol=tol)
    z_hat = main.best_x
    hessian = main.hessian if main.hessian is not None else -np.eye(len(names))
    p_hat = objective.natural(z_hat[None])[0]
    final = matern_loglik(data.coords, data.y, data.X, p_hat[None], method=method,
                          device=device, client=client)
    params = dict(zip(MODEL_COLUMNS, (float(v) for v in p_hat), strict=True))
    crit = _chi2_half(level)
    prof, ci = {}, None
    if profiles:
        prof, ci = _profiles(objective, z_hat, main.best_f, hessian, names, lower, upper,
                             crit, tol)
    surface = None
    if profile2d:
        surface = _profile_2d(objective, z_hat, hessian, names, fixed, lower, upper, box, tol,
                              crit)
    degenerate = _degeneracy(data, names, z_hat, lower, upper, ci)
    for reason in degenerate:
        warnings.warn(f"fit_matern: {reason}", DegenerateFitWarning, stacklevel=2)
    return MaternFit(params, names, float(final.loglik[0, 0]), method, final.beta[0, :, 0],
                     final.se[0, :, 0], float(final.sigma2[0, 0]), data, ci, prof, surface,
                     objective.evaluations, level, tuple(degenerate))


def _repeated_locations(data) -> tuple[int, int]:
    """(locations observed more than once, of those the ones whose responses are all equal)."""
    coords = np.asarray(data.coords, dtype=float)
    y = np.asarray(data.y, dtype=float)[:, 0]
    _, inverse, counts = np.unique(coords, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    repeated = np.flatnonzero(counts > 1)
    equal = sum(1 for g in repeated if np.ptp(y[inverse == g]) == 0.0)
    return len(repeated), equal


def _degeneracy(data, names, z_hat, lower, upper, ci) -> list[str]:
    """Sentences saying why a fit is degenerate (module docstring of the warnings)."""
    out = []
    width = upper - lower
    for i, name in enumerate(names):
        at_low = z_hat[i] - lower[i] <= 1e-6 * width[i]
        at_high = upper[i] - z_hat[i] <= 1e-6 * width[i]
        if not (at_low or at_high):
            continue
        value = math.exp(z_hat[i]) if _LOG[name] else z_hat[i]
        why = ""
        if name == "nugget" and at_low:
            repeated, equal = _repeated_locations(data)
            if equal:
                why = (f": {equal} location(s) are observed more than once with equal "
                       "responses, which a field without noise fits exactly (the likelihood "
                       "grows without bound as the nugget goes to 0)")
            else:
                why = ": the data show no noise beyond the field"
        elif name == "range" and at_high:
            why = ": the field is indistinguishable from a trend at this scale"
        elif name == "range" and at_low:
            why = ": the field is indistinguishable from noise at this scale"
        out.append(f"{name} is at the {'lower' if at_low else 'upper'} bound of the search "
                   f"({value:.3g}){why}; its estimate is a bound, not a maximum")
    if ci is not None:
        bad = [n for n in names if n in ci.index and not np.isfinite(
            ci.loc[n, ["lower", "upper"]].to_numpy(dtype=float)).all()]
        if bad:
            out.append(f"the profile interval of {', '.join(bad)} is undefined (NaN): the "
                       "profile likelihood does not fall by the interval's amount inside the "
                       "search box")
    return out


def _chi2_half(level: float) -> float:
    from scipy.stats import chi2

    return float(chi2.ppf(level, 1)) / 2.0


def _covariance(hessian: np.ndarray) -> np.ndarray:
    try:
        np.linalg.cholesky(-hessian)
        return np.linalg.inv(-hessian)
    except np.linalg.LinAlgError:
        return np.eye(hessian.shape[0]) * 0.25


def _profiles(objective, z_hat, f_hat, hessian, names, lower, upper, crit, tol):
    """Profile curves (13 values each, all maximisations batched together) and intervals."""
    import pandas as pd

    cov = _covariance(hessian)
    problems, where = [], []
    for i, _name in enumerate(names):
        half = 1.6 * math.sqrt(2.0 * crit * cov[i, i])
        ts = np.unique(np.clip(z_hat[i] + np.linspace(-half, half, 13), lower[i], upper[i]))
        for t in ts:
            start = z_hat + cov[:, i] / cov[i, i] * (t - z_hat[i])
            start = np.clip(start, lower, upper)
            start[i] = t
            free = np.array([j for j in range(len(names)) if j != i], dtype=int)
            step = np.sqrt(np.diag(cov)) / 4.0
            problems.append(search.Problem(start, step, free=free))
            where.append((i, t))
    search.run_local(objective, problems, lower, upper, tol=tol)
    curves, rows = {}, []
    for i, name in enumerate(names):
        mine = [(t, p.best_f) for (j, t), p in zip(where, problems, strict=True) if j == i]
        t = np.array([v[0] for v in mine])
        f = np.array([v[1] for v in mine])
        values = np.exp(t) if _LOG[name] else t
        curves[name] = pd.DataFrame({name: values, "loglik": f})
        lo, hi = _crossings(t, f, z_hat[i], f_hat - crit)
        back = (lambda v: math.exp(v)) if _LOG[name] else (lambda v: v)
        est = back(z_hat[i])
        rows.append((name, est, back(lo) if np.isfinite(lo) else np.nan,
                     back(hi) if np.isfinite(hi) else np.nan))
    ci = pd.DataFrame(rows, columns=["parameter", "estimate", "lower", "upper"])
    return curves, ci.set_index("parameter")


def _crossings(t, f, centre, cut):
    """Where the curve f(t) crosses ``cut`` below and above ``centre`` (linear
    interpolation; NaN when it stays above)."""
    lo = hi = np.nan
    left = np.flatnonzero((t < centre) & (f < cut))
    if left.size:
        a = left[-1]
        b = a + 1
        lo = t[a] + (cut - f[a]) * (t[b] - t[a]) / (f[b] - f[a])
    right = np.flatnonzero((t > centre) & (f < cut))
    if right.size:
        b = right[0]
        a = b - 1
        hi = t[a] + (cut - f[a]) * (t[b] - t[a]) / (f[b] - f[a])
    return lo, hi


def _profile_2d(objective, z_hat, hessian, names, fixed, lower, upper, box, tol, crit):
    """The profile likelihood on an 11 x 9 grid of log range x log shape around the fit,
    maximised over the other estimated parameters."""
    import pandas as pd

    cov = _covariance(hessian)
    full = ("range", "shape")
    centre = {c: (z_hat[names.index(c)] if c in names else math.log(fixed[c])) for c in full}
    width = {c: (1.6 * math.sqrt(2.0 * crit * cov[names.index(c), names.index(c)])
                 if c in names else math.log(3.0)) for c in full}
    r_axis = np.unique(np.clip(centre["range"] + np.linspace(-1, 1, 11) * width["range"],
                               *box["range"]))
    s_axis = np.unique(np.clip(centre["shape"] + np.linspace(-1, 1, 9) * width["shape"],
                               *box["shape"]))
    # a wider objective: range and shape both searchable
    names2 = tuple(c for c in MODEL_COLUMNS if c in names or c in full)
    obj2 = _Objective(objective.data, fixed, names2, objective.method, objective.device,
                      objective.client)
    lower2 = np.array([box[c][0] for c in names2])
    upper2 = np.array([box[c][1] for c in names2])
    z0 = np.array([z_hat[names.index(c)] if c in names else
                   (math.log(fixed[c]) if _LOG[c] else fixed[c]) for c in names2])
    free = np.array([j for j, c in enumerate(names2) if c not in full], dtype=int)
    step = np.full(len(names2), 0.25)
    problems = []
    for r in r_axis:
        for s in s_axis:
            start = z0.copy()
            start[names2.index("range")], start[names2.index("shape")] = r, s
            problems.append(search.Problem(start, step.copy(), free=free))
    search.run_local(obj2, problems, lower2, upper2, tol=max(tol, 1e-3))
    objective.evaluations += obj2.evaluations
    rr, ss = np.meshgrid(r_axis, s_axis, indexing="ij")
    return pd.DataFrame({"range": np.exp(rr.ravel()), "shape": np.exp(ss.ravel()),
                         "loglik": [p.best_f for p in problems]})


def predict_matern(fit: MaternFit, new_coords, new_X=None, *, device=None) -> object:
    """Kriging from a fitted Matérn model: the mean and standard error of Xβ + U at new
    locations (universal kriging, β estimated).

    Parameters
    ----------
    fit : MaternFit
        From :func:`fit_matern`.
    new_coords : array_like, shape (m, 2)
        Where to predict (e.g. :func:`oclstat.fields.grid_coords` for a map).
    new_X : array_like or DataFrame, shape (m, p), optional
        Covariates at the new locations (default: the intercept, when that is the model's
        only covariate).
    device : int, str or Runtime, optional
        The OpenCL device (fp64).

    Returns
    -------
    pandas.DataFrame
        Columns x, y, mean, sd (of the prediction of the field plus the mean; add
        ``fit.tau2`` to sd² for a new observation).

    See Also
    --------
    fit_matern : the fit.
    oclstat.plot_kriging : a map of the predictions.

    Notes
    -----
    With V = L D Lᵀ factored on the device and W = D^-½ L⁻¹ applied there to the data's
    covariates, response and the correlations ρ₀ between data and new points:
    mean = x₀β̂ + (Wρ₀)ᵀ(Wy - WXβ̂), sd² = σ̂² (1 - ‖Wρ₀‖² + uᵀ(WXᵀWX)⁻¹u),
    u = x₀ - WXᵀWρ₀. V is factored once; new points are taken 4,096 at a time.

    References
    ----------
    .. [1] Cressie, N. (1993). Statistics for Spatial Data, §3.4 (universal kriging).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> pts = np.random.default_rng(1).uniform(size=(40, 2))
    >>> z = np.sin(4 * pts[:, 0]) + np.cos(3 * pts[:, 1])
    >>> smooth = oclstat.fit_matern(pts, z, profiles=False, profile2d=False)
    >>> oclstat.predict_matern(smooth, [[0.5, 0.5]]).columns.tolist()
    ['x', 'y', 'mean', 'sd']
    """
    import pandas as pd

    if not isinstance(fit, MaternFit):
        raise TypeError(f"fit must be a MaternFit from fit_matern, got {type(fit).__name__}")
    nc = np.asarray(new_coords, dtype=np.float64)
    if nc.ndim != 2 or nc.shape[1] != 2 or not np.isfinite(nc).all():
        raise ValueError(f"new_coords must be a finite (m, 2) array, got shape {nc.shape}")
    data = fit.data
    p = data.X.shape[1]
    if new_X is None:
        if data.covariates != ("(Intercept)",):
            raise ValueError(f"new_X is needed: the model has covariates {data.covariates}")
        x0 = np.ones((nc.shape[0], 1))
    else:
        x0 = np.asarray(new_X, dtype=np.float64).reshape(nc.shape[0], -1)
        if x0.shape[1] != p or not np.isfinite(x0).all():
            raise ValueError(f"new_X must be finite with {p} columns (the model's "
                             f"{data.covariates}), got shape {np.shape(new_X)}")
    rt = executor(device, None).runtime
    _require_fp64(rt, None, "predict_matern")
    prow = np.array([fit.params[c] for c in MODEL_COLUMNS])
    mean = np.empty(nc.shape[0])
    sd = np.empty(nc.shape[0])
    wb, chunks, bad = whitened(rt, prow, data.coords, np.column_stack([data.X, data.y]), nc)
    if bad >= 0:
        raise ValueError(f"the fitted covariance is not positive definite (pivot {bad})")
    wx, wy = wb[:, :p], wb[:, p]
    resid = wy - wx @ fit.beta
    gram = wx.T @ wx
    for a, e, wc in chunks:
        mean[a:e] = x0[a:e] @ fit.beta + wc.T @ resid
        u = x0[a:e].T - wx.T @ wc                       # (p, m)
        extra = np.einsum("pm,pm->m", u, np.linalg.solve(gram, u))
        var = fit.sigma2 * (1.0 - (wc * wc).sum(axis=0) + extra)
        sd[a:e] = np.sqrt(np.maximum(var, 0.0))
    return pd.DataFrame({"x": nc[:, 0], "y": nc[:, 1], "mean": mean, "sd": sd})
