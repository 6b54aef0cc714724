"""Monte Carlo Fisher exact test for r x c tables, and random tables with fixed margins.

:func:`fisher_sim` is R's ``fisher.test(x, simulate.p.value = TRUE, B = n_resamples)`` on the
device (gpuRandom's ``fisher.sim``): random tables with the observed margins are drawn by
Patefield's algorithm (AS 159, R's ``rcont2``), one table per work-item per round, and those at
most as probable as the observed table are counted on the device.

R's conventions are kept: rows and columns that are all zero are dropped first (fewer than two
of either left is an error); the statistic is ``-sum(log(x_ij!))``, larger for more probable
tables; a simulated table counts when its statistic is at most the observed one divided by
``almost.1 = 1 + 64 * eps`` (R's tolerance for ties); the p-value is
``(1 + count) / (n_resamples + 1)``.

On the device the statistic is computed in fixed point: ``round(log(k!) * 2^s)`` as 64-bit
integers (``s`` as large as the table total allows, 48 bits for small totals), summed exactly,
so tables with the same cells in any order have exactly the same statistic and every device
gets the same counts for the same seed. R's tolerance is applied in the same units. The
sampling itself uses only correctly rounded arithmetic (see ``exact_math.clh``): the random
tables too are identical on every device.

**Which stream makes which table.** A batch of ``K`` tables uses ``S`` streams per table
(with ``seed=``: ``S = max(1, min(n_resamples, 2**18 // K))``, with ``streams=``:
``S = streams.n_streams // K``); stream ``t * S + j`` makes resamples ``j, j + S, j + 2S, ...``
of table ``t``. The mapping depends only on ``K``, ``S`` and ``n_resamples``, never on the
device.

>>> import numpy as np, oclstat
>>> x = np.array([[12, 5, 7], [3, 9, 4], [6, 2, 11]])
>>> res = oclstat.fisher_sim(x, n_resamples=20000, seed=1)
>>> res.n_resamples, round(res.statistic, 4)
(20000, -75.8462)
>>> 0.012 < res.pvalue < 0.022     # R's exact fisher.test(x): 0.01687
True
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from scipy.special import gammaln

from . import random as ocr
from ._multitest import benjamini_hochberg
from ._progress import Progress
from ._runtime import get_runtime
from ._validation import as_float_dtype, as_int, as_shape, check_host_memory

__all__ = [
    "FisherSimResult",
    "FisherSimBatchResult",
    "fisher_sim",
    "fisher_sim_batch",
    "random_table",
    "log_factorial_fixed",
]

#: Streams used with ``seed=`` for one table (a batch of K tables uses 2**18 // K per table).
MAX_STREAMS = 2**18
#: R's tie tolerance in ``fisher.test``: ``almost.1 <- 1 + 64 * .Machine$double.eps``.
ALMOST_ONE = 1.0 + 64.0 * np.finfo(np.float64).eps
METHOD = "Fisher's Exact Test for Count Data with simulated p-value"
#: The largest table total: cells and margins are 32-bit on the device.
MAX_TOTAL = 2**31 - 1
_U32 = np.uint32
_U64 = np.uint64
_TARGET_LAUNCH_S = 0.5


# ----------------------------------------------------------------------------- input checks


def _as_counts(table, name: str) -> np.ndarray:
    """A 2-D int64 array of non-negative integer counts, or a ValueError/TypeError naming
    ``name``."""
    try:
        arr = np.asarray(table)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a 2-D table of counts ({exc})") from None
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers, got objects") from None
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integer counts, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be 2-D (rows x columns), got {arr.ndim}-D with shape {arr.shape}"
        )
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(f"{name} holds NaN or infinite values; counts must be finite")
        if (arr != np.round(arr)).any():
            raise ValueError(f"{name} holds non-integer values; counts must be whole numbers")
    if (arr < 0).any():
        raise ValueError(f"{name} holds negative values; counts must be >= 0")
    if arr.size and arr.max() > MAX_TOTAL:
        raise ValueError(f"{name} holds a count above {MAX_TOTAL}")
    counts = arr.astype(np.int64)
    total = int(counts.sum())
    if total > MAX_TOTAL:
        raise ValueError(f"{name} totals {total}; tables up to {MAX_TOTAL} are supported")
    return counts


def _drop_empty(x: np.ndarray, name: str) -> np.ndarray:
    """R's rule: drop all-zero rows and columns; at least 2 x 2 must remain."""
    x = x[x.sum(axis=1) > 0][:, x.sum(axis=0) > 0]
    if x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(
            f"{name} must have at least 2 rows and 2 columns with non-zero totals, got "
            f"{x.shape[0]} x {x.shape[1]} after dropping empty rows and columns"
        )
    return x


# ----------------------------------------------------------------------------- log-factorials


def _scale_bits(total: int) -> int:
    """Fixed-point bits for log-factorials up to ``total``: sums of a few log(k!) must stay
    below 2^63 (the device adds up to two brackets of three, each at most log(total!))."""
    top = float(gammaln(total + 1.0))
    if top < 1.0:
        return 48
    return int(min(48, math.floor(math.log2(2.0**60 / top))))


@lru_cache(maxsize=8)
def _log_factorial_cached(total: int, bits: int) -> np.ndarray:
    table = np.rint(gammaln(np.arange(total + 1, dtype=np.float64) + 1.0) * 2.0**bits)
    out = table.astype(np.int64)
    out.setflags(write=False)
    return out


def log_factorial_fixed(total: int) -> tuple[np.ndarray, int]:
    """``(table, s)``: ``table[k] = round(log(k!) * 2**s)`` as int64 for ``k <= total``.

    The device sums these exactly; ``s`` is the largest number of bits (at most 48) for which
    sums of log-factorials of a table with this total cannot overflow.

    >>> t, s = log_factorial_fixed(10)
    >>> s, round(float(t[10]) / 2**s, 10)      # log(10!) = 15.1044125730755...
    (48, 15.1044125731)
    """
    total = as_int(total, "total", minimum=0, maximum=MAX_TOTAL)
    bits = _scale_bits(total)
    if total > 10_000_000:  # too big to keep around
        return _log_factorial_cached.__wrapped__(total, bits), bits
    return _log_factorial_cached(total, bits), bits


# ----------------------------------------------------------------------------- planning


@dataclass(frozen=True)
class _Margins:
    """One table's margins as the kernel sees them: oriented so that nc <= nr and each sorted
    ascending (largest row and column last, where the algorithm derives cells instead of
    drawing them). ``kernel[i, j] = table[rows[i], cols[j]]`` (transposed first if
    ``transposed``)."""

    row_totals: np.ndarray
    col_totals: np.ndarray
    row_order: np.ndarray
    col_order: np.ndarray
    transposed: bool

    @classmethod
    def of(cls, row_sums: np.ndarray, col_sums: np.ndarray) -> _Margins:
        transposed = len(col_sums) > len(row_sums)
        if transposed:
            row_sums, col_sums = col_sums, row_sums
        row_order = np.argsort(row_sums, kind="stable")
        col_order = np.argsort(col_sums, kind="stable")
        return cls(row_sums[row_order], col_sums[col_order], row_order, col_order, transposed)

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.row_totals), len(self.col_totals)

    def restore(self, tables: np.ndarray) -> np.ndarray:
        """Tables drawn in kernel layout (..., nr, nc) back in the caller's layout."""
        out = np.empty_like(tables)
        out[..., self.row_order[:, None], self.col_order[None, :]] = tables
        return np.swapaxes(out, -1, -2) if self.transposed else out


def _pow2_at_least(n: int, floor: int = 4) -> int:
    return max(floor, 1 << (max(1, n) - 1).bit_length())


def _choose_dtype(rt, dtype) -> np.dtype:
    if dtype is None:
        return np.dtype(np.float64 if rt.info.fp64 else np.float32)
    dt = as_float_dtype(dtype)
    if dt == np.float64:
        rt.require_fp64("fisher_sim(dtype=float64)")
    return dt


def _run_rcont2(rt, margins: list[_Margins], thresholds: np.ndarray, n_resamples: int,
                logfact: np.ndarray, bits: int, *, seed, streams, dtype, store_stats: bool,
                store_tables: bool, progress, desc: str):
    """Draw ``n_resamples`` tables for each margin set (``logfact``, ``bits``: the fixed-point
    log-factorials of :func:`log_factorial_fixed` for the largest total); returns (counts
    per table, statistics or None, tables or None)."""
    k = len(margins)
    ocr.check_stream_source(seed, streams)
    if streams is not None:
        per_table = streams.n_streams // k
        if per_table < 1:
            raise ValueError(
                f"streams holds {streams.n_streams} streams; a batch of {k} tables needs at "
                "least one per table"
            )
    else:
        per_table = max(1, min(n_resamples, MAX_STREAMS // k))
    n_items = k * per_table

    nr_max = max(m.shape[0] for m in margins)
    nc_max = _pow2_at_least(max(m.shape[1] for m in margins))
    dims = np.zeros((k, 3), dtype=_U32)
    rows = np.zeros((k, nr_max), dtype=_U32)
    cols = np.zeros((k, nc_max), dtype=_U32)
    for t, m in enumerate(margins):
        nr, nc = m.shape
        dims[t] = (nr, nc, m.row_totals.sum())
        rows[t, :nr] = m.row_totals
        cols[t, :nc] = m.col_totals
    cells = int(max(nr * nc for nr, nc in (m.shape for m in margins)))

    defines = rt.real_defines(dtype)
    defines["NC_MAX"] = str(nc_max)
    group = None
    if rt.gpu_schedule and nc_max <= 64:      # column totals in local memory, not a stack
        defines["COLUMN_LOCAL"] = "1"
    options = () if dtype == np.float64 else ("-cl-fp32-correctly-rounded-divide-sqrt",)
    kernel = rt.kernel("fisher.cl", "rcont2_count", defines, options)
    if "COLUMN_LOCAL" in defines:
        group = rt.local_size(kernel)
        while group > 1 and group * nc_max * 4 > rt.local_mem:
            group //= 2
    col_local = rt.local_memory(4 * nc_max * (group or 1))

    states, user_streams = ocr.stream_buffer(rt, n_items, seed=seed, streams=streams)
    d_dims = rt.to_device(dims, writable=False)
    d_rows = rt.to_device(rows, writable=False)
    d_cols = rt.to_device(cols, writable=False)
    d_logfact = rt.to_device(logfact, writable=False)
    d_threshold = rt.to_device(np.ascontiguousarray(thresholds, dtype=np.int64), writable=False)
    d_counts = rt.to_device(np.zeros(n_items, dtype=_U64))
    spill = rt.empty(n_items * nc_max * 4) if nc_max > 64 else rt.empty(4)
    scale = dtype.type(2.0**-bits)

    total_rounds = -(-n_resamples // per_table)
    bytes_per_round = 0
    if store_stats:
        bytes_per_round += k * per_table * 8
    if store_tables:
        bytes_per_round += per_table * cells * 4
    max_rounds = total_rounds
    if bytes_per_round:
        max_rounds = max(1, min(total_rounds, rt.max_items(bytes_per_round, fraction=0.25)))
    stats = np.empty((k, n_resamples), dtype=np.int64) if store_stats else None
    tables = np.empty((n_resamples, cells), dtype=_U32) if store_tables else None
    d_stats = rt.empty(max_rounds * k * per_table * 8) if store_stats else rt.empty(8)
    d_tables = rt.empty(max_rounds * per_table * cells * 4) if store_tables else rt.empty(4)
    store = _U32((1 if store_stats else 0) | (2 if store_tables else 0))

    round0, rounds = 0, 1
    with Progress(n_resamples, desc=desc, enabled=progress) as bar:
        while round0 < total_rounds:
            n_rounds = min(rounds, total_rounds - round0, max_rounds)
            t0 = time.perf_counter()
            rt.launch(kernel, n_items, states, _U64(n_items), _U64(per_table),
                      _U64(n_resamples), _U64(round0), _U64(n_rounds), d_dims,
                      _U64(nr_max), d_rows, d_cols, d_logfact, scale, d_threshold, d_counts,
                      store, d_stats, d_tables, spill, col_local, local_size=group)
            b0 = round0 * per_table
            b1 = min(n_resamples, (round0 + n_rounds) * per_table)
            if store_stats:
                chunk = np.empty((k, n_rounds * per_table), dtype=np.int64)
                rt.read(d_stats, chunk)
                stats[:, b0:b1] = chunk[:, : b1 - b0]
            if store_tables:
                chunk = np.empty((n_rounds * per_table, cells), dtype=_U32)
                rt.read(d_tables, chunk)
                tables[b0:b1] = chunk[: b1 - b0]
            rt.finish()
            elapsed = time.perf_counter() - t0
            round0 += n_rounds
            bar.update(b1 - b0)
            # Launch lengths adapt to the device (results do not depend on them).
            grow = _TARGET_LAUNCH_S / max(elapsed, 1e-4)
            rounds = max(1, min(rounds * 8, int(n_rounds * grow)))

    counts = np.empty(n_items, dtype=_U64)
    rt.read(d_counts, counts)
    if user_streams is not None:
        user_streams._device_changed()
    return counts.reshape(k, per_table).sum(axis=1).astype(np.int64), stats, tables


# ----------------------------------------------------------------------------- results


def _r_number(n: int) -> str:
    """How R's ``paste()`` writes a whole number (1e+06, 20000, 123456)."""
    fixed = str(n)
    mant, exp = f"{n:.14e}".split("e")
    mant = mant.rstrip("0").rstrip(".")
    sci = f"{mant}e{'+' if int(exp) >= 0 else '-'}{abs(int(exp)):02d}"
    return sci if len(sci) < len(fixed) else fixed


def _r_pvalue(p: float) -> str:
    """R's ``format.pval(p, digits = 4)`` as print.htest shows it."""
    eps = np.finfo(np.float64).eps
    if p < eps:
        return f"< {eps:.2g}"
    text = f"{p:.4g}"
    if "e" in text:
        mant, exp = text.split("e")
        text = f"{mant}e{exp[0]}{int(exp[1:]):02d}"
    return f"= {text}"


@dataclass(frozen=True)
class FisherSimResult:
    """Result of :func:`fisher_sim` for one table (scipy-style, printable like R's htest).

    statistic : float
        ``-sum(log(x_ij!))`` of the observed table (R's ``STATISTIC``).
    pvalue : float
        ``(1 + count) / (n_resamples + 1)``.
    count : int
        Simulated tables at most as probable as the observed one (R's tolerance).
    n_resamples : int
        Tables simulated.
    null_distribution : numpy.ndarray or None
        The statistics of the simulated tables (``return_statistics=True``), in resample order.
    table : numpy.ndarray
        The table tested (empty rows and columns dropped).
    """

    statistic: float
    pvalue: float
    count: int
    n_resamples: int
    null_distribution: np.ndarray | None = field(default=None, repr=False)
    table: np.ndarray | None = field(default=None, repr=False)
    data_name: str = field(default="x", repr=False)

    @property
    def method(self) -> str:
        return METHOD

    def report(self) -> str:
        """The test as R's ``print(fisher.test(...))`` shows it."""
        return (
            f"\n\t{METHOD} (based on\n\t{_r_number(self.n_resamples)} replicates)\n\n"
            f"data:  {self.data_name}\np-value {_r_pvalue(self.pvalue)}\n"
            "alternative hypothesis: two.sided\n"
        )

    def __str__(self) -> str:
        return self.report()


@dataclass(frozen=True)
class FisherSimBatchResult:
    """Result of :func:`fisher_sim_batch`: one entry per table (arrays of length K).

    ``null_distribution`` is (K, n_resamples) when asked for. :meth:`to_frame` gives a table
    with Benjamini-Hochberg q-values.
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    count: np.ndarray
    n_resamples: int
    null_distribution: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.pvalue)

    def __getitem__(self, i: int) -> FisherSimResult:
        nd = None if self.null_distribution is None else self.null_distribution[i]
        return FisherSimResult(float(self.statistic[i]), float(self.pvalue[i]),
                               int(self.count[i]), self.n_resamples, nd)

    def qvalues(self) -> np.ndarray:
        """Benjamini-Hochberg adjusted p-values (R's ``p.adjust(p, "BH")``)."""
        return benjamini_hochberg(self.pvalue)

    def to_frame(self):
        """A pandas DataFrame: statistic, count, pvalue, qvalue (BH), one row per table."""
        import pandas as pd

        return pd.DataFrame({"statistic": self.statistic, "count": self.count,
                             "pvalue": self.pvalue, "qvalue": self.qvalues()})


# ----------------------------------------------------------------------------- the test


def _observed(x: np.ndarray, logfact: np.ndarray, bits: int) -> tuple[float, int]:
    """(R's statistic, the device's threshold in fixed point) for observed table ``x``."""
    log_prod = float(np.sum(gammaln(x + 1.0)))
    fixed = int(logfact[x].sum())
    # R counts simulated statistics <= STATISTIC / almost.1, i.e. sum log(sim!) at least
    # sum log(x!) * (1 - 1/almost.1) below the observed sum: the same margin in fixed point.
    tolerance = math.ceil(log_prod * (1.0 - 1.0 / ALMOST_ONE) * 2.0**bits)
    return -log_prod, fixed - tolerance


def _device_log_factorials(rt, total: int) -> tuple[np.ndarray, int]:
    """:func:`log_factorial_fixed` for ``total``, after checking the device can hold it."""
    need = (total + 1) * 8
    if need > rt.info.max_alloc:
        raise ValueError(
            f"a table total of {total} needs a log-factorial table of {need} bytes, more than "
            f"the largest buffer of {rt.info.label} ({rt.info.max_alloc} bytes)"
        )
    return log_factorial_fixed(total)


def _prepare(rt, tables: list[np.ndarray]):
    margins = [_Margins.of(x.sum(axis=1), x.sum(axis=0)) for x in tables]
    logfact, bits = _device_log_factorials(rt, max(int(x.sum()) for x in tables))
    observed = [_observed(x, logfact, bits) for x in tables]
    statistic = np.array([o[0] for o in observed])
    thresholds = np.array([o[1] for o in observed], dtype=np.int64)
    return margins, statistic, thresholds, logfact, bits


def fisher_sim_batch(tables, n_resamples=2000, *, seed=None, streams=None,
                     return_statistics=False, dtype=None, device=None, progress=None):
    """Monte Carlo Fisher tests for many tables in one launch (one test per gene, per SNP).

    Parameters
    ----------
    tables : array_like (K, r, c), or a sequence of K 2-D tables of any shapes
        Non-negative integer counts. Each table's empty rows and columns are dropped; each
        must keep at least 2 x 2 (an error names the first that does not).
    n_resamples, seed, streams, return_statistics, dtype, device, progress
        As :func:`fisher_sim`; every table gets ``n_resamples`` simulated tables.

    Returns
    -------
    FisherSimBatchResult

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
    rt = get_runtime(device)
    dt = _choose_dtype(rt, dtype)
    margins, statistic, thresholds, logfact, bits = _prepare(rt, cleaned)
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
    FisherSimResult, or FisherSimBatchResult for a 3-D input.

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


def random_table(row_sums, col_sums, size=1, *, seed=None, streams=None, dtype=None,
                 device=None, progress=None):
    """Random tables with the given margins, drawn as :func:`fisher_sim` draws them.

    Each table has probability ``prod(row_sums!) prod(col_sums!) / (n! prod(x_ij!))`` (the
    multivariate hypergeometric law; scipy's ``random_table(row, col).rvs(size)``). Integer
    results: identical on every device for the same seed.

    Returns an int64 array of shape ``size + (len(row_sums), len(col_sums))``.

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


def _as_margin(values, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence of counts, got {arr.shape}")
    return _as_counts(arr[None, :], name)[0]
