"""The blocks of a pair scan: the statistic of every pair of a block of rows x columns, its
row and column summaries and its hits, on the device (every PLINK test, the regressions with
up to EPI_MAX_COVARIATES covariates; cl_kernels/epistasis_pairs.cl) or on the host (the
regression tests: the device's reference from the pairs' cell statistics as matrix products,
and the fits per pair with more covariates).

A block's answer: ``hits`` (rows, cols, stat, extra: the pairs at or above the report
threshold, block-relative), ``rows`` and ``cols`` (tested, significant, best, best partner:
block-relative) and ``failed`` (pairs with no statistic). Pairs with j <= i are not tested.

>>> import numpy as np, oclstat
>>> from oclstat._epistasis.scan import PairScan
>>> rng = np.random.default_rng(1)
>>> g = rng.integers(0, 3, size=(6, 200)).astype(np.int8); y = rng.integers(0, 2, 200)
>>> scan = PairScan(g, y, [f"s{i}" for i in range(6)], ["1"] * 6, "fast", 1.0, 0.01)
>>> block = DevicePairs(oclstat.get_runtime(), scan).block(0, 6, 0, 6, 0.0, 6.6)
>>> int(block.rows[0].sum())                   # the 15 pairs, each counted once by row
15
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._constants import EPI_MAX_COVARIATES
from .._readers import bed
from .._readers.bed import BedMatrix
from .pairtests import boost_thresholds, interaction_fit, linear_cells, logistic_cells
from .scores import encode_bits, genotype_counts

_U32 = np.uint32

#: Hits one device block can hold before it is run again with room for all of them.
HIT_CAPACITY = 1 << 16


@dataclass
class Block:
    hits: tuple          # (rows, cols, stat, extra or None), block-relative, unsorted
    rows: tuple          # (tested, sig, best, best_at) per row
    cols: tuple          # the same per column
    failed: int


def _reduce(stat: np.ndarray, sig1: float, sig2: float, extra=None) -> Block:
    """A block's summaries and hits from its statistics (rows x cols: -1 untested, NaN
    failed), as the device kernels reduce them."""
    tested = stat >= 0
    sig = tested & (stat >= sig2)
    masked = np.where(tested, stat, -1.0)

    def side(axis):
        best = masked.max(axis=axis) if masked.size else np.zeros(0)
        at = masked.argmax(axis=axis) if masked.size else np.zeros(0, np.int64)
        return tested.sum(axis=axis), sig.sum(axis=axis), best, at

    r, c = np.nonzero(tested & (stat >= sig1))
    hits = (r, c, stat[r, c], None if extra is None else extra[r, c])
    return Block(hits, side(1), side(0), int(np.isnan(stat).sum()))


def _blocks(g):
    """``(first row, int8 block)`` of an int8 matrix or a BedMatrix, BLOCK_SNPS rows at a
    time."""
    if isinstance(g, BedMatrix):
        yield from g.blocks()
        return
    g = np.asarray(g, dtype=np.int8)
    size = bed.BLOCK_SNPS
    for a in range(0, g.shape[0], size):
        yield a, g[a:a + size]


class DevicePairs:
    """PLINK's pair tests on an OpenCL device: ``fast``, ``joint-effects``, ``boost``, and
    ``logistic`` and ``linear`` (from the pairs' cells; with up to EPI_MAX_COVARIATES
    covariates, fitted on each pair's samples)."""

    TESTS = {"fast": 0, "joint-effects": 1, "boost": 2, "logistic": 3, "linear": 4}

    @staticmethod
    def takes(scan) -> bool:
        """Whether the device computes ``scan`` (else :class:`HostPairs` does)."""
        cov = getattr(scan, "covariates", None)
        return scan.test in DevicePairs.TESTS and (cov is None
                                                   or cov.shape[1] <= EPI_MAX_COVARIATES)

    def __init__(self, rt, scan, dtype=None):
        self.rt = rt
        self.real = np.dtype(rt.default_real() if dtype is None else dtype)
        if not self.takes(scan):
            raise ValueError(f"test {scan.test!r} with more than {EPI_MAX_COVARIATES} "
                             "covariates is fitted on the host (HostPairs)")
        cov = getattr(scan, "covariates", None)
        n_cov = 0 if cov is None else cov.shape[1]
        g = scan.genotypes
        y = np.asarray(scan.phenotype)
        self.n_snps = g.shape[0]
        self.test = self.TESTS[scan.test]
        linear = scan.test == "linear"
        keep = np.isfinite(y) if linear else (y == 0) | (y == 1)
        if cov is not None:
            keep &= np.isfinite(cov).all(axis=1)
        if linear:      # one group: every sample with a trait value
            classes = np.zeros(int(keep.sum()), np.int64)
            groups = (np.ones(int(keep.sum()), bool),)
        else:           # groups 0 cases, 1 controls (encode_bits orders its classes 0, 1)
            classes = 1 - y[keep].astype(np.int64)
            groups = (y[keep] == 1, y[keep] == 0)
        n_groups = len(groups)
        self.n_words = encode_bits(np.zeros((0, int(keep.sum())), np.int8), classes)[1]
        bits = np.empty((self.n_snps, n_groups, 3, self.n_words), dtype=np.uint64)
        counts = np.zeros((self.n_snps, n_groups, 4), dtype=_U32)
        # "linear": the trait centred (the intercept absorbs it; less cancellation in the
        # residual sum of squares), its sum of squares, and its sums per SNP and genotype
        trait = y[keep].astype(np.float64) - (y[keep].mean() if linear else 0.0)
        snp_sums = np.zeros((self.n_snps if linear else 1, 3))
        # a block of SNPs at a time: on disk (BedMatrix) or in memory, only the bits stay
        every = bool(keep.all())
        for a, block in _blocks(g):
            block = block if every else block[:, keep]
            b = a + block.shape[0]
            bits[a:b] = encode_bits(block, classes)[0][:, :n_groups]
            counts[a:b, :, :3] = genotype_counts(bits[a:b])
            for k, grp in enumerate(groups):
                counts[a:b, k, 3] = (block[:, grp] < 0).any(axis=1)
            if linear:
                for v in range(3):
                    snp_sums[a:b, v] = np.where(block == v, trait, 0.0).sum(axis=1)
        self.bits = rt.to_device(bits, writable=False)
        self.counts = rt.to_device(counts, writable=False)
        padded = np.zeros(64 * self.n_words + 1 if linear else 1)
        if linear:
            padded[:trait.size] = trait
            padded[-1] = np.square(trait).sum()
        self.trait = rt.to_device(padded.astype(self.real), writable=False)
        # covariates in the bits' order: covar[(g 64 W + k) K + c] (padding 0)
        covar = np.zeros((n_groups, 64 * self.n_words, max(n_cov, 1)))
        for k, grp in enumerate(groups):
            if n_cov:
                covar[k, :int(grp.sum())] = cov[keep][grp]
        self.covar = rt.to_device(covar.ravel().astype(self.real), writable=False)
        self.snp_sums = rt.to_device(snp_sums.ravel().astype(self.real), writable=False)
        self.defines = {**rt.real_defines(self.real), "TEST": self.test,
                        "CELLMIN": int(scan.cellmin), "W": int(self.n_words),
                        "COVARIATES": n_cov}
        if linear:
            self.defines["TAIL"] = int(trait.size - 64 * (self.n_words - 1))
        # BOOST's thresholds by df adjustment, epi1 (the screen) and epi2 (the summary), then
        # x log x for every cell count x (no division or second log per cell on the device);
        # the other tests read none of it
        table = np.zeros(1)
        if scan.test == "boost":
            cells = np.arange(int(keep.sum()) + 1, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                xlogx = np.where(cells > 0, cells * np.log(cells), 0.0)
            table = np.concatenate([*boost_thresholds(scan.epi1, scan.epi2), xlogx])
        self.boost_table = rt.to_device(table.astype(self.real), writable=False)
        if not rt.gpu_schedule:
            self.defines["EPI_ONE_ITEM_PER_LANE"] = 1
        #: columns per work-item: Ueki-Cordell's statistic in a CPU's vector registers
        self.lanes = rt.lanes(self.real, register=True) if self.test == 0 else 1
        self.defines["LANES"] = self.lanes
        self.defines.update(rt.popcount_defines)
        self._bufs: dict = {}

    def kernel(self, name):
        return self.rt.kernel("epistasis_pairs.cl", name, self.defines)

    def _buf(self, key, nbytes):
        if key not in self._bufs or self._bufs[key][1] < nbytes:
            self._bufs[key] = (self.rt.empty(nbytes), nbytes)
        return self._bufs[key][0]

    def block(self, i0, n_rows, j0, n_cols, sig1, sig2) -> Block:
        if i0 < 0 or j0 < 0 or i0 + n_rows > self.n_snps or j0 + n_cols > self.n_snps:
            raise IndexError(f"block rows {i0}..{i0 + n_rows}, columns {j0}..{j0 + n_cols} "
                             f"outside the {self.n_snps} SNPs")
        rt, r = self.rt, self.real
        boost, regression = self.test == 2, self.test >= 3
        pairs = n_rows * n_cols if self.test >= 2 else 1   # BOOST's exact value, coefficients
        stat = self._buf("stat", n_rows * n_cols * r.itemsize)
        exact, code = self._buf("exact", pairs * r.itemsize), self._buf("code", pairs * 4)
        local = (8, 8) if rt.gpu_schedule else (1, 64)
        rt.launch_nd(self.kernel("stat"), (n_rows, -(-n_cols // self.lanes)), local,
                     self.bits, self.counts,
                     _U32(i0), _U32(n_rows), _U32(j0), _U32(n_cols), stat, self.boost_table,
                     exact, code, self.trait, self.snp_sums, self.covar)
        sides = []
        for name, n in (("rows", n_rows), ("cols", n_cols)):
            out = [np.empty(n, _U32), np.empty(n, _U32), np.empty(n, r), np.empty(n, _U32)]
            bufs = [self._buf(f"{name}{k}", a.nbytes) for k, a in enumerate(out)]
            rt.launch(self.kernel(name), n, stat, _U32(n_rows), _U32(n_cols), r.type(sig2),
                      code, *bufs)
            for b, a in zip(bufs, out, strict=True):
                rt.read(b, a)
            sides.append((out[0].astype(np.int64), out[1].astype(np.int64),
                          out[2].astype(np.float64), out[3].astype(np.int64)))
        capacity = HIT_CAPACITY
        while True:
            count = rt.to_device(np.zeros(1, _U32))
            hr, hc = self._buf("hr", capacity * 4), self._buf("hc", capacity * 4)
            hs = self._buf("hs", capacity * r.itemsize)
            hk = self._buf("hk", capacity * 4 if boost else 4)
            hx = self._buf("hx", capacity * r.itemsize if regression else r.itemsize)
            failed = self._buf("failed", n_rows * 4)
            rt.launch(self.kernel("hits"), n_rows, stat, _U32(n_rows), _U32(n_cols),
                      r.type(sig1), _U32(capacity), count, hr, hc, hs, failed, exact, code, hk,
                      hx)
            n_hits = np.empty(1, _U32)
            rt.read(count, n_hits)
            if int(n_hits[0]) <= capacity:
                break
            capacity = int(n_hits[0])
        k = int(n_hits[0])
        rows, cols, vals = np.empty(k, _U32), np.empty(k, _U32), np.empty(k, r)
        codes = np.empty(k if boost else 0, _U32)
        coefs = np.empty(k if regression else 0, r)
        fails = np.empty(n_rows, _U32)
        for b, a in ((hr, rows), (hc, cols), (hs, vals), (failed, fails), (hk, codes),
                     (hx, coefs)):
            if a.size:
                rt.read(b, a)
        # the extra column: BOOST's df (4, 2 or 1), the regressions' odds ratio or coefficient
        extra = (4 >> codes.astype(np.int64)) if boost else \
            coefs.astype(np.float64) if regression else None
        return Block((rows.astype(np.int64), cols.astype(np.int64), vals.astype(np.float64),
                      extra), sides[0], sides[1], int(fails.sum()))


class HostPairs:
    """The regression tests (``logistic``, ``linear``) on the host: the reference the device
    follows (from the pairs' cell statistics: counts per group, or counts and trait sums, as
    products of genotype-indicator matrices), and the engine with covariates (fitted per
    pair). A ``.bed`` on disk is read a block of rows and a block of columns at a time."""

    def __init__(self, scan):
        self.scan = scan
        y = np.asarray(scan.phenotype, dtype=np.float64)
        keep = np.isfinite(y) & (y >= 0 if scan.test == "logistic" else True)
        if scan.covariates is not None:
            keep &= np.isfinite(scan.covariates).all(axis=1)
        g = scan.genotypes
        self.g = g.take(samples=keep) if isinstance(g, BedMatrix) else \
            np.asarray(g, dtype=np.int8)[:, keep]
        self.y = y[keep]
        self.cov = None if scan.covariates is None else scan.covariates[keep]

    def _rows(self, start, n):
        return np.asarray(self.g[start:start + n], dtype=np.int8)

    @staticmethod
    def _cells(left, right, weight):
        """(rows, cols, 9) sums of ``weight`` over the samples of each cell (3 a + b) of the
        pairs of genotype rows ``left`` x ``right``."""
        out = np.empty((left.shape[0], right.shape[0], 9))
        for v1 in range(3):
            a = (left == v1) * weight
            for v2 in range(3):
                out[:, :, (2 - v1) * 3 + (2 - v2)] = a @ (right == v2).T.astype(np.float64)
        return out

    def block(self, i0, n_rows, j0, n_cols, sig1, sig2) -> Block:
        ii, jj = np.meshgrid(np.arange(i0, i0 + n_rows), np.arange(j0, j0 + n_cols),
                             indexing="ij")
        upper = jj > ii
        stat = np.full((n_rows, n_cols), -1.0)
        extra = np.full((n_rows, n_cols), np.nan)
        r, c = np.nonzero(upper)
        if r.size:
            left, right = self._rows(i0, n_rows), self._rows(j0, n_cols)
            if self.cov is not None:
                x1 = np.where(left[r] >= 0, left[r], np.nan)
                x2 = np.where(right[c] >= 0, right[c], np.nan)
                family = "binomial" if self.scan.test == "logistic" else "gaussian"
                s, e = interaction_fit(x1, x2, self.y, self.cov, family=family)
            elif self.scan.test == "logistic":
                cases = self._cells(left, right, self.y)[r, c]
                all_ = self._cells(left, right, 1.0)[r, c]
                tables = np.stack([cases, all_ - cases], axis=1)
                s, e = logistic_cells(np.rint(tables).astype(np.int64))
            else:
                counts = self._cells(left, right, 1.0)[r, c]
                sums = self._cells(left, right, self.y)[r, c]
                # the trait's sum of squares over the samples genotyped at both SNPs
                sq = ((left >= 0) * self.y ** 2) @ (right >= 0).T.astype(np.float64)
                s, e = linear_cells(counts, sums, sq[r, c])
            stat[r, c] = np.where(np.isfinite(s), s, np.nan)
            extra[r, c] = e
        return _reduce(stat, sig1, sig2, extra)
