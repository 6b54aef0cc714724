"""One answer everywhere: every capability (tests/exercise.py) on every CPU OpenCL
implementation present (pocl and Intel's runtime in CI), in its CPU and its GPU schedule, with
new buffers poisoned, and without fp64. Integers and scores must be bit-identical, other
floating results equal to rounding. Under oclgrind the GPU schedule must run without a single
diagnostic (data races, barrier divergence, out-of-bounds accesses)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from exercise import compare

import oclstat

pytestmark = pytest.mark.impl
TESTS = Path(__file__).resolve().parent
REQUIRED = os.environ.get("OCLSTAT_REQUIRE_IMPLEMENTATIONS", "").split(",")


def _implementations() -> dict[str, int]:
    """The usable implementation behind each name (``pocl``: the newest usable pocl, as the
    name means everywhere in oclstat)."""
    found = {}
    for name in ("pocl", "oclgrind"):
        try:
            found[name] = oclstat.get_runtime(name).info.index
        except oclstat.NoDeviceError:
            pass
    for d in oclstat.devices(usable=True):
        if d.platform.lower().startswith("intel") and d.type == "CPU":
            found.setdefault("intel", d.index)
    return found


IMPLS = _implementations()


def _needs(name):
    if name not in IMPLS:
        if name in REQUIRED:
            pytest.fail(f"{name} is required here (OCLSTAT_REQUIRE_IMPLEMENTATIONS) but missing: "
                        f"{[str(d) for d in oclstat.devices()]}")
        pytest.skip(f"{name} is not installed")
    return IMPLS[name]


def _run(env: dict, device: str) -> dict:
    """The exercise in a fresh process (environment switches are read at device set-up)."""
    out = TESTS / f".exercise-{os.getpid()}-{abs(hash(tuple(sorted(env.items()))))}.npz"
    full = dict(os.environ, OCLSTAT_DEVICE=device, **env)
    for key in ("OCLSTAT_SCHEDULE", "OCLSTAT_NO_FP64", "OCLSTAT_POISON"):
        if key not in env:
            full.pop(key, None)
    proc = subprocess.run([sys.executable, str(TESTS / "exercise.py"), str(out)], env=full,
                          capture_output=True, text=True, timeout=1500)
    try:
        assert proc.returncode == 0, proc.stderr[-4000:]
        with np.load(out) as data:
            result = dict(data)
    finally:
        out.unlink(missing_ok=True)
    result["_stderr"] = proc.stderr
    return result


_CACHE: dict = {}


def run(device: str, **env) -> dict:
    key = (device, tuple(sorted(env.items())))
    if key not in _CACHE:
        _CACHE[key] = _run(env, device)
    return {k: v for k, v in _CACHE[key].items() if k != "_stderr"}


@pytest.mark.parametrize("schedule", ["cpu", "gpu"])
def test_pocl_and_intel_give_the_same_answers(schedule):
    _needs("pocl")
    _needs("intel")
    a = run("pocl", OCLSTAT_SCHEDULE=schedule)
    b = run("intel", OCLSTAT_SCHEDULE=schedule)
    assert any(k.startswith("epistasis") for k in a) and any(k.startswith("gsea") for k in a)
    assert compare(a, b) == []


@pytest.mark.parametrize("device", ["pocl", "intel"])
def test_cpu_and_gpu_schedules_give_the_same_answers(device):
    _needs(device)
    assert compare(run(device, OCLSTAT_SCHEDULE="cpu"), run(device, OCLSTAT_SCHEDULE="gpu")) == []


@pytest.mark.parametrize("schedule", ["cpu", "gpu"])
def test_no_kernel_reads_memory_nobody_wrote(schedule):
    """New buffers filled with 0xFF bytes (OCLSTAT_POISON) change nothing."""
    device = "intel" if "intel" in IMPLS else "pocl"
    _needs(device)
    assert compare(run(device, OCLSTAT_SCHEDULE=schedule),
                   run(device, OCLSTAT_SCHEDULE=schedule, OCLSTAT_POISON="1")) == []


def test_without_fp64_every_capability_runs_in_float32():
    """A device without double precision: the float32 and integer paths give the float32
    results of a device with it (the permutation test's float pairs to their stated accuracy);
    tools/kernel_resources.py compiles the same builds with clang told there is no fp64."""
    device = "intel" if "intel" in IMPLS else "pocl"
    _needs(device)
    full = run(device, OCLSTAT_SCHEDULE="gpu")
    bare = run(device, OCLSTAT_SCHEDULE="gpu", OCLSTAT_NO_FP64="1")
    assert not any("float64" in k for k in bare)
    exact = {k: v for k, v in bare.items() if not k.startswith("permutation")}
    assert compare({k: full[k] for k in exact}, exact) == []
    for k in ("permutation.pvalue", "permutation.null", "permutation.windows"):
        np.testing.assert_allclose(bare[k], full[k], rtol=3 * 13 * 2.0**-24, atol=1e-300)


def test_oclgrind_finds_nothing_in_the_gpu_schedule():
    """Every kernel in its GPU schedule under oclgrind with its data-race checks on (barrier
    divergence and out-of-bounds checks are always on): not one diagnostic, and the answers of
    the real implementations."""
    _needs("oclgrind")
    env = {"OCLSTAT_SCHEDULE": "gpu", "OCLGRIND_DATA_RACES": "1"}
    key = ("oclgrind", tuple(sorted(env.items())))
    if key not in _CACHE:
        _CACHE[key] = _run(env, "oclgrind")
    stderr = _CACHE[key]["_stderr"]
    assert "Oclgrind" not in stderr and "error" not in stderr.lower(), stderr[-4000:]
    other = "intel" if "intel" in IMPLS else "pocl"
    _needs(other)
    assert compare(run("oclgrind", **env), run(other, OCLSTAT_SCHEDULE="gpu")) == []


_LANES_UNDER_OCLGRIND = """
import numpy as np, oclstat
from oclstat._fisher import opencl as fo
rt = oclstat.get_runtime("oclgrind")
x = np.array([[3, 1, 4, 0], [1, 5, 9, 2], [2, 6, 5, 3]])
one = [int(oclstat.fisher_sim(x, n_resamples=b, seed=2, device=rt).count) for b in (5, 37)]
fo._lanes = lambda *args: 4
lanes = [int(oclstat.fisher_sim(x, n_resamples=b, seed=2, device=rt).count) for b in (5, 37)]
print(one, lanes)
"""


def test_the_fisher_lanes_kernel_runs_clean_under_oclgrind():
    """pocl's kernel of several Fisher streams per work-item (fisher_rcont2_count_lanes: its
    gathers of log-factorials, padding lanes, a last round cut short) under oclgrind's
    out-of-bounds checks: not one diagnostic, and the one-stream kernel's counts."""
    _needs("oclgrind")
    env = dict(os.environ, OCLSTAT_SCHEDULE="cpu")
    env.pop("OCLSTAT_DEVICE", None)
    proc = subprocess.run([sys.executable, "-c", _LANES_UNDER_OCLGRIND], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Oclgrind" not in proc.stderr and "error" not in proc.stderr.lower(), \
        proc.stderr[-4000:]
    one, lanes = proc.stdout.strip().split("] [")
    assert one + "]" == "[" + lanes, proc.stdout
