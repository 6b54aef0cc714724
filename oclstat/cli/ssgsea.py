"""``oclstat ssgsea``: single-sample GSEA scores of every gene set in every sample, as GSVA
1.46's ``method = "ssgsea"`` (or GSEApy's ``ssgsea`` with ``--flavor gseapy``)."""

from __future__ import annotations

import time

from ._common import device_of
from ._single_sample import common_flags, finish, read_scores_input

__all__ = ["NAME", "HELP", "OUTPUTS", "add_arguments", "run"]

NAME = "ssgsea"
HELP = "single-sample GSEA scores (Barbie et al. 2009) as GSVA's ssgsea and GSEApy's ssgsea"
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    common_flags(p)
    p.add_argument("--alpha", type=float, default=0.25,
                   help="rank weight (GSVA's tau for ssgsea, GSEApy's weight; default 0.25)")
    p.add_argument("--flavor", choices=["gsva", "gseapy"], default="gsva",
                   help="gsva: GSVA 1.46's ranks (default); gseapy: GSEApy's rank "
                        "normalisation and tie order")
    p.add_argument("--nan-policy", choices=["raise", "propagate", "omit"], default="raise",
                   help="missing values (NA, NaN or empty cells) as GSVA 2's use=: refused "
                        "(default), a set with a missing member scores NaN in that sample "
                        "(propagate, GSVA's 'everything'), or each sample and set scored "
                        "over the genes with a value (omit, 'na.rm')")
    p.add_argument("--no-normalize", dest="normalize", action="store_false",
                   help="raw scores (default: divided by the range of all scores, GSVA's "
                        "ssgsea.norm)")


def run(args) -> int:
    from .._singlesample import ssgsea

    expr, sets, read = read_scores_input(args)
    t0 = time.perf_counter()
    scores = ssgsea(expr, sets, alpha=args.alpha, normalize=args.normalize,
                    flavor=args.flavor, min_size=args.min_size, max_size=args.max_size,
                    nan_policy=args.nan_policy, layer=args.layer, device=device_of(args))
    return finish(args, scores, "ssGSEA", read, t0)
