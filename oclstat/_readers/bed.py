"""A PLINK 1 ``.bed`` file read a block of SNPs at a time (bed-reader), never decoded whole.

:class:`BedMatrix` stands where a SNPs x samples int8 matrix stands (``shape``, ``dtype``,
row slices, ``numpy.asarray``): it keeps the file, the SNPs and samples chosen, and which SNPs
are recounted as ``2 - g`` (PLINK's minor-allele orientation); rows are read when asked for.
The pair scans take it block by block, so their memory is the device's bit vectors (3 bits
per genotype) and one block, whatever the file's size.
"""

from __future__ import annotations

import hashlib
import os

import numpy as np

#: SNPs per block read (at 2,000 samples: 8 MB of int8 per block).
BLOCK_SNPS = 4096


class BedMatrix:
    """SNPs x samples genotypes of a SNP-major PLINK 1 ``.bed`` (copies of the .bim A1 allele,
    -1 missing), read on demand.

    Parameters
    ----------
    path : str
        The ``.bed`` file (its header already checked by the caller).
    n_snps, n_samples : int
        The file's SNPs (.bim lines) and samples (.fam lines).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "x.bed")
    >>> np.array([0x6C, 0x1B, 1, 0b1011, 0b0000], dtype=np.uint8).tofile(p)
    >>> m = BedMatrix(p, 2, 2)
    >>> m.shape, m[1:].tolist(), np.asarray(m).tolist()
    ((2, 2), [[2, 2]], [[0, 1], [2, 2]])
    >>> m.take(samples=[1]).flipped(np.array([True, False]))[:].tolist()
    [[1], [2]]
    """

    dtype = np.dtype(np.int8)
    ndim = 2

    def __init__(self, path, n_snps: int, n_samples: int, *, snps=None, samples=None,
                 flip=None):
        self.path = str(path)
        self.file_shape = (int(n_snps), int(n_samples))
        self.snps = np.arange(n_snps) if snps is None else np.asarray(snps, dtype=np.intp)
        self.samples = (np.arange(n_samples) if samples is None
                        else np.asarray(samples, dtype=np.intp))
        self.flip = (np.zeros(len(self.snps), dtype=bool) if flip is None
                     else np.asarray(flip, dtype=bool))

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.snps), len(self.samples))

    @property
    def size(self) -> int:
        return self.shape[0] * self.shape[1]

    def __len__(self) -> int:
        return self.shape[0]

    def __repr__(self) -> str:
        return (f"BedMatrix({os.path.basename(self.path)!r}, {self.shape[0]:,} SNPs x "
                f"{self.shape[1]:,} samples, read on demand)")

    def _open(self):
        try:
            from bed_reader import open_bed
        except ImportError:
            raise ImportError("reading a .bed file in blocks needs bed-reader: pip install "
                              "'oclstat[genomics]' (or read_plink(..., in_memory=True))") \
                from None
        if getattr(self, "_bed", None) is None:
            n_snps, n_samples = self.file_shape
            self._bed = open_bed(self.path, iid_count=n_samples, sid_count=n_snps,
                                 count_A1=True, num_threads=1)
        return self._bed

    def _rows(self, rows: np.ndarray) -> np.ndarray:
        """The int8 genotypes of rows ``rows`` (indices into this matrix's SNPs)."""
        if rows.size == 0:
            return np.empty((0, self.shape[1]), dtype=np.int8)
        snp = self.snps[rows]
        block = self._open().read(index=np.s_[self.samples, snp], dtype="int8", order="C")
        g = np.ascontiguousarray(block.T)
        g[g < 0] = -1                                  # bed-reader's missing value is -127
        return recount(g, self.flip[rows])

    def __getitem__(self, key) -> np.ndarray:
        if isinstance(key, tuple):
            rows, cols = key
            return self[rows][:, cols]
        rows = np.arange(self.shape[0])[key]
        return self._rows(np.atleast_1d(rows))

    def __array__(self, dtype=None, copy=None):
        """The whole matrix, decoded (for the computations that need it all at once)."""
        out = self._rows(np.arange(self.shape[0]))
        return out if dtype is None else out.astype(dtype)

    def blocks(self, size: int | None = None):
        """``(first row, int8 block)`` over the SNPs, ``size`` (default BLOCK_SNPS) at a
        time."""
        size = size or BLOCK_SNPS
        for start in range(0, self.shape[0], size):
            yield start, self._rows(np.arange(start, min(start + size, self.shape[0])))

    def take(self, snps=None, samples=None) -> BedMatrix:
        """The matrix of some of the SNPs and samples (indices or masks into this one's)."""
        def pick(index, n):
            if index is None:
                return np.arange(n)
            index = np.asarray(index)
            return np.flatnonzero(index) if index.dtype == bool else index.astype(np.intp)

        rows = pick(snps, self.shape[0])
        cols = pick(samples, self.shape[1])
        return BedMatrix(self.path, *self.file_shape, snps=self.snps[rows],
                         samples=self.samples[cols], flip=self.flip[rows])

    def flipped(self, swap) -> BedMatrix:
        """The same matrix with the SNPs where ``swap`` is true recounted as 2 - g."""
        return BedMatrix(self.path, *self.file_shape, snps=self.snps, samples=self.samples,
                         flip=self.flip ^ np.asarray(swap, dtype=bool))

    def digest(self) -> str:
        """SHA-256 of the genotypes as read (the data, not the file's name or time)."""
        h = hashlib.sha256()
        for _, block in self.blocks():
            h.update(block.tobytes())
        return h.hexdigest()


def a1_is_major(g: np.ndarray) -> np.ndarray:
    """Per SNP of an int8 matrix (copies of A1, -1 missing): whether A1 is the more frequent
    allele over the samples genotyped (PLINK 1.9 then recounts the SNP as 2 - g).

    >>> a1_is_major(np.array([[2, 2, 1], [0, 1, -1]], np.int8)).tolist()
    [True, False]
    """
    ok = g >= 0
    a1 = np.where(ok, g, 0).sum(axis=1, dtype=np.int64)
    return a1 > 2 * ok.sum(axis=1, dtype=np.int64) - a1


def recount(g: np.ndarray, swap: np.ndarray) -> np.ndarray:
    """``g`` with the SNPs where ``swap`` is true counted as copies of the other allele
    (2 - g, missing stays -1); in place when ``g`` is writable, and returned."""
    if swap.any():
        sub = g[swap]
        g[swap] = np.where(sub >= 0, 2 - sub, -1)
    return g


def per_snp(matrix, function, size: int | None = None) -> np.ndarray:
    """``function(block)`` (one value or row per SNP) over an int8 matrix or a
    :class:`BedMatrix`, a block of SNPs at a time, concatenated."""
    if isinstance(matrix, BedMatrix):
        parts = [function(block) for _, block in matrix.blocks(size)]
        return np.concatenate(parts) if parts else function(np.empty((0, matrix.shape[1]),
                                                                     dtype=np.int8))
    return function(np.asarray(matrix))
