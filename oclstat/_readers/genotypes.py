"""Genotype readers for the epistasis search: PLINK 1 binary files and 0/1/2 tables.

Every reader returns :class:`Genotypes`: ``genotypes`` (n_snps x n_samples, int8, 0/1/2 =
count of one allele, -1 = missing), ``phenotype`` (int8 per sample: 1 case, 0 control, -1
missing; or, where the file holds a quantitative trait as PLINK 1.9 reads one, float64 with
NaN missing and ``phenotype_kind`` "quantitative"), ``snp_names``, and the samples as PLINK
identifies them (``family_ids`` and ``sample_ids``: FID and IID).

**Missing data policy.** A missing genotype removes that sample from the contingency tables of
every combination containing that SNP (and only those); a missing phenotype removes the sample
from the search. Both are documented in :func:`oclstat.epistasis`.

>>> import io
>>> g = read_genotype_table(io.StringIO("VarSam,1,0,1\\nrs1,0,1,2\\nrs2,2,2,0\\n"))
>>> g.genotypes.tolist(), g.phenotype.tolist(), g.snp_names
([[0, 1, 2], [2, 2, 0]], [1, 0, 1], ['rs1', 'rs2'])
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

import numpy as np

from . import bed
from .bed import BedMatrix
from .inference import Inference, ReadInfo
from .plink import fam_phenotype, sample_keys
from .tables import read_table
from .text import open_text

__all__ = ["Genotypes", "read_plink", "read_pgen", "read_vcf", "read_tped",
           "read_genotype_table", "PHENOTYPE_NAMES"]

#: Names that mark the phenotype's row or column in a genotype table (any case), besides
#: BitEpi's ``VarSam`` row.
PHENOTYPE_NAMES = frozenset({"class", "y", "phenotype", "pheno", "status", "label",
                             "disease", "case", "case_control", "casecontrol", "affection",
                             "affected", "outcome", "trait", "target"})


@dataclass(repr=False)
class Genotypes:
    """Genotypes (n_snps x n_samples, int8; -1 missing), phenotype (1/0/-1, or a quantitative
    trait with NaN missing: ``phenotype_kind``), SNP names, the samples' IIDs and FIDs, and
    where they came from a .bim file their chromosomes and base-pair positions."""

    genotypes: np.ndarray
    phenotype: np.ndarray
    snp_names: list
    sample_ids: list | None = None
    chromosomes: list | None = None
    positions: np.ndarray | None = None
    input: ReadInfo | None = None
    family_ids: list | None = None
    phenotype_kind: str = "case-control"

    @property
    def sample_keys(self) -> list | None:
        """PLINK's identity of each sample: (FID, IID) where the data has family IDs, else the
        IID (None without sample IDs)."""
        if self.sample_ids is None:
            return None
        return sample_keys(self.sample_ids, self.family_ids)

    def subset(self, *, snps=None, exclude_snps=None, samples=None,
               exclude_samples=None) -> Genotypes:
        """The genotypes of some SNPs and samples, by name (PLINK's ``--extract`` /
        ``--exclude`` SNP lists and ``--keep`` / ``--remove`` sample lists), in file order;
        names not in the data are ignored, as PLINK ignores them, and counted in ``input``.
        A sample is an IID or an (FID, IID) pair; pairs match FID and IID where the data has
        family IDs."""
        keep_snp = np.ones(len(self.snp_names), dtype=bool)
        notes = []
        if snps is not None:
            wanted = set(map(str, snps))
            keep_snp &= np.array([n in wanted for n in self.snp_names], dtype=bool)
            notes.append(f"--extract: {int(keep_snp.sum()):,} of {len(wanted):,} listed SNPs "
                         "found")
        if exclude_snps is not None:
            drop = set(map(str, exclude_snps))
            keep_snp &= np.array([n not in drop for n in self.snp_names], dtype=bool)
            notes.append(f"--exclude: {len(drop):,} SNPs listed")
        ids = self.sample_ids or [str(i) for i in range(self.genotypes.shape[1])]
        fids = self.family_ids
        keep_s = np.ones(len(ids), dtype=bool)
        if samples is not None:
            keep_s &= self._listed(samples, ids, fids)
            notes.append(f"--keep: {int(keep_s.sum()):,} samples kept")
        if exclude_samples is not None:
            keep_s &= ~self._listed(exclude_samples, ids, fids)
            notes.append(f"--remove: {len(list(exclude_samples)):,} samples listed")
        sn = np.flatnonzero(keep_snp)
        sa = np.flatnonzero(keep_s)
        info = self.input.with_notes(*notes) if self.input is not None and notes else \
            self.input
        g = (self.genotypes.take(sn, sa) if isinstance(self.genotypes, BedMatrix)
             else self.genotypes[np.ix_(sn, sa)])
        return Genotypes(g, np.asarray(self.phenotype)[sa],
                         [self.snp_names[i] for i in sn],
                         None if self.sample_ids is None else [ids[i] for i in sa],
                         None if self.chromosomes is None else
                         [self.chromosomes[i] for i in sn],
                         None if self.positions is None else np.asarray(self.positions)[sn],
                         input=info,
                         family_ids=None if fids is None else [fids[i] for i in sa],
                         phenotype_kind=self.phenotype_kind)

    @staticmethod
    def _listed(listed, ids, fids) -> np.ndarray:
        """Which samples a --keep / --remove list names: (FID, IID) pairs match both where
        the data has FIDs (the IID alone where it has none), plain IDs match the IID."""
        pairs = {tuple(map(str, x)) for x in listed if isinstance(x, tuple)}
        plain = {str(x) for x in listed if not isinstance(x, tuple)}
        pair_iids = {iid for _, iid in pairs}
        out = np.zeros(len(ids), dtype=bool)
        for k, iid in enumerate(ids):
            key = (str(fids[k]), str(iid)) if fids is not None else None
            out[k] = str(iid) in plain or (key in pairs if key is not None
                                           else str(iid) in pair_iids)
        return out

    def __repr__(self) -> str:
        g, y = self.genotypes, np.asarray(self.phenotype)
        if isinstance(g, BedMatrix):
            missing = "genotypes read from the .bed on demand"
        else:
            missing = f"{float((g < 0).mean()) if g.size else 0.0:.2%} missing genotypes"
        if self.phenotype_kind == "quantitative":
            pheno = f"a quantitative trait of {int(np.isfinite(y).sum()):,} samples"
        else:
            pheno = f"{int((y == 1).sum()):,} cases, {int((y == 0).sum()):,} controls"
        return (f"Genotypes({g.shape[0]:,} SNPs x {g.shape[1]:,} samples, {pheno}, "
                f"{missing}"
                + (", with chromosomes and positions" if self.chromosomes is not None else "")
                + ")")


#: read_plink decodes a .bed into memory up to this many genotypes (128 MB of int8) by default.
IN_MEMORY_GENOTYPES = 1 << 27


def read_plink(prefix, *, one_coded: bool = False, in_memory=None) -> Genotypes:
    """Read PLINK 1 binary ``PREFIX.bed/.bim/.fam`` (SNP-major).

    Parameters
    ----------
    prefix : str or path
        The common prefix of the three files.
    one_coded : bool, optional
        The .fam phenotype is 0 control / 1 case (PLINK's ``--1``), not 1 / 2.
    in_memory : bool or None, optional
        True: decode the whole .bed into an int8 matrix. False: leave it on disk, read a block
        of SNPs at a time by bed-reader when used (:class:`~oclstat._readers.bed.BedMatrix`;
        the pair scans then never hold the decoded matrix). None (default): in memory up to
        2^27 genotypes (128 MB), on disk above where bed-reader is installed.

    Returns
    -------
    Genotypes
        ``genotypes`` (SNPs x samples, int8: copies of the .bim A1 allele, -1 missing; or a
        ``BedMatrix`` read on demand), ``phenotype`` (1 case, 0 control, -1 missing),
        ``snp_names`` and ``sample_ids``.

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
    with open(prefix + ".bed", "rb") as fh:
        head = np.frombuffer(fh.read(3), dtype=np.uint8)
    if head.size < 3 or head[0] != 0x6C or head[1] != 0x1B:
        raise ValueError(f"{prefix}.bed is not a PLINK 1 .bed file (bad magic number)")
    if head[2] != 1:
        raise ValueError(f"{prefix}.bed is sample-major (mode 0); only SNP-major is supported")
    per_snp = -(-n // 4)
    data_bytes = os.path.getsize(prefix + ".bed") - 3
    if data_bytes != m * per_snp:
        raise ValueError(f"{prefix}.bed has {data_bytes} data bytes; {m} SNPs x {n} samples "
                         f"need {m * per_snp}")
    if in_memory is None:
        in_memory = m * n <= IN_MEMORY_GENOTYPES or importlib.util.find_spec("bed_reader") is None
    if in_memory:
        codes = np.fromfile(prefix + ".bed", dtype=np.uint8, offset=3).reshape(m, per_snp)
        lookup = np.array([2, -1, 1, 0], dtype=np.int8)   # 00, 01, 10, 11
        genotypes = np.empty((m, n), dtype=np.int8)
        for a in range(0, m, bed.BLOCK_SNPS):             # a block at a time: no 4x copies
            c = codes[a:a + bed.BLOCK_SNPS]
            two_bit = np.stack([(c >> (2 * k)) & 3 for k in range(4)], axis=2)
            genotypes[a:a + bed.BLOCK_SNPS] = lookup[two_bit.reshape(len(c), -1)[:, :n]]
    else:
        genotypes = BedMatrix(prefix + ".bed", m, n)
    phenotype, kind = fam_phenotype([f[5] for f in fam], f"{prefix}.fam", one_coded)
    if kind == "case-control" and not one_coded and not (phenotype == 1).any() and \
            {f[5] for f in fam} <= {"0", "1"} and any(f[5] == "0" for f in fam) and \
            any(f[5] == "1" for f in fam):
        status_note = ("the .fam phenotypes are 0/1: PLINK reads 0 as missing and 1 as "
                       "control (none is a case); --1 (one_coded=True) reads 0 control, 1 case")
    else:
        status_note = None
    try:
        positions = np.array([int(b[3]) for b in bim], dtype=np.int64)
    except ValueError:
        raise ValueError(f"{prefix}.bim: column 4 (base-pair position) must be integers") \
            from None
    info = ReadInfo(prefix, "PLINK 1 binary genotypes (SNPs x samples)", genotypes.shape,
                    (_phenotype_inference(".fam column 6", kind, one_coded),),
                    (_phenotype_counts(phenotype, kind), *([status_note] if status_note else [])))
    return Genotypes(genotypes, phenotype, [b[1] for b in bim], [f[1] for f in fam],
                     [b[0] for b in bim], positions, input=info, family_ids=[f[0] for f in fam],
                     phenotype_kind=kind)


def _phenotype_inference(where: str, kind: str, one_coded: bool) -> Inference:
    if kind == "quantitative":
        return Inference(f"phenotype: {where}", "quantitative (a value other than 0, 1, 2; "
                         "-9 missing), as PLINK 1.9 reads it", None)
    coding = "1 case, 0 control (--1)" if one_coded else "2 case, 1 control, else missing"
    return Inference(f"phenotype: {where}", coding,
                     None if one_coded else "--1 (one_coded=True)")


def _phenotype_counts(phenotype, kind: str) -> str:
    if kind == "quantitative":
        ok = int(np.isfinite(phenotype).sum())
        return f"quantitative trait: {ok:,} values, {phenotype.size - ok:,} missing"
    return (f"{int((phenotype == 1).sum()):,} cases, {int((phenotype == 0).sum()):,} "
            f"controls, {int((phenotype < 0).sum()):,} missing")


def _from_format(what, source, g, names, chrs, pos, samples, status, one_coded, notes=(),
                 family_ids=None, ids_note=None):
    if status is not None:
        phenotype, kind = fam_phenotype(status, str(source), one_coded)
    else:
        phenotype, kind = np.full(len(samples), -1, np.int8), "case-control"
    inferences = [Inference("genotypes: copies of the ALT (A1) allele", "",
                            "keep_allele_order=False makes A1 the minor allele, as PLINK")]
    if status is not None:
        inferences.append(_phenotype_inference("the file's phenotype column", kind, one_coded))
    if ids_note is not None:
        inferences.append(ids_note)
    info = ReadInfo(str(source), what, g.shape, tuple(inferences),
                    (_phenotype_counts(phenotype, kind), *notes))
    return Genotypes(g, phenotype, list(map(str, names)), list(map(str, samples)),
                     list(map(str, chrs)), np.asarray(pos), input=info,
                     family_ids=None if family_ids is None else list(map(str, family_ids)),
                     phenotype_kind=kind)


def read_vcf(path, *, id_delim=None, double_id: bool = False, const_fid=None) -> Genotypes:
    """Read a VCF or BCF file (gzip or bgzip; through cyvcf2).

    Parameters
    ----------
    path : str or path
        The ``.vcf``, ``.vcf.gz`` or ``.bcf`` file.
    id_delim : str, optional
        Sample names are FID, this character, IID (PLINK's ``--id-delim``; every name must
        hold it once). By default, as PLINK 1.9: a name with one '_' is split there (what
        ``plink --recode vcf`` writes), a name with none is both FID and IID, more than one is
        an error.
    double_id : bool, optional
        FID = IID = the name (PLINK's ``--double-id``).
    const_fid : str, optional
        Every FID this value (PLINK's ``--const-fid``, "0" there by default), IID = the name.

    Returns
    -------
    Genotypes
        ALT allele counts of the bi-allelic records (others are skipped and counted in
        ``input``); no phenotype (all missing: give one with ``--pheno`` / ``phenotype=``).

    See Also
    --------
    read_plink, read_pgen, read_tped : PLINK's formats.

    Notes
    -----
    PLINK imports a VCF's ALT allele as A1 and REF as A2; the pair scan then makes A1 the
    minor allele, as PLINK 1.9 does.

    References
    ----------
    .. [1] Danecek, P. et al. (2011). The variant call format and VCFtools. Bioinformatics
           27(15), 2156-2158.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "x.vcf")
    >>> head = "\\t".join(["#CHROM", "POS", "ID", "REF", "ALT", "QUAL", "FILTER", "INFO",
    ...                      "FORMAT", "a", "b"])
    >>> row = "\\t".join(["1", "5", "rs1", "A", "G", ".", ".", ".", "GT", "0/1", "1/1"])
    >>> _ = open(p, "w").write(f"##fileformat=VCFv4.2\\n{head}\\n{row}\\n")
    >>> read_vcf(p).genotypes.tolist()
    [[1, 2]]
    """
    from .plink import vcf_arrays as run
    from .plink import vcf_sample_ids

    g, names, chrs, pos, samples, skipped = run(path)
    fids, iids = vcf_sample_ids(samples, id_delim=id_delim, double_id=double_id,
                                const_fid=const_fid)
    rule = ("--double-id: FID = IID = the name" if double_id else
            f"--const-fid: FID {const_fid}, IID the name" if const_fid is not None else
            f"--id-delim {id_delim!r}: FID{id_delim}IID" if id_delim else
            "FID_IID where a name holds one '_', else FID = IID = the name (PLINK 1.9)")
    ids_note = Inference("sample IDs", rule, "--double-id, --const-fid or --id-delim")
    notes = (f"{skipped:,} records with more than one ALT allele skipped",) if skipped else ()
    return _from_format("VCF genotypes (variants x samples)", path, g, names, chrs, pos,
                        iids, None, False, notes, family_ids=fids, ids_note=ids_note)


def read_pgen(prefix, *, one_coded: bool = False) -> Genotypes:
    """Read PLINK 2 ``PREFIX.pgen/.pvar/.psam`` (through pgenlib).

    Parameters
    ----------
    prefix : str or path
        The common prefix of the three files.
    one_coded : bool, optional
        The .psam PHENO1 column is 0 control / 1 case (PLINK's ``--1``), not 1 / 2.

    Returns
    -------
    Genotypes
        ALT allele counts (-1 missing), the .psam PHENO1 phenotype if there is one.

    See Also
    --------
    read_plink : PLINK 1 binary files.

    Notes
    -----
    Hard calls only (dosages are rounded by pgenlib as PLINK 2 exports them).

    References
    ----------
    .. [1] Chang, C. C. et al. (2015). Second-generation PLINK: rising to the challenge of
           larger and richer datasets. GigaScience 4, 7.

    Examples
    --------
    >>> read_pgen  # doctest: +ELLIPSIS
    <function read_pgen at ...>
    """
    from .plink import pgen_arrays as run

    g, names, chrs, pos, samples, status, fids = run(str(prefix))
    return _from_format("PLINK 2 genotypes (variants x samples)", prefix, g, names, chrs, pos,
                        samples, status, one_coded, family_ids=fids)


def read_tped(prefix, *, one_coded: bool = False) -> Genotypes:
    """Read PLINK 1 transposed text ``PREFIX.tped/.tfam`` (Fiuncho's and MPI3SNP's input).

    Parameters
    ----------
    prefix : str or path
        The common prefix of the two files.
    one_coded : bool, optional
        The .tfam phenotype is 0 control / 1 case (PLINK's ``--1``).

    Returns
    -------
    Genotypes
        Counts of each SNP's first allele seen (-1 where an allele is 0, missing) and the
        .tfam phenotype.

    See Also
    --------
    read_plink : the binary form.

    Notes
    -----
    The pair scan makes the minor allele A1, as PLINK 1.9 does after reading a TPED.

    References
    ----------
    .. [1] Purcell, S. et al. (2007). PLINK: a tool set for whole-genome association and
           population-based linkage analyses. American Journal of Human Genetics 81(3),
           559-575.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "x")
    >>> _ = open(p + ".tfam", "w").write("f a 0 0 1 2\\nf b 0 0 1 1\\n")
    >>> _ = open(p + ".tped", "w").write("1 rs1 0 5 A A A G\\n")
    >>> g = read_tped(p); g.genotypes.tolist(), g.phenotype.tolist()
    ([[2, 1]], [1, 0])
    """
    from .plink import tped_arrays as run

    g, names, chrs, pos, samples, status, fids = run(str(prefix))
    return _from_format("PLINK transposed text genotypes (SNPs x samples)", prefix, g, names,
                        chrs, pos, samples, status, one_coded, family_ids=fids)


def _named_phenotype(names, wanted) -> list[int]:
    """Positions of ``names`` that name the phenotype: ``wanted`` exactly, or (None) one of
    the names tools use for it."""
    if names is None:
        return []
    if wanted is not None:
        return [i for i, n in enumerate(names) if n.strip() == wanted]
    return [i for i, n in enumerate(names) if n.strip().lower() in PHENOTYPE_NAMES]


def read_genotype_table(path, *, layout: str = "auto", phenotype=None, phenotype_name=None,
                        header="auto", row_names="auto") -> Genotypes:
    """Read 0/1/2 genotypes from CSV/TSV (gzip too, by content).

    Parameters
    ----------
    path : str or path
        The table.
    layout : {"auto", "snp-major", "sample-major"}, optional
        "snp-major": one row per SNP (its name first), the phenotype in a row;
        "sample-major": one row per sample, the phenotype in a column. "auto": the
        orientation in which the phenotype is named (or, with ``phenotype=``, the one its
        length fits); refused when both or neither would do.
    phenotype : array_like, optional
        The phenotype (one value per sample) instead of a row or column of the table.
    phenotype_name : str, optional
        The row (snp-major) or column (sample-major) that holds the phenotype. Default: the
        one named ``VarSam`` (BitEpi) or, case-insensitively, one of
        :data:`PHENOTYPE_NAMES` (class, y, phenotype, pheno, status, label, disease, ...);
        a table that names none is refused, never guessed.
    header, row_names : bool or "auto", optional
        As :func:`oclstat.io.read_table` (the layout is worked out from the content and refused
        when ambiguous).

    Returns
    -------
    Genotypes
        SNPs x samples (int8, -1 missing), phenotype, SNP names (snp0, snp1, ... without a
        header), and ``input``: what was read and every decision taken.

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
    >>> print(g.input.summary())  # doctest: +ELLIPSIS
    <stream>: 1 x 3 genotype table (SNPs x samples); ...; phenotype: row 'VarSam' (snp-major) (...)
    """
    if layout not in ("auto", "snp-major", "sample-major"):
        raise ValueError(f"layout must be 'auto', 'snp-major' or 'sample-major', got {layout!r}")
    table = read_table(path, header=header, row_names=row_names, what="genotype table",
                       index_like_data=True)
    where = table.source
    values = np.where(np.isnan(table.values), -1, table.values)
    rows, cols = table.row_names, table.col_names
    how = "as asked" if layout != "auto" else None
    if phenotype is not None:
        pheno = np.asarray(phenotype)
        if pheno.ndim != 1:
            raise ValueError(f"phenotype must be one value per sample, got shape {pheno.shape}")
        if layout == "auto":
            fits = [lay for lay, n in (("sample-major", values.shape[0]),
                                       ("snp-major", values.shape[1])) if n == len(pheno)]
            if len(fits) != 1:
                raise ValueError(
                    f"{where}: the table is {values.shape[0]} x {values.shape[1]} and the "
                    f"phenotype has {len(pheno)} values: "
                    + ("either orientation fits" if fits else "neither orientation fits")
                    + "; say which with layout='snp-major' or layout='sample-major'")
            layout, how = fits[0], f"the phenotype's {len(pheno)} values fit this way only"
        found = ("given", None)
    else:
        by_row = _named_phenotype(rows, phenotype_name) or (
            [i for i, r in enumerate(rows or []) if r.strip().lower() == "varsam"]
            if phenotype_name is None else [])
        by_col = _named_phenotype(cols, phenotype_name)
        if layout == "snp-major":
            by_col = []
        elif layout == "sample-major":
            by_row = []
        what = repr(phenotype_name) if phenotype_name else "VarSam, " + ", ".join(
            sorted(PHENOTYPE_NAMES)[:6]) + ", ..."
        if by_row and by_col:
            raise ValueError(f"{where}: a row and a column are both named as the phenotype "
                             f"({rows[by_row[0]]!r}, {cols[by_col[0]]!r}); say which with "
                             "layout='snp-major' or layout='sample-major'")
        hits = by_row or by_col
        if not hits:
            place = {"auto": "row or column", "snp-major": "row", "sample-major": "column"}
            raise ValueError(
                f"{where}: no {place[layout]} is named as the phenotype ({what}); name it with "
                "phenotype_name=, or give the phenotype with phenotype= (and layout= if the "
                "table could be read either way)")
        if len(hits) > 1:
            names = rows if by_row else cols
            raise ValueError(f"{where}: {len(hits)} {'rows' if by_row else 'columns'} could be "
                             f"the phenotype ({', '.join(repr(names[i]) for i in hits[:4])}); "
                             "say which with phenotype_name=")
        layout = "snp-major" if by_row else "sample-major"
        found = ("row" if by_row else "column", hits[0])
        how = how or ("named as asked" if phenotype_name else "its name")
        pheno = values[hits[0]] if by_row else values[:, hits[0]]
    if layout == "snp-major":
        keep = [i for i in range(len(values)) if found[0] != "row" or i != found[1]]
        g = values[keep]
        names = [rows[i] for i in keep] if rows else [f"snp{i}" for i in range(len(g))]
        samples = cols
    else:
        keep = [i for i in range(values.shape[1]) if found[0] != "column" or i != found[1]]
        g = values[:, keep].T
        names = [cols[i] for i in keep] if cols else [f"snp{i}" for i in range(len(keep))]
        samples = rows
    notes = []
    if len(set(names)) == 1 and len(names) > 1:    # a placeholder (hiperbio's X,X,...,Y)
        notes.append(f"SNP names all {names[0]!r}: named snp0, snp1, ...")
        names = [f"snp{i}" for i in range(len(names))]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{where}: SNP name {dup!r} appears twice")
    bad = ~np.isin(g, (-1, 0, 1, 2))
    if bad.any():
        s_, n_ = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(f"{where}: SNP {names[s_]!r}, sample {n_ + 1} is {g[s_, n_]:g}, not a "
                         "genotype (0, 1, 2 or missing)")
    pheno = np.asarray(pheno, dtype=np.float64)
    if not np.isin(pheno, (-1, 0, 1)).all():
        bad_v = pheno[~np.isin(pheno, (-1, 0, 1))][0]
        raise ValueError(f"{where}: phenotype value {bad_v:g} is not 1 (case), 0 (control) or "
                         "missing (-1)")
    if found[0] == "given":
        reading = f"phenotype given ({layout})"
    else:
        label = (rows if found[0] == "row" else cols)[found[1]]
        reading = f"phenotype: {found[0]} {label!r} ({layout})"
    other = None if phenotype_name or phenotype is not None else "phenotype_name="
    inference = Inference(reading, how, other)
    shape = g.shape
    base = table.input
    info = ReadInfo(where, "genotype table (SNPs x samples)", shape,
                    (*base.inferences, inference), tuple(notes))
    return Genotypes(g.astype(np.int8), pheno.astype(np.int8), names,
                     list(samples) if samples else None, input=info)
