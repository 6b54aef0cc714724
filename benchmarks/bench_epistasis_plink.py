"""A genome-wide pair scan with PLINK's test: ``oclstat epistasis --test T`` next to PLINK
1.9 (``--fast-epistasis [variant]`` for fast, joint-effects and boost; ``--epistasis`` for
logistic, and with ``--pheno`` for linear) on the same files, both timed as whole commands,
in one run.

    python benchmarks/bench_epistasis_plink.py [--snps 100000] [--samples 2000]
                                               [--epi1 1e-8] [--test fast] [--device D ...]
                                               [--missing 0.01] [--plink PATH]

Data (numpy seed 1): HWE genotypes with MAF U(0.05, 0.5), a random case/control phenotype
(a standard normal trait for linear), written as PLINK 1 binary files; with ``--missing``,
each genotype missing with that probability (real data's case: then nearly every SNP has a
missing genotype, and every table is counted cell by cell). Both tools write
PREFIX.epi.cc (.epi.qt for linear: the pairs with p < epi1) and its .summary; the benchmark
checks that the two .summary files and the hits' STAT columns are identical (the regressions:
the same pairs and tests per SNP, STAT to 2e-3, and how many SNPs' N_SIG differ, as PLINK
fits the logistic model in single precision), then prints the
times, the rates (pairs per second) and the projections to 500,000 SNPs.

Floor: the shortcut counts four cells per group from AND + popcount of 64-bit genotype words,
so a pair costs 8 W word operations (W the words per group) and its statistic; at one word
operation per cycle of every compute unit (an optimistic CPU rate) that is the floor printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import host_lines, table

import oclstat


def write_plink(prefix: Path, g, y):
    """PLINK 1 binary; genotypes count the .bim A1 (2 -> 00, 1 -> 10, 0 -> 11, missing -1 ->
    01)."""
    m, n = g.shape
    code = np.array([3, 2, 0, 1], dtype=np.uint8)[g]
    pad = (-n) % 4
    code = np.pad(code, ((0, 0), (0, pad)), constant_values=1).reshape(m, -1, 4)
    packed = code[:, :, 0] | (code[:, :, 1] << 2) | (code[:, :, 2] << 4) | (code[:, :, 3] << 6)
    with open(f"{prefix}.bed", "wb") as fh:
        fh.write(bytes([0x6C, 0x1B, 0x01]))
        fh.write(packed.astype(np.uint8).tobytes())
    Path(f"{prefix}.bim").write_text("".join(f"1\trs{i}\t0\t{i + 1}\tA\tC\n" for i in range(m)))
    Path(f"{prefix}.fam").write_text("".join(f"s{i} s{i} 0 0 0 {2 if y[i] else 1}\n"
                                             for i in range(n)))


def timed(cmd) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of one whole command."""
    with tempfile.TemporaryFile("w+") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            log.seek(0)
            raise RuntimeError(f"{cmd[0]} failed: {log.read()[-500:]}")
    return elapsed, usage.ru_maxrss / 1024


def compare(plink: Path, ours: Path, regression: bool, epi1: float) -> str:
    """Whether the two runs' files agree: the .summary and the hits (CHR SNP CHR SNP STAT)
    identical; the regressions (PLINK fits them in single precision): the same pairs and
    summary counts, STAT and the summary's BEST_CHISQ to 2e-3."""
    def hits(path):
        return [ln.split() for ln in path.read_text().splitlines()[1:]]

    def summary(path):
        return [ln.split() for ln in Path(f"{path}.summary").read_text().splitlines()]

    a, b = hits(plink), hits(ours)
    if not regression:
        same = summary(plink) == summary(ours)
        return (f"same .summary as PLINK: {same}; same hits (CHR SNP CHR SNP STAT): "
                f"{[r[:5] for r in a] == [r[:5] for r in b]} ({len(b)} pairs with "
                f"p < {epi1:g})")
    pairs = [r[:4] for r in a] == [r[:4] for r in b]
    stat = np.array([[float(x[5]), float(z[5])] for x, z in zip(a, b, strict=False)])
    worst = float(np.max(np.abs(stat[:, 1] / stat[:, 0] - 1))) if stat.size else 0.0
    sa, sb = summary(plink), summary(ours)
    tested = [r[:2] + r[3:4] for r in sa] == [r[:2] + r[3:4] for r in sb]
    sig = sum(x[2] != z[2] for x, z in zip(sa[1:], sb[1:], strict=False))
    best = np.array([[float(x[5]), float(z[5])] for x, z in zip(sa[1:], sb[1:], strict=False)])
    best_err = float(np.max(np.abs(best[:, 1] / best[:, 0] - 1))) if best.size else 0.0
    return (f"same pairs as PLINK: {pairs} ({len(b)} with p < {epi1:g}), largest STAT "
            f"difference {worst:.1e} relative; .summary: N_TOT identical {tested}, N_SIG "
            f"differs at {sig} of {len(sb) - 1} SNPs, BEST_CHISQ to {best_err:.1e}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snps", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--epi1", type=float, default=1e-8)
    ap.add_argument("--test", default="fast",
                    choices=["fast", "joint-effects", "boost", "logistic", "linear"],
                    help="PLINK's --fast-epistasis variant, or --epistasis (logistic, linear)")
    ap.add_argument("--device", action="append", default=None)
    ap.add_argument("--missing", type=float, default=0.0,
                    help="probability that a genotype is missing (default 0)")
    ap.add_argument("--plink", default=shutil.which("plink1.9") or shutil.which("plink"))
    args = ap.parse_args(argv)
    print("\n".join(host_lines()), flush=True)
    m, n = args.snps, args.samples
    rng = np.random.default_rng(1)
    maf = rng.uniform(0.05, 0.5, size=m)
    g = rng.binomial(2, maf[:, None], size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n).astype(np.int8)
    if args.missing:
        g[np.random.default_rng(2).random(g.shape) < args.missing] = -1
    pairs = m * (m - 1) // 2
    rows = []
    regression = args.test in ("logistic", "linear")
    suffix = ".epi.qt" if args.test == "linear" else ".epi.cc"
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_plink(d / "data", g, y)
        pheno = []
        if args.test == "linear":
            trait = rng.normal(size=n)
            (d / "q.pheno").write_text("".join(f"s{i} s{i} {v:.6f}\n"
                                               for i, v in enumerate(trait)))
            pheno = ["--pheno", str(d / "q.pheno")]
        devices = args.device or ["pocl"]
        for dev in devices:
            cmd = [sys.executable, "-m", "oclstat", "epistasis", "--bfile", str(d / "data"),
                   *pheno, "--test", args.test, "--epi1", str(args.epi1), "--device", dev,
                   "--out", str(d / f"ocl_{dev}")]
            t, rss = timed(cmd)
            impl = oclstat.get_runtime(dev).info.implementation
            rows.append({"tool": f"oclstat --test {args.test} ({dev}: {impl})", "seconds": t,
                         "pairs/s": pairs / t, "peak memory": f"{rss:,.0f} MB"})
        t_plink = None
        if args.plink:
            if regression:
                flags = ["--epistasis", *pheno]
            else:
                flags = ["--fast-epistasis"] + ([] if args.test == "fast" else [args.test])
            t_plink, rss = timed([args.plink, "--bfile", str(d / "data"), *flags,
                                  "--epi1", str(args.epi1), "--allow-no-sex",
                                  "--out", str(d / "plink")])
            rows.append({"tool": f"PLINK 1.9 {' '.join(f for f in flags if '/' not in f)}",
                         "seconds": t_plink,
                         "pairs/s": pairs / t_plink, "peak memory": f"{rss:,.0f} MB"})
            print(compare(d / f"plink{suffix}", d / f"ocl_{devices[0]}{suffix}", regression,
                          args.epi1))
    rt = oclstat.get_runtime(devices[0])
    words = -(-max(int(y.sum()), int((1 - y).sum())) // 64)
    clock = max(int(getattr(rt.device, "max_clock_frequency", 0) or 0), 1000)
    floor = pairs * 8 * words / (rt.info.compute_units * clock * 1e6)
    print(f"{m:,} SNPs x {n:,} samples ({args.missing:.1%} missing), {pairs:,} pairs, --epi1 "
          f"{args.epi1:g}; floor "
          f"{floor:.1f} s ({8 * words} word operations a pair on {rt.info.label})")
    for r in rows:
        r["500,000 SNPs (projected)"] = f"{(500_000 * 499_999 / 2) / r['pairs/s'] / 3600:.1f} h"
        if t_plink:
            r["PLINK / this"] = f"{t_plink / r['seconds']:.2f}x"
        r["seconds"] = f"{r['seconds']:.1f}"
        r["pairs/s"] = f"{r['pairs/s'] / 1e6:.2f} M"
    print(f"decoded genotypes: {m * n / 2**20:,.0f} MB of int8; the .bed: "
          f"{m * -(-n // 4) / 2**20:,.0f} MB")
    print(table(rows, ["tool", "seconds", "pairs/s", "PLINK / this", "peak memory",
                       "500,000 SNPs (projected)"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
