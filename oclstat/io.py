"""Readers and writers: the GSEA file formats (GCT 1.2/1.3, NAME/DESCRIPTION tables, CLS, GMT,
RNK) and numeric tables (:func:`read_table`: counts, features x samples).

Every reader takes a path or a stream, reads gzip files (by content, ``.gz`` or not) and UTF-8
with or without a byte-order mark and any line ending, and raises ``ValueError`` naming the
file and the line when a file does not parse, when gene names repeat, or when the class labels
do not match the sample count. Readers never guess silently: what they inferred from the
content (header row, row names, class A, lines skipped) is kept as a :class:`ReadInfo`
(``table.input``, ``frame.attrs["input"]``, ``phenotype.input``, ``sets.input``) whose
``summary()`` names the option that reads the file the other way; where the content cannot
decide, the reader refuses and names that option.

* expression (GCT, or a tab-separated table whose first two columns are NAME and DESCRIPTION)
  comes back as a ``pandas.DataFrame`` of floats, genes x samples, indexed by gene name, with
  the descriptions in ``frame.attrs["description"]`` (a list, one per gene);
* a CLS file comes back as a :class:`Phenotype`: one label per sample and the class names
  in the order of the file's ``#`` line (with two, the first is the "positive" class of the
  metrics; with more, ``file.cls#A_versus_B`` or ``comparison=`` picks two), or, for a
  ``#numeric`` file, as a :class:`ContinuousPhenotype` (named profiles);
* a GMT file comes back as a ``dict`` {set name: list of genes} in file order; descriptions
  with ``read_gmt(path, descriptions=True)``;
* a ranked gene list (``.rnk``) comes back as a ``pandas.Series``, statistic by gene;
* a GMX file (one set per column) as a GMT file's ``dict``; a CHIP file as {probe: symbol},
  which :func:`collapse_probes` uses to collapse probe-level data to genes (Broad's modes).

>>> import io as _io
>>> read_cls(_io.StringIO("4 2 1\\n# A B\\nA A B B\\n")).classes
('A', 'B')
>>> read_gmt(_io.StringIO("S1\\tna\\tG1\\tG2\\n"))
{'S1': ['G1', 'G2']}
"""

from __future__ import annotations

from ._readers import (
    ContinuousPhenotype,
    Phenotype,
    ReadInfo,
    Table,
    collapse_probes,
    read_chip,
    read_cls,
    read_expression,
    read_frame,
    read_gct,
    read_gene_set_file,  # noqa: F401  (GMT or GMX by name; not public)
    read_gmt,
    read_gmx,
    read_rnk,
    read_table,
    write_cls,
    write_gct,
    write_gmt,
    write_gmx,
    write_rnk,
)

__all__ = [
    "ReadInfo",
    "Table",
    "read_table",
    "read_frame",
    "Phenotype",
    "ContinuousPhenotype",
    "read_expression",
    "read_gct",
    "read_cls",
    "read_gmt",
    "read_rnk",
    "write_gct",
    "write_cls",
    "write_gmt",
    "write_rnk",
    "read_gmx",
    "write_gmx",
    "read_chip",
    "collapse_probes",
]
