"""Every reader of oclstat, on one path: text -> tokens -> layout -> values, with every
inference stated (:mod:`.inference`) and every coin flip refused.

* :mod:`.text`: bytes to lines (gzip, BOM, line ends) and lines to fields (delimiter,
  quotes, decimal commas);
* :mod:`.sniff`: header row and row names, decided from the content or refused;
* :mod:`.tables`: numeric tables; :mod:`.frames`: named columns of mixed kinds;
* :mod:`.gct`: GCT and expression tables; :mod:`.gmt`: GMT; :mod:`.rnk`: ranked lists;
  :mod:`.cls`: CLS phenotypes; :mod:`.gmx`: GMX;
  :mod:`.probes`: CHIP files and probes collapsed to genes; :mod:`.groups`: sample group
  files.

The public face is :mod:`oclstat.io`. Names are imported on first use, so that a module that
needs only :mod:`.inference` (every result) does not import pandas.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "read_frame": ".frames",
    "GeneSets": ".gmt", "Phenotype": ".cls", "read_cls": ".cls",
    "ContinuousPhenotype": ".cls",
    "read_expression": ".gct", "read_gct": ".gct", "read_gmt": ".gmt",
    "read_rnk": ".rnk", "write_cls": ".cls", "write_gct": ".gct",
    "write_gmt": ".gmt", "write_rnk": ".rnk",
    "read_groups": ".groups",
    "read_gmx": ".gmx", "write_gmx": ".gmx", "read_gene_set_file": ".gmx",
    "as_gene_sets": ".gmx",
    "read_chip": ".probes", "collapse_probes": ".probes",
    "Inference": ".inference", "ReadInfo": ".inference", "combined": ".inference",
    "input_of": ".inference", "refuse": ".inference",
    "Table": ".tables", "read_table": ".tables",
    "MISSING": ".text", "open_text": ".text", "tokenize": ".text",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
