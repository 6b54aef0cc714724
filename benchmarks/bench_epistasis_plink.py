"""A genome-wide pair scan with PLINK's test: ``oclstat epistasis --test fast`` next to PLINK
1.9 ``--fast-epistasis`` on the same files, both timed as whole commands, in one run.

    python benchmarks/bench_epistasis_plink.py [--snps 100000] [--samples 2000]
                                               [--epi1 1e-8] [--device D ...] [--plink PATH]

Data (numpy seed 1): HWE genotypes with MAF U(0.05, 0.5), a random case/control phenotype,
written as PLINK 1 binary files. Both tools write PREFIX.epi.cc (the pairs with p < epi1) and
PREFIX.epi.cc.summary; the benchmark checks that the two .summary files and the hits' STAT
columns are identical, then prints the times, the rates (pairs per second) and the
projections to 500,000 SNPs.

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
from _common import table  # noqa: E402

import oclstat  # noqa: E402


def write_plink(prefix: Path, g, y):
    """PLINK 1 binary; genotypes count the .bim A1 (2 -> 00, 1 -> 10, 0 -> 11)."""
    m, n = g.shape
    code = np.array([3, 2, 0], dtype=np.uint8)[g]
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snps", type=int, default=100_000)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--epi1", type=float, default=1e-8)
    ap.add_argument("--test", default="fast", choices=["fast", "joint-effects", "boost"],
                    help="PLINK's --fast-epistasis variant")
    ap.add_argument("--device", action="append", default=None)
    ap.add_argument("--plink", default=shutil.which("plink1.9") or shutil.which("plink"))
    args = ap.parse_args(argv)
    m, n = args.snps, args.samples
    rng = np.random.default_rng(1)
    maf = rng.uniform(0.05, 0.5, size=m)
    g = rng.binomial(2, maf[:, None], size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n).astype(np.int8)
    pairs = m * (m - 1) // 2
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        write_plink(d / "data", g, y)
        devices = args.device or ["pocl"]
        for dev in devices:
            cmd = [sys.executable, "-m", "oclstat", "epistasis", "--bfile", str(d / "data"),
                   "--test", args.test, "--epi1", str(args.epi1), "--device", dev,
                   "--out", str(d / f"ocl_{dev}")]
            t, rss = timed(cmd)
            rows.append({"tool": f"oclstat --test {args.test} ({dev})", "seconds": t,
                         "pairs/s": pairs / t, "peak memory": f"{rss:,.0f} MB"})
        t_plink = None
        if args.plink:
            variant = [] if args.test == "fast" else [args.test]
            t_plink, rss = timed([args.plink, "--bfile", str(d / "data"), "--fast-epistasis",
                                  *variant, "--epi1", str(args.epi1), "--allow-no-sex",
                                  "--out", str(d / "plink")])
            rows.append({"tool": f"PLINK 1.9 --fast-epistasis {' '.join(variant)}".strip(),
                         "seconds": t_plink,
                         "pairs/s": pairs / t_plink, "peak memory": f"{rss:,.0f} MB"})
            same = (d / "plink.epi.cc.summary").read_text() == \
                (d / f"ocl_{devices[0]}.epi.cc.summary").read_text()
            ours = [ln.split()[:5] for ln in (d / f"ocl_{devices[0]}.epi.cc").read_text()
                    .splitlines()[1:]]
            theirs = [ln.split()[:5] for ln in (d / "plink.epi.cc").read_text()
                      .splitlines()[1:]]
            print(f"same .summary as PLINK: {same}; same hits (CHR SNP CHR SNP STAT): "
                  f"{ours == theirs} ({len(ours)} pairs with p < {args.epi1:g})")
    rt = oclstat.get_runtime(devices[0])
    words = -(-max(int(y.sum()), int((1 - y).sum())) // 64)
    clock = max(int(getattr(rt.device, "max_clock_frequency", 0) or 0), 1000)
    floor = pairs * 8 * words / (rt.info.compute_units * clock * 1e6)
    print(f"{m:,} SNPs x {n:,} samples, {pairs:,} pairs, --epi1 {args.epi1:g}; floor "
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
