"""The adapters of the R functions that the R package's file of the same name defines: fisher.sim
(clrng and gpuRandom's Monte Carlo test) and fisherTest (R's fisher.test).
"""

from __future__ import annotations

import numpy as np

from .base import (
    Characters,
    RValue,
    as_streams,
    dtype_of,
    first_streams,
    r_function,
    streams_value,
    work_items,
)


@r_function("fisher.sim", "fisher_sim")
def fisher_sim(x, N=2000, streams=None, type="double", returnStatistics=False,
               Nglobal=None, verbose=False, seed=None, B=None, *, device=None,
               dname="x"):
    """clrng's fisher.sim: an htest with clrng's fields (counts, simNum, streams, sim)."""
    from .._fisher import fisher_sim as run
    from .._random.streams import fresh_seed

    if B is not None:
        N = B                                # fisher.test's name
    work = work_items(Nglobal)
    if work is not None:
        N = -(-int(N) // work) * work        # clrng: simNum, whole rounds per work item
    st = as_streams(first_streams(streams, work))
    if st is None and seed is None:
        seed = fresh_seed()                  # kept in the result: the run can be repeated
    res = run(np.asarray(x), n_resamples=N, seed=None if st is not None else seed, streams=st,
              device=device, dtype=dtype_of(type), return_statistics=bool(returnStatistics))
    out = {"p.value": float(res.pvalue), "alternative": "two.sided",
           "method": "Fisher's Exact Test for Count Data with simulated p-value\n\t "
                     f"(based on {int(N)} replicates)",
           "data.name": dname, "counts": int(res.count), "simNum": int(N)}
    if st is not None:
        out["streams"] = streams_value(st)
    else:
        out["seed"] = np.atleast_1d(np.asarray(seed, dtype=np.float64))
    if returnStatistics:
        out["sim"] = np.asarray(res.null_distribution, dtype=np.float64)
    return RValue(out, "htest")


@r_function("fisherTest", "fisher_test",
             renamed={"or": "odds", "conf.int": "conf_int", "conf.level": "conf_level",
                      "simulate.p.value": "simulate"})
def fisher_test_r(x, y=None, workspace=200000, hybrid=False, hybridPars=(5, 80, 1),
                  control=None, odds=1.0, alternative="two.sided", conf_int=True,
                  conf_level=0.95, simulate=False, B=2000, seed=None, *,
                  device=None, dname="x"):
    """R's fisher.test: (x, y, workspace, hybrid, hybridPars, control, or, alternative,
    conf.int, conf.level, simulate.p.value, B, seed) in; an htest out."""
    from .._fisher import fisher_test

    odds, level, conf_int, simulate = float(odds), float(conf_level), bool(conf_int), \
        bool(simulate)
    alternatives = {"two.sided": "two-sided", "less": "less", "greater": "greater"}
    if alternative not in alternatives:
        raise ValueError(f"alternative must be one of {list(alternatives)}, got "
                         f"{alternative!r}")
    res = fisher_test(np.asarray(x), alternative=alternatives[alternative], conf_level=level,
                      null_odds_ratio=odds, method="simulate" if simulate else "exact",
                      hybrid=bool(hybrid), hybrid_pars=tuple(float(v) for v in hybridPars),
                      n_resamples=B, seed=seed, device=device)
    out = {"p.value": float(res.pvalue)}
    if res.odds_ratio is not None:
        if conf_int:
            out["conf.int"] = RValue(np.array(res.conf_int, dtype=float),
                                     attributes={"conf.level": level})
        out["estimate"] = RValue(np.array([res.odds_ratio]),
                                 attributes={"names": Characters(["odds ratio"])})
        out["null.value"] = RValue(np.array([odds]),
                                   attributes={"names": Characters(["odds ratio"])})
    out.update({"alternative": alternative, "method": res.title, "data.name": dname})
    if res.method == "simulate" and res.seed is not None:
        out["seed"] = res.seed if isinstance(res.seed, int) else np.array(res.seed)
    return RValue(out, "htest")
