"""``oclstat gsva``: gene set variation analysis of every gene set in every sample, as GSVA
1.46's ``method = "gsva"`` (the kernel CDF estimate on the device)."""

from __future__ import annotations

import time

from ._common import device_of
from ._single_sample import common_flags, finish, read_scores_input

__all__ = ["NAME", "HELP", "OUTPUTS", "add_arguments", "run"]

NAME = "gsva"
HELP = "gene set variation analysis (Hänzelmann et al. 2013) as GSVA 1.46"
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    common_flags(p)
    p.add_argument("--kcdf", choices=["Gaussian", "Poisson", "none"], default="Gaussian",
                   help="kernel of the per-gene CDF: Gaussian (continuous data, default), "
                        "Poisson (counts) or none (empirical CDF)")
    p.add_argument("--abs-ranking", action="store_true",
                   help="GSVA's abs.ranking (with mx.diff: positive minus negative excursion)")
    p.add_argument("--tau", type=float, default=1.0, help="rank weight of the walk (default 1)")
    p.add_argument("--no-mx-diff", dest="mx_diff", action="store_false",
                   help="the larger excursion instead of their sum (GSVA's mx.diff = FALSE)")
    p.add_argument("--exact-cdf", dest="tabulated", action="store_false",
                   help="the exact normal CDF (default: GSVA's table of 10,000 points, as GSVA)")
    p.add_argument("--sparse", action="store_true",
                   help="GSVA 2's sparse algorithm for a sparse matrix (an .h5ad's): each "
                        "gene's CDF from its non-zero values, zeros ranked below them")
    p.add_argument("--nan-policy", choices=["raise", "propagate", "omit"], default="raise",
                   help="missing values (NA, NaN or empty cells) as GSVA 2's use=: refused "
                        "(default); a gene with one has no kernel estimate and a set with "
                        "such a member scores NaN in that sample (propagate, GSVA's "
                        "'everything'); or each gene's estimate from its values and each "
                        "set scored over its members with one (omit, 'na.rm')")
    p.add_argument("--dtype", choices=["float64", "float32"], default=None,
                   help="precision of the kernel estimate on the device (default float64 "
                        "where the device has it)")


def run(args) -> int:
    from .._singlesample import gsva

    expr, sets, read = read_scores_input(args)
    t0 = time.perf_counter()
    scores = gsva(expr, sets, kcdf=args.kcdf, abs_ranking=args.abs_ranking, tau=args.tau,
                  mx_diff=args.mx_diff, tabulated=args.tabulated, min_size=args.min_size,
                  max_size=args.max_size, sparse=args.sparse, nan_policy=args.nan_policy,
                  layer=args.layer, dtype=args.dtype, device=device_of(args))
    return finish(args, scores, "GSVA", read, t0, scores.attrs.get("device", ""))
