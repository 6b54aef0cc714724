"""What a reader decided, and how to decide otherwise.

Readers never guess silently: every decision a reader takes from the content of a file (is the
first row a header, is the first column row names, which way round is a genotype matrix, which
column is the phenotype, which class is A) is an :class:`Inference` that names the option
giving the other reading. A reader returns them in a :class:`ReadInfo`, whose
:meth:`ReadInfo.summary` is the one line the command line prints and results keep as
``result.input``. Where two readings are equally likely, the reader does not choose:
:func:`refuse` raises a ``ValueError`` that names the file and the option that decides.

>>> info = ReadInfo("t.csv", "table of counts", (2, 2), (
...     Inference("header row", "the first row has names", None),
...     Inference("first column 'year' read as data", "distinct numbers", "row_names=True")))
>>> print(info.summary())  # doctest: +NORMALIZE_WHITESPACE
t.csv: 2 x 2 table of counts; header row (the first row has names); first column 'year'
read as data (distinct numbers; row_names=True reads it otherwise)
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Inference", "ReadInfo", "combined", "input_of", "refuse"]


@dataclass(frozen=True)
class Inference:
    """One decision: ``reading`` (what was decided), ``why`` (the evidence in the file) and
    ``other`` (the option that gives the other reading; None when the user chose it or the
    file leaves no other reading)."""

    reading: str
    why: str = ""
    other: str | None = None

    def __str__(self) -> str:
        detail = "; ".join(x for x in (self.why, self.other and f"{self.other} reads it "
                                       "otherwise") if x)
        return f"{self.reading} ({detail})" if detail else self.reading


@dataclass(frozen=True)
class ReadInfo:
    """What was read: the file, what it holds, its shape, the decisions taken and notes
    (lines skipped, values mapped)."""

    source: str
    what: str
    shape: tuple
    inferences: tuple = ()
    notes: tuple = field(default=())

    def summary(self) -> str:
        """One line: the file, the shape and what it holds, then every decision and note."""
        dims = " x ".join(f"{d:,}" for d in self.shape) if self.shape else ""
        head = f"{self.source}: {dims + ' ' if dims else ''}{self.what}"
        return "; ".join([head, *map(str, self.inferences), *self.notes])

    def __str__(self) -> str:
        return self.summary()

    def with_notes(self, *notes: str) -> ReadInfo:
        return ReadInfo(self.source, self.what, self.shape, self.inferences,
                        self.notes + tuple(notes))


def combined(infos) -> ReadInfo | None:
    """Several inputs' ReadInfo as one (for a result read from several files)."""
    infos = [i for i in infos if i is not None]
    if not infos:
        return None
    if len(infos) == 1:
        return infos[0]
    return ReadInfo(" + ".join(i.source for i in infos), "inputs", (),
                    tuple(Inference(i.summary()) for i in infos))


def input_of(*objects) -> ReadInfo | None:
    """What was read for ``objects`` (readers' outputs carry it as ``.input`` or
    ``.attrs["input"]``), combined; None when none came from a reader."""
    infos = []
    for obj in objects:
        info = getattr(obj, "input", None)
        if info is None:
            attrs = getattr(obj, "attrs", None)
            info = attrs.get("input") if isinstance(attrs, dict) else None
        if isinstance(info, ReadInfo):
            infos.append(info)
    return combined(infos)


def refuse(source: str, what: str, options: str) -> None:
    """Raise the error of a reading the content cannot decide: ``what`` could be read two
    ways; ``options`` names the option that decides."""
    raise ValueError(f"{source}: {what}; say which with {options}")
