"""Single-sample enrichment against its anchors: ssGSEA and GSVA against R's GSVA 1.46
(``gsva(method = "ssgsea" / "gsva")``, through rpy2) and GSEApy's ``ssgsea``; AUCell against a
direct implementation of the paper's recovery-curve area; on Leukemia x Hallmark and on a
sparse single-cell count matrix, dense, scipy.sparse and AnnData inputs, in bounded memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import oclstat
from oclstat._singlesample import api as ss_api
from oclstat._singlesample import core, opencl


@pytest.fixture(scope="module")
def leukemia(shared_data):
    d = shared_data / "gsea"
    expr = oclstat.io.read_expression(d / "Leukemia_hgu95av2.trim.gct")
    return expr, oclstat.io.read_gmt(d / "h.all.v7.0.symbols.gmt")


def _single_cell(genes=600, cells=150, seed=11):
    """Sparse counts (about 85% zeros), genes x cells, with three sets of marker genes."""
    rng = np.random.default_rng(seed)
    rate = rng.gamma(0.3, 1.0, size=(genes, 1)) * rng.uniform(0.5, 1.5, size=(1, cells))
    x = rng.poisson(rate * (rng.random((genes, cells)) < 0.35))
    x[:25, : cells // 3] += rng.poisson(3.0, size=(25, cells // 3))
    names = [f"Gene{i}" for i in range(genes)]
    frame = pd.DataFrame(x.astype(float), index=names, columns=[f"cell{j}" for j in range(cells)])
    sets = {"markers": names[:25], "mixed": names[10:60], "random": list(rng.choice(names, 40,
                                                                             replace=False))}
    return frame, sets


def _gsva_r(R, frame: pd.DataFrame, sets: dict, method: str, **args) -> pd.DataFrame:
    from rpy2.robjects import numpy2ri

    ro = R
    ro.r("suppressMessages(library(GSVA))")
    with (ro.default_converter + numpy2ri.converter).context():
        ro.globalenv["x"] = frame.to_numpy()
    ro.globalenv["rn"] = ro.StrVector(list(frame.index))
    ro.globalenv["cn"] = ro.StrVector(list(frame.columns))
    ro.r("rownames(x) <- rn; colnames(x) <- cn")
    ro.globalenv["sets"] = ro.ListVector({k: ro.StrVector(v) for k, v in sets.items()})
    extra = "".join(f", {k} = {v}" for k, v in args.items())
    out = ro.r(f"suppressWarnings(gsva(x, sets, method = '{method}', verbose = FALSE, "
               f"parallel.sz = 1L{extra}))")
    names = list(ro.r("rownames")(out))
    with (ro.default_converter + numpy2ri.converter).context():
        values = np.asarray(out)
    return pd.DataFrame(values, index=names, columns=list(frame.columns))


def _close(ours: pd.DataFrame, ref: pd.DataFrame, rtol=1e-8):
    assert set(ours.index) == set(ref.index)
    ours = ours.loc[ref.index, ref.columns].to_numpy()
    scale = np.abs(ref.to_numpy()).max()
    np.testing.assert_allclose(ours, ref.to_numpy(), rtol=rtol, atol=rtol * scale)


# -- the anchors: GSVA 1.46 (R) ------------------------------------------------------------

@pytest.mark.r
def test_ssgsea_equals_gsva_on_leukemia_hallmark(leukemia, R):
    expr, sets = leukemia
    ref = _gsva_r(R, expr, sets, "ssgsea")
    ours = oclstat.ssgsea(expr, sets)
    _close(ours, ref)
    assert ours.shape == (50, 48) and ours.attrs["flavor"] == "gsva"


@pytest.mark.r
@pytest.mark.parametrize("args", [{}, {"mx_diff": False}, {"abs_ranking": True},
                                  {"tau": 0.5}])
def test_gsva_equals_gsva_on_leukemia_hallmark(leukemia, R, rt, args):
    expr, sets = leukemia
    r_args = {k.replace("_", "."): (str(v).upper() if isinstance(v, bool) else v)
              for k, v in args.items()}
    ref = _gsva_r(R, expr, sets, "gsva", **r_args)
    _close(oclstat.gsva(expr, sets, device=rt, **args), ref)


@pytest.mark.r
@pytest.mark.parametrize("method", ["zscore", "plage"])
def test_zscore_and_plage_equal_gsva_on_leukemia_hallmark(leukemia, R, method):
    """GSVA 1.46's other two methods, signs of PLAGE's singular vectors included."""
    expr, sets = leukemia
    ref = _gsva_r(R, expr, sets, method)
    ours = getattr(oclstat, method)(expr, sets)
    assert ours.shape == (50, 48)
    _close(ours, ref, rtol=1e-10)


@pytest.mark.r
@pytest.mark.parametrize("method", ["zscore", "plage"])
def test_zscore_and_plage_equal_gsva_on_its_help_page_example(R, method):
    """gsva's help-page example (10 genes, 30 samples, three sets, set1 shifted in the second
    group; R's seed 1), and sparse input giving the dense answer."""
    R.r("set.seed(1); p <- 10; n <- 30; y <- matrix(rnorm(n * p), nrow = p, ncol = n, "
        "dimnames = list(paste0('g', 1:p), paste0('s', 1:n))); "
        "y[paste0('g', 1:3), 16:30] <- y[paste0('g', 1:3), 16:30] + 2")
    y = pd.DataFrame(np.array(R.r("y")), index=[f"g{i}" for i in range(1, 11)],
                     columns=[f"s{j}" for j in range(1, 31)])
    sets = {"set1": ["g1", "g2", "g3"], "set2": ["g4", "g5", "g6"],
            "set3": ["g7", "g8", "g9", "g10"]}
    ref = _gsva_r(R, y, sets, method)
    ours = getattr(oclstat, method)(y, sets)
    _close(ours, ref, rtol=1e-10)
    kw = {"genes": list(y.index), "samples": list(y.columns)}
    _close(getattr(oclstat, method)(sparse.csc_matrix(y.to_numpy()), sets, **kw), ref,
           rtol=1e-10)


def test_zscore_and_plage_by_their_definitions():
    """z-score: standardised members summed over sqrt(size); PLAGE: unit-length scores whose
    rank-one reconstruction is the members' best one (Eckart-Young), any sign; constant
    genes left out, one-gene PLAGE sets refused by min_size."""
    rng = np.random.default_rng(8)
    x = pd.DataFrame(rng.normal(size=(40, 12)), index=[f"g{i}" for i in range(40)])
    x.iloc[5] = 3.0                                       # constant: left out
    sets = {"a": ["g1", "g2", "g3", "g5"], "b": [f"g{i}" for i in range(10, 30)]}
    z = (x - x.mean(axis=1).to_numpy()[:, None]) / x.std(axis=1, ddof=1).to_numpy()[:, None]
    got = oclstat.zscore(x, sets)
    np.testing.assert_allclose(got.loc["a"], z.loc[["g1", "g2", "g3"]].sum() / np.sqrt(3))
    np.testing.assert_allclose(got.loc["b"], z.iloc[10:30].sum() / np.sqrt(20))
    v = oclstat.plage(x, sets)
    for name, rows in (("a", ["g1", "g2", "g3"]), ("b", [f"g{i}" for i in range(10, 30)])):
        zs = z.loc[rows].to_numpy()
        u, sv, vt = np.linalg.svd(zs)
        assert np.linalg.norm(v.loc[name]) == pytest.approx(1.0)
        assert abs(v.loc[name].to_numpy() @ vt[0]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="min_size must be"):
        oclstat.plage(x, sets, min_size=1)
    with pytest.raises(ValueError, match="at least 2 samples"):
        oclstat.zscore(x.iloc[:, :1], sets)


@pytest.mark.r
def test_single_cell_counts_equal_gsva(R, rt):
    """A sparse count matrix (ties everywhere: the zeros) as scipy.sparse: ssGSEA, GSVA with
    the Gaussian kernel and the empirical CDF equal GSVA's."""
    frame, sets = _single_cell()
    counts = sparse.csr_matrix(frame.to_numpy())
    kw = {"genes": list(frame.index), "samples": list(frame.columns)}
    _close(oclstat.ssgsea(counts, sets, **kw), _gsva_r(R, frame, sets, "ssgsea"))
    for kcdf in ("Gaussian", "none"):
        ref = _gsva_r(R, frame, sets, "gsva", kcdf=f"'{kcdf}'")
        _close(oclstat.gsva(counts, sets, kcdf=kcdf, device=rt, **kw), ref)


@pytest.mark.r
def test_poisson_kernel_equals_gsva(R):
    """The Poisson kernel (kcdf = "Poisson", for counts) equals GSVA's on counts whose genes'
    kernel estimates do not tie; where two genes' estimates are equal in exact arithmetic
    (sparse counts: genes with the same counts in other cells), GSVA orders them by the last
    bits of R's ppois sums, oclstat by their rows, and then equals GSVA run on its own
    estimates with those ties resolved by row."""
    from rpy2.robjects import numpy2ri

    rng = np.random.default_rng(6)
    bulk = pd.DataFrame(rng.negative_binomial(5, 0.05, size=(300, 24)).astype(float),
                        index=[f"G{i}" for i in range(300)], columns=[f"s{j}" for j in range(24)])
    sets = {"a": list(bulk.index[:30]), "b": list(bulk.index[100:160])}
    _close(oclstat.gsva(bulk, sets, kcdf="Poisson"),
           _gsva_r(R, bulk, sets, "gsva", kcdf="'Poisson'"))

    frame, sets = _single_cell()
    x = frame.to_numpy()
    x = x[x.std(axis=1, ddof=1) > 0]
    with (R.default_converter + numpy2ri.converter).context():
        R.globalenv["xk"] = x
        density = np.asarray(R.r("GSVA:::compute.gene.density(xk, 1:ncol(xk), TRUE, TRUE)"))
    resolved = np.round(density, 10)                # ties as exact arithmetic has them
    sds = frame.to_numpy().std(axis=1, ddof=1)
    kept = [g for g, sd in zip(frame.index, sds, strict=True) if sd > 0]
    index = {g: i for i, g in enumerate(kept)}
    idx = [np.array(sorted(index[g] for g in v if g in index)) for v in sets.values()]
    want = core.gsva_block(resolved, idx, 1.0, True, False)
    ours = oclstat.gsva(frame, sets, kcdf="Poisson")
    np.testing.assert_allclose(ours.to_numpy(), want, rtol=1e-8, atol=1e-9)
    ref = _gsva_r(R, frame, sets, "gsva", kcdf="'Poisson'")
    assert (np.abs(ours.to_numpy() - ref.to_numpy()) < 1e-8).mean() > 0.95


# -- GSEApy ---------------------------------------------------------------------------------

def test_ssgsea_equals_gseapy(leukemia):
    gseapy = pytest.importorskip("gseapy")
    expr, sets = leukemia
    expr = expr.iloc[:, :12]
    res = gseapy.ssgsea(data=expr, gene_sets=sets, outdir=None, sample_norm_method="rank",
                        weight=0.25, min_size=15, max_size=500, no_plot=True, threads=1)
    table = res.res2d
    for col in ("ES", "NES"):
        table[col] = table[col].astype(float)
    ours = oclstat.ssgsea(expr, sets, flavor="gseapy", min_size=15, max_size=500,
                          normalize=False)
    es = table.pivot(index="Term", columns="Name", values="ES")
    _close(ours, es)
    nes = table.pivot(index="Term", columns="Name", values="NES")
    _close(oclstat.ssgsea(expr, sets, flavor="gseapy", min_size=15, max_size=500), nes)


# -- AUCell: the paper's definition ---------------------------------------------------------

def _recovery_auc(column: np.ndarray, members: set, max_rank: int) -> float:
    """The area under the recovery curve, step by step: rank the genes (decreasing value,
    ties by row), count the set's genes among the top r for r = 1 .. max_rank - 1, add up."""
    order = sorted(range(len(column)), key=lambda g: (-column[g], g))
    area, found = 0, 0
    for r in range(1, max_rank):
        found += order[r - 1] in members
        area += found
    best = sum(max_rank - r for r in range(1, min(len(members), max_rank - 1) + 1))
    return area / best


def test_aucell_is_the_recovery_curve_area():
    frame, sets = _single_cell(genes=300, cells=20)
    ours = oclstat.aucell(frame, sets)
    k = int(np.ceil(0.05 * 300))
    assert ours.attrs["max_rank"] == k
    index = {g: i for i, g in enumerate(frame.index)}
    for name, genes in sets.items():
        members = {index[g] for g in genes}
        for cell in frame.columns:
            ref = _recovery_auc(frame[cell].to_numpy(), members, k)
            assert ours.loc[name, cell] == pytest.approx(ref, rel=1e-12), (name, cell)
    boosted = len(frame.columns) // 3
    assert ours.loc["markers", frame.columns[:boosted]].mean() > \
        2 * ours.loc["markers", frame.columns[boosted:]].mean()
    raw = oclstat.aucell(frame, sets, max_rank=40, normalize=False)
    members = {index[g] for g in sets["mixed"]}
    area = _recovery_auc(frame.iloc[:, 3].to_numpy(), members, 40) * \
        core.aucell_max_area(len(members), 40)
    assert raw.loc["mixed", frame.columns[3]] == pytest.approx(area / (40 * len(members)))


def test_aucell_random_ties_follow_the_seed():
    frame, sets = _single_cell(genes=300, cells=20)
    a = oclstat.aucell(frame, sets, ties="random", seed=4)
    b = oclstat.aucell(frame, sets, ties="random", seed=4)
    c = oclstat.aucell(frame, sets, ties="random", seed=5)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)                   # the zeros tie: random order moves areas
    first = oclstat.aucell(frame, sets)
    assert np.abs(a.to_numpy() - first.to_numpy()).max() < 0.2


# -- the definitions, brute force -----------------------------------------------------------

def _walk_brute_force(density, idx, tau, mx_diff, abs_ranking):
    """GSVA's running sum position by position, as its C loop takes it."""
    n = density.shape[0]
    member = np.zeros(n, bool)
    member[idx] = True
    out = []
    for j in range(density.shape[1]):
        order = sorted(range(n), key=lambda g: (-density[g, j], g))
        score = np.empty(n)
        score[order] = np.abs(np.arange(n, 0, -1) - n / 2)
        total = (score[idx] ** tau).sum()
        walk, hi, lo = 0.0, 0.0, 0.0
        for g in order:
            walk += score[g] ** tau / total if member[g] else -1.0 / (n - idx.size)
            hi, lo = max(hi, walk), min(lo, walk)
        if mx_diff:
            out.append(hi - lo if abs_ranking else hi + lo)
        else:
            out.append(hi if hi > abs(lo) else lo)
    return np.array(out)


@pytest.mark.parametrize("mx_diff,abs_ranking,tau", [(True, False, 1.0), (False, False, 1.0),
                                                     (True, True, 0.5)])
def test_gsva_walk_equals_the_running_sum(mx_diff, abs_ranking, tau):
    rng = np.random.default_rng(3)
    density = np.round(rng.normal(size=(120, 9)), 1)          # ties
    sets = [np.arange(10), np.sort(rng.choice(120, 30, replace=False))]
    ours = core.gsva_block(density, sets, tau, mx_diff, abs_ranking)
    for s, idx in enumerate(sets):
        np.testing.assert_allclose(ours[s], _walk_brute_force(density, idx, tau, mx_diff,
                                                              abs_ranking), rtol=1e-12,
                                   atol=1e-14)


def test_ranks_and_tie_orders():
    x = np.array([[2.0, 1.0], [5.0, 1.0], [2.0, 0.0], [7.0, 3.0], [2.0, 1.0]])
    order, ranks = core.ranking(x, "gsva")
    from scipy import stats
    np.testing.assert_array_equal(ranks, stats.rankdata(x, axis=0))
    assert order[:, 0].tolist() == [3, 1, 0, 2, 4]
    assert core.ranking(x, "gseapy")[0][:, 0].tolist() == [3, 1, 4, 2, 0]
    with pytest.raises(ValueError, match="ties"):
        core.ranking(x, "average")


@pytest.mark.parametrize("kind", ["continuous", "rounded", "counts", "constant"])
def test_decreasing_order_is_the_stable_sorts(kind):
    """The unstable sort plus the integer-key sort of equal runs gives exactly numpy's stable
    order (both tie rules), and the average ranks are scipy's, on data with no ties, a few,
    mostly zeros and one value."""
    from scipy import stats

    rng = np.random.default_rng(23)
    x = {"continuous": rng.normal(size=(3000, 12)),
         "rounded": np.round(rng.normal(size=(3000, 12)), 2),
         "counts": rng.poisson(0.2, size=(3000, 12)).astype(float),
         "constant": np.full((3000, 12), 1.5)}[kind]
    xt = np.ascontiguousarray(x.T)
    order, ordered = core.decreasing_order(xt)
    np.testing.assert_array_equal(order, np.argsort(-xt, axis=1, kind="stable"))
    np.testing.assert_array_equal(ordered, np.take_along_axis(xt, order, axis=1))
    reverse = core.decreasing_order(xt, "decreasing")[0]
    np.testing.assert_array_equal(reverse, np.argsort(xt, axis=1, kind="stable")[:, ::-1])
    _, ranks = core.ranking(x)
    np.testing.assert_array_equal(ranks, stats.rankdata(x, axis=0))
    with pytest.raises(ValueError, match="rows"):
        core.decreasing_order(xt, "random")


def test_sparse_blocks_rank_as_dense_ones():
    """A sparse block ranked from its non-zero values alone gives the dense path's positions
    and average ranks, and so the same ssGSEA (both flavours) and AUCell bits: positive and
    negative values, explicit zeros, ties, empty and full cells."""
    rng = np.random.default_rng(5)
    for trial in range(24):
        n, b = int(rng.integers(3, 300)), int(rng.integers(1, 12))
        density = [0.0, 0.05, 0.3, 0.9, 1.0][trial % 5]
        x = np.where(rng.random((n, b)) < density,
                     np.round(rng.normal(size=(n, b)), trial % 3), 0.0)
        if trial % 2:
            x = np.abs(x)
        m = sparse.csc_matrix(x)
        if trial % 4 == 0 and m.nnz:
            m.data[: max(1, m.nnz // 5)] = 0.0          # stored zeros
            x = m.toarray()
        sets = [np.sort(rng.choice(n, int(rng.integers(1, n)), replace=False)) for _ in range(3)]
        for flavor, rows in (("gsva", "increasing"), ("gseapy", "decreasing")):
            pos, ranks = core.sparse_positions(m, rows)
            order, ordered = core.decreasing_order(np.ascontiguousarray(x.T), rows)
            np.testing.assert_array_equal(pos, core.positions(order.T))
            dense_ranks = np.empty(order.shape)
            np.put_along_axis(dense_ranks, order, core._ascending_ranks(ordered), axis=1)
            np.testing.assert_array_equal(ranks, dense_ranks.T)
            np.testing.assert_array_equal(core.ssgsea_block(m, sets, 0.25, flavor),
                                          core.ssgsea_block(x, sets, 0.25, flavor))
        np.testing.assert_array_equal(core.aucell_block(m, sets, max(2, n // 5)),
                                      core.aucell_block(x, sets, max(2, n // 5)))
    with pytest.raises(ValueError, match="rows"):
        core.sparse_positions(sparse.csc_matrix(np.eye(3)), "random")


def test_poisson_estimate_from_distinct_counts_is_the_direct_sum():
    """The Poisson CDF taken once per pair of distinct counts and gathered gives the same bits
    as every term computed (ppois at each sample's count, lambda each other count + 0.5,
    summed in sorted order), for sparse, bulk-like and non-integer values, all samples or a
    subset."""
    from scipy import stats

    rng = np.random.default_rng(31)
    mats = [rng.poisson(0.3, size=(40, 200)), rng.negative_binomial(2, 0.1, size=(40, 60)),
            np.round(rng.gamma(2.0, 3.0, size=(10, 50)), 1)]
    for x in mats:
        x = x.astype(float)
        for cols in (np.arange(x.shape[1]), np.arange(1, x.shape[1], 7)):
            f = np.array([stats.poisson.cdf(x[i, cols][:, None], np.sort(x[i])[None, :] + 0.5)
                          .mean(axis=1) for i in range(x.shape[0])])
            with np.errstate(divide="ignore"):
                want = -np.log((1.0 - f) / f)
            np.testing.assert_array_equal(core.gsva_density_block(x, cols, "Poisson", False),
                                          want)


def test_device_density_equals_the_host(rt):
    rng = np.random.default_rng(5)
    x = np.round(rng.normal(size=(30, 70)), 2)                 # equal values: index 0 cells
    x[3] = x[3] * 1e-3 + 4.0                                   # a narrow gene
    for tabulated in (True, False):
        host = core.gsva_density_block(x, np.arange(70), "Gaussian", tabulated)
        reals = [np.float64] if rt.info.fp64 else []
        for real in reals:
            dev = opencl.density(rt, x, tabulated=tabulated, dtype=real)
            np.testing.assert_allclose(dev, host, rtol=1e-12, atol=1e-12)
        dev32 = opencl.density(rt, x, tabulated=tabulated, dtype=np.float32)
        np.testing.assert_allclose(dev32, host, rtol=2e-3, atol=2e-3)


def _sequential_table_density(x, h):
    """GSVA 1.46's C loop for one gene at bandwidth h: table lookups summed in order."""
    table = core.normal_cdf_table()
    out = []
    for y in x:
        left = 0.0
        for xk in x:
            v = (y - xk) / h
            if v < -10:
                c = 0.0
            elif v > 10:
                c = 1.0
            else:
                t = table[int(abs(v) / 10.0 * 10000.0)]
                c = 1.0 - t if v < 0 else t
            left += c
        left /= len(x)
        out.append(-np.log((1.0 - left) / left))
    return np.array(out)


def test_table_lookups_at_cell_boundaries_are_gsvas(rt, monkeypatch):
    """Differences that land exactly on (or one ulp beside) the table's steps and its ends:
    the division-free estimate must hand them to GSVA's own division sequence (one index off
    moves a score by about 1e-6 here; the logarithms of the two libraries may differ by an
    ulp)."""
    if not rt.info.fp64:
        pytest.skip("the table's exact indices need double precision")
    h = 0.25
    monkeypatch.setattr(opencl, "gsva_bandwidth", lambda x, kcdf: np.full(x.shape[0], h))
    steps = np.array([0.0, 1e-3, 2.5e-3, 0.1, 0.3, 1.0, 2.0, 2.5, 9.999, 10.0, 10.001, 12.0])
    d = np.concatenate([steps, np.nextafter(steps, 0), np.nextafter(steps, 20)]) * h
    x = np.concatenate([[0.0], d, -d, 7.0 * d])
    dev = opencl.density(rt, x[None, :], tabulated=True, dtype=np.float64)[0]
    np.testing.assert_allclose(dev, _sequential_table_density(x, h), rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("n_lanes", [2, 4, 8, 16])
def test_density_lanes_give_the_one_sample_kernels_bits(rt, lanes, n_lanes):
    """Where each work-item runs as scalar code (pocl), LANES test samples per work-item in
    vector registers: the same sums bit for bit as one sample per work-item, with samples that
    do not fill the last work-item and differences on the table's steps (the lanes the
    estimate cannot settle, summed again as the one-sample kernel sums them)."""
    if not rt.scalar_work_items:
        pytest.skip("the lanes kernel runs where work-items are scalar code (pocl)")
    h = 0.25
    steps = np.array([0.0, 1e-3, 2.5e-3, 0.1, 0.3, 1.0, 2.0, 9.999, 10.0, 10.001])
    d = np.concatenate([steps, np.nextafter(steps, 0), np.nextafter(steps, 20)]) * h
    edge = np.concatenate([[0.0], d, -d])                     # 61 samples: a ragged last item
    rng = np.random.default_rng(9)
    x = np.vstack([edge, rng.normal(size=(7, edge.size)).round(2)])
    bw = np.concatenate([[h], x[1:].std(axis=1, ddof=1) / 4])
    for dtype in (np.float64, np.float32) if rt.info.fp64 else (np.float32,):
        for sums in (False, True):
            lanes(1)
            one = opencl.density(rt, x, tabulated=True, dtype=dtype, bandwidth=bw, sums=sums)
            lanes(n_lanes)
            many = opencl.density(rt, x, tabulated=True, dtype=dtype, bandwidth=bw,
                                  sums=sums)
            np.testing.assert_array_equal(many, one, err_msg=f"{dtype.__name__} sums={sums}")


# -- inputs: dense, sparse, AnnData; blocks; memory -----------------------------------------

def test_every_input_form_gives_the_same_scores(rt, monkeypatch):
    frame, sets = _single_cell(genes=400, cells=90)
    kw = {"genes": list(frame.index), "samples": list(frame.columns)}
    want = {f.__name__: f(frame, sets, **({"device": rt} if f is oclstat.gsva else {}))
            for f in (oclstat.ssgsea, oclstat.gsva, oclstat.aucell)}
    monkeypatch.setattr(ss_api, "SAMPLE_BLOCK", 16)            # many blocks, one answer
    for form in (frame.to_numpy(), sparse.csr_matrix(frame.to_numpy()),
                 sparse.csc_matrix(frame.to_numpy()), frame.to_numpy().astype(np.int64)):
        for f in (oclstat.ssgsea, oclstat.gsva, oclstat.aucell):
            extra = {"device": rt} if f is oclstat.gsva else {}
            pd.testing.assert_frame_equal(f(form, sets, **kw, **extra), want[f.__name__])


def _anndata(frame):
    """The genes x cells frame as an AnnData (cells x genes, sparse .X, a "log" layer)."""
    anndata = pytest.importorskip("anndata")
    ad = anndata.AnnData(X=sparse.csr_matrix(frame.T.to_numpy()),
                         obs=pd.DataFrame(index=frame.columns),
                         var=pd.DataFrame(index=frame.index))
    ad.layers["log"] = np.log1p(frame.T.to_numpy())
    return ad


def test_anndata_in_and_obsm_out(rt):
    frame, sets = _single_cell(genes=300, cells=40)
    ad = _anndata(frame)
    s = oclstat.ssgsea(ad, sets)
    pd.testing.assert_frame_equal(s, oclstat.ssgsea(frame, sets))
    assert list(ad.obsm["score_ssgsea"].columns) == list(s.index)
    np.testing.assert_array_equal(ad.obsm["score_ssgsea"].to_numpy(), s.T.to_numpy())
    a = oclstat.aucell(ad, sets, layer="log")
    pd.testing.assert_frame_equal(a, oclstat.aucell(np.log1p(frame), sets))
    g = oclstat.gsva(ad, sets, kcdf="Poisson")
    assert ad.obsm["score_gsva"].shape == (40, 3) and g.shape == (3, 40)


def _peak_bytes(f, *args, **kw):
    tracemalloc.start()
    try:
        out = f(*args, **kw)
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_many_cells_in_bounded_memory(monkeypatch):
    """20,000 sparse cells take no more memory than 2,048 do (the scores are made a block of
    cells at a time, a few blocks in flight: on the host 64 cells, on a device with the GPU
    schedule CELLS_PER_LAUNCH, here 256, so that 2,048 cells already fill the blocks in
    flight), far less than the dense matrix (96 MB here), which is never made."""
    from oclstat._singlesample import cell_ranks

    monkeypatch.setattr(cell_ranks, "CELLS_PER_LAUNCH", 256)
    monkeypatch.setattr(ss_api, "CELLS_PER_LAUNCH", 256)
    rng = np.random.default_rng(8)
    genes, cells = 600, 20000
    m = sparse.random(genes, cells, density=0.05, format="csc", random_state=rng,
                      data_rvs=lambda k: rng.poisson(2.0, k) + 1.0)
    names = [f"g{i}" for i in range(genes)]
    sets = {f"s{i}": names[i * 20:(i + 1) * 20 + 15] for i in range(10)}
    for f in (oclstat.ssgsea, oclstat.aucell):
        out, peak = _peak_bytes(f, m, sets, genes=names)
        _, small = _peak_bytes(f, m[:, :2048], sets, genes=names)
        assert out.shape == (10, cells)
        assert peak < 1.2 * small + 4 * out.to_numpy().nbytes, (f.__name__, peak, small)
        assert peak < genes * cells * 8 / 3
    first = oclstat.ssgsea(m[:, :300], sets, genes=names, normalize=False)
    whole = oclstat.ssgsea(m, sets, genes=names, normalize=False)
    np.testing.assert_allclose(whole.iloc[:, :300].to_numpy(), first.to_numpy(), rtol=1e-12)


# -- bad input ------------------------------------------------------------------------------

def test_bad_input_names_the_argument(rt):
    frame, sets = _single_cell(genes=100, cells=10)
    with pytest.raises(ValueError, match="flavor"):
        oclstat.ssgsea(frame, sets, flavor="broad")
    with pytest.raises(ValueError, match="kcdf"):
        oclstat.gsva(frame, sets, kcdf="gaussian")
    with pytest.raises(ValueError, match="max_rank"):
        oclstat.aucell(frame, sets, max_rank=1)
    with pytest.raises(ValueError, match="ties"):
        oclstat.aucell(frame, sets, ties="min")
    with pytest.raises(ValueError, match="genes="):
        oclstat.ssgsea(frame.to_numpy(), sets)
    with pytest.raises(ValueError, match="10 gene"):
        oclstat.ssgsea(frame.to_numpy(), sets, genes=list(frame.index)[:10])
    bad = frame.copy()
    bad.iloc[2, 3] = np.nan
    with pytest.raises(ValueError, match="missing"):
        oclstat.gsva(bad, sets)
    dup = frame.rename(index={"Gene1": "Gene0"})
    with pytest.raises(ValueError, match="duplicate gene name 'Gene0'"):
        oclstat.aucell(dup, sets)
    with pytest.raises(ValueError, match="min_size"):
        oclstat.ssgsea(frame, sets, min_size=500)
    with pytest.raises(TypeError, match="gene_sets"):
        oclstat.ssgsea(frame, ["Gene1"])
    with pytest.raises(ValueError, match="layer"):
        oclstat.ssgsea(frame, sets, layer="counts")
    with pytest.raises(TypeError, match="numbers"):
        oclstat.ssgsea(frame.astype(str).assign(x="a"), sets)


# -- the command line -----------------------------------------------------------------------

def test_commands_write_the_functions_scores(tmp_path, rt, capsys):
    from oclstat.cli import main

    frame, sets = _single_cell(genes=200, cells=12)
    frame.index.name = "gene"
    frame.to_csv(tmp_path / "x.tsv", sep="\t")
    oclstat.io.write_gct(frame, tmp_path / "x.gct")
    oclstat.io.write_gmt(sets, tmp_path / "s.gmt")
    runs = {"ssgsea": (oclstat.ssgsea(frame, sets, flavor="gseapy"), ["--flavor", "gseapy"]),
            "gsva": (oclstat.gsva(frame, sets, kcdf="Poisson"), ["--kcdf", "Poisson"]),
            "aucell": (oclstat.aucell(frame, sets, max_rank=30), ["--max-rank", "30"])}
    for command, (want, flags) in runs.items():
        for source in ("x.tsv", "x.gct"):
            out = tmp_path / f"{command}.tsv"
            assert main([command, "--expr", str(tmp_path / source), "--gmt",
                         str(tmp_path / "s.gmt"), "--out", str(out), *flags]) == 0
            got = pd.read_csv(out, sep="\t", index_col=0)
            np.testing.assert_allclose(got.loc[want.index, want.columns].to_numpy(),
                                       want.to_numpy(), rtol=1e-9, atol=1e-12)
    assert "header row and gene names in the first column" in capsys.readouterr().err


@pytest.mark.parametrize("arrow", [True, False])
def test_commands_read_every_value_to_the_bit(tmp_path, monkeypatch, arrow):
    """The plain-table path gives the values Python's float() gives (pandas' default parser
    misreads about a quarter of 17-digit values by a unit in the last place) and the gene
    names as written, through pyarrow and through pandas' C parser alike."""
    import gzip

    import oclstat.cli._single_sample as single

    if arrow:
        pytest.importorskip("pyarrow")
    else:
        monkeypatch.setattr(single, "_read_arrow", lambda *args: None)
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(rng.lognormal(size=(300, 8)) * 100,
                         index=[f"{i:05d}" for i in range(300)],      # Entrez-like, zeros kept
                         columns=[f"s{j}" for j in range(8)])
    frame.iloc[0, 0] = 47.300000000000004            # as written in Broad's Leukemia GCT
    frame.iloc[3, 2] = np.nan
    frame.index.name = "gene"
    frame.to_csv(tmp_path / "x.tsv", sep="\t", na_rep="NA")
    (tmp_path / "x.tsv.gz").write_bytes(gzip.compress((tmp_path / "x.tsv").read_bytes()))
    for name, gzipped in (("x.tsv", False), ("x.tsv.gz", True)):
        got, _ = single.read_matrix(str(tmp_path / name), gzipped=gzipped)
        pd.testing.assert_frame_equal(got, frame, check_exact=True)
    text = (tmp_path / "x.tsv").read_text().splitlines()
    assert got.iloc[0, 0] == float(text[1].split("\t")[1]) == 47.300000000000004
    (tmp_path / "dup.tsv").write_text("gene\ts1\ts1\ts2\nA\t1\t2\t3\nB\t4\t5\t6\n")
    with pytest.raises(ValueError, match="sample name 's1' appears more than once"):
        single.read_matrix(str(tmp_path / "dup.tsv"), gzipped=False)
    # integer columns become float, an empty column is missing, text is refused by name
    (tmp_path / "ints.tsv").write_text("gene\ts1\ts2\ts3\nA\t1\t\t2\nB\t3\t\t4\n")
    got, _ = single.read_matrix(str(tmp_path / "ints.tsv"), gzipped=False)
    want = pd.DataFrame({"s1": [1.0, 3.0], "s2": [np.nan, np.nan], "s3": [2.0, 4.0]},
                        index=pd.Index(["A", "B"], name="gene"))
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    (tmp_path / "text.tsv").write_text("gene\ts1\ts2\nA\t1\tx\nB\t3\ty\n")
    with pytest.raises(ValueError, match="column 's2' is not numeric"):
        single.read_matrix(str(tmp_path / "text.tsv"), gzipped=False)


def test_command_reads_h5ad(tmp_path, rt):
    from oclstat.cli import main

    frame, sets = _single_cell(genes=200, cells=30)
    ad = _anndata(frame)
    ad.write_h5ad(tmp_path / "cells.h5ad")
    oclstat.io.write_gmt(sets, tmp_path / "s.gmt")
    out = tmp_path / "scores.tsv"
    assert main(["ssgsea", "--expr", str(tmp_path / "cells.h5ad"), "--layer", "log", "--gmt",
                 str(tmp_path / "s.gmt"), "--out", str(out)]) == 0
    got = pd.read_csv(out, sep="\t", index_col=0)
    want = oclstat.ssgsea(np.log1p(frame), sets)
    np.testing.assert_allclose(got.loc[want.index, want.columns].to_numpy(), want.to_numpy(),
                               rtol=1e-9)


# -- refusals and R's files ---------------------------------------------------------------

def test_gsva_refuses_where_gsva_stops(rt):
    """GSVA 1.46 discards constant genes for its own method: one sample makes every gene
    constant and it stops (R: "argument is of length zero"), as it stops with fewer than two
    varying genes ("Less than two genes in the input assay object"). ssgsea does not."""
    rng = np.random.default_rng(4)
    genes = [f"g{i}" for i in range(40)]
    sets = {"a": genes[:10]}
    one = pd.DataFrame(rng.normal(size=(40, 1)), index=genes, columns=["s1"])
    with pytest.raises(ValueError, match="gsva needs at least 2 samples, got 1"):
        oclstat.gsva(one, sets)
    flat = pd.DataFrame(np.full((40, 4), 5.0), index=genes)
    flat.iloc[0] = [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match="1 of 40 genes vary"):
        oclstat.gsva(flat, sets)
    assert oclstat.ssgsea(one, sets).shape == (1, 1)


@pytest.mark.r
def test_gsva_1_46_stops_on_the_same_inputs():
    """The refusals above are GSVA's: Rscript runs GSVA 1.46 on the same two inputs."""
    import shutil
    import subprocess

    if shutil.which("Rscript") is None:
        pytest.skip("R is not installed")
    code = ("suppressMessages(library(GSVA)); set.seed(1); s <- list(a = paste0('g', 1:10));"
            "one <- matrix(rnorm(40), ncol = 1, dimnames = list(paste0('g', 1:40), 's1'));"
            "flat <- matrix(5, 40, 4, dimnames = list(paste0('g', 1:40), paste0('s', 1:4)));"
            "flat[1, ] <- 1:4;"
            "for (x in list(one, flat)) cat(inherits(try(suppressWarnings(gsva(x, s, verbose ="
            " FALSE)), silent = TRUE), 'try-error'), '')")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=300)
    if "there is no package called" in out.stderr:
        pytest.skip("GSVA is not installed")
    assert out.stdout.split() == ["TRUE", "TRUE"], out.stderr[-2000:]


@pytest.mark.r
@pytest.mark.parametrize("arrow", [True, False])
def test_tables_written_by_r_read_with_or_without_pyarrow(tmp_path, monkeypatch, arrow):
    """R's write.table (no corner cell, quoted names), write.table(quote = FALSE) and
    write.csv: the same genes x samples table through pyarrow and through pandas, equal to
    what R wrote."""
    import shutil
    import subprocess

    import oclstat.cli._single_sample as single

    if shutil.which("Rscript") is None:
        pytest.skip("R is not installed")
    if arrow:
        pytest.importorskip("pyarrow")
    else:
        monkeypatch.setattr(single, "_read_arrow", lambda *args: None)
    code = ("set.seed(1); m <- matrix(rnorm(40 * 11), 40, dimnames = list(c(paste0('g', 1:38),"
            " 'g 39', '007'), paste0('s', 1:11)));"
            f"write.table(m, '{tmp_path}/quoted.tsv', sep = '\\t');"
            f"write.table(m, '{tmp_path}/plain.tsv', sep = '\\t', quote = FALSE);"
            f"write.csv(m, '{tmp_path}/m.csv');"
            f"write.table(format(m, digits = 17), '{tmp_path}/values.txt', sep = '\\t', "
            "quote = FALSE, row.names = FALSE, col.names = FALSE)")
    out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    values = np.loadtxt(tmp_path / "values.txt", delimiter="\t")   # R's 17 digits
    for name in ("quoted.tsv", "plain.tsv", "m.csv"):
        got, _ = single.read_matrix(str(tmp_path / name), gzipped=False)
        assert list(got.columns) == [f"s{j}" for j in range(1, 12)]
        assert got.index[-2:].tolist() == ["g 39", "007"] and got.shape == (40, 11)
        np.testing.assert_allclose(got.to_numpy(), values, rtol=1e-14)   # R wrote 15 digits


def test_zscore_and_plage_scale_only_non_zero_values_when_asked():
    """GSVA's dgCMatrix path: each gene's non-zero values centred and scaled (R's scale on
    them), zeros staying zero; genes whose non-zero values are all equal left out."""
    from scipy import sparse

    rng = np.random.default_rng(12)
    x = np.where(rng.random((60, 9)) < 0.5, 0.0, rng.gamma(2.0, 1.0, (60, 9)))
    x[3] = 0.0
    x[3, 4] = 2.0                                  # one non-zero value: left out
    genes = [f"g{i}" for i in range(60)]
    sets = {"a": genes[:10], "b": genes[20:35]}
    z = np.zeros_like(x)
    for i in range(60):
        nz = x[i] != 0
        if nz.sum() >= 2 and np.ptp(x[i, nz]) > 0:
            z[i, nz] = (x[i, nz] - x[i, nz].mean()) / x[i, nz].std(ddof=1)
    keep = [i for i in range(10) if i != 3]
    got = oclstat.zscore(sparse.csc_matrix(x), sets, genes=genes, nonzero_only=True)
    np.testing.assert_allclose(got.loc["a"], z[keep].sum(axis=0) / np.sqrt(len(keep)),
                               rtol=1e-12)
    v = oclstat.plage(sparse.csc_matrix(x), sets, genes=genes, nonzero_only=True).loc["b"]
    ref = np.linalg.svd(z[20:35], full_matrices=False)[2][0]
    np.testing.assert_allclose(v, ref, rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="not a scipy.sparse"):
        oclstat.zscore(pd.DataFrame(x, index=genes), sets, nonzero_only=True)
