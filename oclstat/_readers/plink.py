"""The genotype formats and side files of PLINK users: VCF/BCF (cyvcf2), PLINK 2 ``.pgen``
(pgenlib), PLINK 1 ``.bed`` read by SNP ranges (bed-reader), TPED/TFAM, and the phenotype,
covariate, sample-list and SNP-list files of ``--pheno``, ``--covar``, ``--keep`` /
``--remove`` and ``--extract`` / ``--exclude``, read as PLINK 1.9 reads them.

Every genotype reader returns SNPs x samples int8 counts of one allele (-1 missing): the .bim
A1 of a .bed, the ALT allele of a VCF or .pgen (PLINK's A1 on import), the first allele seen
of a TPED. PLINK 1.9 then makes A1 the minor allele, and so does the pair scan unless told to
keep the order (:func:`oclstat.epistasis`, ``keep_allele_order``).

>>> import io
>>> read_sample_list(io.StringIO("f1 a\\nf2 b\\n"))
[('f1', 'a'), ('f2', 'b')]
>>> pheno = io.StringIO("FID IID dis\\nf a 2\\nf b 1\\nf c -9\\ng a 1\\n")
>>> read_pheno(pheno, ["a", "b", "c", "a"], family_ids=["f", "f", "f", "g"])[0].tolist()
[1.0, 0.0, nan, 0.0]
"""

from __future__ import annotations

import os

import numpy as np

from .text import open_text

__all__ = ["vcf_arrays", "pgen_arrays", "read_bed_range", "tped_arrays", "read_pheno",
           "read_covar", "read_sample_list", "read_snp_list", "vcf_sample_ids",
           "fam_phenotype", "phenotype_values", "sample_keys"]

_MISSING_TOKENS = {"-9", "NA", "na", "nan", "NaN", ".", ""}


def _need(module: str, package: str, what: str):
    """``module`` imported, or an ImportError naming the function and how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs the {package} package: pip install "
                          f"'oclstat[genomics]' (or pip install {package})") from None


def _rows(source) -> tuple[list[list[str]], str]:
    text, where = open_text(source)
    return [ln.split() for ln in text.splitlines() if ln.strip() and not ln.startswith("##")], \
        where


def read_sample_list(source) -> list:
    """Samples of a ``--keep`` / ``--remove`` file: ``(FID, IID)`` pairs (FID IID per line, as
    PLINK 1.9 reads it), or IIDs alone (one ID per line, or an ``#IID`` header)."""
    rows, where = _rows(source)
    if rows and [c.upper() for c in rows[0][:2]] in (["FID", "IID"], ["#FID", "IID"]):
        rows = rows[1:]
    if rows and rows[0][0].upper() in ("#IID", "IID"):
        rows = rows[1:]
        return [r[0] for r in rows]
    return [(r[0], r[1]) if len(r) >= 2 else r[0] for r in rows]


def read_snp_list(source) -> list[str]:
    """SNP IDs of an ``--extract`` / ``--exclude`` file (the first field of each line)."""
    rows, _ = _rows(source)
    return [r[0] for r in rows]


def _id_table(source, what: str):
    """(header or None, (FID, IID) pairs, value columns, where) of a FID IID v1 v2 ... file."""
    rows, where = _rows(source)
    if not rows:
        raise ValueError(f"{where}: an empty {what} file")
    header = None
    first = [c.upper() for c in rows[0][:2]]
    if first in (["FID", "IID"], ["#FID", "IID"]):
        header, rows = rows[0][2:], rows[1:]
    widths = {len(r) for r in rows}
    if len(widths) != 1 or min(widths) < 3:
        raise ValueError(f"{where}: a {what} file needs FID IID and at least one value on every "
                         f"line (found lines of {sorted(widths)} fields)")
    return header, [(r[0], r[1]) for r in rows], [r[2:] for r in rows], where


def sample_keys(samples, family_ids=None) -> list:
    """PLINK's identity of each sample: ``(FID, IID)`` where the genotypes carry family IDs
    (a .fam, .tfam, a .psam with FID, a VCF's IDs split as PLINK splits them), else the IID."""
    if family_ids is None:
        return [str(s) for s in samples]
    return [(str(f), str(s)) for f, s in zip(family_ids, samples, strict=True)]


def _row_of(ids, keys, where: str, what: str) -> dict:
    """The row of the side file each sample key takes (the last row of a repeated sample, as
    PLINK 1.9 takes it). Files match by FID and IID; genotypes without family IDs match by IID,
    and an IID the file gives under two FIDs is then an error."""
    by_pair = {pair: k for k, pair in enumerate(ids)}
    if keys and isinstance(keys[0], tuple):
        rows = {key: by_pair[key] for key in keys if key in by_pair}
        if not rows:
            sample = ", ".join(" ".join(k) for k in keys[:2])
            listed = ", ".join(" ".join(k) for k in ids[:2])
            raise ValueError(f"{where}: none of the {len(ids):,} samples of this {what} file is "
                             f"in the genotype data (PLINK matches FID and IID: the data has "
                             f"{sample}, ...; the file {listed}, ...)")
        return rows
    by_iid, fids = {}, {}
    for (fid, iid), k in by_pair.items():
        by_iid[iid] = max(k, by_iid.get(iid, -1))
        fids.setdefault(iid, set()).add(fid)
    twice = sorted(i for i, f in fids.items() if len(f) > 1 and i in set(keys))
    if twice:
        raise ValueError(f"{where}: IID {twice[0]!r} appears under {len(fids[twice[0]])} family "
                         f"IDs, and the genotypes carry no family IDs to tell them apart")
    rows = {key: by_iid[key] for key in keys if key in by_iid}
    if not rows:
        raise ValueError(f"{where}: none of the {len(ids):,} samples of this {what} file is in "
                         f"the genotype data (matched by IID: the data has "
                         f"{', '.join(keys[:2])}, ...; the file {ids[0][1]}, ...)")
    return rows


def _column(header, values, name, where, flag):
    n = len(values[0])
    if name is None:
        return 0, (header[0] if header else "1")
    if header and name in header:
        return header.index(name), name
    if str(name).isdigit() and 1 <= int(name) <= n:
        return int(name) - 1, str(name)
    raise ValueError(f"{where}: no column {name!r} ({flag}; columns: "
                     f"{header or list(range(1, n + 1))})")


def phenotype_values(tokens, where: str, *, one_coded: bool = False, labels=None):
    """Phenotype tokens read as PLINK 1.9 reads them: ``(values, kind)``. Missing: -9, NA,
    nan, "." and empty. Case/control when every other value is 0, 1 or 2 (1 control, 2 case, 0
    missing; with ``one_coded``, PLINK's ``--1``: 0 control, 1 case), returned as 0 / 1;
    otherwise a quantitative trait, where 0 is a value."""
    out = np.full(len(tokens), np.nan)
    for k, tok in enumerate(tokens):
        if tok is None or tok in _MISSING_TOKENS:
            continue
        try:
            out[k] = float(tok)
        except ValueError:
            who = f" of sample {labels[k]!r}" if labels is not None else ""
            raise ValueError(f"{where}: phenotype {tok!r}{who} is not a number") from None
    seen = set(np.unique(out[np.isfinite(out)]).tolist())
    if one_coded and seen <= {0.0, 1.0}:
        return out, "case-control"
    if not one_coded and seen <= {0.0, 1.0, 2.0}:
        if seen == {0.0, 1.0}:
            raise ValueError(f"{where}: the phenotype is coded 0/1; PLINK reads 0 as missing "
                             "and 1 as control: pass --1 (one_coded=True) for 0 control, 1 "
                             "case")
        out[out == 0] = np.nan
        return out - 1.0, "case-control"
    return out, "quantitative"


def read_pheno(source, samples, *, family_ids=None, name=None, one_coded: bool = False):
    """A phenotype file (``--pheno``, ``--pheno-name``) matched to the samples as PLINK 1.9
    matches it (FID and IID; IID alone where the genotypes carry no family IDs; the last row
    of a repeated sample): ``(values, kind)`` with NaN for missing (-9, NA, samples not in the
    file) and ``kind`` "case-control" (returned as 0 / 1) or "quantitative"
    (:func:`phenotype_values`). A file that matches no sample is an error."""
    header, ids, values, where = _id_table(source, "phenotype")
    col, _ = _column(header, values, name, where, "--pheno-name")
    keys = sample_keys(samples, family_ids)
    rows = _row_of(ids, keys, where, "phenotype")
    tokens = [values[rows[k]][col] if k in rows else None for k in keys]
    return phenotype_values(tokens, where, one_coded=one_coded, labels=list(map(str, samples)))


def read_covar(source, samples, *, family_ids=None, names=None):
    """Covariates (``--covar``, ``--covar-name``) matched to the samples as :func:`read_pheno`
    matches them: ``(matrix, names)``, NaN for missing values and samples not in the file."""
    header, ids, values, where = _id_table(source, "covariate")
    n = len(values[0])
    cols = list(range(n))
    labels = header or [f"COV{k + 1}" for k in range(n)]
    if names is not None:
        cols = [_column(header, values, nm, where, "--covar-name")[0] for nm in names]
        labels = [labels[c] for c in cols]
    keys = sample_keys(samples, family_ids)
    index = _row_of(ids, keys, where, "covariate")
    out = np.full((len(samples), len(cols)), np.nan)
    for k, (s, key) in enumerate(zip(samples, keys, strict=True)):
        row = index.get(key)
        if row is None:
            continue
        for j, c in enumerate(cols):
            tok = values[row][c]
            if tok not in _MISSING_TOKENS:
                try:
                    out[k, j] = float(tok)
                except ValueError:
                    raise ValueError(f"{where}: covariate {labels[j]!r} of sample {s!r} is "
                                     f"{tok!r}, not a number") from None
    return out, labels


def _fam_like(path) -> tuple[list, list, list]:
    """FIDs, IIDs and phenotype tokens (column 6) of a .fam or .tfam file."""
    rows, where = _rows(path)
    for i, r in enumerate(rows):
        if len(r) < 6:
            raise ValueError(f"{where} line {i + 1}: expected 6 columns, got {len(r)}")
    return [r[0] for r in rows], [r[1] for r in rows], [r[5] for r in rows]


def fam_status(tokens, one_coded: bool = False) -> np.ndarray:
    """.fam phenotypes as case/control: 1 case, 0 control, -1 missing (PLINK: 2 case, 1
    control; with ``--1``: 1 case, 0 control)."""
    t = np.asarray(tokens)
    case, control = ("1", "0") if one_coded else ("2", "1")
    return np.where(t == case, 1, np.where(t == control, 0, -1)).astype(np.int8)


def fam_phenotype(tokens, where: str, one_coded: bool = False) -> tuple[np.ndarray, str]:
    """A .fam's (or .psam's) column 6 as PLINK 1.9 reads it: case/control as int8 (1 case, 0
    control, -1 missing) when every non-missing value is 0, 1 or 2 (with ``--1``: 0 or 1),
    else a quantitative trait as float64 (NaN missing; 0 a value)."""
    toks = [str(t) for t in tokens]
    numeric = all(t in _MISSING_TOKENS or _is_number(t) for t in toks)
    codes = {"0", "1"} if one_coded else {"0", "1", "2"}
    if not numeric or all(t in _MISSING_TOKENS or _as_code(t) in codes for t in toks):
        return fam_status([_as_code(t) for t in toks], one_coded), "case-control"
    values, _ = phenotype_values(toks, where, one_coded=one_coded)
    return values, "quantitative"


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def _as_code(token: str) -> str:
    """"2.0" -> "2": a case/control code written as a float."""
    if _is_number(token) and float(token) in (0.0, 1.0, 2.0):
        return str(int(float(token)))
    return token


def read_bed_range(prefix, snps=None, samples=None) -> np.ndarray:
    """PLINK 1 ``.bed`` genotypes of the SNP indices ``snps`` (default all) and sample
    indices ``samples``, SNPs x samples int8 counts of the .bim A1 (-1 missing), read by
    bed-reader without decoding the rest of the file."""
    open_bed = _need("bed_reader", "bed-reader", "reading .bed ranges").open_bed
    with open_bed(f"{prefix}.bed", count_A1=True, num_threads=1) as bed:
        idx = (slice(None) if samples is None else np.asarray(samples),
               slice(None) if snps is None else np.asarray(snps))
        values = bed.read(index=idx, dtype="int8")
    return np.ascontiguousarray(values.T)


def vcf_sample_ids(names, *, id_delim=None, double_id: bool = False, const_fid=None):
    """PLINK 1.9's (FIDs, IIDs) of VCF sample names: split on ``id_delim`` ('_' by default,
    where a name holds one; a name with none is both FID and IID, more than one is an error),
    or with ``double_id`` FID = IID = the name, or with ``const_fid`` every FID that value.
    ``id_delim`` given explicitly must split every name in two."""
    names = [str(n) for n in names]
    if sum(x is not None and x is not False for x in (id_delim, const_fid)) + double_id > 1:
        raise ValueError("give one of --id-delim, --double-id and --const-fid")
    if double_id:
        return list(names), list(names)
    if const_fid is not None:
        return [str(const_fid)] * len(names), list(names)
    delim = id_delim or "_"
    fids, iids = [], []
    for name in names:
        count = name.count(delim)
        if count == 1:
            fid, iid = name.split(delim)
            fids.append(fid)
            iids.append(iid)
        elif count == 0 and id_delim is None:
            fids.append(name)
            iids.append(name)
        else:
            many = "more than one" if count > 1 else "no"
            raise ValueError(f"VCF sample ID {name!r} has {many} {delim!r}: PLINK 1.9 reads "
                             f"IDs as FID{delim}IID; use --double-id (FID = IID = the ID), "
                             "--const-fid (FID 0) or --id-delim")
    return fids, iids


def vcf_arrays(path):
    """A VCF or BCF (gzip/bgzip ok) through cyvcf2: ``(genotypes, names, chromosomes,
    positions, samples, skipped)``, genotypes counting the ALT allele of bi-allelic records
    (-1 missing), ``samples`` the header's sample names; other records are skipped and
    counted."""
    VCF = _need("cyvcf2", "cyvcf2", "read_vcf").VCF
    vcf = VCF(os.fspath(path), gts012=True, lazy=True, threads=1)
    samples = list(vcf.samples)
    rows, names, chrs, pos = [], [], [], []
    skipped = 0
    for rec in vcf:
        if len(rec.ALT) != 1:
            skipped += 1
            continue
        gt = rec.gt_types.astype(np.int8)          # 0 hom ref, 1 het, 2 hom alt, 3 unknown
        rows.append(np.where(gt == 3, -1, gt).astype(np.int8))
        names.append(rec.ID or f"{rec.CHROM}:{rec.POS}:{rec.REF}:{rec.ALT[0]}")
        chrs.append(str(rec.CHROM))
        pos.append(int(rec.POS))
    vcf.close()
    g = np.vstack(rows) if rows else np.zeros((0, len(samples)), np.int8)
    return g, names, chrs, np.asarray(pos, np.int64), samples, skipped


def pgen_arrays(prefix):
    """PLINK 2 ``.pgen/.pvar/.psam`` through pgenlib: ``(genotypes, names, chromosomes,
    positions, samples, status, family IDs)``, genotypes counting the ALT allele (-1 missing),
    ``status`` the .psam PHENO1 column or None, family IDs its FID column or None."""
    pgenlib = _need("pgenlib", "pgenlib", "read_pgen")
    pvar = [r for r in _rows(f"{prefix}.pvar")[0] if not r[0].startswith("#")]
    psam_rows, where = _rows(f"{prefix}.psam")
    head = [c.lstrip("#").upper() for c in psam_rows[0]]
    body = psam_rows[1:] if psam_rows and psam_rows[0][0].startswith("#") else psam_rows
    iid = head.index("IID") if "IID" in head else 0
    samples = [r[iid] for r in body]
    fids = [r[head.index("FID")] for r in body] if "FID" in head else None
    status = [r[head.index("PHENO1")] for r in body] if "PHENO1" in head else None
    reader = pgenlib.PgenReader(f"{prefix}.pgen".encode())
    m, n = reader.get_variant_ct(), reader.get_raw_sample_ct()
    if m != len(pvar) or n != len(samples):
        raise ValueError(f"{prefix}: the .pgen holds {m} variants x {n} samples, the .pvar and "
                         f".psam list {len(pvar)} and {len(samples)}")
    g = np.empty((m, n), dtype=np.int8)
    if m:
        reader.read_range(0, m, g)
    reader.close()
    g[g < 0] = -1
    return (g, [r[2] for r in pvar], [r[0] for r in pvar],
            np.asarray([int(r[1]) for r in pvar], np.int64), samples, status, fids)


def tped_arrays(prefix):
    """PLINK 1 transposed text ``.tped/.tfam``: ``(genotypes, names, chromosomes, positions,
    samples, status, family IDs)``, genotypes counting each SNP's first allele seen (PLINK's
    A1 before it makes A1 minor; 0 alleles missing)."""
    fids, samples, status = _fam_like(f"{prefix}.tfam")
    rows, where = _rows(f"{prefix}.tped")
    n = len(samples)
    g = np.empty((len(rows), n), dtype=np.int8)
    names, chrs, pos = [], [], []
    for k, r in enumerate(rows):
        if len(r) != 4 + 2 * n:
            raise ValueError(f"{where} line {k + 1}: expected 4 + 2 x {n} fields, got {len(r)}")
        alleles = np.array(r[4:], dtype=object).reshape(n, 2)
        seen = [a for a in dict.fromkeys(alleles.ravel()) if a != "0"]
        if len(seen) > 2:
            raise ValueError(f"{where} line {k + 1}: SNP {r[1]!r} has more than two alleles "
                             f"{seen}")
        a1 = seen[0] if seen else None
        missing = (alleles == "0").any(axis=1)
        g[k] = np.where(missing, -1, (alleles == a1).sum(axis=1)).astype(np.int8)
        chrs.append(r[0])
        names.append(r[1])
        pos.append(int(r[3]))
    return g, names, chrs, np.asarray(pos, np.int64), samples, status, fids
