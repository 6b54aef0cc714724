"""The CUDA tensor-core kernel (cl_kernels/epistasis_tc.cu) compiles with NVRTC to machine
code for sm_80 (A100) and sm_90 (H100) for every order and score, with the options the CuPy
plugin uses. This needs no GPU: NVRTC comes from the nvidia-cuda-nvrtc-cu12 wheel (test extra).
Running the kernel is tested on the GPU machine (tests/test_gpu_epistasis.py)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from oclstat._epistasis.cuda import SOURCE, compile_options
from oclstat._runtime import kernel_source


def _nvrtc():
    try:
        import nvidia.cuda_nvrtc as pkg
    except ImportError:
        pytest.skip("nvidia-cuda-nvrtc-cu12 is not installed (pip install .[test] on Linux x86_64)")
    libs = sorted(Path(p) for base in pkg.__path__ for p in Path(base).glob("lib/libnvrtc.so*")
                  if "alt" not in p.name and "builtins" not in p.name)
    if not libs:
        pytest.fail(f"no libnvrtc.so in {list(pkg.__path__)}")
    return ctypes.CDLL(str(libs[0]))


def compile_cubin(lib, arch: str, defines: dict) -> tuple[int, str]:
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), kernel_source(SOURCE).encode(),
                                  b"epistasis_tc.cu",
                                  0, None, None) == 0
    opts = [f"--gpu-architecture={arch}".encode(), *(o.encode() for o in
                                                     compile_options(defines))]
    rc = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    cubin = 0
    if rc == 0:
        n = ctypes.c_size_t()
        assert lib.nvrtcGetCUBINSize(prog, ctypes.byref(n)) == 0
        cubin = n.value
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    assert rc == 0, f"NVRTC failed for {arch} {defines}:\n{log.value.decode()}"
    return cubin, log.value.decode()


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("order,row,col", [(2, 1, 1), (3, 2, 1), (4, 2, 2)])
@pytest.mark.parametrize("score", [0, 1])
def test_tensor_core_kernel_compiles(arch, order, row, col, score):
    lib = _nvrtc()
    cubin, log = compile_cubin(lib, arch, {"ORDER": order, "SCORE": score, "ROW_SNPS": row,
                                           "COL_SNPS": col})
    assert cubin > 10_000, f"suspiciously small cubin ({cubin} bytes)"
    assert "warning" not in log.lower(), log


@pytest.mark.parametrize("order,row,col", [(2, 1, 1), (4, 2, 2)])
def test_tensor_core_kernel_compiles_with_16_bit_products(order, row, col):
    """Classes below 65,536 samples keep the tile's products in 16 bits (EPI_PS_USHORT, as
    oclstat._epistasis.cuda.TensorCoreTiles builds it): the shared tile is 16 KiB smaller."""
    lib = _nvrtc()
    defines = {"ORDER": order, "SCORE": 0, "ROW_SNPS": row, "COL_SNPS": col}
    narrow, log = compile_cubin(lib, "sm_90", {**defines, "EPI_PS_USHORT": 1})
    assert narrow > 10_000 and "warning" not in log.lower(), log
