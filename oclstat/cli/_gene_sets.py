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
