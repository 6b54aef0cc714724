"""Text as its authors wrote it: bytes to lines, lines to fields.

:func:`open_text` reads a path or a stream: gzip (recognised by its magic bytes, whatever the
name), UTF-8 with or without a byte-order mark, any line ending. :func:`tokenize` cuts the
non-empty lines into :class:`Field` objects (text and whether it was quoted) with the one
delimiter that cuts every line alike (tab, semicolon, comma, or runs of blanks as R's
``write.table`` writes), and says whether numbers are written with a decimal comma (R's
``write.csv2``). Every reader of oclstat starts here.

>>> import io
>>> t = tokenize(io.StringIO('"";"x"\\n"a";1,5\\n'))
>>> t.delimiter, t.decimal_comma, [f.text for f in t.rows[1].fields]
(';', True, ['a', '1.5'])
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
from dataclasses import dataclass

__all__ = ["MISSING", "Field", "Row", "Tokens", "open_text", "source_name", "tokenize",
           "split_fields"]

#: Fields read as a missing value (NaN) in numeric cells.
MISSING = frozenset({"", "NA", "na", "NaN", "nan", "null", "NULL", "."})
_GZIP_MAGIC = b"\x1f\x8b"
#: Delimiters tried, in order: the first that cuts every sampled line alike wins.
_DELIMITERS = ("\t", ";", ",")
_DECIMAL_COMMA = re.compile(r"[-+]?\d+,\d+(?:[eE][-+]?\d+)?")


def is_path(value) -> bool:
    """Whether ``value`` names a file to read (a ``str`` or an ``os.PathLike``): the one rule
    every reader and every function taking "an array or a path" follows.

    >>> from pathlib import Path
    >>> is_path("x.gct"), is_path(Path("x.gct")), is_path(b"x.gct"), is_path(["x.gct"])
    (True, True, False, False)
    """
    return isinstance(value, (str, os.PathLike))


def source_name(source) -> str:
    """The name a message uses for ``source``: its path, its ``name``, or ``<stream>``."""
    if is_path(source):
        return str(source)
    return str(getattr(source, "name", "<stream>"))


@contextlib.contextmanager
def text_stream(source, mode: str = "r"):
    """``(stream, name)`` of ``source`` (a path or a text stream) opened for text I/O in
    ``mode``, UTF-8 with the lines as written; a stream is not closed."""
    if is_path(source):
        with open(source, mode, encoding="utf-8", newline="") as fh:
            yield fh, str(source)
    elif isinstance(source, io.TextIOBase) or hasattr(source, "read" if "r" in mode else "write"):
        yield source, getattr(source, "name", "<stream>")
    else:
        raise TypeError(f"expected a path or a text stream, got {type(source).__name__}")


def open_text(source) -> tuple[str, str]:
    """``(text, name)`` of a path, a binary or a text stream: gzip by its magic bytes, UTF-8
    (a byte-order mark is dropped), line endings left to the caller's ``splitlines``.

    >>> import io
    >>> open_text(io.BytesIO("\\ufeffA\\tB\\r\\n".encode()))[0].splitlines()
    ['A\\tB']
    """
    name = source_name(source)
    if is_path(source):
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


@dataclass(frozen=True)
class Field:
    """One cell as written: its text (quotes removed) and whether it was quoted."""

    text: str
    quoted: bool = False

    @property
    def missing(self) -> bool:
        return not self.quoted and self.text in MISSING

    @property
    def number_like(self) -> bool:
        """An unquoted number or a missing-value marker."""
        if self.quoted:
            return False
        if self.text in MISSING:
            return True
        try:
            float(self.text)
        except ValueError:
            return False
        return True

    @property
    def integer(self) -> int | None:
        """The field as an integer when it is written as one (``12``, not ``12.0``)."""
        if self.quoted or not re.fullmatch(r"[-+]?\d+", self.text):
            return None
        return int(self.text)


@dataclass(frozen=True)
class Row:
    """The fields of one non-empty line and its 1-based line number in the file."""

    line: int
    fields: tuple

    def __len__(self) -> int:
        return len(self.fields)

    def texts(self) -> list[str]:
        return [f.text for f in self.fields]


@dataclass(frozen=True)
class Tokens:
    """A file cut into rows: the rows, the delimiter (None: runs of blanks), whether numbers
    use a decimal comma, whether every line ended in a delimiter (the empty last field is
    dropped), and the file's name."""

    rows: list
    delimiter: str | None
    decimal_comma: bool
    trailing_delimiter: bool
    source: str

    @property
    def delimiter_name(self) -> str:
        return {"\t": "tab", ";": "semicolon", ",": "comma", None: "blanks"}[self.delimiter]


_WS_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(\S+)')
_QUOTED = re.compile(r'"(?:[^"]|"")*"')


def split_fields(line: str, delim: str | None) -> list[Field]:
    """Fields of one line; ``delim`` None: runs of blanks (R's ``write.table``). A field that
    starts with a double quote runs to the closing quote (``""`` inside is one quote)."""
    if delim is None:
        return [Field(m.group(1).replace('""', '"'), True) if m.group(1) is not None
                else Field(m.group(2), False) for m in _WS_TOKEN.finditer(line)]
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
            fields.append(Field("".join(buf), True))
            k = line.find(delim, j + 1)
            i = n if k < 0 else k
        else:
            k = line.find(delim, i)
            fields.append(Field((line[i:] if k < 0 else line[i:k]).strip(), False))
            i = n if k < 0 else k
        if i >= n:
            return fields
        i += 1
        if i == n:                      # a trailing delimiter: one more empty field
            fields.append(Field("", False))
            return fields


def _choose_delimiter(lines: list[str]) -> str | None:
    """The first of tab, semicolon, comma found outside quotes in every sampled line that cuts
    them into the same number of fields (a header may have one fewer); else the first found in
    the first line; else blanks."""
    sample = [_QUOTED.sub("", ln) for ln in lines[:50]]
    for d in _DELIMITERS:
        if not all(d in ln for ln in sample):
            continue
        counts = [len(split_fields(ln, d)) for ln in lines[:50]]
        body = counts[1:] or counts
        if len(set(body)) == 1 and counts[0] in (body[0], body[0] - 1):
            return d
    for d in _DELIMITERS:
        if d in sample[0]:
            return d
    return None


def tokenize(source, *, delimiter: str | None | bool = True) -> Tokens:
    """Cut ``source`` into rows of fields (blank lines skipped, line numbers kept).

    ``delimiter``: True chooses it from the content; a string (or None for blanks) is used
    as given. A decimal comma is recognised when the delimiter is not a comma and every
    unquoted cell with a comma is a number written with one (R's ``write.csv2``); such cells
    come back with a point.
    """
    text, name = open_text(source)
    lines = [(no, ln) for no, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    delim = _choose_delimiter([ln for _, ln in lines]) if delimiter is True and lines \
        else (None if delimiter is True else delimiter)
    rows = [Row(no, tuple(split_fields(ln, delim))) for no, ln in lines]
    trailing = bool(delim) and bool(rows) and all(
        len(r) > 1 and r.fields[-1].text == "" and not r.fields[-1].quoted for r in rows)
    if trailing:
        rows = [Row(r.line, r.fields[:-1]) for r in rows]
    comma = False
    if delim not in (",", None):
        cells = [f.text for r in rows for f in r.fields if not f.quoted and "," in f.text]
        comma = bool(cells) and all(_DECIMAL_COMMA.fullmatch(c) for c in cells)
        if comma:
            rows = [Row(r.line, tuple(Field(f.text.replace(",", "."), False)
                                      if not f.quoted and _DECIMAL_COMMA.fullmatch(f.text)
                                      else f for f in r.fields)) for r in rows]
    return Tokens(rows, delim, comma, trailing, name)


def numbered_lines(text: str) -> list[tuple[int, str]]:
    """(1-based line number, line) of the non-blank lines.

    >>> numbered_lines("a\\n\\n b\\n")
    [(1, 'a'), (3, ' b')]
    """
    return [(no, ln) for no, ln in enumerate(text.splitlines(), 1) if ln.strip()]
