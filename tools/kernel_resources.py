"""Compile every OpenCL kernel for real GPU targets and report the resources each one needs.

What is compiled is exactly what runs: the kernels, defines and options that oclstat builds
when every capability runs its GPU schedule (``tests/exercise.py`` with OCLSTAT_SCHEDULE=gpu,
recorded in ``oclstat._runtime.BUILT``). Each build goes through clang + libclc (Debian's
clang-16/libclc-16; LLVM 14 and 15 work for NVIDIA and gfx90a) to

* NVPTX, then NVIDIA's ``ptxas -v`` (from PyPI's nvidia-cuda-nvcc-cu12) for sm_80 and sm_90:
  registers, stack frame, spill stores/loads, static shared memory per kernel;
* AMDGCN for gfx90a (MI200) and gfx1100 (RDNA3): VGPRs, scratch, LDS, occupancy.

It also compiles every build of a run without fp64 (OCLSTAT_NO_FP64=1) with clang told that
the device has no cl_khr_fp64, as a device without double precision would.

    python tools/kernel_resources.py            # the table
    python tools/kernel_resources.py --check    # exit 1 on a violation of the limits below

Limits (--check): no spill stores or loads in any kernel; no stack in the hot kernels (but
the two epistasis searches, below); static local memory at most 48 KiB; epistasis_search (the
GPU schedule's bit-vector search) at most EPI_SM90_REGISTERS registers on sm_90 and
EPI_SM90_STACK bytes of stack on sm_80 and sm_90; epistasis_tiles_search (its tiled search)
at most TILES_REGISTERS registers on sm_90 and TILES_STACK bytes of stack or AMD scratch;
every no-fp64 build compiles.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LOCAL_LIMIT = 48 * 1024
#: epistasis_search on sm_90, as measured on an H200 (benchmarks/RESULTS.md, 2026-11-26): the
#: order-4 build that keeps 27 counters per class (96 registers, a 232-byte stack) ran at 1.37
#: T combinations x samples/s; a stack-free variant with 9 counters (64 registers) at 1.14 T.
EPI_SM90_REGISTERS = 96
EPI_SM90_STACK = 256
#: epistasis_tiles_search (the GPU schedule's search at orders 3 and 4, 256 work-items per
#: tile): its 4 x 4 products per work-item in registers (at most 64 on sm_90: four tiles per
#: SM), its table assembly, once per combination, in a stack frame (sm_90, 2026-11-28: 56
#: registers and 480 bytes at order 4 with both classes in one word, 64 and 808 without; order
#: 5's 243-cell table 1,520 and 2,496 bytes; gfx90a scratch alike).
TILES_REGISTERS = 64
TILES_STACK = 2560
#: Hot kernels allowed a stack frame on NVIDIA GPUs, and how much.
STACK_ALLOWED = {"epistasis_search": EPI_SM90_STACK, "epistasis_tiles_search": TILES_STACK}
#: Hot kernels allowed scratch on AMD GPUs.
AMD_SCRATCH_ALLOWED = {"epistasis_tiles_search": TILES_STACK}
#: Register limits on sm_90.
SM90_REGISTERS = {"epistasis_search": EPI_SM90_REGISTERS,
                  "epistasis_tiles_search": TILES_REGISTERS}
#: Kernels whose time matters: they must keep their state in registers (no stack frame).
HOT = {"epistasis_search", "epistasis_tiles_search", "fisher_rcont2_count",
       "permutation_step", "gsea_metric", "gsea_metric_profile",
       "gsea_rank", "gsea_es_pairs", "random_fill_uniform", "random_fill_normal",
       "random_fill_exponential", "random_fill_raw", "random_fill_integers",
       "fields_matern_cov", "fields_ldl_trailing", "fields_lower_times"}
NV_ARCHS = ("sm_80", "sm_90")
AMD_CPUS = ("gfx90a", "gfx1100")

_RECORD = """
import json, os, sys
sys.path.insert(0, {tests!r})
import oclstat
from oclstat import _runtime
from exercise import exercise
exercise(os.environ.get("OCLSTAT_DEVICE") or None)
print(json.dumps(sorted([f, list(d), list(o)] for f, d, o in _runtime.BUILT)))
"""


def llvm_bin() -> Path | None:
    """The newest LLVM (16 or later preferred; 14 and 15 lack gfx1100) with clang, llc, opt and
    llvm-link; OCLSTAT_LLVM_BIN overrides."""
    env = os.environ.get("OCLSTAT_LLVM_BIN")
    candidates = [Path(env)] if env else [Path(f"/usr/lib/llvm-{v}/bin") for v in
                                          range(20, 13, -1)]
    for c in candidates:
        if all((c / t).exists() for t in ("clang", "llc", "opt", "llvm-link")):
            return c
    return None


def ptxas() -> Path | None:
    """ptxas from PATH or from PyPI's nvidia-cuda-nvcc-cu12."""
    found = shutil.which("ptxas")
    if found:
        return Path(found)
    try:
        import nvidia.cuda_nvcc as nvcc  # type: ignore[import-not-found]
    except ImportError:
        return None
    for base in list(getattr(nvcc, "__path__", [])):
        p = Path(base) / "bin" / "ptxas"
        if p.exists():
            return p
    return None


def libclc(name: str) -> Path | None:
    for base in (Path("/usr/lib/clc"), Path("/usr/share/clc")):
        if (base / name).exists():
            return base / name
    return None


def recorded_builds(no_fp64: bool = False) -> list[tuple[str, dict, list]]:
    """The (file, defines, options) oclstat builds in its GPU schedule on this machine's
    default device (a run of tests/exercise.py in a fresh process)."""
    env = dict(os.environ, OCLSTAT_SCHEDULE="gpu", PYTHONPATH=str(REPO))
    if no_fp64:
        env["OCLSTAT_NO_FP64"] = "1"
    else:
        env.pop("OCLSTAT_NO_FP64", None)
    out = subprocess.run([sys.executable, "-c", _RECORD.format(tests=str(REPO / "tests"))],
                         env=env, capture_output=True, text=True, check=True, cwd=REPO)
    return [(f, dict(d), list(o)) for f, d, o in json.loads(out.stdout.strip().splitlines()[-1])]


def _source_file(kfile: str, work: Path) -> Path:
    """The kernel source as the runtime compiles it (headers written in place)."""
    from oclstat._runtime import kernel_source

    path = work / kfile
    if not path.exists():
        path.write_text(kernel_source(kfile))
    return path


def _clang_args(llvm: Path, target: list[str], kfile: str, defines: dict, work: Path,
                extra=()) -> list:
    from oclstat._constants import KERNEL_DEFINES

    every = {**KERNEL_DEFINES, **defines}
    # -fgnu89-inline: an `inline` helper the optimiser keeps as a call still gets a body
    return [str(llvm / "clang"), "-x", "cl", "-cl-std=CL1.2", *target, "-Xclang",
            "-finclude-default-header", "-fgnu89-inline", "-O3", *extra,
            *(f"-D{k}={v}" for k, v in sorted(every.items())), str(_source_file(kfile, work))]


def _defines_for(defines: dict, fp64: bool) -> dict:
    d = {k: v for k, v in defines.items() if k != "OCLSTAT_FP64"}
    if fp64:
        d["OCLSTAT_FP64"] = "1"
    return d


def _run(args, what: str) -> str:
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"{what} failed:\n{' '.join(args)}\n{out.stderr[-3000:]}")
    return out.stdout + out.stderr


def _bitcode(llvm: Path, target: list, kfile: str, defines: dict, lib: Path, work: Path,
             tag: str) -> Path:
    bc, linked, opt = work / f"{tag}.bc", work / f"{tag}.l.bc", work / f"{tag}.o.bc"
    _run([*_clang_args(llvm, target, kfile, defines, work), "-emit-llvm", "-c", "-o", str(bc)],
         f"clang {kfile}")
    _run([str(llvm / "llvm-link"), "--only-needed", str(bc), str(lib), "-o", str(linked)],
         "llvm-link")
    _run([str(llvm / "opt"), "-O3", str(linked), "-o", str(opt)], "opt")
    return opt


def nvidia(llvm: Path, ptx_as: Path, kfile: str, defines: dict, work: Path, tag: str):
    """{(arch, kernel): {registers, stack, spill_stores, spill_loads, smem}}."""
    lib = libclc("nvptx64--nvidiacl.bc")
    bc = _bitcode(llvm, ["-target", "nvptx64-unknown-nvidiacl"], kfile, defines, lib, work,
                  tag)
    ptx = work / f"{tag}.ptx"
    _run([str(llvm / "llc"), "-mcpu=sm_80", str(bc), "-o", str(ptx)], "llc nvptx")
    out = {}
    for arch in NV_ARCHS:
        log = _run([str(ptx_as), f"-arch={arch}", "-v", str(ptx), "-o", os.devnull],
                   f"ptxas {arch}")
        for block in re.split(r"ptxas info\s+: Compiling entry function ", log)[1:]:
            name = block.split("'")[1]
            stack = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads", block)
            regs = re.search(r"Used (\d+) registers", block)
            smem = re.search(r"(\d+) bytes smem", block)
            out[(arch, name)] = {
                "registers": int(regs.group(1)) if regs else 0,
                "stack": int(stack.group(1)) if stack else 0,
                "spill_stores": int(stack.group(2)) if stack else 0,
                "spill_loads": int(stack.group(3)) if stack else 0,
                "local": int(smem.group(1)) if smem else 0,
            }
    return out


def amd(llvm: Path, kfile: str, defines: dict, work: Path, tag: str):
    """{(cpu, kernel): {vgprs, scratch, local, occupancy}}."""
    lib = libclc("amdgcn--amdhsa.bc")
    out = {}
    for cpu in AMD_CPUS:
        target = ["-target", "amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-nogpulib"]
        bc = _bitcode(llvm, target, kfile, defines, lib, work, f"{tag}.{cpu}")
        asm = work / f"{tag}.{cpu}.s"
        _run([str(llvm / "llc"), "-mtriple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", str(bc), "-o",
              str(asm)], f"llc {cpu}")
        text = asm.read_text()
        for part in text.split("\t.amdhsa_kernel ")[1:]:
            name, body = part.split("\n", 1)[0].strip(), part

            def num(key, body=body):
                m = re.search(rf"; {key}: (\d+)", body)
                return int(m.group(1)) if m else 0

            out[(cpu, name)] = {"vgprs": num("TotalNumVgprs") or num("NumVgprs"),
                                "scratch": num("ScratchSize"), "local": num("LDSByteSize"),
                                "occupancy": num("Occupancy")}
    return out


def no_fp64_compiles(llvm: Path, kfile: str, defines: dict, work: Path) -> str | None:
    """None when the build compiles for a device without cl_khr_fp64, else the error."""
    args = [*_clang_args(llvm, ["-target", "nvptx64-unknown-nvidiacl"], kfile, defines, work,
                         ("-Xclang", "-cl-ext=-cl_khr_fp64")), "-fsyntax-only"]
    out = subprocess.run(args, capture_output=True, text=True)
    return None if out.returncode == 0 else out.stderr[-2000:]


def report(check: bool = False) -> tuple[list[dict], list[str]]:
    llvm, ptx_as = llvm_bin(), ptxas()
    missing = [name for name, ok in (("clang/llc/opt/llvm-link (LLVM 14+)", llvm),
                                     ("ptxas", ptx_as),
                                     ("libclc", libclc("nvptx64--nvidiacl.bc"))) if not ok]
    if missing:
        raise FileNotFoundError("kernel_resources needs " + ", ".join(missing) +
                                " (tools/setup-system.sh installs them)")
    rows, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i, (kfile, defines, _opts) in enumerate(recorded_builds()):
            d = _defines_for(defines, fp64=True)
            tag = f"b{i}"
            label = f"{kfile} " + " ".join(f"{k}={v}" for k, v in sorted(d.items())
                                           if k not in ("OCLSTAT_FP64",))
            for (arch, kernel), r in nvidia(llvm, ptx_as, kfile, d, work, tag).items():
                rows.append({"build": label, "target": arch, "kernel": kernel, **r})
                if r["spill_stores"] or r["spill_loads"]:
                    problems.append(f"{arch} {kernel} ({label}): spills "
                                    f"{r['spill_stores']}/{r['spill_loads']} bytes")
                if kernel in HOT and r["stack"] > STACK_ALLOWED.get(kernel, 0):
                    problems.append(f"{arch} {kernel} ({label}): {r['stack']}-byte stack")
                if r["local"] > LOCAL_LIMIT:
                    problems.append(f"{arch} {kernel} ({label}): {r['local']} bytes local")
                if arch == "sm_90" and r["registers"] > SM90_REGISTERS.get(kernel, 255):
                    problems.append(f"sm_90 {kernel} ({label}): {r['registers']} registers")
            if "gfx1100" in _amd_support(llvm):
                for (cpu, kernel), r in amd(llvm, kfile, d, work, tag).items():
                    rows.append({"build": label, "target": cpu, "kernel": kernel, **r})
                    if kernel in HOT and r["scratch"] > AMD_SCRATCH_ALLOWED.get(kernel, 0):
                        problems.append(f"{cpu} {kernel} ({label}): {r['scratch']}-byte "
                                        "scratch")
                    if r["local"] > LOCAL_LIMIT:
                        problems.append(f"{cpu} {kernel} ({label}): {r['local']} bytes LDS")
        for kfile, defines, _opts in recorded_builds(no_fp64=True):
            err = no_fp64_compiles(llvm, kfile, _defines_for(defines, fp64=False), work)
            if err:
                problems.append(f"no-fp64 build of {kfile} {defines} fails:\n{err}")
    return rows, problems


def _amd_support(llvm: Path) -> str:
    out = subprocess.run([str(llvm / "llc"), "-mtriple=amdgcn-amd-amdhsa", "-mcpu=help"],
                         capture_output=True, text=True)
    return out.stdout + out.stderr


def format_table(rows: list[dict]) -> str:
    lines = [f"{'target':<8} {'kernel':<22} {'regs':>5} {'stack':>6} {'spill':>6} "
             f"{'local':>6} {'occ':>4}  build"]
    seen = set()
    for r in sorted(rows, key=lambda r: (r["target"], r["kernel"], r["build"])):
        key = (r["target"], r["kernel"], r["build"])
        if key in seen:
            continue
        seen.add(key)
        regs = r.get("registers", r.get("vgprs", 0))
        stack = r.get("stack", r.get("scratch", 0))
        spill = r.get("spill_stores", 0) + r.get("spill_loads", 0)
        lines.append(f"{r['target']:<8} {r['kernel']:<22} {regs:>5} {stack:>6} {spill:>6} "
                     f"{r['local']:>6} {r.get('occupancy', ''):>4}  {r['build']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 on a violated limit")
    parser.add_argument("--json", default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    rows, problems = report()
    print(format_table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "problems": problems}, indent=1))
    if problems:
        print("\n".join(["", "limits violated:"] + [f"  {p}" for p in problems]))
    return 1 if (args.check and problems) else 0


if __name__ == "__main__":
    sys.exit(main())
