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
