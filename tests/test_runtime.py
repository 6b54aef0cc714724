"""Device discovery, choice, program cache and error messages of oclstat._runtime."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyopencl as cl
import pytest

import oclstat
from oclstat import _runtime


def test_devices_are_listed_with_their_limits():
    found = oclstat.devices()
    assert found, "CI installs pocl, so at least one device must be present"
    for i, d in enumerate(found):
        assert d.index == i
        assert d.global_mem > 0 and 0 < d.max_alloc <= d.global_mem
        assert d.type in ("GPU", "CPU", "ACC", "OTHER")
        assert d.name in str(d) and d.platform in d.label


def test_choice_by_index_substring_and_objects(rt):
    info = rt.info
    assert oclstat.get_runtime(info.index) is rt
    assert oclstat.get_runtime(str(info.index)) is rt
    assert oclstat.get_runtime(info.name[:6].upper()) is rt
    assert oclstat.get_runtime(info) is rt
    assert oclstat.get_runtime(rt) is rt
    assert oclstat.get_runtime(rt.device) is rt


def test_environment_variables_choose_the_device(rt, monkeypatch):
    monkeypatch.setenv("OCLSTAT_DEVICE", str(rt.info.index))
    assert oclstat.get_runtime() is rt
    monkeypatch.setenv("OCLSTAT_DEVICE", "no-such-device-anywhere")
    with pytest.raises(oclstat.NoDeviceError, match="OCLSTAT_DEVICE='no-such-device-anywhere'"):
        oclstat.get_runtime()
    monkeypatch.delenv("OCLSTAT_DEVICE")
    platforms = cl.get_platforms()
    p_index = next(i for i, p in enumerate(platforms) if p == rt.device.platform)
    d_index = rt.device.platform.get_devices().index(rt.device)
    monkeypatch.setenv("PYOPENCL_CTX", f"{p_index}:{d_index}")
    assert oclstat.get_runtime() is rt
    monkeypatch.setenv("PYOPENCL_CTX", "99")
    with pytest.raises(oclstat.NoDeviceError, match="PYOPENCL_CTX"):
        oclstat.get_runtime()


def test_default_prefers_a_gpu(monkeypatch):
    monkeypatch.delenv("OCLSTAT_DEVICE", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    chosen = oclstat.get_runtime().info
    if any(d.type == "GPU" and not d.simulator for d in oclstat.devices()):
        assert chosen.type == "GPU"
    else:
        assert chosen.type in ("CPU", "ACC", "OTHER")


@pytest.mark.parametrize(
    "device, exc, message",
    [
        (999, oclstat.NoDeviceError, "no device with that index"),
        ("definitely-not-a-device", oclstat.NoDeviceError, "matches no device"),
        (1.5, TypeError, "device must be"),
        (True, TypeError, "device must be"),
    ],
)
def test_bad_device_arguments(device, exc, message):
    with pytest.raises(exc, match=message):
        oclstat.get_runtime(device)


def test_no_platform_error_says_how_to_get_one(monkeypatch):
    def no_platforms():
        raise cl.LogicError("clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR")

    monkeypatch.setattr(cl, "get_platforms", no_platforms)
    with pytest.raises(oclstat.NoDeviceError, match=r'pip install "oclstat\[pocl\]"'):
        oclstat.devices()
    monkeypatch.setattr(cl, "get_platforms", lambda: [])
    with pytest.raises(oclstat.NoDeviceError, match="vendor"):
        oclstat.get_runtime()


def test_programs_are_built_once_per_options(rt):
    a = rt.program("random.cl", {"REAL": "float", "LANES": "1"})
    b = rt.program("random.cl", {"LANES": "1", "REAL": "float"})
    c = rt.program("random.cl", {"REAL": "float", "LANES": "2"})
    assert a is b and a is not c
    k1 = rt.kernel("random.cl", "fill_raw", {"REAL": "float", "LANES": "1"})
    assert k1 is rt.kernel("random.cl", "fill_raw", {"REAL": "float", "LANES": "1"})


def test_build_errors_name_the_file_and_device(rt, tmp_path, monkeypatch):
    (tmp_path / "include" / "oclstat").mkdir(parents=True)
    (tmp_path / "broken.cl").write_text("__kernel void k(__global int *x) { x[0] = ; }\n")
    monkeypatch.setattr(_runtime.sources, "kernel_dir", lambda: tmp_path)
    with pytest.raises(oclstat.KernelBuildError, match="building broken.cl") as info:
        rt.program("broken.cl")
    assert isinstance(info.value, RuntimeError) and "broken.cl" in str(info.value)


def test_kernel_dir_has_the_shared_headers():
    kdir = _runtime.kernel_dir()
    assert (kdir / "random.cl").is_file()
    for header in ("mrg31k3p.clh", "lanes.clh", "distributions.clh"):
        assert (kdir / "include" / "oclstat" / header).is_file()


def test_fp64_requirement(rt, monkeypatch):
    import dataclasses

    assert rt.real_defines(np.float32)["REAL"] == "float"
    with pytest.raises(TypeError, match="float32 or numpy.float64"):
        rt.real_defines(np.int64)
    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info, fp64=False))
    with pytest.raises(oclstat.DeviceCapabilityError, match="double precision"):
        rt.real_defines(np.float64)


def test_memory_limits_for_chunking(rt):
    assert rt.max_items(8) >= 1
    assert rt.max_items(8) * 8 <= rt.info.max_alloc
    assert rt.max_items(rt.info.max_alloc * 4) == 1
    with pytest.raises(oclstat.DeviceCapabilityError, match="max allocation"):
        rt.empty(rt.info.max_alloc + 1)


def test_lanes_setting(rt, monkeypatch):
    monkeypatch.setenv("OCLSTAT_LANES", "3")
    with pytest.raises(ValueError, match="OCLSTAT_LANES"):
        rt.lanes(np.float64)
    monkeypatch.setenv("OCLSTAT_LANES", "8")
    assert rt.lanes(np.float64) == 8
    monkeypatch.delenv("OCLSTAT_LANES")
    assert rt.lanes(np.float64) == (1 if rt.gpu_schedule else 4)
    # a whole register's worth (8 doubles where the compiler targets AVX-512, 4 with AVX2)
    assert rt.lanes(np.float64, register=True) == (
        1 if rt.gpu_schedule else max(1, min(16, (rt.info.simd_bytes or 32) // 8)))


def test_profile_reports_device_time(rt):
    with rt.profile() as prof:
        oclstat.random.uniform(10_000, seed=1, device=rt)
        oclstat.random.normal(10_000, seed=1, device=rt)
    assert prof.events and prof.seconds > 0
    per_kernel = prof.by_kernel()
    assert {"random_fill_uniform", "random_fill_normal"} <= set(per_kernel)
    assert sum(per_kernel.values()) == pytest.approx(prof.seconds)


@pytest.mark.parametrize("piece, nbytes", [(64, 1000), (48, 96), (1 << 30, 24)])
def test_fills_go_in_pieces_with_the_same_result(rt, monkeypatch, piece, nbytes):
    """Runtime.fill splits a fill into pieces of at most FILL_PIECE bytes (one fill of more
    than 2^31 patterns stalled NVIDIA's driver), each a whole number of patterns."""
    monkeypatch.setattr(_runtime.runtime, "FILL_PIECE", piece)
    buf = rt.to_device(np.full(1024, 0xAB, dtype=np.uint8))
    rt.fill(buf, np.array([7.5]), nbytes)
    out = rt.read(buf, np.empty(1024, dtype=np.uint8))
    np.testing.assert_array_equal(out[:nbytes].view(np.float64), 7.5)
    assert (out[nbytes:] == 0xAB).all()


def test_writing_into_a_host_array(rt):
    host = np.zeros(100, dtype=np.uint32)
    kernel = rt.kernel("random.cl", "fill_raw", {"REAL": "float", "LANES": "1"})
    states = rt.to_device(oclstat.random.create_streams(100).current)
    with rt.writing_into(host) as buf:
        rt.launch(kernel, 100, states, buf, np.uint64(100), np.uint64(0), np.uint64(1),
                  np.uint64(100))
    assert (host >= 1).all()
    with pytest.raises(ValueError, match="C-contiguous"):
        with rt.writing_into(np.zeros((4, 4), dtype=np.uint32)[:, ::2]):
            pass


def test_common_names_resolve_to_their_implementation(monkeypatch):
    monkeypatch.delenv("OCLSTAT_DEVICE", raising=False)
    infos = oclstat.devices()
    for name, platform in [("pocl", "portable computing language"), ("intel", "intel"),
                           ("oclgrind", "oclgrind"), ("nvidia", "nvidia"), ("cuda", "nvidia"),
                           ("amd", "amd"), ("rocm", "amd")]:
        present = [d for d in infos if platform in d.platform.lower()]
        if not present:
            with pytest.raises(oclstat.NoDeviceError, match="matches no device"):
                oclstat.get_runtime(name)
            continue
        assert platform in oclstat.get_runtime(name).info.platform.lower()
        monkeypatch.setenv("OCLSTAT_DEVICE", name.upper())
        assert platform in oclstat.get_runtime().info.platform.lower()
        monkeypatch.delenv("OCLSTAT_DEVICE")
    for kind in ("cpu", "gpu"):
        real = [d for d in infos if d.type == kind.upper() and not d.simulator]
        if real:
            assert oclstat.get_runtime(kind).info.type == kind.upper()
            assert not oclstat.get_runtime(kind).info.simulator
        else:
            with pytest.raises(oclstat.NoDeviceError):
                oclstat.get_runtime(kind)


def test_a_simulator_is_never_the_default(monkeypatch):
    monkeypatch.delenv("OCLSTAT_DEVICE", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    chosen = oclstat.get_runtime().info
    assert not chosen.simulator and chosen.usable
    cpus = [d for d in oclstat.devices(usable=True) if d.type == "CPU"]
    if chosen.type == "CPU" and len(cpus) > 1:     # the faster CPU implementation
        assert chosen.index == _expected_cpu(cpus, _runtime.CPU_PREFERENCE).index


def _expected_cpu(cpus, order):
    """The usable CPU implementation first in ``order``, the newer of two versions first."""
    from oclstat._runtime.device import version_key

    def key(d):
        rank = next((i for i, c in enumerate(order) if c in d.platform.lower()), 99)
        return (rank, tuple(-n for n in version_key(d.driver)), d.index)
    return min(cpus, key=key)


@pytest.mark.parametrize("workload", [None, *_runtime.CPU_PREFERENCE_BY_WORKLOAD])
def test_a_workload_default_follows_its_cpu_order(monkeypatch, workload):
    """With no device named, a capability gets the CPU implementation measured best for it
    (pocl for small LDLᵀ and Green's programme, Intel's otherwise), GPUs still first; a named
    device or OCLSTAT_DEVICE always wins."""
    monkeypatch.delenv("OCLSTAT_DEVICE", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    chosen = _runtime.runtime_for(None, workload).info
    real = [d for d in oclstat.devices(usable=True) if not d.simulator]
    cpus = [d for d in real if d.type == "CPU"]
    if any(d.type == "GPU" for d in real):
        assert chosen.type == "GPU"
    elif len(cpus) > 1:
        order = _runtime.CPU_PREFERENCE_BY_WORKLOAD.get(workload, _runtime.CPU_PREFERENCE)
        assert chosen.index == _expected_cpu(cpus, order).index
    named = cpus[-1].index if cpus else chosen.index
    assert _runtime.runtime_for(named, workload).info.index == named
    monkeypatch.setenv("OCLSTAT_DEVICE", str(named))
    assert _runtime.runtime_for(None, workload).info.index == named


def test_capabilities_run_on_their_workload_default(monkeypatch):
    """GSEA (phenotype and preranked), with no device named, runs where
    runtime_for puts its workload, and says so in its results."""
    monkeypatch.delenv("OCLSTAT_DEVICE", raising=False)
    monkeypatch.delenv("PYOPENCL_CTX", raising=False)
    rng = np.random.default_rng(2)
    genes = [f"g{i}" for i in range(60)]
    expr = pd.DataFrame(rng.normal(size=(60, 8)), index=genes)
    sets = {"a": genes[:15], "b": genes[20:40]}
    want = _runtime.runtime_for(None, "gsea").info.label
    res = oclstat.gsea(expr, [0, 0, 0, 0, 1, 1, 1, 1], sets, n_resamples=20, min_size=10)
    assert res.device == want
    ranking = pd.Series(rng.normal(size=60), index=genes)
    res = oclstat.gsea_prerank(ranking, sets, n_resamples=100, min_size=10)
    assert res.device == want


def test_pip_installed_icds_are_registered_without_hiding_others(tmp_path, monkeypatch):
    """A library in the environment's lib/ becomes an ICD file next to copies of the vendor
    directory's own files; OCL_ICD_VENDORS naming one file, or OCLSTAT_REGISTER_ICDS=0, is
    left alone; an ICD already registered is not registered twice."""
    lib = tmp_path / "env" / "lib"
    lib.mkdir(parents=True)
    (lib / "libintelocl.so").write_bytes(b"")
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    (vendors / "nvidia.icd").write_text("libnvidia-opencl.so.1\n")
    monkeypatch.setattr(_runtime.icd, "_pip_icd_libraries", lambda: [lib / "libintelocl.so"])
    monkeypatch.setattr(_runtime.icd.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors))
    target = _runtime.register_pip_icds()
    assert target is not None and os.environ["OCL_ICD_VENDORS"] == str(target)
    files = {f.name: f.read_text() for f in target.iterdir()}
    assert files["nvidia.icd"] == "libnvidia-opencl.so.1\n"
    assert any("libintelocl.so" in t for n, t in files.items() if n != "nvidia.icd")
    _runtime.icd.release_icd_dir()      # once the loader has read it: gone, the variable restored
    assert not target.exists() and os.environ["OCL_ICD_VENDORS"] == str(vendors)
    target = _runtime.register_pip_icds()
    monkeypatch.setenv("OCL_ICD_VENDORS", str(target))     # already there: nothing to do
    assert _runtime.register_pip_icds() is None
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors / "nvidia.icd"))
    assert _runtime.register_pip_icds() is None
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors))
    monkeypatch.setenv("OCLSTAT_REGISTER_ICDS", "0")
    assert _runtime.register_pip_icds() is None


def test_intel_runtime_is_found_with_no_environment_variables():
    """With intel-opencl-rt installed in this environment, a fresh Python lists it."""
    import subprocess
    import sys

    if not any(p.name == "libintelocl.so" for p in _runtime.icd._pip_icd_libraries()):
        pytest.skip("intel-opencl-rt is not installed in this environment")
    env = {k: v for k, v in os.environ.items()
           if k not in ("OCL_ICD_VENDORS", "LD_LIBRARY_PATH", "OCLSTAT_DEVICE")}
    out = subprocess.run([sys.executable, "-c", "import oclstat; "
                          "print([d.platform for d in oclstat.devices()])"],
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Intel(R) OpenCL" in out.stdout


def test_schedule_switch(rt, monkeypatch):
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
    assert rt.gpu_schedule and rt.lanes(np.float32) == 1
    assert not rt.scalar_work_items      # a GPU schedule takes the GPU's code paths
    assert rt.local_mem <= 48 * 1024 and rt.max_group <= 256
    k = rt.kernel("random.cl", "fill_raw", {"REAL": "float", "LANES": "1"})
    assert rt.local_size(k) <= 256
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    assert not rt.gpu_schedule
    # pocl runs each work-item of a kernel with data-dependent loops as scalar code; Intel's
    # runtime packs work-items into SIMD lanes
    assert rt.scalar_work_items == ("Portable Computing Language" in rt.info.platform)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "auto")
    assert rt.gpu_schedule == (rt.info.type != "CPU")
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "fast")
    with pytest.raises(ValueError, match="OCLSTAT_SCHEDULE must be"):
        _ = rt.gpu_schedule


def test_poison_fills_new_buffers(rt, monkeypatch):
    monkeypatch.setenv("OCLSTAT_POISON", "1")
    out = rt.read(rt.empty(64), np.zeros(64, dtype=np.uint8))
    assert (out == 0xFF).all()


def test_build_logs_warn_about_the_code_not_the_drivers_notes():
    from oclstat._runtime import compiler_warnings

    nvidia = ("(): Warning: Function random_fill_raw is a kernel, so overriding noinline "
              "attribute. The function may be inlined when called.")      # an H200, every kernel
    intel = ("Kernel <fisher_count> was not vectorized: can't be vectorized due to unsupported "
             "vec type hint")
    real = "<source>:12:5: warning: unused variable 'x'"
    assert compiler_warnings("\n".join([nvidia, intel, "Compilation done"])) == []
    assert compiler_warnings("\n".join([nvidia, real])) == [real]
