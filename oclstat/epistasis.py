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
out. **Limits:** at most 65,535 SNPs (16-bit indices).

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
>>> [int(v) for v in hits.iloc[0][["snp1", "snp2"]]]
[3, 7]
"""

from __future__ import annotations

import itertools
import math
import threading
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from ._labels import aligned, check_unique, is_default_index
from ._progress import Progress
from ._runtime import get_runtime
from ._validation import as_int
from .genotypes import Genotypes

__all__ = ["epistasis", "encode_bits", "contingency_tables", "score_tables", "exact_scores",
           "SCORES"]

SCORES = ("k2", "mi")
BACKENDS = ("auto", "opencl", "cuda")
MAX_SNPS = 65535
#: Combinations per device launch in a GPU schedule (the candidate buffers hold every one of
#: a launch); CPU schedules launch a quarter as many (candidate buffers live in host memory).
CHUNK_COMBINATIONS = 1 << 22
#: The first launch is small, so that the top-k threshold filters the later ones.
FIRST_CHUNK = 1 << 14
#: Combinations per work-item: few on GPUs (2^22 / 8 = 524,288 work-items per launch fill an
#: H100's 270k resident threads twice), more on CPUs (fewer unrankings).
PER_ITEM_GPU = 8
PER_ITEM_CPU = 256


LAYOUTS = ("snp-major", "sample-major")


def _inputs(genotypes, phenotype, snps, layout="snp-major"):
    """Genotypes (SNPs x samples int16), phenotype, SNP names and index map, with labelled
    inputs aligned by label (oclstat._labels)."""
    import pandas as pd

    if layout not in LAYOUTS:
        raise ValueError(f"layout must be 'snp-major' (SNPs x samples) or 'sample-major' "
                         f"(samples x SNPs), got {layout!r}")
    names = samples = None
    if isinstance(genotypes, Genotypes):
        names = list(genotypes.snp_names)
        samples = list(genotypes.sample_ids) if genotypes.sample_ids else None
        if phenotype is None:
            phenotype = genotypes.phenotype
        genotypes = genotypes.genotypes
    elif isinstance(genotypes, pd.DataFrame):
        frame = genotypes if layout == "snp-major" else genotypes.T
        names = [str(i) for i in frame.index]
        samples = None if is_default_index(frame.columns) else list(frame.columns)
        check_unique(names, "genotypes' SNP names")
        try:
            genotypes = frame.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("genotypes must hold numbers 0/1/2 (NaN or -1 missing)") from None
    elif layout == "sample-major":
        genotypes = np.asarray(genotypes).T
    g = np.asarray(genotypes)
    if g.ndim != 2:
        raise ValueError(f"genotypes must be 2-D (SNPs x samples), got shape {g.shape}")
    if g.dtype.kind not in "iu":
        if g.dtype.kind != "f":
            raise TypeError(f"genotypes must be integers 0/1/2 (-1 missing), got {g.dtype}")
        if np.isinf(g).any():
            s_, n_ = (int(v[0]) for v in np.nonzero(np.isinf(g)))
            raise ValueError(f"genotypes: SNP {s_}, sample {n_} is infinite; genotypes are 0, "
                             "1, 2 or missing (NaN or -1)")
        if not np.all(np.isnan(g) | (g == np.round(g))):
            s_, n_ = (int(v[0]) for v in np.nonzero(~(np.isnan(g) | (g == np.round(g)))))
            raise ValueError(f"genotypes: SNP {s_}, sample {n_} is {g[s_, n_]!r}; genotypes "
                             "are 0, 1, 2 or missing (NaN or -1)")
        g = np.where(np.isnan(g), -1, g)
    bad = (g < -1) | (g > 2)
    g = np.where(bad, 3, g).astype(np.int16)
    if bad.any():
        s, n = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(f"genotypes must be 0, 1, 2 or -1 (missing); SNP {s}, sample {n} is "
                         f"{float(np.asarray(genotypes)[s, n]):g}")
    if phenotype is None:
        raise ValueError("phenotype is required (one 0/1 value per sample)")
    y = aligned(phenotype, samples, "phenotype", "the genotypes' samples")
    if y.ndim != 1 or y.size != g.shape[1]:
        raise ValueError(f"phenotype must have one value per sample ({g.shape[1]}), got "
                         f"shape {y.shape}")
    if y.dtype.kind == "f":
        if not np.all(np.isnan(y) | np.isin(y, [0, 1, -1])):
            raise ValueError("phenotype must be 1 (case), 0 (control) or missing (NaN, -1)")
        y = np.where(np.isnan(y), -1, y).astype(np.int8)
    if y.dtype == bool:
        y = y.astype(np.int8)
    bad_y = ~np.isin(y, [0, 1, -1])
    if bad_y.any():
        raise ValueError(f"phenotype must be 1 (case), 0 (control) or -1 (missing); sample "
                         f"{int(np.flatnonzero(bad_y)[0])} is {y[bad_y][0]!r}")
    keep = y >= 0
    g, y = g[:, keep], y[keep].astype(np.int8)
    n_case, n_ctrl = int((y == 1).sum()), int((y == 0).sum())
    if n_case == 0 or n_ctrl == 0:
        raise ValueError(f"phenotype needs cases and controls; got {n_case} cases and "
                         f"{n_ctrl} controls")
    if names is None:
        names = [f"snp{i}" for i in range(g.shape[0])]
    if snps is not None:
        idx = np.asarray(snps)
        if idx.dtype.kind not in "iu":
            lookup = {n: i for i, n in enumerate(names)}
            missing = [s for s in idx if s not in lookup]
            if missing:
                raise ValueError(f"snps: unknown SNP names {missing[:5]}")
            idx = np.array([lookup[s] for s in idx])
        if idx.size == 0 or idx.min() < 0 or idx.max() >= g.shape[0] or \
                np.unique(idx).size != idx.size:
            raise ValueError("snps must be distinct SNP indices (or names) of the data")
        idx = np.sort(idx)
        g = g[idx]
        names = [names[i] for i in idx]
        index_map = idx
    else:
        index_map = np.arange(g.shape[0])
    return g, y, names, index_map


def encode_bits(g: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
    """The kernel's bit vectors: (n_snps, 2 classes, 3 genotypes, n_words) uint64, bit i of
    class c's vector v set when sample i of that class has genotype v (a missing genotype and
    the padding are 0 in all three), and n_words."""
    groups = [np.flatnonzero(y == 0), np.flatnonzero(y == 1)]
    n_words = max(-(-len(ix) // 64) for ix in groups)
    out = np.zeros((g.shape[0], 2, 3, n_words), dtype=np.uint64)
    for c, ix in enumerate(groups):
        sub = g[:, ix]
        for v in range(3):
            packed = np.packbits(sub == v, axis=1, bitorder="little")
            pad = n_words * 8 - packed.shape[1]
            packed = np.ascontiguousarray(np.pad(packed, ((0, 0), (0, pad))))
            out[:, c, v, :] = packed.view("<u8")
    return out, n_words


def contingency_tables(genotypes, phenotype, combos) -> np.ndarray:
    """Reference tables on the host: (n_combos, 2, 3^k) counts, class 0 = controls, cell index
    = sum of genotype_i * 3^(k-1-i); samples missing at any SNP of the combination left out."""
    g = np.asarray(genotypes)
    y = np.asarray(phenotype)
    combos = np.atleast_2d(combos)
    k = combos.shape[1]
    out = np.zeros((combos.shape[0], 2, 3**k), dtype=np.int64)
    for r, combo in enumerate(combos):
        sub = g[list(combo)]
        ok = (sub >= 0).all(axis=0) & (y >= 0)
        cell = np.zeros(g.shape[1], dtype=np.int64)
        for row in sub:
            cell = cell * 3 + np.clip(row, 0, 2)
        for c in (0, 1):
            out[r, c] = np.bincount(cell[ok & (y == c)], minlength=3**k)
    return out


# ----------------------------------------------------------------------------- exact scores


def score_bits(n_samples: int) -> int:
    """Fixed-point bits B of the device's scores for ``n_samples`` samples: as many as keep
    every partial sum below 2^61 (at most 48). K2 sums are at most ln((n + 81)!) (a product of
    factorials is at most the factorial of the sum), mutual-information sums at most 3 n ln n."""
    n = max(1, int(n_samples))
    top = max(float(gammaln(n + 82.0)), 3.0 * n * math.log(n), 1.0)
    return int(min(48, math.floor(math.log2(2.0**61 / top))))


def score_tables(n_samples: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(lf, nln, B)``: ``lf[k] = round(ln(k!) 2^B)`` for k <= n + 1 and
    ``nln[k] = round(k ln(k) 2^B)`` for k <= n, as int64 (what every device sums exactly).

    >>> lf, nln, b = score_tables(10)
    >>> b, round(float(lf[10]) / 2**b, 10)          # ln(10!) = 15.1044125730755...
    (48, 15.1044125731)
    """
    bits = score_bits(n_samples)
    k = np.arange(n_samples + 2, dtype=np.float64)
    lf = np.rint(gammaln(k + 1.0) * 2.0**bits).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        nln = np.rint(np.where(k > 0, k * np.log(k), 0.0) * 2.0**bits).astype(np.int64)
    return lf, nln, bits


def exact_scores(tables: np.ndarray, score: str) -> np.ndarray:
    """The device's integer scores of host tables (n, 2, cells) (:func:`contingency_tables`):
    the reference the tests compare every device with, bit for bit."""
    t = np.asarray(tables, dtype=np.int64)
    lf, nln, _ = score_tables(int(t.sum(axis=(1, 2)).max()) if len(t) else 0)
    a, b = t[:, 1], t[:, 0]
    if score == "k2":
        return (lf[a + b + 1] - lf[a] - lf[b]).sum(axis=1)
    x = (nln[a] + nln[b] - nln[a + b]).sum(axis=1)
    n0, n1 = b.sum(axis=1), a.sum(axis=1)
    n = n0 + n1
    x = x - nln[n0] - nln[n1] + nln[n]
    q = np.abs(x) // np.maximum(n, 1)                  # C's division truncates towards zero
    return np.where(n > 0, -np.sign(x) * q, 0)


# ----------------------------------------------------------------------------- the search


def _chunk(gpu_schedule: bool) -> int:
    return CHUNK_COMBINATIONS if gpu_schedule else max(1, CHUNK_COMBINATIONS >> 2)


def rank_ranges(start: int, stop: int, first: int | None = None, chunk: int | None = None):
    """Launch-sized ranges ``(rank0, count)`` of the colex ranks start .. stop - 1: a small first
    one (so that the top-k threshold filters the rest), then ``chunk`` each."""
    first = FIRST_CHUNK if first is None else first
    chunk = CHUNK_COMBINATIONS if chunk is None else chunk
    pos, size = int(start), max(1, min(first, chunk))
    while pos < stop:
        n = min(size, stop - pos)
        yield pos, n
        pos, size = pos + n, max(1, chunk)


@dataclass
class _Best:
    top: int
    scores: np.ndarray
    combos: np.ndarray

    @classmethod
    def empty(cls, top: int, order: int) -> _Best:
        return cls(top, np.empty(0, dtype=np.int64), np.empty((0, order), dtype=np.int64))

    def threshold(self) -> int:
        return int(self.scores[self.top - 1]) if len(self.scores) >= self.top else _NO_LIMIT

    def merge(self, scores, combos):
        s = np.concatenate([self.scores, np.asarray(scores, dtype=np.int64)])
        c = np.concatenate([self.combos, np.asarray(combos, dtype=np.int64)])
        order = np.lexsort(tuple(c[:, i] for i in range(c.shape[1] - 1, -1, -1)) + (s,))
        keep = order[: self.top]
        self.scores, self.combos = s[keep], c[keep]


_NO_LIMIT = np.iinfo(np.int64).max


class Candidates:
    """One set of candidate buffers (counter, scores, SNP indices) that a launch appends to."""

    def __init__(self, rt, cap: int, order: int):
        self.rt, self.cap, self.order = rt, int(cap), order
        self.count = rt.empty(4)
        self.scores = rt.empty(self.cap * 8)
        self.snps = rt.empty(self.cap * order * 2)

    def reset(self) -> None:
        self.rt.fill(self.count, np.zeros(1, dtype=np.uint32), 4)

    def read(self, after=None) -> tuple[np.ndarray, np.ndarray]:
        """(scores int64, SNP indices) once the launch ``after`` has finished (read on the
        runtime's transfer queue, so launches queued later keep the device busy)."""
        rt = self.rt
        k = int(min(rt.read(self.count, np.empty(1, dtype=np.uint32), wait_for=after)[0],
                    self.cap))
        return (rt.read(self.scores, np.empty(k, dtype=np.int64), wait_for=after),
                rt.read(self.snps, np.empty((k, self.order), dtype=np.uint16), wait_for=after))


def _run_device(rt, search: Search, ranges, chunk: int, best: _Best, lock, bar):
    """Pull rank ranges from ``ranges`` and search them on ``rt``; two candidate sets
    alternate, so the next launch is queued before the last one's candidates are read."""
    kernel = rt.kernel("epistasis.cl", "search", search.defines(rt.gpu_schedule))
    bits = rt.to_device(search.bits, writable=False)
    lf, nln, _ = score_tables(search.n_samples)
    lf_b, nln_b = rt.to_device(lf, writable=False), rt.to_device(nln, writable=False)
    per_item = PER_ITEM_GPU if rt.gpu_schedule else PER_ITEM_CPU
    sets = [Candidates(rt, chunk, search.order) for _ in range(2)]   # chunk: largest range
    pending = None

    def collect(item):
        event, cands, n = item
        scores, combos = cands.read(after=event)
        with lock:
            best.merge(scores, combos)
            bar.update(n)

    for i in itertools.count():
        with lock:
            item = next(ranges, None)
            thr = best.threshold()
        if item is None:
            break
        if thr == _NO_LIMIT and pending is not None:   # no top-k yet: wait for one
            collect(pending)
            pending = None
            with lock:
                thr = best.threshold()
        rank0, n = item
        cands = sets[i % 2]
        cands.reset()
        event = rt.launch(kernel, -(-n // per_item), bits, np.uint32(search.n_words),
                          np.uint32(search.n_snps), np.uint64(rank0), np.uint64(n),
                          np.uint32(per_item), lf_b, nln_b, np.int64(thr), cands.count,
                          cands.scores, cands.snps, np.uint32(cands.cap))
        if pending is not None:
            collect(pending)
        pending = (event, cands, n)
    if pending is not None:
        collect(pending)


@dataclass
class Search:
    """One prepared search: the encoded data and what to compute (see :func:`prepare`)."""

    bits: np.ndarray
    n_words: int
    n_snps: int
    n_samples: int
    order: int
    score: str
    top: int
    complete: bool
    names: list
    index_map: np.ndarray

    @property
    def combinations(self) -> int:
        return math.comb(self.n_snps, self.order)

    def defines(self, gpu_schedule: bool = False) -> dict:
        """Build defines of epistasis.cl for this search in the given schedule."""
        out = {"ORDER": self.order, "SCORE": SCORES.index(self.score)}
        if gpu_schedule:
            out["EPI_CELL_OUTER"] = 1
        elif self.complete:
            out["NO_MISSING"] = 1
        return out

    def run(self, runtimes, start: int = 0, stop: int | None = None, progress=None) -> _Best:
        """Search the colex ranks start .. stop - 1 (default: all) on one or several runtimes
        (threads pulling launch-sized ranges; the result does not depend on who ran what)."""
        stop = self.combinations if stop is None else int(stop)
        best = _Best.empty(self.top, self.order)
        lock = threading.Lock()
        chunk = _chunk(any(rt.gpu_schedule for rt in runtimes))
        ranges = rank_ranges(start, stop, chunk=chunk)
        with Progress(total=max(1, stop - start), desc=f"epistasis order {self.order}",
                      enabled=progress) as bar:
            if len(runtimes) == 1:
                _run_device(runtimes[0], self, ranges, chunk, best, lock, bar)
                return best
            errors = []

            def one(rt):
                try:
                    _run_device(rt, self, ranges, chunk, best, lock, bar)
                except Exception as exc:  # noqa: BLE001 - re-raised below
                    errors.append(exc)

            threads = [threading.Thread(target=one, args=(rt,)) for rt in runtimes]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if errors:
                raise errors[0]
        return best

    def values(self, scores: np.ndarray) -> np.ndarray:
        """Scores as reported: K2 (lower is better) or mutual information in nats (higher is
        better), from the device's fixed-point integers."""
        scale = 2.0 ** -score_bits(self.n_samples)
        v = np.asarray(scores, dtype=np.float64) * scale
        return v if self.score == "k2" else -v

    def frame(self, best: _Best):
        import pandas as pd

        combos = self.index_map[best.combos] if len(best.combos) else best.combos
        frame = pd.DataFrame({f"snp{i + 1}": combos[:, i] for i in range(self.order)})
        for i in range(self.order):
            frame[f"name{i + 1}"] = [self.names[j] for j in best.combos[:, i]]
        frame[self.score] = self.values(best.scores)
        frame.attrs["combinations"] = self.combinations
        return frame


def prepare(genotypes, phenotype=None, *, order=4, score="k2", top=10, snps=None,
            layout="snp-major") -> Search:
    """Check the inputs of :func:`epistasis` and encode them (shared with oclstat.distributed)."""
    order = as_int(order, "order", minimum=2, maximum=4)
    top = as_int(top, "top", minimum=1)
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    g, y, names, index_map = _inputs(genotypes, phenotype, snps, layout)
    n_snps = g.shape[0]
    if order > n_snps:
        raise ValueError(f"order {order} is larger than the number of SNPs ({n_snps})")
    if n_snps > MAX_SNPS:
        raise ValueError(f"at most {MAX_SNPS} SNPs per search, got {n_snps}; use snps=")
    bits, n_words = encode_bits(g, y)
    if bits.size >= 2**32:
        raise ValueError(f"{n_snps} SNPs x {g.shape[1]} samples make {bits.nbytes / 2**30:.0f} "
                         "GiB of bit vectors; the kernels address at most 2^32 words: search "
                         "fewer SNPs at a time (snps=)")
    return Search(bits, n_words, n_snps, g.shape[1], order, score, top, bool((g >= 0).all()),
                  names, index_map)


def _use_cuda(backend: str, search: Search, runtimes, client) -> bool:
    """Whether this search runs on the CUDA tensor-core path (errors if "cuda" cannot)."""
    if backend == "opencl":
        return False
    from .cuda import available

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


def _runtimes(device, devices):
    """The runtimes of ``device=`` (one device or a list); ``devices=`` is its old name."""
    if devices is not None:
        warnings.warn("epistasis(devices=...) is deprecated; pass device= (one device or a "
                      "list)", DeprecationWarning, stacklevel=3)
        if device is not None:
            raise ValueError("pass device= or devices=, not both")
        device = devices
    if device is None:
        return None
    many = isinstance(device, (list, tuple))
    items = list(device) if many else [device]
    if not items:
        raise ValueError("device= is an empty list")
    return [get_runtime(d) for d in items]


def epistasis(genotypes, phenotype=None, *, order: int = 4, score: str = "k2", top: int = 10,
              snps=None, layout: str = "snp-major", backend: str = "auto", device=None,
              client=None, progress=None, devices=None):
    """Exhaustive search over every combination of ``order`` (2, 3 or 4) SNPs.

    ``genotypes``: SNPs x samples (0/1/2, -1 or NaN missing; ``layout="sample-major"`` for
    samples x SNPs, the usual layout of a DataFrame with SNP names as columns), or a
    :class:`oclstat.genotypes.Genotypes` (from :func:`oclstat.genotypes.read_plink` /
    ``read_genotype_table``); ``phenotype``: 1 case, 0 control (-1 or NaN missing) per sample.
    **Labels are aligned, never taken by position**: a DataFrame's SNP labels name the SNPs in
    the result (and in ``snps=``), a phenotype Series indexed by sample id is matched to the
    DataFrame's sample labels (labels that repeat or disagree are an error); positions are used
    only for unlabelled arrays. ``snps`` restricts the search to some SNPs (indices or
    names). ``device``: None (the default device), one device, or a list of devices (indices,
    names or runtimes) that share the work dynamically (``devices=`` is the deprecated name).
    ``client``: a ``dask.distributed.Client`` (or :class:`oclstat.distributed.LocalDevices`) to
    cut the search into tasks (same result). ``backend``: "opencl" (bit vectors and popcount,
    in the device's schedule: cell by cell on GPUs, word by word on CPUs), "cuda" (the tile
    products on NVIDIA binary tensor cores, :mod:`oclstat.cuda`: needs CuPy, compute capability
    8.0+, complete genotypes, one GPU) or "auto" ("cuda" when it can run, else "opencl"); every
    backend gives the same result. Returns a DataFrame, best first: ``snp1..snpk`` (indices
    into the input), ``name1..namek`` and ``k2`` or ``mi``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    search = prepare(genotypes, phenotype, order=order, score=score, top=top, snps=snps,
                     layout=layout)
    runtimes = _runtimes(device, devices)
    if _use_cuda(backend, search, runtimes, client):
        from .cuda.epistasis_tc import search_tensor_cores

        try:
            return search.frame(search_tensor_cores(search, progress))
        except Exception as exc:
            if backend == "cuda":
                raise
            warnings.warn(f"the CUDA tensor-core path could not run ({exc}); using OpenCL",
                          RuntimeWarning, stacklevel=2)
    if client is not None:
        from .distributed import epistasis_on

        return search.frame(epistasis_on(client, search, progress=progress))
    runtimes = runtimes or [get_runtime(None)]
    return search.frame(search.run(runtimes, progress=progress))
