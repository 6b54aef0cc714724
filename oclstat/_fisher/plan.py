"""Planning the Fisher test on the device: fixed-point log-factorials, margins in the kernel's
order, and the precision."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._validation import as_float_dtype, as_int

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


# ----------------------------------------------------------------------------- log-factorials

#: Up to this many values, log(k!) comes from math.lgamma (no scipy import at start-up: a
#: whole process testing one table is a third faster to start); beyond, scipy's gammaln.
_PURE_PYTHON_LGAMMA = 1 << 17


def _log_factorials(k: np.ndarray) -> np.ndarray:
    """log(k!) of non-negative integers ``k`` (float64, same shape)."""
    k = np.asarray(k)
    if k.size <= _PURE_PYTHON_LGAMMA:
        flat = np.fromiter((math.lgamma(v + 1.0) for v in k.ravel().tolist()), np.float64,
                           count=k.size)
        return flat.reshape(k.shape)
    from scipy.special import gammaln

    return gammaln(k.astype(np.float64) + 1.0)


def _scale_bits(total: int) -> int:
    """Fixed-point bits for log-factorials up to ``total``: sums of a few log(k!) must stay
    below 2^63 (the device adds up to two brackets of three, each at most log(total!))."""
    top = math.lgamma(total + 1.0)
    if top < 1.0:
        return 48
    return int(min(48, math.floor(math.log2(2.0**60 / top))))


@lru_cache(maxsize=8)
def _log_factorial_cached(total: int, bits: int) -> np.ndarray:
    table = np.rint(_log_factorials(np.arange(total + 1)) * 2.0**bits)
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


def _observed(x: np.ndarray, logfact: np.ndarray, bits: int) -> tuple[float, int]:
    """(R's statistic, the device's threshold in fixed point) for observed table ``x``."""
    log_prod = float(np.sum(_log_factorials(x)))
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


def prepare(rt, tables: list[np.ndarray], total: int | None = None):
    """Margins, R's statistics, the device's thresholds and the fixed-point log-factorials of
    cleaned tables (``total``: the largest total the log-factorials must cover, default the
    tables' own; a task of a batch passes the whole batch's, so every split agrees)."""
    margins = [_Margins.of(x.sum(axis=1), x.sum(axis=0)) for x in tables]
    if total is None:
        total = max(int(x.sum()) for x in tables)
    logfact, bits = _device_log_factorials(rt, total)
    observed = [_observed(x, logfact, bits) for x in tables]
    statistic = np.array([o[0] for o in observed])
    thresholds = np.array([o[1] for o in observed], dtype=np.int64)
    return margins, statistic, thresholds, logfact, bits
