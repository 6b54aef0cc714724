"""Argument checks shared by every capability: each error names the argument and what it expects.

>>> as_shape((2, 3))
((2, 3), 6)
>>> as_shape(-1)
Traceback (most recent call last):
...
ValueError: size must be non-negative, got -1
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np


def _is_int(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def as_int(value, name: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as a Python int; floats with an integral value (1e6) are accepted."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got a boolean")
    if _is_int(value):
        out = int(value)
    elif isinstance(value, (numbers.Real, np.floating)) and math.isfinite(value) and value == int(
        value
    ):
        out = int(value)
    else:
        raise TypeError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {out}")
    return out


def as_shape(size, name: str = "size") -> tuple[tuple[int, ...], int]:
    """A numpy-style ``size`` (int or tuple of ints) as (shape, number of elements)."""
    if _is_int(size) or isinstance(size, (numbers.Real, np.floating)):
        dims = (size,)
    elif isinstance(size, (Sequence, np.ndarray)) and not isinstance(size, str):
        dims = tuple(size)
    else:
        raise TypeError(f"{name} must be an int or a tuple of ints, got {size!r}")
    shape = []
    for d in dims:
        try:
            v = as_int(d, name)
        except TypeError:
            raise TypeError(f"{name} must be an int or a tuple of ints, got {size!r}") from None
        if v < 0:
            raise ValueError(f"{name} must be non-negative, got {size!r}")
        shape.append(v)
    return tuple(shape), int(np.prod(shape, dtype=np.int64)) if shape else 1


def as_finite(value, name: str, *, positive: bool = False, nonnegative: bool = False) -> float:
    """A finite real scalar (optionally > 0 or >= 0)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real number, got {value!r}") from None
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a real number, got a boolean")
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if positive and not v > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if nonnegative and v < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return v


def as_float_dtype(dtype, name: str = "dtype") -> np.dtype:
    """float32 or float64 (anything numpy.dtype understands that means one of them)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be numpy.float32 or numpy.float64, got {dtype!r}") from None
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"{name} must be numpy.float32 or numpy.float64, got {dt}")
    return dt


def as_bool(value, name: str) -> bool:
    """``value`` as a bool: True or False (numpy's too), else a TypeError naming ``name``.

    >>> as_bool(np.True_, "sparse")
    True
    >>> as_bool("yes", "sparse")
    Traceback (most recent call last):
    TypeError: sparse must be True or False, got 'yes'
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def as_bool_or_none(value, name: str) -> bool | None:
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    raise TypeError(f"{name} must be True, False or None, got {value!r}")


def host_memory_available() -> int:
    """Bytes of host memory available now (Linux: MemAvailable; elsewhere free pages)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import os

        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def check_host_memory(nbytes: int, what: str, fix: str = "") -> None:
    """Refuse, before any work, a result that cannot fit in host memory: ``ValueError`` with
    the figure (what it needs, what is available) and ``fix``, what to do instead.

    >>> check_host_memory(10**18, "the result", "ask for less")
    Traceback (most recent call last):
    ...
    ValueError: the result needs 1e+09 GB of host memory...
    """
    available = host_memory_available()
    if nbytes > 0.8 * available:
        raise ValueError(f"{what} needs {nbytes / 1e9:.3g} GB of host memory, more than the "
                         f"{available / 1e9:.3g} GB available" + (f"; {fix}" if fix else ""))
