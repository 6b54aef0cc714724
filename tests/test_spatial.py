"""Gaussian spatial models and batched linear algebra: triangular solves against scipy,
products against numpy, Matérn likelihoods against an independent numpy/scipy GLS likelihood
(ML and REML, a direct restricted likelihood maximised numerically), fits against brute-force
grids and R's fields, kriging against the textbook formulas, the GLS t-test's calibration,
normal quantiles against scipy and R, log-factorial sums against scipy."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest
import scipy.linalg as sl
from scipy import special as sp
from scipy import stats

import oclstat
import oclstat.random as ocr
import oclstat.special as osp

spatial_opencl = importlib.import_module("oclstat._spatial.opencl")


# ----------------------------------------------------------------------------- references


def correlation(coords, p):
    """geostatsp's anisotropic Matérn correlation plus the nugget ratio, in numpy/scipy."""
    rng_, nu, nug, ratio, angle = p
    dx = coords[:, None, 0] - coords[None, :, 0]
    dy = coords[:, None, 1] - coords[None, :, 1]
    u = np.cos(angle) * dx - np.sin(angle) * dy
    v = (np.sin(angle) * dx + np.cos(angle) * dy) / ratio
    d = np.hypot(u, v)
    x = np.sqrt(8 * nu) * d / rng_
    with np.errstate(invalid="ignore", divide="ignore"):
        r = 2 ** (1 - nu) / sp.gamma(nu) * x ** nu * sp.kv(nu, x)
    r[d == 0] = 1.0
    return r + nug * np.eye(len(coords))


def gls_reference(coords, y, X, p, method):
    """The profile log-likelihood, β̂ and σ̂² by Cholesky solves in scipy."""
    v = correlation(coords, p)
    c = sl.cho_factor(v, lower=True)
    logdet = 2 * np.log(np.diag(c[0])).sum()
    xtvx = X.T @ sl.cho_solve(c, X)
    beta = np.linalg.solve(xtvx, X.T @ sl.cho_solve(c, y))
    r = y - X @ beta
    rss = r @ sl.cho_solve(c, r)
    n, k = X.shape
    dof = n if method == "ML" else n - k
    s2 = rss / dof
    ll = -0.5 * dof * (np.log(2 * np.pi) + 1 + np.log(s2)) - 0.5 * logdet
    if method == "REML":
        ll -= 0.5 * np.linalg.slogdet(xtvx)[1]
    return ll, beta, s2, np.sqrt(s2 * np.diag(np.linalg.inv(xtvx)))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 70
    coords = rng.uniform(0, 1, size=(n, 2))
    X = np.column_stack([np.ones(n), rng.normal(size=n), coords[:, 0]])
    y = np.column_stack([X @ [1.0, 0.5, -1.0] + rng.normal(size=n), rng.normal(size=n)])
    return coords, y, X


PARAMS = np.array([
    # range, shape, nugget ratio, anisoRatio, anisoAngleRadians
    [0.3, 1.0, 0.1, 1.0, 0.0],
    [0.5, 0.7, 0.05, 2.0, 0.4],
    [0.2, 2.5, 0.0, 1.0, 0.0],
    [0.8, 0.5, 1.0, 1.5, -1.0],
    [0.4, 12.0, 0.2, 1.0, 0.0],          # above the fast path's nu <= 10: Temme's method
])


# ----------------------------------------------------------------------------- linear algebra


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("trans", [0, "T"])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular_matches_scipy(rt, lower, trans, unit):
    rng = np.random.default_rng(0)
    a = rng.normal(size=(6, 20, 20)) + 6 * np.eye(20)
    a = np.tril(a) if lower else np.triu(a)
    b = rng.normal(size=(6, 20, 3))
    got = oclstat.solve_triangular_batch(a, b, lower=lower, trans=trans, unit_diagonal=unit,
                                         device=rt)
    for i in range(6):
        ref = sl.solve_triangular(a[i], b[i], lower=lower, trans=trans, unit_diagonal=unit)
        np.testing.assert_allclose(got[i], ref, rtol=1e-12, atol=1e-12)


def test_solve_triangular_shares_one_factor_and_broadcasts(rt):
    rng = np.random.default_rng(1)
    low = np.tril(rng.normal(size=(15, 15))) + 5 * np.eye(15)
    b = rng.normal(size=(4, 15, 40))
    got = oclstat.solve_triangular_batch(low, b, device=rt)
    np.testing.assert_allclose(got, np.stack([sl.solve_triangular(low, x, lower=True)
                                              for x in b]), rtol=1e-12, atol=1e-13)
    vec = oclstat.solve_triangular_batch(low, b[0, :, 0], device=rt)
    assert vec.shape == (15,)
    np.testing.assert_allclose(vec, got[0, :, 0], rtol=1e-14)
    many = oclstat.solve_triangular_batch(np.stack([low, 2 * low]), b[0], device=rt)
    np.testing.assert_allclose(many[1], got[0] / 2, rtol=1e-12)
    f32 = oclstat.solve_triangular_batch(low.astype(np.float32), b.astype(np.float32),
                                         device=rt)
    assert f32.dtype == np.float32
    np.testing.assert_allclose(f32, got, rtol=1e-4, atol=1e-5)


def test_solve_triangular_bad_input(rt):
    low = np.tril(np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"a\[0\] is singular: a\[0, 1, 1\] is 0"):
        oclstat.solve_triangular_batch(low - np.diag([0, 1, 0]), np.ones(3), device=rt)
    with pytest.raises(ValueError, match="b has 4 rows"):
        oclstat.solve_triangular_batch(low, np.ones(4), device=rt)
    with pytest.raises(ValueError, match="trans must be"):
        oclstat.solve_triangular_batch(low, np.ones(3), trans="X", device=rt)
    with pytest.raises(ValueError, match="batch sizes differ"):
        oclstat.solve_triangular_batch(np.stack([low] * 2), np.ones((3, 3, 1)), device=rt)
    with pytest.raises(ValueError, match="b must be finite"):
        oclstat.solve_triangular_batch(low, [1.0, np.nan, 1.0], device=rt)


def test_crossprod_and_gemm_match_numpy(rt):
    rng = np.random.default_rng(2)
    a = rng.normal(size=(5, 30, 4))
    b = rng.normal(size=(5, 30, 6))
    d = rng.uniform(0.5, 2, size=(5, 30))
    np.testing.assert_allclose(oclstat.crossprod_batch(a, b, d, device=rt),
                               np.einsum("bri,br,brj->bij", a, d, b), rtol=1e-12)
    np.testing.assert_allclose(oclstat.crossprod_batch(a[0], device=rt), a[0].T @ a[0],
                               rtol=1e-12)
    np.testing.assert_allclose(oclstat.crossprod_batch(a, b[0], d[0], device=rt),
                               np.einsum("bri,r,rj->bij", a, d[0], b[0]), rtol=1e-12)
    c = rng.normal(size=(5, 4, 6))
    g = oclstat.gemm_batch(a, b, c, alpha=2.0, beta=-0.5, trans_a=True, device=rt)
    np.testing.assert_allclose(g, 2 * np.swapaxes(a, 1, 2) @ b - 0.5 * c, rtol=1e-12,
                               atol=1e-12)
    g2 = oclstat.gemm_batch(b, a, trans_a=True, trans_b=False, device=rt)
    np.testing.assert_allclose(g2, np.swapaxes(b, 1, 2) @ a, rtol=1e-12, atol=1e-12)
    g3 = oclstat.gemm_batch(c[0], b[0], trans_b=True, device=rt)
    np.testing.assert_allclose(g3, c[0] @ b[0].T, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="op\\(a\\) has 30 columns but op\\(b\\) has 4 rows"):
        oclstat.gemm_batch(np.swapaxes(a, 1, 2), a, trans_b=True, device=rt)
    with pytest.raises(ValueError, match="d must have shape"):
        oclstat.crossprod_batch(a, d=np.ones(3), device=rt)


# ----------------------------------------------------------------------------- Matérn kernels


@pytest.mark.parametrize("nu", [0.05, 0.25, 0.5, 0.75, 1.0, 1.5, 2.2, 3.0, 5.0, 7.3, 10.0])
def test_fast_matern_path_matches_scipy_and_temme(rt, nu):
    """One shape per call takes the tabulated fast path (nu <= 10); a batch that also holds
    nu = 12 takes Temme's method for every set: both agree with scipy and with each other."""
    d = np.concatenate([[0.0], np.geomspace(1e-6, 60.0, 300)])
    coords = np.column_stack([d, np.zeros_like(d)])
    row = [np.sqrt(8 * nu), nu, 1.0, 0.0, 1.0, 0.0]          # x = d
    fast = oclstat.matern_cov(coords, [row], device=rt)[0][:, 0]
    slow = oclstat.matern_cov(coords, [row, [1.0, 12.0, 1.0, 0.0, 1.0, 0.0]],
                              device=rt)[0][:, 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        ref = np.exp((1 - nu) * np.log(2) - sp.gammaln(nu) + nu * np.log(d)
                     + np.log(sp.kve(nu, d)) - d)
    ref[0] = 1.0
    np.testing.assert_allclose(fast, ref, rtol=2e-13, atol=1e-300)
    np.testing.assert_allclose(fast, slow, rtol=2e-13, atol=1e-300)


# ----------------------------------------------------------------------------- likelihoods


@pytest.mark.parametrize("method", ["ML", "REML"])
def test_loglik_matches_an_independent_gls_likelihood(rt, data, method):
    coords, y, X = data
    res = oclstat.matern_loglik(coords, y, X, PARAMS, method=method, device=rt)
    assert res.loglik.shape == (len(PARAMS), 2) and res.beta.shape == (len(PARAMS), 3, 2)
    for i, p in enumerate(PARAMS):
        for j in range(2):
            ll, beta, s2, se = gls_reference(coords, y[:, j], X, p, method)
            assert res.loglik[i, j] == pytest.approx(ll, rel=1e-10)
            np.testing.assert_allclose(res.beta[i, :, j], beta, rtol=1e-9, atol=1e-11)
            assert res.sigma2[i, j] == pytest.approx(s2, rel=1e-10)
            np.testing.assert_allclose(res.se[i, :, j], se, rtol=1e-9)
    frame = res.to_frame()
    assert len(frame) == 2 * len(PARAMS)
    assert {"loglik", "sigma2", "tau2", "beta[x2]", "se[x3]"} <= set(frame.columns)


def test_the_gls_pieces_are_log_det_v_and_the_weighted_cross_products(rt, data):
    """logdet and cross (gpuRandom's detVar and XVYXVX / ssqY) against numpy's slogdet and
    BᵀV⁻¹B computed with a dense inverse."""
    coords, y, X = data
    res = oclstat.matern_loglik(coords, y, X, PARAMS, device=rt)
    b = np.column_stack([X, y])
    assert res.cross.shape == (len(PARAMS), b.shape[1], b.shape[1])
    for i, p in enumerate(PARAMS):
        v = correlation(coords, p)
        assert res.logdet[i] == pytest.approx(np.linalg.slogdet(v)[1], rel=1e-11)
        np.testing.assert_allclose(res.cross[i], b.T @ np.linalg.solve(v, b), rtol=1e-9,
                                   atol=1e-9)


def test_reml_is_the_restricted_likelihood_maximised_over_the_variance(rt, data):
    """REML against the restricted likelihood written out directly,
    -½[(n-p) log 2π + log|σ²V| + log|XᵀV⁻¹X/σ²| + rᵀV⁻¹r/σ²], maximised over σ² numerically
    (no closed-form profile involved)."""
    from scipy.optimize import minimize_scalar

    coords, y, X = data
    n, k = X.shape
    for p in PARAMS[:3]:
        v = correlation(coords, p)
        vi = np.linalg.inv(v)
        xtvx = X.T @ vi @ X
        beta = np.linalg.solve(xtvx, X.T @ vi @ y[:, 0])
        r = y[:, 0] - X @ beta
        q = r @ vi @ r

        def neg(log_s2, v=v, xtvx=xtvx, q=q):
            s2 = np.exp(log_s2)
            return 0.5 * ((n - k) * np.log(2 * np.pi) + np.linalg.slogdet(s2 * v)[1]
                          + np.linalg.slogdet(xtvx / s2)[1] + q / s2)

        best = minimize_scalar(neg, bounds=(-10, 10), method="bounded",
                               options={"xatol": 1e-10})
        got = oclstat.matern_loglik(coords, y[:, 0], X, p, method="REML", device=rt)
        assert got.loglik[0, 0] == pytest.approx(-best.fun, rel=1e-9)
        assert got.sigma2[0, 0] == pytest.approx(np.exp(best.x), rel=1e-5)


def test_boxcox_adds_the_jacobian(rt, data):
    coords, _, X = data
    y = np.exp(np.random.default_rng(4).normal(size=len(coords)))
    lam = [0.0, 0.5, 1.0]
    res = oclstat.matern_loglik(coords, y, X, PARAMS[:2], boxcox=lam, device=rt)
    assert res.responses == ("boxcox(0)", "boxcox(0.5)", "boxcox(1)")
    for j, lm in enumerate(lam):
        z = np.log(y) if lm == 0 else (y ** lm - 1) / lm
        ll, *_ = gls_reference(coords, z, X, PARAMS[0], "ML")
        assert res.loglik[0, j] == pytest.approx(ll + (lm - 1) * np.log(y).sum(), rel=1e-10)
    with pytest.raises(ValueError, match="boxcox needs y > 0"):
        oclstat.matern_loglik(coords, -y, X, PARAMS[:1], boxcox=1.0, device=rt)


def test_labelled_inputs_are_aligned(rt, data):
    coords, y, X = data
    ids = [f"s{i}" for i in range(len(coords))]
    c = pd.DataFrame(coords, index=ids, columns=["x", "y"])
    yy = pd.Series(y[:, 0], index=ids, name="z")
    xx = pd.DataFrame(X, index=ids, columns=["one", "a", "b"])
    base = oclstat.matern_loglik(c, yy, xx, PARAMS[:2], device=rt)
    order = np.random.default_rng(5).permutation(len(ids))
    shuffled = oclstat.matern_loglik(c, yy.iloc[order], xx.iloc[order[::-1]], PARAMS[:2],
                                     device=rt)
    np.testing.assert_allclose(shuffled.loglik, base.loglik, rtol=1e-12)
    assert shuffled.responses == ("z",) and shuffled.covariates == ("one", "a", "b")
    with pytest.raises(ValueError, match="label different observations"):
        oclstat.matern_loglik(c, yy.rename(index={"s3": "t3"}), xx, PARAMS[:1], device=rt)
    with pytest.raises(ValueError, match="is labelled but X is not"):
        oclstat.matern_loglik(c, yy, X, PARAMS[:1], device=rt)


def test_loglik_bad_input(rt, data):
    coords, y, X = data
    dup = coords.copy()
    dup[3] = dup[7]
    with pytest.raises(ValueError, match=r"the covariance of params\[0\] is not positive "
                                         r"definite: pivot number 8 .*need a nugget > 0"):
        oclstat.matern_loglik(dup, y[:, 0], X, [[0.3, 1.0, 0.0, 1.0, 0.0]], device=rt)
    ok = oclstat.matern_loglik(dup, y[:, 0], X, [[0.3, 1.0, 0.1, 1.0, 0.0]], device=rt)
    assert np.isfinite(ok.loglik).all()
    with pytest.raises(ValueError, match="rank deficient"):
        oclstat.matern_loglik(coords, y, np.column_stack([X, X[:, 0]]), PARAMS[:1], device=rt)
    with pytest.raises(ValueError, match=r"params\[1\]: range must be > 0"):
        oclstat.matern_loglik(coords, y, X, [[0.3, 1, 0, 1, 0], [0, 1, 0, 1, 0]], device=rt)
    with pytest.raises(ValueError, match="params is missing \\['shape'\\]"):
        oclstat.matern_loglik(coords, y, X, {"range": 0.3}, device=rt)
    with pytest.raises(ValueError, match="y must have one value"):
        oclstat.matern_loglik(coords, y[:-1], X, PARAMS[:1], device=rt)
    with pytest.raises(ValueError, match="method must be 'ML' or 'REML'"):
        oclstat.matern_loglik(coords, y, X, PARAMS[:1], method="reml2", device=rt)
    with pytest.raises(ValueError, match="coords must be finite"):
        bad = coords.copy()
        bad[0, 0] = np.nan
        oclstat.matern_loglik(bad, y, X, PARAMS[:1], device=rt)


# ----------------------------------------------------------------------------- fits


@pytest.fixture(scope="module")
def field_data(rt):
    coords = oclstat.fields.grid_coords(9, 9)
    coords = coords + np.random.default_rng(8).uniform(-0.02, 0.02, coords.shape)
    f = oclstat.simulate_fields(coords, [[0.4, 1.0, 1.0, 0.6, 1.0, 0.0]], 1, seed=22,
                                device=rt)[0, 0]
    x1 = np.sin(3 * coords[:, 0])
    X = np.column_stack([np.ones(len(coords)), x1])
    return coords, 2.0 + 0.7 * x1 + f, X


def test_fit_reaches_the_maximum_of_a_dense_grid(rt, field_data):
    coords, y, X = field_data
    fit = oclstat.fit_matern(coords, y, X, profiles=False, profile2d=False, device=rt)
    rr, nn = np.meshgrid(np.geomspace(0.05, 3.0, 60), np.geomspace(1e-3, 3.0, 60))
    grid = oclstat.matern_loglik(coords, y, X, {"range": rr.ravel(), "shape": 1.0,
                                                "nugget": nn.ravel()}, device=rt)
    best = int(np.argmax(grid.loglik[:, 0]))
    assert fit.loglik >= grid.loglik[best, 0] - 1e-9
    assert fit.params["range"] == pytest.approx(rr.ravel()[best], rel=0.1)
    assert fit.params["nugget"] == pytest.approx(nn.ravel()[best], rel=0.2)
    again = oclstat.matern_loglik(coords, y, X, {k: [v] for k, v in fit.params.items()},
                                  device=rt)
    assert fit.loglik == pytest.approx(again.loglik[0, 0], rel=1e-12)
    table = fit.to_frame()
    assert table.loc["range", "estimated"] and not table.loc["shape", "estimated"]
    assert "evaluations" in repr(fit)


def test_profiles_and_intervals_match_brute_force(rt, field_data):
    """Each point of the range profile is the likelihood maximised over the nugget: a fine
    nugget grid by brute force gives the same values; the interval ends are where the
    brute-force profile crosses max - χ²₁(0.95)/2."""
    coords, y, X = field_data
    fit = oclstat.fit_matern(coords, y, X, profile2d=False, device=rt)
    curve = fit.profiles["range"]
    nug = np.geomspace(1e-4, 10.0, 400)
    rr, nn = np.meshgrid(curve["range"].to_numpy(), nug, indexing="ij")
    brute = oclstat.matern_loglik(coords, y, X, {"range": rr.ravel(), "shape": 1.0,
                                                 "nugget": nn.ravel()}, device=rt)
    brute_profile = brute.loglik[:, 0].reshape(rr.shape).max(axis=1)
    np.testing.assert_allclose(curve["loglik"], brute_profile, atol=2e-3)
    assert (curve["loglik"] >= brute_profile - 2e-3).all()
    lo, hi = fit.ci.loc["range", ["lower", "upper"]]
    assert lo < fit.params["range"] < hi
    t = np.log(curve["range"].to_numpy())
    cut = fit.loglik - stats.chi2.ppf(0.95, 1) / 2
    # the brute-force crossing on each side, linearly interpolated like the fit's
    for end, side in ((lo, t < np.log(fit.params["range"])),
                      (hi, t > np.log(fit.params["range"]))):
        ts, fs = t[side], brute_profile[side]
        order = np.argsort(fs)
        ref = np.exp(np.interp(cut, fs[order], ts[order]))
        assert end == pytest.approx(ref, rel=0.03)


def test_profile2d_covers_range_and_shape(rt, field_data):
    coords, y, X = field_data
    fit = oclstat.fit_matern(coords, y, X, profiles=False, device=rt)
    surf = fit.profile2d
    assert set(surf.columns) == {"range", "shape", "loglik"}
    assert surf["loglik"].max() >= fit.loglik - 1e-6
    assert surf["range"].nunique() > 5 and surf["shape"].nunique() > 5


def test_fit_bad_input(rt, field_data):
    coords, y, X = field_data
    with pytest.raises(ValueError, match="estimate must name distinct parameters"):
        oclstat.fit_matern(coords, y, X, estimate=("range", "sill"), device=rt)
    with pytest.raises(ValueError, match="params has unknown names \\['sill'\\]"):
        oclstat.fit_matern(coords, y, X, params={"sill": 1.0}, device=rt)
    with pytest.raises(ValueError, match="fits one response"):
        oclstat.fit_matern(coords, np.column_stack([y, y]), X, device=rt)
    with pytest.raises(ValueError, match="level must be in"):
        oclstat.fit_matern(coords, y, X, level=1.5, device=rt)


# ----------------------------------------------------------------------------- kriging


def test_predict_matches_universal_kriging_formulas(rt, field_data):
    coords, y, X = field_data
    fit = oclstat.fit_matern(coords, y, X, profiles=False, profile2d=False, device=rt)
    new = np.random.default_rng(9).uniform(0, 1, size=(25, 2))
    x0 = np.column_stack([np.ones(25), np.sin(3 * new[:, 0])])
    pred = oclstat.predict_matern(fit, new, x0, device=rt)
    p = [fit.params[c] for c in oclstat.spatial.MODEL_COLUMNS]
    v = correlation(coords, p)
    both = correlation(np.vstack([new, coords]), [*p[:2], 0.0, *p[3:]])
    c0 = both[:25, 25:]
    vi = np.linalg.inv(v)
    mean = x0 @ fit.beta + c0 @ vi @ (y - X @ fit.beta)
    u = x0.T - X.T @ vi @ c0.T
    var = fit.sigma2 * (1 - np.einsum("ij,jk,ik->i", c0, vi, c0)
                        + np.einsum("pm,pq,qm->m", u, np.linalg.inv(X.T @ vi @ X), u))
    np.testing.assert_allclose(pred["mean"], mean, rtol=1e-9)
    np.testing.assert_allclose(pred["sd"], np.sqrt(var), rtol=1e-7)
    with pytest.raises(ValueError, match="new_X is needed"):
        oclstat.predict_matern(fit, new, device=rt)


# ----------------------------------------------------------------------------- calibration


def test_gls_t_test_is_calibrated(rt):
    """With the correlation known, β̂/se (REML variance) follows Student's t with n - p
    degrees of freedom exactly: 300 fields under β₁ = 0 give uniform p-values."""
    coords = oclstat.fields.grid_coords(6, 5)
    n = len(coords)
    p = [0.5, 1.0, 1.0, 0.3, 1.0, 0.0]
    sims = oclstat.simulate_fields(coords, [p], 300, seed=5, device=rt)[0]
    noise = np.random.default_rng(6).normal(size=sims.shape) * np.sqrt(0.3)
    X = np.column_stack([np.ones(n), np.cos(4 * coords[:, 1])])
    y = (1.0 + sims + noise).T                                     # (n, 300), β₁ = 0
    res = oclstat.matern_loglik(coords, y, X, [[0.5, 1.0, 0.3, 1.0, 0.0]], method="REML",
                                device=rt)
    t = res.beta[0, 1] / res.se[0, 1]
    pvals = 2 * stats.t.sf(np.abs(t), n - 2)
    assert stats.kstest(pvals, "uniform").pvalue > 0.01


# ----------------------------------------------------------------------------- quantiles


def test_qnorm_matches_scipy_to_a_few_ulp(rt):
    p = np.concatenate([[1e-300, 1e-100, 1e-20, 1e-10, 0.075, 0.925],
                        np.linspace(0, 1, 20001)[1:-1], [1 - 1e-10]])
    got = osp.qnorm(p, device=rt)
    ref = sp.ndtri(p)
    ulp = np.abs(got - ref) / np.spacing(np.abs(ref) + 1e-300)
    assert ulp.max() <= 16
    assert osp.qnorm(0.0, device=rt) == -np.inf and osp.qnorm(1.0, device=rt) == np.inf
    assert osp.qnorm(1e-30, lower_tail=False, device=rt) == pytest.approx(-sp.ndtri(1e-30),
                                                                         rel=1e-15)
    with pytest.raises(ValueError, match="p must be probabilities"):
        osp.qnorm([0.5, 1.5], device=rt)


def test_qqnorm_uses_r_plotting_positions(rt):
    for n in (3, 10, 11, 1000):
        y = np.random.default_rng(n).normal(size=n)
        x, yy = ocr.qqnorm(y, device=rt)
        a = 3 / 8 if n <= 10 else 0.5
        ranks = stats.rankdata(y, method="ordinal")
        np.testing.assert_allclose(x, sp.ndtri((ranks - a) / (n + 1 - 2 * a)), rtol=1e-14,
                                   atol=1e-15)
        np.testing.assert_array_equal(yy, y)


@pytest.mark.r
def test_qqnorm_agrees_with_r(rt, R):
    y = np.random.default_rng(3).normal(size=500)
    y[10] = y[20]                                   # a tie: R's order keeps appearance order
    rq = R.r["qqnorm"](R.FloatVector(y), **{"plot.it": False})
    x, _ = ocr.qqnorm(y, device=rt)
    np.testing.assert_allclose(x, np.array(rq.rx2("x")), rtol=1e-14, atol=1e-15)


def test_logfact_sum_matches_scipy(rt):
    t = np.random.default_rng(4).integers(0, 5000, size=(300, 70))
    assert osp.logfact_sum(t, device=rt) == pytest.approx(sp.gammaln(t + 1).sum(), rel=1e-13)
    assert osp.logfact_sum([[0, 1], [1, 0]], device=rt) == 0.0
    with pytest.raises(ValueError, match="x must be >= 0"):
        osp.logfact_sum([-1, 2], device=rt)
    with pytest.raises(TypeError, match="x must hold integers"):
        osp.logfact_sum([1.5], device=rt)


# ----------------------------------------------------------------------------- R's fields


def _fields_fit(R, xy, y, z, aRange=None, lam=None):
    R.r("suppressMessages(library(fields))")
    R.globalenv["xy"] = R.r["matrix"](R.FloatVector(xy.ravel(order="F")), nrow=len(xy))
    R.globalenv["yy"] = R.FloatVector(y)
    R.globalenv["zz"] = R.FloatVector(z)
    if aRange is None:
        return R.r("spatialProcess(xy, yy, Z = zz, mKrig.args = list(m = 1), "
                   "smoothness = 1)$summary")
    return R.r(f"mKrig(xy, yy, Z = zz, m = 1, cov.args = list(Covariance = 'Matern', "
               f"smoothness = 1), aRange = {aRange!r}, lambda = {lam!r})$summary")


def _summary(s) -> dict:
    return dict(zip(s.names, np.asarray(s), strict=True))


@pytest.mark.r
def test_meuse_fit_agrees_with_fields_spatialprocess(rt, R, shared_data):
    """fields parameterises Matern(d / aRange) with lambda = tau²/sigma²: range =
    aRange sqrt(8 nu), nugget = lambda. Same model (log zinc ~ sqrt(dist), smoothness 1, ML):
    the same likelihood at fields' parameters, and a maximum at least as high."""
    try:
        R.r("suppressMessages(library(fields))")
    except Exception:  # noqa: BLE001
        pytest.skip("R package fields is not installed")
    m = pd.read_csv(shared_data / "fields" / "meuse.csv")
    xy = m[["x", "y"]].to_numpy(float)
    y = np.log(m["zinc"].to_numpy(float))
    z = np.sqrt(m["dist"].to_numpy(float))
    X = np.column_stack([np.ones(len(y)), z])
    ref = _summary(_fields_fit(R, xy, y, z))
    fit = oclstat.fit_matern(xy, y, X, profiles=False, profile2d=False, device=rt)
    assert fit.loglik >= ref["lnProfileLike.FULL"] - 1e-6
    assert fit.loglik == pytest.approx(ref["lnProfileLike.FULL"], abs=1e-3)
    fp = fit.fields_params
    assert fp["aRange"] == pytest.approx(ref["aRange"], rel=0.02)
    assert fp["lambda"] == pytest.approx(ref["lambda"], rel=0.05)
    assert fp["sigma2"] == pytest.approx(ref["sigma2"], rel=0.03)
    at = _summary(_fields_fit(R, xy, y, z, aRange=float(ref["aRange"]),
                              lam=float(ref["lambda"])))
    ours = oclstat.matern_loglik(xy, y, X, {"range": ref["aRange"] * np.sqrt(8), "shape": 1.0,
                                            "nugget": ref["lambda"]}, device=rt)
    assert ours.loglik[0, 0] == pytest.approx(at["lnProfileLike.FULL"], rel=1e-10)
    assert ours.sigma2[0, 0] == pytest.approx(at["sigma2"], rel=1e-8)


@pytest.mark.r
def test_rainfall_likelihood_agrees_with_fields_mkrig(rt, R, shared_data):
    """The 1,720 stations of fields::NorthAmericanRainfall (equidistant projection, km),
    log precipitation ~ elevation, smoothness 1: fields' mKrig and oclstat give the same
    profile likelihood at fields' maximum (aRange 816.1 km, lambda 0.0107)."""
    try:
        R.r("suppressMessages(library(fields))")
    except Exception:  # noqa: BLE001
        pytest.skip("R package fields is not installed")
    xy, y, X = rainfall(shared_data)
    at = _summary(_fields_fit(R, xy, y, X[:, 1], aRange=816.10487714, lam=0.01070866))
    ours = oclstat.matern_loglik(xy, y, X, {"range": 816.10487714 * np.sqrt(8), "shape": 1.0,
                                            "nugget": 0.01070866}, device=rt)
    assert ours.loglik[0, 0] == pytest.approx(at["lnProfileLike.FULL"], rel=1e-10)


def rainfall(shared_data):
    """The rainfall data as the benchmark and the tests use it: x, y in km (equidistant
    cylindrical projection about the mean latitude), log precipitation, [1, elevation km]."""
    d = pd.read_csv(shared_data / "fields" / "north_american_rainfall.csv")
    lat0 = np.deg2rad(d["latitude"].mean())
    xy = 6371.0 * np.column_stack([np.deg2rad(d["longitude"]) * np.cos(lat0),
                                   np.deg2rad(d["latitude"])])
    X = np.column_stack([np.ones(len(d)), d["elevation"] / 1000.0])
    return xy, np.log(d["precip"].to_numpy(float)), X


def test_whitened_pieces_reproduce_the_factor(rt, data):
    """The kriging solves (D^-½ L⁻¹ on the device) whiten the data: their Gram matrix is
    XᵀV⁻¹X."""
    coords, y, X = data
    w, crosses, bad = spatial_opencl.whitened(rt, PARAMS[0], coords, X, coords[:5], chunk=3)
    assert bad == -1
    v = correlation(coords, PARAMS[0])
    np.testing.assert_allclose(w.T @ w, X.T @ np.linalg.solve(v, X), rtol=1e-9)
    rho = correlation(coords, [*PARAMS[0][:2], 0.0, *PARAMS[0][3:]])[:, :5]
    parts = list(crosses)
    assert [(a, e) for a, e, _ in parts] == [(0, 3), (3, 5)]
    wc = np.hstack([x for _, _, x in parts])
    np.testing.assert_allclose(wc.T @ w, rho.T @ np.linalg.solve(v, X), rtol=1e-9, atol=1e-12)


def test_devices_without_fp64_are_refused_up_front():
    """The likelihood needs double precision: a device without it (OCLSTAT_NO_FP64) gets a
    clear error naming the device and why, while the batched algebra runs in float32."""
    import os
    import subprocess
    import sys

    code = ("import numpy as np, oclstat\n"
            "xy = np.random.default_rng(0).uniform(size=(10, 2))\n"
            "low = np.eye(3, dtype=np.float32)\n"
            "print(oclstat.solve_triangular_batch(low, np.ones(3, np.float32)).dtype)\n"
            "oclstat.matern_loglik(xy, np.arange(10.0), None, {'range': [0.3], 'shape': 1})\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, OCLSTAT_NO_FP64="1"), timeout=300)
    assert proc.returncode != 0
    assert proc.stdout.strip() == "float32"
    assert "matern_loglik needs double precision" in proc.stderr
    assert "DeviceCapabilityError" in proc.stderr


def test_parameter_sets_spread_over_devices_give_the_same_table(rt, data):
    """A list of devices splits the parameter table into tasks (32 sets each): the same
    likelihoods, in order, as one device."""
    coords, y, X = data
    params = {"range": np.geomspace(0.05, 1.0, 70), "shape": 1.5, "nugget": 0.1}
    one = oclstat.matern_loglik(coords, y, X, params, device=rt)
    two = oclstat.matern_loglik(coords, y, X, params, device=[rt, rt])
    np.testing.assert_array_equal(two.loglik, one.loglik)
    np.testing.assert_array_equal(two.beta, one.beta)


def test_helpers_refuse_bad_input_by_name(rt, field_data):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    coords, y, X = field_data
    with pytest.raises(ValueError, match="y has no non-missing values"):
        ocr.qqnorm([np.nan, np.nan], device=rt)
    fit = oclstat.fit_matern(coords, y, X, profiles=False, profile2d=False, device=rt)
    with pytest.raises(ValueError, match="the fit has no profiles"):
        oclstat.plot_profiles(fit)
    with pytest.raises(ValueError, match="new_coords must be a finite \\(m, 2\\) array"):
        oclstat.predict_matern(fit, [[0.1, 0.2, 0.3]], device=rt)
    with pytest.raises(ValueError, match="new_X must be finite with 2 columns"):
        oclstat.predict_matern(fit, [[0.1, 0.2]], [[1.0, 2.0, 3.0]], device=rt)
    with pytest.raises(TypeError, match="fit must be a MaternFit"):
        oclstat.predict_matern({"range": 1.0}, [[0.1, 0.2]], device=rt)
    scattered = oclstat.predict_matern(fit, [[0.1, 0.2], [0.3, 0.5], [0.7, 0.1]],
                                       [[1.0, 0.1]] * 3, device=rt)
    with pytest.raises(ValueError, match="prediction is not on a grid"):
        oclstat.plot_kriging(scattered)
    with pytest.raises(ValueError, match="what must be 'mean' or 'sd'"):
        oclstat.plot_kriging(scattered, what="var")
