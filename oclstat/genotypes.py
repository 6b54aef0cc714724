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
from pathlib import Path

import numpy as np

__all__ = ["Genotypes", "read_plink", "read_genotype_table"]

_CASE_NAMES = ("class", "y", "phenotype", "pheno", "status", "label")


@dataclass
class Genotypes:
    """Genotypes (n_snps x n_samples, int8; -1 missing), phenotype (1/0/-1), SNP names."""

    genotypes: np.ndarray
    phenotype: np.ndarray
    snp_names: list
    sample_ids: list | None = None


def read_plink(prefix) -> Genotypes:
    """Read PLINK 1 binary ``PREFIX.bed/.bim/.fam`` (SNP-major). Genotypes count the .bim A1
    allele (00 -> 2, 10 -> 1, 11 -> 0, 01 -> missing); the phenotype is .fam column 6 (2 case,
    1 control, anything else missing)."""
    prefix = str(prefix)
    for suffix in (".bed", ".bim", ".fam"):
        if not os.path.exists(prefix + suffix):
            raise FileNotFoundError(f"{prefix + suffix} not found (PLINK prefix {prefix!r})")
    fam = [ln.split() for ln in Path(prefix + ".fam").read_text().splitlines() if ln.strip()]
    bim = [ln.split() for ln in Path(prefix + ".bim").read_text().splitlines() if ln.strip()]
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
    return Genotypes(genotypes, phenotype, [b[1] for b in bim], [f[1] for f in fam])


def _open_text(path):
    if hasattr(path, "read"):
        return path.read()
    p = str(path)
    if p.endswith(".gz"):
        import gzip

        with gzip.open(p, "rt") as fh:
            return fh.read()
    return Path(p).read_text()


def read_genotype_table(path, *, layout: str = "auto", phenotype=None) -> Genotypes:
    """Read 0/1/2 genotypes from CSV/TSV (``.gz`` too).

    ``layout="snp-major"``: one row per SNP (``id, g_1 .. g_N``); a first row starting with
    ``VarSam`` (BitEpi) holds the phenotype. ``layout="sample-major"``: one row per sample
    with a header; the phenotype is the column named class/y/phenotype/status/label (or the
    last column). ``"auto"`` picks snp-major when the first field is ``VarSam``. A phenotype
    vector can be given instead (``phenotype=``). Missing genotypes: empty, NA or -1.
    """
    text = _open_text(path)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        raise ValueError(f"{path}: empty genotype file")
    sep = "\t" if "\t" in lines[0] else ","
    first = lines[0].split(sep)[0].strip()
    if layout == "auto":
        layout = "snp-major" if first.lower() == "varsam" else "sample-major"
    if layout not in ("snp-major", "sample-major"):
        raise ValueError(f"layout must be 'auto', 'snp-major' or 'sample-major', got {layout!r}")
    rows = [ln.split(sep) for ln in lines]
    if layout == "snp-major":
        pheno = None
        if rows[0][0].strip().lower() == "varsam":
            pheno = _parse_ints(rows[0][1:], f"{path} line 1 (phenotype)")
            rows = rows[1:]
        names = [r[0].strip() for r in rows]
        widths = {len(r) for r in rows}
        if len(widths) != 1:
            raise ValueError(f"{path}: SNP rows have different numbers of fields {sorted(widths)}")
        g = np.array([_parse_ints(r[1:], f"{path} SNP {r[0]}") for r in rows], dtype=np.int16)
    else:
        header = [h.strip() for h in rows[0]]
        body = rows[1:]
        lower = [h.lower() for h in header]
        if phenotype is None:
            col = next((i for i, h in enumerate(lower) if h in _CASE_NAMES), len(header) - 1)
        else:
            col = None
        widths = {len(r) for r in body}
        if widths != {len(header)}:
            raise ValueError(f"{path}: rows have {sorted(widths)} fields, the header "
                             f"{len(header)}")
        table = np.array([_parse_ints(r, f"{path} line {i + 2}") for i, r in enumerate(body)],
                         dtype=np.int16)
        keep = [i for i in range(len(header)) if i != col]
        g = table[:, keep].T
        pheno = table[:, col] if col is not None else None
        names = [header[i] for i in keep]
        if len(set(names)) != len(names):
            names = [f"snp{i}" for i in range(len(names))]
    if phenotype is not None:
        pheno = np.asarray(phenotype)
    if pheno is None:
        raise ValueError(f"{path}: no phenotype in the file; pass phenotype=")
    return Genotypes(np.asarray(g, dtype=np.int16).astype(np.int8, copy=False),
                     np.asarray(pheno, dtype=np.int16).astype(np.int8), names)


def _parse_ints(fields, where):
    out = []
    for f in fields:
        f = f.strip()
        if f in ("", "NA", "na", "NaN", "nan", "-1", "."):
            out.append(-1)
            continue
        try:
            out.append(int(float(f)))
        except ValueError:
            raise ValueError(f"{where}: {f!r} is not a genotype (0, 1, 2 or missing)") from None
    return out
