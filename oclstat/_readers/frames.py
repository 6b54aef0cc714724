"""Tables of named columns of mixed kinds (coordinates, responses, covariates), read by the
same tokens and layout rules as numeric tables.

>>> import io
>>> f = read_frame(io.StringIO('"";"x";"y";"site"\\n"1";0,5;2;"a"\\n"2";1,5;3;"b"\\n'))
>>> f["x"].tolist(), f["site"].tolist()
([0.5, 1.5], ['a', 'b'])
>>> print(f.attrs["input"].summary())  # doctest: +NORMALIZE_WHITESPACE
<stream>: 2 x 3 table of named columns; decimal commas (numbers written as 1,5 with ';'
between fields (R's write.csv2)); header row (the first row starts with an empty cell (R's
write.csv, pandas' to_csv); header=False reads it otherwise); row names (the header leaves
their column unnamed; row_names=False reads it otherwise)
"""

from __future__ import annotations

import numpy as np

from .inference import ReadInfo
from .sniff import sniff
from .tables import token_notes
from .text import tokenize

__all__ = ["read_frame"]


def read_frame(source, *, header="auto", row_names="auto",
               what: str = "table of named columns"):
    """Read a table of named columns of mixed kinds (coordinates, responses, covariates).

    Parameters
    ----------
    source : path, file object or str
        CSV, TSV, R's ``write.csv``/``write.csv2`` (semicolons and decimal commas) or
        ``write.table`` output, pandas' ``to_csv`` (gzip by content, any line end).
    header, row_names : bool or "auto", optional
        As :func:`read_table`; the file must have a header row (its columns are chosen by
        name).
    what : str, optional
        What the table is, for messages.

    Returns
    -------
    pandas.DataFrame
        Numeric columns as floats (NaN for NA), others as strings; ``frame.attrs["input"]``
        holds what was read and every decision taken.

    Raises
    ------
    ValueError
        For a file without a header row, repeated column names or rows of the wrong length,
        naming the file and the line.

    See Also
    --------
    read_table : numeric tables (counts, features x samples).

    Notes
    -----
    A column is numeric when every cell is an unquoted number or a missing-value marker;
    the decisions (delimiter, decimal comma, header, row names) follow
    :mod:`oclstat._readers.sniff` and are stated in ``frame.attrs["input"]``.

    References
    ----------
    .. [1] R Core Team. R Data Import/Export, section 1.3 (``write.table``, ``write.csv2``).

    Examples
    --------
    >>> import io
    >>> f = read_frame(io.StringIO("x,y,site\\n1,2,a\\n"))
    >>> f["x"].dtype, f["site"].tolist()
    (dtype('float64'), ['a'])
    """
    import pandas as pd

    tokens = tokenize(source)
    name = tokens.source
    if not tokens.rows:
        raise ValueError(f"{name}: empty {what} (no data)")
    layout = sniff(tokens, header=header, row_names=row_names, names_are_data=True)
    if not layout.header:
        raise ValueError(f"{name}: the first row is numbers, but the columns are chosen by "
                         "name: write a header row naming them")
    first, body = tokens.rows[0], tokens.rows[1:]
    names = first.texts()
    if layout.row_names and len(names) == layout.width:
        names = names[1:]
    columns: dict = {n: [] for n in names}
    if len(columns) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ValueError(f"{name} line {first.line}: column {dup!r} appears twice")
    for row in body:
        if len(row) != layout.width:
            raise ValueError(f"{name} line {row.line}: {len(row)} fields, the header names "
                             f"{layout.width - (1 if layout.row_names else 0)} columns")
        fields = row.fields[1:] if layout.row_names else row.fields
        for n, f in zip(names, fields, strict=True):
            columns[n].append(f)
    data = {}
    for n, fields in columns.items():
        if all(f.number_like for f in fields):
            data[n] = np.array([np.nan if f.missing else float(f.text) for f in fields])
        else:
            data[n] = [f.text for f in fields]
    frame = pd.DataFrame(data)
    frame.attrs["input"] = ReadInfo(name, what, frame.shape,
                                    (*token_notes(tokens), *layout.inferences))
    return frame
