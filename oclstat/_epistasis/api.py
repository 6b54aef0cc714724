"""The public function of the epistasis search."""

from __future__ import annotations

import functools
import os
import warnings
from typing import TYPE_CHECKING

import numpy as np

from .._deprecation import renamed
from .._prefetch import prefetch
from .._progress import Progress
from .._results import with_input
from .._scale import executor
from . import tasks
from .cuda import available, search_tensor_cores, unsuited
from .opencl import run_search
from .pairs import DevicePairs, HostPairs
from .pairtests import BOOST_EPI1, chi2_p
from .pairtests import TESTS as PLINK_TESTS
from .plan import Search, prepare
from .result import EpistasisResult, PairScanResult
from .scan import (
    EXTRA,
    Checkpoint,
    Summary,
    chi2_threshold,
    epi_header,
    epi_lines,
    job_rows,
    suffix,
)
from .tiles import search_tiles, tiles_chosen
from .validate import prepare_scan

if TYPE_CHECKING:       # imported where a table is made: a scan to files needs no pandas
    import pandas as pd

BACKENDS = ("auto", "opencl", "cuda")
#: Every test: the exhaustive search's scores (the best ``top`` combinations of any order)
#: and PLINK's pair tests (every pair below ``epi1``).
ALL_TESTS = ("k2", "mi", *PLINK_TESTS)
#: Rows x columns of one block of pairs: the device's, and the host's (covariates).
DEVICE_BLOCK, HOST_BLOCK = 2048, 256


def _use_cuda(backend: str, search: Search, devices_given: bool) -> bool:
    """Whether this search runs on the CUDA tensor-core path (errors if "cuda" cannot)."""
    if backend == "opencl":
        return False
    ok, why = available()
    reasons = ([why] if not ok else []) + unsuited(search)
    if devices_given:
        reasons.append("device= names OpenCL devices (the CUDA path uses every visible GPU; "
                       "with client=, each worker's own)")
    if backend == "cuda" and reasons:
        raise ValueError(f"backend='cuda' cannot run: {'; '.join(reasons)}")
    return not reasons


@renamed(devices="device", score="test")
def epistasis(genotypes, phenotype=None, *, order: int = 4, test: str = "k2", top: int = 10,
              snps=None, layout: str = "snp-major", backend: str = "auto", epi1=None,
              epi2: float = 0.01, covariates=None, cellmin: int = 5,
              keep_allele_order: bool = False, out=None, job=(1, 1), resume: bool = True,
              device=None, client=None, progress=None):
    """Exhaustive search over every combination of ``order`` SNPs for association with a
    case/control phenotype, or a scan of every pair with one of PLINK's tests.

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
    order : {2, 3, 4, 5}, optional
        SNPs per combination. Order 5 (k2, mi) runs as tiles on any OpenCL device and needs
        complete genotypes and room for its table of SNP quadruples (128 bytes each: 1.3 GiB
        for 128 SNPs, 21 GiB for 256; a quarter of a GPU's memory, 1 GiB on a CPU).
    test : {"k2", "mi", "fast", "joint-effects", "boost", "logistic", "linear"}, optional
        "k2" (Bayesian K2 score, lower is better) and "mi" (mutual information, higher is
        better) keep the ``top`` best combinations of ``order`` SNPs (``score=`` is the old
        name). PLINK 1.9's pair tests report every pair with p below ``epi1`` and a per-SNP
        summary: "fast" (``--fast-epistasis``, the Ueki-Cordell test), "joint-effects"
        (``--fast-epistasis joint-effects``), "boost" (``--fast-epistasis boost``: BOOST's
        likelihood ratio of the log-linear model without the three-way interaction, 4 df,
        screened by its Kirkwood approximation), "logistic" and "linear" (``--epistasis``: the
        1-df interaction of a logistic or linear model; "linear" takes a quantitative
        phenotype), PLINK's numbers on PLINK's orientation (A1 the minor allele).
    top : int, optional
        How many of the best combinations to keep (k2, mi).
    snps : sequence of int or str, optional
        Restrict the search to these SNPs (indices or names).
    layout : {"snp-major", "sample-major"}, optional
        Orientation of an array or DataFrame ``genotypes``.
    backend : {"auto", "opencl", "cuda"}, optional
        "opencl" (bit vectors and popcount, in the device's schedule: cell by cell on GPUs,
        word by word on CPUs; on GPUs orders 3 and 4 with complete genotypes as tiles, which
        count only the genotype-0/1 patterns and take the other cells from lower-order
        tables: 16 popcounts per combination and word at order 4, not 81), "cuda" (the tile
        products on NVIDIA binary tensor cores through CuPy: compute capability 8.0+, complete
        genotypes, every such GPU visible sharing the tiles) or "auto" ("cuda" when it can
        run). Every backend gives the same result.
    device : int, str, Runtime or list, optional
        The OpenCL device, or a list of devices that share the work dynamically
        (``devices=`` is the deprecated name).
    client : dask.distributed.Client or LocalDevices, optional
        Cut the search into tasks on this executor (the same result): ranges of tiles where
        every worker runs the search as tiles (its current CUDA GPU's tensor cores, as on a
        Dask-CUDA worker, when ``backend`` allows and it has one; else OpenCL tiles in GPU
        schedules, and order 5), else ranges of colex ranks.
    epi1, epi2 : float, optional
        PLINK's tests: report the pairs with p below ``epi1`` (PLINK's default 1e-4; 5e-6 for
        "boost", which reports every pair its screen passes, with the exact statistic),
        count per SNP those below ``epi2`` (0.01) in the summary.
    covariates : array_like or DataFrame, optional
        "logistic" and "linear": further terms of the model (samples x covariates; a
        DataFrame indexed by sample is matched by label), fitted on each pair's samples on
        the device (more than 16 columns: on the host); without them the regressions are
        fitted on the pairs' genotype cells.
    cellmin : int, optional
        "joint-effects": pairs with a genotype cell below this count fail (PLINK's
        ``--je-cellmin``).
    keep_allele_order : bool, optional
        Count the file's A1 allele instead of the minor allele (PLINK's
        ``--keep-allele-order``).
    out : str or path, optional
        PLINK's tests: write the hits to ``<out>.epi.cc`` (``.epi.qt`` for "linear") and the
        summary to ``<out>.epi.cc.summary`` as PLINK lays them out, streamed: the hits are
        not held in memory. A checkpoint (``<out>.epi.cc.ckpt.npz``) after every block of
        rows lets a killed run go on from there when started again (``resume=True``).
    job : (int, int), optional
        (K, N): run job K of N (PLINK's ``--parallel K N``: equal numbers of pairs, the files
        get ``.K``); :func:`epistasis_merge` joins the N jobs' files into the single run's.
    resume : bool, optional
        Go on from a checkpoint of the same scan (False: start over).

    Returns
    -------
    EpistasisResult or PairScanResult
        k2, mi: ``table``, the best combinations, best first: ``snp1..snpK`` (indices into
        the input), ``name1..nameK`` and ``k2`` or ``mi``. PLINK's tests: ``table`` (the hits
        in PLINK's columns, None when written to ``out``) and ``summary``.

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
    if test not in ALL_TESTS:
        raise ValueError(f"test must be one of {ALL_TESTS}, got {test!r}")
    if test in PLINK_TESTS:
        if order != 2 and order != 4:
            raise ValueError(f"test {test!r} scans pairs: order must be 2, got {order}")
        default = BOOST_EPI1 if test == "boost" else 1e-4
        scan = prepare_scan(genotypes, phenotype, test=test,
                            epi1=default if epi1 is None else epi1, epi2=epi2, snps=snps,
                            layout=layout, covariates=covariates, cellmin=cellmin,
                            keep_allele_order=keep_allele_order)
        rt = None
        if DevicePairs.takes(scan):
            rt = executor(device, None, "epistasis").runtimes[0]
        return with_input(scan_pairs(scan, rt, out=out, job=job, resume=resume,
                                     progress=progress), genotypes)
    for name, value, default in (("epi1", epi1, None), ("covariates", covariates, None),
                                 ("out", out, None)):
        if value is not default:
            raise ValueError(f"{name}= is for PLINK's pair tests (test='fast', "
                             f"'joint-effects', 'boost', 'logistic', 'linear'), not "
                             f"test={test!r}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    search = prepare(genotypes, phenotype, order=order, score=test, top=top, snps=snps,
                     layout=layout)
    ex = executor(device, client, "epistasis")
    if client is None and _use_cuda(backend, search, ex.given):
        try:
            return with_input(EpistasisResult.of(search, search_tensor_cores(search, progress),
                                                  "cuda"), genotypes)
        except Exception as exc:
            if backend == "cuda":
                raise
            warnings.warn(f"the CUDA tensor-core path could not run ({exc}); using OpenCL",
                          RuntimeWarning, stacklevel=2)
    if client is not None:          # tasks on the client; a list of devices splits one search
        numbering = tasks.route(ex.client, search, backend)
        results = ex.map(tasks.plan(search, ex.scatter(search), numbering=numbering,
                                    backend=backend),
                         progress=progress, desc=f"epistasis tasks ({numbering})")
        return with_input(EpistasisResult.of(search, tasks.merge(search, results), "tasks"),
                          genotypes)
    if tiles_chosen(search, ex.runtimes):
        best = search_tiles(ex.runtimes, search, progress)
    else:
        best = run_search(search, ex.runtimes, progress=progress)
    return with_input(EpistasisResult.of(search, best, "opencl"), genotypes)


def _job(job, n_snps) -> tuple[int, int, int, int]:
    try:
        k, n = (int(v) for v in job)
    except (TypeError, ValueError):
        raise ValueError(f"job must be (K, N) with 1 <= K <= N, got {job!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"job must be (K, N) with 1 <= K <= N, got {job!r}")
    return (k, n, *job_rows(n_snps, k, n))


def scan_paths(out, test: str, job=(1, 1)) -> tuple[str, str]:
    """The hits and summary files of a scan (PLINK's names; job K of N > 1 adds ``.K``)."""
    base = f"{out}{suffix(test)}"
    tail = f".{job[0]}" if job[1] > 1 else ""
    return base + tail, base + ".summary" + tail


def scan_pairs(scan, rt, *, out=None, job=(1, 1), resume=True, progress=None,
               block=None) -> PairScanResult:
    """Every pair of ``scan`` (rows of job K of N) through its block engine: hits below epi1
    appended in PLINK's order, the summary, a checkpoint after each row block."""
    m = scan.n_snps
    k, n, r0, r1 = _job(job, m)
    prefetch("scipy.special")   # the p-values' module, loaded while the genotypes are encoded
    engine = DevicePairs(rt, scan) if rt is not None else HostPairs(scan)
    size = block or (DEVICE_BLOCK if rt is not None else HOST_BLOCK)
    sig1, sig2 = chi2_threshold(scan.epi1), chi2_threshold(scan.epi2)
    summary, counts = Summary(m), {"failed": 0, "hits": 0}
    hits_path = summary_path = None
    fh = ckpt = None
    start, kept = r0, []
    if out is not None:
        hits_path, summary_path = scan_paths(out, scan.test, (k, n))
        ckpt = Checkpoint(hits_path + ".ckpt.npz", f"{scan.signature()}:{k}/{n}")
        state = ckpt.load() if resume else None
        if state is not None and os.path.exists(hits_path):
            start, size_bytes, summary, counts = state
            fh = open(hits_path, "r+", encoding="utf-8", newline="")
            fh.truncate(size_bytes)
            fh.seek(size_bytes)
        else:
            fh = open(hits_path, "w", encoding="utf-8", newline="")
            if k == 1:
                fh.write(epi_header(scan))
    pairs = sum(m - 1 - i for i in range(start, r1))
    try:
        with Progress(total=max(pairs, 1), desc=f"epistasis {scan.test}",
                      enabled=progress) as bar:
            for rb in range(start, r1, size):
                nr = min(size, r1 - rb)
                rows, cols, stats, extras = [], [], [], []
                for jb in range(rb, m, size):
                    nc = min(size, m - jb)
                    blk = engine.block(rb, nr, jb, nc, sig1, sig2)
                    t, sg, b, at = blk.rows           # partners block-relative: columns
                    summary.add(rb + np.arange(nr), t, sg, b, jb + at)
                    t, sg, b, at = blk.cols           # ... and rows
                    summary.add(jb + np.arange(nc), t, sg, b, rb + at)
                    counts["failed"] += blk.failed
                    r, c, z, e = blk.hits
                    rows.append(rb + r)
                    cols.append(jb + c)
                    stats.append(z)
                    extras.append(e)
                rows, cols, stats = (np.concatenate(a) for a in (rows, cols, stats))
                extra = None if extras[0] is None else np.concatenate(extras)
                order = np.lexsort((cols, rows))
                rows, cols, stats = rows[order], cols[order], stats[order]
                extra = None if extra is None else extra[order]
                counts["hits"] += rows.size
                if fh is not None:
                    fh.write(epi_lines(scan, rows, cols, stats, extra))
                    fh.flush()
                    os.fsync(fh.fileno())
                    ckpt.save(rb + nr, fh.tell(), summary, counts)
                else:
                    kept.append((rows, cols, stats, extra))
                bar.update(sum(m - 1 - i for i in range(rb, rb + nr)))
    finally:
        if fh is not None:
            fh.close()
    files = ()
    if out is not None:
        with open(summary_path, "w", encoding="utf-8") as sh:
            sh.write("\n".join(summary.lines(scan.names, scan.chromosomes, exact=n > 1,
                                              width=scan.width)) + "\n")
        ckpt.remove()
        files = (hits_path, summary_path)
    table = None if out is not None else _hits_table(scan, kept)
    return PairScanResult(
        table=table, _summary=functools.partial(_summary_frame, scan, summary),
        test=scan.test, epi1=scan.epi1, epi2=scan.epi2, n_snps=m,
        n_samples=int(np.asarray(scan.phenotype).size),
        n_tests=int(summary.n_tot.sum() // 2), n_failed=counts["failed"],
        n_hits=counts["hits"], job=(k, n),
        device=rt.info.label if rt is not None else "host", files=files)


def _hits_table(scan, kept) -> pd.DataFrame:
    import pandas as pd

    rows = np.concatenate([h[0] for h in kept]) if kept else np.zeros(0, np.int64)
    cols = np.concatenate([h[1] for h in kept]) if kept else np.zeros(0, np.int64)
    stat = np.concatenate([h[2] for h in kept]) if kept else np.zeros(0)
    frame = pd.DataFrame({"CHR1": [scan.chromosomes[i] for i in rows],
                          "SNP1": [scan.names[i] for i in rows],
                          "CHR2": [scan.chromosomes[j] for j in cols],
                          "SNP2": [scan.names[j] for j in cols]})
    if scan.test in EXTRA:
        frame[EXTRA[scan.test]] = (np.concatenate([h[3] for h in kept]) if kept
                                   else np.zeros(0))
    frame["STAT"] = stat
    if scan.test == "boost":        # PLINK's DF column: 4, or 2 / 1 with absent genotypes
        frame["DF"] = (np.concatenate([h[3] for h in kept]) if kept
                       else np.zeros(0, np.int64)).astype(np.int64)
        frame["P"] = chi2_p(stat, frame["DF"].to_numpy())
    else:
        frame["P"] = chi2_p(stat)
    return frame


def _summary_frame(scan, summary: Summary) -> pd.DataFrame:
    import pandas as pd

    best_at = summary.best_at
    has = best_at >= 0
    return pd.DataFrame({
        "CHR": scan.chromosomes, "SNP": scan.names, "N_SIG": summary.n_sig,
        "N_TOT": summary.n_tot,
        "PROP": np.where(summary.n_tot > 0, summary.n_sig / np.maximum(summary.n_tot, 1),
                         np.nan),
        "BEST_CHISQ": np.where(has, summary.best, np.nan),
        "BEST_CHR": [scan.chromosomes[j] if j >= 0 else None for j in best_at],
        "BEST_SNP": [scan.names[j] if j >= 0 else None for j in best_at]})


def epistasis_merge(out, n_jobs: int, *, test: str = "fast") -> tuple[str, str]:
    """Join the files of the N jobs of a scan (``epistasis(..., out=out, job=(K, N))``, PLINK's
    ``--parallel K N``) into the single run's: the hits files concatenated in job order, the
    summaries added up (tests and significant counts summed, the best partner the largest
    statistic, the smaller index on a tie). The job files stay.

    Parameters
    ----------
    out : str or path
        The ``out=`` prefix the jobs wrote under.
    n_jobs : int
        N, the number of jobs.
    test : str, optional
        The test the jobs ran (its file names: ``.epi.qt`` for "linear", else ``.epi.cc``).

    Returns
    -------
    (str, str)
        The merged hits and summary files (``<out>.epi.cc``, ``<out>.epi.cc.summary``).

    See Also
    --------
    epistasis : runs the jobs (``job=(K, N)``).

    Notes
    -----
    The jobs' summaries are written with every SNP and every number in full, so the merge
    gives the single run's summary exactly (PLINK's ``--epistasis-summary-merge`` reads
    rounded values).

    References
    ----------
    .. [1] Chang, C. C. et al. (2015). Second-generation PLINK: rising to the challenge of
           larger and richer datasets. GigaScience 4, 7 (``--parallel``,
           ``--epistasis-summary-merge``).

    Examples
    --------
    >>> import numpy as np, oclstat, tempfile, os
    >>> rng = np.random.default_rng(2)
    >>> g = rng.integers(0, 3, size=(20, 300)); y = rng.integers(0, 2, size=300)
    >>> d = tempfile.mkdtemp(); one = os.path.join(d, "one"); part = os.path.join(d, "part")
    >>> _ = oclstat.epistasis(g, y, test="fast", epi1=0.2, out=one)
    >>> for k in (1, 2, 3):
    ...     _ = oclstat.epistasis(g, y, test="fast", epi1=0.2, out=part, job=(k, 3))
    >>> hits, summary = epistasis_merge(part, 3)
    >>> open(hits).read() == open(one + ".epi.cc").read()
    True
    >>> open(summary).read() == open(one + ".epi.cc.summary").read()
    True
    """
    if test not in PLINK_TESTS:
        raise ValueError(f"test must be one of {PLINK_TESTS}, got {test!r}")
    if int(n_jobs) < 2:
        raise ValueError(f"n_jobs must be at least 2, got {n_jobs!r}")
    n = int(n_jobs)
    hits_out, summary_out = scan_paths(out, test)
    parts = [scan_paths(out, test, (k, n)) for k in range(1, n + 1)]
    missing = [p for pair in parts for p in pair if not os.path.exists(p)]
    if missing:
        raise FileNotFoundError(f"epistasis_merge: {missing[0]} is missing (job files "
                                f"{parts[0][0]} .. {parts[-1][0]} expected)")
    with open(hits_out, "w", encoding="utf-8", newline="") as fh:
        for hits, _ in parts:
            with open(hits, encoding="utf-8", newline="") as part:
                fh.write(part.read())
    import pandas as pd  # the job summaries are read as tables

    summary = names = chromosomes = None
    with open(parts[0][1], encoding="utf-8") as fh:    # the SNP column's width, as written
        head = fh.readline()
    width = head.index("SNP") + 3 - len(" CHR ")
    for _, path in parts:
        frame = pd.read_csv(path, sep=r"\s+", dtype={"CHR": str, "SNP": str,
                                                      "BEST_CHR": str, "BEST_SNP": str})
        if names is None:
            names, chromosomes = list(frame["SNP"]), list(frame["CHR"])
            index = {}
            for i, name in enumerate(names):
                index.setdefault(name, i)
            summary = Summary(len(names))
        elif list(frame["SNP"]) != names:
            raise ValueError(f"epistasis_merge: {path} lists other SNPs than the first job")
        best = pd.to_numeric(frame["BEST_CHISQ"], errors="coerce").to_numpy()
        at = np.array([index.get(s, -1) if isinstance(s, str) and s != "NA" else -1
                       for s in frame["BEST_SNP"]])
        summary.add(np.arange(len(names)), frame["N_TOT"].to_numpy(np.int64),
                    frame["N_SIG"].to_numpy(np.int64), np.where(at >= 0, best, -1.0), at)
    with open(summary_out, "w", encoding="utf-8") as sh:
        sh.write("\n".join(summary.lines(names, chromosomes, width=width)) + "\n")
    return hits_out, summary_out
