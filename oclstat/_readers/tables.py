"""Numeric tables (counts, features x samples) read as their authors wrote them.

>>> import io
>>> t = read_table(io.StringIO('"","a","b"\\n"x",1,2\\n"y",3,4\\n'))     # R's write.csv
>>> t.values.tolist(), t.row_names, t.col_names
([[1.0, 2.0], [3.0, 4.0]], ['x', 'y'], ['a', 'b'])
>>> t.describe()
'2 x 2 table (header row, row names) from <stream>'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .inference import Inference, ReadInfo
from .sniff import Layout, sniff
from .text import Tokens, tokenize

__all__ = ["Table", "read_table", "table_from_tokens"]


@dataclass(frozen=True)
class Table:
    """A numeric table read from text: ``values`` (rows x columns, float64, NaN where a cell
    was empty or NA), ``row_names`` and ``col_names`` (None when the file had none),
    ``source`` (the file name) and ``input`` (what was read and every decision taken, a
    :class:`~oclstat._readers.inference.ReadInfo`)."""

    values: np.ndarray
    row_names: list | None
    col_names: list | None
    source: str
    input: ReadInfo | None = field(default=None, compare=False)

    @property
    def shape(self) -> tuple[int, int]:
        return self.values.shape

    def describe(self) -> str:
        """A short line: dimensions, header and row names, the file."""
        parts = []
        if self.col_names is not None:
            parts.append("header row")
        if self.row_names is not None:
            parts.append("row names")
        layout = f" ({', '.join(parts)})" if parts else " (no header, no row names)"
        return f"{self.shape[0]} x {self.shape[1]} table{layout} from {self.source}"

    def to_frame(self):
        """The table as a pandas DataFrame (labels where the file had them; ``attrs["input"]``
        what was read)."""
        import pandas as pd

        frame = pd.DataFrame(self.values, index=self.row_names, columns=self.col_names)
        frame.attrs["input"] = self.input
        return frame

    def __array__(self, dtype=None, copy=None):
        """The values, so that a Table goes wherever an array does (``fisher_test(table)``)."""
        return self.values if dtype is None else self.values.astype(dtype)


def token_notes(tokens: Tokens) -> list[Inference]:
    """The inferences of :func:`~oclstat._readers.text.tokenize` worth stating."""
    out = []
    if tokens.decimal_comma:
        out.append(Inference("decimal commas", "numbers written as 1,5 with ';' between "
                             "fields (R's write.csv2)"))
    if tokens.trailing_delimiter:
        out.append(Inference("a delimiter at the end of every line ignored"))
    return out


def table_from_tokens(tokens: Tokens, layout: Layout, what: str) -> Table:
    """The numeric table of ``tokens`` laid out as ``layout`` says."""
    name, rows, width = tokens.source, tokens.rows, layout.width
    first = rows[0]
    body = rows[1:] if layout.header else rows
    n_cols = width - (1 if layout.row_names else 0)
    col_names = None
    if layout.header:
        names_row = first.texts()
        if len(names_row) == n_cols + 1 and layout.row_names:
            names_row = names_row[1:]
        if len(names_row) != n_cols:
            raise ValueError(f"{name} line {first.line}: the header has {len(first)} fields, "
                             f"the data rows {width}")
        col_names = names_row
    values = np.empty((len(body), n_cols))
    labels = []
    for r, row in enumerate(body):
        fields = row.fields
        if len(fields) != width:
            raise ValueError(f"{name} line {row.line}: {len(fields)} fields, the other rows "
                             f"have {width}")
        if layout.row_names:
            labels.append(fields[0].text)
            fields = fields[1:]
        for c, f in enumerate(fields):
            if f.missing:
                values[r, c] = np.nan
                continue
            try:
                values[r, c] = float(f.text)
            except ValueError:
                raise ValueError(f"{name} line {row.line}: {f.text!r} in column {c + 1} of the "
                                 f"data is not a number") from None
    info = ReadInfo(name, what, values.shape, (*token_notes(tokens), *layout.inferences))
    return Table(values, labels if layout.row_names else None, col_names, name, info)


def read_table(source, *, header="auto", row_names="auto", what: str = "table",
               index_like_data: bool = False) -> Table:
    """Read a numeric table, with its layout worked out from the content.

    Parameters
    ----------
    source : path, file object or str
        CSV, TSV, R's ``write.csv2`` (semicolons, decimal commas) or R's space-separated
        ``write.table`` output (gzip by content, any line end).
    header, row_names : bool or "auto", optional
        Whether the first row holds column names and the first column row names; "auto" decides
        from the content (:mod:`oclstat._readers.sniff`) and refuses when the content cannot
        tell.
    what : str, optional
        What the table is, for messages ("table of counts", ...).
    index_like_data : bool, optional
        The data itself may hold runs 0, 1, 2 (genotypes), so a first column like that is data.

    Returns
    -------
    Table
        ``values`` (float, NaN for empty or NA cells), ``row_names``, ``col_names``, ``input``
        (every decision taken, with the option that reverses it) and :meth:`Table.describe`.

    Raises
    ------
    ValueError
        Naming the file (and the line) for anything it cannot read unambiguously.

    See Also
    --------
    pandas.read_csv : reads what it is told; this reader works the layout out or refuses.

    Notes
    -----
    The rules follow how R (``write.table``, ``write.csv``, ``write.csv2``) and pandas
    (``to_csv``) write tables; a header or first column that looks like a default pandas
    index, or a first column under a name that looks like a named index (years, ids), is
    ambiguous and needs ``header=`` / ``row_names=``.

    References
    ----------
    .. [1] R Core Team. R Data Import/Export, section 1.3 (``write.table``).

    Examples
    --------
    >>> import io
    >>> t = read_table(io.StringIO("a,b\\n1,2\\n3,4\\n"))
    >>> t.values.tolist(), t.col_names
    ([[1.0, 2.0], [3.0, 4.0]], ['a', 'b'])
    >>> print(t.input.summary())  # doctest: +NORMALIZE_WHITESPACE
    <stream>: 2 x 2 table; header row (the first row holds names ('b'); header=False reads it
    otherwise); first column 'a' read as data (it holds numbers; row_names=True reads it
    otherwise)
    """
    tokens = tokenize(source)
    if not tokens.rows:
        raise ValueError(f"{tokens.source}: empty {what} (no data)")
    layout = sniff(tokens, header=header, row_names=row_names, index_like_data=index_like_data)
    return table_from_tokens(tokens, layout, what)
