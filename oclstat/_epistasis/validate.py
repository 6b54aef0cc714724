"""Checks of the epistasis search's inputs: genotypes (arrays or DataFrames in either layout)
and a phenotype aligned to the samples by label."""

from __future__ import annotations

import numpy as np

from .._labels import (
    aligned,
    as_labelled,
    check_unique,
    is_default_index,
    loaded_pandas,
    oriented,
)
from .._readers.bed import BedMatrix, a1_is_major, per_snp, recount
from ..genotypes import Genotypes
from .scan import PairScan, plink_name_width

LAYOUTS = ("snp-major", "sample-major")


def _inputs(genotypes, phenotype, snps, layout="snp-major"):
    """Genotypes (SNPs x samples int8), phenotype, SNP names and index map, with labelled
    inputs aligned by label (oclstat._labels)."""
    g, y, names, _ = _genotypes(genotypes, phenotype, layout)
    y = _case_control(y, g.shape[1])
    keep = y >= 0
    if not keep.all():
        g, y = g[:, keep], y[keep]
    y = y.astype(np.int8)
    n_case, n_ctrl = int((y == 1).sum()), int((y == 0).sum())
    if n_case == 0 or n_ctrl == 0:
        raise ValueError(f"phenotype needs cases and controls; got {n_case} cases and "
                         f"{n_ctrl} controls")
    if names is None:
        names = [f"snp{i}" for i in range(g.shape[0])]
    if snps is not None:
        idx = _snp_indices(snps, names, g.shape[0])
        g = g[idx]
        names = [names[i] for i in idx]
        index_map = idx
    else:
        index_map = np.arange(g.shape[0])
    return g, y, names, index_map


def _snp_indices(snps, names, n_snps) -> np.ndarray:
    idx = np.asarray(snps)
    if idx.dtype.kind not in "iu":
        lookup = {n: i for i, n in enumerate(names)}
        missing = [s for s in idx if s not in lookup]
        if missing:
            raise ValueError(f"snps: unknown SNP names {missing[:5]}")
        idx = np.array([lookup[s] for s in idx])
    if idx.size == 0 or idx.min() < 0 or idx.max() >= n_snps or np.unique(idx).size != idx.size:
        raise ValueError("snps must be distinct SNP indices (or names) of the data")
    return np.sort(idx)


def _genotypes(genotypes, phenotype, layout, blocks=False):
    """``(g, y, names, source)``: the genotypes as SNPs x samples int8 (-1 missing), the
    phenotype aligned to the samples by label (not yet checked), the SNP names (None when the
    input has none) and the Genotypes the data came from (None for arrays). With ``blocks``,
    genotypes left on disk (a BedMatrix) stay there; otherwise they are decoded."""
    pd = loaded_pandas()
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be 'snp-major' (SNPs x samples) or 'sample-major' "
                         f"(samples x SNPs), got {layout!r}")
    names = samples = source = None
    if layout == "snp-major":
        genotypes = oriented(genotypes, phenotype, "genotypes", "phenotype")
    genotypes = as_labelled(genotypes, "genotypes")
    if isinstance(genotypes, Genotypes):
        source = genotypes
        names = list(genotypes.snp_names)
        samples = list(genotypes.sample_ids) if genotypes.sample_ids else None
        if phenotype is None:
            phenotype = genotypes.phenotype
        genotypes = genotypes.genotypes
        if blocks and isinstance(genotypes, BedMatrix):    # PLINK's codes: nothing to check
            return genotypes, _phenotype(phenotype, samples, genotypes), names, source
    elif pd is not None and isinstance(genotypes, pd.DataFrame):
        frame = genotypes if layout == "snp-major" else genotypes.T
        names = [str(i) for i in frame.index]
        samples = None if is_default_index(frame.columns) else list(frame.columns)
        check_unique(names, "genotypes' SNP names")
        try:
            genotypes = frame.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("genotypes must hold numbers 0/1/2 (NaN or -1 missing)") from None
    elif layout == "sample-major":
        genotypes = np.asarray(genotypes).T
    g = np.asarray(genotypes)
    if g.ndim != 2:
        raise ValueError(f"genotypes must be 2-D (SNPs x samples), got shape {g.shape}")
    if g.dtype.kind not in "iu":
        if g.dtype.kind != "f":
            raise TypeError(f"genotypes must be integers 0/1/2 (-1 missing), got {g.dtype}")
        if np.isinf(g).any():
            s_, n_ = (int(v[0]) for v in np.nonzero(np.isinf(g)))
            raise ValueError(f"genotypes[{s_}, {n_}] (SNP, sample) is infinite; genotypes are "
                             "0, 1, 2 or missing (NaN or -1)")
        if not np.all(np.isnan(g) | (g == np.round(g))):
            s_, n_ = (int(v[0]) for v in np.nonzero(~(np.isnan(g) | (g == np.round(g)))))
            raise ValueError(f"genotypes[{s_}, {n_}] (SNP, sample) is {float(g[s_, n_]):g}; "
                             "genotypes are 0, 1, 2 or missing (NaN or -1)")
        g = np.where(np.isnan(g), -1, g)
    if g.size and (g.min() < -1 or g.max() > 2):
        s, n = (int(v[0]) for v in np.nonzero((g < -1) | (g > 2)))
        raise ValueError(f"genotypes must be 0, 1, 2 or -1 (missing); genotypes[{s}, {n}] (SNP, "
                         f"sample) is {float(np.asarray(genotypes)[s, n]):g}")
    g = g.astype(np.int8, copy=False)     # -1 .. 2 (no copy for PLINK's int8 genotypes)
    return g, _phenotype(phenotype, samples, g), names, source


def _phenotype(phenotype, samples, g) -> np.ndarray:
    """The phenotype aligned to the genotypes' samples by label, one value per sample."""
    if phenotype is None:
        raise ValueError("phenotype is required (one 0/1 value per sample)")
    y = aligned(phenotype, samples, "phenotype", "the genotypes' samples")
    if y.ndim != 1 or y.size != g.shape[1]:
        raise ValueError(f"phenotype must have one value per sample ({g.shape[1]}), got "
                         f"shape {y.shape}")
    return y


def _take(g, snps=None, samples=None):
    """Some SNPs (rows) and samples (columns) of an int8 matrix or a BedMatrix (on disk);
    ``g`` itself where they are all of them."""
    if isinstance(g, BedMatrix):
        return g.take(snps, samples)
    if snps is not None and not (len(snps) == g.shape[0]
                                 and np.array_equal(snps, np.arange(g.shape[0]))):
        g = g[snps]
    if samples is not None and not (samples.dtype == bool and samples.all()):
        g = g[:, samples]
    return g


def _case_control(y, n_samples) -> np.ndarray:
    """A case/control phenotype as int8: 1 case, 0 control, -1 missing."""
    if y.dtype.kind == "f":
        if not np.all(np.isnan(y) | np.isin(y, [0, 1, -1])):
            raise ValueError("phenotype must be 1 (case), 0 (control) or missing (NaN, -1)")
        y = np.where(np.isnan(y), -1, y).astype(np.int8)
    if y.dtype == bool:
        y = y.astype(np.int8)
    if y.dtype.kind == "O":
        try:
            y = y.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError("phenotype must be 1 (case), 0 (control) or -1 (missing)") \
                from None
        return _case_control(y, n_samples)
    bad_y = ~np.isin(y, [0, 1, -1])
    if bad_y.any():
        raise ValueError(f"phenotype must be 1 (case), 0 (control) or -1 (missing); sample "
                         f"{int(np.flatnonzero(bad_y)[0])} is {y[bad_y][0]!r}")
    return y.astype(np.int8)


def prepare_scan(genotypes, phenotype, *, test, epi1, epi2, snps=None, layout="snp-major",
                 covariates=None, cellmin=5, keep_allele_order=False):
    """Check the inputs of a pair scan with one of PLINK's tests and prepare it
    (:class:`~.scan.PairScan`): genotypes oriented with A1 minor (PLINK 1.9's default;
    ``keep_allele_order`` keeps the file's), samples with a missing phenotype (or covariate)
    left out, a quantitative phenotype for ``linear``, case/control for the others."""
    g, y, names, source = _genotypes(genotypes, phenotype, layout, blocks=True)
    for value, name in ((epi1, "epi1"), (epi2, "epi2")):
        if not isinstance(value, (int, float, np.floating)) or not 0 <= float(value) <= 1:
            raise ValueError(f"{name} must be a p-value threshold in [0, 1], got {value!r}")
    if test == "linear":
        try:
            y = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("phenotype: test 'linear' needs a quantitative trait (numbers; "
                             "NaN missing)") from None
        keep = np.isfinite(y)
    else:
        y = _case_control(y, g.shape[1])
        keep = y >= 0
    cov, cov_names = None, []
    if covariates is not None:
        pd = loaded_pandas()
        if test not in ("logistic", "linear"):
            raise ValueError(f"covariates are for test='logistic' or 'linear' (PLINK's "
                             f"--epistasis), not {test!r}")
        if pd is not None and isinstance(covariates, pd.Series):
            covariates = covariates.to_frame()
        if pd is not None and isinstance(covariates, pd.DataFrame):
            cov_names = [str(c) for c in covariates.columns]
            samples = list(source.sample_ids) if source is not None and source.sample_ids \
                else None
            if samples is not None and not is_default_index(covariates.index):
                covariates = covariates.reindex([str(s) for s in samples]) \
                    if set(map(str, covariates.index)) >= set(map(str, samples)) else None
                if covariates is None:
                    raise ValueError("covariates: their index does not cover the genotypes' "
                                     "samples")
            cov = covariates.to_numpy(dtype=np.float64)
        else:
            cov = np.asarray(covariates, dtype=np.float64)
            cov = cov.reshape(g.shape[1], -1) if cov.ndim == 1 else cov
            cov_names = [f"COV{k + 1}" for k in range(cov.shape[1])]
        if cov.shape[0] != g.shape[1]:
            raise ValueError(f"covariates have {cov.shape[0]} rows, the genotypes "
                             f"{g.shape[1]} samples")
        keep &= np.isfinite(cov).all(axis=1)
    g, y = _take(g, samples=keep), y[keep]
    cov = None if cov is None else cov[keep]
    if test != "linear":
        n_case, n_ctrl = int((y == 1).sum()), int((y == 0).sum())
        if n_case < 2 or n_ctrl < 2:
            raise ValueError(f"phenotype needs at least 2 cases and 2 controls; got {n_case} "
                             f"cases and {n_ctrl} controls")
    elif y.size < 5 or np.all(y == y[0]):
        raise ValueError("phenotype: test 'linear' needs a trait that varies over 5 or more "
                         "samples")
    if names is None:
        names = [f"snp{i}" for i in range(g.shape[0])]
    chromosomes = (list(source.chromosomes) if source is not None and source.chromosomes
                   else ["0"] * g.shape[0])
    if snps is not None:
        idx = _snp_indices(snps, names, g.shape[0])
        g, names = _take(g, snps=idx), [names[i] for i in idx]
        chromosomes = [chromosomes[i] for i in idx]
    width = plink_name_width([str(n) for n in names])
    usable, swapped = _site_checks(g, y, chromosomes, test, cellmin)
    if not usable.all():
        idx = np.flatnonzero(usable)
        g, names = _take(g, snps=idx), [names[i] for i in idx]
        chromosomes = [chromosomes[i] for i in idx]
        swapped = swapped[idx]
    if g.shape[0] < 2:
        raise ValueError(f"a pair scan needs at least 2 SNPs that can be tested, got "
                         f"{g.shape[0]} (monomorphic sites, haploid chromosomes and, for "
                         "joint-effects, sites with a genotype rarer than 3 x cellmin in cases "
                         "or controls are left out, as PLINK leaves them out)")
    if keep_allele_order:
        swapped = np.zeros_like(swapped)
    if isinstance(g, BedMatrix):        # on disk: recounted as it is read, a block at a time
        g = g.flipped(swapped)
    else:                               # A1 the minor allele (PLINK 1.9's default)
        if swapped.any() or not (g.dtype == np.int8 and g.flags.c_contiguous):
            g = np.array(g, dtype=np.int8, order="C")   # the caller's array stays as it was
        g = recount(g, swapped)
    return PairScan(g, y, [str(n) for n in names],
                    [str(c) for c in chromosomes], test, float(epi1), float(epi2),
                    int(cellmin), cov, cov_names, skipped=int((~usable).sum()),
                    name_width=width)


#: PLINK's haploid chromosome codes (human): X, Y and mitochondrial.
HAPLOID = {"X", "Y", "MT", "23", "24", "26", "chrX", "chrY", "chrM", "chrMT"}


def _site_checks(g, y, chromosomes, test, cellmin) -> tuple[np.ndarray, np.ndarray]:
    """In one pass over the SNPs (a block at a time for a .bed on disk): the SNPs PLINK 1.9
    scans (not on a haploid chromosome, not monomorphic over the samples; for joint-effects
    every genotype seen at least 3 x cellmin times in cases and in controls, since rarer sites
    can pass no pair's cell minimum), and those whose A1 is the major allele (recounted)."""
    ok = np.array([str(c) not in HAPLOID for c in chromosomes], dtype=bool)

    def checks(b):
        present = np.stack([(b == v).any(axis=1) for v in range(3)], axis=1)
        fine = present.sum(axis=1) >= 2
        if test == "joint-effects" and cellmin:
            for grp in (y == 1, y == 0):
                counts = np.stack([(b[:, grp] == v).sum(axis=1) for v in range(3)], axis=1)
                fine &= (counts >= 3 * cellmin).all(axis=1)
        return np.stack([fine, a1_is_major(b)], axis=1)

    both = per_snp(g, checks)
    return ok & both[:, 0], both[:, 1]
