"""Modules a command will need later, imported on a thread while it does other work.

A pair scan needs scipy.special only when it writes its first p-values, after the genotypes
are encoded and the first blocks scored; importing it then would add its whole import time
(about 0.1 s) to the command. :func:`prefetch` starts the import at once on a thread: the
later ``import`` finds the module loaded, or waits for the thread (Python's import locks are
per module), never imports twice. The thread is not a daemon, so the interpreter never exits
half-way through an import.

>>> prefetch("json")
>>> import json
"""

from __future__ import annotations

import importlib
import threading

__all__ = ["prefetch"]


def prefetch(*names: str) -> None:
    """Import the modules ``names`` on a background thread (errors are left to the import
    that needs the module)."""
    def load():
        for name in names:
            try:
                importlib.import_module(name)
            except Exception:       # noqa: BLE001 - the caller's own import will raise it
                pass

    threading.Thread(target=load, name="oclstat-prefetch").start()
