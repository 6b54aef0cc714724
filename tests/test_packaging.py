"""The installed package carries its OpenCL sources (cl_kernels/ inside the wheel)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

import oclstat
from oclstat import _runtime


def test_installed_package_uses_its_own_kernels():
    pkg = Path(oclstat.__file__).resolve().parent
    if pkg.parent == REPO:
        pytest.skip("running from the source tree (see test_cli for that mode)")
    assert _runtime.kernel_dir() == pkg / "cl_kernels"


@pytest.mark.slow
def test_wheel_contains_the_kernels(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        capture_output=True, text=True, timeout=600,
    )
    if res.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{res.stdout}\n{res.stderr}")
    wheel = next(tmp_path.glob("oclstat-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "oclstat/cl_kernels/random.cl" in names
    assert "oclstat/cl_kernels/include/oclstat/mrg31k3p.clh" in names
    assert "oclstat/cl_kernels/epistasis_tc.cu" in names
    assert "oclstat/random.py" in names
    assert not any(n.startswith(("tests/", "cl_kernels/")) for n in names)
    # the wheel installed into a folder whose path has a space, the demo run from there: the
    # kernels are found through the installed package, not the checkout
    home = tmp_path / "a folder with spaces"
    site = home / "site packages"
    res = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                          str(site), str(wheel)], capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    env = {**os.environ, "PYTHONPATH": str(site)}
    probe = ("import oclstat, oclstat._runtime as r; print(oclstat.__file__); "
             "print(r.kernel_dir())")
    out = subprocess.run([sys.executable, "-c", probe], cwd=home, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [str(site / "oclstat" / "__init__.py"),
                                       str(site / "oclstat" / "cl_kernels")]
    demo = subprocess.run([sys.executable, "-m", "oclstat", "demo", "--section", "fisher",
                           "--section", "fields"], cwd=home, env=env, capture_output=True,
                          text=True, timeout=600)
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr[-2000:]
    assert "fisher" in demo.stdout.lower()
