"""The public functions of the Fisher test: check, plan, draw on the device, report."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from .._random.streams import as_seed, fresh_seed
from .._runtime import get_runtime
from .._scale import executor
from .._validation import as_float_dtype, as_int, as_shape, check_host_memory
from . import tasks
from .exact import two_by_two
from .network import MAX_ENTRIES as MAX_NETWORK_ENTRIES
from .network import ExactTooLarge, network_pvalue
from .opencl import _run_rcont2
from .plan import (
    MAX_TOTAL,
    _choose_dtype,
    _device_log_factorials,
    _Margins,
    prepare,
)
from .result import FisherSimBatchResult, FisherSimResult, FisherTestResult
from .validate import _as_counts, _as_margin, _drop_empty

# ----------------------------------------------------------------------------- the test


def fisher_sim_batch(tables, n_resamples=2000, *, seed=None, streams=None,
                     return_statistics=False, dtype=None, device=None, client=None,
                     progress=None):
    """Monte Carlo Fisher tests for many tables in one launch (one test per gene, per SNP).

    Parameters
    ----------
    tables : array_like (K, r, c), or a sequence of K 2-D tables of any shapes
        Non-negative integer counts. Each table's empty rows and columns are dropped; each
        must keep at least 2 x 2 (an error names the first that does not).
    n_resamples, seed, streams, return_statistics, dtype, progress
        As :func:`fisher_sim`; every table gets ``n_resamples`` simulated tables.
    device : device or list of devices, optional
        One device, or several that share the tables (as ``client=LocalDevices(device)``).
    client : dask.distributed.Client or oclstat.distributed.LocalDevices, optional
        Run chunks of tables as tasks; each chunk draws from the streams a single call gives
        its tables, so the counts are the same for any chunking and any workers (``seed=``
        only; ``dtype`` float64 unless given).

    Returns
    -------
    FisherSimBatchResult
        Arrays over the tables; ``to_frame()`` adds Benjamini-Hochberg q-values.

    See Also
    --------
    fisher_sim : one table, printed as R prints it.

    Notes
    -----
    Table ``t`` draws from streams ``t S .. t S + S - 1`` of the seed (S streams per table),
    so a table's count does not depend on the other tables of the batch or on how the batch
    is cut into tasks.

    References
    ----------
    .. [1] Patefield, W. M. (1981). Algorithm AS 159: an efficient method of generating
           random r x c tables with given row and column totals. Applied Statistics 30(1),
           91-97.
    .. [2] Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate.
           Journal of the Royal Statistical Society B 57(1), 289-300.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[[10, 2], [3, 15]], [[5, 5], [5, 5]]])
    >>> res = fisher_sim_batch(x, n_resamples=5000, seed=2)
    >>> res.pvalue.round(2).tolist()      # exact two-sided: 0.0005, 1.0
    [0.0, 1.0]
    """
    if isinstance(tables, np.ndarray) or not isinstance(tables, Sequence):
        arr = np.asarray(tables)
        if arr.ndim != 3:
            raise ValueError(
                f"tables must be 3-D (K tables x rows x columns) or a sequence of 2-D tables, "
                f"got shape {arr.shape}"
            )
        items = list(arr)
    else:
        items = list(tables)
    if not items:
        raise ValueError("tables is empty; give at least one table")
    cleaned = [_drop_empty(_as_counts(t, f"tables[{i}]"), f"tables[{i}]")
               for i, t in enumerate(items)]
    b = as_int(n_resamples, "n_resamples", minimum=1, maximum=2**53)
    with executor(device, client) as ex:
        if ex.several:
            if streams is not None or return_statistics:
                raise ValueError("with client= (or several devices) pass seed=, not streams=, "
                                 "and no return_statistics")
            words = fresh_seed() if seed is None else as_seed(seed)
            dt = np.dtype(np.float64) if dtype is None else as_float_dtype(dtype)
            statistic, counts = tasks.merge(ex.map(tasks.plan(cleaned, b, words, dt),
                                                   progress=progress, desc="fisher_sim tasks"))
            return FisherSimBatchResult(statistic, (1.0 + counts) / (b + 1.0), counts, b, None)
        rt = ex.runtime
    dt = _choose_dtype(rt, dtype)
    margins, statistic, thresholds, logfact, bits = prepare(rt, cleaned)
    counts, stats, _ = _run_rcont2(
        rt, margins, thresholds, b, logfact, bits, seed=seed, streams=streams, dtype=dt,
        store_stats=bool(return_statistics), store_tables=False, progress=progress,
        desc="fisher_sim",
    )
    null = None if stats is None else -stats.astype(np.float64) * 2.0**-bits
    return FisherSimBatchResult(statistic, (1.0 + counts) / (b + 1.0), counts, b, null)


def fisher_sim(table, n_resamples=2000, *, seed=None, streams=None, return_statistics=False,
               dtype=None, device=None, progress=None):
    """Fisher's exact test for an r x c table with a Monte Carlo p-value, as R's
    ``fisher.test(table, simulate.p.value = TRUE, B = n_resamples)``.

    Parameters
    ----------
    table : array_like, 2-D
        Non-negative integer counts (floats with whole values are accepted). A 3-D array is
        a batch: see :func:`fisher_sim_batch`.
    n_resamples : int
        Tables to simulate (R's ``B``; default 2000 as R).
    seed : int or six integers, optional
        Seed of fresh MRG31k3p streams (module docstring: which stream makes which table).
    streams : oclstat.random.Streams, optional
        Streams to draw from instead, advanced in place.
    return_statistics : bool
        Also return the simulated statistics (``null_distribution``).
    dtype : numpy.float64 or numpy.float32, optional
        Precision of the sampling arithmetic (default float64 where the device has it). The
        statistic and the counts are exact integers either way.
    device : optional
        Device (see :func:`oclstat.get_runtime`).
    progress : bool or None
        Progress bar for long runs (None: automatic).

    Returns
    -------
    FisherSimResult
        ``pvalue`` = (1 + count) / (n_resamples + 1), ``count``, ``statistic``; printed as R
        prints an htest. A 3-D input gives a :class:`FisherSimBatchResult`.

    See Also
    --------
    fisher_sim_batch : many tables in one launch, on several devices or a Dask cluster.
    random_table : the simulated tables themselves.
    scipy.stats.fisher_exact : the exact test (2 x 2, and r x c in recent scipy).

    Notes
    -----
    Tables are drawn on the device with Patefield's algorithm, as R's ``rcont2``; a simulated
    table counts when its probability is at most the observed one's (R's relative tolerance
    1e-7), compared as exact fixed-point sums of log-factorials, so the count is the same
    integer on every device for the same seed.

    References
    ----------
    .. [1] Patefield, W. M. (1981). Algorithm AS 159: an efficient method of generating
           random r x c tables with given row and column totals. Applied Statistics 30(1),
           91-97.
    .. [2] Xu, R. and Brown, P. E. gpuRandom: ``fisher.sim`` on GPUs (R package).
    .. [3] Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero.
           Statistical Applications in Genetics and Molecular Biology 9(1), article 39.

    Examples
    --------
    >>> import numpy as np
    >>> job = np.array([[1, 2, 1, 0], [3, 3, 6, 1], [10, 10, 14, 9], [6, 7, 12, 11]])
    >>> res = fisher_sim(job, n_resamples=10000, seed=7)
    >>> 0.72 < res.pvalue < 0.82    # R's exact fisher.test(Job): 0.7827
    True
    """
    if np.ndim(table) == 3:
        return fisher_sim_batch(table, n_resamples, seed=seed, streams=streams,
                                return_statistics=return_statistics, dtype=dtype,
                                device=device, progress=progress)
    x = _drop_empty(_as_counts(table, "table"), "table")
    res = fisher_sim_batch([x], n_resamples, seed=seed, streams=streams,
                           return_statistics=return_statistics, dtype=dtype, device=device,
                           progress=progress)
    null = None if res.null_distribution is None else res.null_distribution[0]
    return FisherSimResult(float(res.statistic[0]), float(res.pvalue[0]), int(res.count[0]),
                           res.n_resamples, null, x)


ALTERNATIVES = ("two-sided", "less", "greater")
METHODS = ("auto", "exact", "simulate")


def _hybrid_pars(hybrid_pars) -> tuple[float, float, float]:
    """R's ``hybridPars = c(expect = 5, percnt = 80, Emin = 1)``."""
    try:
        expect, percnt, emin = (float(v) for v in hybrid_pars)
    except (TypeError, ValueError):
        raise ValueError("hybrid_pars must be three numbers (expect, percnt, emin), got "
                         f"{hybrid_pars!r}") from None
    if not (expect > 0 and 0 <= percnt <= 100 and emin >= 0):
        raise ValueError("hybrid_pars: expect must be > 0, percnt in [0, 100] and emin >= 0, "
                         f"got {hybrid_pars!r}")
    return expect, percnt, emin


def fisher_test(table, *, alternative="two-sided", conf_level=0.95, null_odds_ratio=1.0,
                method="exact", hybrid=False, hybrid_pars=(5, 80, 1),
                max_entries=MAX_NETWORK_ENTRIES, max_seconds=None, n_resamples=2000,
                seed=None, streams=None, return_statistics=False, dtype=None, device=None,
                progress=None):
    """Fisher's exact test of an r x c table, as R's ``fisher.test``: exact by default (the
    network algorithm on the device for tables larger than 2 x 2), with R's ``hybrid``
    option, or simulated on the device when asked.

    Parameters
    ----------
    table : array_like, 2-D
        Non-negative integer counts. All-zero rows and columns are dropped as R drops them
        (an exact test left with one row or column has p = 1; a 2 x 2 table keeps R's
        estimate 0 or Inf and interval 0 to Inf).
    alternative : {"two-sided", "less", "greater"}, optional
        For 2 x 2 tables: the odds ratio is not equal to, less than or greater than
        ``null_odds_ratio``. Larger tables are tested two-sided only.
    conf_level : float, optional
        Confidence level of the odds ratio's interval (2 x 2).
    null_odds_ratio : float, optional
        The odds ratio under the null hypothesis (2 x 2; R's ``or``).
    method : {"exact", "simulate", "auto"}, optional
        "exact" (R's default): 2 x 2 by the conditional (noncentral hypergeometric) law,
        larger tables by the network algorithm; past ``max_entries`` or ``max_seconds`` an
        error that names ``method="simulate"`` (never a silent switch). "simulate": the Monte
        Carlo test of :func:`fisher_sim` on the device. "auto": exact within the limits, else
        simulated (the result says so in ``note``).
    hybrid : bool, optional
        R's ``hybrid = TRUE``: parts of the network whose remaining table meets Cochran's
        conditions (``hybrid_pars``) are approximated by the chi-square law.
    hybrid_pars : (float, float, float), optional
        R's ``hybridPars``: expected count, percentage of cells, least expected count.
    max_entries : int, optional
        The most partial tables the network may hold at once (about 48 bytes each).
    max_seconds : float, optional
        A time limit for the exact test (None: none).
    n_resamples, seed, streams, return_statistics, dtype, device, progress
        For the simulated test, as :func:`fisher_sim` (without ``seed`` or ``streams`` a seed
        is drawn and kept in the result, so the run can be repeated); ``device`` and
        ``progress`` also run the network.

    Returns
    -------
    FisherTestResult
        ``pvalue``, ``method``; for 2 x 2 ``odds_ratio`` (conditional MLE) and
        ``conf_int``; ``seed`` of a simulation; ``note`` of a fallback; printed as R prints
        the test.

    Raises
    ------
    ValueError
        For bad input, or (``oclstat._fisher.network.ExactTooLarge``) an exact test past its
        limits.

    See Also
    --------
    fisher_sim : the Monte Carlo test alone.
    scipy.stats.fisher_exact : exact p-values on the CPU.
    scipy.stats.contingency.odds_ratio : the conditional odds ratio and its interval.

    Notes
    -----
    Two-sided 2 x 2 p-values add the probabilities at most the observed one's times 1 + 1e-7
    (R's tolerance). The odds ratio and its limits are found to machine precision; R's
    ``uniroot`` stops at about 1.2e-4 on psi or 1/psi, so R's printed estimate and limits
    can differ in the fourth significant digit (the p-values do not). An r x c table counts
    the tables whose log-probability is at most the observed one's plus 3.45254e-7 (R's
    FEXACT tolerance), exactly (:mod:`oclstat._fisher.network`: fixed-point path values, valid
    bounds, no approximation). R's FEXACT bounds the least probable completions heuristically
    and can undercount large tables by a few parts in 1e9; this test agrees with a
    bound-free enumeration to 1e-12.

    References
    ----------
    .. [1] Fisher, R. A. (1935). The logic of inductive inference. Journal of the Royal
           Statistical Society 98(1), 39-82.
    .. [2] Agresti, A. (2002). Categorical Data Analysis, 2nd ed., sections 3.5-3.6 (the
           conditional maximum-likelihood odds ratio and its exact interval).
    .. [3] Mehta, C. R. and Patel, N. R. (1983). A network algorithm for performing Fisher's
           exact test in r x c contingency tables. Journal of the American Statistical
           Association 78(382), 427-434.
    .. [4] Mehta, C. R. and Patel, N. R. (1986). A hybrid algorithm for Fisher's exact test
           in unordered r x c contingency tables. Communications in Statistics - Theory and
           Methods 15(2), 387-403.

    Examples
    --------
    >>> import numpy as np
    >>> res = fisher_test(np.array([[3, 1], [1, 3]]))
    >>> round(res.pvalue, 4), round(res.odds_ratio, 3)      # R: 0.4857, 6.408
    (0.4857, 6.408)
    >>> job = [[1, 2, 1, 0], [3, 3, 6, 1], [10, 10, 14, 9], [6, 7, 12, 11]]
    >>> round(fisher_test(job).pvalue, 10)                   # R: 0.78268493896563884
    0.782684939
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    try:
        conf_level = float(conf_level)
        null_odds_ratio = float(null_odds_ratio)
    except (TypeError, ValueError):
        raise TypeError("conf_level and null_odds_ratio must be numbers") from None
    if not 0.0 < conf_level < 1.0:
        raise ValueError(f"conf_level must be between 0 and 1, got {conf_level}")
    if not null_odds_ratio >= 0.0:
        raise ValueError(f"null_odds_ratio must be >= 0, got {null_odds_ratio}")
    expect, percnt, emin = _hybrid_pars(hybrid_pars)
    max_entries = as_int(max_entries, "max_entries", minimum=1)
    if max_seconds is not None and not float(max_seconds) > 0:
        raise ValueError(f"max_seconds must be > 0 or None, got {max_seconds!r}")
    raw = _as_counts(table, "table")
    if raw.sum() == 0:
        raise ValueError("table holds no counts (every cell is 0)")
    two = raw.shape == (2, 2)
    if not two and alternative != "two-sided":
        raise ValueError(f"alternative={alternative!r} applies to 2 x 2 tables; this one is "
                         f"{raw.shape[0]} x {raw.shape[1]} (tested two-sided)")
    if not two and null_odds_ratio != 1.0:
        raise ValueError("null_odds_ratio applies to 2 x 2 tables only")
    common = dict(alternative=alternative, table=raw, conf_level=conf_level,
                  null_odds_ratio=null_odds_ratio)
    if two:                              # R's 2 x 2 test, empty margins included
        p_exact, estimate, interval = two_by_two(raw, alternative, conf_level, null_odds_ratio)
        common.update(odds_ratio=estimate, conf_int=interval)
        if method != "simulate":
            return FisherTestResult(p_exact, method="exact", **common)
    note = None
    if not two and method != "simulate":
        try:
            net = network_pvalue(raw, hybrid=bool(hybrid), expect=expect, percnt=percnt,
                                 emin=emin, max_entries=max_entries, max_seconds=max_seconds,
                                 dtype=_network_dtype(dtype, device), device=device,
                                 progress=progress)
            return FisherTestResult(net.pvalue, method="exact", network=net,
                                    hybrid=(expect, percnt, emin) if hybrid else None,
                                    **common)
        except ExactTooLarge as exc:
            if method == "exact":
                hint = "" if "ways to fill" in str(exc) else " or raise max_entries / max_seconds"
                raise ExactTooLarge(f"{exc}; use method='simulate' (a Monte Carlo p-value on "
                                    f"the device){hint}") from None
            note = f"the exact test was too large ({exc}): simulated instead"
    if alternative != "two-sided" or null_odds_ratio != 1.0:
        raise ValueError("method='simulate' tests two-sided with null_odds_ratio=1 only")
    kept = raw[raw.sum(axis=1) > 0][:, raw.sum(axis=0) > 0]
    if kept.shape[0] < 2 or kept.shape[1] < 2:
        raise ValueError("the simulated test needs 2 or more non-zero row totals and column "
                         "totals (R drops empty rows and columns before simulating)")
    used_seed = None
    if seed is None and streams is None:
        used_seed = int.from_bytes(os.urandom(4), "little") >> 1
        seed = used_seed
    elif seed is not None:
        used_seed = seed
    sim = fisher_sim(kept, n_resamples, seed=seed, streams=streams,
                     return_statistics=return_statistics, dtype=dtype, device=device,
                     progress=progress)
    return FisherTestResult(sim.pvalue, method="simulate", n_resamples=sim.n_resamples,
                            count=sim.count, null_distribution=sim.null_distribution,
                            seed=used_seed, note=note, **common)


def _network_dtype(dtype, device):
    """The precision of the network's masses: float64 where the device has it (or asked)."""
    if dtype is not None:
        return as_float_dtype(dtype, "dtype")
    return np.float64 if get_runtime(device).info.fp64 else np.float32


def random_table(row_sums, col_sums, size=1, *, seed=None, streams=None, dtype=None,
                 device=None, progress=None):
    """Random tables with the given margins, drawn as :func:`fisher_sim` draws them.

    Parameters
    ----------
    row_sums, col_sums : sequence of int
        The margins (equal totals).
    size : int or tuple of int, optional
        How many tables (the leading shape of the result).
    seed, streams, dtype, device, progress
        As :func:`fisher_sim`.

    Returns
    -------
    numpy.ndarray of int64, shape ``size + (len(row_sums), len(col_sums))``

    See Also
    --------
    scipy.stats.random_table : the same law on the CPU.
    fisher_sim : the test these tables feed.

    Notes
    -----
    Each table has probability ``prod(row_sums!) prod(col_sums!) / (n! prod(x_ij!))`` (the
    multivariate hypergeometric law). Integer results: identical on every device for the
    same seed.

    References
    ----------
    .. [1] Patefield, W. M. (1981). Algorithm AS 159: an efficient method of generating
           random r x c tables with given row and column totals. Applied Statistics 30(1),
           91-97.

    Examples
    --------
    >>> t = random_table([3, 2], [1, 4], size=3, seed=1)
    >>> t.shape, t.sum(axis=2).tolist()[0], t.sum(axis=1).tolist()[0]
    ((3, 2, 2), [3, 2], [1, 4])
    """
    rows = _as_margin(row_sums, "row_sums")
    cols = _as_margin(col_sums, "col_sums")
    if rows.sum() != cols.sum():
        raise ValueError(
            f"row_sums and col_sums must have the same total, got {rows.sum()} and {cols.sum()}"
        )
    if rows.sum() > MAX_TOTAL:
        raise ValueError(f"the margins total {rows.sum()}; up to {MAX_TOTAL} is supported")
    shape, n = as_shape(size)
    # the tables as uint32 on the way, int64 when returned (and a reordered copy)
    check_host_memory(n * len(rows) * len(cols) * (4 + 8 + 8), f"random_table(size={size!r})",
                      "draw fewer tables per call (streams= continues where the last call "
                      "stopped)")
    rt = get_runtime(device)
    dt = _choose_dtype(rt, dtype)
    margins = _Margins.of(rows, cols)
    if n == 0:
        return np.zeros(shape + (len(rows), len(cols)), dtype=np.int64)
    logfact, bits = _device_log_factorials(rt, int(rows.sum()))
    _, _, flat = _run_rcont2(
        rt, [margins], np.zeros(1, dtype=np.int64), n, logfact, bits, seed=seed,
        streams=streams, dtype=dt,
        store_stats=False, store_tables=True, progress=progress, desc="random_table",
    )
    drawn = flat.reshape((n,) + margins.shape).astype(np.int64)
    return margins.restore(drawn).reshape(shape + (len(rows), len(cols)))
