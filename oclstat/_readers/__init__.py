"""Every reader of oclstat, on one path: text -> tokens -> layout -> values, with every
inference stated (:mod:`.inference`) and every coin flip refused.

* :mod:`.text`: bytes to lines (gzip, BOM, line ends) and lines to fields (delimiter,
  quotes, decimal commas);
* :mod:`.sniff`: header row and row names, decided from the content or refused;
* :mod:`.tables`: numeric tables; :mod:`.frames`: named columns of mixed kinds;
* :mod:`.gsea_files`: GCT, CLS, GMT, RNK; :mod:`.groups`: sample group files.

The public face is :mod:`oclstat.io`.
"""

from .frames import read_frame
from .groups import read_groups
from .gsea_files import (
    GeneSets,
    Phenotype,
    read_cls,
    read_expression,
    read_gct,
    read_gmt,
    read_rnk,
    write_cls,
    write_gct,
    write_gmt,
    write_rnk,
)
from .inference import Inference, ReadInfo, combined, input_of, refuse
from .tables import Table, read_table
from .text import MISSING, open_text, tokenize

__all__ = ["MISSING", "open_text", "tokenize", "Inference", "ReadInfo", "combined", "input_of",
           "refuse",
           "Table", "read_table", "read_frame", "read_groups", "GeneSets", "Phenotype",
           "read_expression", "read_gct", "read_cls", "read_gmt", "read_rnk", "write_gct",
           "write_cls", "write_gmt", "write_rnk"]
