"""Works on every machine it is handed: an OpenCL implementation is proven usable (a tiny kernel
built and run, the verdict cached) before it is chosen.

The end-to-end case breaks a real implementation: pocl refuses every build when
``POCL_EXTRA_BUILD_FLAGS`` holds an option it does not know ("Invalid build option"), as PyPI's
pocl 3.0 refuses every build on an AMD Zen 5 ("unknown target CPU 'generic'"). With pocl broken
so, in fresh processes: the listing says why and what to do, no default lands on it, naming it
is one line on stderr, and the demo and every documentation page (the R page's fgseaGpu
included, where R is here) still run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import oclstat
from oclstat import _runtime
from oclstat._runtime import choice
from oclstat._runtime import device as devices

REPO = Path(__file__).resolve().parents[1]
BROKEN_POCL = {"POCL_EXTRA_BUILD_FLAGS": "-target-cpu generic"}


# ----------------------------------------------------------------------------- the probe


def test_every_device_here_passes_the_probe_or_says_why():
    for d in oclstat.devices():
        assert d.usable or d.problem, d
        assert d.implementation
    assert all(d.usable for d in oclstat.devices(usable=True))
    assert all(not d.usable for d in oclstat.devices(usable=False))


def test_the_probe_builds_and_runs_a_kernel(rt):
    reason, simd = devices.probe(rt.device)
    assert reason == "" and simd in (0, 16, 32, 64)


def test_the_probe_reads_the_vector_registers_the_compiler_targets():
    """pocl's clang defines the target's macros: a CPU with AVX-512F gives 64 bytes where pocl
    compiles for an AVX-512 target (pocl 3.1 names its target in the device name), 32 with
    AVX2; Intel's compiler defines none, and the device's native width stands in. A CPU
    schedule's lanes of a whole register are that many bytes of the type (Runtime.lanes)."""
    extensions = devices.cpu_extensions()
    for d in oclstat.devices(usable=True):
        if d.type != "CPU":
            continue
        reason, probed = devices.probe(oclstat.get_runtime(d.index).device)
        assert reason == ""
        if d.implementation.startswith("pocl"):
            assert probed in (16, 32, 64), d
            if "avx512" in d.name:
                assert probed == 64 and "avx512f" in extensions
            elif "avx2" in extensions:
                assert probed >= 32
            assert d.simd_bytes == probed
        else:
            assert d.simd_bytes == (probed or 4 * oclstat.get_runtime(
                d.index).device.native_vector_width_float)
        rt = oclstat.get_runtime(d.index)
        if not rt.gpu_schedule:
            assert rt.lanes(np.float64, register=True) == min(16, max(1, d.simd_bytes // 8))
            assert rt.lanes(np.float32, register=True) == min(16, max(1, d.simd_bytes // 4))


def test_verdicts_are_cached_per_implementation_driver_and_cpu(tmp_path, monkeypatch):
    monkeypatch.setenv("OCLSTAT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(devices, "_VERDICTS", {})
    first = oclstat.devices()
    cache = tmp_path / "usability.json"
    assert cache.is_file()
    text = cache.read_text()
    assert devices.cpu_model() in text and all(d.driver in text for d in first)

    def no_probe(dev):
        raise AssertionError("the cached verdict should be used")

    monkeypatch.setattr(devices, "_VERDICTS", {})
    monkeypatch.setattr(devices, "probe", no_probe)
    assert [(d.usable, d.problem, d.simd_bytes) for d in oclstat.devices()] == \
        [(d.usable, d.problem, d.simd_bytes) for d in first]
    # a build setting that changes how an implementation compiles is another key: probed again
    monkeypatch.setattr(devices, "_VERDICTS", {})
    monkeypatch.setenv("POCL_EXTRA_BUILD_FLAGS", "-cl-opt-disable")
    with pytest.raises(AssertionError, match="cached verdict"):
        oclstat.devices()


def test_driver_errors_become_one_line_with_the_fix():
    zen5 = ("Build on <pyopencl.Device 'pthread-AMD EPYC'>:\n\nerror: unknown target CPU "
            "'generic'\nnote: valid target CPU values are: ...")
    reason = devices._reason(zen5)
    assert reason == "error: unknown target CPU 'generic'"
    line = devices.fix_for("Portable Computing Language", "3.0-rc2", reason)
    assert "\n" not in line
    assert line.startswith("pocl 3.0-rc2 (PyPI's pocl-binary-distribution, LLVM 14) cannot "
                           "compile for this CPU")
    assert "install Debian's pocl-opencl-icd" in line and "--device intel" in line
    other = devices.fix_for("NVIDIA CUDA", "580.159.04", "CL_OUT_OF_RESOURCES")
    assert other.startswith("NVIDIA CUDA 580.159.04 cannot build kernels here")


def test_newer_versions_sort_first():
    key = devices.version_key
    assert key("3.1+debian") > key("3.0") > key("3.0-rc2") > key("1.8")
    assert key("2026.22.10.0.01_160000") > key("2025.19.4")


# ----------------------------------------------------------------------------- the choice


def _fake_pairs(monkeypatch, specs):
    """(platform, device) stand-ins and their verdicts: specs of (platform, driver, type,
    usable)."""
    cl = _runtime.cl
    kinds = {"CPU": cl.device_type.CPU, "GPU": cl.device_type.GPU}
    pairs, verdicts = [], {}
    for i, (pname, driver, kind, ok) in enumerate(specs):
        plat = types.SimpleNamespace(name=pname)
        dev = types.SimpleNamespace(name=f"dev{i}", driver_version=driver, type=kinds[kind],
                                    platform=plat)
        pairs.append((plat, dev))
        verdicts[id(dev)] = (ok, "" if ok else f"{pname} {driver} cannot build kernels here")
    monkeypatch.setattr(choice, "usability", lambda plat, dev: verdicts[id(dev)])
    return pairs


def test_an_unusable_implementation_is_never_chosen(monkeypatch):
    pocl, intel = "Portable Computing Language", "Intel(R) OpenCL"
    pairs = _fake_pairs(monkeypatch, [(pocl, "3.0-rc2", "CPU", False),
                                      (intel, "2026.2", "CPU", True),
                                      (pocl, "3.1+debian", "CPU", True)])
    # pocl's workloads take the usable (newer) pocl; the others Intel's runtime
    assert choice._best(pairs, "permutation") is pairs[2][1]
    assert choice._best(pairs, None) is pairs[1][1]
    # two pocls: the name means the newer usable one; the older alone is an error
    assert choice._match("pocl", pairs, "device") is pairs[2][1]
    with pytest.raises(oclstat.NoDeviceError, match="3.0-rc2 cannot build"):
        choice._match("0", pairs, "device")
    pairs = _fake_pairs(monkeypatch, [(pocl, "3.0-rc2", "CPU", False),
                                      (intel, "2026.2", "CPU", True)])
    assert choice._best(pairs, "permutation") is pairs[1][1]
    with pytest.raises(_runtime.DeviceUnusableError, match="device='pocl': .*3.0-rc2"):
        choice._match("pocl", pairs, "device")


def test_both_usable_the_newer_version_wins(monkeypatch):
    pocl = "Portable Computing Language"
    pairs = _fake_pairs(monkeypatch, [(pocl, "3.0-rc2", "CPU", True),
                                      (pocl, "3.1+debian", "CPU", True)])
    assert choice._match("pocl", pairs, "device") is pairs[1][1]
    assert choice._best(pairs, "gsea") is pairs[1][1]


def test_a_gpu_still_comes_first_and_nothing_usable_is_a_clear_error(monkeypatch):
    pocl = "Portable Computing Language"
    pairs = _fake_pairs(monkeypatch, [(pocl, "3.1", "CPU", True), ("NVIDIA CUDA", "580", "GPU",
                                                                    True)])
    assert choice._best(pairs, "permutation") is pairs[1][1]
    pairs = _fake_pairs(monkeypatch, [(pocl, "3.0-rc2", "CPU", False)])
    with pytest.raises(_runtime.DeviceUnusableError, match="cannot build kernels"):
        choice._best(pairs, None)


# ----------------------------------------------------------------------------- a real failure


def _broken_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OCLSTAT_DEVICE", "PYOPENCL_CTX")}
    env.update(BROKEN_POCL, OCLSTAT_CACHE_DIR=str(tmp_path / "cache"), PYTHONUNBUFFERED="1")
    if env.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p)
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    return env


def _run(args, env, timeout=600, cwd=None):
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def _pocl_here() -> bool:
    return any("portable computing" in d.platform.lower() for d in oclstat.devices())


RUN_PAGES = """
import sys
from pathlib import Path
import nbclient
from myst_nb.core.read import read_myst_markdown_notebook
for page in sys.argv[1:]:
    nb = read_myst_markdown_notebook(Path(page).read_text(), path=page)
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(Path(page).parent)}}).execute()
    print("ran", page, flush=True)
"""


@pytest.mark.impl
def test_with_pocl_broken_everything_runs_elsewhere(tmp_path):
    """pocl made to refuse every build, in fresh processes with no device named."""
    if not _pocl_here():
        pytest.skip("pocl is not installed")
    env = _broken_env(tmp_path)

    listing = _run(["-m", "oclstat", "devices"], env)
    assert listing.returncode == 0, listing.stderr
    pocl_lines = [ln for ln in listing.stdout.splitlines() if "UNUSABLE: pocl" in ln]
    assert pocl_lines and all("Invalid build option" in ln and "--device intel" in ln
                              for ln in pocl_lines), listing.stdout
    assert "host CPU:" in listing.stdout

    # defaults for every workload skip pocl; the usable list leaves it out
    code = ("import oclstat; from oclstat._runtime import runtime_for, "
            "CPU_PREFERENCE_BY_WORKLOAD as W; "
            "print(sorted({runtime_for(None, w).info.platform for w in (None, *W)})); "
            "print([d.platform for d in oclstat.devices(usable=True)])")
    chosen = _run(["-c", code], env)
    assert chosen.returncode == 0, chosen.stderr
    assert "Portable Computing Language" not in chosen.stdout, chosen.stdout

    # naming it: one line on stderr, the fix in it, no traceback
    a = tmp_path / "a.csv"
    a.write_text("1,2,3\n4,5,6\n")
    for args in (["permtest", str(a), str(a), "--header", "no", "--windows", "8", "--device",
                  "pocl"],
                 ["devices", "--device", "pocl"]):
        named = _run(["-m", "oclstat", *args], env)
        assert named.returncode != 0
        lines = named.stderr.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in named.stderr, named.stderr
        assert re.match(r"oclstat.*(device='pocl'|--device pocl): pocl", lines[0]), lines[0]
        assert "--device intel" in lines[0]

    demo = _run(["-m", "oclstat", "demo"], env)
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "epistasis" in demo.stdout

    pages = [str(p.relative_to(REPO)) for p in [REPO / "docs" / "getting-started.md",
                                                 *sorted((REPO / "docs" / "tutorials").glob(
                                                     "*.md"))]]
    if not Path(sys.executable).parent.joinpath("Rscript").exists() and not _has_rscript():
        pages = [p for p in pages if not p.endswith("r.md")]
    ran = _run(["-c", RUN_PAGES, *pages], env, timeout=1200, cwd=REPO)
    assert ran.returncode == 0, ran.stderr[-4000:]
    assert ran.stdout.count("ran ") == len(pages)


def _has_rscript() -> bool:
    import shutil

    return shutil.which("Rscript") is not None and subprocess.run(
        ["Rscript", "-e", "cat(requireNamespace('reticulate', quietly = TRUE))"],
        capture_output=True, text=True).stdout.strip() == "TRUE"
