"""PLINK's pair tests (oclstat.epistasis with test="fast", "joint-effects", "logistic",
"linear"): against PLINK 1.9 itself on the same files (Debian's plink1.9), against R's glm/lm
with covariates, the device against the host reference, --parallel jobs merged and a killed
run resumed against one uninterrupted run (byte for byte), PLINK's side files and genotype
formats, and bad input."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

import oclstat
from oclstat._epistasis import pairs
from oclstat._epistasis import pairtests as pt
from oclstat._epistasis.pairs import DevicePairs, HostPairs
from oclstat._epistasis.validate import prepare_scan

PLINK = shutil.which("plink1.9") or shutil.which("plink")


def write_plink(prefix, g, y, *, chrom="1", status=None, names=None):
    """PLINK 1 binary files; genotypes count the .bim A1 allele (2 -> 00, 1 -> 10, 0 -> 11,
    missing -> 01); the .fam phenotype 2 case / 1 control (or ``status`` as written)."""
    m, n = g.shape
    code = np.array([3, 2, 0, 1], dtype=np.uint8)[np.where(g < 0, 3, g)]
    pad = (-n) % 4
    code = np.pad(code, ((0, 0), (0, pad)), constant_values=1).reshape(m, -1, 4)
    packed = code[:, :, 0] | (code[:, :, 1] << 2) | (code[:, :, 2] << 4) | (code[:, :, 3] << 6)
    with open(f"{prefix}.bed", "wb") as fh:
        fh.write(bytes([0x6C, 0x1B, 0x01]))
        fh.write(packed.astype(np.uint8).tobytes())
    with open(f"{prefix}.bim", "w") as fh:
        names = names or [f"rs{i}" for i in range(m)]
        fh.writelines(f"{chrom}\t{names[i]}\t0\t{100 * (i + 1)}\tA\tC\n" for i in range(m))
    status = status if status is not None else [str(2 if v else 1) for v in y]
    with open(f"{prefix}.fam", "w") as fh:
        fh.writelines(f"f{i} s{i} 0 0 0 {status[i]}\n" for i in range(n))


def simulate(m=26, n=500, seed=5, missing=0.0):
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.05, 0.55, size=m)            # some A1 alleles are the major one
    g = rng.binomial(2, maf[:, None], size=(m, n)).astype(np.int8)
    lin = -0.5 + 0.9 * (g[3 % m] * g[7 % m] > 1) - 0.2 * g[1]
    y = (rng.random(n) < 1 / (1 + np.exp(-lin))).astype(np.int8)
    if missing:
        g[rng.random(g.shape) < missing] = -1
    q = 0.6 * (g[2] == 2) * (g[5 % m] >= 1) + rng.normal(size=n)
    return g, y, q


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    d = tmp_path_factory.mktemp("plink")
    g, y, q = simulate(missing=0.01)
    write_plink(d / "d", g, y)
    with open(d / "q.pheno", "w") as fh:
        fh.writelines(f"f{i} s{i} {v:.6f}\n" for i, v in enumerate(q))
    return d, g, y, q


def _plink(d, *flags, out):
    if PLINK is None:
        pytest.skip("PLINK 1.9 is not installed (Debian: plink1.9)")
    done = subprocess.run([PLINK, "--bfile", str(d / "d"), *flags, "--allow-no-sex", "--out",
                           str(d / out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]


def _hits(path):
    return pd.read_csv(path, sep=r"\s+", dtype={"SNP1": str, "SNP2": str})


def as_printed(x, digits):
    return np.array([float(f"{v:.{digits}g}") for v in x])


def plink_normal_p(stat):
    """PLINK 1.9's P of --fast-epistasis: 2 normdist(-sqrt(stat)) with normdist the
    Abramowitz-Stegun 26.2.17 approximation (PLINK's plink_common.c): off the true tail by up
    to 7.5e-8 absolute, so its small p-values differ from the exact ones in their digits."""
    z = np.sqrt(np.asarray(stat, dtype=np.float64))
    t = 1 / (1 + 0.2316419 * z)
    d = np.exp(-0.5 * z * z) / 2.50662827463
    poly = t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978
                                                                        + 1.330274429 * t))))
    return 2 * d * poly


@pytest.mark.parametrize("flags,test,suffix", [
    (("--fast-epistasis",), "fast", ".epi.cc"),
    (("--fast-epistasis", "joint-effects"), "joint-effects", ".epi.cc"),
    (("--fast-epistasis", "boost"), "boost", ".epi.cc"),
    (("--epistasis",), "logistic", ".epi.cc"),
    (("--epistasis", "--pheno", "{d}/q.pheno"), "linear", ".epi.qt"),
])
def test_plink_files_are_plinks(dataset, tmp_path, flags, test, suffix):
    """PLINK 1.9 and oclstat on the same .bed/.bim/.fam (1% missing genotypes, A1 sometimes
    the major allele): the same pairs, STAT to PLINK's 6 printed digits (the regressions: PLINK
    fits them in single precision, to 2e-3), the same .summary; P is PLINK's normal
    approximation for the fast tests (checked against it) and the exact tail here."""
    d, g, y, q = dataset
    flags = [f.format(d=d) for f in flags]
    _plink(d, *flags, "--epi1", "0.5", out=f"plink_{test}")
    data = oclstat.genotypes.read_plink(d / "d")
    pheno = q if test == "linear" else None
    res = oclstat.epistasis(data, pheno, test=test, epi1=0.5, out=tmp_path / "ours")
    theirs = _hits(d / f"plink_{test}{suffix}")
    ours = _hits(tmp_path / f"ours{suffix}")
    theirs = theirs[np.isfinite(pd.to_numeric(theirs["STAT"], errors="coerce"))]
    assert len(ours) == len(theirs) == res.n_hits > 20
    assert list(zip(ours.SNP1, ours.SNP2, strict=True)) == \
        list(zip(theirs.SNP1, theirs.SNP2, strict=True))
    stat_ours, stat_theirs = ours["STAT"].to_numpy(), theirs["STAT"].astype(float).to_numpy()
    if test == "boost":     # the exact statistic of every pair past the screen, its df
        np.testing.assert_array_equal(stat_ours, stat_theirs)
        np.testing.assert_array_equal(ours["DF"], theirs["DF"])
        np.testing.assert_allclose(ours["P"], theirs["P"].astype(float), rtol=6e-4)
    elif test in ("fast", "joint-effects"):
        np.testing.assert_array_equal(stat_ours, stat_theirs)
        np.testing.assert_allclose(as_printed(plink_normal_p(stat_ours), 4),
                                   theirs["P"].astype(float), rtol=3e-4)
    else:
        np.testing.assert_allclose(stat_ours, stat_theirs, rtol=2e-3)
        extra = "OR_INT" if test == "logistic" else "BETA_INT"
        np.testing.assert_allclose(ours[extra], theirs[extra], rtol=2e-3, atol=1e-5)
    df = ours["DF"].to_numpy() if test == "boost" else 1
    np.testing.assert_allclose(ours["P"], pt.chi2_p(stat_ours, df), rtol=6e-4)  # 4 digits
    summary = (tmp_path / f"ours{suffix}.summary").read_text()
    expected = (d / f"plink_{test}{suffix}.summary").read_text()
    if test in ("fast", "joint-effects", "boost"):
        assert summary == expected
    else:   # single-precision fits: the best chi-squares to PLINK's rounding
        a = pd.read_csv(tmp_path / f"ours{suffix}.summary", sep=r"\s+")
        b = pd.read_csv(d / f"plink_{test}{suffix}.summary", sep=r"\s+")
        pd.testing.assert_frame_equal(a.drop(columns="BEST_CHISQ"),
                                      b.drop(columns="BEST_CHISQ"))
        np.testing.assert_allclose(a.BEST_CHISQ, b.BEST_CHISQ, rtol=2e-3)


def test_thresholds_are_plinks_to_the_last_bit(dataset, tmp_path):
    """PLINK turns --epi1 / --epi2 into chi-square thresholds with Acklam's normal quantile
    (within 2e-9 of the exact one): a pair whose statistic lies between the exact threshold
    and PLINK's is a hit and counted by PLINK, and so by oclstat (found in a 5e9-pair scan,
    where 4 of 100,000 SNPs' N_SIG differed by one with the exact thresholds)."""
    from scipy import optimize, stats

    from oclstat._epistasis.scan import acklam_quantile

    def plink_threshold(p):
        return acklam_quantile(p / 2) ** 2

    d, g, y, q = dataset
    data = oclstat.genotypes.read_plink(d / "d")
    res = oclstat.epistasis(data, test="fast", epi1=1.0)
    z = float(np.sort(res.table["STAT"].to_numpy())[-3])          # a pair's statistic
    exact = stats.chi2.isf

    def p_at(value):
        return optimize.brentq(lambda p: exact(p, 1) - value, 1e-12, 0.9, xtol=1e-300,
                               rtol=1e-15)

    # PLINK's threshold sits `gap` below the exact one here: move the exact one gap / 2 past z
    gap = exact(p_at(z), 1) - plink_threshold(p_at(z))
    p = p_at(z + gap / 2)
    if gap > 0:     # PLINK counts the pair, the exact threshold would not
        assert plink_threshold(p) <= z < exact(p, 1)
    else:           # the exact threshold counts it, PLINK does not
        assert exact(p, 1) <= z < plink_threshold(p)
    _plink(d, "--fast-epistasis", "--epi1", repr(p), "--epi2", repr(p), out="plink_edge")
    oclstat.epistasis(data, test="fast", epi1=p, epi2=p, out=tmp_path / "edge")
    assert (tmp_path / "edge.epi.cc.summary").read_text() == \
        (d / "plink_edge.epi.cc.summary").read_text()
    ours, theirs = _hits(tmp_path / "edge.epi.cc"), _hits(d / "plink_edge.epi.cc")
    assert len(ours) == len(theirs) == (3 if gap > 0 else 2)
    np.testing.assert_array_equal(ours["STAT"], theirs["STAT"])


def test_plink_column_widths_follow_the_names(tmp_path):
    """PLINK widens its SNP columns in its own way (names longer than 4: to the first such
    name's length + 2, in file order): the files must match its layout, not just its
    numbers."""
    g, y, _ = simulate(m=12, n=300, seed=9)
    names = ["a", "bb", "rs12345", *(f"chr1:{1000 + i}:A:G" for i in range(9))]
    write_plink(tmp_path / "w", g, y, names=names)
    if PLINK is None:
        pytest.skip("PLINK 1.9 is not installed (Debian: plink1.9)")
    subprocess.run([PLINK, "--bfile", str(tmp_path / "w"), "--fast-epistasis", "--epi1", "1",
                    "--allow-no-sex", "--out", str(tmp_path / "p")], capture_output=True,
                   check=True)
    oclstat.epistasis(oclstat.genotypes.read_plink(tmp_path / "w"), test="fast", epi1=1.0,
                      out=tmp_path / "o")
    assert (tmp_path / "o.epi.cc.summary").read_text() == \
        (tmp_path / "p.epi.cc.summary").read_text()
    ours = [ln[:48] for ln in (tmp_path / "o.epi.cc").read_text().splitlines()]
    theirs = [ln[:48] for ln in (tmp_path / "p.epi.cc").read_text().splitlines()]
    assert ours == theirs


def test_device_statistics_equal_the_host_reference(rt):
    rng = np.random.default_rng(3)
    g, y, _ = simulate(m=40, n=300, seed=8, missing=0.02)
    g[5, :] = np.where(g[5] == 2, 1, g[5])          # a SNP without its hom A2 cell
    for test, ref in (("fast", pt.ueki_cordell), ("joint-effects", pt.joint_effects)):
        scan = prepare_scan(g, y, test=test, epi1=1.0, epi2=0.01)
        m = scan.n_snps
        block = DevicePairs(rt, scan).block(0, m, 0, m, 0.0, 6.63)
        rows, cols, stat, _ = block.hits
        keep = scan.phenotype >= 0
        gg, yy = scan.genotypes[:, keep], scan.phenotype[keep]
        tables = np.zeros((len(rows), 2, 9), np.int64)
        for k, (i, j) in enumerate(zip(rows, cols, strict=True)):
            ok = (gg[i] >= 0) & (gg[j] >= 0)
            cell = 3 * (2 - gg[i]) + (2 - gg[j])
            tables[k, 0] = np.bincount(cell[ok & (yy == 1)], minlength=9)
            tables[k, 1] = np.bincount(cell[ok & (yy == 0)], minlength=9)
        np.testing.assert_allclose(stat, ref(tables), rtol=1e-10)
        assert block.failed == int(np.isnan(ref(_all_tables(gg, yy))).sum())
    assert rng is not None


@pytest.mark.parametrize("missing", [0.0, 0.02])
def test_ueki_cordell_in_lanes_equals_one_pair_per_work_item(monkeypatch, missing):
    """On a CPU the fast test runs LANES pairs per work-item (Runtime.lanes: a whole vector
    register's worth, the statistic in vector instructions); one pair per work-item
    (OCLSTAT_LANES=1) gives the same tables, so the same pairs, counts and partners, and the
    same statistics but for the logarithm: a compiler's vector log may round differently from
    its scalar one by an ulp (equal here on pocl 3.1 and Intel's runtime; 1e-14 allows a few),
    with blocks whose columns are not a multiple of LANES and pairs on both sides of the
    diagonal."""
    g, y, _ = simulate(m=45, n=1400, seed=12, missing=missing)   # 11 words: 8 + a tail
    scan = prepare_scan(g, y, test="fast", epi1=1.0, epi2=0.01)
    cpus = [d.index for d in oclstat.devices(usable=True) if d.type == "CPU"]
    if not cpus:
        pytest.skip("no usable CPU OpenCL implementation")
    for index in cpus:
        rt = oclstat.get_runtime(index)
        if rt.gpu_schedule:
            continue
        blocks = []
        for lanes in ("", "1"):
            monkeypatch.setenv("OCLSTAT_LANES", lanes)
            engine = DevicePairs(rt, scan)
            assert engine.lanes == (1 if lanes else rt.lanes(np.float64, register=True)) > 0
            blocks.append([engine.block(i0, n, j0, c, 0.0, 6.63)
                           for i0, n, j0, c in ((0, 45, 0, 45), (3, 17, 11, 29), (20, 5, 0, 13))])
        assert blocks[0][0].rows[0].sum() == 45 * 44 // 2
        for a, b in zip(*blocks, strict=True):
            order_a = np.lexsort((a.hits[1], a.hits[0]))
            order_b = np.lexsort((b.hits[1], b.hits[0]))
            for k in range(2):
                np.testing.assert_array_equal(a.hits[k][order_a], b.hits[k][order_b])
            np.testing.assert_allclose(a.hits[2][order_a], b.hits[2][order_b], rtol=1e-14)
            for side in ("rows", "cols"):
                tested, sig, best, at = getattr(a, side)
                np.testing.assert_array_equal(tested, getattr(b, side)[0])
                np.testing.assert_array_equal(sig, getattr(b, side)[1])
                np.testing.assert_allclose(best, getattr(b, side)[2], rtol=1e-14)
                np.testing.assert_array_equal(at, getattr(b, side)[3])
            assert a.failed == b.failed



@pytest.mark.parametrize("missing,covariates", [(0.0, 0), (0.02, 0), (0.02, 2)])
def test_device_regressions_equal_the_host_fits(rt, missing, covariates):
    """The logistic and linear interactions on the device (Newton on the pairs' cells, the
    trait's cell sums from the set bits and the SNPs' sums; with covariates, fitted on the
    pairs' samples) equal the host's fits (indicator-matrix products, or per pair with
    numpy's solvers): statistics, coefficients, summaries, failures."""
    g, y, q = simulate(m=30, n=400, seed=9, missing=missing)
    g[4] = np.where(g[4] == 2, 1, g[4])            # a SNP without its hom A1 cell
    g[7] = g[8]                                    # one SNP twice: a singular fit (NaN)
    rng = np.random.default_rng(5)
    cov = np.column_stack([rng.normal(size=400), 40.0 + 3 * rng.integers(0, 2, 400)])
    cov[rng.random(400) < 0.01, 0] = np.nan        # samples left out
    for test, pheno in (("logistic", y), ("linear", q + 170.0)):
        scan = prepare_scan(g, pheno, test=test, epi1=1.0, epi2=0.05, keep_allele_order=True,
                            covariates=cov[:, :covariates] if covariates else None)
        m = scan.n_snps
        dev = DevicePairs(rt, scan).block(0, m, 0, m, 0.0, 3.84)
        host = HostPairs(scan).block(0, m, 0, m, 0.0, 3.84)
        order_d = np.lexsort((dev.hits[1], dev.hits[0]))
        order_h = np.lexsort((host.hits[1], host.hits[0]))
        for k in (0, 1):
            np.testing.assert_array_equal(dev.hits[k][order_d], host.hits[k][order_h])
        for k in (2, 3):                           # statistic, odds ratio / coefficient
            np.testing.assert_allclose(dev.hits[k][order_d], host.hits[k][order_h],
                                       rtol=1e-8)
        assert dev.failed == host.failed >= 1
        for side in ("rows", "cols"):
            d, h = getattr(dev, side), getattr(host, side)
            for k in (0, 1, 3):
                np.testing.assert_array_equal(d[k], h[k])
            np.testing.assert_allclose(d[2], h[2], rtol=1e-8)


def _all_tables(g, y):
    m = g.shape[0]
    out = []
    for i in range(m):
        for j in range(i + 1, m):
            ok = (g[i] >= 0) & (g[j] >= 0)
            cell = 3 * (2 - g[i]) + (2 - g[j])
            out.append([np.bincount(cell[ok & (y == 1)], minlength=9),
                        np.bincount(cell[ok & (y == 0)], minlength=9)])
    return np.array(out)


def test_covariates_equal_r_glm_and_lm(R):
    """With covariates the logistic and linear interactions are R's glm / lm fits of
    y ~ x1 * x2 + covariates: the squared z (t) of x1:x2 to 1e-6."""
    g, y, q = simulate(m=8, n=400, seed=11)
    rng = np.random.default_rng(2)
    cov = np.column_stack([rng.normal(size=400), rng.integers(0, 2, size=400)])
    for test, pheno, family in (("logistic", y, "binomial"), ("linear", q, "gaussian")):
        res = oclstat.epistasis(g, pheno, test=test, epi1=1.0, covariates=cov,
                                keep_allele_order=True)
        t = res.table
        R.globalenv["g"] = R.r.matrix(R.FloatVector(g.ravel().astype(float)), nrow=400)
        R.globalenv["y"] = R.FloatVector(pheno.astype(float))
        R.globalenv["c1"], R.globalenv["c2"] = (R.FloatVector(cov[:, k]) for k in (0, 1))
        fit = ("glm(y ~ a * b + c1 + c2, family = binomial, "
               "control = glm.control(epsilon = 1e-14, "
               "maxit = 100))") if family == "binomial" else \
            "lm(y ~ a * b + c1 + c2)"
        ref = np.array(R.r(f"""
            out <- c()
            for (i in 1:7) for (j in (i + 1):8) {{
              a <- g[, i]; b <- g[, j]
              s <- summary({fit})$coefficients
              out <- c(out, s["a:b", 3]^2)
            }}
            out"""))
        order = [(i, j) for i in range(8) for j in range(i + 1, 8)]
        got = {(int(a[3:]), int(b[3:])): s for a, b, s in
               zip(t.SNP1, t.SNP2, t.STAT, strict=True)}
        np.testing.assert_allclose([got[p] for p in order], ref, rtol=1e-6)


def test_parallel_jobs_merge_into_the_single_run(tmp_path, rt):
    g, y, _ = simulate(m=60, n=300, seed=4)
    one = oclstat.epistasis(g, y, test="fast", epi1=0.05, out=tmp_path / "one")
    for k in (1, 2, 3, 4):
        oclstat.epistasis(g, y, test="fast", epi1=0.05, out=tmp_path / "part", job=(k, 4))
    hits, summary = oclstat.epistasis_merge(tmp_path / "part", 4)
    assert open(hits, "rb").read() == open(one.files[0], "rb").read()
    assert open(summary, "rb").read() == open(one.files[1], "rb").read()


@pytest.mark.parametrize("test,covariates", [("fast", False), ("logistic", True)])
def test_a_killed_run_resumes_to_the_same_bytes(tmp_path, monkeypatch, test, covariates):
    """Ctrl-C after two row blocks, then the same call again: it goes on from the checkpoint,
    and the files equal an uninterrupted run's byte for byte (on the device, and with
    covariates on the host)."""
    from oclstat._epistasis import api

    g, y, _ = simulate(m=50, n=300, seed=6)
    cov = np.random.default_rng(1).normal(size=(300, 1)) if covariates else None
    monkeypatch.setattr(pairs, "EPI_MAX_COVARIATES", 0)   # covariates fitted on the host
    monkeypatch.setattr(api, "DEVICE_BLOCK", 8)
    monkeypatch.setattr(api, "HOST_BLOCK", 8)
    whole = oclstat.epistasis(g, y, test=test, epi1=0.05, covariates=cov, out=tmp_path / "whole")
    engine = HostPairs if covariates else DevicePairs
    real, calls = engine.block, []

    def interrupted(self, i0, *args):
        calls.append(i0)
        if len(set(calls)) > 2:
            raise KeyboardInterrupt
        return real(self, i0, *args)

    monkeypatch.setattr(engine, "block", interrupted)
    with pytest.raises(KeyboardInterrupt):
        oclstat.epistasis(g, y, test=test, epi1=0.05, covariates=cov, out=tmp_path / "run")
    assert (tmp_path / "run.epi.cc.ckpt.npz").exists()
    monkeypatch.setattr(engine, "block", real)
    again = oclstat.epistasis(g, y, test=test, epi1=0.05, covariates=cov, out=tmp_path / "run")
    assert not (tmp_path / "run.epi.cc.ckpt.npz").exists()
    for a, b in zip(again.files, whole.files, strict=True):
        assert open(a, "rb").read() == open(b, "rb").read()
    assert again.n_tests == whole.n_tests and again.n_tests + again.n_failed == 50 * 49 // 2


def test_a_checkpoint_of_another_scan_is_refused(tmp_path, monkeypatch):
    from oclstat._epistasis import api

    g, y, _ = simulate(m=30, n=200, seed=2)
    monkeypatch.setattr(api, "DEVICE_BLOCK", 8)
    real = DevicePairs.block
    monkeypatch.setattr(DevicePairs, "block", lambda *a: (_ for _ in ()).throw(
        KeyboardInterrupt()) if a[1] >= 16 else real(*a))
    with pytest.raises(KeyboardInterrupt):
        oclstat.epistasis(g, y, test="fast", epi1=0.05, out=tmp_path / "run")
    monkeypatch.setattr(DevicePairs, "block", real)
    with pytest.raises(ValueError, match="checkpoint of another scan"):
        oclstat.epistasis(g, y, test="fast", epi1=0.01, out=tmp_path / "run")
    res = oclstat.epistasis(g, y, test="fast", epi1=0.01, out=tmp_path / "run", resume=False)
    assert res.n_tests == 30 * 29 // 2


def test_genotype_formats_read_the_same_genotypes(tmp_path, dataset):
    d, g, y, _ = dataset
    bed = oclstat.genotypes.read_plink(d / "d")
    if PLINK is not None:
        for flags, reader in ((("--recode", "vcf-iid"), lambda p: oclstat.genotypes.read_vcf(
                f"{p}.vcf")), (("--recode", "transpose"), oclstat.genotypes.read_tped)):
            _plink(d, *flags, out=f"conv_{flags[1]}")
            other = reader(d / f"conv_{flags[1]}")
            assert other.snp_names == bed.snp_names
            # PLINK writes A1 as ALT (VCF) and may list the alleles either way (TPED): the
            # same genotypes up to each SNP's orientation
            same = (other.genotypes == bed.genotypes).all(axis=1)
            flipped = (other.genotypes == np.where(bed.genotypes >= 0, 2 - bed.genotypes,
                                                   -1)).all(axis=1)
            assert (same | flipped).all()
    pgenlib = pytest.importorskip("pgenlib")
    prefix = tmp_path / "p"
    m, n = bed.genotypes.shape
    writer = pgenlib.PgenWriter(f"{prefix}.pgen".encode(), n, m, False)
    for row in bed.genotypes:
        writer.append_alleles(np.repeat(np.where(row < 0, -9, 0), 2).astype(np.int32)
                              + np.stack([row >= 1, row == 2], axis=1).ravel().astype(np.int32))
    writer.close()
    (prefix.with_suffix(".pvar")).write_text(
        "#CHROM\tPOS\tID\tREF\tALT\n" + "".join(f"1\t{100 * (i + 1)}\trs{i}\tC\tA\n"
                                                for i in range(m)))
    (prefix.with_suffix(".psam")).write_text(
        "#IID\tPHENO1\n" + "".join(f"s{i}\t{2 if v else 1}\n" for i, v in enumerate(y)))
    pg = oclstat.genotypes.read_pgen(prefix)
    np.testing.assert_array_equal(pg.genotypes, bed.genotypes)
    np.testing.assert_array_equal(pg.phenotype, bed.phenotype)


def test_plink_side_files(tmp_path, dataset, capsys):
    """--pheno / --pheno-name, --1, --extract / --exclude, --keep / --remove on the command
    line give the Python call on the same subset."""
    from oclstat.cli import main

    d, g, y, q = dataset
    (tmp_path / "ph").write_text("FID IID trait status\n" + "".join(
        f"f{i} s{i} {q[i]:.6f} {int(y[i])}\n" for i in range(len(y))))
    (tmp_path / "snps").write_text("\n".join(f"rs{i}" for i in range(0, 20, 2)) + "\n")
    (tmp_path / "drop").write_text("rs4\n")
    (tmp_path / "keep").write_text("".join(f"f{i} s{i}\n" for i in range(0, 400)))
    (tmp_path / "remove").write_text("f3 s3\nf5 s5\n")
    assert main(["epistasis", "--bfile", str(d / "d"), "--test", "fast", "--pheno",
                 str(tmp_path / "ph"), "--pheno-name", "status", "--1", "--extract",
                 str(tmp_path / "snps"), "--exclude", str(tmp_path / "drop"), "--keep",
                 str(tmp_path / "keep"), "--remove", str(tmp_path / "remove"), "--epi1", "1",
                 "--out", str(tmp_path / "cli")]) == 0
    samples = [k for k in range(400) if k not in (3, 5)]
    snps = [k for k in range(0, 20, 2) if k != 4]
    res = oclstat.epistasis(g[np.ix_(snps, samples)], y[samples], test="fast", epi1=1.0)
    ours = _hits(tmp_path / "cli.epi.cc")
    np.testing.assert_array_equal(ours["STAT"], as_printed(res.table["STAT"], 6))
    assert main(["epistasis", "--bfile", str(d / "d"), "--test", "linear", "--pheno",
                 str(tmp_path / "ph"), "--pheno-name", "trait", "--epi1", "1", "--out",
                 str(tmp_path / "qt")]) == 0
    assert (tmp_path / "qt.epi.qt").exists()
    capsys.readouterr()


def test_a_fam_coded_0_1_is_refused_with_the_fix(tmp_path):
    g, y, _ = simulate(m=6, n=100, seed=1)
    write_plink(tmp_path / "z", g, y, status=[str(int(v)) for v in y])
    data = oclstat.genotypes.read_plink(tmp_path / "z")
    assert "--1" in data.input.summary()
    with pytest.raises(ValueError, match="cases and"):
        oclstat.epistasis(data, test="fast")
    fixed = oclstat.genotypes.read_plink(tmp_path / "z", one_coded=True)
    assert oclstat.epistasis(fixed, test="fast", epi1=1.0).n_tests == 15


@pytest.mark.parametrize("kwargs,match", [
    ({"test": "case-only"}, "test must be one of"),
    ({"test": "fast", "epi1": 2.0}, "epi1 must be a p-value"),
    ({"test": "fast", "covariates": np.zeros((100, 1))}, "covariates are for"),
    ({"test": "k2", "epi1": 0.1}, "epi1= is for PLINK's pair tests"),
    ({"test": "fast", "job": (3, 2)}, "job must be"),
    ({"test": "linear", "phenotype": np.ones(100)}, "varies"),
    ({"test": "fast", "phenotype": np.ones(100)}, "2 cases and 2 controls"),
])
def test_bad_requests_name_the_argument(kwargs, match):
    g, y, _ = simulate(m=6, n=100, seed=1)
    y = kwargs.pop("phenotype", y)
    with pytest.raises(ValueError, match=match):
        oclstat.epistasis(g, y, order=2, **kwargs)


def test_bed_matrix_reads_what_the_decoder_reads(tmp_path, monkeypatch):
    """bed-reader's blocks of a .bed equal the whole file decoded: rows, samples, SNP subsets,
    the minor-allele recount, missing genotypes, and an odd sample count (padding)."""
    pytest.importorskip("bed_reader")
    from oclstat._readers import bed

    monkeypatch.setattr(bed, "BLOCK_SNPS", 7)
    g, y, _ = simulate(m=40, n=203, seed=11, missing=0.05)
    write_plink(tmp_path / "b", g, y)
    whole = oclstat.genotypes.read_plink(tmp_path / "b", in_memory=True)
    lazy = oclstat.genotypes.read_plink(tmp_path / "b", in_memory=False)
    m = lazy.genotypes
    assert isinstance(m, bed.BedMatrix) and m.shape == g.shape
    assert np.array_equal(whole.genotypes, g) and np.array_equal(np.asarray(m), g)
    assert np.array_equal(m[5:19], g[5:19]) and np.array_equal(m[[3, 0, 39]], g[[3, 0, 39]])
    assert np.vstack([b for _, b in m.blocks()]).tobytes() == g.tobytes()
    sub = lazy.subset(snps=["rs4", "rs9", "rs30"], samples=[f"s{i}" for i in (0, 7, 100)])
    assert np.array_equal(np.asarray(sub.genotypes), g[np.ix_([4, 9, 30], [0, 7, 100])])
    swap = np.zeros(40, bool)
    swap[[2, 5]] = True
    flipped = np.asarray(m.flipped(swap))
    assert np.array_equal(flipped[2], np.where(g[2] >= 0, 2 - g[2], -1))
    assert np.array_equal(flipped[3], g[3])
    assert "on demand" in repr(lazy)


@pytest.mark.parametrize("test", ["fast", "joint-effects", "logistic"])
def test_pair_scan_reads_the_bed_in_blocks(tmp_path, monkeypatch, rt, test):
    """A scan of a .bed left on disk: the same hits, summary and checkpointed files as the scan
    of the decoded matrix, the file read a block at a time (decoding it whole fails here) and
    host memory below the decoded matrix's size."""
    pytest.importorskip("bed_reader")
    import tracemalloc

    from oclstat._readers import bed

    g, y, _ = simulate(m=3000, n=1600, seed=3, missing=0.002)
    write_plink(tmp_path / "w", g, y)
    whole = oclstat.genotypes.read_plink(tmp_path / "w", in_memory=True)
    ref = oclstat.epistasis(whole, test=test, epi1=1e-3, device=rt, progress=False)
    monkeypatch.setattr(bed, "BLOCK_SNPS", 256)

    def refuse(*_, **__):
        raise AssertionError("the .bed was decoded whole")

    monkeypatch.setattr(bed.BedMatrix, "__array__", refuse)
    lazy = oclstat.genotypes.read_plink(tmp_path / "w", in_memory=False)
    tracemalloc.start()
    got = oclstat.epistasis(lazy, test=test, epi1=1e-3, device=rt, progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert ref.n_hits > 0 and got.n_tests == ref.n_tests
    pd.testing.assert_frame_equal(got.table, ref.table)
    pd.testing.assert_frame_equal(got.summary, ref.summary)
    assert peak < g.size, f"peak {peak:,} bytes; the decoded matrix is {g.size:,}"
    a = oclstat.epistasis(whole, test=test, epi1=1e-3, device=rt, out=str(tmp_path / "a"),
                          progress=False)
    b = oclstat.epistasis(lazy, test=test, epi1=1e-3, device=rt, out=str(tmp_path / "b"),
                          progress=False)
    for x, z in zip(a.files, b.files, strict=True):
        assert open(x, "rb").read() == open(z, "rb").read()


@pytest.mark.parametrize("where", ["device", "host"])
def test_covariate_fits_read_the_bed_in_blocks(tmp_path, monkeypatch, where):
    """With covariates (fitted on the device, or per pair on the host past
    EPI_MAX_COVARIATES) a .bed left on disk is read a block at a time, with the in-memory
    scan's answer."""
    pytest.importorskip("bed_reader")
    from oclstat._epistasis import api
    from oclstat._readers import bed

    if where == "host":
        monkeypatch.setattr(pairs, "EPI_MAX_COVARIATES", 1)

    g, _, q = simulate(m=40, n=300, seed=12, missing=0.01)
    write_plink(tmp_path / "w", g, np.zeros(300))
    cov = np.random.default_rng(4).normal(size=(300, 2))
    whole = oclstat.genotypes.read_plink(tmp_path / "w", in_memory=True)
    ref = oclstat.epistasis(whole, q, test="linear", epi1=0.2, covariates=cov, progress=False)
    monkeypatch.setattr(api, "HOST_BLOCK", 16)

    def refuse(*_, **__):
        raise AssertionError("the .bed was decoded whole")

    monkeypatch.setattr(bed.BedMatrix, "__array__", refuse)
    lazy = oclstat.genotypes.read_plink(tmp_path / "w", in_memory=False)
    got = oclstat.epistasis(lazy, q, test="linear", epi1=0.2, covariates=cov, progress=False)
    assert ref.n_hits > 0 and (got.device == "host") == (where == "host")
    pd.testing.assert_frame_equal(got.table, ref.table)
    pd.testing.assert_frame_equal(got.summary, ref.summary)


def test_read_plink_keeps_large_files_on_disk(tmp_path, monkeypatch):
    pytest.importorskip("bed_reader")
    from oclstat._readers import bed

    g, y, _ = simulate(m=30, n=100, seed=1)
    write_plink(tmp_path / "s", g, y)
    assert isinstance(oclstat.genotypes.read_plink(tmp_path / "s").genotypes, np.ndarray)
    monkeypatch.setattr(oclstat._readers.genotypes, "IN_MEMORY_GENOTYPES", 1000)
    assert isinstance(oclstat.genotypes.read_plink(tmp_path / "s").genotypes, bed.BedMatrix)


def test_boost_with_absent_genotypes_and_defaults_is_plinks(tmp_path, rt):
    """BOOST where a SNP lacks a genotype (df 2 or 1, PLINK's df adjustment; two absent
    genotypes of one SNP fail), at PLINK's default epi1 (5e-6) with a planted interaction and
    at a loose one: PLINK 1.9's hits and summary byte for byte, on the device and in the host
    reference (the pairs' tables through pairtests.boost)."""
    g, y, _ = simulate(m=30, n=800, seed=21, missing=0.01)
    g[4] = np.where(g[4] == 2, 1, g[4])                    # no hom A1 ...
    g[9] = np.where(g[9] == 0, 1, g[9])                    # ... no hom A2
    g[12] = np.where(g[12] >= 0, 1, g[12])                 # one genotype: left out (monomorphic)
    g[13] = np.where(g[13] == 2, 0, g[13])                 # hom only: two genotypes absent
    g[13] = np.where(g[13] == 1, 0, g[13])
    g[13, :40] = 2
    risk = (g[3] >= 1) & (g[17] >= 1)
    y = np.where(risk, (np.arange(800) % 5 != 0), y).astype(np.int8)
    write_plink(tmp_path / "b", g, y)
    data = oclstat.genotypes.read_plink(tmp_path / "b")
    for flags, epi1, name in (((), None, "default"), (("--epi1", "0.9"), 0.9, "loose")):
        if PLINK is None:
            pytest.skip("PLINK 1.9 is not installed (Debian: plink1.9)")
        subprocess.run([PLINK, "--bfile", str(tmp_path / "b"), "--fast-epistasis", "boost",
                        *flags, "--allow-no-sex", "--out", str(tmp_path / f"p_{name}")],
                       capture_output=True, check=True)
        res = oclstat.epistasis(data, test="boost", epi1=epi1, device=rt,
                                out=tmp_path / f"o_{name}", progress=False)
        for ext in (".epi.cc", ".epi.cc.summary"):
            assert (tmp_path / f"o_{name}{ext}").read_text() == \
                (tmp_path / f"p_{name}{ext}").read_text(), (name, ext)
        hits = _hits(tmp_path / f"o_{name}.epi.cc")
        if name == "loose":
            assert set(hits["DF"]) == {1, 2, 4} and res.n_failed == 0
        else:
            assert len(hits) >= 1 and res.epi1 == 5e-6
    # the host reference on the pairs' own tables gives the device's numbers
    scan = prepare_scan(data, None, test="boost", epi1=0.05, epi2=0.01)
    dev = DevicePairs(rt, scan).block(0, scan.n_snps, 0, scan.n_snps, 0.0, 0.0)
    gg, yy = np.asarray(scan.genotypes), np.asarray(scan.phenotype)
    r, c = dev.hits[0], dev.hits[1]
    tables = np.zeros((len(r), 18), np.int64)
    for k, (i, j) in enumerate(zip(r, c, strict=True)):
        ok = (gg[i] >= 0) & (gg[j] >= 0)
        for cls, grp in ((0, yy == 1), (1, yy == 0)):
            a, b = 2 - gg[i][ok & grp], 2 - gg[j][ok & grp]
            tables[k, 9 * cls:9 * cls + 9] = np.bincount(3 * a + b, minlength=9)
    value, exact, df, _ = pt.boost(tables, 0.05, 0.01)
    np.testing.assert_allclose(dev.hits[2], exact, rtol=1e-12)
    np.testing.assert_array_equal(dev.hits[3], df)


# ----------------------------------------------------------------------------- sample identity


def _families(d, n=500, seed=11):
    """A .bed whose IIDs repeat across two families (FID fam0/fam1, IID 1..n/2), no .fam
    phenotype, and a --pheno file keyed by FID and IID whose cases differ within an IID."""
    g, y, q = simulate(m=30, n=n, seed=seed)
    write_plink(d / "fam", g, y, status=["-9"] * n)
    fam = [f"fam{k % 2} {k // 2 + 1} 0 0 0 -9\n" for k in range(n)]
    (d / "fam.fam").write_text("".join(fam))
    (d / "fam.pheno").write_text("FID IID status\n" + "".join(
        f"fam{k % 2} {k // 2 + 1} {2 if y[k] else 1}\n" for k in range(n)))
    return g, y, q


def _plink_run(*args, cwd):
    if PLINK is None:
        pytest.skip("PLINK 1.9 is not installed (Debian: plink1.9)")
    return subprocess.run([PLINK, *args, "--allow-no-sex"], capture_output=True, text=True,
                          cwd=cwd)


def _same_fast_hits(tmp_path, source: list, side: list, epi1: str, at_least: int) -> None:
    """plink1.9 --fast-epistasis and oclstat's --test fast on the same files (``source``: the
    genotype flag and name, ``side``: the side-file flags, relative to tmp_path): the same
    pairs, in the same order, with PLINK's printed statistics."""
    from oclstat.cli import main

    done = _plink_run(*source, *side, "--fast-epistasis", "--epi1", epi1, "--out", "plink",
                      cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    ours_side = [str(tmp_path / a) if not a.startswith("--") else a for a in side]
    assert main(["epistasis", source[0], str(tmp_path / source[1]), *ours_side, "--test",
                 "fast", "--epi1", epi1, "--out", str(tmp_path / "ours")]) == 0
    theirs, ours = _hits(tmp_path / "plink.epi.cc"), _hits(tmp_path / "ours.epi.cc")
    assert len(theirs) > at_least
    assert list(zip(ours.SNP1, ours.SNP2, strict=True)) == \
        list(zip(theirs.SNP1, theirs.SNP2, strict=True))
    np.testing.assert_array_equal(ours["STAT"], theirs["STAT"].astype(float))


def test_pheno_matches_samples_by_family_and_individual_id_as_plink(tmp_path):
    """IIDs repeated across families: PLINK 1.9 gives each sample the phenotype of its own
    FID and IID, and so does oclstat (the same pairs and statistics of --fast-epistasis)."""
    _families(tmp_path)
    _same_fast_hits(tmp_path, ["--bfile", "fam"], ["--pheno", "fam.pheno"], "0.05", 5)


def test_a_pheno_file_matching_no_sample_is_an_error(tmp_path, capsys):
    """PLINK 1.9 reads 0 phenotypes from a --pheno file whose FIDs are not the .fam's and
    stops; oclstat says so, naming both, instead of using it by IID."""
    from oclstat.cli import main

    _families(tmp_path, n=40)
    text = (tmp_path / "fam.pheno").read_text().replace("fam0 ", "famX ").replace("fam1 ",
                                                                                   "famY ")
    (tmp_path / "other.pheno").write_text(text)
    done = _plink_run("--bfile", "fam", "--pheno", "other.pheno", "--fast-epistasis", "--out",
                      "plink", cwd=tmp_path)
    assert "0 phenotype values" in done.stdout
    assert main(["epistasis", "--bfile", str(tmp_path / "fam"), "--pheno",
                 str(tmp_path / "other.pheno"), "--test", "fast"]) == 2
    err = capsys.readouterr().err
    assert "none of the 40 samples" in err and "FID and IID" in err and "fam0 1" in err


def test_a_quantitative_trait_in_the_fam_is_read_as_plink_reads_it(tmp_path):
    """plink --make-bed keeps a quantitative trait in .fam column 6; PLINK 1.9 reads it as
    quantitative (-9 missing, 0 a value) and --epistasis fits the linear model: oclstat reads
    it the same way and gives PLINK's pairs and statistics."""
    from oclstat.cli import main

    g, y, q = simulate(m=16, n=300, seed=8)
    write_plink(tmp_path / "qt", g, y, status=[f"{v:.6f}" for v in q])
    fam = (tmp_path / "qt.fam").read_text().splitlines()
    fam[0] = fam[0].rsplit(" ", 1)[0] + " -9"
    fam[1] = fam[1].rsplit(" ", 1)[0] + " 0"
    (tmp_path / "qt.fam").write_text("\n".join(fam) + "\n")
    data = oclstat.genotypes.read_plink(tmp_path / "qt")
    assert data.phenotype_kind == "quantitative"
    assert np.isnan(data.phenotype[0]) and data.phenotype[1] == 0.0
    assert "quantitative trait: 299 values, 1 missing" in data.input.summary()
    done = _plink_run("--bfile", "qt", "--epistasis", "--epi1", "0.5", "--out", "plink",
                      cwd=tmp_path)
    assert done.returncode == 0 and "quantitative" in done.stdout, done.stdout[-2000:]
    assert main(["epistasis", "--bfile", str(tmp_path / "qt"), "--test", "linear", "--epi1",
                 "0.5", "--out", str(tmp_path / "ours")]) == 0
    theirs, ours = _hits(tmp_path / "plink.epi.qt"), _hits(tmp_path / "ours.epi.qt")
    assert len(theirs) > 5
    assert list(zip(ours.SNP1, ours.SNP2, strict=True)) == \
        list(zip(theirs.SNP1, theirs.SNP2, strict=True))
    np.testing.assert_allclose(ours["STAT"], theirs["STAT"].astype(float), rtol=2e-3)
    assert main(["epistasis", "--bfile", str(tmp_path / "qt"), "--test", "fast"]) == 2


def test_a_vcf_written_by_plink_matches_its_pheno_file_as_plink(tmp_path):
    """plink --recode vcf names samples FID_IID; PLINK 1.9 reading it back splits them on '_'
    and matches a FID IID pheno file: so does oclstat, with the same hits."""
    _families(tmp_path, n=300)
    done = _plink_run("--bfile", "fam", "--recode", "vcf", "--out", "v", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "fam0_1" in (tmp_path / "v.vcf").read_text()
    _same_fast_hits(tmp_path, ["--vcf", "v.vcf"], ["--pheno", "fam.pheno"], "0.05", 3)


@pytest.mark.parametrize("flags", [(), ("--double-id",), ("--const-fid",), ("--const-fid", "7"),
                                   ("--id-delim", "_"), ("--id-delim", "-")])
@pytest.mark.parametrize("names", [["A", "B_C", "X_Y"], ["A_1", "B_2"], ["A", "X_Y_Z"]])
def test_vcf_sample_ids_are_split_as_plink_splits_them(tmp_path, flags, names):
    """PLINK 1.9's --vcf sample-ID rules (default split on one '_', --double-id, --const-fid,
    --id-delim), each checked against the .fam PLINK writes or its refusal."""
    from oclstat._readers.plink import vcf_sample_ids

    head = "\t".join(["#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO", "FORMAT",
                      *names])
    rows = ["\t".join(["1", str(100 * (k + 1)), f"rs{k}", "A", "G", ".", ".", ".", "GT",
                       *["0/1"] * len(names)]) for k in range(2)]
    (tmp_path / "t.vcf").write_text("##fileformat=VCFv4.2\n##contig=<ID=1>\n"
                                    '##FORMAT=<ID=GT,Number=1,Type=String,Description="GT">\n'
                                    + head + "\n" + "\n".join(rows) + "\n")
    done = _plink_run("--vcf", "t.vcf", *flags, "--make-bed", "--out", "t", cwd=tmp_path)
    kwargs = {"double_id": "--double-id" in flags}
    if "--const-fid" in flags:
        kwargs["const_fid"] = flags[-1] if flags[-1] != "--const-fid" else "0"
    if "--id-delim" in flags:
        kwargs["id_delim"] = flags[-1]
    if done.returncode != 0:
        with pytest.raises(ValueError, match="VCF sample ID"):
            vcf_sample_ids(names, **kwargs)
        return
    fam = [ln.split()[:2] for ln in (tmp_path / "t.fam").read_text().splitlines()]
    fids, iids = vcf_sample_ids(names, **kwargs)
    assert [list(x) for x in zip(fids, iids, strict=True)] == fam


def test_keep_and_remove_lists_name_family_and_individual_as_plink(tmp_path):
    """--keep / --remove lines are FID IID: with IIDs repeated across families, PLINK 1.9
    keeps exactly the listed pairs, and so does oclstat (the same hits)."""
    _families(tmp_path, n=400)
    (tmp_path / "keep").write_text("".join(f"fam0 {k}\n" for k in range(1, 201)) +
                                   "".join(f"fam1 {k}\n" for k in range(1, 120)))
    (tmp_path / "remove").write_text("fam0 3\nfam1 5\n")
    side = ["--keep", "keep", "--remove", "remove", "--pheno", "fam.pheno"]
    _same_fast_hits(tmp_path, ["--bfile", "fam"], side, "0.1", 3)
    assert "317 people" in (tmp_path / "plink.log").read_text()


def test_without_family_ids_an_iid_two_families_share_is_refused(tmp_path):
    """Genotypes with IIDs only (a table) and a pheno file that gives one IID under two FIDs:
    which row is meant is not knowable, so it is an error, not the last row silently."""
    from oclstat._readers.plink import read_pheno

    (tmp_path / "p").write_text("FID IID y\nfa 1 2\nfb 1 1\nfa 2 1\n")
    with pytest.raises(ValueError, match="IID '1' appears under 2 family IDs"):
        read_pheno(tmp_path / "p", ["1", "2"])
    values, kind = read_pheno(tmp_path / "p", ["1", "2"], family_ids=["fb", "fa"])
    assert kind == "case-control" and values.tolist() == [0.0, 0.0]


def test_chi_square_tails_are_scipys_to_the_bit():
    """chi2_p and BOOST's thresholds use scipy.special (no scipy.stats at start-up): the same
    numbers as scipy.stats.chi2, outside its support (p = 1 below 0) and at NaN included."""
    from scipy import stats

    x = np.r_[np.nan, -1.0, -0.0, 0.0, 1e-300,
              np.random.default_rng(0).exponential(5.0, 500), 1e3, np.inf]
    for df in (1, 2, 4, 26):
        np.testing.assert_array_equal(pt.chi2_p(x, df), stats.chi2.sf(x, df))
    for p in (0.05, 1e-4, 5e-6, 1e-8):
        np.testing.assert_array_equal(pt.boost_thresholds(p, 0.5)[0],
                                      stats.chi2.isf(p, [4, 2, 1]))
