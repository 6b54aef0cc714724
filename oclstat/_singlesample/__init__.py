"""Single-sample enrichment: ssGSEA (Barbie et al. 2009), GSVA (Hänzelmann et al. 2013) and
AUCell (Aibar et al. 2017) scores of every gene set in every sample or cell, as GSVA 1.46 and
AUCell compute them.

* :func:`ssgsea`: each sample's genes ranked by expression; a set's score sums its running-sum
  difference over the ranking (rank weight ``alpha``), normalised by the range of all scores;
* :func:`gsva`: each gene's kernel CDF estimate at each sample (Gaussian or Poisson; the
  Gaussian one, n^2 evaluations per gene, on the device, GSVA's tabulated normal CDF or the
  exact one), then per sample rank scores and a Kolmogorov-Smirnov-like running sum;
* :func:`aucell`: the area under each set's recovery curve among a cell's top genes.

Inputs of single-cell size: dense or scipy.sparse genes x cells, or an AnnData (cells x genes,
``.X`` or a layer; results also stored in ``.obsm``); the rank-based scores run in blocks of
64 cells (8 bytes per gene and cell of a block), GSVA's estimate in blocks of genes over all
cells (16 bytes per gene and cell of a block).

>>> import numpy as np, pandas as pd, oclstat
>>> rng = np.random.default_rng(0)
>>> x = pd.DataFrame(rng.normal(size=(80, 6)), index=[f"g{i}" for i in range(80)])
>>> x.iloc[:10, :3] += 2
>>> oclstat.ssgsea(x, {"up": [f"g{i}" for i in range(10)]}).shape
(1, 6)

Inside: ``validate`` (expression, gene sets), ``core`` (the definitions on the host),
``opencl`` (GSVA's kernel estimate on the device), ``api`` (the public functions).
"""

from __future__ import annotations

from .api import aucell, gsva, plage, ssgsea, zscore
from .ucell import ucell
from .ulm import UlmResult, ulm

__all__ = ["ssgsea", "gsva", "aucell", "zscore", "plage", "ucell", "ulm", "UlmResult"]
