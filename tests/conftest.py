"""Shared fixtures: the OpenCL runtime under test, the shared real data, device selection."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import oclstat

REPO = Path(__file__).resolve().parent.parent


def chromium() -> str:
    """Debian's headless browser, for the tests that render pages; skipped where it is absent
    (failed when OCLSTAT_REQUIRE_TOOLS=1, as in CI)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("OCLSTAT_REQUIRE_TOOLS") == "1":
            pytest.fail("chromium is not installed (tools/setup-system.sh installs it)")
        pytest.skip("chromium is not installed")
    return exe
SHARED_DATA = REPO.parent / "shared" / "data"


def pytest_report_header(config):
    """The log names the CPU and every OpenCL implementation's version and state."""
    from oclstat._runtime import host_line

    lines = [host_line()]
    try:
        for d in oclstat.devices():
            state = "usable" if d.usable else f"UNUSABLE ({d.problem})"
            lines.append(f"OpenCL [{d.index}] {d.type} {d.implementation}: {d.name}: {state}")
    except oclstat.NoDeviceError as exc:
        lines.append(f"OpenCL: {exc}")
    lines.append(f"oclstat device (OCLSTAT_DEVICE={os.environ.get('OCLSTAT_DEVICE', '')!r}): "
                 + _default_label())
    return lines


def _default_label() -> str:
    try:
        return str(oclstat.get_runtime().info)
    except oclstat.NoDeviceError as exc:
        return f"none ({exc})"


@pytest.fixture(scope="session")
def rt():
    """The runtime every test uses: OCLSTAT_DEVICE / the best device (pocl on CI)."""
    return oclstat.get_runtime()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` (real data sets); tests that need it skip only when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


def _gpu_runtime():
    for info in oclstat.devices(usable=True):
        if info.type == "GPU" and not info.simulator:
            return oclstat.get_runtime(info.index)
    return None


def _cpu_runtime():
    for info in oclstat.devices(usable=True):
        if info.type == "CPU":
            return oclstat.get_runtime(info.index)
    return None


@pytest.fixture(scope="session")
def gpu_rt():
    rt = _gpu_runtime()
    if rt is None:
        pytest.skip("no GPU OpenCL device here (GPU tests run on the GPU machine)")
    return rt


@pytest.fixture(scope="session")
def cpu_rt():
    rt = _cpu_runtime()
    if rt is None:
        pytest.skip("no CPU OpenCL device (pocl) here")
    return rt


@pytest.fixture
def lanes(monkeypatch):
    """Set OCLSTAT_LANES for one test (kernels are cached per lane count)."""

    def set_lanes(n):
        if n is None:
            monkeypatch.delenv("OCLSTAT_LANES", raising=False)
        else:
            monkeypatch.setenv("OCLSTAT_LANES", str(n))

    return set_lanes


@pytest.fixture(scope="session")
def R():
    """R through rpy2 (``rpy2.robjects``), for comparisons with R's own functions.

    Skips only where R is not installed; where R is installed, rpy2 must be too (``make test``
    installs it), so a missing rpy2 fails instead of silently skipping.
    """
    if shutil.which("R") is None:
        pytest.skip("R is not installed")
    before = os.environ.get("LD_LIBRARY_PATH")
    import rpy2.robjects as ro
    from rpy2.rinterface_lib import openrlib

    # rpy2 sets LD_LIBRARY_PATH to R's library folders (/usr/lib/x86_64-linux-gnu among them)
    # when it starts R. This process has R loaded already; the variable only reaches the
    # subprocesses tests start later, where it makes a pyenv Python load Debian's libpython
    # and fail on "import ssl" (undefined symbol _PyModule_Add). Put it back.
    if before is None:
        os.environ.pop("LD_LIBRARY_PATH", None)
    else:
        os.environ["LD_LIBRARY_PATH"] = before

    # rpy2 routes R's event processing (R_CheckUserInterrupt, called inside R's C loops such as
    # fisher.test's simulation) through a Python callback, which makes those loops ~20x slower
    # than in Rscript. Tests have no R graphics or GUI events to process: switch it off.
    openrlib.rlib.ptr_R_ProcessEvents = openrlib.ffi.NULL
    return ro


def run_with_two_pocl_devices(code: str) -> str:
    """Run ``code`` in a fresh Python with ``POCL_DEVICES="pthread pthread"`` (two CPU devices
    in one process) from the repository root; fail with its stderr unless it exits cleanly.
    Returns its stdout."""
    import subprocess
    import sys

    env = dict(os.environ, POCL_DEVICES="pthread pthread")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout
