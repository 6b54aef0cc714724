"""The progress bar: silent by default off a terminal, drawn when asked."""

from __future__ import annotations

import io

from oclstat._progress import Progress


def test_drawn_when_enabled():
    buf = io.StringIO()
    with Progress(total=10, desc="work", enabled=True, stream=buf) as bar:
        for _ in range(10):
            bar.update(1)
    text = buf.getvalue()
    assert "work [" in text and "100.0%" in text and text.endswith("\n")


def test_silent_when_disabled_or_not_a_terminal():
    for enabled in (False, None):
        buf = io.StringIO()
        with Progress(total=5, enabled=enabled, stream=buf) as bar:
            bar.update(5)
        assert buf.getvalue() == ""
