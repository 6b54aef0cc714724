"""``oclstat prerank``: preranked GSEA (a ranked gene list, gene-set permutations and
multilevel p-values, as fgsea)."""

from __future__ import annotations

import time
from pathlib import Path

from .. import __version__
from .._readers import combined, read_gene_set_file, read_rnk
from ._common import (
    device_of,
    float_count,
    note,
    read_line,
    say,
    scheduler_client,
    show_top,
    yes_no,
)
from ._gene_sets import (
    FOLDERS,
    collapse_flags,
    collapsed,
    gene_set_flags,
    write_collapse_outputs,
    write_plots,
)
from ._outputs import output

__all__ = ["NAME", "HELP", "OUTPUTS", "FOLDERS", "add_arguments", "run"]

NAME = "prerank"
HELP = ("preranked gene set enrichment analysis (a ranked gene list, gene-set permutations and "
        "multilevel p-values, as fgsea)")
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    p.add_argument("--rnk", required=True,
                   help="ranked gene list: gene and statistic per line (.rnk, TSV or CSV; "
                        ".gz ok)")
    p.add_argument("--header", type=yes_no, default="auto",
                   help="the ranked list's first line is a header: yes, no or auto (default: "
                        "from the content, stated in the summary)")
    p.add_argument("--gmt", required=True,
                   help="gene sets: GMT, or GMX (one set per column) by its .gmx name")
    p.add_argument("--resamples", type=float_count, default=1000,
                   help="random gene sets per set size (fgsea's nPermSimple; 1e5 is ok)")
    p.add_argument("--method", choices=["multilevel", "simple"], default="multilevel",
                   help="multilevel: small p-values by adaptive multilevel splitting (fgsea's "
                        "default); simple: resampling only")
    p.add_argument("--eps", type=float, default=1e-50,
                   help="smallest p-value to estimate (0: no bound; default 1e-50)")
    p.add_argument("--sample-size", type=float_count, default=101,
                   help="chains per set size in multilevel splitting (fgsea's sampleSize)")
    p.add_argument("--score-type", choices=["std", "pos", "neg"], default="std",
                   help="std: two-sided ES; pos / neg: one-tailed tests on the running sum's "
                        "maximum / minimum (fgsea's scoreType)")
    collapse_flags(p, "ranking")
    gene_set_flags(p, weight="ES weight p (fgsea's gseaParam)",
                   out="write fgsea's table (TSV) here",
                   report="write an HTML report into DIR: both directions' tables with "
                          "enrichment plots, and the tables as TSV",
                   scheduler="the resamples")


def run(args) -> int:
    from .._prerank import gsea_prerank
    from ..report import write_gsea_report

    ranking = collapsed(read_rnk(args.rnk, header=args.header), args)
    sets = read_gene_set_file(args.gmt)
    info = combined([ranking.attrs.get("input"), sets.input])
    client = scheduler_client(args.scheduler)
    device = None if client else device_of(args, several=True)
    t0 = time.perf_counter()
    try:
        res = gsea_prerank(ranking, sets, n_resamples=args.resamples, method=args.method,
                           weight=args.weight, min_size=args.min_size, max_size=args.max_size,
                           eps=args.eps, sample_size=args.sample_size,
                           score_type=args.score_type, seed=args.seed,
                           case_sensitive=not args.case_insensitive, device=device,
                           client=client, progress=None)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    with output(args.out, "--out") as fh:
        if fh is not None:
            res.to_tsv(fh)
    cols = ["pval", "padj", "log2err", "ES", "NES", "size"]
    for title, table in (("ES > 0 (top of the ranking)", res.positive),
                         ("ES <= 0 (bottom of the ranking)", res.negative)):
        say(args, f"{title}: {len(table):,} gene sets, {int((table['padj'] < 0.05).sum())} "
            "with padj < 0.05")
        shown = table[cols].reset_index()
        shown["pathway"] = [n if len(n) <= 48 else n[:47] + "…" for n in shown["pathway"]]
        show_top(args, shown, "sets, by NES away from zero")
        say(args, "")
    if args.plot:
        write_plots(res, args.plot, args.plot_sets or
                    list(res.positive.index[:1]) + list(res.negative.index[:1]))
    if args.report:
        write_collapse_outputs(ranking, args.report)
        index = write_gsea_report(res, args.report, parameters={
            "ranking": f"{Path(args.rnk).name} ({len(ranking):,} genes)",
            "gene sets": Path(args.gmt).name, "seed": args.seed, "min size": args.min_size,
            "max size": args.max_size, "oclstat": __version__, "seconds": f"{elapsed:.2f}"})
        note(f"wrote the report to {index}")
    t = res.table
    note(read_line(info),
         f"{len(ranking):,} genes, {len(t)} sets ({res.n_filtered} outside {args.min_size}.."
         f"{args.max_size}), {args.resamples} random sets per size, {res.method}"
         f" ({res.n_multilevel} sets by multilevel splitting): "
         f"{int((t['padj'] < 0.05).sum())} with padj < 0.05; {res.device}, {elapsed:.2f} s")
    return 0
