"""oclstat.special.kv and oclstat.fields: K_nu against mpmath and scipy, the Matérn covariance
against a float64 scipy implementation of the same formula, LDLᵀ/Cholesky against numpy, and
simulated fields against their covariance."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from scipy import special as sp

import oclstat
from oclstat import special

fields_mod = importlib.import_module("oclstat.fields")
fields_plan = importlib.import_module("oclstat._fields.plan")
PARAMS = np.array([
    # range, shape, variance, nugget, anisoRatio, anisoAngleRadians
    [0.5, 0.5, 1.0, 0.0, 1.0, 0.0],
    [1.2, 1.5, 2.0, 0.1, 2.0, 0.4],
    [0.3, 2.5, 0.7, 0.0, 1.0, 0.0],
    [2.0, 0.05, 1.5, 0.2, 1.5, -1.0],
    [0.8, 7.3, 1.0, 0.0, 3.0, 2.0],
    [1.0, 20.0, 3.0, 0.05, 1.0, 0.0],
])


# ----------------------------------------------------------------------------- K_nu


def test_kv_against_mpmath_including_x_near_3_and_half_integers():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 30
    nus = [0.05, 0.3, 0.5, 1.0, 1.5, 2.5, 3.5, 4.5, 7.25, 12.5, 19.5, 20.0]
    xs = [1e-8, 1e-3, 0.2, 0.99, 1.0, 1.01, 1.9, 2.5, 2.9, 3.0, 3.1, 7.0, 40.0, 300.0, 700.0]
    nu, x = np.meshgrid(nus, xs, indexing="ij")
    ref = np.array([[float(mpmath.besselk(a, b)) for b in xs] for a in nus])
    got = special.kv(nu, x)
    np.testing.assert_allclose(got, ref, rtol=2e-15 * 8, atol=0)
    ref_log = np.array([[float(mpmath.log(mpmath.besselk(a, b))) for b in xs] for a in nus])
    np.testing.assert_allclose(special.log_kv(nu, x), ref_log, rtol=1e-15, atol=1e-13)


def test_kv_against_scipy_random_grid():
    rng = np.random.default_rng(0)
    nu = rng.uniform(0.05, 20, 20000)
    x = np.exp(rng.uniform(np.log(1e-8), np.log(700), 20000))
    ref = sp.kv(nu, x)
    ok = np.isfinite(ref) & (ref > 1e-300)
    # scipy's AMOS kv itself is only good to about 1e-13 for 1 < x < 2 (checked with mpmath)
    np.testing.assert_allclose(special.kv(nu, x)[ok], ref[ok], rtol=3e-13)


def test_kv_float32():
    rng = np.random.default_rng(1)
    nu = rng.uniform(0.05, 20, 5000)
    x = np.exp(rng.uniform(np.log(1e-8), np.log(700), 5000))
    ref = sp.kv(nu, x)
    got = special.kv(nu, x, dtype=np.float32)
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    normal = np.isfinite(ref32) & (ref32 > 1e-36)
    np.testing.assert_allclose(got[normal], ref[normal], rtol=2e-5)
    assert np.isinf(got[np.isinf(ref32)]).all()
    np.testing.assert_allclose(special.log_kv(nu, x, dtype=np.float32),
                               np.log(sp.kve(nu, x)) - x, rtol=1e-5, atol=2e-4)


def test_kv_bad_input():
    with pytest.raises(ValueError, match="x must be > 0"):
        special.kv(1.0, 0.0)
    with pytest.raises(ValueError, match="nu must be finite and >= 0"):
        special.kv(-1.0, 1.0)


# ----------------------------------------------------------------------------- Matérn


def matern_reference(coords, p):
    """geostatsp's maternAniso (src/matern.c): the difference rotated anticlockwise by the
    angle, distRotate = (cos -sin; sin cos) dist, then distSq = r0^2 + r1^2 / anisoRatio^2."""
    rng_, nu, var, nug, ratio, angle = p
    dx = coords[:, None, 0] - coords[None, :, 0]
    dy = coords[:, None, 1] - coords[None, :, 1]
    r0 = np.cos(angle) * dx - np.sin(angle) * dy
    r1 = np.sin(angle) * dx + np.cos(angle) * dy
    d = np.sqrt(r0 * r0 + r1 * r1 / ratio**2)
    x = np.sqrt(8 * nu) * d / rng_
    with np.errstate(invalid="ignore", divide="ignore"):
        c = var * 2 ** (1 - nu) / sp.gamma(nu) * x ** nu * sp.kv(nu, x)
    c[d == 0] = var
    return c + nug * np.eye(len(coords))


def test_matern_against_scipy_formula(rt):
    rng = np.random.default_rng(2)
    coords = rng.uniform(0, 3, size=(57, 2))
    coords[5] = coords[9]                      # coincident distinct points: variance, no nugget
    cov = oclstat.matern_cov(coords, PARAMS, device=rt)
    assert cov.shape == (len(PARAMS), 57, 57)
    for k, p in enumerate(PARAMS):
        ref = matern_reference(coords, p)
        np.testing.assert_allclose(cov[k], ref, rtol=1e-12, atol=1e-300)
        assert cov[k][5, 9] == p[2]
        np.testing.assert_array_equal(np.diag(cov[k]), p[2] + p[3])


@pytest.mark.parametrize("n_lanes", [2, 4, 8, 16])
def test_matern_lanes_give_the_one_element_kernels_values(rt, lanes, n_lanes):
    """Where work-items run as scalar code (pocl), LANES elements of a row per work-item in
    vector registers (the fast path): the one-element kernel's values to its precision, on
    rows that do not fill the last work-item, coincident points, distances on both sides of
    the series' x = 2 and past x = 700, and in the bordered matrices of the likelihoods."""
    if not rt.scalar_work_items or not rt.info.fp64:
        pytest.skip("the lanes path runs where work-items are scalar code (pocl), in double")
    rng = np.random.default_rng(12)
    coords = np.vstack([rng.uniform(0, 3, size=(40, 2)), [[5e3, 5e3], [0.5, 0.5]]])
    coords[7] = coords[3]
    params = [[0.4, 0.5, 1.0, 0.1, 1.0, 0.0], [1.5, 2.3, 2.0, 0.0, 2.0, 0.7],
              [0.05, 1.0, 1.0, 0.2, 1.0, 0.0], [3.0, 4.6, 0.5, 0.0, 1.5, -0.3]]
    lanes(1)
    one = oclstat.matern_cov(coords, params, device=rt)
    lanes(n_lanes)
    many = oclstat.matern_cov(coords, params, device=rt)
    np.testing.assert_allclose(many, one, rtol=1e-13, atol=1e-300)
    for k, p in enumerate(params):
        np.testing.assert_array_equal(np.diag(many[k]), p[2] + p[3])
        assert many[k][3, 7] == p[2] and (many[k][40, :40] == 0).all()
        np.testing.assert_allclose(many[k], matern_reference(coords, p), rtol=1e-12,
                                   atol=1e-300)
    y = rng.normal(size=coords.shape[0])
    lanes(1)
    grid = {"range": [0.4, 1.5], "shape": [0.5, 2.3], "nugget": [0.1, 0.3]}
    a = oclstat.spatial.matern_loglik(coords, y, params=grid, device=rt)
    lanes(n_lanes)
    b = oclstat.spatial.matern_loglik(coords, y, params=grid, device=rt)
    np.testing.assert_allclose(np.asarray(b.loglik), np.asarray(a.loglik), rtol=1e-12)


@pytest.mark.parametrize("angle", [0.449, -1.1, 2.3, np.pi / 2])
def test_anisotropy_rotates_anticlockwise_as_geostatsp(rt, angle):
    """Non-zero angles with a strong ratio: the opposite rotation gives a different matrix
    (by up to 0.48 at angle 0.449, ratio 3), so this catches the sign of the angle."""
    rng = np.random.default_rng(7)
    coords = rng.uniform(0, 1, size=(30, 2))
    p = np.array([0.6, 1.5, 1.0, 0.0, 3.0, angle])
    cov = oclstat.matern_cov(coords, [p], device=rt)[0]
    np.testing.assert_allclose(cov, matern_reference(coords, p), rtol=1e-12, atol=1e-300)
    mirrored = matern_reference(coords, p * np.r_[1, 1, 1, 1, 1, -1])
    if not np.isclose(np.sin(2 * angle), 0):
        assert np.abs(cov - mirrored).max() > 0.05


def test_matern_special_cases(rt):
    d = np.r_[0.0, 1e-9, 0.01, 0.5, 1.0, 2.9, 3.0, 3.1, 10.0]
    coords = np.column_stack([d, np.zeros_like(d)])
    rng_ = 1.7
    exp_ = oclstat.matern_cov(coords, [rng_, 0.5, 2.0, 0.0, 1.0, 0.0], device=rt)[0][0]
    np.testing.assert_allclose(exp_, 2.0 * np.exp(-2 * d / rng_), rtol=1e-13)
    for nu, closed in [(1.5, lambda x: (1 + x) * np.exp(-x)),
                       (2.5, lambda x: (1 + x + x * x / 3) * np.exp(-x))]:
        c = oclstat.matern_cov(coords, [rng_, nu, 1.0, 0.0, 1.0, 0.0], device=rt)[0][0]
        x = np.sqrt(8 * nu) * d / rng_
        np.testing.assert_allclose(c, closed(x), rtol=1e-13)
        assert (c <= 1.0).all()                 # never above the variance (x near 3 included)
    gauss = oclstat.matern_cov(coords, [rng_, 60.0, 1.0, 0.0, 1.0, 0.0], device=rt)[0][0]
    np.testing.assert_allclose(gauss, np.exp(-2 * d ** 2 / rng_ ** 2), atol=0.01)


def test_matern_float32(rt):
    rng = np.random.default_rng(3)
    coords = rng.uniform(0, 2, size=(40, 2))
    a = oclstat.matern_cov(coords, PARAMS, device=rt)
    b = oclstat.matern_cov(coords, PARAMS, dtype=np.float32, device=rt)
    np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)


def test_matern_params_as_dataframe(rt):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(PARAMS[:2], columns=list(fields_mod.PARAM_COLUMNS))[::-1]
    coords = np.array([[0.0, 0.0], [0.3, 0.1]])
    np.testing.assert_array_equal(oclstat.matern_cov(coords, frame.iloc[::-1], device=rt),
                                  oclstat.matern_cov(coords, PARAMS[:2], device=rt))
    with pytest.raises(ValueError, match="missing columns \\['nugget'\\]"):
        oclstat.matern_cov(coords, frame.drop(columns="nugget"), device=rt)


@pytest.mark.parametrize(
    "coords,params,match",
    [
        ([[0, 0], [1, 1]], [-1.0, 1, 1, 0, 1, 0], r"params\[0\]: range must be > 0"),
        ([[0, 0], [np.nan, 1]], [1.0, 1, 1, 0, 1, 0], "coords must be finite"),
        ([[0, 0], [1, 1]], [1.0, 1, 1, 0, 1], "params must have 6 columns"),
        ([[0, 0, 0]], [1.0, 1, 1, 0, 1, 0], "coords must be an \\(n_points, 2\\) array"),
        ([[0, 0]], [1.0, 0.0, 1, 0, 1, 0], "shape must be > 0"),
        ([[0, 0]], [1.0, 1, 1, -0.1, 1, 0], "nugget must be >= 0"),
    ],
)
def test_matern_bad_input(rt, coords, params, match):
    with pytest.raises(ValueError, match=match):
        oclstat.matern_cov(coords, params, device=rt)


# ----------------------------------------------------------------------------- LDL


def spd(rng, b, n):
    x = rng.normal(size=(b, n, n))
    return x @ x.transpose(0, 2, 1) + n * np.eye(n)


#: The three schedules of ldl_batch: (OCLSTAT_SCHEDULE, OCLSTAT_LDL_WHOLE). "whole" (one
#: work-item per matrix) is the CPU's for n <= WHOLE_MAX, "outer" the CPU's blocked one.
LDL_SCHEDULES = {"whole": ("cpu", "1"), "outer": ("cpu", "0"), "tiles": ("gpu", "1")}


@pytest.mark.parametrize("mode", list(LDL_SCHEDULES))
@pytest.mark.parametrize("n,b", [(1, 2), (2, 3), (5, 3), (64, 2), (65, 3), (131, 2), (300, 1)])
def test_ldl_reconstructs_and_matches_numpy(rt, monkeypatch, mode, n, b):
    schedule, whole = LDL_SCHEDULES[mode]
    monkeypatch.setenv("OCLSTAT_SCHEDULE", schedule)
    monkeypatch.setenv("OCLSTAT_LDL_WHOLE", whole)
    a = spd(np.random.default_rng(n), b, n)
    r = oclstat.ldl_batch(a, device=rt)
    rec = (r.L * r.D[:, None, :]) @ r.L.transpose(0, 2, 1)
    assert np.abs(rec - a).max() <= 1e-10 * np.abs(a).max()
    np.testing.assert_array_equal(np.triu(r.L, 1), 0)
    np.testing.assert_array_equal(np.diagonal(r.L, axis1=1, axis2=2), 1)
    np.testing.assert_allclose(r.logdet, np.linalg.slogdet(a)[1], rtol=1e-12)
    c = oclstat.cholesky_batch(a, device=rt)
    np.testing.assert_allclose(c, np.linalg.cholesky(a), rtol=1e-10, atol=1e-12 * np.sqrt(n))


def test_ldl_of_matern_matrices(rt):
    coords = np.random.default_rng(4).uniform(0, 1, size=(200, 2))
    cov = oclstat.matern_cov(coords, PARAMS[:3], device=rt)
    r = oclstat.ldl_batch(cov, device=rt)
    rec = (r.L * r.D[:, None, :]) @ r.L.transpose(0, 2, 1)
    np.testing.assert_allclose(rec, cov, atol=1e-10 * cov.max())


@pytest.mark.parametrize("mode", list(LDL_SCHEDULES))
@pytest.mark.parametrize("n", [20, 70])
def test_ldl_reads_only_the_lower_triangle_and_checks_every_value(rt, monkeypatch, mode, n):
    """As documented: the upper triangle is not used (ldl_whole once read it, and a matrix given
    by its lower triangle came out wrong), but NaN or infinity anywhere, or made by the
    precision, is an error naming the matrix."""
    schedule, whole = LDL_SCHEDULES[mode]
    monkeypatch.setenv("OCLSTAT_SCHEDULE", schedule)
    monkeypatch.setenv("OCLSTAT_LDL_WHOLE", whole)
    a = spd(np.random.default_rng(n), 3, n)
    full = oclstat.ldl_batch(a, device=rt)
    low = oclstat.ldl_batch(np.tril(a), device=rt)
    np.testing.assert_array_equal(low.L, full.L)
    np.testing.assert_array_equal(low.D, full.D)
    np.testing.assert_allclose(full.D[1], np.diagonal(np.linalg.cholesky(a[1])) ** 2, rtol=1e-10)
    for where, value in [((1, 0, n - 1), np.nan), ((2, n - 1, 3), -np.inf), ((1, 5, 5), np.inf)]:
        bad = a.copy()
        bad[where] = value
        with pytest.raises(ValueError, match=f"A must be finite: A\\[{where[0]}\\] holds NaN"):
            oclstat.ldl_batch(bad, device=rt)
    big = a.copy()
    big[2, 1, 0] = 1e300                                   # finite in float64, not in float32
    with pytest.raises(ValueError, match="A\\[2\\] holds NaN or infinity in float32"):
        oclstat.cholesky_batch(big, dtype=np.float32, device=rt)


@pytest.mark.parametrize("mode", list(LDL_SCHEDULES))
def test_ldl_float32(rt, monkeypatch, mode):
    schedule, whole = LDL_SCHEDULES[mode]
    monkeypatch.setenv("OCLSTAT_SCHEDULE", schedule)
    monkeypatch.setenv("OCLSTAT_LDL_WHOLE", whole)
    a = spd(np.random.default_rng(8), 2, 100).astype(np.float32)
    r = oclstat.ldl_batch(a, device=rt)
    assert r.L.dtype == np.float32
    rec = (r.L * r.D[:, None, :]) @ r.L.transpose(0, 2, 1)
    assert np.abs(rec - a).max() <= 1e-5 * np.abs(a).max()


@pytest.mark.parametrize("mode", list(LDL_SCHEDULES))
@pytest.mark.parametrize("pivot", [64, 66, 67, 69])   # first, inner, last of groups of 8 pivots
def test_not_positive_definite_names_matrix_and_pivot(rt, monkeypatch, mode, pivot):
    schedule, whole = LDL_SCHEDULES[mode]
    monkeypatch.setenv("OCLSTAT_SCHEDULE", schedule)
    monkeypatch.setenv("OCLSTAT_LDL_WHOLE", whole)
    a = spd(np.random.default_rng(5), 3, 70)
    a[1, pivot, pivot] = -1e6
    with pytest.raises(ValueError, match=f"A\\[1\\] is not positive definite: pivot number "
                                         f"{pivot + 1} "):
        oclstat.ldl_batch(a, device=rt)
    with pytest.raises(ValueError, match="must be a \\(batch, n, n\\) stack"):
        oclstat.ldl_batch(np.ones((2, 3, 4)), device=rt)
    with pytest.raises(ValueError, match="A must be finite"):
        oclstat.ldl_batch(np.full((2, 2), np.nan), device=rt)


# ----------------------------------------------------------------------------- fields


def test_multiply_lower_diag(rt):
    rng = np.random.default_rng(6)
    a = spd(rng, 2, 33)
    r = oclstat.ldl_batch(a, device=rt)
    z = rng.normal(size=(2, 7, 33))
    for transform, w in [("sqrt", np.sqrt(r.D)), ("identity", r.D), ("none", np.ones_like(r.D))]:
        got = oclstat.multiply_lower_diag(r.L, r.D, z, transform=transform, device=rt)
        ref = np.einsum("bij,bj,bsj->bsi", r.L, w, z)
        np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="transform must be one of"):
        oclstat.multiply_lower_diag(r.L, r.D, z, transform="log")
    with pytest.raises(ValueError, match="Z must have shape \\(2, n_sim, 33\\)"):
        oclstat.multiply_lower_diag(r.L, r.D, z[:, :, :5])


def test_simulated_fields_have_the_matern_covariance(rt):
    coords = np.array([[0.0, 0.0], [0.2, 0.0], [0.0, 0.5], [0.7, 0.7], [1.5, 0.2]])
    params = PARAMS[[1, 2]]
    n_sim = 40000
    f = oclstat.simulate_fields(coords, params, n_sim, seed=7, device=rt)
    assert f.shape == (2, n_sim, 5)
    cov = oclstat.matern_cov(coords, params, device=rt)
    for k in range(2):
        emp = np.cov(f[k], rowvar=False, bias=True)
        c = cov[k]
        se = np.sqrt((np.outer(np.diag(c), np.diag(c)) + c ** 2) / n_sim)
        assert (np.abs(emp - c) < 5 * se).all()
        assert np.abs(f[k].mean(axis=0)).max() < 5 * np.sqrt(np.diag(c).max() / n_sim)
    again = oclstat.simulate_fields(coords, params, n_sim, seed=7, device=rt)
    np.testing.assert_array_equal(f, again)


def test_grid_helpers_and_plot(rt, tmp_path):
    coords = fields_mod.grid_coords(8, 6, xlim=(0, 2), ylim=(0, 1))
    assert coords.shape == (48, 2)
    f = oclstat.simulate_fields(coords, PARAMS[:2], 3, seed=1, device=rt)
    img = fields_mod.fields_on_grid(f, 8, 6)
    assert img.shape == (2, 3, 6, 8)
    np.testing.assert_array_equal(img[1, 2, 5], f[1, 2, 40:48])
    with pytest.raises(ValueError, match="the grid 5 x 5 has 25"):
        fields_mod.fields_on_grid(f, 5, 5)
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    fig = oclstat.plot_fields(img[0], titles=["a", "b", "c"])
    fig.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000


def test_simulate_fields_bad_input(rt):
    with pytest.raises(ValueError, match="n_sim must be >= 1"):
        oclstat.simulate_fields([[0, 0]], PARAMS[0], 0, device=rt)


def test_batches_larger_than_one_allocation_are_split(rt, monkeypatch):
    """A batch bigger than max_alloc runs in chunks with the same numbers; one matrix bigger
    than an allocation is a DeviceCapabilityError naming the sizes."""
    import dataclasses

    rng = np.random.default_rng(12)
    coords = rng.uniform(0, 1, size=(60, 2))
    params = np.tile([0.4, 1.5, 1.0, 0.01, 1.5, 0.3], (7, 1))
    params[:, 0] = np.linspace(0.2, 0.8, 7)
    want = (oclstat.matern_cov(coords, params, device=rt),
            oclstat.simulate_fields(coords, params, 3, seed=4, device=rt))
    want_l = oclstat.ldl_batch(want[0], device=rt)
    small = dataclasses.replace(rt.info, max_alloc=48_000)      # one 60 x 60 matrix at a time
    monkeypatch.setattr(rt, "info", small)
    assert len(fields_plan._matrix_chunks(rt, 7, 60 * 60 * 8, "x")) == 7
    np.testing.assert_array_equal(oclstat.matern_cov(coords, params, device=rt), want[0])
    np.testing.assert_array_equal(oclstat.simulate_fields(coords, params, 3, seed=4, device=rt),
                                  want[1])
    got_l = oclstat.ldl_batch(want[0], device=rt)
    np.testing.assert_array_equal(got_l.L, want_l.L)
    np.testing.assert_array_equal(got_l.D, want_l.D)
    bad = want[0].copy()
    bad[5, 3, 2] = np.nan                  # named by its place in the batch, not in its chunk
    with pytest.raises(ValueError, match="A must be finite: A\\[5\\] holds NaN"):
        oclstat.ldl_batch(bad, device=rt)
    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info, max_alloc=1000))
    with pytest.raises(oclstat.DeviceCapabilityError, match="one matrix needs"):
        oclstat.matern_cov(coords, params, device=rt)
