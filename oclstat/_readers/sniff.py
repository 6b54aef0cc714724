"""The one decision every table reader takes: is the first row a header, is the first column
row names? Decided from the content the way R and pandas write tables, or refused.

* a **header row** is there when the first row has one field fewer than the data rows (R's
  ``write.table``), starts with an empty cell (R's ``write.csv``, pandas' ``to_csv`` with an
  unnamed index), holds a name that is not a number, or quotes its fields while the data does
  not (R quotes names, never numbers);
* a **first column of row names** is there when the header says so (the two cases above), or
  when that column holds labels (anything but unquoted numbers);
* a first row or first column that looks like what pandas writes for a default index or
  default column names (0, 1, 2, ... or 1, 2, 3, ...), and a first column under a header name
  that looks like a named index (distinct integers in order, such as years, or far above every
  other value, such as Entrez ids), could be either: the reader refuses and names the option
  (``header=`` / ``row_names=``) that settles it.

Every decision is returned as an :class:`~oclstat._readers.inference.Inference` naming the
option that reads the file the other way.

>>> from oclstat._readers.text import tokenize
>>> import io
>>> layout = sniff(tokenize(io.StringIO("a,b\\n1,2\\n3,4\\n")))
>>> layout.header, layout.row_names
(True, False)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .inference import Inference, refuse
from .text import Tokens

__all__ = ["Layout", "sniff", "flag", "index_run", "INDEX_NAMES"]

#: Names people give an index column (pandas writes them in the header's first cell): a
#: first row ``gene,0`` is a Series' header, not gene "gene" with value 0.
INDEX_NAMES = frozenset({"gene", "genes", "gene_id", "gene_name", "gene_symbol", "symbol",
                         "name", "names", "id", "ids", "probe", "probe_id", "feature",
                         "features", "index", "identifier", "entrez", "ensembl", "sample",
                         "samples", "snp", "rs", "rsid", "row", "rownames"})


def flag(value, name: str) -> bool | None:
    """A layout option: True, False, or None for "auto" (decided from the content)."""
    if value in (None, "auto"):
        return None
    if isinstance(value, bool):
        return value
    raise ValueError(f"{name} must be True, False or 'auto', got {value!r}")


def index_run(values: list[str]) -> bool:
    """Whether the fields look like a default index or header: 0, 1, 2, ... (pandas', two or
    more; a lone 0 is a pandas Series' column name) or 1, 2, 3, ... (three or more)."""
    try:
        ints = [int(v) for v in values]
    except ValueError:
        return False
    if not ints or ints != list(range(ints[0], ints[0] + len(ints))):
        return False
    return ints[0] == 0 or (ints[0] == 1 and len(ints) >= 3)


def _index_like(column: list, rest_max: float | None, label: str | None, *,
                consecutive: bool = True) -> str | None:
    """Why a first column of numbers looks like an index written as data (None when it does
    not): distinct integers under a header name people give an index (id, index, sample, ...),
    consecutive integers (three or more: years, row numbers), distinct integers in strictly
    increasing or decreasing order under a header name (three or more), or distinct integers
    of 100 or more all above every other value of the table (ids). ``consecutive=False``
    leaves out the consecutive rule (a first row after a row label: ``f1,1,2,3`` is data)."""
    ints = [f.integer for f in column]
    if len(ints) < 2 or any(v is None for v in ints) or len(set(ints)) != len(ints):
        return None
    named = label is not None
    if named and label.strip().lower() in INDEX_NAMES:
        return f"distinct integers under the name {label!r}"
    steps = [b - a for a, b in zip(ints, ints[1:], strict=False)]
    if consecutive and len(ints) >= 3 and (all(s == 1 for s in steps) or
                                           all(s == -1 for s in steps)):
        return "consecutive integers"
    if named and len(ints) >= 3 and (all(s > 0 for s in steps) or all(s < 0 for s in steps)):
        return "distinct integers in order"
    if rest_max is not None and min(ints) > rest_max and min(ints) >= 100:
        return "distinct integers above every other value"
    return None


@dataclass(frozen=True)
class Layout:
    """The decision: ``header`` and ``row_names``, the data ``width`` (fields per data row,
    row names included) and the inferences behind it."""

    header: bool
    row_names: bool
    width: int
    inferences: tuple


def _max_of(rows, skip_first: bool) -> float | None:
    best = None
    for r in rows:
        for f in r.fields[1 if skip_first else 0:]:
            if f.number_like and not f.missing:
                v = float(f.text)
                best = v if best is None else max(best, v)
    return best


def sniff(tokens: Tokens, *, header="auto", row_names="auto", index_like_data: bool = False,
          names_are_data: bool = False) -> Layout:
    """Decide the header row and the row-name column of ``tokens``.

    ``index_like_data``: the data itself may hold runs 0, 1, 2 (genotypes), so a first column
    like that is data. ``names_are_data``: text columns are data (a table of mixed columns read
    by column name), so a first column of labels is row names only where the header says so.
    """
    name = tokens.source
    rows = tokens.rows
    want_header, want_names = flag(header, "header"), flag(row_names, "row_names")
    first, body = rows[0], rows[1:]
    widths = Counter(len(r) for r in body)
    width = widths.most_common(1)[0][0] if widths else len(first)
    short = len(first) == width - 1
    corner = len(first) == width and len(first) > 1 and first.fields[0].text == ""
    inferences = []
    head = ", ".join(first.texts()[:4]) + (", ..." if len(first) > 4 else "")
    if want_header is not None:
        inferences.append(Inference("header row" if want_header else "no header row",
                                    "as asked"))
    else:
        other = "header=False"
        why = None
        if short:
            why = "the first row has one field fewer than the data rows (R's write.table)"
        elif corner:
            why = "the first row starts with an empty cell (R's write.csv, pandas' to_csv)"
        elif any(not f.number_like for f in first.fields[1:]):
            bad = next(f.text for f in first.fields[1:] if not f.number_like)
            why = f"the first row holds names ({bad!r})"
        elif not first.fields[0].number_like and body and all(
                r.fields[0].number_like for r in body):
            why = f"its first field {first.fields[0].text!r} is a name over a column of numbers"
        elif any(f.quoted for f in first.fields[1:]) and not any(
                f.quoted for r in body for f in r.fields[1:]):
            why = "the first row is quoted and the data is not (R quotes names)"
        elif body and len(first) > 1 and first.fields[1].text == "0" and \
                index_run(first.texts()[1:]) and first.fields[0].text.lower() in INDEX_NAMES:
            why = (f"{first.fields[0].text!r} and 0, 1, ... are what pandas' to_csv writes "
                   "as the header of a named index and default column names")
        elif body and (index_run(first.texts()) or first.texts()[1:] == ["0"] or (
                len(first) > 3 and index_run(first.texts()[1:]) and
                first.fields[1].text == "0")):
            refuse(name, f"the first row ({head}) could be data or column numbers written "
                   "as a header", "header=True or header=False")
        elif body and not first.fields[0].number_like and \
                first.fields[0].text.strip().lower() in INDEX_NAMES:
            why = (f"its first field {first.fields[0].text!r} names the row names' column, as "
                   "pandas' to_csv writes a named index")
        elif body and (like := _index_like(
                list(first.fields[0 if first.fields[0].number_like else 1:]),
                _max_of(body, not first.fields[0].number_like), None,
                consecutive=first.fields[0].number_like)):
            refuse(name, f"the first row ({head}) could be data or column names written as "
                   f"numbers ({like})", "header=True or header=False")
        if why is None:
            want_header = False
            inferences.append(Inference("no header row", "the first row is numbers",
                                        "header=True"))
        else:
            want_header = True
            inferences.append(Inference("header row", why, other))
    data = body if want_header else rows
    if not data:
        raise ValueError(f"{name}: a header but no data rows")
    if want_names is not None:
        inferences.append(Inference("row names" if want_names else "no row names",
                                    "as asked"))
    else:
        col = [r.fields[0] for r in data]
        label = first.fields[0].text if want_header and not (short or corner) else None
        shown = ", ".join(f.text for f in col[:4]) + (", ..." if len(col) > 4 else "")
        if want_header and (short or corner):
            want_names = True
            inferences.append(Inference("row names", "the header leaves their column unnamed",
                                        "row_names=False"))
        elif not names_are_data and any(not f.number_like for f in col):
            want_names = True
            bad = next(f.text for f in col if not f.number_like)
            inferences.append(Inference("row names", f"the first column holds labels "
                                        f"({bad!r})", "row_names=False"))
        elif names_are_data:
            want_names = False
        elif not index_like_data and index_run([f.text for f in col]) and width > 2:
            refuse(name, f"the first column ({shown}) could be data or row numbers written "
                   "as an index", "row_names=True or row_names=False")
        elif want_header and any(f.quoted for f in first.fields) and not any(
                f.quoted for f in col):
            want_names = False
            inferences.append(Inference(f"first column {label!r} read as data" if label else
                                        "the first column read as data",
                                        "unquoted numbers under a quoted header (R quotes row "
                                        "names)", "row_names=True"))
        else:
            why = None
            if width > 2 and not index_like_data:
                why = _index_like(col, _max_of(data, skip_first=True), label)
            if why is not None:
                what = f"the first column {label!r}" if label else "the first column"
                refuse(name, f"{what} ({shown}) could be data or an index written as data "
                       f"({why}, as pandas' to_csv writes an index)",
                       "row_names=True or row_names=False")
            want_names = False
            what = f"first column {label!r}" if label else "the first column"
            inferences.append(Inference(f"{what} read as data", "it holds numbers",
                                        "row_names=True"))
    return Layout(want_header, want_names, width, tuple(inferences))
