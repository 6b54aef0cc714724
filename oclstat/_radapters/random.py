"""The adapters of the R functions that the R package's file of the same name defines:
createStreams, runifGpu, rnormGpu and rexpGpu (clrng's and gpuRandom's draws).
"""

from __future__ import annotations

from .base import (
    RValue,
    as_streams,
    draw_size,
    dtype_of,
    first_streams,
    r_function,
    streams_value,
    work_items,
)


@r_function("createStreams", "random.create_streams")
def create_streams(n, seed=(12345,) * 6, *, device=None):
    from ..random import create_streams as run

    return streams_value(run(n, seed=seed))


def _draw(kind: str, n, streams, Nglobal, type_, seed, device, **extra):
    from .. import random

    st = as_streams(first_streams(streams, work_items(Nglobal)))
    values = getattr(random, kind)(draw_size(n), streams=st, seed=None if st is not None else seed,
                                   dtype=dtype_of(type_), device=device, **extra)
    if st is None:
        return values
    return RValue(values, attributes={"streams": streams_value(st)})


@r_function("runifGpu", "random.uniform")
def runif(n, streams=None, Nglobal=None, type="double", verbose=False, seed=None, *,
          device=None):
    return _draw("uniform", n, streams, Nglobal, type, seed, device)


@r_function("rnormGpu", "random.normal")
def rnorm(n, streams=None, Nglobal=None, type="double", verbose=False, seed=None, *,
          device=None):
    return _draw("normal", n, streams, Nglobal, type, seed, device)


@r_function("rexpGpu", "random.exponential")
def rexp(n, rate=1.0, streams=None, Nglobal=None, type="double", verbose=False,
         seed=None, *, device=None):
    return _draw("exponential", n, streams, Nglobal, type, seed, device, rate=float(rate))
