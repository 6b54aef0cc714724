"""``oclstat ora``: over-representation of gene sets in gene lists (fgsea's ``fora``), one
list or many at once."""

from __future__ import annotations

import time
from pathlib import Path

from .. import _readers as readers  # its readers import pandas when first used
from ._common import device_of, note, say, show_top
from ._outputs import output

__all__ = ["NAME", "HELP", "OUTPUTS", "add_arguments", "run"]

NAME = "ora"
HELP = ("over-representation of gene sets in gene lists (hypergeometric test with a universe, "
        "as fgsea's fora)")
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    p.add_argument("--genes", required=True, action="append", metavar="FILE",
                   help="a gene list, one gene per line (the first field; # comments; .gz "
                        "ok); repeat for several lists, each named by its file")
    p.add_argument("--gmt", required=True,
                   help="gene sets: GMT, or GMX (one set per column) by its .gmx name")
    p.add_argument("--universe", required=True, metavar="FILE",
                   help="every gene the lists were drawn from, one per line (e.g. every gene "
                        "measured)")
    p.add_argument("--min-size", type=int, default=1,
                   help="leave out sets with fewer genes in the universe (fgsea's minSize)")
    p.add_argument("--max-size", type=int, default=None,
                   help="leave out sets with more genes in the universe (default: one less "
                        "than the universe)")
    p.add_argument("--no-overlap-genes", dest="overlap_genes", action="store_false",
                   help="leave the overlapGenes column empty (many lists x many sets)")
    p.add_argument("--out", default=None,
                   help="write fora's table (TSV, overlap genes joined by ;) here; - for "
                        "standard output")


#: First fields that name a column of gene identifiers rather than a gene: a first line holding
#: one is read as a header (and said so), not as a gene of the list or universe.
HEADER_WORDS = {"gene", "genes", "symbol", "symbols", "gene_symbol", "genesymbol",
                "gene_name", "gene_id", "geneid", "id", "name", "entrez", "entrezid",
                "entrez_id", "ensembl", "ensembl_id", "ensembl_gene_id", "hgnc_symbol",
                "probe", "probe_id", "feature", "features"}


def read_gene_list(path, flag: str) -> list[str]:
    """The first field of every line that is not empty or a # comment; a first line whose
    first field is a column name (``gene``, ``symbol``, ``gene_id``, ...) is a header."""
    text, _ = readers.open_text(path)
    genes = [line.split()[0] for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    if genes and genes[0].strip("\"'").lower() in HEADER_WORDS:
        note(f"read: {flag} {path}: first line {genes[0]!r} read as a header, not a gene")
        genes = genes[1:]
    if not genes:
        raise ValueError(f"{flag} {path}: no genes (one gene per line)")
    return genes


def run(args) -> int:
    from .._ora import ora

    files = args.genes
    names = [Path(f).name.split(".")[0] or f"list{i}" for i, f in enumerate(files)]
    if len(set(names)) != len(names):
        names = [f"{n}_{i + 1}" for i, n in enumerate(names)]
    lists = {n: read_gene_list(f, "--genes") for n, f in zip(names, files, strict=True)}
    universe = read_gene_list(args.universe, "--universe")
    sets = readers.read_gene_set_file(args.gmt)
    t0 = time.perf_counter()
    res = ora(lists if len(lists) > 1 else lists[names[0]], sets, universe,
              min_size=args.min_size, max_size=args.max_size,
              overlap_genes=args.overlap_genes, device=device_of(args))
    elapsed = time.perf_counter() - t0
    frame = res.to_frame()
    with output(args.out, "--out") as fh:
        if fh is not None:
            out = frame.copy()
            out["overlapGenes"] = [";".join(g) for g in out["overlapGenes"]]
            out.to_csv(fh, sep="\t", index=False, float_format="%.6g")
    shown = frame.drop(columns="overlapGenes")
    shown["pathway"] = [n if len(n) <= 48 else n[:47] + "…" for n in shown["pathway"]]
    show_top(args, shown, "sets, by p-value")
    t = res.table
    note(f"{len(universe):,} genes in the universe, {len(lists)} list(s) of "
         f"{', '.join(f'{k:,}' for k in res.list_sizes)} genes in it, {len(t) // len(lists)} "
         f"sets ({res.n_filtered} left out by size): {int((t['padj'] < 0.05).sum())} with "
         f"padj < 0.05; {res.device}, {elapsed:.2f} s")
    say(args, "")
    return 0
