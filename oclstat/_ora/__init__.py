"""Over-representation analysis: the hypergeometric test of gene sets in gene lists, many
lists at once, overlaps counted on the device (:func:`ora`)."""

from .api import ora
from .result import OraResult

__all__ = ["ora", "OraResult"]
