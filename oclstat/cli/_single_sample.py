"""What ``oclstat ssgsea``, ``oclstat gsva`` and ``oclstat aucell`` share: reading the
expression (GCT, Broad's TXT, a plain TSV/CSV table of genes x samples, or an AnnData .h5ad),
their common flags, and writing the sets x samples scores as TSV."""

from __future__ import annotations

import time
from pathlib import Path

from .._readers import combined, read_expression, read_gene_set_file
from ._common import note, read_line, say, show_top
from ._outputs import output

__all__ = ["common_flags", "read_scores_input", "finish"]


def common_flags(p) -> None:
    """The input, gene-set, size and output flags of the three commands."""
    p.add_argument("--expr", required=True,
                   help="expression, genes x samples: GCT, Broad's TXT (NAME, DESCRIPTION, "
                        "samples), a TSV/CSV table with gene names in the first column, or "
                        "an AnnData .h5ad (cells x genes; .X or --layer)")
    p.add_argument("--layer", default=None, help="the .h5ad layer to score (default .X)")
    p.add_argument("--gmt", required=True,
                   help="gene sets: GMT, or GMX (one set per column) by its .gmx name")
    p.add_argument("--min-size", type=int, default=1,
                   help="smallest set size in the data's genes (GSVA's min.sz; default 1)")
    p.add_argument("--max-size", type=int, default=None,
                   help="largest set size (GSVA's max.sz; default no limit)")
    p.add_argument("--out", default=None,
                   help="write the scores (TSV: gene sets x samples, as GSVA's matrix); - for "
                        "standard output")


def _h5ad(path: str):
    try:
        import anndata
    except ImportError:
        raise SystemExit(f"reading {path} needs anndata: pip install 'oclstat[singlecell]'") \
            from None
    return anndata.read_h5ad(path)


def read_scores_input(args):
    """``(expression, gene sets, what was read)``: the expression as a DataFrame or an
    AnnData (an .h5ad by its name), the gene sets as a dict."""
    from .._readers import read_table

    path = str(args.expr)
    sets = read_gene_set_file(args.gmt)
    if path.endswith(".h5ad"):
        ad = _h5ad(path)
        return ad, sets, f"read: {path}: {ad.n_obs:,} cells x {ad.n_vars:,} genes (AnnData" \
            f"{', layer ' + args.layer if args.layer else ', .X'}); " + \
            read_line(sets.input).removeprefix("read: ")
    if args.layer is not None:
        raise SystemExit("--layer is for .h5ad input")
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if head[:2] == b"\x1f\x8b":
        import gzip

        with gzip.open(path, "rb") as fh:
            head = fh.read(4096)
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").strip().lower()
    if first.startswith("#1.") or first.startswith("name\tdescription"):
        expr = read_expression(path)
        info = expr.attrs.get("input")
    else:
        import pandas as pd

        table = read_table(path, header=True, row_names=True, what="expression table")
        expr = pd.DataFrame(table.values, index=table.row_names, columns=table.col_names)
        info = table.input
    return expr, sets, read_line(combined([info, sets.input]))


def finish(args, scores, what: str, read: str, started: float, device: str = "") -> int:
    """Write the scores, show the first rows, and note what was done."""
    elapsed = time.perf_counter() - started
    with output(args.out, "--out") as fh:
        if fh is not None:
            scores.to_csv(fh, sep="\t", float_format="%.10g")
    shown = scores.iloc[:, :6].reset_index()
    shown["gene_set"] = [n if len(n) <= 40 else n[:39] + "…" for n in shown["gene_set"]]
    show_top(args, shown, "sets (first samples)")
    note(read, f"{what}: {scores.shape[0]:,} sets x {scores.shape[1]:,} samples"
         f"{'; ' + device if device else ''}, {elapsed:.2f} s"
         + (f"; wrote {Path(args.out).name}" if args.out and args.out != "-" else ""))
    say(args, "")
    return 0
