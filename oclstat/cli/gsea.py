"""``oclstat gsea``: gene set enrichment analysis with phenotype permutations."""

from __future__ import annotations

import time
from pathlib import Path

from .. import __version__
from .. import _readers as readers  # its readers import pandas when first used
from ._common import device_of, float_count, note, read_line, say, scheduler_client, show_top
from ._gene_sets import (
    FOLDERS,
    collapse_flags,
    collapsed,
    gene_set_flags,
    write_collapse_outputs,
    write_plots,
)
from ._outputs import output

NAME = "gsea"
HELP = "gene set enrichment analysis with phenotype permutations"
OUTPUTS = (("out", "--out", False),)
__all__ = ["NAME", "HELP", "OUTPUTS", "FOLDERS", "add_arguments", "run"]


def add_arguments(p) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--gct", help="expression as GCT 1.2/1.3")
    src.add_argument("--expr", help="expression: GCT or tab-separated NAME DESCRIPTION samples...")
    p.add_argument("--cls", required=True,
                   help="phenotype CLS file: two classes; more with FILE#A_versus_B or "
                        "FILE#A_versus_REST (Broad's syntax, or --classes); a continuous "
                        "#numeric file (FILE#PROFILE or --profile picks a profile)")
    p.add_argument("--classes", metavar="A_versus_B",
                   help="the comparison: class A versus class B (samples of other classes "
                        "are left out) or A_versus_REST; also chooses class A of two classes")
    p.add_argument("--profile", help="the profile of a continuous (#numeric) CLS file")
    p.add_argument("--gmt", required=True,
                   help="gene sets: GMT, or GMX (one set per column) by its .gmx name")
    p.add_argument("--resamples", "--perms", dest="resamples", type=float_count, default=1000,
                   help="phenotype permutations (1e6 is ok; --perms is the old name)")
    p.add_argument("--metric", default=None,
                   help="ranking metric, ours or Broad's/GSEApy's names in any case: classes "
                        "signal_to_noise (Signal2Noise, s2n; the default), t_test (tTest), "
                        "diff_of_classes, ratio_of_classes, log2_ratio_of_classes, "
                        "abs_signal_to_noise (abs_s2n); a continuous profile pearson (the "
                        "default), cosine, manhattan, euclidean")
    p.add_argument("--permute", default="phenotype", choices=["phenotype", "gene_set"],
                   help="what the null permutes (Broad's -permute): the phenotype, or gene "
                        "sets (for fewer than 7 samples per class; report at FDR 5%%)")
    collapse_flags(p, "expression")
    gene_set_flags(p, weight="ES weight p (0, 1, 1.5, 2, ...)",
                   out="write the results table (TSV) here",
                   report="write Broad's report into DIR: index.html with both directions' "
                          "tables and enrichment plots, and the tables as TSV",
                   scheduler="the permutations")


def run(args) -> int:
    from .._gsea import gsea
    from ..report import write_gsea_report

    keep = "keep" if (args.chip or args.mode) else "error"
    expr = (readers.read_gct(args.gct, duplicates=keep) if args.gct
            else readers.read_expression(args.expr, duplicates=keep))
    expr = collapsed(expr, args, "expression")
    pheno = readers.read_cls(args.cls, comparison=args.classes, profile=args.profile)
    sets = readers.read_gene_set_file(args.gmt)
    info = readers.combined([expr.attrs.get("input"), pheno.input, sets.input])
    client = scheduler_client(args.scheduler)
    device = None if client else device_of(args, several=True)
    t0 = time.perf_counter()
    try:
        res = gsea(expr, pheno, sets, n_resamples=args.resamples, metric=args.metric,
                   permutation=args.permute, weight=args.weight, min_size=args.min_size,
                   max_size=args.max_size, seed=args.seed,
                   case_sensitive=not args.case_insensitive, device=device, client=client,
                   progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    with output(args.out, "--out") as fh:
        if fh is not None:
            res.to_tsv(fh)
    cut = res.fdr_threshold
    ends = ((f"correlated with {res.profile} (ES >= 0)", f"anti-correlated with {res.profile} "
             "(ES < 0)") if res.profile is not None else
            (f"enriched in {res.classes[0]} (ES >= 0)", f"enriched in {res.classes[1]} (ES < 0)"))
    for title, table in zip(ends, (res.positive, res.negative), strict=True):
        say(args, f"{title}: {len(table):,} gene sets, "
            f"{int((table['FDR q-val'] < cut).sum())} with FDR q < {cut:g}")
        show_top(args, table.drop(columns=["GS<br> follow link to MSigDB", "GS DETAILS",
                                           "LEADING EDGE"]), "sets, by NES away from zero")
        say(args, "")
    if args.plot:
        write_plots(res, args.plot, args.plot_sets or
                    list(res.positive["NAME"].head(1)) + list(res.negative["NAME"].head(1)))
    if args.report:
        write_collapse_outputs(expr, args.report)
        index = write_gsea_report(res, args.report, parameters={
            "expression": f"{Path(args.gct or args.expr).name} ({expr.shape[0]:,} genes x "
                          f"{expr.shape[1]} samples)",
            "phenotype": Path(args.cls).name, "gene sets": Path(args.gmt).name,
            "seed": args.seed, "min size": args.min_size, "max size": args.max_size,
            "oclstat": __version__, "seconds": f"{elapsed:.2f}"},
            expression_file=args.gct or args.expr)
        note(f"wrote the report to {index}")
    t = res.table
    if res.profile is not None:
        design = f"profile {res.profile}, metric {res.metric}"
    else:
        a, b = pheno.counts
        design = f"{pheno.classes[0]} {a} vs {pheno.classes[1]} {b}, metric {res.metric}"
    compared = res.expression.shape[1] if res.expression is not None else expr.shape[1]
    samples = (f"{compared} of {expr.shape[1]} samples" if compared != expr.shape[1]
               else f"{expr.shape[1]} samples")
    note(read_line(info),
         f"{expr.shape[0]} genes x {samples} ({design}), {len(t)} sets "
         f"({res.n_filtered} outside {args.min_size}..{args.max_size}), {args.resamples} "
         f"{res.permutation.replace('_', '-')} permutations: "
         f"{int((t['fdr'] < cut).sum())} with FDR < {cut:g}; {res.device}, {elapsed:.2f} s")
    return 0
