"""``oclstat prerank``: preranked GSEA (a ranked gene list, gene-set permutations and
multilevel p-values, as fgsea)."""

from __future__ import annotations

import time
from pathlib import Path

from .. import __version__
from .. import _readers as readers  # its readers import pandas when first used
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

    ranking = collapsed(_read_rankings(args), args, "ranking")
    sets = readers.read_gene_set_file(args.gmt)
    info = readers.combined([ranking.attrs.get("input"), sets.input])
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
    if isinstance(res, dict):
        return _many(args, res, ranking, info, elapsed)
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


def _read_rankings(args):
    """One ranking (.rnk: gene and statistic), or a table of rankings (a header row, the genes
    in the first column, one numeric column per ranking) when the file has more columns."""
    from .._readers import open_text, read_frame

    text, _ = open_text(args.rnk)
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
    if len([f for f in first.split("\t") if f.strip()]) <= 2:     # trailing tabs: one ranking
        return readers.read_rnk(args.rnk, header=args.header)
    frame = read_frame(args.rnk, header=True)
    table = frame.set_index(frame.columns[0])
    bad = [c for c in table.columns if table[c].dtype.kind not in "iuf"]
    if bad:
        raise ValueError(f"--rnk: a table of rankings holds a gene column, then numeric "
                         f"columns; {bad[0]!r} is not numeric")
    table.attrs["input"] = frame.attrs.get("input")
    return table


def _many(args, results: dict, table, info, elapsed: float) -> int:
    """Several rankings: one fgsea table with a leading ``ranking`` column, one report folder
    per ranking, one summary line each."""
    import pandas as pd

    from .._gsea.folder import safe_name
    from ..report import write_gsea_report

    frames = []
    for column, res in results.items():
        frame = res.to_frame()
        frame.insert(0, "ranking", column)
        frame["leadingEdge"] = [";".join(g) for g in frame["leadingEdge"]]
        frames.append(frame)
    with output(args.out, "--out") as fh:
        if fh is not None:
            pd.concat(frames).to_csv(fh, sep="\t", index=False, float_format="%.6g")
    for column, res in results.items():
        t = res.table
        top = t.index[0] if len(t) else "-"
        say(args, f"{column}: {len(t)} sets, {int((t['padj'] < 0.05).sum())} with padj < "
            f"0.05; top {top}")
        folder = Path(args.report) / safe_name(column) if args.report else None
        if args.plot:
            write_plots(res, Path(args.plot) / safe_name(column), args.plot_sets or
                        list(res.positive.index[:1]) + list(res.negative.index[:1]))
        if folder is not None:
            write_gsea_report(res, folder, parameters={
                "ranking": f"{Path(args.rnk).name}, column {column}",
                "gene sets": Path(args.gmt).name, "seed": args.seed, "oclstat": __version__})
    note(read_line(info),
         f"{len(table):,} genes x {len(results)} rankings, {args.resamples} random sets per "
         f"size drawn once for all rankings; {next(iter(results.values())).device}, "
         f"{elapsed:.2f} s")
    return 0
