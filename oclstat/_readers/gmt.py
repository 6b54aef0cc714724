"""Broad's gene-set format GMT (a set per line: name, description, genes), read and written
(``sets.input``).

Every reader takes a path or a stream, reads gzip files (by content, ``.gz`` or not) and UTF-8
with or without a byte-order mark and any line ending, states what it inferred (``input``)
and raises ``ValueError`` naming the file and the line when a file does not parse.
"""

from __future__ import annotations

from .._docs import filled
from .inference import ReadInfo
from .text import numbered_lines, open_text, text_stream

__all__ = ['GeneSets', 'read_gmt', 'write_gmt']


class GeneSets(dict):
    """{set name: genes} as read from a file, with ``input`` (what was read: sets skipped)."""

    input: ReadInfo | None = None


@filled()
def read_gmt(source, *, descriptions: bool = False):
    """Read a GMT file: one set per line, ``name<TAB>description<TAB>gene...``.

    Parameters
    ----------
    %(text_source)s
    descriptions : bool, optional
        Also return the descriptions.

    Returns
    -------
    dict
        {name: genes} (duplicates within a set dropped, file order kept; ``.input`` says what
        was read); with ``descriptions=True`` a pair ({name: genes}, {name: description}).

    See Also
    --------
    write_gmt : the inverse.

    Notes
    -----
    Repeated set names raise ``ValueError`` (naming the lines). A set that lists no genes is
    skipped and named in ``input`` (it could never reach a minimum size); a file with no set
    at all is an error.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> sets, desc = read_gmt(_io.StringIO("S\\thttp://x\\tA\\tB\\tA\\n"), descriptions=True)
    >>> sets, desc
    ({'S': ['A', 'B']}, {'S': 'http://x'})
    """
    text, where = open_text(source)
    sets = GeneSets()
    desc: dict[str, str] = {}
    seen: dict[str, int] = {}
    empty = []
    for ln_no, line in numbered_lines(text):
        if line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 2:
            raise ValueError(f"{where} line {ln_no}: a GMT line needs a name, a description and "
                             f"genes (tab-separated), got {len(fields)} field(s)")
        name = fields[0].strip()
        if not name:
            raise ValueError(f"{where} line {ln_no}: empty gene-set name")
        if name in seen:
            raise ValueError(f"{where} line {ln_no}: gene set {name!r} appears twice (also on "
                             f"line {seen[name]})")
        seen[name] = ln_no
        genes = list(dict.fromkeys(g.strip() for g in fields[2:] if g.strip()))
        if not genes:
            empty.append(f"{name!r} (line {ln_no})")
            continue
        sets[name] = genes
        desc[name] = fields[1].strip()
    if not sets:
        raise ValueError(f"{where}: no gene sets found" + (
            f" ({len(empty)} lines name a set with no genes)" if empty else ""))
    notes = (f"{len(empty)} set(s) with no genes skipped: {', '.join(empty[:3])}"
             + (", ..." if len(empty) > 3 else ""),) if empty else ()
    sets.input = ReadInfo(where, "GMT gene sets", (len(sets),), notes=notes)
    return (sets, desc) if descriptions else sets


@filled()
def write_gmt(sets: dict, dest, *, descriptions: dict | None = None) -> None:
    """Write {name: genes} as GMT.

    Parameters
    ----------
    sets : dict
        {name: genes}.
    dest : path or file object
        Where to write.
    descriptions : dict, optional
        {name: description} (default ``na``).

    Returns
    -------
    None

    See Also
    --------
    read_gmt : the inverse.

    Notes
    -----
    Tabs and line ends inside names or genes are refused (they would change the file's
    meaning).

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> out = _io.StringIO(); write_gmt({"S": ["A", "B"]}, out)
    >>> out.getvalue()
    'S\\tna\\tA\\tB\\n'
    """
    for name, genes in sets.items():
        for fld in (name, (descriptions or {}).get(name, "na"), *genes):
            if any(c in str(fld) for c in "\t\r\n"):
                raise ValueError(f"sets: {fld!r} (set {name!r}) holds a tab or a line end, "
                                 "which GMT cannot hold")
    with text_stream(dest, "w") as (fh, _):
        for name, genes in sets.items():
            d = (descriptions or {}).get(name, "na")
            fh.write("\t".join([str(name), str(d), *map(str, genes)]) + "\n")
