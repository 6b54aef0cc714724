"""Exhaustive 2nd, 3rd and 4th-order epistasis search in case-control data, on the device.

Re-creates Epi4Tensor's search (Nobre et al.) in portable OpenCL: every combination of
``order`` SNPs gets its 3^order x 2 (case, control) contingency table from AND + popcount on
bit vectors (cl_kernels/epistasis.cl) and a score:

* ``"k2"`` (lower is better): K2 = sum over the 3^k cells of lnΓ(a+b+2) - lnΓ(a+1) - lnΓ(b+1),
  a and b the case and control counts of the cell;
* ``"mi"`` (higher is better): the mutual information (nats) between the combination's
  genotype and the phenotype, over the samples present at all its SNPs.

The best ``top`` combinations come back as a DataFrame, best first; ties are broken by the SNP
indices (lexicographically), so the result is the same on any device and device count.

**Missing data.** A missing genotype (-1) removes that sample from the tables of the
combinations that contain that SNP, and only those; samples with a missing phenotype are left
out. **Limits:** any number of SNPs memory holds (32-bit indices; one search ranks at most 2^62
combinations); the tensor-core and tiled searches take at most 65,534 SNPs and are left for the
bit-vector search above that.

**Exact scores.** Devices sum fixed-point integers: ``round(ln(k!) 2^B)`` for K2 and
``round(k ln(k) 2^B)`` for the mutual information (B up to 48 bits, :func:`score_tables`), so
every score is an exact integer sum, identical on every device, implementation and backend
(no floating point runs on the device: no fp64 needed). The reported values are those integers
times 2^-B: K2 within about 1e-12 of its real value, ties exact.

>>> import numpy as np, oclstat
>>> rng = np.random.default_rng(0)
>>> g = rng.integers(0, 3, size=(12, 400)); y = rng.integers(0, 2, size=400)
>>> y[(g[3] + g[7]) % 2 == 1] = 1                  # a planted pair
>>> hits = oclstat.epistasis(g, y, order=2, top=3)
>>> [int(v) for v in hits.table.iloc[0][["snp1", "snp2"]]]
[3, 7]

Inside: ``validate`` (genotypes, phenotype, labels), ``scores`` (bit vectors, host tables,
exact scores), ``plan`` (the prepared search, rank ranges, the running top-k), ``opencl`` (the
bit-vector search on OpenCL devices), ``tiles`` (the tiled decomposition and its OpenCL twin),
``cuda`` (the tensor-core backend, CuPy), ``result`` (the frozen result), ``api``.
"""

from __future__ import annotations

from .api import epistasis, epistasis_merge
from .result import EpistasisResult, PairScanResult
from .scores import SCORES, contingency_tables, encode_bits, exact_scores, score_tables

__all__ = ["epistasis", "epistasis_merge", "EpistasisResult", "PairScanResult", "encode_bits",
           "contingency_tables", "score_tables", "exact_scores", "SCORES"]
