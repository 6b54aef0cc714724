"""What every result class shares (:class:`Result`): frozen, a short repr that names the sizes
and the best rows, never whole arrays, ``to_frame()``, and ``input``, what was read when the
inputs came from files.

>>> import numpy as np
>>> short_repr("Result", pvalue=np.zeros(1000), n_resamples=2000, alternative="less")
'Result(pvalue=<1000 values>, n_resamples=2000, alternative=less)'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ._readers.inference import input_of

__all__ = ["Result", "short_repr", "with_input", "r_number"]


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        if value.ndim == 0 or value.size == 1:
            return f"{value.ravel()[0]:.6g}" if value.dtype.kind == "f" else str(value.ravel()[0])
        shape = " x ".join(str(s) for s in value.shape)
        return f"<{shape} values>" if value.ndim == 1 else f"<{shape} array>"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)) and len(value) > 4:
        return f"<{len(value)} items>"
    return str(value)


def short_repr(name: str, **fields) -> str:
    """``name(field=value, ...)`` with arrays and long lists written as their sizes."""
    return f"{name}({', '.join(f'{k}={_short(v)}' for k, v in fields.items())})"


@dataclass(frozen=True, repr=False)
class Result:
    """The base of every result: frozen (a dataclass), ``repr`` from :meth:`_repr_fields`
    (sizes and best rows, :func:`short_repr`) and :meth:`_repr_note`, ``to_frame()`` (the
    ``table``, a copy, unless the result defines its own) and ``input``.

    >>> @dataclass(frozen=True, repr=False)
    ... class Counts(Result):
    ...     counts: np.ndarray
    ...     def _repr_fields(self):
    ...         return {"cells": self.counts, "total": int(self.counts.sum())}
    >>> Counts(np.arange(5))
    Counts(cells=<5 values>, total=10)
    """

    #: What was read, when the inputs came from files (:class:`oclstat.io.ReadInfo`: every
    #: decision a reader took, with the option that reverses it); None for arrays. A
    #: keyword-only field: it follows every field of the result.
    input: object = field(default=None, compare=False, repr=False, kw_only=True)

    def _repr_fields(self) -> dict:
        """The fields ``repr`` shows (each result its own)."""
        return {}

    def _repr_note(self) -> str:
        """Text after the fields (a hint, a warning); empty by default."""
        return ""

    def __repr__(self) -> str:
        return short_repr(type(self).__name__, **self._repr_fields()) + self._repr_note()

    def to_frame(self):
        """The results table (a copy)."""
        return self.table.copy()


def with_input(result, *inputs):
    """``result`` with ``input`` set to what was read for ``inputs`` (the readers' outputs
    carry it as ``.input`` or ``.attrs["input"]``); unchanged when none came from a file."""
    info = input_of(*inputs)
    return result if info is None else dataclasses.replace(result, input=info)


def r_number(x: float) -> str:
    """``x`` as R's ``paste(x)`` writes it: fixed notation unless scientific is shorter (the
    replicates of fisher.test's report, the eps of fgsea's warnings).

    >>> r_number(1_000_000), r_number(20000), r_number(123456), r_number(1e-4), r_number(0.001)
    ('1e+06', '20000', '123456', '1e-04', '0.001')
    >>> r_number(1e-50), r_number(0.5)
    ('1e-50', '0.5')
    """
    mant, _, exp = f"{x:.14e}".partition("e")
    mant = mant.rstrip("0").rstrip(".")
    sci = f"{mant}e{'-' if int(exp) < 0 else '+'}{abs(int(exp)):02d}"
    fixed = np.format_float_positional(float(f"{x:.15g}"), trim="-")
    return fixed if len(fixed) <= len(sci) else sci
