"""oclstat.epistasis next to PLINK 1.9's --fast-epistasis (2nd order), in one run, and the
higher-order throughput.

    python benchmarks/bench_epistasis.py [--device D] [--snps 2000] [--samples 4000]

Throughput is the published metric: C(M, k) x samples / seconds / 1e12 ("tera combinations
per second scaled to sample size"). Data: GENERATED (numpy seed 1), HWE genotypes with MAF
U(0.05, 0.5) and a random phenotype, written as PLINK 1 binary files for PLINK. PLINK 1.9
``--fast-epistasis`` (the Debian package plink1.9, BOOST-style bit counting, all threads) tests
every pair too, with a different statistic (its joint-effects chi-square), so the figure is the
time for the same exhaustive pair search on the same files. The popcount floor: every
combination needs (3^k x 2 classes) AND+POPC per 32 samples.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import header, table  # noqa: E402

import oclstat  # noqa: E402


def generate(m, n, seed=1):
    rng = np.random.default_rng(seed)
    maf = rng.uniform(0.05, 0.5, size=m)
    g = rng.binomial(2, maf[:, None], size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n).astype(np.int8)
    return g, y


def write_plink(prefix: Path, g, y):
    """PLINK 1 binary, SNP-major; genotype = count of A1 (2 -> 00, 1 -> 10, 0 -> 11)."""
    m, n = g.shape
    code = np.array([3, 2, 0], dtype=np.uint8)[g]          # 0 -> 11, 1 -> 10, 2 -> 00
    pad = (-n) % 4
    code = np.pad(code, ((0, 0), (0, pad)), constant_values=1).reshape(m, -1, 4)
    packed = (code[:, :, 0] | (code[:, :, 1] << 2) | (code[:, :, 2] << 4) | (code[:, :, 3] << 6))
    with open(f"{prefix}.bed", "wb") as fh:
        fh.write(bytes([0x6C, 0x1B, 0x01]))
        fh.write(packed.astype(np.uint8).tobytes())
    Path(f"{prefix}.bim").write_text("".join(f"1\trs{i}\t0\t{i + 1}\tA\tC\n" for i in range(m)))
    Path(f"{prefix}.fam").write_text("".join(f"s{i} s{i} 0 0 0 {2 if y[i] else 1}\n"
                                             for i in range(n)))


def run_plink(prefix: Path):
    exe = shutil.which("plink1.9") or shutil.which("plink")
    if exe is None:
        return None
    t0 = time.perf_counter()
    out = subprocess.run([exe, "--bfile", str(prefix), "--fast-epistasis", "--allow-no-sex",
                          "--epi1", "1", "--out", str(prefix) + "_plink"],
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if out.returncode != 0:
        print(f"# plink failed: {out.stdout[-300:]}")
        return None
    return elapsed


def throughput(m, k, n, seconds):
    return math.comb(m, k) * n / seconds / 1e12


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--snps", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=4000)
    args = ap.parse_args(argv)
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "Exhaustive epistasis search: oclstat.epistasis vs PLINK 1.9"))
    g, y = generate(args.snps, args.samples)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / "data"
        write_plink(prefix, g, y)
        data = oclstat.genotypes.read_plink(prefix)
        assert np.array_equal(data.genotypes, g)
        oclstat.epistasis(data.genotypes[:20], data.phenotype, order=2, devices=[rt])
        t0 = time.perf_counter()
        oclstat.epistasis(data, order=2, top=20, devices=[rt])
        t_ocl = time.perf_counter() - t0
        t_plink = run_plink(prefix)
    rows.append({"search": f"order 2, {args.snps} SNPs x {args.samples}",
                 "oclstat s": f"{t_ocl:.2f}",
                 "PLINK 1.9 --fast-epistasis s": "n/a" if t_plink is None else f"{t_plink:.2f}",
                 "PLINK/oclstat": "n/a" if t_plink is None else f"{t_plink / t_ocl:.2f}",
                 "oclstat tera comb*samples/s":
                     f"{throughput(args.snps, 2, args.samples, t_ocl):.4f}"})
    for k, m, n in [(3, 200, 4000), (4, 64, 4000)] if rt.is_cpu else \
            [(3, 1024, 16384), (4, 512, 65536)]:
        g3, y3 = generate(m, n, seed=k)
        oclstat.epistasis(g3[:k + 2], y3, order=k, devices=[rt])
        t0 = time.perf_counter()
        oclstat.epistasis(g3, y3, order=k, top=20, devices=[rt])
        t = time.perf_counter() - t0
        rows.append({"search": f"order {k}, {m} SNPs x {n}", "oclstat s": f"{t:.2f}",
                     "PLINK 1.9 --fast-epistasis s": "(pairs only)", "PLINK/oclstat": "",
                     "oclstat tera comb*samples/s": f"{throughput(m, k, n, t):.4f}"})
    print(table(rows, list(rows[0])))
    print("# targets: H100 OpenCL order 4, 512 SNPs x 65,536 samples >= 5 (Titan RTX non-tensor "
          "method: 2.25); CUDA tensor path 1024 x 131,072 >= 90.9 (not built)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
