"""Genotype readers for the epistasis search: PLINK 1 binary files and 0/1/2 tables.

Every reader returns :class:`Genotypes`: ``genotypes`` (n_snps x n_samples, int8, 0/1/2 =
count of one allele, -1 = missing), ``phenotype`` (int8 per sample: 1 case, 0 control, -1
missing) and ``snp_names``.

**Missing data policy.** A missing genotype removes that sample from the contingency tables of
every combination containing that SNP (and only those); a missing phenotype removes the sample
from the search. Both are documented in :func:`oclstat.epistasis`.

>>> import io
>>> g = read_genotype_table(io.StringIO("VarSam,1,0,1\\nrs1,0,1,2\\nrs2,2,2,0\\n"))
>>> g.genotypes.tolist(), g.phenotype.tolist(), g.snp_names
([[0, 1, 2], [2, 2, 0]], [1, 0, 1], ['rs1', 'rs2'])
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ._tables import open_text, read_table

__all__ = ["Genotypes", "read_plink", "read_genotype_table"]

_CASE_NAMES = ("class", "y", "phenotype", "pheno", "status", "label")


@dataclass(repr=False)
class Genotypes:
    """Genotypes (n_snps x n_samples, int8; -1 missing), phenotype (1/0/-1), SNP names, and
    where they came from a .bim file their chromosomes and base-pair positions."""

    genotypes: np.ndarray
    phenotype: np.ndarray
    snp_names: list
    sample_ids: list | None = None
    chromosomes: list | None = None
    positions: np.ndarray | None = None

    def __repr__(self) -> str:
        g, y = self.genotypes, np.asarray(self.phenotype)
        missing = float((g < 0).mean()) if g.size else 0.0
        return (f"Genotypes({g.shape[0]:,} SNPs x {g.shape[1]:,} samples, "
                f"{int((y == 1).sum()):,} cases, {int((y == 0).sum()):,} controls, "
                f"{missing:.2%} missing genotypes"
                + (", with chromosomes and positions" if self.chromosomes is not None else "")
                + ")")


def read_plink(prefix) -> Genotypes:
    """Read PLINK 1 binary ``PREFIX.bed/.bim/.fam`` (SNP-major).

    Parameters
    ----------
    prefix : str or path
        The common prefix of the three files.

    Returns
    -------
    Genotypes
        ``genotypes`` (SNPs x samples, int8: copies of the .bim A1 allele, -1 missing),
        ``phenotype`` (1 case, 0 control, -1 missing), ``snp_names`` and ``sample_ids``.

    See Also
    --------
    read_genotype_table : 0/1/2 tables in CSV or TSV.
    oclstat.epistasis : searches the result.

    Notes
    -----
    Genotypes count the .bim A1 allele (00 -> 2, 10 -> 1, 11 -> 0, 01 -> missing); the
    phenotype is .fam column 6 (2 case, 1 control, anything else missing). Sample-major .bed
    files (mode 0) are refused.

    References
    ----------
    .. [1] Purcell, S. et al. (2007). PLINK: a tool set for whole-genome association and
           population-based linkage analyses. American Journal of Human Genetics 81(3), 559-575.
    .. [2] Chang, C. C. et al. (2015). Second-generation PLINK: rising to the challenge of
           larger and richer datasets. GigaScience 4, 7.

    Examples
    --------
    >>> import os, tempfile, numpy as np
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "x")
    >>> _ = open(p + ".fam", "w").write("f a 0 0 1 2\\nf b 0 0 2 1\\n")
    >>> _ = open(p + ".bim", "w").write("1 rs1 0 1 A G\\n")
    >>> np.array([0x6C, 0x1B, 1, 0b1011], dtype=np.uint8).tofile(p + ".bed")
    >>> g = read_plink(p)
    >>> g.genotypes.tolist(), g.phenotype.tolist(), g.snp_names
    ([[0, 1]], [1, 0], ['rs1'])
    """
    prefix = str(prefix)
    for suffix in (".bed", ".bim", ".fam"):
        if not os.path.exists(prefix + suffix):
            raise FileNotFoundError(f"{prefix + suffix} not found (PLINK prefix {prefix!r})")
    fam = [ln.split() for ln in open_text(prefix + ".fam")[0].splitlines() if ln.strip()]
    bim = [ln.split() for ln in open_text(prefix + ".bim")[0].splitlines() if ln.strip()]
    for i, f in enumerate(fam):
        if len(f) < 6:
            raise ValueError(f"{prefix}.fam line {i + 1}: expected 6 columns, got {len(f)}")
    for i, b in enumerate(bim):
        if len(b) < 6:
            raise ValueError(f"{prefix}.bim line {i + 1}: expected 6 columns, got {len(b)}")
    n, m = len(fam), len(bim)
    raw = np.fromfile(prefix + ".bed", dtype=np.uint8)
    if raw.size < 3 or raw[0] != 0x6C or raw[1] != 0x1B:
        raise ValueError(f"{prefix}.bed is not a PLINK 1 .bed file (bad magic number)")
    if raw[2] != 1:
        raise ValueError(f"{prefix}.bed is sample-major (mode 0); only SNP-major is supported")
    per_snp = -(-n // 4)
    if raw.size != 3 + m * per_snp:
        raise ValueError(f"{prefix}.bed has {raw.size - 3} data bytes; {m} SNPs x {n} samples "
                         f"need {m * per_snp}")
    codes = raw[3:].reshape(m, per_snp)
    two_bit = np.stack([(codes >> (2 * k)) & 3 for k in range(4)], axis=2).reshape(m, -1)[:, :n]
    lookup = np.array([2, -1, 1, 0], dtype=np.int8)   # 00, 01, 10, 11
    genotypes = lookup[two_bit]
    status = np.array([f[5] for f in fam])
    phenotype = np.where(status == "2", 1, np.where(status == "1", 0, -1)).astype(np.int8)
    try:
        positions = np.array([int(b[3]) for b in bim], dtype=np.int64)
    except ValueError:
        raise ValueError(f"{prefix}.bim: column 4 (base-pair position) must be integers") \
            from None
    return Genotypes(genotypes, phenotype, [b[1] for b in bim], [f[1] for f in fam],
                     [b[0] for b in bim], positions)


def read_genotype_table(path, *, layout: str = "auto", phenotype=None, header="auto",
                        row_names="auto") -> Genotypes:
    """Read 0/1/2 genotypes from CSV/TSV (gzip too, by content).

    Parameters
    ----------
    path : str or path
        The table.
    layout : {"auto", "snp-major", "sample-major"}, optional
        "snp-major": one row per SNP (its name first); a row named ``VarSam`` (BitEpi) holds
        the phenotype. "sample-major": one row per sample; the phenotype is the column named
        class/y/phenotype/pheno/status/label (else the last column). "auto" picks snp-major
        when a row is named ``VarSam``.
    phenotype : array_like, optional
        The phenotype instead of the one in the table.
    header, row_names : bool or "auto", optional
        As :func:`oclstat.io.read_table` (the layout is worked out from the content and refused
        when ambiguous).

    Returns
    -------
    Genotypes
        SNPs x samples (int8, -1 missing), phenotype, SNP names (snp0, snp1, ... without a
        header).

    See Also
    --------
    read_plink : PLINK 1 binary files.
    oclstat.io.read_table : the reader underneath.

    Notes
    -----
    Missing genotypes: empty, NA or -1; anything other than 0, 1, 2 or missing is an error
    naming the cell.

    References
    ----------
    .. [1] Ritchie, M. D. et al. (2001). Multifactor-dimensionality reduction reveals high-order
           interactions among estrogen-metabolism genes in sporadic breast cancer. American
           Journal of Human Genetics 69(1), 138-147 (the case/control genotype tables of
           epistasis tools).

    Examples
    --------
    >>> import io
    >>> g = read_genotype_table(io.StringIO("snp,s1,s2,s3\\nrs1,0,1,2\\nVarSam,1,0,1\\n"))
    >>> g.genotypes.tolist(), g.phenotype.tolist(), g.snp_names
    ([[0, 1, 2]], [1, 0, 1], ['rs1'])
    """
    if layout not in ("auto", "snp-major", "sample-major"):
        raise ValueError(f"layout must be 'auto', 'snp-major' or 'sample-major', got {layout!r}")
    table = read_table(path, header=header, row_names=row_names, what="genotype table",
                       index_like_data=True)
    where = table.source
    values = np.where(np.isnan(table.values), -1, table.values)
    rows = table.row_names or []
    varsam = [i for i, r in enumerate(rows) if r.strip().lower() == "varsam"]
    if layout == "auto":
        layout = "snp-major" if varsam else "sample-major"
    pheno = None
    if layout == "snp-major":
        if varsam:
            pheno = values[varsam[0]]
            keep = [i for i in range(len(values)) if i != varsam[0]]
            values = values[keep]
            rows = [rows[i] for i in keep]
        g = values
        names = list(rows) if rows else [f"snp{i}" for i in range(len(g))]
        samples = table.col_names
    else:
        cols = list(table.col_names) if table.col_names else None
        if phenotype is None:
            col = values.shape[1] - 1
            if cols:
                lower = [c.strip().lower() for c in cols]
                col = next((i for i, c in enumerate(lower) if c in _CASE_NAMES), col)
            pheno = values[:, col]
            keep = [i for i in range(values.shape[1]) if i != col]
        else:
            keep = list(range(values.shape[1]))
        g = values[:, keep].T
        names = [cols[i] for i in keep] if cols else [f"snp{i}" for i in range(len(keep))]
        samples = list(rows) if rows else None
    if len(set(names)) == 1 and len(names) > 1:    # a placeholder (hiperbio's X,X,...,Y)
        names = [f"snp{i}" for i in range(len(names))]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{where}: SNP name {dup!r} appears twice")
    bad = ~np.isin(g, (-1, 0, 1, 2))
    if bad.any():
        s_, n_ = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(f"{where}: SNP {names[s_]!r}, sample {n_ + 1} is {g[s_, n_]:g}, not a "
                         "genotype (0, 1, 2 or missing)")
    if phenotype is not None:
        pheno = np.asarray(phenotype)
    if pheno is None:
        raise ValueError(f"{where}: no phenotype in the file; pass phenotype=")
    pheno = np.asarray(pheno, dtype=np.float64)
    if not np.isin(pheno, (-1, 0, 1)).all():
        bad_v = pheno[~np.isin(pheno, (-1, 0, 1))][0]
        raise ValueError(f"{where}: phenotype value {bad_v:g} is not 1 (case), 0 (control) or "
                         "missing")
    return Genotypes(g.astype(np.int8), pheno.astype(np.int8), names,
                     list(samples) if samples else None)
