"""What every result class shares: a short repr that names the sizes and the best rows, never
whole arrays.

>>> import numpy as np
>>> short_repr("Result", pvalue=np.zeros(1000), n_resamples=2000, alternative="less")
'Result(pvalue=<1000 values>, n_resamples=2000, alternative=less)'
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ._readers.inference import input_of

__all__ = ["short_repr", "with_input"]


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


def with_input(result, *inputs):
    """``result`` with ``input`` set to what was read for ``inputs`` (the readers' outputs
    carry it as ``.input`` or ``.attrs["input"]``); unchanged when none came from a file."""
    info = input_of(*inputs)
    return result if info is None else dataclasses.replace(result, input=info)
