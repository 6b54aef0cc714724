"""``oclstat epistasis``: exhaustive 2-, 3- or 4-way epistasis search."""

from __future__ import annotations

import argparse
import time

from ._common import (
    device_of,
    layout_flags,
    note,
    read_line,
    scheduler_client,
    scheduler_flag,
    show_top,
    si,
)
from ._outputs import output

NAME = "epistasis"
HELP = ("exhaustive 2-, 3- or 4-way epistasis search (K2 or mutual information), or a scan of "
        "every pair with PLINK's tests")
OUTPUTS = (("out", "--out", False), ("epi_cc", "--epi-cc", False))


def add_arguments(p) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--bfile", help="PLINK 1 binary prefix (PREFIX.bed/.bim/.fam)")
    src.add_argument("--pfile", help="PLINK 2 binary prefix (PREFIX.pgen/.pvar/.psam)")
    src.add_argument("--vcf", help="VCF (.vcf, .vcf.gz; ALT counts; phenotype from --pheno)")
    src.add_argument("--bcf", help="BCF (as --vcf)")
    src.add_argument("--tfile", help="PLINK transposed text prefix (PREFIX.tped/.tfam)")
    src.add_argument("--csv", help="0/1/2 genotype table (CSV/TSV, .gz ok)")
    plink = p.add_argument_group("PLINK's inputs and tests")
    plink.add_argument("--test", default=None,
                       choices=["k2", "mi", "fast", "joint-effects", "boost", "logistic",
                                "linear"],
                       help="k2 (default) or mi: the --top best combinations of --order SNPs; "
                            "PLINK 1.9's pair tests, every pair with p < --epi1: fast "
                            "(--fast-epistasis, Ueki-Cordell), joint-effects, boost "
                            "(--fast-epistasis boost), logistic and linear (--epistasis; "
                            "linear for a quantitative trait)")
    plink.add_argument("--epi1", type=float, default=None,
                       help="report pairs with p below this (PLINK's default 1e-4; boost "
                            "5e-6)")
    plink.add_argument("--epi2", type=float, default=0.01,
                       help="the .summary counts, per SNP, partners with p below this (0.01)")
    plink.add_argument("--id-delim", metavar="CHAR", default=None,
                       help="--vcf/--bcf: sample names are FID<CHAR>IID (PLINK's --id-delim; by "
                            "default, as PLINK 1.9, a name with one '_' is split there and one "
                            "with none is both FID and IID)")
    plink.add_argument("--double-id", action="store_true",
                       help="--vcf/--bcf: FID = IID = the sample name (PLINK's --double-id)")
    plink.add_argument("--const-fid", metavar="FID", nargs="?", const="0", default=None,
                       help="--vcf/--bcf: every FID this value (0 if none given), IID the "
                            "sample name (PLINK's --const-fid)")
    plink.add_argument("--pheno", metavar="FILE",
                       help="phenotype file: FID IID value(s), header line optional; samples "
                            "match by FID and IID, as in PLINK")
    plink.add_argument("--pheno-name", metavar="NAME",
                       help="the --pheno column (a header name or a 1-based number)")
    plink.add_argument("--covar", metavar="FILE",
                       help="covariates (FID IID values; --test logistic or linear)")
    plink.add_argument("--covar-name", metavar="NAMES",
                       help="comma-separated --covar columns (default all)")
    plink.add_argument("--extract", metavar="FILE", help="only the SNPs listed")
    plink.add_argument("--exclude", metavar="FILE", help="not the SNPs listed")
    plink.add_argument("--keep", metavar="FILE", help="only the samples listed (FID IID)")
    plink.add_argument("--remove", metavar="FILE", help="not the samples listed (FID IID)")
    plink.add_argument("--1", dest="one_coded", action="store_true",
                       help="case/control coded 0 control, 1 case (PLINK's --1)")
    plink.add_argument("--keep-allele-order", action="store_true",
                       help="count the file's A1 allele, not the minor one (PLINK's flag)")
    plink.add_argument("--je-cellmin", type=int, default=5,
                       help="joint-effects: fewest samples per genotype cell (5)")
    plink.add_argument("--parallel", type=int, nargs=2, metavar=("K", "N"), default=None,
                       help="run job K of N (equal numbers of pairs; files get .K); then "
                            "oclstat epistasis-merge PREFIX N")
    plink.add_argument("--no-resume", dest="resume", action="store_false",
                       help="start over even if a checkpoint of this scan exists (a killed "
                            "run otherwise goes on from its last checkpoint)")
    p.add_argument("--layout", choices=["auto", "snp-major", "sample-major"], default="auto",
                   help="--csv: one row per SNP, a row holding the phenotype (snp-major, "
                        "BitEpi's VarSam), or one row per sample, a column holding it "
                        "(sample-major); auto: the way the phenotype is named")
    p.add_argument("--phenotype-name", default=None, metavar="NAME",
                   help="--csv: the row or column holding the phenotype (default: one named "
                        "VarSam, class, y, phenotype, pheno, status, label, disease, case, "
                        "affection, outcome or trait; a table naming none is refused)")
    layout_flags(p)
    p.add_argument("--order", type=int, default=4, choices=[2, 3, 4, 5],
                   help="SNPs per combination (default 4; 5 needs complete genotypes)")
    p.add_argument("--score", choices=["k2", "mi"], default=None,
                   help="the old name of --test k2 / --test mi")
    p.add_argument("--top", type=int, default=20, help="best combinations kept (default 20)")
    p.add_argument("--backend", choices=["auto", "opencl", "cuda"], default="auto",
                   help="cuda: the tensor-core path (NVIDIA GPUs with CuPy; with --scheduler, each "
                        "worker's GPU); auto: cuda where it can run, else OpenCL")
    p.add_argument("--devices", default=None, help=argparse.SUPPRESS)  # old --device
    p.add_argument("--out", default=None,
                   help="k2, mi: write the hits (TSV) here, - for standard output; PLINK's "
                        "tests: the output prefix, PREFIX.epi.cc (.epi.qt for linear) and "
                        "PREFIX.epi.cc.summary, as PLINK writes them")
    p.add_argument("--epi-cc", default=None, metavar="FILE",
                   help="order 2: also write the hits as PLINK's .epi.cc (CHR1 SNP1 CHR2 SNP2 "
                        "SCORE STAT DF P; STAT is the G statistic, see the README)")
    scheduler_flag(p, "the search")


def write_epi_cc(table, score: str, fh) -> None:
    """The pairs as PLINK's ``--epistasis`` writes them (``.epi.cc``, whitespace-aligned):
    CHR1 SNP1 CHR2 SNP2, then the search score (K2 or MI) where PLINK has OR_INT, and the
    likelihood-ratio G statistic of the 9 x 2 table with its degrees of freedom and p-value
    where PLINK has its 1-df interaction chi-square and P. CHR is 0 without a .bim."""
    import pandas as pd

    chr1 = table["chr1"] if "chr1" in table else pd.Series(["0"] * len(table))
    chr2 = table["chr2"] if "chr2" in table else pd.Series(["0"] * len(table))
    out = pd.DataFrame({"CHR1": list(chr1), "SNP1": list(table["name1"]), "CHR2": list(chr2),
                        "SNP2": list(table["name2"]), score.upper(): list(table[score]),
                        "STAT": list(table["G"]), "DF": list(table["df"]),
                        "P": list(table["p"])})
    fh.write(out.to_string(index=False, float_format=lambda v: f"{v:.6g}") + "\n")


def _data(args):
    """The genotypes of the chosen input, with PLINK's side files applied."""
    from .. import genotypes as gt
    from .._readers.plink import read_covar, read_pheno, read_sample_list, read_snp_list

    if not (args.vcf or args.bcf):
        for flag, value in (("--id-delim", args.id_delim), ("--double-id", args.double_id),
                            ("--const-fid", args.const_fid)):
            if value:
                raise ValueError(f"{flag} sets the samples' IDs of a --vcf or --bcf file")
    if args.bfile:
        data = gt.read_plink(args.bfile, one_coded=args.one_coded)
    elif args.pfile:
        data = gt.read_pgen(args.pfile, one_coded=args.one_coded)
    elif args.vcf or args.bcf:
        data = gt.read_vcf(args.vcf or args.bcf, id_delim=args.id_delim,
                           double_id=args.double_id, const_fid=args.const_fid)
    elif args.tfile:
        data = gt.read_tped(args.tfile, one_coded=args.one_coded)
    else:
        data = gt.read_genotype_table(args.csv, layout=args.layout,
                                      phenotype_name=args.phenotype_name, header=args.header,
                                      row_names=args.row_names)
    lists = {k: read_snp_list(getattr(args, k)) if getattr(args, k) else None
             for k in ("extract", "exclude")}
    samples = {k: read_sample_list(getattr(args, k)) if getattr(args, k) else None
               for k in ("keep", "remove")}
    if any(v is not None for v in (*lists.values(), *samples.values())):
        data = data.subset(snps=lists["extract"], exclude_snps=lists["exclude"],
                           samples=samples["keep"], exclude_samples=samples["remove"])
    phenotype, kind = None, data.phenotype_kind
    if args.pheno:
        ids = data.sample_ids or []
        phenotype, kind = read_pheno(args.pheno, ids, family_ids=data.family_ids,
                                     name=args.pheno_name, one_coded=args.one_coded)
    elif args.pheno_name:
        raise ValueError("--pheno-name needs --pheno FILE")
    covariates = None
    if args.covar:
        names = args.covar_name.split(",") if args.covar_name else None
        covariates, _ = read_covar(args.covar, data.sample_ids or [],
                                   family_ids=data.family_ids, names=names)
    elif args.covar_name:
        raise ValueError("--covar-name needs --covar FILE")
    return data, phenotype, kind, covariates


def run(args) -> int:
    from .._epistasis import epistasis

    test = args.test or args.score or "k2"
    if args.test and args.score and args.test != args.score:
        raise ValueError(f"--score {args.score} and --test {args.test} disagree; --test only")
    plink = test not in ("k2", "mi")
    if args.epi_cc and args.order != 2:
        raise ValueError(f"--epi-cc writes pairs (PLINK's .epi.cc): it needs --order 2, not "
                         f"{args.order}")
    if not plink:
        for flag, value in (("--epi1", args.epi1), ("--covar", args.covar),
                            ("--parallel", args.parallel)):
            if value is not None:
                raise ValueError(f"{flag} is for PLINK's tests (--test fast, joint-effects, "
                                 f"logistic, linear), not --test {test}")
    elif args.epi_cc:
        raise ValueError("--epi-cc is for --test k2 / mi; PLINK's tests write PREFIX.epi.cc "
                         "with --out PREFIX")
    data, phenotype, kind, covariates = _data(args)
    if kind == "quantitative" and test != "linear":
        where = "--pheno" if args.pheno else "the genotype files' phenotype column"
        raise ValueError(f"{where} holds a quantitative trait (as PLINK 1.9 reads it): use "
                         f"--test linear, not --test {test}")
    if args.devices and not args.device:
        note("oclstat epistasis: --devices is now --device (the old name goes in the next "
             "release)")
        args.device = args.devices
    device = device_of(args, several=True)
    t0 = time.perf_counter()
    if plink:
        if args.parallel and args.out is None:
            raise ValueError("--parallel needs --out PREFIX (each job writes its own files)")
        res = epistasis(data, phenotype, order=2, test=test, epi1=args.epi1, epi2=args.epi2,
                        covariates=covariates, cellmin=args.je_cellmin,
                        keep_allele_order=args.keep_allele_order,
                        out=None if args.out == "-" else args.out,
                        job=tuple(args.parallel) if args.parallel else (1, 1),
                        resume=args.resume, device=device, progress=None)
        elapsed = time.perf_counter() - t0
        if res.table is not None:
            show_top(args, res.table, "pairs below --epi1, in PLINK's order")
        rate = res.n_tests / max(elapsed, 1e-9)
        note(read_line(data.input),
             f"{res.n_snps:,} SNPs x {res.n_samples:,} samples, test {test}: {res.n_tests:,} "
             f"pairs tested ({res.n_failed:,} failed), {res.n_hits:,} with p < {res.epi1:g}"
             + (f"; job {res.job[0]} of {res.job[1]}" if res.job[1] > 1 else "")
             + (f"; wrote {', '.join(res.files)}" if res.files else "")
             + f"; {res.device}, {elapsed:.2f} s ({si(rate)} pairs/s)")
        return 0
    client = scheduler_client(args.scheduler)
    try:
        res = epistasis(data, phenotype, order=args.order, test=test, top=args.top,
                        device=None if client else device, client=client,
                        backend=args.backend, progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    with output(args.out, "--out") as fh:
        if fh is not None:
            res.table.to_csv(fh, sep="\t", index=False)
    with output(args.epi_cc, "--epi-cc") as fh:
        if fh is not None:
            write_epi_cc(res.table, test, fh)
    show_top(args, res.table, "combinations, best first")
    n = res.combinations
    rate = n / max(elapsed, 1e-9)
    note(read_line(data.input),
         f"{data.genotypes.shape[0]:,} SNPs x {data.genotypes.shape[1]:,} samples, order "
         f"{args.order}: {n:,} combinations in {elapsed:.2f} s ({si(rate)} combinations/s, "
         f"{si(rate * data.genotypes.shape[1])} combination-samples/s)")
    return 0
