"""``oclstat epistasis-merge``: the files of a pair scan run as N jobs (``--parallel K N``)
joined into the single run's (PLINK's ``--epistasis-summary-merge``, hits included)."""

from __future__ import annotations

from ._common import note

NAME = "epistasis-merge"
HELP = "join the N jobs of a pair scan (epistasis --parallel K N) into the single run's files"
OUTPUTS = ()
__all__ = ["NAME", "HELP", "OUTPUTS", "add_arguments", "run"]


def add_arguments(p) -> None:
    p.add_argument("prefix", help="the --out prefix the jobs wrote under")
    p.add_argument("n_jobs", type=int, help="N, the number of jobs")
    p.add_argument("--test", default="fast",
                   choices=["fast", "joint-effects", "boost", "logistic", "linear"],
                   help="the jobs' test (linear wrote .epi.qt; the others .epi.cc)")


def run(args) -> int:
    from .._epistasis import epistasis_merge

    hits, summary = epistasis_merge(args.prefix, args.n_jobs, test=args.test)
    note(f"merged {args.n_jobs} jobs into {hits} and {summary}")
    return 0
