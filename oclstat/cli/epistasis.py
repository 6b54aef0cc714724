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
HELP = "exhaustive 2-, 3- or 4-way epistasis search (K2 or mutual information)"
OUTPUTS = (("out", "--out", False), ("epi_cc", "--epi-cc", False))


def add_arguments(p) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--bfile", help="PLINK 1 binary prefix (PREFIX.bed/.bim/.fam)")
    src.add_argument("--csv", help="0/1/2 genotype table (CSV/TSV, .gz ok)")
    p.add_argument("--layout", choices=["auto", "snp-major", "sample-major"], default="auto",
                   help="--csv: one row per SNP, a row holding the phenotype (snp-major, "
                        "BitEpi's VarSam), or one row per sample, a column holding it "
                        "(sample-major); auto: the way the phenotype is named")
    p.add_argument("--phenotype-name", default=None, metavar="NAME",
                   help="--csv: the row or column holding the phenotype (default: one named "
                        "VarSam, class, y, phenotype, pheno, status, label, disease, case, "
                        "affection, outcome or trait; a table naming none is refused)")
    layout_flags(p)
    p.add_argument("--order", type=int, default=4, choices=[2, 3, 4],
                   help="SNPs per combination (default 4)")
    p.add_argument("--score", choices=["k2", "mi"], default="k2",
                   help="k2: Bayesian K2 score, lower is better (default); mi: mutual "
                        "information, higher is better")
    p.add_argument("--top", type=int, default=20, help="best combinations kept (default 20)")
    p.add_argument("--backend", choices=["auto", "opencl", "cuda"], default="auto",
                   help="cuda: the tensor-core path (NVIDIA GPUs with CuPy); auto: OpenCL")
    p.add_argument("--devices", default=None, help=argparse.SUPPRESS)  # old --device
    p.add_argument("--out", default=None,
                   help="write the hits (TSV) here; - for standard output")
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


def run(args) -> int:
    from .._epistasis import epistasis
    from ..genotypes import read_genotype_table, read_plink

    if args.epi_cc and args.order != 2:
        raise ValueError(f"--epi-cc writes pairs (PLINK's .epi.cc): it needs --order 2, not "
                         f"{args.order}")
    data = read_plink(args.bfile) if args.bfile else read_genotype_table(
        args.csv, layout=args.layout, phenotype_name=args.phenotype_name, header=args.header,
        row_names=args.row_names)
    if args.devices and not args.device:
        note("oclstat epistasis: --devices is now --device (the old name goes in the next "
             "release)")
        args.device = args.devices
    device = device_of(args, several=True)
    client = scheduler_client(args.scheduler)
    t0 = time.perf_counter()
    try:
        res = epistasis(data, order=args.order, score=args.score, top=args.top,
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
            write_epi_cc(res.table, args.score, fh)
    show_top(args, res.table, "combinations, best first")
    n = res.combinations
    rate = n / max(elapsed, 1e-9)
    note(read_line(data.input),
         f"{data.genotypes.shape[0]:,} SNPs x {data.genotypes.shape[1]:,} samples, order "
         f"{args.order}: {n:,} combinations in {elapsed:.2f} s ({si(rate)} combinations/s, "
         f"{si(rate * data.genotypes.shape[1])} combination-samples/s)")
    return 0
