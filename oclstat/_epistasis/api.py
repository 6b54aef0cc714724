"""The public function of the epistasis search."""

from __future__ import annotations

import warnings

from .._deprecation import renamed
from .._results import with_input
from .._runtime import get_runtime, runtime_for
from .._scale import run
from . import tasks
from .cuda import available, search_tensor_cores
from .opencl import run_search
from .plan import Search, prepare
from .result import EpistasisResult

BACKENDS = ("auto", "opencl", "cuda")


def _use_cuda(backend: str, search: Search, runtimes, client) -> bool:
    """Whether this search runs on the CUDA tensor-core path (errors if "cuda" cannot)."""
    if backend == "opencl":
        return False
    ok, why = available()
    reasons = [why] if not ok else []
    if not search.complete:
        reasons.append("the genotypes have missing values (the tensor-core path needs "
                       "complete data)")
    if runtimes is not None or client is not None:
        reasons.append("device= and client= apply to the OpenCL path only")
    if backend == "cuda" and reasons:
        raise ValueError(f"backend='cuda' cannot run: {'; '.join(reasons)}")
    return not reasons


def _runtimes(device):
    """The runtimes of ``device=`` (one device or a list)."""
    if device is None:
        return None
    many = isinstance(device, (list, tuple))
    items = list(device) if many else [device]
    if not items:
        raise ValueError("device= is an empty list")
    return [get_runtime(d) for d in items]


@renamed(devices="device")
def epistasis(genotypes, phenotype=None, *, order: int = 4, score: str = "k2", top: int = 10,
              snps=None, layout: str = "snp-major", backend: str = "auto", device=None,
              client=None, progress=None) -> EpistasisResult:
    """Exhaustive search over every combination of ``order`` SNPs for association with a
    case/control phenotype.

    Parameters
    ----------
    genotypes : array_like, DataFrame or Genotypes
        SNPs x samples, 0/1/2 minor-allele counts (-1 or NaN missing), or samples x SNPs with
        ``layout="sample-major"``, or a :class:`oclstat.genotypes.Genotypes` from
        :func:`oclstat.genotypes.read_plink` or ``read_genotype_table``.
    phenotype : array_like or Series, optional
        1 case, 0 control (-1 or NaN missing) per sample; a Series indexed by sample id is
        matched to the genotypes' sample labels (labels are aligned, never taken by position).
        Not needed with a Genotypes that carries one.
    order : {2, 3, 4}, optional
        SNPs per combination.
    score : {"k2", "mi"}, optional
        Bayesian K2 score (lower is better) or mutual information (higher is better).
    top : int, optional
        How many of the best combinations to keep.
    snps : sequence of int or str, optional
        Restrict the search to these SNPs (indices or names).
    layout : {"snp-major", "sample-major"}, optional
        Orientation of an array or DataFrame ``genotypes``.
    backend : {"auto", "opencl", "cuda"}, optional
        "opencl" (bit vectors and popcount, in the device's schedule: cell by cell on GPUs,
        word by word on CPUs), "cuda" (the tile products on NVIDIA binary tensor cores through
        CuPy: compute capability 8.0+, complete genotypes, one GPU) or "auto" ("cuda" when it
        can run). Every backend gives the same result.
    device : int, str, Runtime or list, optional
        The OpenCL device, or a list of devices that share the work dynamically
        (``devices=`` is the deprecated name).
    client : dask.distributed.Client or LocalDevices, optional
        Cut the search into tasks on this executor (the same result).
    progress : bool, optional
        Progress bar (None: automatic for long runs).

    Returns
    -------
    EpistasisResult
        ``table``: the best combinations, best first: ``snp1..snpK`` (indices into the
        input), ``name1..nameK`` and ``k2`` or ``mi``; ``to_frame()`` gives it as a DataFrame.

    See Also
    --------
    oclstat.genotypes.read_plink : PLINK 1 binary genotypes.
    EpistasisResult : the result and its table.

    Notes
    -----
    Every combination's 3^K x 2 contingency table is counted from bit vectors (AND and
    popcount), and its score is an exact fixed-point integer sum of log-gamma terms, so every
    device, schedule and split of the work gives bit-identical scores and the same ranking
    (ties broken by the combination's index). Samples with a missing genotype leave the
    combinations that contain that SNP.

    References
    ----------
    .. [1] Nobre, R., Ilic, A., Santander-Jiménez, S. and Sousa, L. (2021). Retargeting
       tensor accelerators for epistasis detection. IEEE Transactions on Parallel and
       Distributed Systems 32(9), 2160-2174 (Epi4Tensor).
    .. [2] Cooper, G. F. and Herskovits, E. (1992). A Bayesian method for the induction of
       probabilistic networks from data. Machine Learning 9, 309-347 (the K2 score).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> rng = np.random.default_rng(0)
    >>> g = rng.integers(0, 3, size=(12, 400))
    >>> y = ((g[2] + g[7]) % 3 == 0).astype(int)
    >>> hit = oclstat.epistasis(g, y, order=2, top=1).table.iloc[0]
    >>> int(hit.snp1), int(hit.snp2)
    (2, 7)
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    search = prepare(genotypes, phenotype, order=order, score=score, top=top, snps=snps,
                     layout=layout)
    runtimes = _runtimes(device)
    if _use_cuda(backend, search, runtimes, client):
        try:
            return with_input(EpistasisResult.of(search, search_tensor_cores(search, progress),
                                                  "cuda"), genotypes)
        except Exception as exc:
            if backend == "cuda":
                raise
            warnings.warn(f"the CUDA tensor-core path could not run ({exc}); using OpenCL",
                          RuntimeWarning, stacklevel=2)
    if client is not None:
        shared = client.scatter(search, broadcast=True)
        results = run(client, tasks.plan(search, shared), progress=progress,
                      desc="epistasis tasks")
        return with_input(EpistasisResult.of(search, tasks.merge(search, results), "tasks"),
                          genotypes)
    runtimes = runtimes or [runtime_for(None, "epistasis")]
    return with_input(EpistasisResult.of(search, run_search(search, runtimes, progress=progress),
                                         "opencl"), genotypes)
