"""Sample group files (``--groups``): which group each sample belongs to.

Accepted, each stated in the result's ``input``:

* a CLS file (its classes in the order of its ``#`` line);
* lines of ``sample<TAB>label`` (or comma-separated), with or without a header line, matched
  to the data's sample names;
* R's ``write.table``/``write.csv`` of a one-column data frame (row names 1..n are positions,
  row names that are the samples are matched by name);
* one label per sample, one per line (with or without a header line) or all on one line.

>>> import io
>>> labels, classes, info = read_groups(io.StringIO("sample\\tgroup\\ns2\\tB\\ns1\\tA\\n"),
...                                     ["s1", "s2"])
>>> list(labels.loc[["s1", "s2"]]), classes
(['A', 'B'], None)
"""

from __future__ import annotations

from .cls import read_cls
from .inference import Inference, ReadInfo
from .text import open_text, tokenize

__all__ = ["read_groups"]


def _is_cls(text: str) -> bool:
    first = text.lstrip("\ufeff").split("\n", 1)[0].split()
    return len(first) == 3 and all(f.isdigit() for f in first)


def read_groups(source, samples: list | None, n_samples: int | None = None):
    """``(labels, classes, info)``: a pandas Series of labels indexed by sample name (matched
    by name) or a list of labels (by position), the classes in order where the file fixes
    them (a CLS file, else None), and what was read."""
    import pandas as pd

    text, where = open_text(source)
    n = len(samples) if samples is not None else n_samples
    if _is_cls(text):
        ph = read_cls(source if not hasattr(source, "read") else _named(text, where))
        return list(ph.labels), tuple(ph.classes), ph.input
    tokens = tokenize(_named(text, where))
    rows = tokens.rows
    if not rows:
        raise ValueError(f"{where}: no groups found")
    widths = {len(r) for r in rows[1:]} or {len(rows[0])}
    known = set(samples or ())
    inferences = []
    if widths == {2}:
        first = rows[0]
        if len(first) == 1 or first.fields[0].text == "":
            inferences.append(Inference("header row", "R's write.table/write.csv of a data "
                                        "frame"))
            body = rows[1:]
        elif samples is not None and first.fields[0].text not in known and all(
                r.fields[0].text in known for r in rows[1:]):
            inferences.append(Inference("header row", f"{first.fields[0].text!r} is not a "
                                        "sample of the data"))
            body = rows[1:]
        else:
            body = rows
        keys = [r.fields[0].text for r in body]
        values = [r.fields[1].text for r in body]
        if samples is not None and set(keys) == known and len(keys) == len(known):
            inferences.append(Inference("labels matched to the data's samples by name"))
            labels = pd.Series(values, index=keys)
            info = ReadInfo(where, "sample groups", (len(values),), tuple(inferences))
            return labels, None, info
        if keys == [str(i) for i in range(1, len(keys) + 1)]:
            inferences.append(Inference("labels by position", "the first column is 1, 2, 3, "
                                        "... (R's row numbers)"))
            return _by_position(values, n, where, inferences)
        if samples is None:
            raise ValueError(f"{where} names samples ({', '.join(keys[:3])}, ...) but the data "
                             "has no sample names (header row)")
        missing = [s for s in samples if s not in set(keys)]
        extra = [k for k in keys if k not in known]
        raise ValueError(f"{where}: the samples named here and the data's differ: "
                         f"{len(missing)} of the data's missing (e.g. {missing[:3]}), "
                         f"{len(extra)} not in the data (e.g. {extra[:3]})")
    if widths == {1}:
        values = [r.fields[0].text for r in rows]
        if n is not None and len(values) == n + 1 and values[0] not in set(values[1:]):
            inferences.append(Inference("header row", f"one line more than samples, and "
                                        f"{values[0]!r} is not a label of the others"))
            values = values[1:]
        inferences.append(Inference("labels by position", "one label per line"))
        return _by_position(values, n, where, inferences)
    if len(rows) == 1:
        inferences.append(Inference("labels by position", "one line of labels"))
        return _by_position(rows[0].texts(), n, where, inferences)
    raise ValueError(f"{where}: expected one label per sample (one per line or all on one "
                     "line), lines of 'sample label', or a CLS file")


def _by_position(values, n, where, inferences):
    if n is not None and len(values) != n:
        raise ValueError(f"{where}: {len(values)} labels for {n} samples")
    return values, None, ReadInfo(where, "sample groups", (len(values),), tuple(inferences))


def _named(text: str, where: str):
    import io

    stream = io.StringIO(text)
    stream.name = where
    return stream
