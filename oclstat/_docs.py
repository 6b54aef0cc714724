"""Docstring pieces shared by several public functions, written once (as scipy's ``doccer``).

A docstring holds ``%(name)s``; :func:`filled` replaces it with the block of that name,
indented as the placeholder is.

>>> @filled(seed="seed : int\\n    The seed.")
... def f(seed=None):
...     '''Draw.
...
...     Parameters
...     ----------
...     %(seed)s
...     '''
>>> print(f.__doc__.strip().splitlines()[-1].strip())
The seed.
"""

from __future__ import annotations

import re

__all__ = ["filled", "BLOCKS"]

#: Shared blocks by name.
BLOCKS: dict[str, str] = {
    "mrg_references": """\
.. [1] L'Ecuyer, P. and Touzin, R. (2000). Fast combined multiple recursive generators with
       multipliers of the form a = ±2^q ± 2^r. Proceedings of the 2000 Winter Simulation
       Conference, 683-689.
.. [2] L'Ecuyer, P., Munger, D. and Kemerchou, N. (2015). clRNG: a random number API with
       multiple streams for OpenCL. Université de Montréal.""",
    "streams_seed": """\
streams : Streams, optional
    Streams to draw from (advanced in place). Mutually exclusive with ``seed``.
seed : int or six integers, optional
    Seed for fresh streams (see the module docstring for the layout); neither given: a
    fresh seed from the operating system.""",
    "device_out_progress": """\
device : optional
    Device (see :func:`oclstat.get_runtime`); default: the streams' device or the best one.
out : pyopencl.array.Array, optional
    Device array to fill instead of returning a host array.
progress : bool or None
    Progress bar for long runs (None: automatic).""",
    "broad_formats": """\
.. [1] Broad Institute. GSEA data formats (GCT, CLS, GMT).
       https://software.broadinstitute.org/cancer/software/gsea/wiki/index.php/Data_formats""",
    "text_source": """\
source : path, file object or str
    The file (gzip and a UTF-8 byte-order mark are read by content; CRLF line ends too).""",
    "batch_dtype": """\
dtype : {None, numpy.float64, numpy.float32}, optional
    Precision (default: float32 when every input is float32, else float64).""",
    "element_dtype_device": """\
dtype : numpy.float64 or numpy.float32, optional
    Precision of the evaluation.
device : optional
    Device (see :func:`oclstat.get_runtime`).""",
    "batch_device_client": """\
device : int, str, Runtime or list, optional
    The OpenCL device; a list spreads the matrices over several devices.
client : dask.distributed.Client, optional
    Run chunks of matrices as tasks on a Dask cluster instead.""",
}


def filled(**extra: str):
    """Replace ``%(name)s`` in the function's docstring with :data:`BLOCKS` (and ``extra``)."""
    blocks = {**BLOCKS, **extra}

    def fill(match: re.Match) -> str:
        indent, name = match.group(1), match.group(2)
        return "\n".join(indent + line if line else "" for line in blocks[name].split("\n"))

    def decorate(fn):
        if fn.__doc__:
            fn.__doc__ = re.sub(r"^([ \t]*)%\((\w+)\)s$", fill, fn.__doc__, flags=re.M)
        return fn
    return decorate
