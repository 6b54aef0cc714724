"""clRNG's float uniforms bit for bit: clRNG writes its float scale 4.6566126e-10 without an f
suffix, so RandomU01 in float is the double product z * 4.6566126e-10 rounded to float (the
float product differed in 26% of draws, by 1 ulp). Devices without double precision form the
same float in integers (cl_kernels/include/oclstat/mrg31k3p.clh, oclstat_clrng_float): both
are checked for all 2^31 - 1 values of z, on the host (an independent integer formulation
written here) and on the device. And clRNG's own float test: "combined operations" gives
40.0170440673828125."""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import oclstat.random as ocr

M1 = 2**31 - 1
SCALE = 4.6566126e-10          # a double, as in clRNG's C source


def integer_formulation(z: np.ndarray) -> np.ndarray:
    """(float)(z * SCALE) by exact integer arithmetic: the product of z and the scale's 53-bit
    mantissa rounded to 53 bits, then to 24, both to nearest even (numpy, uint64)."""
    mant, exp = math.frexp(SCALE)
    k = int(mant * 2**53)                         # SCALE = k * 2^(exp - 53)
    z = z.astype(np.uint64)
    kl, kh = np.uint64(k & 0xFFFFFFFF), np.uint64(k >> 32)
    a = z * kl
    hi = z * kh + (a >> np.uint64(32))
    lo = a & np.uint64(0xFFFFFFFF)
    bits = np.frexp(hi.astype(np.float64))[1].astype(np.int64)   # hi < 2^53: exact
    s = (bits + 32 - 53).astype(np.uint64)
    d = (hi << (np.uint64(32) - s)) | (lo >> s)
    has = s > 0
    r = lo & ((np.uint64(1) << s) - np.uint64(1))
    half = np.where(has, np.uint64(1) << np.maximum(s, np.uint64(1)) - np.uint64(1), 0)
    d = d + (has & ((r > half) | ((r == half) & ((d & np.uint64(1)) == 1)))).astype(np.uint64)
    over = d == (np.uint64(1) << np.uint64(53))
    d = np.where(over, d >> np.uint64(1), d)
    s = s + over
    f = d >> np.uint64(29)
    r2 = d & np.uint64((1 << 29) - 1)
    f = f + ((r2 > 2**28) | ((r2 == 2**28) & ((f & np.uint64(1)) == 1))).astype(np.uint64)
    over = f == (np.uint64(1) << np.uint64(24))
    f = np.where(over, f >> np.uint64(1), f)
    t = np.where(over, 30, 29)
    return _assemble(f, s, t, exp)


def _assemble(f, s, t, exp):
    """F * 2^(s + t + exp - 53): the rounded float's value."""
    return np.ldexp(f.astype(np.float64), s.astype(np.int64) + t + exp - 53).astype(np.float32)


HOST_PROGRAM = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
typedef uint32_t uint;
typedef uint64_t ulong;
#define __global
#define __constant const
#define inline static __inline__
ulong clz_ul(ulong x) { return x ? (ulong)__builtin_clzll(x) : 64; }
#define clz(x) clz_ul(x)
float as_float(uint u) { float f; memcpy(&f, &u, 4); return f; }
#define OCLSTAT_FP64 1
#include <oclstat/mrg31k3p.clh>
int main(void)
{
    unsigned long long bad = 0;
    for (ulong z = 1; z <= 2147483647UL; ++z) {
        const float a = oclstat_clrng_float((uint)z);
        const float b = (float)((double)z * MRG31K3P_NORM_FLOAT_AS_DOUBLE);
        bad += memcmp(&a, &b, 4) != 0;
    }
    printf("%llu\n", bad);
    return 0;
}
"""


@pytest.mark.slow
def test_all_outputs_on_the_host(tmp_path):
    """The kernel's own code (the header, compiled by the host's C compiler with OpenCL's
    names mapped to C's) against the host's double product rounded to float, for every z."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    from oclstat._runtime import kernel_dir

    src = tmp_path / "clrng_float.c"
    src.write_text(HOST_PROGRAM)
    exe = tmp_path / "clrng_float"
    subprocess.run([cc, "-O2", "-w", f"-I{kernel_dir() / 'include'}", f"-DMRG31K3P_M1={M1}u",
                    "-DMRG31K3P_M2=2147462579u", str(src), "-o", str(exe)], check=True)
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=True,
                          timeout=600).stdout.strip() == "0"


def test_some_outputs_on_the_host():
    z = np.r_[np.arange(1, 1 << 16), M1 - np.arange(1 << 16),
              np.random.default_rng(1).integers(1, M1 + 1, size=1 << 20)]
    clrng = (z.astype(np.float64) * SCALE).astype(np.float32)
    assert np.array_equal(integer_formulation(z), clrng)
    assert (clrng != (z.astype(np.float32) * np.float32(SCALE))).mean() > 0.2  # the old way


@pytest.mark.slow
def test_all_outputs_on_the_device(cpu_rt):
    """The device's integer formulation against its double one, for every z."""
    if not cpu_rt.info.fp64:
        pytest.skip("the comparison needs double precision on the device")
    kernel = cpu_rt.kernel("selftest.cl", "clrng_float_mismatches",
                           cpu_rt.real_defines(np.float64))
    n_items = 1 << 16
    counts = np.zeros(n_items, dtype=np.uint32)
    with cpu_rt.writing_into(counts) as buf:
        cpu_rt.launch(kernel, n_items, np.uint32(M1), buf)
    assert int(counts.sum()) == 0


def test_float_draws_are_clrngs_without_fp64(cpu_rt):
    """A device without double precision (OCLSTAT_NO_FP64) draws the same float32 uniforms,
    normals and exponentials, from the integer formulation."""
    code = ("import numpy as np, oclstat.random as ocr\n"
            f"d = {cpu_rt.info.index}\n"
            "out = [f(1000, seed=3, dtype=np.float32, device=d) for f in "
            "(ocr.uniform, ocr.normal, ocr.exponential)]\n"
            "print(np.concatenate(out).view(np.uint32).tobytes().hex())\n")
    runs = {}
    for flag in ("0", "1"):
        env = dict(os.environ, OCLSTAT_NO_FP64=flag)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=env, timeout=300, check=True).stdout
        runs[flag] = out.strip()
    assert runs["0"] == runs["1"]
    u = ocr.uniform(1000, seed=3, dtype=np.float32, device=cpu_rt)
    assert bytes.fromhex(runs["1"])[:4000] == u.tobytes()


def _u01(st, n=1):
    return ocr.uniform(n, streams=st, dtype=np.float32)


def test_clrng_combined_operations():
    """clRNG's checkCombinedOperations (src/tests/ctest/checks_prec.c.h) in float: the same
    sequence of draws, advances, rewinds and substreams, with C's arithmetic (a float plus a
    double is a double, stored back as a float): 40.0170440673828125."""
    f32 = np.float32

    def add(total, value):                      # total += value, C semantics
        if isinstance(value, float):
            return f32(np.float64(total) + value)
        return f32(total + value)

    base = ocr.create_streams(3)
    s1, s2, s3 = (ocr.Streams(base.current[i:i + 1]) for i in range(3))
    total = f32(_u01(s2)[0] + _u01(s3)[0])
    s1.advance(2**5 + 3)
    total = add(total, _u01(s1)[0])
    s1.rewind()
    s1.advance(35)
    total = add(total, _u01(s1)[0])
    s1.rewind()
    ints = 1 + (f32(10) * _u01(s1, 35)).astype(np.int64)
    total = add(total, float(ints.sum()) / 100.0)
    sum3 = np.add.accumulate(_u01(s3, 100))[-1]
    total = add(total, float(sum3) / 10.0)
    s3.rewind()
    for u in _u01(s3, 5):
        total = add(total, u)
    for _ in range(4):
        s3.forward_substreams()
    for u in _u01(s3, 5):
        total = add(total, u)
    s3.rewind_substreams()
    for u in _u01(s3, 5):
        total = add(total, u)
    s2.forward_substreams()
    total = add(total, float(np.add.accumulate(_u01(s2, 100000))[-1]) / 10000.0)
    total = add(total, float(np.add.accumulate(_u01(s3, 100000))[-1]) / 10000.0)
    arrays = base.spawn(4)
    streams = [ocr.Streams(arrays.current[i:i + 1]) for i in range(4)]
    for s in streams:
        total = add(total, _u01(s)[0])
    streams[2].advance(-(2**127))
    total = add(total, _u01(streams[2])[0])
    streams[2].forward_substreams()
    total = add(total, float(np.add.accumulate(_u01(streams[2], 100000))[-1]) / 10000.0)
    total = add(total, float(np.add.accumulate(_u01(streams[2], 100000))[-1]) / 10000.0)
    for s in streams:
        total = add(total, _u01(s)[0])
    assert total == f32(40.0170440673828125)
