"""Text files as their authors wrote them: the one reader under every file format of oclstat.

:func:`open_text` reads a path or a stream: gzip (recognised by its magic bytes, whatever the
name), UTF-8 with or without a byte-order mark, any line ending. :func:`read_table` reads a
numeric table (CSV, TSV or R's space-separated ``write.table``) and works out its layout from
the content, the way R and pandas write tables:

* a **header row** is there when the first row has one field fewer than the data rows (R's
  ``write.table``), starts with an empty cell (R's ``write.csv``, pandas' ``to_csv`` with an
  unnamed index), holds a name that is not a number, or quotes its fields while the data does
  not (R quotes names, never numbers);
* a **first column of row names** is there when the header says so (the two cases above), or
  when that column holds labels (anything but unquoted numbers);
* a first row that is entirely unquoted numbers is data, and a first column of unquoted numbers
  is data, **unless** they look like what pandas writes for a default index or default column
  names (the integers 0, 1, 2, ..., or 1, 2, 3, ... of three or more): then the layout is
  ambiguous and the reader
  refuses, naming the file and the argument (``header=`` / ``row_names=``) that settles it.

Every table comes back with what was read (:meth:`Table.describe`), so a caller can always
report the dimensions.

>>> import io
>>> t = read_table(io.StringIO('"","a","b"\\n"x",1,2\\n"y",3,4\\n'))     # R's write.csv
>>> t.values.tolist(), t.row_names, t.col_names
([[1.0, 2.0], [3.0, 4.0]], ['x', 'y'], ['a', 'b'])
>>> t.describe()
'2 x 2 table (header row, row names) from <stream>'
"""

from __future__ import annotations

import gzip
import os
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

__all__ = ["open_text", "read_table", "Table", "MISSING"]

#: Fields read as a missing value (NaN) in numeric cells.
MISSING = frozenset({"", "NA", "na", "NaN", "nan", "null", "NULL", "."})
_GZIP_MAGIC = b"\x1f\x8b"


def source_name(source) -> str:
    if isinstance(source, (str, os.PathLike)):
        return str(source)
    return getattr(source, "name", "<stream>")


def open_text(source) -> tuple[str, str]:
    """``(text, name)`` of a path, a binary or a text stream: gzip by its magic bytes, UTF-8
    (a byte-order mark is dropped), line endings left to the caller's ``splitlines``.

    >>> import io
    >>> open_text(io.BytesIO("\\ufeffA\\tB\\r\\n".encode()))[0].splitlines()
    ['A\\tB']
    """
    name = source_name(source)
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            raise FileNotFoundError(f"{name}: no such file") from None
        except IsADirectoryError:
            raise ValueError(f"{name} is a directory, not a file") from None
    elif hasattr(source, "read"):
        raw = source.read()
    else:
        raise TypeError(f"expected a path or a stream, got {type(source).__name__}")
    if isinstance(raw, str):
        return raw.lstrip("\ufeff"), name
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise ValueError(f"{name}: a damaged gzip file ({exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{name}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return text, name


# ----------------------------------------------------------------------------- tokens


@dataclass(frozen=True)
class _Field:
    text: str
    quoted: bool

    @property
    def number_like(self) -> bool:
        """An unquoted number (or a missing-value marker)."""
        if self.quoted:
            return False
        if self.text in MISSING:
            return True
        try:
            float(self.text)
        except ValueError:
            return False
        return True


_WS_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(\S+)')


def _split(line: str, delim: str | None) -> list[_Field]:
    """Fields of one line; ``delim`` None: runs of blanks (R's write.table)."""
    if delim is None:
        return [_Field(m.group(1).replace('""', '"'), True) if m.group(1) is not None
                else _Field(m.group(2), False) for m in _WS_TOKEN.finditer(line)]
    fields, i, n = [], 0, len(line)
    while True:
        while i < n and line[i] == " ":
            i += 1
        if i < n and line[i] == '"':
            j, buf = i + 1, []
            while j < n:
                if line[j] == '"':
                    if j + 1 < n and line[j + 1] == '"':
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(line[j])
                j += 1
            fields.append(_Field("".join(buf), True))
            k = line.find(delim, j + 1)
            i = n if k < 0 else k
        else:
            k = line.find(delim, i)
            fields.append(_Field((line[i:] if k < 0 else line[i:k]).strip(), False))
            i = n if k < 0 else k
        if i >= n:
            return fields
        i += 1
        if i == n:                      # a trailing delimiter: one more empty field
            fields.append(_Field("", False))
            return fields


def _delimiter(line: str) -> str | None:
    unquoted = re.sub(r'"(?:[^"]|"")*"', "", line)
    for d in ("\t", ",", ";"):
        if d in unquoted:
            return d
    return None


def _index_run(values: list[str]) -> bool:
    """Whether the fields look like a default index or header: 0, 1, 2, ... (pandas', two or
    more) or 1, 2, 3, ... (three or more)."""
    try:
        ints = [int(v) for v in values]
    except ValueError:
        return False
    if not ints or ints != list(range(ints[0], ints[0] + len(ints))):
        return False
    return (ints[0] == 0 and len(ints) >= 2) or (ints[0] == 1 and len(ints) >= 3)


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class Table:
    """A numeric table read from text: ``values`` (rows x columns, float64, NaN where a cell
    was empty or NA), ``row_names`` and ``col_names`` (None when the file had none), ``source``
    (the file name) and how the layout was decided (``header``, ``row_names_read``)."""

    values: np.ndarray
    row_names: list | None
    col_names: list | None
    source: str

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    def describe(self) -> str:
        parts = []
        if self.col_names is not None:
            parts.append("header row")
        if self.row_names is not None:
            parts.append("row names")
        layout = f" ({', '.join(parts)})" if parts else " (no header, no row names)"
        return f"{self.shape[0]} x {self.shape[1]} table{layout} from {self.source}"

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.values, index=self.row_names, columns=self.col_names)


def _flag(value, name: str) -> bool | None:
    if value in (None, "auto"):
        return None
    if isinstance(value, bool):
        return value
    raise ValueError(f"{name} must be True, False or 'auto', got {value!r}")


def read_table(source, *, header="auto", row_names="auto", what: str = "table",
               index_like_data: bool = False) -> Table:
    """Read a numeric table, with its layout worked out from the content.

    Parameters
    ----------
    source : path, file object or str
        CSV, TSV or R's space-separated ``write.table`` output (gzip by content, any line end).
    header, row_names : bool or "auto", optional
        Whether the first row holds column names and the first column row names; "auto" decides
        from the content (module docstring) and refuses when the content cannot tell.
    what : str, optional
        What the table is, for error messages ("table of counts", ...).
    index_like_data : bool, optional
        The data itself may hold runs 0, 1, 2 (genotypes), so a first column like that is data.

    Returns
    -------
    Table
        ``values`` (float, NaN for empty or NA cells), ``row_names``, ``col_names`` and
        :meth:`Table.describe`.

    Raises
    ------
    ValueError
        Naming the file (and the line) for anything it cannot read unambiguously.

    See Also
    --------
    pandas.read_csv : reads what it is told; this reader works the layout out or refuses.

    Notes
    -----
    The rules follow how R (``write.table``, ``write.csv``) and pandas (``to_csv``) write
    tables; a header or first column that looks like a default pandas index is ambiguous and
    needs ``header=`` / ``row_names=``.

    References
    ----------
    .. [1] R Core Team. R Data Import/Export, section 1.3 (``write.table``).

    Examples
    --------
    >>> import io
    >>> t = read_table(io.StringIO("a,b\\n1,2\\n3,4\\n"))
    >>> t.values.tolist(), t.col_names
    ([[1.0, 2.0], [3.0, 4.0]], ['a', 'b'])
    """
    text, name = open_text(source)
    want_header, want_names = _flag(header, "header"), _flag(row_names, "row_names")
    lines = [(no, ln) for no, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise ValueError(f"{name}: empty {what} (no data)")
    delim = _delimiter(lines[0][1])
    rows = [(no, _split(ln, delim)) for no, ln in lines]
    first = rows[0][1]
    body_rows = rows[1:]
    widths = Counter(len(r) for _, r in body_rows)
    width = widths.most_common(1)[0][0] if widths else len(first)

    short = len(first) == width - 1
    corner = len(first) == width and first[0].text == "" and len(first) > 1
    if want_header is None:
        if short or corner:
            want_header = True
        elif any(not f.number_like for f in first[1:]):
            want_header = True
        elif not first[0].number_like and body_rows and all(
                r[0].number_like for _, r in body_rows):
            want_header = True
        elif any(f.quoted for f in first[1:]) and not any(
                f.quoted for _, r in body_rows for f in r[1:]):
            want_header = True
        elif body_rows and _index_run([f.text for f in first]):
            raise ValueError(
                f"{name}: the first row ({', '.join(f.text for f in first[:4])}, ...) could be "
                "data or column numbers written as a header; say which with header=True or "
                "header=False (--header yes/no on the command line)")
        else:
            want_header = False
    body = body_rows if want_header else rows
    if not body:
        raise ValueError(f"{name}: a header but no data rows")
    if want_names is None:
        if want_header and (short or corner):
            want_names = True
        elif any(not r[0].number_like for _, r in body):
            want_names = True
        elif not index_like_data and _index_run([r[0].text for _, r in body]) and width > 2:
            raise ValueError(
                f"{name}: the first column ({', '.join(r[0].text for _, r in body[:4])}, ...) "
                "could be data or row numbers written as an index; say which with "
                "row_names=True or row_names=False (--row-names yes/no on the command line)")
        else:
            want_names = False
    n_cols = width - (1 if want_names else 0)
    if want_header:
        names_row = [f.text for f in first]
        if len(names_row) == n_cols + 1 and want_names:
            names_row = names_row[1:]
        if len(names_row) != n_cols:
            raise ValueError(f"{name} line {rows[0][0]}: the header has {len(first)} fields, the "
                             f"data rows {width}")
        col_names = names_row
    else:
        col_names = None
    values = np.empty((len(body), n_cols))
    labels = []
    for r, (no, fields) in enumerate(body):
        if len(fields) != width:
            raise ValueError(f"{name} line {no}: {len(fields)} fields, the other rows have "
                             f"{width}")
        if want_names:
            labels.append(fields[0].text)
            fields = fields[1:]
        for c, f in enumerate(fields):
            if f.text in MISSING and not f.quoted:
                values[r, c] = np.nan
                continue
            try:
                values[r, c] = float(f.text)
            except ValueError:
                raise ValueError(f"{name} line {no}: {f.text!r} in column {c + 1} of the data "
                                 f"is not a number") from None
    return Table(values, labels if want_names else None, col_names, name)
