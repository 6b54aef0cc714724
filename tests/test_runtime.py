"""Device discovery, choice, program cache and error messages of oclstat._runtime."""

from __future__ import annotations

import numpy as np
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
    if any(d.type == "GPU" for d in oclstat.devices()):
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
    monkeypatch.setattr(_runtime, "kernel_dir", lambda: tmp_path)
    with pytest.raises(RuntimeError, match="building broken.cl"):
        rt.program("broken.cl")


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
    assert rt.lanes(np.float64) == (4 if rt.is_cpu else 1)


def test_profile_reports_device_time(rt):
    with rt.profile() as prof:
        oclstat.random.uniform(10_000, seed=1, device=rt)
    assert prof.events and prof.seconds > 0


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
