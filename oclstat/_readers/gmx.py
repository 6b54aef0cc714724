"""GMX gene-set files (Broad's column layout): one set per column, its name in the first row,
its description in the second, its genes below (columns of unequal length, padded with empty
fields).

>>> import io
>>> read_gmx(io.StringIO("S1\\tS2\\nna\\tna\\nA\\tC\\nB\\t\\n"))
{'S1': ['A', 'B'], 'S2': ['C']}
"""

from __future__ import annotations

from .gmt import GeneSets
from .inference import ReadInfo
from .text import is_path, open_text, text_stream

__all__ = ["read_gmx", "write_gmx", "read_gene_set_file", "as_gene_sets", "as_weighted_gene_sets"]


def read_gene_set_file(source):
    """Gene sets from a GMX file (a name ending ``.gmx`` or ``.gmx.gz``) or a GMT file (any
    other name); the layout chosen is stated in ``.input``."""
    from .gmt import read_gmt

    name = str(getattr(source, "name", source)).lower()
    return read_gmx(source) if name.endswith((".gmx", ".gmx.gz")) else read_gmt(source)


def as_gene_sets(sets):
    """{name: genes} from what the enrichment functions take as ``gene_sets``: a dict, a GMT
    or GMX path, or a decoupler net (a table with a ``source`` column naming the set and a
    ``target`` column naming the gene, one row per member; a ``weight`` column is not used by
    these unweighted methods). Anything else is returned as it is, for the caller to refuse.

    >>> import pandas as pd
    >>> as_gene_sets(pd.DataFrame({"source": ["T1", "T1", "T2"], "target": ["A", "B", "A"],
    ...                            "weight": [1.0, -1.0, 0.5]}))
    {'T1': ['A', 'B'], 'T2': ['A']}
    """

    if is_path(sets):
        return read_gene_set_file(sets)
    if hasattr(sets, "columns") and hasattr(sets, "iloc"):
        columns = [str(c) for c in sets.columns]
        if "source" not in columns or "target" not in columns:
            raise ValueError("gene_sets as a table is a decoupler net: a 'source' column (the "
                             "set) and a 'target' column (the gene); got columns "
                             f"{columns[:6]}")
        out: dict[str, list[str]] = {}
        for source, target in zip(sets["source"], sets["target"], strict=True):
            if source is None or target is None or source != source or target != target:
                raise ValueError("gene_sets (a net) has a missing source or target; drop "
                                 "those rows first")
            out.setdefault(str(source), []).append(str(target))
        return out
    return sets


def as_weighted_gene_sets(sets) -> dict:
    """{name: {gene: weight}} from what :func:`as_gene_sets` takes: a decoupler net's
    ``weight`` column where it has one (decoupler's rule: a net without it weighs every member
    1), else weight 1 for every member. A (source, target) pair given twice is an error, as in
    decoupler.

    >>> import pandas as pd
    >>> as_weighted_gene_sets(pd.DataFrame({"source": ["T1", "T1", "T2"],
    ...                                     "target": ["A", "B", "A"],
    ...                                     "weight": [1.0, -1.0, 0.5]}))
    {'T1': {'A': 1.0, 'B': -1.0}, 'T2': {'A': 0.5}}
    >>> as_weighted_gene_sets({"up": ["A", "B"]})
    {'up': {'A': 1.0, 'B': 1.0}}
    """
    import math

    table = hasattr(sets, "columns") and hasattr(sets, "iloc")
    plain = as_gene_sets(sets)
    if not isinstance(plain, dict):
        return plain
    if not table:
        out = {}
        for name, members in plain.items():
            if isinstance(members, str) or not hasattr(members, "__iter__"):
                raise TypeError(f"gene set {name!r} must be a list of gene names")
            out[str(name)] = dict.fromkeys((str(g) for g in members), 1.0)
        return out
    out: dict[str, dict[str, float]] = {}
    weights = sets["weight"] if "weight" in [str(c) for c in sets.columns] else \
        [1.0] * len(sets)
    for source, target, weight in zip(sets["source"], sets["target"], weights, strict=True):
        try:
            w = float(weight)
        except (TypeError, ValueError):
            raise ValueError(f"gene_sets (a net): weight {weight!r} of {source!r} -> "
                             f"{target!r} is not a number") from None
        if not math.isfinite(w):
            raise ValueError(f"gene_sets (a net): the weight of {source!r} -> {target!r} is "
                             f"{w}; weights must be finite")
        members = out.setdefault(str(source), {})
        if str(target) in members:
            raise ValueError(f"gene_sets (a net) has the pair {source!r} -> {target!r} twice; "
                             "drop the duplicate rows first")
        members[str(target)] = w
    return out


def read_gmx(source, *, descriptions: bool = False):
    """Read a GMX file: one gene set per column (name, description, genes).

    Parameters
    ----------
    source : path or stream
        The file (gzip read by content).
    descriptions : bool, optional
        Also return the descriptions.

    Returns
    -------
    dict
        {name: genes} in column order (repeats within a set dropped; ``.input`` says what was
        read); with ``descriptions=True`` a pair ({name: genes}, {name: description}).

    See Also
    --------
    write_gmx : the inverse.
    oclstat.io.read_gmt : the row layout.

    Notes
    -----
    A column without genes is skipped and named in ``input``; repeated set names and empty
    names raise ``ValueError`` naming the column.

    References
    ----------
    .. [1] Broad Institute, GSEA User Guide: GMX file format (Data formats).

    Examples
    --------
    >>> import io
    >>> read_gmx(io.StringIO("UP\\tDOWN\\n#d1\\t#d2\\nG1\\tG3\\nG2\\tG4\\n"), descriptions=True)
    ({'UP': ['G1', 'G2'], 'DOWN': ['G3', 'G4']}, {'UP': '#d1', 'DOWN': '#d2'})
    """
    text, where = open_text(source)
    rows = [ln.split("\t") for ln in text.splitlines()]
    while rows and not any(f.strip() for f in rows[-1]):
        rows.pop()
    if len(rows) < 2:
        raise ValueError(f"{where}: a GMX file needs a row of set names and a row of "
                         "descriptions")
    width = max(len(r) for r in rows)
    rows = [r + [""] * (width - len(r)) for r in rows]
    while width and all(not r[width - 1].strip() for r in rows):
        width -= 1
    sets, desc, empty = GeneSets(), {}, []
    for j in range(width):
        name = rows[0][j].strip()
        if not name:
            raise ValueError(f"{where} column {j + 1}: empty gene-set name")
        if name in desc:
            raise ValueError(f"{where} column {j + 1}: gene set {name!r} appears twice")
        desc[name] = rows[1][j].strip()
        genes = list(dict.fromkeys(r[j].strip() for r in rows[2:] if r[j].strip()))
        if genes:
            sets[name] = genes
        else:
            empty.append(f"{name!r} (column {j + 1})")
    if not sets:
        raise ValueError(f"{where}: no gene sets found")
    desc = {k: v for k, v in desc.items() if k in sets}
    notes = (f"{len(empty)} set(s) with no genes skipped: {', '.join(empty[:3])}",) if empty \
        else ()
    sets.input = ReadInfo(where, "GMX gene sets", (len(sets),), notes=notes)
    return (sets, desc) if descriptions else sets


def write_gmx(sets: dict, dest, *, descriptions: dict | None = None) -> None:
    """Write {name: genes} as GMX (one set per column).

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
    read_gmx : the inverse.

    Notes
    -----
    Tabs and line ends inside names or genes are refused.

    References
    ----------
    .. [1] Broad Institute, GSEA User Guide: GMX file format (Data formats).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO(); write_gmx({"S1": ["A", "B"], "S2": ["C"]}, out)
    >>> out.getvalue()
    'S1\\tS2\\nna\\tna\\nA\\tC\\nB\\t\\n'
    """
    names = list(sets)
    columns = [[str(n), str((descriptions or {}).get(n, "na")), *map(str, sets[n])]
               for n in names]
    for col in columns:
        for fld in col:
            if any(c in fld for c in "\t\r\n"):
                raise ValueError(f"sets: {fld!r} (set {col[0]!r}) holds a tab or a line end, "
                                 "which GMX cannot hold")
    depth = max((len(c) for c in columns), default=0)
    with text_stream(dest, "w") as (fh, _):
        for i in range(depth):
            fh.write("\t".join(c[i] if i < len(c) else "" for c in columns) + "\n")
