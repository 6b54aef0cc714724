"""Environment switches read at each use (see the package docstring)."""

from __future__ import annotations

import os


def flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def schedule_setting() -> str:
    """``OCLSTAT_SCHEDULE``: "auto" (by device type), "cpu" or "gpu"."""
    value = os.environ.get("OCLSTAT_SCHEDULE", "").strip().lower() or "auto"
    if value not in ("auto", "cpu", "gpu"):
        raise ValueError(f"OCLSTAT_SCHEDULE must be auto, cpu or gpu, got {value!r}")
    return value
