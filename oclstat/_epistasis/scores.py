"""The epistasis search's tables and exact scores: bit vectors, host contingency tables and
fixed-point K2 / mutual-information sums (the reference every device must equal)."""

from __future__ import annotations

import math

import numpy as np

SCORES = ("k2", "mi")


def encode_bits(g: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, int]:
    """The kernel's bit vectors: (n_snps, 2 classes, 3 genotypes, n_words) uint64, bit i of
    class c's vector v set when sample i of that class has genotype v (a missing genotype and
    the padding are 0 in all three), and n_words."""
    groups = [np.flatnonzero(y == 0), np.flatnonzero(y == 1)]
    n_words = max(-(-len(ix) // 64) for ix in groups)
    out = np.zeros((g.shape[0], 2, 3, n_words), dtype=np.uint64)
    for c, ix in enumerate(groups):
        contiguous = len(ix) and ix[-1] - ix[0] + 1 == len(ix)
        # a view when it can; else np.take, whose result is C-ordered (g[:, ix] is in
        # Fortran order, where packbits along the rows is a hundred times slower)
        sub = g[:, ix[0]:ix[-1] + 1] if contiguous else np.take(g, ix, axis=1)
        for v in range(3):
            packed = np.packbits(sub == v, axis=1, bitorder="little")
            pad = n_words * 8 - packed.shape[1]
            packed = np.ascontiguousarray(np.pad(packed, ((0, 0), (0, pad))))
            out[:, c, v, :] = packed.view("<u8")
    return out, n_words


def genotype_counts(bits: np.ndarray) -> np.ndarray:
    """Per SNP, class and genotype, the number of samples: the popcounts of the bit vectors
    of :func:`encode_bits`, (n_snps, 2, 3) uint32.

    >>> g = np.array([[0, 1, 2, 2]]); y = np.array([1, 0, 1, 1])
    >>> genotype_counts(encode_bits(g, y)[0])[0].tolist()
    [[0, 1, 0], [1, 0, 2]]
    """
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(bits).sum(axis=-1, dtype=np.uint32)
    out = np.empty(bits.shape[:3], dtype=np.uint32)
    for s in range(len(bits)):           # a SNP at a time: unpacked bits stay small
        out[s] = np.unpackbits(bits[s].view(np.uint8), axis=-1).sum(axis=-1)
    return out


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


def score_bits(n_samples: int) -> int:
    """Fixed-point bits B of the device's scores for ``n_samples`` samples: as many as keep
    every partial sum below 2^61 (at most 48). K2 sums are at most ln((n + 81)!) (a product of
    factorials is at most the factorial of the sum), mutual-information sums at most 3 n ln n."""
    from scipy.special import gammaln  # imported when a search needs it (start-up)

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
    from scipy.special import gammaln  # imported when a search needs it (start-up)

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


def _popcount(words: np.ndarray) -> np.ndarray:
    """Set bits of each uint64 (numpy >= 2 has it built in)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    as_bytes = words.view(np.uint8).reshape(*words.shape, 8)
    return np.unpackbits(as_bytes, axis=-1).sum(axis=-1)


def tables_from_bits(bits: np.ndarray, combos: np.ndarray) -> np.ndarray:
    """The (n_combos, 2, 3^k) tables of combinations from the kernel's bit vectors
    (:func:`encode_bits`), as :func:`contingency_tables` counts them from genotypes."""
    combos = np.atleast_2d(np.asarray(combos, dtype=np.int64))
    n, k = combos.shape
    out = np.zeros((n, 2, 3**k), dtype=np.int64)
    if n == 0:
        return out
    cells = np.array(list(np.ndindex(*(3,) * k)), dtype=np.int64)        # 3^k x k, row-major
    for c in (0, 1):
        acc = np.full((n, len(cells), bits.shape[-1]), ~np.uint64(0), dtype=np.uint64)
        for i in range(k):
            acc &= bits[combos[:, i], c][:, cells[:, i], :]
        out[:, c] = _popcount(acc).sum(axis=-1, dtype=np.int64)
    return out


def association(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(G, df, p): the likelihood-ratio statistic G = 2 sum O ln(O / E) of each 3^k x 2 table
    against independence of genotype combination and phenotype, its degrees of freedom
    (genotype combinations seen, minus one) and its chi-square p-value.

    >>> g, df, p = association(np.array([[[10, 20, 5], [5, 20, 10]]]))
    >>> round(float(g[0]), 4), int(df[0]), round(float(p[0]), 4)
    (3.398, 2, 0.1829)
    """
    from scipy.special import chdtrc  # chi2.sf without loading scipy.stats (start-up)

    t = np.asarray(tables, dtype=np.float64)
    n = t.sum(axis=(1, 2))
    cls = t.sum(axis=2)                      # (n, 2)
    geno = t.sum(axis=1)                     # (n, cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = cls[:, :, None] * geno[:, None, :] / n[:, None, None]
        terms = np.where(t > 0, t * np.log(t / expected), 0.0)
    g = np.maximum(2.0 * terms.sum(axis=(1, 2)), 0.0)
    df = ((geno > 0).sum(axis=1) - 1) * ((cls > 0).sum(axis=1) - 1)
    p = np.where(df > 0, chdtrc(np.maximum(df, 1), g), 1.0)
    return g, df.astype(np.int64), p
