"""``oclstat demo``: run every capability present on small built-in data and print the results.

Each capability adds a section function to :data:`SECTIONS`; a section prints what it computed,
checked against an independent reference where one is at hand, and returns nothing.

>>> import io
>>> buf = io.StringIO()
>>> run(out=buf, sections=["random"])
>>> "MRG31k3p" in buf.getvalue()
True
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

import numpy as np

from . import io as oio
from . import random as ocr
from ._epistasis import epistasis
from ._fields import grid_coords, ldl_batch, matern_cov, simulate_fields
from ._fisher import fisher_sim
from ._gsea import gsea
from ._permutation import permutation_test, window_scores
from ._random import mrg31k3p as _mrg31k3p
from ._runtime import get_runtime
from ._spatial import fit_matern, matern_loglik, predict_matern
from .datasets import fisher_table, shared_data_file


def _section_random(rt, out) -> None:
    print("== random streams (clRNG MRG31k3p) ==", file=out)
    st = ocr.create_streams(4)
    ok = _mrg31k3p.jump_matrices(2**134) == (_mrg31k3p.A1P134, _mrg31k3p.A2P134)
    print(f"  jump matrix A^(2^134) equals clRNG's published constants: {ok}", file=out)
    print(f"  stream 1 of seed (12345 x 6): {st.initial[1].tolist()}", file=out)
    dev = ocr.create_streams(4, on_device=True, device=rt)
    same = np.array_equal(dev.initial, st.initial)
    print(f"  the same streams created on the device: identical = {same}", file=out)
    u = ocr.uniform(8, streams=st.copy(), device=rt)
    print(f"  first uniforms (stream s gives elements s, s+4): {np.round(u, 6).tolist()}", file=out)

    n = 10**7
    streams = ocr.create_streams(2**18)
    ocr.normal(1000, streams=streams, device=rt)  # build and warm up
    t0 = time.perf_counter()
    z = ocr.normal(n, streams=streams, device=rt)
    t_ocl = time.perf_counter() - t0
    gen = np.random.default_rng(1)
    t0 = time.perf_counter()
    gen.standard_normal(n)
    t_np = time.perf_counter() - t0
    print(
        f"  10^7 float64 normals: mean {z.mean():+.5f}, sd {z.std():.5f}; "
        f"oclstat {t_ocl * 1e3:.1f} ms vs numpy Generator {t_np * 1e3:.1f} ms "
        f"(ratio {t_np / t_ocl:.2f}x)",
        file=out,
    )
    e = ocr.exponential(10**6, seed=7, rate=2.0, device=rt)
    print(f"  10^6 exponential(rate=2): mean {e.mean():.5f} (expected 0.5)", file=out)


def r_fisher_test(table: np.ndarray, n_resamples: int) -> tuple[float, float] | None:
    """(p-value, seconds) of R's fisher.test(table, simulate.p.value = TRUE, B = n_resamples)
    run by Rscript (timed inside R, so R's start-up is excluded), or None without R."""
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    cells = ",".join(str(int(v)) for v in table.ravel(order="F"))
    code = (
        f"x <- matrix(c({cells}), {table.shape[0]}); set.seed(1); "
        f"t <- system.time(p <- fisher.test(x, simulate.p.value = TRUE, B = {n_resamples})"
        "$p.value)[['elapsed']]; cat(p, t)"
    )
    try:
        done = subprocess.run([rscript, "-e", code], capture_output=True, text=True,
                              timeout=120 + n_resamples * 1e-4)  # R: ~1e-5 s per table
        p, t = done.stdout.split()
        return float(p), float(t)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def _section_fisher(rt, out) -> None:

    print("== Monte Carlo Fisher exact test (rcont2), R's fisher.test(simulate.p.value=TRUE) ==",
          file=out)
    b = 10**6
    for name in ("month", "weekday"):
        table = fisher_table(name)
        x = table.to_numpy()
        fisher_sim(x, n_resamples=1000, seed=1, device=rt)  # build the kernel
        t0 = time.perf_counter()
        res = fisher_sim(x, n_resamples=b, seed=2026, device=rt)
        elapsed = time.perf_counter() - t0
        se = np.sqrt(res.pvalue * (1 - res.pvalue) / b)
        print(f"  {name}.csv ({x.shape[0]} x {x.shape[1]}, n = {x.sum()}): p = {res.pvalue:.6g} "
              f"(MC s.e. {se:.2g}), statistic {res.statistic:.6f}, "
              f"{b:.0e} tables in {elapsed:.2f} s", file=out)
        if name == "month":
            r = r_fisher_test(x, 10**5)
            if r is not None:
                per_table = elapsed / b
                print(f"    R fisher.test, B = 1e5: p = {r[0]:.4g} in {r[1]:.2f} s; oclstat per "
                      f"table {r[1] / 1e5 / per_table:.1f}x faster", file=out)


def _section_permutation(rt, out) -> None:
    from scipy import stats


    print("== exact permutation test (Green's dynamic programme), many features ==", file=out)
    rng = np.random.default_rng(7)
    features, planted = 2000, 100
    a = rng.normal(size=(features, 26))
    b = rng.normal(size=(features, 80))
    a[:planted] += 1.0  # the first 100 features differ between the groups
    permutation_test(a[:4], b[:4], n_windows=256, device=rt)  # build
    t0 = time.perf_counter()
    res = permutation_test(a, b, n_windows=256, device=rt)
    elapsed = time.perf_counter() - t0
    q = res.qvalues()
    hits = np.flatnonzero(q < 0.05)
    print(f"  {features} features, 26 vs 80 samples, 256 windows, exact two-sided p-values in "
          f"{elapsed:.2f} s; BH q < 0.05: {len(hits)} features, "
          f"{int((hits < planted).sum())} of them among the {planted} planted", file=out)
    x, y = a[0, :6], b[0, :7]
    scores = window_scores(np.r_[x, y][None, :], 16)[0]
    ref = stats.permutation_test((scores[:6], scores[6:]), lambda u, v: u.sum(),
                                 permutation_type="independent", n_resamples=np.inf)
    ours = permutation_test(x, y, n_windows=16, device=rt)
    print(f"  6 vs 7 samples, 16 windows: p = {ours.pvalue:.10f}; scipy exact enumeration "
          f"{ref.pvalue:.10f}", file=out)


def _section_gsea(rt, out) -> None:
    from pathlib import Path


    print("== GSEA with phenotype permutations ==", file=out)
    candidates = [Path(__file__).resolve().parents[2], Path.cwd().parent]
    data = next((c / "shared" / "data" / "gsea" for c in candidates
                 if (c / "shared" / "data" / "gsea").is_dir()), Path("/nonexistent"))
    if data.is_dir():
        expr = oio.read_expression(data / "Leukemia_hgu95av2.trim.gct")
        pheno = oio.read_cls(data / "Leukemia.cls")
        sets = oio.read_gmt(data / "h.all.v7.0.symbols.gmt")
        what = "Leukemia (Golub et al.) ALL vs AML x MSigDB Hallmark"
    else:  # a fresh machine without ../shared: a generated data set with one planted set
        rng = np.random.default_rng(3)
        names = [f"G{i}" for i in range(5000)]
        x = rng.normal(8, 1, size=(5000, 40))
        x[:40, :20] += 0.8
        import pandas as pd

        expr = pd.DataFrame(x, index=names)
        pheno = oio.Phenotype(tuple(["A"] * 20 + ["B"] * 20), ("A", "B"))
        sets = {"PLANTED": names[:40], **{f"RANDOM_{j}": list(rng.choice(names, 60))
                                          for j in range(30)}}
        what = "generated 5000 genes x 40 samples, one planted set"
    gsea(expr, pheno, sets, n_resamples=8, seed=1, device=rt)  # build
    t0 = time.perf_counter()
    res = gsea(expr, pheno, sets, n_resamples=10_000, seed=1, device=rt)
    elapsed = time.perf_counter() - t0
    print(f"  {what}: {expr.shape[0]} genes x {expr.shape[1]} samples, {len(res.table)} sets, "
          f"10,000 permutations in {elapsed:.2f} s", file=out)
    top = res.table.reindex(res.table["nes"].abs().sort_values(ascending=False).index).head(5)
    for name, row in top.iterrows():
        print(f"    {name[:44]:44s} ES {row['es']:+.3f} NES {row['nes']:+.3f} "
              f"p {row['pval']:.4f} FDR {row['fdr']:.3f}", file=out)


def _section_fields(rt, out) -> None:

    print("== Gaussian random fields (Matérn, LDLᵀ, L D^½ Z) ==", file=out)
    params = np.array([[0.3, 1.5, 1.0, 0.0, 1.0, 0.0], [0.2, 0.5, 1.0, 0.0, 2.0, 0.5],
                       [0.5, 2.5, 1.0, 0.01, 1.0, 0.0]])
    coords = grid_coords(30, 40)
    simulate_fields(coords[:20], params, 2, seed=1, device=rt)  # build
    t0 = time.perf_counter()
    f = simulate_fields(coords, params, 5, seed=1, device=rt)
    elapsed = time.perf_counter() - t0
    print(f"  {len(params)} parameter sets x 5 fields on a 30 x 40 grid ({len(coords)} points) "
          f"in {elapsed:.2f} s; field sd by set: "
          f"{', '.join(f'{s:.2f}' for s in f.std(axis=(1, 2)))} (variance 1 each)", file=out)
    cov = matern_cov(coords[:300], params, device=rt)
    r = ldl_batch(cov, device=rt)
    rec = (r.L * r.D[:, None, :]) @ r.L.transpose(0, 2, 1)
    print(f"  LDLᵀ of 3 Matérn matrices 300 x 300: max |L D Lᵀ - A| = "
          f"{np.abs(rec - cov).max():.1e}; log-determinants "
          f"{', '.join(f'{v:.1f}' for v in r.logdet)} (numpy "
          f"{', '.join(f'{v:.1f}' for v in np.linalg.slogdet(cov)[1])})", file=out)


def _section_spatial(rt, out) -> None:

    print("== Gaussian spatial model: maximum likelihood, profiles, kriging ==", file=out)
    import pandas as pd

    path = shared_data_file("fields", "meuse.csv")
    if path is not None:
        m = pd.read_csv(path)
        coords = m[["x", "y"]].to_numpy(float)
        y = np.log(m["zinc"].to_numpy(float))
        X = np.column_stack([np.ones(len(m)), np.sqrt(m["dist"].to_numpy(float))])
        what = "Meuse (155 soil samples): log(zinc) ~ sqrt(dist) + Matérn field, shape 1"
    else:
        coords = grid_coords(12, 12) * 1000.0
        X = np.column_stack([np.ones(len(coords)), coords[:, 0] / 1000.0])
        y = 6.0 - X[:, 1] + simulate_fields(coords, [[300.0, 1.0, 0.2, 0.05, 1.0, 0.0]], 1,
                                            seed=3, device=rt)[0, 0]
        what = ("a simulated field on a 12 x 12 grid (../shared/data/fields/meuse.csv not "
                "found)")
    t0 = time.perf_counter()
    fit = fit_matern(coords, y, X, params={"shape": 1.0}, profile2d=False, device=rt)
    elapsed = time.perf_counter() - t0
    ci = fit.ci
    print(f"  {what}", file=out)
    print(f"  ML fit in {elapsed:.2f} s ({fit.evaluations} likelihoods in batches): "
          f"log-likelihood {fit.loglik:.4f}; range {fit.params['range']:.1f} "
          f"[{ci.loc['range', 'lower']:.1f}, {ci.loc['range', 'upper']:.1f}], nugget ratio "
          f"{fit.params['nugget']:.3f} [{ci.loc['nugget', 'lower']:.3f}, "
          f"{ci.loc['nugget', 'upper']:.3f}] (95% profile intervals), sigma2 "
          f"{fit.sigma2:.4f}, beta {np.round(fit.beta, 3).tolist()}", file=out)
    fp = fit.fields_params
    print(f"  in fields' terms: aRange {fp['aRange']:.1f}, lambda {fp['lambda']:.3f}", file=out)
    # the likelihood at the optimum again, by a plain numpy/scipy GLS (an independent check)
    from scipy.linalg import cho_factor, cho_solve
    from scipy.special import gamma, kv

    d = np.sqrt(((coords[:, None] - coords[None]) ** 2).sum(-1))
    x = np.sqrt(8.0) * d / fit.params["range"]
    with np.errstate(invalid="ignore"):
        v = np.where(d > 0, 2 ** 0 / gamma(1.0) * x * kv(1.0, x), 1.0)
    v += fit.params["nugget"] * np.eye(len(y))
    c = cho_factor(v, lower=True)
    beta = np.linalg.solve(X.T @ cho_solve(c, X), X.T @ cho_solve(c, y))
    r = y - X @ beta
    ref = (-0.5 * len(y) * (np.log(2 * np.pi) + 1 + np.log(r @ cho_solve(c, r) / len(y)))
           - np.log(np.diag(c[0])).sum())
    again = matern_loglik(coords, y, X, {k: [v] for k, v in fit.params.items()}, device=rt)
    print(f"  check: scipy's GLS likelihood at the optimum {ref:.10f} (oclstat "
          f"{again.loglik[0, 0]:.10f})", file=out)
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    grid = grid_coords(40, 40, xlim=(lo[0], hi[0]), ylim=(lo[1], hi[1]))
    x0 = np.tile(X.mean(axis=0), (len(grid), 1))
    pred = predict_matern(fit, grid, x0, device=rt)
    print(f"  kriging on a 40 x 40 grid (covariates at their means): mean "
          f"{pred['mean'].min():.2f}..{pred['mean'].max():.2f}, sd "
          f"{pred['sd'].min():.3f}..{pred['sd'].max():.3f}", file=out)


def _section_epistasis(rt, out) -> None:

    print("== exhaustive epistasis search (K2, AND + popcount) ==", file=out)
    rng = np.random.default_rng(1)
    m, n, quad = 40, 4000, (3, 11, 22, 35)
    g = rng.binomial(2, rng.uniform(0.25, 0.5, size=m)[:, None], size=(m, n)).astype(np.int8)
    odd = g[list(quad)].sum(axis=0) % 2 == 1
    y = (rng.random(n) < np.where(odd, 0.7, 0.3)).astype(np.int8)
    epistasis(g[:6], y, order=4, device=[rt])  # build
    t0 = time.perf_counter()
    hits = epistasis(g, y, order=4, top=3, device=[rt]).table
    elapsed = time.perf_counter() - t0
    best = tuple(int(v) for v in hits.iloc[0][["snp1", "snp2", "snp3", "snp4"]])
    print(f"  {m} SNPs x {n} samples (generated, planted 4-way {quad}): all "
          f"{math.comb(g.shape[0], 4)} quads in {elapsed:.2f} s; best {best} K2 "
          f"{hits['k2'][0]:.1f}, next {hits['k2'][1]:.1f}", file=out)


#: name -> section function(runtime, out)
SECTIONS: dict[str, Callable] = {
    "random": _section_random,
    "fisher": _section_fisher,
    "permutation": _section_permutation,
    "gsea": _section_gsea,
    "fields": _section_fields,
    "spatial": _section_spatial,
    "epistasis": _section_epistasis,
}


def run(device=None, out=None, sections=None) -> None:
    """Run the demo sections (all by default) on ``device`` and print to ``out``."""
    out = out if out is not None else sys.stdout
    rt = get_runtime(device)
    print(f"oclstat demo on {rt.info.label} ({rt.info.type})", file=out)
    names = list(SECTIONS) if sections is None else list(sections)
    for name in names:
        if name not in SECTIONS:
            raise ValueError(f"unknown demo section {name!r}; choose from {sorted(SECTIONS)}")
        t0 = time.perf_counter()
        SECTIONS[name](rt, out)
        print(f"  ({time.perf_counter() - t0:.2f} s)", file=out)
