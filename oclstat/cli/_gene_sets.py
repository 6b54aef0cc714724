"""What ``oclstat gsea`` and ``oclstat prerank`` share: their gene-set options and the
enrichment plots they write."""

from __future__ import annotations

from pathlib import Path

from ._common import float_count, scheduler_flag


def gene_set_flags(p, *, weight: str, out: str, report: str, scheduler: str) -> None:
    """The flags gsea and prerank share."""
    p.add_argument("--weight", type=float, default=1.0, help=weight)
    p.add_argument("--min-size", type=int, default=15)
    p.add_argument("--max-size", type=int, default=500)
    p.add_argument("--seed", type=float_count, default=None,
                   help="integer seed (default: random), e.g. 42 or 1e3")
    p.add_argument("--case-insensitive", action="store_true",
                   help="match gene names in upper case")
    p.add_argument("--out", default=None, help=out + "; - for standard output")
    p.add_argument("--plot", default=None, metavar="DIR",
                   help="write running-sum plots (PNG) into DIR (needs matplotlib)")
    p.add_argument("--plot-set", dest="plot_sets", action="append",
                   help="set to plot (repeatable; default: the top set of each direction)")
    p.add_argument("--report", default=None, metavar="DIR", help=report)
    scheduler_flag(p, scheduler)


FOLDERS = (("plot", "--plot"), ("report", "--report"))


def collapse_flags(p, what: str) -> None:
    """Broad's Collapse Dataset flags."""
    p.add_argument("--chip", default=None, metavar="FILE",
                   help=f"CHIP file (probe -> gene symbol): the {what} names are probes, "
                        "collapsed to genes first (Broad's Collapse Dataset)")
    p.add_argument("--collapse", default="Collapse",
                   help="Collapse (default), Remap_Only or No_Collapse (Broad's names; lower "
                        "case accepted)")
    p.add_argument("--mode", default=None,
                   help="Max_probe (default when collapsing), Median_of_probes, "
                        "Mean_of_probes, Sum_of_probes or Abs_max_of_probes; without --chip, "
                        f"{what} rows that share a name are collapsed with it")


def collapsed(data, args, kind: str):
    """``data`` (``kind`` "expression" or "ranking") collapsed as the flags ask, by the same
    path as ``gsea(chip=, collapse=, collapse_mode=)`` (unchanged without --chip and --mode)."""
    from .._enrichment.inputs import probes_to_genes

    return probes_to_genes(data, args.chip, args.collapse, args.mode, kind)


def write_collapse_outputs(data, folder) -> None:
    """Into the report folder: the collapsed data (GCT, or RNK for a ranking) and the probe ->
    gene mapping table (Broad's symbol mapping), when the data were collapsed."""
    from .._readers import write_gct, write_rnk

    mapping = data.attrs.get("mapping")
    if mapping is None:
        return
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if getattr(data, "ndim", 2) == 1:
        write_rnk(data, folder / "collapsed_ranking.rnk")
    else:
        write_gct(data, folder / "collapsed_dataset.gct")
    mapping.rename(columns={"probe": "Probe", "gene": "Gene Symbol", "kept": "Kept"}).to_csv(
        folder / "symbol_to_probe_mapping.tsv", sep="\t", index=False)


def write_plots(res, folder, names) -> None:
    """``folder/<set>.png``: the enrichment plot of each named set."""
    from ..plot import _pyplot, plot_enrichment
    from ._outputs import output

    plt = _pyplot("--plot")
    for name in names:
        path = Path(folder) / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        fig = plot_enrichment(res, name)
        with output(str(path), "--plot", binary=True) as fh:
            fig.savefig(fh, dpi=120, format="png")
        plt.close(fig)
