"""Readers and writers for the GSEA file formats: GCT 1.2/1.3, NAME/DESCRIPTION tables, CLS, GMT,
and numeric tables (:func:`read_table`: counts, features x samples).

Every reader takes a path or a stream, reads gzip files (by content, ``.gz`` or not) and UTF-8
with or without a byte-order mark and any line ending, and raises ``ValueError`` naming the
file and the line when a file does not parse, when gene names repeat, or when the class labels
do not match the sample count.

* expression (GCT, or a tab-separated table whose first two columns are NAME and DESCRIPTION)
  comes back as a ``pandas.DataFrame`` of floats, genes x samples, indexed by gene name, with
  the descriptions in ``frame.attrs["description"]`` (a list, one per gene);
* a CLS file comes back as a :class:`Phenotype`: one label per sample and the two class names
  in the order of the file's ``#`` line (the first is the "positive" class of the metrics);
* a GMT file comes back as a ``dict`` {set name: list of genes} in file order; descriptions
  with ``read_gmt(path, descriptions=True)``;
* a ranked gene list (``.rnk``) comes back as a ``pandas.Series``, statistic by gene.

>>> import io as _io
>>> read_cls(_io.StringIO("4 2 1\\n# A B\\nA A B B\\n")).classes
('A', 'B')
>>> read_gmt(_io.StringIO("S1\\tna\\tG1\\tG2\\n"))
{'S1': ['G1', 'G2']}
"""

from __future__ import annotations

import contextlib
import io
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._docs import filled
from ._tables import Table, open_text, read_table

__all__ = [
    "Table",
    "read_table",
    "Phenotype",
    "read_expression",
    "read_gct",
    "read_cls",
    "read_gmt",
    "read_rnk",
    "write_gct",
    "write_cls",
    "write_gmt",
    "write_rnk",
]

_MISSING = {"", "na", "nan", "NA", "NaN", "null", "NULL"}


@contextlib.contextmanager
def _text(source, mode: str = "r"):
    """Open ``source`` (path or text stream) for text I/O; a stream is not closed."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, mode, encoding="utf-8", newline="") as fh:
            yield fh, str(source)
    elif isinstance(source, io.TextIOBase) or hasattr(source, "read" if "r" in mode else "write"):
        yield source, getattr(source, "name", "<stream>")
    else:
        raise TypeError(f"expected a path or a text stream, got {type(source).__name__}")


def _lines(fh) -> list[str]:
    return [ln.rstrip("\r\n") for ln in fh.read().splitlines()]


def _floats(fields: list[str], where: str) -> np.ndarray:
    out = np.empty(len(fields), dtype=np.float64)
    for i, f in enumerate(fields):
        f = f.strip()
        if f in _MISSING:
            out[i] = np.nan
            continue
        try:
            out[i] = float(f)
        except ValueError:
            raise ValueError(
                f"{where}: value {f!r} in data column {i + 1} is not a number"
            ) from None
    return out


def _frame(names, descriptions, samples, rows, where: str) -> pd.DataFrame:
    seen: dict[str, int] = {}
    for i, g in enumerate(names):
        if g == "":
            raise ValueError(f"{where}: gene name missing on data row {i + 1}")
        if g in seen:
            raise ValueError(
                f"{where}: gene name {g!r} appears twice (data rows {seen[g] + 1} and {i + 1}); "
                "collapse duplicate probes to one row per gene first"
            )
        seen[g] = i
    if len(set(samples)) != len(samples):
        dup = next(s for s in samples if samples.count(s) > 1)
        raise ValueError(f"{where}: sample name {dup!r} appears twice in the header")
    values = np.vstack(rows) if rows else np.empty((0, len(samples)))
    frame = pd.DataFrame(values, index=pd.Index(names, name="NAME"), columns=list(samples))
    frame.attrs["description"] = list(descriptions)
    return frame


def _data_rows(lines, start, n_lead, n_samples, where):
    names, descriptions, rows = [], [], []
    for ln_no in range(start, len(lines)):
        line = lines[ln_no]
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != n_lead + n_samples:
            raise ValueError(
                f"{where} line {ln_no + 1}: expected {n_lead + n_samples} tab-separated fields "
                f"({n_lead} leading + {n_samples} samples), got {len(fields)}"
            )
        names.append(fields[0].strip())
        descriptions.append(fields[1].strip() if n_lead > 1 else "")
        rows.append(_floats(fields[n_lead:], f"{where} line {ln_no + 1}"))
    return names, descriptions, rows


@filled()
def read_gct(source) -> pd.DataFrame:
    """Read a GCT file (version 1.2 or 1.3) as a genes x samples DataFrame.

    Parameters
    ----------
    %(text_source)s

    Returns
    -------
    pandas.DataFrame
        Indexed by gene name, one float column per sample; descriptions in
        ``frame.attrs["description"]``.

    See Also
    --------
    read_expression : GCT or Broad's tab-separated expression table.
    write_gct : the inverse.

    Notes
    -----
    In GCT 1.3 the gene name is the ``id`` column, the description the first row-metadata
    column (if any); column-metadata lines are read past. The dimensions line is checked
    against the data.

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
    lines = _lines(io.StringIO(text))
    if not lines:
        raise ValueError(f"{where}: empty file")
    version = lines[0].strip()
    if version not in ("#1.2", "#1.3"):
        raise ValueError(f"{where} line 1: expected '#1.2' or '#1.3', got {lines[0][:40]!r}")
    if len(lines) < 3:
        raise ValueError(f"{where}: a GCT file needs a version line, a dimension line and a header")
    dims = lines[1].split()
    try:
        dims = [int(d) for d in dims]
    except ValueError:
        raise ValueError(f"{where} line 2: dimensions must be integers, got {lines[1]!r}") from None
    need = 2 if version == "#1.2" else 4
    if len(dims) != need:
        raise ValueError(
            f"{where} line 2: GCT {version[1:]} needs {need} dimensions, got {lines[1]!r}"
        )
    n_rows, n_cols = dims[0], dims[1]
    n_row_meta = 1 if version == "#1.2" else dims[2]
    n_col_meta = 0 if version == "#1.2" else dims[3]
    header = lines[2].split("\t")
    n_lead = 1 + n_row_meta
    if len(header) != n_lead + n_cols:
        raise ValueError(
            f"{where} line 3: header has {len(header)} fields, the dimension line says "
            f"{n_lead} leading + {n_cols} samples"
        )
    samples = [h.strip() for h in header[n_lead:]]
    names, descriptions, rows = _data_rows(lines, 3 + n_col_meta, n_lead, n_cols, where)
    if n_lead == 1:
        descriptions = [""] * len(names)
    if len(names) != n_rows:
        raise ValueError(
            f"{where}: the dimension line says {n_rows} genes, the file has {len(names)}"
        )
    return _frame(names, descriptions, samples, rows, where)


@filled()
def read_expression(source) -> pd.DataFrame:
    """Read expression as GCT (if the file starts with ``#1.2``/``#1.3``) or as a tab-separated
    table with columns NAME, DESCRIPTION, then one column per sample (Broad's .txt format).

    Parameters
    ----------
    %(text_source)s

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
        return read_gct(stream)
    lines = _lines(io.StringIO(text))
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines:
        raise ValueError(f"{where}: empty file")
    header = lines[0].split("\t")
    if len(header) < 3 or header[0].strip().upper() != "NAME" or header[1].strip().upper() not in (
        "DESCRIPTION",
        "DESC",
    ):
        raise ValueError(
            f"{where} line 1: expected a header 'NAME<TAB>DESCRIPTION<TAB>sample...' or a GCT "
            f"file, got {lines[0][:60]!r}"
        )
    samples = [h.strip() for h in header[2:]]
    names, descriptions, rows = _data_rows(lines, 1, 2, len(samples), where)
    return _frame(names, descriptions, samples, rows, where)


@dataclass(frozen=True)
class Phenotype:
    """Two-class sample labels: ``labels[i]`` is the class of sample ``i``; ``classes`` holds
    the two class names, the first being the one whose mean comes first in the metrics
    (signal_to_noise = (mean of classes[0] - mean of classes[1]) / ...).

    >>> Phenotype(("a", "b", "a"), ("a", "b")).mask.tolist()
    [True, False, True]
    """

    labels: tuple
    classes: tuple

    def __post_init__(self):
        if len(self.classes) != 2 or self.classes[0] == self.classes[1]:
            raise ValueError(f"a phenotype needs two distinct classes, got {self.classes!r}")
        bad = sorted({str(x) for x in self.labels} - {str(c) for c in self.classes})
        if bad:
            raise ValueError(f"labels {bad} are not one of the classes {self.classes!r}")

    @property
    def mask(self) -> np.ndarray:
        """True for samples of ``classes[0]``."""
        return np.array([x == self.classes[0] for x in self.labels], dtype=bool)

    @property
    def counts(self) -> tuple[int, int]:
        m = self.mask
        return int(m.sum()), int((~m).sum())


@filled()
def read_cls(source) -> Phenotype:
    """Read a categorical two-class CLS file (``N 2 1`` / ``# nameA nameB`` / labels).

    Parameters
    ----------
    %(text_source)s

    Returns
    -------
    Phenotype
        ``labels`` per sample and the two ``classes`` in the order of the ``#`` line.

    See Also
    --------
    write_cls : the inverse.
    oclstat.gsea : takes the result as ``phenotype``.

    Notes
    -----
    Labels may be the class names or numbers (0/1 in the order of the ``#`` line, as in
    GEO-derived files). Continuous (``#numeric``) or multi-class files raise ``ValueError``.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> read_cls(_io.StringIO("3 2 1\\n# CASE CONTROL\\n0 1 0\\n")).labels
    ('CASE', 'CONTROL', 'CASE')
    """
    text, where = open_text(source)
    lines = [ln for ln in _lines(io.StringIO(text)) if ln.strip()]
    if lines and lines[0].strip().lower().startswith("#numeric"):
        raise ValueError(f"{where}: continuous (#numeric) phenotypes are not supported; "
                         "gsea needs two classes")
    if len(lines) < 3:
        raise ValueError(f"{where}: a CLS file needs 3 lines (counts, '# names', labels), "
                         f"got {len(lines)}")
    head = lines[0].split()
    try:
        n_samples, n_classes = int(head[0]), int(head[1])
    except (ValueError, IndexError):
        raise ValueError(
            f"{where} line 1: expected 'N_SAMPLES N_CLASSES 1', got {lines[0]!r}"
        ) from None
    if n_classes != 2:
        raise ValueError(f"{where} line 1: {n_classes} classes; gsea needs exactly 2")
    if not lines[1].lstrip().startswith("#"):
        raise ValueError(f"{where} line 2: expected '# CLASS_A CLASS_B', got {lines[1]!r}")
    names = lines[1].lstrip()[1:].split()
    if len(names) != 2:
        raise ValueError(f"{where} line 2: expected 2 class names, got {names}")
    labels = " ".join(lines[2:]).split()
    if len(labels) != n_samples:
        raise ValueError(
            f"{where}: line 1 says {n_samples} samples, the label line has {len(labels)} labels"
        )
    distinct = list(dict.fromkeys(labels))
    if len(distinct) != 2:
        raise ValueError(f"{where} line 3: labels take {len(distinct)} values {distinct[:5]}; "
                         "gsea needs exactly 2")
    if set(distinct) <= set(names):
        mapped = labels
    elif set(distinct) <= {"0", "1"}:
        mapped = [names[int(x)] for x in labels]
    else:
        raise ValueError(f"{where}: labels {distinct} match neither the class names {names} "
                         "nor 0/1")
    return Phenotype(tuple(mapped), (names[0], names[1]))


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
        {name: genes} (duplicates within a set dropped, file order kept); with
        ``descriptions=True`` a pair ({name: genes}, {name: description}).

    See Also
    --------
    write_gmt : the inverse.

    Notes
    -----
    Repeated set names raise ``ValueError`` (naming the lines).

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
    lines = _lines(io.StringIO(text))
    sets: dict[str, list[str]] = {}
    desc: dict[str, str] = {}
    for ln_no, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3:
            raise ValueError(f"{where} line {ln_no}: a GMT line needs a name, a description and "
                             f"at least one gene (tab-separated), got {len(fields)} field(s)")
        name = fields[0].strip()
        if not name:
            raise ValueError(f"{where} line {ln_no}: empty gene-set name")
        if name in sets:
            raise ValueError(f"{where} line {ln_no}: gene set {name!r} appears twice")
        genes = list(dict.fromkeys(g.strip() for g in fields[2:] if g.strip()))
        if not genes:
            raise ValueError(f"{where} line {ln_no}: gene set {name!r} lists no genes")
        sets[name] = genes
        desc[name] = fields[1].strip()
    if not sets:
        raise ValueError(f"{where}: no gene sets found")
    return (sets, desc) if descriptions else sets


@filled()
def read_rnk(source) -> pd.Series:
    """Read a ranked gene list (``.rnk``, as GSEApy and Broad GSEA's GSEAPreranked take it):
    a gene and its statistic per line, tab- or space-separated.

    Parameters
    ----------
    %(text_source)s

    Returns
    -------
    pandas.Series
        Statistic by gene (index named ``gene``), in file order.

    See Also
    --------
    write_rnk : the inverse.
    oclstat.gsea_prerank : preranked GSEA.

    Notes
    -----
    Lines starting with ``#`` are comments; a first line whose second field is not a number is a
    header. A line that does not parse, a missing or non-finite statistic and a gene named
    twice raise ``ValueError`` naming the line.

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
    genes: list[str] = []
    values: list[float] = []
    seen: dict[str, int] = {}
    header = False
    for ln_no, line in enumerate(_lines(io.StringIO(text)), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) < 2:
            raise ValueError(f"{where} line {ln_no}: an .rnk line needs a gene and a statistic, "
                             f"got {line[:60]!r}")
        gene, raw = fields[0].strip(), fields[1].strip()
        if raw in _MISSING:
            raise ValueError(f"{where} line {ln_no}: statistic of gene {gene!r} is missing "
                             f"({raw!r})")
        try:
            value = float(raw)
        except ValueError:
            if not genes and not header:
                header = True             # a header line
                continue
            raise ValueError(f"{where} line {ln_no}: statistic {raw!r} of gene {gene!r} is "
                             "not a number") from None
        if not np.isfinite(value):
            raise ValueError(f"{where} line {ln_no}: statistic of gene {gene!r} is {raw}")
        if gene in seen:
            raise ValueError(f"{where} line {ln_no}: gene {gene!r} is also on line "
                             f"{seen[gene]}; keep one statistic per gene")
        seen[gene] = ln_no
        genes.append(gene)
        values.append(value)
    if not genes:
        raise ValueError(f"{where}: no genes found")
    return pd.Series(values, index=pd.Index(genes, name="gene"), name="stat")


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
    with _text(dest, "w") as (fh, _):
        for gene, value in ranking.items():
            fh.write(f"{gene}\t{float(value):.17g}\n")


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
    with _text(dest, "w") as (fh, _):
        fh.write(f"#1.2\n{frame.shape[0]}\t{frame.shape[1]}\n")
        fh.write("\t".join(["NAME", "Description", *map(str, frame.columns)]) + "\n")
        for name, d, row in zip(frame.index, desc, frame.to_numpy(dtype=np.float64), strict=True):
            fh.write("\t".join([str(name), str(d) or "na", *(repr(float(v)) for v in row)]) + "\n")


@filled()
def write_cls(phenotype: Phenotype, dest) -> None:
    """Write a :class:`Phenotype` as a CLS file (labels by class name).

    Parameters
    ----------
    phenotype : Phenotype
        The labels and classes.
    dest : path or file object
        Where to write.

    Returns
    -------
    None

    See Also
    --------
    read_cls : the inverse.

    Notes
    -----
    The ``#`` line lists the classes in the phenotype's order, so class A stays class A.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> out = _io.StringIO(); write_cls(Phenotype(("a", "b", "a"), ("a", "b")), out)
    >>> out.getvalue().splitlines()
    ['3 2 1', '# a b', 'a b a']
    """
    with _text(dest, "w") as (fh, _):
        fh.write(f"{len(phenotype.labels)} 2 1\n# {phenotype.classes[0]} {phenotype.classes[1]}\n")
        fh.write(" ".join(map(str, phenotype.labels)) + "\n")


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
        for field in (name, (descriptions or {}).get(name, "na"), *genes):
            if any(c in str(field) for c in "\t\r\n"):
                raise ValueError(f"sets: {field!r} (set {name!r}) holds a tab or a line end, "
                                 "which GMT cannot hold")
    with _text(dest, "w") as (fh, _):
        for name, genes in sets.items():
            d = (descriptions or {}).get(name, "na")
            fh.write("\t".join([str(name), str(d), *map(str, genes)]) + "\n")


