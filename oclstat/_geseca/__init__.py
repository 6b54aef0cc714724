"""Gene set co-regulation analysis (fgsea's GESECA): how much of the variance of an expression
matrix a gene set's summed profile explains, against random sets of its size, with p-values
from simple sampling and multilevel splitting on the device (:func:`geseca`)."""

from .api import geseca
from .result import GesecaResult

__all__ = ["geseca", "GesecaResult"]
