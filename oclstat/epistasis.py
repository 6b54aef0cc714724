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
out. **Limits:** at most 65,535 SNPs (16-bit indices); scores in double precision.

>>> import numpy as np, oclstat
>>> rng = np.random.default_rng(0)
>>> g = rng.integers(0, 3, size=(12, 400)); y = rng.integers(0, 2, size=400)
>>> y[(g[3] + g[7]) % 2 == 1] = 1                  # a planted pair
>>> hits = oclstat.epistasis(g, y, order=2, top=3)
>>> [int(v) for v in hits.iloc[0][["snp1", "snp2"]]]
[3, 7]
"""

from __future__ import annotations

import math
import threading
import warnings
from dataclasses import dataclass

import numpy as np

from ._progress import Progress
from ._runtime import get_runtime
from ._validation import as_int
from .genotypes import Genotypes

__all__ = ["epistasis", "encode_bits", "contingency_tables", "SCORES"]

SCORES = ("k2", "mi")
BACKENDS = ("auto", "opencl", "cuda")
MAX_SNPS = 65535
#: Combinations per device launch (candidates are bounded by it).
CHUNK_COMBINATIONS = 1 << 21
#: The first launch is small, so that the top-k threshold filters the later ones.
FIRST_CHUNK = 1 << 14
#: Work-group size on CPUs: 1 keeps pocl from vectorising across work-items, which would turn
#: each 64-bit popcount into a vector emulation (AVX2 has no vector popcount).
LOCAL_CPU = 64


def _inputs(genotypes, phenotype, snps):
    names = None
    if isinstance(genotypes, Genotypes):
        names = list(genotypes.snp_names)
        if phenotype is None:
            phenotype = genotypes.phenotype
        genotypes = genotypes.genotypes
    g = np.asarray(genotypes)
    if g.ndim != 2:
        raise ValueError(f"genotypes must be 2-D (SNPs x samples), got shape {g.shape}")
    if g.dtype.kind not in "iu":
        if g.dtype.kind == "f" and np.all(np.isnan(g) | (g == np.round(g))):
            g = np.where(np.isnan(g), -1, g)
        else:
            raise TypeError(f"genotypes must be integers 0/1/2 (-1 missing), got {g.dtype}")
    g = g.astype(np.int16)
    bad = (g < -1) | (g > 2)
    if bad.any():
        s, n = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(f"genotypes must be 0, 1, 2 or -1 (missing); SNP {s}, sample {n} is "
                         f"{int(g[s, n])}")
    if phenotype is None:
        raise ValueError("phenotype is required (one 0/1 value per sample)")
    y = np.asarray(phenotype)
    if y.ndim != 1 or y.size != g.shape[1]:
        raise ValueError(f"phenotype must have one value per sample ({g.shape[1]}), got "
                         f"shape {y.shape}")
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
    """The kernel's bit vectors: (n_snps, 2 classes, 3 vectors, n_words) uint64 with
    genotype 0, genotype 1 and "present" bits of each class's samples, and n_words."""
    groups = [np.flatnonzero(y == 0), np.flatnonzero(y == 1)]
    n_words = max(-(-len(ix) // 64) for ix in groups)
    out = np.zeros((g.shape[0], 2, 3, n_words), dtype=np.uint64)
    for c, ix in enumerate(groups):
        sub = g[:, ix]
        for v, mask in enumerate((sub == 0, sub == 1, sub >= 0)):
            packed = np.packbits(mask, axis=1, bitorder="little")
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


def _tables(n_samples):
    n = np.arange(n_samples + 2, dtype=np.float64)
    lf = np.array([math.lgamma(v + 1) for v in n])
    with np.errstate(divide="ignore", invalid="ignore"):
        nln = np.where(n > 0, n * np.log(n), 0.0)
    return lf, nln


def all_prefixes(n_snps: int, order: int) -> tuple[np.ndarray, np.ndarray]:
    """Every prefix (ascending order-1 SNPs with room for a last SNP) and its number of
    combinations (n_snps - 1 - last element): the outer loop that launches and tasks cut."""
    top = n_snps - 1        # the prefix's last element must be < n_snps - 1
    if order == 2:
        firsts = [np.arange(top, dtype=np.int64)[:, None]]
    else:
        firsts = []
        for i in range(top):
            if order == 3:
                rest = np.arange(i + 1, top, dtype=np.int64)[:, None]
            else:
                a, b = np.triu_indices(top - i - 1, k=1)
                rest = np.column_stack([a + i + 1, b + i + 1])
            if rest.size:
                firsts.append(np.column_stack([np.full(len(rest), i), rest]))
    if not firsts:
        return np.empty((0, order - 1), dtype=np.int64), np.empty(0, dtype=np.int64)
    allp = np.concatenate(firsts)
    return allp, n_snps - 1 - allp[:, -1]


def _chunks(allp: np.ndarray, work: np.ndarray):
    """Launch-sized pieces of ``allp``: a small first one (so the top-k threshold filters the
    rest), then about CHUNK_COMBINATIONS combinations each; yields (prefixes, combinations)."""
    cum = np.cumsum(work)
    start, target = 0, min(FIRST_CHUNK, CHUNK_COMBINATIONS)
    while start < len(allp):
        done = cum[start - 1] if start else 0
        end = max(start + 1, int(np.searchsorted(cum, done + target, side="right")))
        yield allp[start:end].astype(np.uint16), int(work[start:end].sum())
        start, target = end, CHUNK_COMBINATIONS


@dataclass
class _Best:
    top: int
    scores: np.ndarray
    combos: np.ndarray

    def threshold(self) -> float:
        return float(self.scores[self.top - 1]) if len(self.scores) >= self.top else np.inf

    def merge(self, scores, combos):
        s = np.concatenate([self.scores, scores])
        c = np.concatenate([self.combos, combos])
        order = np.lexsort(tuple(c[:, i] for i in range(c.shape[1] - 1, -1, -1)) + (s,))
        keep = order[: self.top]
        self.scores, self.combos = s[keep], c[keep]


def read_candidates(rt, count, cand_s, cand_c, cap: int, order: int):
    """The candidates a search launch appended: (scores, SNP indices), at most ``cap``."""
    k = int(min(rt.read(count, np.empty(1, dtype=np.uint32))[0], cap))
    return (rt.read(cand_s, np.empty(k, dtype=np.float64)),
            rt.read(cand_c, np.empty((k, order), dtype=np.uint16)))


def _run_device(rt, bits_host, n_words, n_snps, order, score, lf, nln, chunks, best, lock,
                bar, complete):
    defines = {"ORDER": order, "SCORE": SCORES.index(score)}
    if complete:
        defines["NO_MISSING"] = 1
    kernel = rt.kernel("epistasis.cl", "epi_search", defines)
    bits = rt.to_device(bits_host, writable=False)
    lf_b, nln_b = rt.to_device(lf, writable=False), rt.to_device(nln, writable=False)
    cap = CHUNK_COMBINATIONS + n_snps
    cand_s = rt.empty(cap * 8)
    cand_c = rt.empty(cap * order * 2)
    count = rt.empty(4)
    zero = np.zeros(1, dtype=np.uint32)
    while True:
        with lock:
            item = next(chunks, None)
            thr = best.threshold()
        if item is None:
            return
        prefix, n_comb = item
        pbuf = rt.to_device(np.ascontiguousarray(prefix), writable=False)
        rt.fill(count, zero, 4)
        rt.launch(kernel, len(prefix), bits, np.uint32(n_words), pbuf, np.uint32(len(prefix)),
                  np.uint32(n_snps), lf_b, nln_b, np.float64(thr), count, cand_s, cand_c,
                  np.uint32(cap), local_size=LOCAL_CPU if rt.is_cpu else None)
        scores, combos = read_candidates(rt, count, cand_s, cand_c, cap, order)
        with lock:
            best.merge(scores, combos.astype(np.int64))
            bar.update(n_comb)


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

    def run(self, runtimes, prefixes, work, progress=None) -> _Best:
        """Search the given prefixes on one or several runtimes (threads, dynamic chunks)."""
        lf, nln = _tables(self.n_samples)
        best = _Best(self.top, np.empty(0), np.empty((0, self.order), dtype=np.int64))
        lock = threading.Lock()
        chunks = _chunks(prefixes, work)
        args = (self.bits, self.n_words, self.n_snps, self.order, self.score, lf, nln, chunks,
                best, lock)
        with Progress(total=max(1, int(work.sum())), desc=f"epistasis order {self.order}",
                      enabled=progress) as bar:
            if len(runtimes) == 1:
                _run_device(runtimes[0], *args, bar, self.complete)
                return best
            errors = []

            def one(rt):
                try:
                    _run_device(rt, *args, bar, self.complete)
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

    def frame(self, best: _Best):
        import pandas as pd

        combos = self.index_map[best.combos] if len(best.combos) else best.combos
        frame = pd.DataFrame({f"snp{i + 1}": combos[:, i] for i in range(self.order)})
        for i in range(self.order):
            frame[f"name{i + 1}"] = [self.names[j] for j in best.combos[:, i]]
        frame[self.score] = best.scores if self.score == "k2" else -best.scores
        frame.attrs["combinations"] = math.comb(self.n_snps, self.order)
        return frame


def prepare(genotypes, phenotype=None, *, order=4, score="k2", top=10, snps=None) -> Search:
    """Check the inputs of :func:`epistasis` and encode them (shared with oclstat.distributed)."""
    order = as_int(order, "order", minimum=2, maximum=4)
    top = as_int(top, "top", minimum=1)
    if score not in SCORES:
        raise ValueError(f"score must be one of {SCORES}, got {score!r}")
    g, y, names, index_map = _inputs(genotypes, phenotype, snps)
    n_snps = g.shape[0]
    if order > n_snps:
        raise ValueError(f"order {order} is larger than the number of SNPs ({n_snps})")
    if n_snps > MAX_SNPS:
        raise ValueError(f"at most {MAX_SNPS} SNPs per search, got {n_snps}; use snps=")
    bits, n_words = encode_bits(g, y)
    return Search(bits, n_words, n_snps, g.shape[1], order, score, top, bool((g >= 0).all()),
                  names, index_map)


def _use_cuda(backend: str, search: Search, devices, client) -> bool:
    """Whether this search runs on the CUDA tensor-core path (errors if "cuda" cannot)."""
    if backend == "opencl":
        return False
    from .cuda import available

    ok, why = available()
    reasons = [why] if not ok else []
    if not search.complete:
        reasons.append("the genotypes have missing values (the tensor-core path needs "
                       "complete data)")
    if devices is not None or client is not None:
        reasons.append("devices= and client= apply to the OpenCL path only")
    if backend == "cuda" and reasons:
        raise ValueError(f"backend='cuda' cannot run: {'; '.join(reasons)}")
    return not reasons


def epistasis(genotypes, phenotype=None, *, order: int = 4, score: str = "k2", top: int = 10,
              snps=None, backend: str = "auto", devices=None, client=None, progress=None):
    """Exhaustive search over every combination of ``order`` (2, 3 or 4) SNPs.

    ``genotypes``: SNPs x samples (0/1/2, -1 missing) or a :class:`oclstat.genotypes.Genotypes`
    (from :func:`oclstat.genotypes.read_plink` / ``read_genotype_table``); ``phenotype``: 1 case,
    0 control (-1 missing) per sample. ``snps`` restricts the search to some SNPs (indices or
    names). ``devices``: None (the default device) or a list of devices (indices, names or
    runtimes) that share the work dynamically. ``client``: a ``dask.distributed.Client`` (or
    :class:`oclstat.distributed.LocalDevices`) to cut the search into tasks (same result).
    ``backend``: "opencl" (bit vectors and popcount on ``devices``), "cuda" (the tile
    products on NVIDIA binary tensor cores, :mod:`oclstat.cuda`: needs CuPy, compute capability
    8.0+, complete genotypes, one GPU) or "auto" ("cuda" when it can run, else "opencl"); every
    backend gives the same result. Returns a DataFrame, best first: ``snp1..snpk`` (indices
    into the input), ``name1..namek`` and ``k2`` or ``mi``.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    search = prepare(genotypes, phenotype, order=order, score=score, top=top, snps=snps)
    if _use_cuda(backend, search, devices, client):
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
    runtimes = [get_runtime(d) if not hasattr(d, "queue") else d
                for d in (devices if devices is not None else [None])]
    for rt in runtimes:
        rt.require_fp64("the epistasis scores")
    prefixes, work = all_prefixes(search.n_snps, search.order)
    return search.frame(search.run(runtimes, prefixes, work, progress))
