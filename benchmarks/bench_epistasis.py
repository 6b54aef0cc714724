"""oclstat.epistasis next to PLINK 1.9's --fast-epistasis (2nd order), in one run, and the
higher-order throughput.

    python benchmarks/bench_epistasis.py [--device D] [--snps 2000] [--samples 4000]
                                         [--tensor 4:512:131072,4:1024:131072]

Throughput is the published metric: C(M, k) x samples / seconds / 1e12 ("tera combinations
per second scaled to sample size"). Data: GENERATED (numpy seed 1), HWE genotypes with MAF
U(0.05, 0.5) and a random phenotype, written as PLINK 1 binary files for PLINK. PLINK 1.9
``--fast-epistasis`` (the Debian package plink1.9, BOOST-style bit counting, all threads) tests
every pair too, with a different statistic (its joint-effects chi-square), so the figure is the
time for the same exhaustive pair search on the same files. The popcount floor: every
combination needs 3^k AND+POPC per 32 samples in the bit-vector search, 2^k in the tiled one
(genotype-0/1 patterns only; the other cells from lower-order tables), at the device's popcount
rate on a GPU (``gpu_popc_rate``).

With CuPy and an sm_80+ GPU it also runs the CUDA tensor-core path (``backend="cuda"``): it
checks that it returns what the OpenCL path returns, measures the device's peak b1 AND+POPC
mma.sync rate with a register-only kernel, and reports each ``--tensor`` search (order:SNPs:
samples) as throughput and as a fraction of that peak (2^k products per combination and
sample, 2 ops each).
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
from _common import header, table

import oclstat


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


PEAK_SOURCE = r"""
extern "C" __global__ void b1_peak(unsigned *out, const int iters)
{
    unsigned a[4] = {threadIdx.x, ~threadIdx.x, threadIdx.x * 3u, 7u}, b[2] = {blockIdx.x, 5u};
    int d[8][4] = {};
    for (int i = 0; i < iters; i++)
        for (int j = 0; j < 8; j++)
            asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                         : "+r"(d[j][0]), "+r"(d[j][1]), "+r"(d[j][2]), "+r"(d[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    int s = 0;
    for (int j = 0; j < 8; j++) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = (unsigned)s;
}
"""


def b1_peak_ops():
    """Peak b1 AND+POPC mma.sync rate of the current CUDA device (ops/s, 2 per bit product)."""
    import cupy

    kernel = cupy.RawKernel(PEAK_SOURCE, "b1_peak")
    blocks = cupy.cuda.Device().attributes["MultiProcessorCount"] * 8
    out = cupy.empty(blocks * 256, dtype=cupy.uint32)
    iters = 4096
    kernel((blocks,), (256,), (out, np.int32(64)))
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    kernel((blocks,), (256,), (out, np.int32(iters)))
    cupy.cuda.Device().synchronize()
    elapsed = time.perf_counter() - t0
    mma = blocks * 8 * iters * 8                     # 8 warps per block, 8 mma per iteration
    return mma * 2 * 16 * 8 * 256 / elapsed


def tensor_rows(sizes, gpu_rt, builds=("",)):
    """The tensor-core searches, once per build: "" the package's kernel, else its defines
    changed (``TC_MIN_BLOCKS=6 EPI_PS_USHORT=`` style; an empty value drops a define), each
    build checked against the OpenCL search before it is timed, all in one process."""
    from oclstat._epistasis import cuda
    from oclstat._epistasis.cuda import available

    ok, why = available()
    if not ok:
        print(f"# CUDA tensor-core path not measured: {why}")
        return []
    g, y = generate(48, 6000, seed=9)
    want = oclstat.epistasis(g, y, order=4, top=50, backend="opencl", device=[gpu_rt]).table
    peak = b1_peak_ops()
    print(f"# b1 AND+POPC mma.sync peak measured: {peak / 1e12:.0f} TOPS")
    package_options = cuda.compile_options
    rows = []
    try:
        for build in builds:
            change = dict(item.split("=", 1) for item in build.split())

            def options(defines, change=change):
                d = {k: v for k, v in {**defines, **change}.items() if v != ""}
                return package_options(d)
            cuda.compile_options = options
            cuda._modules.clear()
            cuda._checked.clear()
            same = oclstat.epistasis(g, y, order=4, top=50, backend="cuda").table.equals(want)
            print(f"# build {build or '(the package)'}: CUDA == OpenCL (order 4, 48 SNPs x "
                  f"6000, top 50): {same}")
            for k, m, n in sizes:
                gk, yk = generate(m, n, seed=k)
                oclstat.epistasis(gk[:k + 2], yk, order=k, backend="cuda")
                t0 = time.perf_counter()
                oclstat.epistasis(gk, yk, order=k, top=20, backend="cuda")
                t = time.perf_counter() - t0
                ops = math.comb(m, k) * n * 2**k * 2
                rows.append({"search": f"CUDA tensor order {k}, {m} SNPs x {n}"
                             + (f" [{build}]" if build else ""), "oclstat s": f"{t:.2f}",
                             "PLINK 1.9 --fast-epistasis s": "", "PLINK/oclstat": "",
                             "oclstat tera comb*samples/s": f"{throughput(m, k, n, t):.2f}",
                             "of b1 peak": f"{ops / t / peak:.1%}"})
    finally:
        cuda.compile_options = package_options
        cuda._modules.clear()
    return rows


def gpu_popc_rate(rt) -> float:
    """32-bit popcounts per second a GPU can issue: 16 per clock per compute unit (NVIDIA
    sm_80/sm_90's rate) at the device's reported clock."""
    return rt.info.compute_units * 16 * rt.device.max_clock_frequency * 1e6


def throughput(m, k, n, seconds):
    return math.comb(m, k) * n / seconds / 1e12


def _sizes(text: str) -> list[tuple[int, int, int]]:
    """order:SNPs:samples items, comma-separated."""
    return [tuple(int(v) for v in item.split(":")) for item in text.split(",") if item]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--snps", type=int, default=2000)
    ap.add_argument("--samples", type=int, default=4000)
    ap.add_argument("--searches", default=None,
                    help="order:SNPs:samples of the OpenCL searches after order 2, comma-"
                         "separated (default 3:200:4000,4:64:4000 on a CPU, "
                         "3:1024:16384,4:512:65536 on a GPU)")
    ap.add_argument("--tensor", default="4:512:131072,4:1024:131072",
                    help="CUDA tensor-core searches, order:SNPs:samples, comma-separated")
    ap.add_argument("--tensor-builds", default="",
                    help="tensor-core kernel builds to compare in one process, separated by "
                         "';', each a list of DEFINE=VALUE (e.g. 'TC_MIN_BLOCKS=6;"
                         "TC_MIN_BLOCKS=4'); the package's build is always measured first")
    ap.add_argument("--tiles", default="",
                    help="OpenCL tiled searches run directly (oclstat.epistasis takes them on "
                         "GPUs at orders 3 and 4), order:SNPs:samples, comma-separated")
    ap.add_argument("--bit-vectors", default="",
                    help="OpenCL bit-vector searches run directly (the route on CPUs, and on "
                         "GPUs at order 2 or with missing genotypes), order:SNPs:samples")
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
        oclstat.epistasis(data.genotypes[:20], data.phenotype, order=2, device=[rt])
        t0 = time.perf_counter()
        oclstat.epistasis(data, order=2, top=20, device=[rt])
        t_ocl = time.perf_counter() - t0
        t_plink = run_plink(prefix)
    rows.append({"search": f"order 2, {args.snps} SNPs x {args.samples}",
                 "oclstat s": f"{t_ocl:.2f}",
                 "PLINK 1.9 --fast-epistasis s": "n/a" if t_plink is None else f"{t_plink:.2f}",
                 "PLINK/oclstat": "n/a" if t_plink is None else f"{t_plink / t_ocl:.2f}",
                 "oclstat tera comb*samples/s":
                     f"{throughput(args.snps, 2, args.samples, t_ocl):.4f}"})
    searches = args.searches or ("3:200:4000,4:64:4000" if rt.is_cpu
                                 else "3:1024:16384,4:512:65536")
    from oclstat._epistasis import opencl as epi_opencl
    from oclstat._epistasis import plan as epi_plan
    from oclstat._epistasis import tiles

    def timed(label, k, m, n, run):
        """One row: run(genotypes, phenotype, order) timed whole (preparation included),
        after a run on k + 2 SNPs has built the kernels."""
        gk, yk = generate(m, n, seed=k)
        run(gk[:k + 2], yk, k)
        t0 = time.perf_counter()
        run(gk, yk, k)
        t = time.perf_counter() - t0
        row = {"search": f"{label}, order {k}, {m} SNPs x {n}", "oclstat s": f"{t:.2f}",
               "PLINK 1.9 --fast-epistasis s": "", "PLINK/oclstat": "",
               "oclstat tera comb*samples/s": f"{throughput(m, k, n, t):.4f}"}
        if not rt.is_cpu:         # (the CPU schedule reuses suffix cells: no such floor)
            counted = 2**k if "tiles" in label else 3**k              # popcounts per word
            floor = math.comb(m, k) * counted * math.ceil(n / 32) / gpu_popc_rate(rt)
            row.update({"popcount floor s": f"{floor:.2f}", "floor/oclstat": f"{floor / t:.2f}"})
        rows.append(row)

    def public(g, y, k):
        oclstat.epistasis(g, y, order=k, top=20, device=[rt])

    def bit_vectors(g, y, k):
        epi_opencl.run_search(epi_plan.prepare(g, y, order=k, top=20), [rt])

    def tiled(g, y, k):
        tiles.search_tiles(rt, epi_plan.prepare(g, y, order=k, top=20))

    for k, m, n in _sizes(searches):
        probe = epi_plan.prepare(np.zeros((m, 2), dtype=np.int8), [0, 1], order=k)
        route = "tiles" if tiles.tiles_chosen(probe, [rt]) else "bit vectors"
        timed(f"oclstat.epistasis (OpenCL {route})", k, m, n, public)
    for k, m, n in _sizes(args.bit_vectors):
        timed("OpenCL bit vectors", k, m, n, bit_vectors)
    for k, m, n in _sizes(args.tiles):
        if not tiles.tiles_fit(rt, epi_plan.prepare(np.zeros((m, 2), dtype=np.int8), [0, 1],
                                                    order=k)):
            print(f"# OpenCL tiles order {k}, {m} SNPs: the tables do not fit this device")
            continue
        timed("OpenCL tiles", k, m, n, tiled)
    if not rt.is_cpu:
        sizes = _sizes(args.tensor)
        builds = ["", *(b.strip() for b in args.tensor_builds.split(";") if b.strip())]
        rows += tensor_rows(sizes, rt, builds)
    cols = list(dict.fromkeys(c for r in rows for c in r))
    print(table(rows, cols))
    print("# targets: H100 OpenCL order 4, 512 SNPs x 65,536 samples >= 5 (Titan RTX non-tensor "
          "method: 2.25); CUDA tensor path 1024 x 131,072 >= 90.9 (A100 record)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
