"""Checks of the epistasis search's inputs: genotypes (arrays or DataFrames in either layout)
and a phenotype aligned to the samples by label."""

from __future__ import annotations

import numpy as np

from .._labels import aligned, as_labelled, check_unique, is_default_index, oriented
from ..genotypes import Genotypes

LAYOUTS = ("snp-major", "sample-major")


def _inputs(genotypes, phenotype, snps, layout="snp-major"):
    """Genotypes (SNPs x samples int8), phenotype, SNP names and index map, with labelled
    inputs aligned by label (oclstat._labels)."""
    import pandas as pd

    if layout not in LAYOUTS:
        raise ValueError(f"layout must be 'snp-major' (SNPs x samples) or 'sample-major' "
                         f"(samples x SNPs), got {layout!r}")
    names = samples = None
    if layout == "snp-major":
        genotypes = oriented(genotypes, phenotype, "genotypes", "phenotype")
    genotypes = as_labelled(genotypes, "genotypes")
    if isinstance(genotypes, Genotypes):
        names = list(genotypes.snp_names)
        samples = list(genotypes.sample_ids) if genotypes.sample_ids else None
        if phenotype is None:
            phenotype = genotypes.phenotype
        genotypes = genotypes.genotypes
    elif isinstance(genotypes, pd.DataFrame):
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
    if phenotype is None:
        raise ValueError("phenotype is required (one 0/1 value per sample)")
    y = aligned(phenotype, samples, "phenotype", "the genotypes' samples")
    if y.ndim != 1 or y.size != g.shape[1]:
        raise ValueError(f"phenotype must have one value per sample ({g.shape[1]}), got "
                         f"shape {y.shape}")
    if y.dtype.kind == "f":
        if not np.all(np.isnan(y) | np.isin(y, [0, 1, -1])):
            raise ValueError("phenotype must be 1 (case), 0 (control) or missing (NaN, -1)")
        y = np.where(np.isnan(y), -1, y).astype(np.int8)
    if y.dtype == bool:
        y = y.astype(np.int8)
    bad_y = ~np.isin(y, [0, 1, -1])
    if bad_y.any():
        raise ValueError(f"phenotype must be 1 (case), 0 (control) or -1 (missing); sample "
                         f"{int(np.flatnonzero(bad_y)[0])} is {y[bad_y][0]!r}")
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
        idx = np.asarray(snps)
        if idx.dtype.kind not in "iu":
            lookup = {n: i for i, n in enumerate(names)}
            missing = [s for s in idx if s not in lookup]
            if missing:
                raise ValueError(f"snps: unknown SNP names {missing[:5]}")
            idx = np.array([lookup[s] for s in idx])
        if idx.size == 0 or idx.min() < 0 or idx.max() >= g.shape[0] or \
                np.unique(idx).size != idx.size:
            raise ValueError("snps must be distinct SNP indices (or names) of the data")
        idx = np.sort(idx)
        g = g[idx]
        names = [names[i] for i in idx]
        index_map = idx
    else:
        index_map = np.arange(g.shape[0])
    return g, y, names, index_map
