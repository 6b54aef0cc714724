"""Every kernel of oclstat on tiny inputs: the workload of the cross-implementation tests, the
oclgrind run and the compiled-resource report (tools/kernel_resources.py).

``exercise(device)`` runs each capability's paths that the device's schedule takes (set
``OCLSTAT_SCHEDULE=gpu`` to force the GPU paths on a CPU) in float32, and in float64 where the
device has it, and returns ``{name: numpy array}``. Integer results (random integers, tables,
counts, epistasis scores) must be identical on every implementation; floating ones agree to
rounding (:func:`compare`).

Run as a script it writes the results to an ``.npz`` file:

    OCLSTAT_DEVICE=oclgrind OCLSTAT_SCHEDULE=gpu python tests/exercise.py out.npz
"""

from __future__ import annotations

import sys

import numpy as np


def _epistasis_data():
    rng = np.random.default_rng(21)
    g = rng.integers(0, 3, size=(9, 150)).astype(np.int8)
    y = rng.integers(0, 2, size=150)
    missing = g.copy()
    missing[rng.random(g.shape) < 0.05] = -1
    return g, missing, y


def _gsea_data():
    import pandas as pd

    rng = np.random.default_rng(22)
    expr = pd.DataFrame(rng.normal(size=(60, 8)), index=[f"g{i}" for i in range(60)])
    expr.iloc[:12, :4] += 1.5
    sets = {"up": [f"g{i}" for i in range(12)], "mid": [f"g{i}" for i in range(20, 38)],
            "low": [f"g{i}" for i in range(40, 55)]}
    return expr, ["A"] * 4 + ["B"] * 4, sets


def exercise(device=None, *, only=None) -> dict[str, np.ndarray]:
    """Run every capability on ``device``; ``only``: a set of capability names to run."""
    import oclstat
    import oclstat.random as ocr

    rt = oclstat.get_runtime(device)
    reals = [np.float32] + ([np.float64] if rt.info.fp64 else [])
    out: dict[str, np.ndarray] = {}

    def want(name):
        return only is None or name in only

    if want("random"):
        out["random.integers"] = ocr.integers(0, 1000, size=3000, seed=3, device=rt)
        out["random.raw"] = ocr.random_raw(1000, seed=4, device=rt)
        st = ocr.create_streams(5, on_device=True, device=rt)
        out["random.streams"] = st.current.copy()
        for dt in reals:
            tag = np.dtype(dt).name
            out[f"random.uniform.{tag}"] = ocr.uniform(2001, seed=5, dtype=dt, device=rt)
            out[f"random.normal.{tag}"] = ocr.normal(2001, seed=6, dtype=dt, device=rt)
            out[f"random.exponential.{tag}"] = ocr.exponential(999, seed=7, dtype=dt,
                                                                device=rt)
    if want("fisher"):
        x = np.array([[12, 5, 7, 2], [3, 9, 4, 6], [6, 2, 11, 3]])
        for dt in reals:
            tag = np.dtype(dt).name
            res = oclstat.fisher_sim(x, n_resamples=3000, seed=8, dtype=dt,
                                     return_statistics=True, device=rt)
            out[f"fisher.count.{tag}"] = np.array([res.count])
            out[f"fisher.null.{tag}"] = np.asarray(res.null_distribution)
            out[f"fisher.tables.{tag}"] = oclstat.random_table([9, 7, 4], [6, 6, 8], size=300,
                                                               seed=9, dtype=dt, device=rt)
            batch = oclstat.fisher_sim_batch([x, x[:2], x[:, :3]], n_resamples=500, seed=10,
                                             dtype=dt, device=rt)
            out[f"fisher.batch.{tag}"] = np.asarray(batch.count)
    if want("permutation"):
        rng = np.random.default_rng(11)
        a, b = rng.integers(0, 9, size=(5, 7)), rng.integers(0, 9, size=(5, 6))
        res = oclstat.permutation_test(a, b, return_null=True, device=rt)
        out["permutation.pvalue"] = np.asarray(res.pvalue)
        out["permutation.null"] = np.asarray(res.null_distribution)
        xr, yr = rng.normal(size=(3, 9)), rng.normal(0.5, 1, size=(3, 8))
        out["permutation.windows"] = np.asarray(
            oclstat.permutation_test(xr, yr, n_windows=16, device=rt).pvalue)
    if want("fields"):
        coords = oclstat.fields.grid_coords(5, 4)
        params = [[0.5, 1.5, 1.0, 0.01, 2.0, 0.4], [0.3, 0.5, 2.0, 0.0, 1.0, 0.0]]
        for dt in reals:
            tag = np.dtype(dt).name
            cov = oclstat.matern_cov(coords, params, dtype=dt, device=rt)
            out[f"fields.matern.{tag}"] = cov
            ldl = oclstat.ldl_batch(cov, device=rt)
            out[f"fields.ldl.L.{tag}"], out[f"fields.ldl.D.{tag}"] = ldl.L, ldl.D
            out[f"fields.chol.{tag}"] = oclstat.cholesky_batch(cov, device=rt)
            out[f"fields.simulate.{tag}"] = oclstat.simulate_fields(coords, params, 2, seed=12,
                                                                    dtype=dt, device=rt)
            big = np.eye(70) + 0.5                      # more than one 64-column block
            out[f"fields.ldl.two_blocks.{tag}"] = oclstat.ldl_batch(big, dtype=dt, device=rt).D
            out[f"special.kv.{tag}"] = oclstat.special.kv([0.5, 1.5, 7.3], [0.2, 2.5, 30.0],
                                                          dtype=dt, device=rt)
    if want("linalg"):
        rng = np.random.default_rng(24)
        low = np.tril(rng.normal(size=(3, 9, 9))) + 4 * np.eye(9)
        rhs = rng.normal(size=(3, 9, 5))
        for dt in reals:
            tag = np.dtype(dt).name
            out[f"linalg.solve.{tag}"] = oclstat.solve_triangular_batch(low, rhs, dtype=dt,
                                                                         device=rt)
            out[f"linalg.solve_t.{tag}"] = oclstat.solve_triangular_batch(
                low[0], rhs, trans="T", unit_diagonal=True, dtype=dt, device=rt)
            out[f"linalg.crossprod.{tag}"] = oclstat.crossprod_batch(
                rhs, low, rng.uniform(size=9), dtype=dt, device=rt)
            out[f"linalg.gemm.{tag}"] = oclstat.gemm_batch(low, rhs, rhs, beta=0.5, dtype=dt,
                                                           device=rt)
            out[f"special.qnorm.{tag}"] = oclstat.special.qnorm([1e-12, 0.02, 0.5, 0.9],
                                                                dtype=dt, device=rt)
            out[f"special.qqnorm.{tag}"] = oclstat.random.qqnorm(rhs.ravel(), dtype=dt,
                                                                 device=rt)[0]
            out[f"special.logfact_sum.{tag}"] = np.array([oclstat.special.logfact_sum(
                [[3, 10], [200, 7]], dtype=dt, device=rt)])
    if want("spatial") and rt.info.fp64:
        coords = oclstat.fields.grid_coords(6, 5)
        y = np.sin(5 * coords[:, 0]) + coords[:, 1]
        X = np.column_stack([np.ones(len(y)), coords[:, 1]])
        params = {"range": [0.3, 0.6], "shape": [1.0, 2.5], "nugget": [0.1, 0.0],
                  "anisoRatio": [1.0, 2.0], "anisoAngleRadians": [0.0, 0.5]}
        res = oclstat.matern_loglik(coords, y, X, params, method="REML", device=rt)
        out["spatial.loglik"], out["spatial.beta"] = res.loglik, res.beta
        from oclstat._spatial import opencl as spatial_opencl  # kriging's device steps

        white, crosses, _ = spatial_opencl.whitened(
            rt, np.array([0.4, 1.5, 0.05, 1.0, 0.0]), coords, X,
            np.array([[0.5, 0.5], [0.1, 0.9], [0.3, 0.2]]), chunk=2)
        out["spatial.whitened"] = white
        out["spatial.cross"] = np.hstack([w for _, _, w in crosses])
    if want("gsea"):
        expr, labels, sets = _gsea_data()
        for dt in reals:
            tag = np.dtype(dt).name
            res = oclstat.gsea(expr, labels, sets, n_resamples=24, min_size=5, seed=13, dtype=dt,
                               return_null=True, device=rt)
            out[f"gsea.null.{tag}"] = res.es_null.sort_index().to_numpy()
            out[f"gsea.nes.{tag}"] = res.table.sort_index()["nes"].to_numpy()
            # a continuous profile (shuffled profiles), |signal to noise|, gene-set permutations
            profile = np.linspace(-1.0, 2.0, expr.shape[1])
            for metric in ("pearson", "manhattan"):
                res = oclstat.gsea(expr, profile, sets, metric=metric, n_resamples=24,
                                   min_size=5, seed=15, dtype=dt, return_null=True, device=rt)
                out[f"gsea.{metric}.null.{tag}"] = res.es_null.sort_index().to_numpy()
            for kw in ({"metric": "abs_signal_to_noise"}, {"permutation": "gene_set"}):
                res = oclstat.gsea(expr, labels, sets, n_resamples=24, min_size=5, seed=16,
                                   dtype=dt, return_null=True, device=rt, **kw)
                out[f"gsea.{next(iter(kw.values()))}.null.{tag}"] = \
                    res.es_null.sort_index().to_numpy()
    if want("prerank"):
        import pandas as pd

        rng = np.random.default_rng(23)
        stat = pd.Series(rng.normal(size=300), index=[f"g{i}" for i in range(300)])
        stat.iloc[:12] += 2.5
        sets = {"up": [f"g{i}" for i in range(12)], "mid": [f"g{i}" for i in range(100, 130)],
                "any": [f"g{i}" for i in range(200, 215)]}
        # two rankings: their multilevel groups climb together, ranking 1 on weights row 1
        two = pd.DataFrame({"a": stat, "b": -stat.to_numpy() + rng.normal(size=300)},
                           index=stat.index)
        for dt in reals:
            tag = np.dtype(dt).name
            for method in ("simple", "multilevel"):
                res = oclstat.gsea_prerank(stat, sets, n_resamples=200, method=method,
                                           min_size=5, sample_size=11, seed=14, dtype=dt,
                                           device=rt).table.sort_index()
                out[f"prerank.{method}.pval.{tag}"] = res["pval"].to_numpy()
                out[f"prerank.{method}.es.{tag}"] = res["ES"].to_numpy()
            both = oclstat.gsea_prerank(two, sets, n_resamples=200, min_size=5, sample_size=11,
                                        seed=14, dtype=dt, device=rt)
            for column, res in both.items():
                out[f"prerank.rankings.{column}.pval.{tag}"] = \
                    res.table.sort_index()["pval"].to_numpy()
    if want("singlesample"):
        from oclstat._singlesample import opencl as ss_opencl

        x = np.round(np.random.default_rng(29).normal(size=(40, 64)), 2)
        if rt.info.fp64:        # GSVA's table indices are exact in double only
            for tabulated in (True, False):
                out[f"singlesample.density.{tabulated}.float64"] = ss_opencl.density(
                    rt, x, tabulated=tabulated, dtype=np.float64)
            # GSVA 2's sparse algorithm: sums over a gene's values, padding far above them
            pad = x.copy()
            pad[:, 50:] = x.max() + 1e3
            out["singlesample.density.sums.float64"] = ss_opencl.density(
                rt, pad, tabulated=True, dtype=np.float64, sums=True)
            # cells ranked on the device: positions, average ranks and the sets' sums
            from scipy import sparse

            from oclstat._singlesample.cell_ranks import DeviceCells

            cells = sparse.csc_matrix(np.where(np.abs(x) > 0.8, x, 0.0)[:, :24])
            plan = DeviceCells(rt, [np.arange(6), np.arange(10, 31, 2)], n_genes=40)
            for flavor in ("gsva", "gseapy"):
                out[f"singlesample.cells.ssgsea.{flavor}"] = plan.ssgsea(cells, alpha=0.25,
                                                                         flavor=flavor)
            out["singlesample.cells.areas"] = plan.areas(cells, 9)
            out["singlesample.cells.capped"] = plan.capped_ranks(cells, 9)
    if want("ora"):
        rng = np.random.default_rng(23)
        universe = [f"G{i}" for i in range(700)]
        sets = {f"S{j}": list(rng.choice(universe, 5 + 7 * j, replace=False)) for j in range(9)}
        lists = {f"L{i}": list(rng.choice(universe, 40 + 9 * i, replace=False))
                 for i in range(5)}
        table = oclstat.ora(lists, sets, universe, device=rt).table
        out["ora.overlap"] = table["overlap"].to_numpy()
        out["ora.pval"] = table["pval"].to_numpy()
    if want("geseca"):
        import pandas as pd

        rng = np.random.default_rng(31)     # 6 samples: the four-lane sums and the tail
        E = pd.DataFrame(rng.normal(size=(120, 6)), index=[f"G{i}" for i in range(120)])
        E.iloc[:10] += 0.8 * rng.normal(size=6)
        sets = {"module": [f"G{i}" for i in range(10)],
                **{f"R{j}": [f"G{i}" for i in rng.choice(120, 4 + 5 * j, replace=False)]
                   for j in range(4)}}
        for dtype in ((np.float64,) if rt.info.fp64 else ()) + (np.float32,):
            t = oclstat.geseca(E, sets, n_resamples=200, sample_size=11, eps=1e-12, seed=3,
                               dtype=dtype, device=rt).table
            key = f"geseca.{np.dtype(dtype).name}"
            out[key + ".pval"], out[key + ".log2err"] = t["pval"].to_numpy(), \
                t["log2err"].to_numpy()
    if want("epistasis"):
        g, missing, y = _epistasis_data()

        from oclstat._epistasis import opencl as epi_opencl
        from oclstat._epistasis import plan as epi
        from oclstat._epistasis import tiles
        for order in (2, 3, 4):
            for score in ("k2", "mi"):
                for tag, data in (("complete", g), ("missing", missing)):
                    search = epi.prepare(data, y, order=order, score=score, top=20)
                    key = f"epistasis.{order}.{score}.{tag}"
                    best = epi_opencl.run_search(search, [rt])
                    out[key + ".scores"], out[key + ".snps"] = best.scores, best.combos
                    if tiles.tiles_fit(rt, search):   # the CUDA path's OpenCL twin
                        best = tiles.search_tiles(rt, search)
                        out[key + ".tiles.scores"] = best.scores
                        out[key + ".tiles.snps"] = best.combos
        for score in ("k2", "mi"):                    # order 5: tiles only, complete genotypes
            best = tiles.search_tiles(rt, epi.prepare(g, y, order=5, score=score, top=20))
            out[f"epistasis.5.{score}.scores"] = best.scores
            out[f"epistasis.5.{score}.snps"] = best.combos
    if want("epistasis_pairs"):    # PLINK's pair tests on the device (float32, float64)
        from oclstat._epistasis.pairs import DevicePairs
        from oclstat._epistasis.validate import prepare_scan

        g, missing, y = _epistasis_data()
        trait = np.random.default_rng(23).normal(size=y.size) + 0.3 * (g[1] * g[4] > 1)
        covariates = np.random.default_rng(24).normal(size=(y.size, 2))
        for test in ("fast", "joint-effects", "boost", "logistic", "linear"):
            pheno = trait if test == "linear" else y
            for label, geno, cov in (("", missing, None), (".complete", g, None),
                                     (".covariates", missing, covariates)):
                if test not in ("logistic", "linear") and label:
                    continue
                scan = prepare_scan(geno, pheno, test=test, epi1=0.9, epi2=0.2, cellmin=0,
                                    covariates=cov)
                for dt in reals:
                    key = f"epistasis_pairs.{test}{label}.{np.dtype(dt).name}"
                    blk = DevicePairs(rt, scan, dtype=dt).block(0, scan.n_snps, 0,
                                                                scan.n_snps, 0.016, 1.6)
                    order = np.lexsort((blk.hits[1], blk.hits[0]))
                    out[key + ".hits"] = np.stack([blk.hits[0][order], blk.hits[1][order]])
                    out[key + ".stat"] = blk.hits[2][order]
                    if blk.hits[3] is not None:
                        out[key + ".extra"] = blk.hits[3][order]
                    for side, values in (("rows", blk.rows), ("cols", blk.cols)):
                        out[f"{key}.{side}.counts"] = np.stack([values[0], values[1],
                                                                values[3]])
                        out[f"{key}.{side}.best"] = values[2]
    return out


def compare(a: dict, b: dict, *, rtol: float = 1e-9, rtol32: float = 2e-4) -> list[str]:
    """Differences between two exercise results: integers must be equal, floats close."""
    problems = []
    for name in sorted(set(a) | set(b)):
        if name not in a or name not in b:
            problems.append(f"{name}: only in one run")
            continue
        x, y = np.asarray(a[name]), np.asarray(b[name])
        if x.shape != y.shape:
            problems.append(f"{name}: shapes {x.shape} and {y.shape}")
        elif x.dtype.kind in "iub":
            if not np.array_equal(x, y):
                problems.append(f"{name}: integers differ at {np.argwhere(x != y)[:3].tolist()}")
        else:
            tol = rtol32 if (x.dtype == np.float32 or "float32" in name) else rtol
            if not np.allclose(x, y, rtol=tol, atol=tol * 1e-3, equal_nan=True):
                err = np.nanmax(np.abs(x.astype(float) - y) / (np.abs(y) + 1e-300))
                problems.append(f"{name}: relative difference {err:.3g}")
    return problems


if __name__ == "__main__":
    results = exercise()
    np.savez(sys.argv[1] if len(sys.argv) > 1 else "exercise.npz", **results)
