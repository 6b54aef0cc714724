"""The device side of :func:`oclstat.gsva`: the kernel CDF estimate of every gene at every
sample (cl_kernels/singlesample.cl), in blocks of genes over all samples, so that memory is
bounded by the block whatever the number of genes: a block of G genes holds 2 G n values
(the genes' expression and their scores, n samples) on the device.

>>> import numpy as np, oclstat
>>> from oclstat._singlesample import core
>>> x = np.random.default_rng(1).normal(size=(5, 40))
>>> d = density(oclstat.get_runtime(), x, tabulated=True, dtype=np.float64)
>>> bool(np.allclose(d, core.gsva_density_block(x, np.arange(40), "Gaussian", True)))
True
"""

from __future__ import annotations

import numpy as np

from .._progress import Progress
from .core import gsva_bandwidth, normal_cdf_table

_U32 = np.uint32

#: Bytes of expression and scores one block of genes may hold on the device.
BLOCK_BYTES = 256 << 20


def genes_per_block(n_samples: int, itemsize: int) -> int:
    """Genes per block: 2 values per gene and sample within :data:`BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // max(1, 2 * n_samples * itemsize))


def density(rt, x: np.ndarray, *, tabulated: bool, dtype, bandwidth=None,
            progress=None, sums: bool = False) -> np.ndarray:
    """GSVA's Gaussian-kernel scores of every gene (rows of ``x``) at every sample, on the
    device: log(F / (1 - F)), F the mean over the samples of Phi((x_ij - x_ik) / h_i), h the
    genes' ``bandwidth`` (default :func:`~.core.gsva_bandwidth`); with ``sums`` the sums of
    Phi themselves (GSVA 2's sparse algorithm divides them by each gene's own count)."""
    real = np.dtype(dtype)
    defines = rt.real_defines(real)
    if tabulated:
        defines["TABULATED"] = 1
    if sums:
        defines["SUMS"] = 1
    # where each work-item runs as scalar code (pocl's CPU drivers), a vector register's
    # worth of test samples per work-item (the tabulated CDF only: the exact one calls erfc,
    # whose vector form may round differently); Intel's runtime vectorises the one-sample
    # kernel across work-items itself (5,000 genes x 100 samples: 0.026 s; its lanes, 0.04 s)
    lanes = rt.lanes(real, register=True) if tabulated and rt.scalar_work_items else 1
    if lanes > 1:
        defines["LANES"] = lanes
    kernel = rt.kernel("singlesample.cl", "density_lanes" if lanes > 1 else "density", defines)
    n_genes, n = x.shape
    h = gsva_bandwidth(x, "Gaussian") if bandwidth is None else np.asarray(bandwidth)
    table = rt.to_device(normal_cdf_table().astype(real), writable=False)
    out = np.empty((n_genes, n))
    step = genes_per_block(n, real.itemsize)
    local = (64, 1) if not rt.gpu_schedule else (128, 1)
    with Progress(total=n_genes, desc="gsva density", enabled=progress) as bar:
        for g0 in range(0, n_genes, step):
            g1 = min(n_genes, g0 + step)
            block = np.ascontiguousarray(x[g0:g1], dtype=real)
            xb = rt.to_device(block, writable=False)
            hb = rt.to_device(h[g0:g1].astype(real), writable=False)
            ob = rt.empty(block.nbytes)
            rt.launch_nd(kernel, (-(-n // lanes), g1 - g0), local, xb, xb, hb, table,
                         _U32(g1 - g0), _U32(n), _U32(n), ob)
            if real == out.dtype:
                rt.read(ob, out[g0:g1])
            else:
                part = np.empty(block.shape, dtype=real)
                rt.read(ob, part)
                out[g0:g1] = part
            bar.update(g1 - g0)
    return out
