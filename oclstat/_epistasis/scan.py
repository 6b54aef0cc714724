"""Genome-wide pair scans with PLINK's tests, on the host side: the prepared scan, the split of
the pairs into jobs (PLINK's ``--parallel K N``), the per-SNP summary (PLINK's ``.summary``),
PLINK's output layouts, and the checkpoint a killed run resumes from.

Pairs are visited in row blocks: rows i0 .. i0 + B - 1 against every later SNP. When a row block
is done, its hits are complete; they are sorted (SNP1, then SNP2, PLINK's order) and appended
to the output, and a checkpoint records how far the scan got, the summary so far and the
output's length. A run started again with the same inputs and options truncates the output to
that length and goes on from the next row block, so the finished file is byte for byte the one
an uninterrupted run writes.

>>> job_rows(10, 1, 2), job_rows(10, 2, 2)
((0, 3), (3, 10))
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field

import numpy as np

from .._readers.bed import BedMatrix, a1_is_major, recount
from .pairtests import chi2_p

__all__ = ["PairScan", "Summary", "job_rows", "orient_minor", "chi2_threshold", "epi_header",
           "epi_lines", "Checkpoint"]

#: PLINK's default --epi1 (report) and --epi2 (summary count) p-value thresholds.
EPI1_DEFAULT = 1e-4
EPI2_DEFAULT = 0.01


#: Acklam's rational approximation of the normal quantile (relative error below 1.15e-9, no
#: refinement step), the one PLINK 1.9 turns --epi1 / --epi2 into chi-square thresholds with.
_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00)
_ACKLAM_LOW = 0.02425


def acklam_quantile(p: float) -> float:
    """The standard normal quantile at ``p`` (0 < p < 1) by Acklam's approximation, evaluated
    as PLINK 1.9 evaluates it (Horner's rule in double, left to right).

    >>> round(acklam_quantile(0.025), 6), acklam_quantile(0.5)
    (-1.959964, 0.0)
    """
    a, b, c, d = _ACKLAM_A, _ACKLAM_B, _ACKLAM_C, _ACKLAM_D
    if p < _ACKLAM_LOW or p > 1 - _ACKLAM_LOW:
        q = math.sqrt(-2 * math.log(p if p < _ACKLAM_LOW else 1 - p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        return x if p < _ACKLAM_LOW else -x
    q = p - 0.5
    r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)


def chi2_threshold(p: float) -> float:
    """The chi-square (1 df) value a pair's statistic must reach for p-value threshold ``p``,
    as PLINK 1.9 forms it (the square of Acklam's normal quantile at p / 2, within about 2e-9
    of the exact value: PLINK's counts and hits are those of this value); 0 for p >= 1
    (every pair), infinity for p = 0.

    >>> abs(chi2_threshold(0.01) - 6.634896601021214) < 1e-7
    True
    """
    if p >= 1:
        return 0.0
    if p <= 0:
        return float("inf")
    q = acklam_quantile(p / 2)
    return q * q


def orient_minor(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PLINK 1.9's default allele order: A1 becomes the minor allele. ``g`` counts the file's
    A1 (-1 missing); SNPs whose A1 is the more frequent one (over the samples genotyped) are
    recounted as 2 - g. Returns ``(genotypes, swapped)``.

    >>> orient_minor(np.array([[2, 2, 1], [0, 1, -1]], np.int8))[0].tolist()
    [[0, 0, 1], [0, 1, -1]]
    """
    g = np.asarray(g, dtype=np.int8)
    swapped = a1_is_major(g)
    return recount(g.copy(), swapped), swapped


def job_rows(n_snps: int, job: int, n_jobs: int) -> tuple[int, int]:
    """Rows (first SNPs of the pairs) of job ``job`` (1-based) of ``n_jobs``: contiguous, with
    as equal numbers of pairs as row boundaries allow (row i pairs with the n - 1 - i SNPs
    after it), PLINK's ``--parallel`` split."""
    m = int(n_snps)
    rows = np.arange(m, dtype=np.int64)
    before = rows * (2 * m - rows - 1) // 2          # pairs in rows 0 .. i - 1
    total = m * (m - 1) // 2

    def edge(k):
        return int(np.searchsorted(before, k * total / n_jobs, side="left")) if k < n_jobs \
            else m

    return edge(job - 1), edge(job)


@dataclass
class PairScan:
    """A prepared scan: genotypes oriented as PLINK orients them (A1 minor), the phenotype
    (1 case / 0 control for the case/control tests, a number for ``linear``; NaN or -1
    missing, those samples removed), covariates, names and loci, and what to compute."""

    #: int8 SNPs x samples, or a BedMatrix read a block at a time
    genotypes: np.ndarray | BedMatrix
    phenotype: np.ndarray
    names: list
    chromosomes: list
    test: str
    epi1: float
    epi2: float
    cellmin: int = 5
    covariates: np.ndarray | None = None
    covariate_names: list = field(default_factory=list)
    #: SNPs left out before the scan (monomorphic, haploid, joint-effects' cell minimum).
    skipped: int = 0
    #: The width of the SNP columns (PLINK's, from the names before its site filters).
    name_width: int = 0

    @property
    def width(self) -> int:
        return self.name_width or plink_name_width(self.names)

    @property
    def n_snps(self) -> int:
        return int(self.genotypes.shape[0])

    @property
    def n_pairs(self) -> int:
        return self.n_snps * (self.n_snps - 1) // 2

    def signature(self) -> str:
        """A digest of the data and options (a checkpoint only resumes the same scan)."""
        h = hashlib.sha256()
        if isinstance(self.genotypes, BedMatrix):     # the same bytes, a block at a time
            for _, block in self.genotypes.blocks():
                h.update(block.tobytes())
        else:
            h.update(np.ascontiguousarray(self.genotypes).tobytes())
        h.update(np.ascontiguousarray(self.phenotype, dtype=np.float64).tobytes())
        if self.covariates is not None:
            h.update(np.ascontiguousarray(self.covariates, dtype=np.float64).tobytes())
        h.update(repr((self.names, self.chromosomes, self.test, self.epi1, self.epi2,
                       self.cellmin)).encode())
        return h.hexdigest()


class Summary:
    """Per SNP over its pairs (PLINK's ``.summary``): tests done, tests with p below epi2,
    the largest statistic and its partner (the smaller index on a tie)."""

    def __init__(self, n_snps: int):
        self.n_tot = np.zeros(n_snps, np.int64)
        self.n_sig = np.zeros(n_snps, np.int64)
        self.best = np.full(n_snps, -1.0)
        self.best_at = np.full(n_snps, -1, np.int64)

    def add(self, snps, tested, sig, best, partners) -> None:
        """Add a block's row or column summaries of ``snps``."""
        snps = np.asarray(snps, dtype=np.int64)
        self.n_tot[snps] += tested
        self.n_sig[snps] += sig
        best = np.asarray(best, dtype=np.float64)
        partners = np.asarray(partners, dtype=np.int64)
        cur, at = self.best[snps], self.best_at[snps]
        better = (tested > 0) & ((best > cur) | ((best == cur) & (partners < at) & (at >= 0)))
        self.best[snps[better]] = best[better]
        self.best_at[snps[better]] = partners[better]

    def merge(self, other: Summary) -> None:
        """Another job's summary of the same SNPs added in."""
        self.add(np.arange(self.n_tot.size), other.n_tot, other.n_sig, other.best,
                 other.best_at)

    def arrays(self) -> dict:
        return {"n_tot": self.n_tot, "n_sig": self.n_sig, "best": self.best,
                "best_at": self.best_at}

    @classmethod
    def of(cls, arrays) -> Summary:
        s = cls(len(arrays["n_tot"]))
        s.n_tot, s.n_sig = np.array(arrays["n_tot"]), np.array(arrays["n_sig"])
        s.best, s.best_at = np.array(arrays["best"]), np.array(arrays["best_at"])
        return s

    def lines(self, names, chromosomes, exact: bool = False, width: int = 0) -> list[str]:
        """PLINK's ``.summary`` rows (header first, a row per SNP scanned); ``exact``: every
        number in full (the partial summaries of ``--parallel`` jobs, merged exactly)."""
        width = width or plink_name_width(names)
        out = [f" CHR {'SNP':>{width}}        N_SIG        N_TOT         PROP   BEST_CHISQ "
               f"BEST_CHR {'BEST_SNP':>{width}} "]
        for k in range(self.n_tot.size):
            tot, sig = int(self.n_tot[k]), int(self.n_sig[k])
            prop = sig / tot if tot else float("nan")
            if self.best_at[k] >= 0:
                p = int(self.best_at[k])
                best = repr(float(self.best[k])) if exact else _g(self.best[k], 4)
                partner = f"{chromosomes[p]:>4} {names[p]:>{width}}"
            else:
                best, partner = "NA", f"{'NA':>4} {'NA':>{width}}"
            out.append(f"{chromosomes[k]:>4} {names[k]:>{width}} {sig:>12} {tot:>12} "
                       f"{_g(prop, 4):>12} {best:>12} {partner} ")
        return out


def plink_name_width(names) -> int:
    """The width PLINK 1.9 gives its SNP columns: 4, widened to a name's length + 2 at the
    first name longer than the width so far, in file order, until it reaches the longest.

    >>> plink_name_width(["rs1", "rs29"]), plink_name_width([f"rs{i}" for i in range(8000)])
    (4, 7)
    """
    longest = max((len(n) for n in names), default=0)
    width = 4
    for name in names:
        if len(name) > width:
            width = len(name) + 2
            if width >= longest:
                return width
    return width


def _g(x, digits: int) -> str:
    """A number as PLINK prints it (%g with ``digits`` significant digits; nan, inf)."""
    x = float(x)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.{digits}g}"


#: The extra column of each test's output (PLINK's .epi.cc / .epi.qt) and the file suffix.
EXTRA = {"logistic": "OR_INT", "linear": "BETA_INT"}


def suffix(test: str) -> str:
    """PLINK's output suffix of a test: ``.epi.qt`` for a quantitative trait, else
    ``.epi.cc``."""
    return ".epi.qt" if test == "linear" else ".epi.cc"


def epi_header(scan: PairScan) -> str:
    """The header line of the hits file, PLINK's layout (names padded to the longest)."""
    width = scan.width
    extra = f"{EXTRA[scan.test]:>12} " if scan.test in EXTRA else ""
    df = f"{'DF':>4} " if scan.test == "boost" else ""
    return (f"CHR1 {'SNP1':>{width}} CHR2 {'SNP2':>{width}} {extra}{'STAT':>12} "
            f"{df}{'P':>12} \n")


def epi_lines(scan: PairScan, rows, cols, stat, extra=None) -> str:
    """Hit lines (rows, cols: SNP indices, sorted) in PLINK's layout: CHR1 SNP1 CHR2 SNP2
    [OR_INT | BETA_INT] STAT [DF] P (6 significant digits, P 4); for "boost" ``extra`` is
    the df of each pair (4, 2 or 1)."""
    width = scan.width
    names, chrs = scan.names, scan.chromosomes
    boost = scan.test == "boost"
    p = chi2_p(stat, extra if boost else 1)
    out = []
    for k in range(len(rows)):
        i, j = int(rows[k]), int(cols[k])
        head = f"{chrs[i]:>4} {names[i]:>{width}} {chrs[j]:>4} {names[j]:>{width}} "
        mid = f"{_g(extra[k], 6):>12} " if extra is not None and not boost else ""
        df = f"{int(extra[k]):>4} " if boost else ""
        out.append(f"{head}{mid}{_g(stat[k], 6):>12} {df}{_g(p[k], 4):>12} \n")
    return "".join(out)


class Checkpoint:
    """Where a scan got to, saved after every row block (``<out>.ckpt.npz``, written to a
    temporary file and renamed over the old one)."""

    def __init__(self, path: str, signature: str):
        self.path = str(path)
        self.signature = signature

    def load(self):
        """``(next_row, output_bytes, summary, counts)`` of a checkpoint of this scan, or None
        (none, or one of another scan: refused)."""
        if not os.path.exists(self.path):
            return None
        with np.load(self.path, allow_pickle=False) as z:
            if str(z["signature"]) != self.signature:
                raise ValueError(f"{self.path} is the checkpoint of another scan (other data "
                                 "or options); remove it to start over")
            summary = Summary.of({k: z[k] for k in ("n_tot", "n_sig", "best", "best_at")})
            return (int(z["next_row"]), int(z["output_bytes"]), summary,
                    {"failed": int(z["failed"]), "hits": int(z["hits"])})

    def save(self, next_row: int, output_bytes: int, summary: Summary, counts: dict) -> None:
        tmp = self.path + ".tmp.npz"
        np.savez(tmp, signature=np.array(self.signature), next_row=next_row,
                 output_bytes=output_bytes, failed=counts["failed"], hits=counts["hits"],
                 **summary.arrays())
        os.replace(tmp, self.path)

    def remove(self) -> None:
        if os.path.exists(self.path):
            os.remove(self.path)

