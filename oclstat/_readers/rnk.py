"""Ranked gene lists (``.rnk``: a gene and its statistic per line, a header decided from the
content), read and written (``series.attrs["input"]``).

Every reader takes a path or a stream, reads gzip files (by content, ``.gz`` or not) and UTF-8
with or without a byte-order mark and any line ending, states what it inferred (``input``)
and raises ``ValueError`` naming the file and the line when a file does not parse.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from .._docs import filled
from .inference import Inference, ReadInfo, refuse
from .sniff import INDEX_NAMES, flag
from .text import MISSING, Row, open_text, split_fields, text_stream, tokenize

__all__ = ['read_rnk', 'write_rnk']


def _rnk_header(first, body, where: str, header) -> tuple[bool, Inference]:
    """Whether the first row of a ranked list is a header, and why."""
    want = flag(header, "header")
    if want is not None:
        return want, Inference("header row" if want else "no header row", "as asked")
    gene, stat = first.fields[0], first.fields[1]
    if not stat.number_like:
        return True, Inference("header row", f"its statistic {stat.text!r} is not a number",
                               "header=False")
    if gene.text == "":
        return True, Inference("header row", "its first field is empty (pandas' "
                               "Series.to_csv)", "header=False")
    if stat.text == "0" and gene.text.lower() in INDEX_NAMES:
        return True, Inference("header row", f"{gene.text!r} and 0 are what pandas' "
                               "Series.to_csv writes as a header", "header=False")
    if gene.quoted and not any(r.fields[0].quoted for r in body):
        return True, Inference("header row", "only the first row is quoted (R quotes names)",
                               "header=False")
    if stat.text == "0" and body:
        refuse(where, f"the first line ({gene.text!r}, 0) could be a header written by "
               "pandas' Series.to_csv or a gene with statistic 0", "header=True or header=False")
    return False, Inference("no header row", "the first line is a gene and a number",
                            "header=True")


@filled()
def read_rnk(source, *, header="auto") -> pd.Series:
    """Read a ranked gene list (``.rnk``, as GSEApy and Broad GSEA's GSEAPreranked take it):
    a gene and its statistic per line, tab-, comma- or space-separated.

    Parameters
    ----------
    %(text_source)s
    header : bool or "auto", optional
        Whether the first line is a header; "auto" decides from the content and refuses when
        it cannot tell.

    Returns
    -------
    pandas.Series
        Statistic by gene (index named ``gene``), in file order; what was read in
        ``series.attrs["input"]``.

    See Also
    --------
    write_rnk : the inverse.
    oclstat.gsea_prerank : preranked GSEA.

    Notes
    -----
    Lines starting with ``#`` are comments. A first line is a header when its second field is
    not a number, its first field is empty (pandas' ``Series.to_csv``: ``<TAB>0``), it is
    ``gene<TAB>0`` (a Series under a named index), or only it is quoted (R's
    ``write.table``). A line that does not parse, a missing or non-finite statistic and a
    gene named twice raise ``ValueError`` naming the line.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> read_rnk(_io.StringIO("gene\\tscore\\nTP53\\t2.5\\nMDM2\\t-1\\n")).to_dict()
    {'TP53': 2.5, 'MDM2': -1.0}
    """
    text, where = open_text(source)
    kept = "\n".join("" if ln.startswith("#") else ln for ln in text.splitlines())
    stream = io.StringIO(kept)
    stream.name = where
    tokens = tokenize(stream)
    rows = [r if len(r) > 1 or tokens.delimiter is None else
            Row(r.line, tuple(split_fields(r.fields[0].text, None))) for r in tokens.rows]
    if not rows:                      # (a line with blanks where the others have tabs: split)
        raise ValueError(f"{where}: no genes found")
    short = len(rows) > 1 and len(rows[0]) == 1 and all(len(r) >= 2 for r in rows[1:])
    for r in rows[1:] if short else rows:
        if len(r) < 2:
            raise ValueError(f"{where} line {r.line}: an .rnk line needs a gene and a "
                             f"statistic, got {r.texts()!r}")
    if short and flag(header, "header") is not False:
        has_header = True
        inference = Inference("header row", "its first line has one field fewer (a header "
                              "over unnamed gene names)", "header=False")
    else:
        has_header, inference = _rnk_header(rows[0], rows[1:], where, header)
    genes: list[str] = []
    values: list[float] = []
    seen: dict[str, int] = {}
    for r in rows[1:] if has_header else rows:
        gene, raw = r.fields[0].text, r.fields[1]
        if gene == "":
            raise ValueError(f"{where} line {r.line}: the gene name is empty")
        if raw.missing or raw.text in MISSING:
            raise ValueError(f"{where} line {r.line}: statistic of gene {gene!r} is missing "
                             f"({raw.text!r})")
        try:
            value = float(raw.text)
        except ValueError:
            raise ValueError(f"{where} line {r.line}: statistic {raw.text!r} of gene {gene!r} "
                             "is not a number") from None
        if not np.isfinite(value):
            raise ValueError(f"{where} line {r.line}: statistic of gene {gene!r} is "
                             f"{raw.text}")
        if gene in seen:
            raise ValueError(f"{where} line {r.line}: gene {gene!r} is also on line "
                             f"{seen[gene]}; keep one statistic per gene")
        seen[gene] = r.line
        genes.append(gene)
        values.append(value)
    if not genes:
        raise ValueError(f"{where}: no genes found")
    out = pd.Series(values, index=pd.Index(genes, name="gene"), name="stat")
    out.attrs["input"] = ReadInfo(where, "ranked genes", (len(genes),), (inference,))
    return out


@filled()
def write_rnk(ranking: pd.Series, dest) -> None:
    """Write a ranked gene list (``gene<TAB>statistic`` per line, no header) for
    :func:`read_rnk`, GSEApy's prerank and Broad's GSEAPreranked.

    Parameters
    ----------
    ranking : pandas.Series
        Statistic by gene.
    dest : path or text stream
        Where to write.

    Returns
    -------
    None

    See Also
    --------
    read_rnk : the inverse.

    Notes
    -----
    Statistics are written with 17 significant digits, so they read back exactly.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> out = _io.StringIO(); write_rnk(pd.Series({"A": 1.5, "B": -2.0}), out)
    >>> out.getvalue()
    'A\\t1.5\\nB\\t-2\\n'
    """
    with text_stream(dest, "w") as (fh, _):
        for gene, value in ranking.items():
            fh.write(f"{gene}\t{float(value):.17g}\n")
