"""Every benchmark script still imports and parses its arguments (they are not run in CI:
speed is measured by hand, but a benchmark broken by a refactor must not wait for that)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = sorted((Path(__file__).resolve().parents[1] / "benchmarks").glob("bench_*.py"))


def test_there_are_benchmarks():
    assert len(BENCHMARKS) >= 10


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_benchmark_answers_help(script):
    out = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "usage" in out.stdout.lower()


def test_every_benchmark_names_the_cpu_and_each_implementation():
    """What a ratio depends on is printed beside it: the CPU's model and vector extensions and
    every OpenCL implementation's version, from Python's benchmarks (_common.host_lines, which
    every bench_*.py prints) and from R's (the bridge's host_summary)."""
    import oclstat
    from oclstat._rbridge import host_summary
    from oclstat._runtime import cpu_extensions, cpu_model

    sys.path.insert(0, str(BENCHMARKS[0].parent))
    try:
        import _common
    finally:
        sys.path.pop(0)
    for text in ("\n".join(_common.host_lines()), host_summary()):
        assert cpu_model() in text
        assert " ".join(cpu_extensions()) in text
        for d in oclstat.devices():
            assert d.implementation in text
    for script in BENCHMARKS:
        source = script.read_text()
        assert "host_lines()" in source or "header(" in source, script.name
