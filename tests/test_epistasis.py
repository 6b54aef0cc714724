"""oclstat.epistasis: tables and scores against brute-force numpy enumeration for every order,
the shared case-control fixtures (reference K2 values in ../shared/data/epistasis/README.md), a
generated planted 4-way interaction, several devices, readers and bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from conftest import run_with_two_pocl_devices
from scipy.special import gammaln

import oclstat
from oclstat._epistasis import opencl as epi_opencl
from oclstat._epistasis import plan as epi_plan
from oclstat._epistasis import scores as epi_scores
from oclstat.genotypes import read_genotype_table, read_plink


def brute_force(g, y, k, score="k2"):
    combos = np.array(list(itertools.combinations(range(g.shape[0]), k)))
    t = epi_scores.contingency_tables(g, y, combos)
    a, b = t[:, 1].astype(float), t[:, 0].astype(float)
    if score == "k2":
        s = (gammaln(a + b + 2) - gammaln(a + 1) - gammaln(b + 1)).sum(1)
        return combos, s, t
    n = a.sum(1) + b.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = []
        for cnt, tot in ((a, a.sum(1, keepdims=True)), (b, b.sum(1, keepdims=True))):
            cell = a + b
            p = cnt / n[:, None]
            terms.append(np.where(cnt > 0, p * np.log(cnt * n[:, None] / (cell * tot)), 0.0))
    return combos, (terms[0] + terms[1]).sum(1), t


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("score", ["k2", "mi"])
def test_every_combination_against_brute_force(rt, k, score):
    rng = np.random.default_rng(k)
    m, n = 11, 333                       # neither a multiple of 32 nor of a block
    g = rng.integers(0, 3, size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n)
    g[rng.random((m, n)) < 0.04] = -1    # missing genotypes
    combos, ref, _ = brute_force(g, y, k, score)
    res = oclstat.epistasis(g, y, order=k, test=score, top=len(combos), device=[rt]).table
    got = res[[f"snp{i + 1}" for i in range(k)]].to_numpy()
    lookup = {tuple(c): s for c, s in zip(combos.tolist(), ref, strict=True)}
    np.testing.assert_allclose(res[score], [lookup[tuple(c)] for c in got.tolist()],
                               rtol=1e-12, atol=1e-10)
    assert len({tuple(c) for c in got.tolist()}) == len(combos)
    s = res[score].to_numpy()
    assert (np.diff(s) >= -1e-9).all() if score == "k2" else (np.diff(s) <= 1e-9).all()


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("score", ["k2", "mi"])
@pytest.mark.parametrize("missing", [0.0, 0.05])
def test_device_scores_equal_exact_integer_sums(rt, k, score, missing):
    """The device's fixed-point scores equal numpy's integer sums over the host tables, bit
    for bit, in both schedules (so every device and implementation agrees)."""
    rng = np.random.default_rng(10 * k + int(missing * 100))
    m, n = 9, 261
    g = rng.integers(0, 3, size=(m, n)).astype(np.int8)
    g[rng.random((m, n)) < missing] = -1
    y = rng.integers(0, 2, size=n)
    combos = np.array(list(itertools.combinations(range(m), k)))
    want = epi_scores.exact_scores(epi_scores.contingency_tables(g, y, combos), score)
    search = epi_plan.prepare(g, y, order=k, score=score, top=len(combos))
    for schedule in ("cpu", "gpu"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("OCLSTAT_SCHEDULE", schedule)
            best = epi_opencl.run_search(search, [rt])
        got = dict(zip(map(tuple, best.combos.tolist()), best.scores.tolist(), strict=True))
        assert got == dict(zip(map(tuple, combos.tolist()), want.tolist(), strict=True))


def test_fixed_point_scores_are_close_to_the_real_scores():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 60, size=(50, 2, 27))
    lf, nln, bits = epi_scores.score_tables(int(t.sum(axis=(1, 2)).max()))
    assert bits == epi_scores.score_bits(int(t.sum(axis=(1, 2)).max()))
    a, b = t[:, 1].astype(float), t[:, 0].astype(float)
    k2 = (gammaln(a + b + 2) - gammaln(a + 1) - gammaln(b + 1)).sum(1)
    np.testing.assert_allclose(epi_scores.exact_scores(t, "k2") * 2.0**-bits, k2, rtol=1e-14,
                               atol=1e-9)
    assert epi_scores.score_bits(10**7) < epi_scores.score_bits(1000) <= 48


def test_tables_match_the_bits(rt):
    """The kernel's counts, seen through K2, agree with the host tables whatever the order of
    the cells: check the table sums and the K2 of a known table."""
    g = np.array([[0, 1, 2, 0, 1, 2, -1], [2, 2, 1, 0, 0, 1, 1]])
    y = np.array([1, 1, 1, 0, 0, 0, 1])
    t = epi_scores.contingency_tables(g, y, [[0, 1]])[0]
    assert t.sum() == 6 and t[1].sum() == 3           # the sample missing at SNP 0 is out
    res = oclstat.epistasis(g, y, order=2, top=1, device=[rt]).table
    k2 = (gammaln(t[1] + t[0] + 2) - gammaln(t[1] + 1) - gammaln(t[0] + 1)).sum()
    assert res["k2"][0] == pytest.approx(k2, rel=1e-13)


def _shared(shared_data, *parts):
    return shared_data.joinpath("epistasis", *parts)


@pytest.mark.parametrize(
    "source,k,exclude,best,k2,second",
    [
        ("gametes", 2, [], (18, 19), 703.2947, 1115.5240),
        ("bitepi", 2, [], (41, 42), 2747.6494, 2775.8800),
        ("bitepi", 3, [41, 42], (43, 44, 45), 2752.3722, 2776.9840),
        ("plink", 2, [94], (95, 96), 1373.8340, 1390.3750),
        ("plink", 3, [94, 95, 96], (97, 98, 99), 1377.5979, 1388.4623),
        ("het23", 4, [], (3, 6, 7, 8), 7043.6987, 7044.4541),
        ("ipu1512", 2, [], (82, 939), 691.8647, 692.8336),
    ],
)
def test_shared_fixtures_reference_k2(shared_data, rt, source, k, exclude, best, k2, second):
    if source == "gametes":
        data = read_genotype_table(_shared(shared_data, "gametes_scikit_rebate",
                                           "GAMETES_Epistasis_2-Way_20atts_0.4H_EDM-1_1.tsv.gz"))
    elif source == "bitepi":
        data = read_genotype_table(_shared(shared_data, "bitepi", "data.csv"))
    elif source == "plink":
        data = read_plink(_shared(shared_data, "bitepi", "example123", "DS"))
    elif source == "het23":
        data = read_genotype_table(_shared(shared_data, "hiperbio", "gen_23SNPs_10000sam.csv"))
    else:
        data = read_genotype_table(_shared(shared_data, "hiperbio", "1512snps_1000samples.csv"))
    keep = [i for i in range(data.genotypes.shape[0]) if i not in exclude]
    res = oclstat.epistasis(data, order=k, top=2, snps=keep, device=[rt]).table
    assert tuple(int(v) for v in res.iloc[0][[f"snp{i + 1}" for i in range(k)]]) == best
    assert res["k2"][0] == pytest.approx(k2, abs=1e-4)
    assert res["k2"][1] == pytest.approx(second, abs=1e-4)


def test_plink_reader_names_and_phenotype(shared_data):
    data = read_plink(_shared(shared_data, "bitepi", "example123", "DS"))
    assert data.genotypes.shape == (100, 2000)
    assert data.snp_names[94] == "M0P1" and data.snp_names[0] == "N0"
    assert (data.phenotype == 1).sum() == 1000 and (data.phenotype == 0).sum() == 1000
    assert set(np.unique(data.genotypes)) <= {0, 1, 2}


def planted_quad(seed=1, m=40, n=4000, quad=(3, 11, 22, 35)):
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.25, 0.5, size=m)
    g = rng.binomial(2, maf[:, None], size=(m, n)).astype(np.int8)
    odd = g[list(quad)].sum(axis=0) % 2 == 1
    y = (rng.random(n) < np.where(odd, 0.7, 0.3)).astype(np.int8)
    return g, y


def test_planted_four_way_interaction_recovered(rt):
    g, y = planted_quad()
    res = oclstat.epistasis(g, y, order=4, top=5, device=[rt]).table
    assert tuple(int(v) for v in res.iloc[0][["snp1", "snp2", "snp3", "snp4"]]) == (3, 11, 22, 35)
    assert res["k2"][1] - res["k2"][0] > 50
    mi = oclstat.epistasis(g, y, order=4, test="mi", top=1, device=[rt]).table
    assert tuple(int(v) for v in mi.iloc[0][["snp1", "snp2", "snp3", "snp4"]]) == (3, 11, 22, 35)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("scratch", [None, 1])
def test_suffix_cell_cache_over_many_items_and_launches(rt, monkeypatch, k, scratch):
    """The CPU schedule's per-work-item suffix-cell cache (complete genotypes): several
    work-items, suffixes that change inside and across them, and (scratch=1) launches cut to
    one work-item's worth of combinations by SCRATCH_BYTES; every score exact."""
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    if scratch is not None:
        monkeypatch.setattr(epi_opencl, "SCRATCH_BYTES", scratch)
    rng = np.random.default_rng(k)
    m, n = 16, 700                        # 2 x 11 words per vector; C(16, 4) = 1820 ranks
    g = rng.integers(0, 3, size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n)
    combos = np.array(list(itertools.combinations(range(m), k)))
    want = epi_scores.exact_scores(epi_scores.contingency_tables(g, y, combos), "mi")
    search = epi_plan.prepare(g, y, order=k, score="mi", top=len(combos))
    best = epi_opencl.run_search(search, [rt])
    got = dict(zip(map(tuple, best.combos.tolist()), best.scores.tolist(), strict=True))
    assert got == dict(zip(map(tuple, combos.tolist()), want.tolist(), strict=True))


def test_genotype_counts_equal_numpy_counts(monkeypatch):
    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, size=(7, 300))
    y = rng.integers(0, 2, size=300)
    want = np.array([[[((g[s] == v) & (y == c)).sum() for v in range(3)] for c in (0, 1)]
                     for s in range(7)])
    bits, _ = epi_scores.encode_bits(g, y)
    assert np.array_equal(epi_scores.genotype_counts(bits), want)
    monkeypatch.delattr(np, "bitwise_count", raising=False)      # numpy < 2: unpacked bits
    assert np.array_equal(epi_scores.genotype_counts(bits), want)


def test_results_do_not_depend_on_chunks(rt, monkeypatch):
    g, y = planted_quad(seed=2, m=18, n=500, quad=(1, 5, 9, 13))
    a = oclstat.epistasis(g, y, order=3, top=25, device=[rt])
    monkeypatch.setattr(epi_plan, "CHUNK_COMBINATIONS", 7)
    b = oclstat.epistasis(g, y, order=3, top=25, device=[rt])
    assert a.table.equals(b.table)


def test_two_pocl_devices_give_the_same_result():
    """Two CPU devices in one process (POCL_DEVICES), the work shared dynamically."""
    code = (
        "import numpy as np, oclstat, sys\n"
        "sys.path.insert(0, 'tests')\n"
        "from test_epistasis import planted_quad\n"
        "g, y = planted_quad(seed=3, m=24, n=700, quad=(2, 6, 9, 20))\n"
        "import oclstat._epistasis.plan as em\n"
        "em.CHUNK_COMBINATIONS = 50\n"
        "devs = [d.index for d in oclstat.devices(usable=True) if d.type == 'CPU']\n"
        "assert len(devs) >= 2, devs\n"
        "a = oclstat.epistasis(g, y, order=4, top=30, device=devs[:1])\n"
        "b = oclstat.epistasis(g, y, order=4, top=30, device=devs[:2])\n"
        "assert a.table.equals(b.table)\n"
        "print('same', len(devs))\n"
    )
    assert run_with_two_pocl_devices(code).startswith("same")


def test_ties_broken_by_indices(rt):
    g = np.tile(np.array([[0, 1, 2, 0, 1, 2]]), (5, 1))      # every pair identical
    y = np.array([1, 0, 1, 0, 1, 0])
    res = oclstat.epistasis(g, y, order=2, top=4, device=[rt]).table
    assert res[["snp1", "snp2"]].to_numpy().tolist() == [[0, 1], [0, 2], [0, 3], [0, 4]]


def test_table_reader_layouts(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("rs1,rs2,class\n0,2,1\n1,1,0\n2,,1\n")
    d = read_genotype_table(f)
    assert d.genotypes.tolist() == [[0, 1, 2], [2, 1, -1]] and d.phenotype.tolist() == [1, 0, 1]
    f2 = tmp_path / "m.tsv"
    f2.write_text("a\t0\t1\nb\t2\t2\n")
    d2 = read_genotype_table(f2, layout="snp-major", phenotype=[1, 0])
    assert d2.snp_names == ["a", "b"] and d2.genotypes.tolist() == [[0, 1], [2, 2]]
    with pytest.raises(ValueError, match="no row is named as the phenotype"):
        read_genotype_table(f2, layout="snp-major")
    (tmp_path / "bad.csv").write_text("VarSam,1,0\nrs,x,1\n")
    with pytest.raises(ValueError, match="bad.csv line 2: 'x' in column 1 of the data is not a"):
        read_genotype_table(tmp_path / "bad.csv")


def test_bad_input(rt, tmp_path):
    g = np.zeros((5, 10), dtype=int)
    y = np.r_[np.ones(5), np.zeros(5)].astype(int)
    bad = g.copy()
    bad[2, 7] = 3
    with pytest.raises(ValueError, match=r"genotypes\[2, 7\] \(SNP, sample\) is 3"):
        oclstat.epistasis(bad, y, order=2)
    with pytest.raises(ValueError, match="needs cases and controls; got 0 cases"):
        oclstat.epistasis(g, np.zeros(10, int), order=2)
    with pytest.raises(ValueError, match="order 4 is larger than the number of SNPs \\(3\\)"):
        oclstat.epistasis(g[:3], y, order=4)
    with pytest.raises(ValueError, match="order must be <= 5"):
        oclstat.epistasis(g, y, order=6)
    with pytest.raises(ValueError, match="one value per sample"):
        oclstat.epistasis(g, y[:-1], order=2)
    with pytest.raises(ValueError, match="test must be one of"):
        oclstat.epistasis(g, y, order=2, test="chi2")
    with pytest.raises(ValueError, match="backend must be one of"):
        oclstat.epistasis(g, y, order=2, backend="tensor")
    (tmp_path / "x.bed").write_bytes(b"\x00\x00\x01")
    (tmp_path / "x.bim").write_text("1 rs1 0 1 A C\n")
    (tmp_path / "x.fam").write_text("a a 0 0 0 2\n")
    with pytest.raises(ValueError, match="bad magic number"):
        read_plink(tmp_path / "x")
    with pytest.raises(FileNotFoundError, match="nope.bed not found"):
        read_plink(tmp_path / "nope")


def test_cuda_backend_says_why_it_cannot_run(monkeypatch):
    from oclstat._epistasis import api as epi_api

    rng = np.random.default_rng(2)
    g = rng.integers(0, 3, size=(6, 50))
    y = np.arange(50) % 2
    monkeypatch.setattr(epi_api, "available", lambda: (False, "no CUDA device"))
    with pytest.raises(ValueError, match="backend='cuda' cannot run: no CUDA device"):
        oclstat.epistasis(g, y, order=2, backend="cuda")
    want = oclstat.epistasis(g, y, order=2, backend="opencl")
    assert oclstat.epistasis(g, y, order=2).table.equals(want.table)          # "auto" falls back
    monkeypatch.setattr(epi_api, "available", lambda: (True, "pretend"))
    g[1, 4] = -1
    with pytest.raises(ValueError, match="missing values"):
        oclstat.epistasis(g, y, order=2, backend="cuda")
    with pytest.raises(ValueError, match="device= names OpenCL devices"):
        oclstat.epistasis(np.abs(g), y, order=2, backend="cuda", device=[0])


def test_host_memory_stays_flat_on_a_large_search():
    """A 4-way search over 700 SNPs (9.9 billion combinations; the host-side prefix list of
    earlier versions alone took over 1 GB) starts with host memory growing by less than 300 MB
    through its first launches; it is stopped there, unfinished."""
    code = (
        "import os, threading, time, numpy as np, oclstat\n"
        "def rss():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmRSS:'): return int(line.split()[1]) * 1024\n"
        "rng = np.random.default_rng(0)\n"
        "g = rng.integers(0, 3, size=(700, 1000)).astype(np.int8)\n"
        "y = rng.integers(0, 2, size=1000)\n"
        "oclstat.epistasis(g[:6], y, order=4)\n"           # programs built, device set up
        "base = rss(); peak = base\n"
        "threading.Thread(target=oclstat.epistasis, args=(g, y), kwargs=dict(order=4),\n"
        "                 daemon=True).start()\n"
        "t0 = time.time()\n"
        "while time.time() - t0 < 12:\n"
        "    peak = max(peak, rss()); time.sleep(0.05)\n"
        "print((peak - base) / 2**20, flush=True)\n"
        "os._exit(0)\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    grown_mib = float(out.stdout.strip().splitlines()[-1])
    assert grown_mib < 300, f"host memory grew by {grown_mib:.0f} MiB"


def test_significance_columns_and_plink_loci(tmp_path, rt):
    """G, df and p of each hit's 3^k x 2 table equal scipy's log-likelihood chi-square test
    on the table counted from the genotypes; G = 2 N MI; PLINK input adds CHR and BP."""
    from scipy.stats import chi2_contingency

    from oclstat._epistasis import contingency_tables
    from oclstat._epistasis.scores import _popcount, tables_from_bits
    from oclstat.genotypes import Genotypes

    rng = np.random.default_rng(17)
    g = rng.integers(-1, 3, size=(9, 400))
    y = rng.integers(0, 2, size=400)
    y[(g[1] + g[4]) % 3 == 0] = 1
    for score in ("k2", "mi"):
        res = oclstat.epistasis(g, y, order=2, top=6, test=score, device=rt)
        t = res.table
        combos = t[["snp1", "snp2"]].to_numpy()
        tables = contingency_tables(g, y, combos)
        for row, table in zip(t.itertuples(), tables, strict=True):
            seen = table[:, table.sum(axis=0) > 0]
            stat, p, dof, _ = chi2_contingency(seen, lambda_="log-likelihood", correction=False)
            assert row.G == pytest.approx(stat, rel=1e-10) and row.df == dof
            assert row.p == pytest.approx(p, rel=1e-9, abs=1e-300)
            assert row.p_bonferroni == pytest.approx(min(1.0, p * 36), rel=1e-9)
            if score == "mi":
                assert row.G == pytest.approx(2 * table.sum() * row.mi, rel=1e-9)
    words = rng.integers(0, 2**63, size=(3, 5), dtype=np.uint64)
    want = np.array([[bin(int(w)).count("1") for w in r] for r in words])
    np.testing.assert_array_equal(_popcount(words), want)
    search = oclstat._epistasis.plan.prepare(g, y, order=3, top=1)
    combos = np.array([[0, 2, 5], [1, 4, 8]])
    np.testing.assert_array_equal(tables_from_bits(search.bits, combos),
                                  contingency_tables(g[:, y >= 0], y[y >= 0], combos))
    data = Genotypes(g.astype(np.int8), y, [f"rs{i}" for i in range(9)], None,
                     [str(1 + i // 5) for i in range(9)], np.arange(9) * 1000 + 7)
    loci = oclstat.epistasis(data, order=2, top=3, device=rt).table
    for i in (1, 2):
        idx = loci[f"snp{i}"].to_numpy()
        assert loci[f"chr{i}"].tolist() == [str(1 + j // 5) for j in idx]
        np.testing.assert_array_equal(loci[f"bp{i}"], idx * 1000 + 7)
    assert repr(data).startswith("Genotypes(9 SNPs x 400 samples")


def _colex_combos(order: int, start: int, stop: int) -> np.ndarray:
    """The combinations of colex ranks start .. stop - 1 (host reference of epi_unrank)."""
    from math import comb

    out = []
    for r in range(start, stop):
        s, hi = [], None
        for i in range(order, 0, -1):
            v = i - 1
            top = hi if hi is not None else 10**7
            lo_, hi_ = v, top
            while hi_ - lo_ > 1:                  # largest v < top with C(v, i) <= r
                mid = (lo_ + hi_) // 2
                if comb(mid, i) <= r:
                    lo_ = mid
                else:
                    hi_ = mid
            s.append(lo_)
            r -= comb(lo_, i)
            hi = lo_
        out.append(s[::-1])
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("order,count", [(2, 30_000), (3, 30_000), (4, 20_000)])
def test_more_snps_than_16_bit_indices(rt, order, count):
    """70,000 SNPs (the old limit was 65,535): the last ranks of the search, whose SNP indices
    need 17 bits and whose binomials pass 2^50, give the host's exact scores and ranking in
    both schedules."""
    from math import comb

    rng = np.random.default_rng(order)
    m, n = 70_000, 96
    g = rng.integers(0, 3, size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n)
    stop = comb(m, order)
    start = stop - count
    combos = _colex_combos(order, start, stop)
    assert combos.max() == m - 1 and combos.min() >= 0
    want = epi_scores.exact_scores(epi_scores.contingency_tables(g, y, combos), "k2")
    best_order = np.lexsort(tuple(combos[:, i] for i in range(order - 1, -1, -1)) + (want,))
    search = epi_plan.prepare(g, y, order=order, top=25)
    for schedule in ("cpu", "gpu"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("OCLSTAT_SCHEDULE", schedule)
            best = epi_opencl.run_search(search, [rt], start, stop)
        np.testing.assert_array_equal(best.combos, combos[best_order[:25]])
        np.testing.assert_array_equal(best.scores, want[best_order[:25]])


def test_a_search_too_large_to_rank_is_refused():
    g = np.zeros((200_000, 8), dtype=np.int8)
    y = np.array([0, 1] * 4)
    with pytest.raises(ValueError, match="one search ranks at most 2\\^62"):
        epi_plan.prepare(g, y, order=4)


def _vector_popcount_devices():
    """The usable CPU implementations that count with AVX-512 VPOPCNTDQ here, else skip."""
    found = [info.index for info in oclstat.devices(usable=True)
             if info.type == "CPU" and oclstat.get_runtime(info.index).vector_popcount]
    if found:
        return found
    pytest.skip("no OpenCL implementation here counts bits with AVX-512 VPOPCNTDQ (a CPU "
                "with avx512_vpopcntdq and pocl)")


@pytest.mark.parametrize("order,test", [(2, "k2"), (3, "mi"), (4, "k2"), (2, "fast"),
                                         (2, "boost")])
def test_vector_popcount_counts_the_same_tables(monkeypatch, order, test):
    """Eight words per vpopcntq (EPI_VPOPCNT) and one word at a time give the same results,
    with 13 words per class (a tail of five past the vector loop)."""
    rng = np.random.default_rng(order)
    g = rng.integers(0, 3, size=(40 if order < 4 else 24, 1601)).astype(np.int8)
    y = np.r_[np.ones(800, int), np.zeros(801, int)]
    kwargs = {"order": order, "top": 25} if test in ("k2", "mi") else {"epi1": 0.5}
    for index in _vector_popcount_devices():
        tables = []
        for off in ("0", "1"):
            monkeypatch.setenv("OCLSTAT_NO_VPOPCNT", off)
            res = oclstat.epistasis(g, y, test=test, device=index, **kwargs)
            tables.append(res.table)
        assert len(tables[0]) > 0
        pd.testing.assert_frame_equal(tables[0], tables[1])


def test_vector_popcount_only_where_the_cpu_and_compiler_have_it(monkeypatch):
    """The switch, a GPU schedule and implementations other than pocl turn it off."""
    for info in oclstat.devices(usable=True):
        rt = oclstat.get_runtime(info.index)
        wanted = (info.type == "CPU" and info.implementation.startswith("pocl ")
                  and "avx512_vpopcntdq" in oclstat._runtime.cpu_extensions())
        monkeypatch.delenv("OCLSTAT_NO_VPOPCNT", raising=False)
        monkeypatch.delenv("OCLSTAT_SCHEDULE", raising=False)
        assert rt.vector_popcount == (wanted and not rt.gpu_schedule)
        monkeypatch.setenv("OCLSTAT_NO_VPOPCNT", "1")
        assert not rt.vector_popcount
        monkeypatch.delenv("OCLSTAT_NO_VPOPCNT")
        monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
        assert not rt.vector_popcount


def test_cpu_extensions_are_the_flags_linux_reports():
    from pathlib import Path

    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        pytest.skip("no /proc/cpuinfo")
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo.read_text().splitlines()
                  if line.startswith("flags")), [])
    got = oclstat._runtime.cpu_extensions()
    assert set(got) == set(flags) & set(oclstat._runtime.device.VECTOR_EXTENSIONS)


def _rows_counted(rt, defines, m, z0, z1):
    rows, n = m.shape
    out = rt.to_device(np.zeros(2 * rows, dtype=np.uint32))
    rt.launch(rt.kernel("popcount.cl", "rows", defines), 1, rt.to_device(m), np.uint32(rows),
              rt.to_device(z0), rt.to_device(z1), np.uint32(n), out)
    return rt.read(out, np.zeros(2 * rows, dtype=np.uint32)).reshape(rows, 2)


def test_bit_counts_of_popcount_clh_are_numpys():
    """epi_and_popc2_rows, epi_and_popc_2x4 and epi_and_popc_3x2, one word at a time and
    (where this CPU and implementation have it) eight words per vpopcntq, against numpy's count
    of set bits: 1 to 9 rows, 1 to 40 words."""
    rng = np.random.default_rng(5)
    runtimes = [oclstat.get_runtime(d.index) for d in oclstat.devices(usable=True)
                if d.type == "CPU"]
    if not runtimes:
        pytest.skip("no CPU OpenCL implementation here")
    for rt in runtimes:
        variants = [{"EPI_BUILTIN_POPCOUNT": 1}, {}]
        if rt.vector_popcount:
            variants.append({"EPI_BUILTIN_POPCOUNT": 1, "EPI_VPOPCNT": 1})
        for rows, n in [(1, 1), (2, 7), (2, 8), (3, 13), (9, 16), (9, 40), (5, 33)]:
            w = rng.integers(0, 2**63, size=(rows + 2, n), dtype=np.uint64) * np.uint64(3)
            m, z0, z1 = w[:rows], w[rows], w[rows + 1]
            want = np.stack([np.unpackbits((m & z).view(np.uint8), axis=1).sum(axis=1)
                             for z in (z0, z1)], axis=1)
            for defines in variants:
                got = _rows_counted(rt, defines, m, z0, z1)
                np.testing.assert_array_equal(got, want, err_msg=f"{rt.info.label} {defines}")
        # epi_and_popc_2x4 (two rows of a against two rows of each of four columns) and
        # epi_and_popc_3x2 (three rows of a against three rows of each of two columns)
        for n in (1, 7, 8, 13, 40):
            for kernel, rows, cols in (("2x4", 2, 4), ("3x2", 3, 2)):
                a = rng.integers(0, 2**63, size=(rows, n), dtype=np.uint64) * np.uint64(3)
                b = rng.integers(0, 2**63, size=(cols, rows, n), dtype=np.uint64) * np.uint64(3)
                want = np.array([np.unpackbits((a[ra] & b[k, rb]).view(np.uint8)).sum()
                                 for k in range(cols) for ra in range(rows)
                                 for rb in range(rows)])
                for defines in variants:
                    got = _columns_counted(rt, kernel, defines, a, b, want.size)
                    np.testing.assert_array_equal(got, want,
                                                  err_msg=f"{rt.info.label} {kernel} {defines}")


def _columns_counted(rt, kernel, defines, a, b, size):
    """popcount.cl's 2x4 or 3x2 kernel on rows ``a`` and columns ``b``: its ``size`` counts."""
    out = rt.to_device(np.zeros(size, dtype=np.uint32))
    rt.launch(rt.kernel("popcount.cl", kernel, defines), 1, rt.to_device(a), rt.to_device(b),
              np.uint32(a.shape[1]), out)
    return rt.read(out, np.zeros(size, dtype=np.uint32))


def test_a_vector_popcount_that_fails_its_check_is_not_used(monkeypatch):
    """A build of popcount.cl with EPI_VPOPCNT that fails (or counts wrongly) turns the vector
    counting off for that device, with a warning naming it, instead of failing the search."""
    index = _vector_popcount_devices()[0]
    rt = oclstat.get_runtime(index)
    real_kernel = rt.kernel

    def failing(filename, name, defines=None, options=()):
        if filename == "popcount.cl" and defines and "EPI_VPOPCNT" in defines:
            raise oclstat._runtime.KernelBuildError("popcount.cl: error: no vpopcntq here")
        return real_kernel(filename, name, defines, options)

    monkeypatch.setattr(rt, "kernel", failing)
    monkeypatch.setattr(rt, "_vector_popcount", None)
    with pytest.warns(oclstat._runtime.KernelBuildWarning, match="vpopcntq not used"):
        assert rt.vector_popcount is False
    assert rt.vector_popcount is False                 # decided once per device
    monkeypatch.undo()
    assert rt.vector_popcount is True
