"""The R functions of oclstat, written once in Python: R's argument names and defaults in,
R-shaped results out. Both R bridges call these: the R package (``rbridge/``, through
reticulate and :mod:`oclstat._rbridge`) and :mod:`oclstat.rinterop` (rpy2).

An adapter takes Python values (numpy arrays, lists, dicts, scalars; R's ``NULL`` as None)
under the R formals of its function (:data:`oclstat._vocabulary.ENTRIES`), plus the keyword
``device`` (the bridge's current device, from ``setDevice()``) and, where R shows it,
``dname`` (the expression the caller passed). It returns an :class:`RValue` (an R list, htest,
data.frame or factor), an array, or a string vector; a Python error message names the
arguments as R does.

One module per file of the R package's R folder, named as that file (:mod:`.fisher`), each
registering its adapters in :data:`ADAPTERS` on import; :mod:`.base` holds the registry and
the values they share.

>>> out = ADAPTERS["fisher.sim"](np.array([[3, 1], [1, 3]]), B=2000, seed=1)
>>> out.r_class, round(out.value["p.value"], 3)    # exact fisher.test: 0.4857
('htest', 0.502)
"""

from __future__ import annotations

import numpy as np  # noqa: F401 - the example above

from . import (  # noqa: F401 - each module registers its adapters on import
    devices,
    epistasis,
    fgsea,
    fields,
    fisher,
    geseca,
    gsea,
    permutation,
    prerank,
    random,
    singlesample,
    spatial,
)
from .base import (
    ADAPTERS,
    INTERNAL,
    PYTHON_NAMES,
    STREAM_COLUMNS,
    Characters,
    RSparse,
    RValue,
    translate_warning,
)

__all__ = ["ADAPTERS", "INTERNAL", "PYTHON_NAMES", "STREAM_COLUMNS", "Characters", "RSparse",
           "RValue", "translate_warning"]
