"""``oclstat aucell``: AUCell scores of every gene set in every cell (the area under the
set's recovery curve among the cell's top-ranked genes)."""

from __future__ import annotations

import time

from ._common import device_of, float_count
from ._single_sample import common_flags, finish, read_scores_input

__all__ = ["NAME", "HELP", "OUTPUTS", "add_arguments", "run"]

NAME = "aucell"
HELP = "AUCell scores (Aibar et al. 2017): recovery-curve areas among each cell's top genes"
OUTPUTS = (("out", "--out", False),)


def add_arguments(p) -> None:
    common_flags(p)
    p.add_argument("--max-rank", type=float_count, default=None,
                   help="the curve's extent in ranks (AUCell's aucMaxRank; default 5%% of the "
                        "genes, rounded up)")
    p.add_argument("--ties", choices=["first", "random"], default="first",
                   help="equal values ranked by their row (default) or at random (AUCell's "
                        "default; with --seed)")
    p.add_argument("--seed", type=float_count, default=None,
                   help="seed of --ties random")
    p.add_argument("--no-normalize", dest="normalize", action="store_false",
                   help="divide by max-rank x set size instead of the best possible area")


def run(args) -> int:
    from .._singlesample import aucell

    expr, sets, read = read_scores_input(args)
    t0 = time.perf_counter()
    scores = aucell(expr, sets, max_rank=args.max_rank, normalize=args.normalize,
                    ties=args.ties, seed=args.seed, min_size=args.min_size,
                    max_size=args.max_size, layer=args.layer, device=device_of(args))
    return finish(args, scores, "AUCell", read, t0)
