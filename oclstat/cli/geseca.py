"""``oclstat geseca``: gene set co-regulation analysis (fgsea's ``geseca``): the gene sets whose
genes vary together across the samples more than random sets of their size."""

from __future__ import annotations

import time

from ._common import device_of, float_count, note, say, show_top
from ._outputs import output
from ._single_sample import read_scores_input

__all__ = ["NAME", "HELP", "OUTPUTS", "add_arguments", "run"]

NAME = "geseca"
HELP = ("gene set co-regulation analysis (GESECA: sets whose genes move together across "
        "samples, cells or time points, as fgsea's geseca)")
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    p.add_argument("--expr", required=True,
                   help="expression, genes x samples: GCT, Broad's TXT, a TSV/CSV table with "
                        "gene names in the first column, or an AnnData .h5ad (cells x genes)")
    p.add_argument("--gmt", required=True,
                   help="gene sets: GMT, or GMX (one set per column) by its .gmx name")
    p.add_argument("--min-size", type=int, default=1,
                   help="smallest set size in the data's genes (fgsea's minSize; default 1)")
    p.add_argument("--max-size", type=int, default=None,
                   help="largest set size (default: one less than the genes)")
    p.add_argument("--no-center", dest="center", action="store_false",
                   help="do not centre each gene on its mean first (fgsea's center = FALSE, "
                        "for data centred already)")
    p.add_argument("--scale", action="store_true",
                   help="scale each gene to unit variance first (fgsea's scale = TRUE)")
    p.add_argument("--resamples", type=float_count, default=1000,
                   help="random gene sets per set size (fgsea's nPermSimple)")
    p.add_argument("--method", choices=["multilevel", "simple"], default="multilevel",
                   help="multilevel: small p-values by adaptive multilevel splitting (fgsea's "
                        "geseca); simple: resampling only (gesecaSimple)")
    p.add_argument("--eps", type=float, default=1e-50,
                   help="smallest p-value to estimate (0: no bound; default 1e-50)")
    p.add_argument("--sample-size", type=float_count, default=101,
                   help="chains per set size in multilevel splitting (fgsea's sampleSize)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random sets (the same seed gives the same table on every "
                        "device)")
    p.add_argument("--out", default=None,
                   help="write fgsea's table (TSV) here; - for standard output")


def run(args) -> int:
    from .._geseca import geseca

    expr, sets, read = read_scores_input(args)
    note(read)
    t0 = time.perf_counter()
    res = geseca(expr, sets, min_size=args.min_size, max_size=args.max_size,
                 center=args.center, scale=args.scale, n_resamples=args.resamples,
                 method=args.method, sample_size=args.sample_size, eps=args.eps,
                 seed=args.seed, device=device_of(args))
    elapsed = time.perf_counter() - t0
    frame = res.to_frame()
    with output(args.out, "--out") as fh:
        if fh is not None:
            frame.to_csv(fh, sep="\t", index=False, float_format="%.6g")
    shown = frame.copy()
    shown["pathway"] = [n if len(n) <= 48 else n[:47] + "…" for n in shown["pathway"]]
    show_top(args, shown, "sets, by p-value")
    t = res.table
    note(f"{len(t)} sets ({res.n_filtered} left out by size), {res.n_multilevel} by multilevel "
         f"splitting: {int((t['padj'] < 0.05).sum())} with padj < 0.05; {res.device}, "
         f"{elapsed:.2f} s")
    say(args, "")
    return 0
