"""Broad's expression formats: GCT 1.2/1.3 and NAME/DESCRIPTION tables, read through the
shared tokens (:mod:`oclstat._readers.text`) and written back (``frame.attrs["input"]``).

Every reader takes a path or a stream, reads gzip files (by content, ``.gz`` or not) and UTF-8
with or without a byte-order mark and any line ending, states what it inferred (``input``)
and raises ``ValueError`` naming the file and the line when a file does not parse.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from .._docs import filled
from .inference import ReadInfo
from .text import MISSING, numbered_lines, open_text, split_fields, text_stream

__all__ = ['read_expression', 'read_gct', 'write_gct']


def _floats(fields: list, where: str) -> np.ndarray:
    out = np.empty(len(fields), dtype=np.float64)
    for i, f in enumerate(fields):
        if f.missing or f.text in MISSING:
            out[i] = np.nan
            continue
        try:
            out[i] = float(f.text)
        except ValueError:
            raise ValueError(f"{where}: value {f.text!r} in data column {i + 1} is not a "
                             "number") from None
    return out


def _trim(fields: list, want: int, where: str, notes: list) -> list:
    """``fields`` cut to ``want`` when the extra ones are empty (trailing tabs, as spreadsheet
    exports write), noted once; else an error naming the line."""
    if len(fields) > want and all(f.text == "" for f in fields[want:]):
        if not notes:
            notes.append("empty fields at the ends of lines ignored (trailing tabs)")
        return fields[:want]
    if len(fields) != want:
        raise ValueError(f"{where}: expected {want} tab-separated fields, got {len(fields)}")
    return fields


def _frame(names, descriptions, samples, rows, where: str, info: ReadInfo,
           duplicates: str = "error") -> pd.DataFrame:
    if duplicates not in ("error", "keep"):
        raise ValueError(f"duplicates must be 'error' or 'keep', got {duplicates!r}")
    seen: dict[str, int] = {}
    repeated = 0
    for i, g in enumerate(names):
        if g == "":
            raise ValueError(f"{where}: gene name missing on data row {i + 1}")
        if g in seen:
            if duplicates == "error":
                raise ValueError(
                    f"{where}: gene name {g!r} appears twice (data rows {seen[g] + 1} and "
                    f"{i + 1}); collapse the rows to genes with a collapse mode "
                    "(collapse_mode=) and, if they are probes, a CHIP file (chip=): Broad's "
                    "Collapse Dataset")
            repeated += 1
            continue
        seen[g] = i
    if repeated:
        info = info.with_notes(f"{repeated:,} rows repeat an earlier row's name (kept, to be "
                               "collapsed)")
    if len(set(samples)) != len(samples):
        dup = next(s for s in samples if samples.count(s) > 1)
        raise ValueError(f"{where}: sample name {dup!r} appears twice in the header")
    values = np.vstack(rows) if rows else np.empty((0, len(samples)))
    frame = pd.DataFrame(values, index=pd.Index(names, name="NAME"), columns=list(samples))
    frame.attrs["description"] = list(descriptions)
    frame.attrs["input"] = info
    return frame


def _plain_rows(lines, n_lead, n_samples):
    """The data rows when every line is plain (no quotes, exactly the expected fields, numbers
    Python reads as they are written): ``(names, descriptions, values)``; None otherwise, and
    the general tokenizer reads them (missing values, decimal commas, trailing tabs, ...)."""
    want = n_lead + n_samples
    names, descriptions, cells = [], [], []
    for _, line in lines:
        if '"' in line:
            return None
        parts = line.split("\t")
        if len(parts) != want:
            return None
        row = parts[n_lead:]
        if "_" in "".join(row):           # 1_000: Python reads it, the general reader not
            return None
        names.append(parts[0].strip())
        descriptions.append(parts[1].strip() if n_lead > 1 else "")
        cells.append(row)
    try:
        values = np.array(cells, dtype=np.float64).reshape(len(cells), n_samples)
    except ValueError:
        return None
    return names, descriptions, list(values)


def _data_rows(lines, n_lead, n_samples, where, notes):
    plain = _plain_rows(lines, n_lead, n_samples)
    if plain is not None:
        return plain
    names, descriptions, rows = [], [], []
    for no, line in lines:
        fields = _trim(split_fields(line, "\t"), n_lead + n_samples, f"{where} line {no}", notes)
        names.append(fields[0].text)
        descriptions.append(fields[1].text if n_lead > 1 else "")
        rows.append(_floats(fields[n_lead:], f"{where} line {no}"))
    return names, descriptions, rows


@filled()
def read_gct(source, *, duplicates: str = "error") -> pd.DataFrame:
    """Read a GCT file (version 1.2 or 1.3) as a genes x samples DataFrame.

    Parameters
    ----------
    %(text_source)s
    duplicates : {"error", "keep"}, optional
        Rows that repeat a name: an error (default; it names the collapse options), or kept
        for :func:`collapse_probes`.

    Returns
    -------
    pandas.DataFrame
        Indexed by gene name, one float column per sample; descriptions in
        ``frame.attrs["description"]``, what was read in ``frame.attrs["input"]``.

    See Also
    --------
    read_expression : GCT or Broad's tab-separated expression table.
    write_gct : the inverse.

    Notes
    -----
    In GCT 1.3 the gene name is the ``id`` column, the description the first row-metadata
    column (if any); column-metadata lines are read past. The dimensions line is checked
    against the data. Empty fields after the last sample (trailing tabs) are ignored, and
    said so.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> f = _io.StringIO("#1.2\\n2\\t2\\nNAME\\tDescription\\ts1\\ts2\\n"
    ...                  "G1\\tna\\t1\\t2\\nG2\\tna\\t3\\t4\\n")
    >>> read_gct(f).loc["G2", "s1"]
    np.float64(3.0)
    """
    text, where = open_text(source)
    lines = numbered_lines(text)
    if not lines:
        raise ValueError(f"{where}: empty file")
    version = lines[0][1].strip()
    if version not in ("#1.2", "#1.3"):
        raise ValueError(f"{where} line {lines[0][0]}: expected '#1.2' or '#1.3', got "
                         f"{lines[0][1][:40]!r}")
    if len(lines) < 3:
        raise ValueError(f"{where}: a GCT file needs a version line, a dimension line and a header")
    no, dims_line = lines[1]
    try:
        dims = [int(d) for d in dims_line.split()]
    except ValueError:
        raise ValueError(f"{where} line {no}: dimensions must be integers, got "
                         f"{dims_line!r}") from None
    need = 2 if version == "#1.2" else 4
    if len(dims) != need:
        raise ValueError(f"{where} line {no}: GCT {version[1:]} needs {need} dimensions, got "
                         f"{dims_line!r}")
    n_rows, n_cols = dims[0], dims[1]
    n_row_meta = 1 if version == "#1.2" else dims[2]
    n_col_meta = 0 if version == "#1.2" else dims[3]
    n_lead = 1 + n_row_meta
    notes: list = []
    no, header_line = lines[2]
    header = _trim(split_fields(header_line, "\t"), n_lead + n_cols, f"{where} line {no}: the "
                   f"header (the dimension line says {n_lead} leading + {n_cols} samples)",
                   notes)
    samples = [h.text for h in header[n_lead:]]
    names, descriptions, rows = _data_rows(lines[3 + n_col_meta:], n_lead, n_cols, where, notes)
    if n_lead == 1:
        descriptions = [""] * len(names)
    if len(names) != n_rows:
        raise ValueError(f"{where}: the dimension line says {n_rows} genes, the file has "
                         f"{len(names)}")
    info = ReadInfo(where, f"GCT {version[1:]} (genes x samples)", (len(names), n_cols),
                    notes=tuple(notes))
    return _frame(names, descriptions, samples, rows, where, info, duplicates)


@filled()
def read_expression(source, *, duplicates: str = "error") -> pd.DataFrame:
    """Read expression as GCT (if the file starts with ``#1.2``/``#1.3``) or as a tab-separated
    table with columns NAME, DESCRIPTION, then one column per sample (Broad's .txt format).

    Parameters
    ----------
    %(text_source)s
    duplicates : {"error", "keep"}, optional
        As :func:`read_gct`.

    Returns
    -------
    pandas.DataFrame
        Genes x samples, as :func:`read_gct`.

    See Also
    --------
    read_gct : GCT only.

    Notes
    -----
    The format is chosen by the file's first line, not its name.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> f = _io.StringIO("NAME\\tDESCRIPTION\\ta\\tb\\nTP53\\tna\\t1.5\\t2\\n")
    >>> read_expression(f).shape
    (1, 2)
    """
    text, where = open_text(source)
    if text.lstrip().startswith("#1."):
        stream = io.StringIO(text)
        stream.name = where
        return read_gct(stream, duplicates=duplicates)
    lines = numbered_lines(text)
    if not lines:
        raise ValueError(f"{where}: empty file")
    no, first = lines[0]
    header = split_fields(first, "\t")
    while len(header) > 3 and header[-1].text == "":
        header = header[:-1]
    if len(header) < 3 or header[0].text.upper() != "NAME" or header[1].text.upper() not in (
            "DESCRIPTION", "DESC"):
        raise ValueError(f"{where} line {no}: expected a header 'NAME<TAB>DESCRIPTION<TAB>"
                         f"sample...' or a GCT file, got {first[:60]!r}")
    samples = [h.text for h in header[2:]]
    notes: list = []
    names, descriptions, rows = _data_rows(lines[1:], 2, len(samples), where, notes)
    info = ReadInfo(where, "expression table (NAME, DESCRIPTION, samples)",
                    (len(names), len(samples)), notes=tuple(notes))
    return _frame(names, descriptions, samples, rows, where, info, duplicates)


@filled()
def write_gct(frame: pd.DataFrame, dest, *, descriptions=None) -> None:
    """Write a genes x samples DataFrame as GCT 1.2.

    Parameters
    ----------
    frame : pandas.DataFrame
        Genes x samples.
    dest : path or file object
        Where to write.
    descriptions : sequence of str, optional
        One per gene (default ``frame.attrs["description"]``, else ``na``).

    Returns
    -------
    None

    See Also
    --------
    read_gct : the inverse.

    Notes
    -----
    Numbers are written with ``repr`` precision, so reading back gives the same floats.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io, pandas as pd
    >>> out = _io.StringIO(); write_gct(pd.DataFrame({"s1": [1.0]}, index=["G"]), out)
    >>> out.getvalue().splitlines()[:2]
    ['#1.2', '1\\t1']
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    desc = descriptions if descriptions is not None else frame.attrs.get("description")
    if desc is None or len(desc) != len(frame):
        desc = ["na"] * len(frame)
    with text_stream(dest, "w") as (fh, _):
        fh.write(f"#1.2\n{frame.shape[0]}\t{frame.shape[1]}\n")
        fh.write("\t".join(["NAME", "Description", *map(str, frame.columns)]) + "\n")
        for name, d, row in zip(frame.index, desc, frame.to_numpy(dtype=np.float64), strict=True):
            fh.write("\t".join([str(name), str(d) or "na", *(repr(float(v)) for v in row)]) + "\n")
