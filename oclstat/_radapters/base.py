"""What every R adapter shares: the registry (an adapter under its R name, its R formals, R's
words in its errors and warnings), the R values adapters return, and the stream and size
arguments of clrng and gpuRandom."""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field

import numpy as np

from .._vocabulary import python_to_r

#: Column names of gpuRandom's stream matrices (n x 12: current, then initial states).
STREAM_COLUMNS = tuple(f"{w}.g{g}.{i}" for w in ("current", "initial")
                       for g in (1, 2) for i in (1, 2, 3))


@dataclass(frozen=True)
class RValue:
    """An R value with a class or attributes: ``value`` is a dict (an R named list; a
    data.frame's columns) or an array (a vector, matrix, or a factor's 1-based codes)."""

    value: object
    r_class: str | None = None
    attributes: dict = field(default_factory=dict)


class Characters(list):
    """A character vector (a plain list of strings could also be an R list)."""


class RSparse:
    """An R ``dgCMatrix`` in Python: a scipy CSC matrix (genes x samples) and its row and
    column names (None where R has none)."""

    def __init__(self, matrix, rownames, colnames):
        self.matrix = matrix
        self.rownames = rownames
        self.colnames = colnames


def r_function(name: str, python_name: str, renamed: dict | None = None, *,
                exported: bool = True):
    """Register an adapter under its R name; Python argument names in its errors become R's.
    ``renamed`` maps R formals that are not Python names (``conf.level``, ``or``) to the
    adapter's parameters; ``adapter.r_formals`` lists the R formals in order. ``exported``
    False: the R function is internal (a peer's internal name its tests call by namespace)."""
    PYTHON_NAMES[name] = python_name
    if not exported:
        INTERNAL.add(name)
    renamed = dict(renamed or {})
    back = {v: k for k, v in renamed.items()}

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            kwargs = {renamed.get(k, k): v for k, v in kwargs.items()}
            try:
                return fn(*args, **kwargs)
            except (ValueError, TypeError) as exc:
                raise type(exc)(python_to_r(python_name, str(exc))) from None
        params = [n for n, p in inspect.signature(fn).parameters.items()
                  if p.kind is p.POSITIONAL_OR_KEYWORD]
        wrapper.r_formals = [back.get(n, n) for n in params]
        ADAPTERS[name] = wrapper
        return wrapper
    return decorate


#: R function name -> its adapter.
ADAPTERS: dict = {}


#: R function name -> the Python function (key of oclstat._vocabulary.ENTRIES) it calls.
PYTHON_NAMES: dict = {}


#: R functions the package does not export (reached as ``oclstat:::name``).
INTERNAL: set = set()


def translate_warning(name: str, message: str) -> str:
    """A Python warning raised inside R function ``name`` in R's words: the Python function's
    name and arguments as R's."""
    python = PYTHON_NAMES[name]
    short = python.rsplit(".", 1)[-1]
    if message.startswith(f"{short}: "):
        message = f"{name}: " + message[len(short) + 2:]
    return python_to_r(python, message)


def streams_value(st) -> RValue:
    return RValue(st.to_matrix(substream=False),
                  attributes={"dimnames": [None, Characters(STREAM_COLUMNS)]})


def as_streams(streams):
    from ..random import Streams

    if streams is None or isinstance(streams, Streams):
        return streams
    return Streams.from_matrix(np.asarray(streams))


def dtype_of(type_: str) -> str:
    if type_ not in ("double", "float"):
        raise ValueError(f"type must be \"double\" or \"float\", got {type_!r}")
    return "float64" if type_ == "double" else "float32"


def work_items(Nglobal) -> int | None:
    """prod(Nglobal), clrng's work items (None: not given)."""
    if Nglobal is None:
        return None
    sizes = np.atleast_1d(np.asarray(Nglobal)).ravel()
    if sizes.size not in (1, 2) or np.any(sizes < 1) or np.any(sizes != np.round(sizes)):
        raise ValueError("Nglobal must be one or two positive whole numbers")
    return int(np.prod(sizes.astype(np.int64)))


def first_streams(streams, work: int | None):
    """The streams a draw with ``work`` work items uses (clrng: the first prod(Nglobal))."""
    if streams is None or work is None:
        return streams
    m = np.asarray(streams)
    if work > m.shape[0]:
        raise ValueError(f"the number of streams ({m.shape[0]}) must equal or exceed the number "
                         f"of work items prod(Nglobal) = {work}")
    return m[:work]


def draw_size(n):
    n = np.atleast_1d(np.asarray(n)).ravel()
    if n.size not in (1, 2):
        raise ValueError("n must be a count or c(nrow, ncol)")
    size = tuple(int(v) for v in n)
    return size if len(size) == 2 else size[0]
