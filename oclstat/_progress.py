"""A small text progress bar for long device work.

``progress=None`` (auto) draws only when stderr is a terminal and the work has already taken
about two seconds; ``True`` always draws; ``False`` never does.

>>> with Progress(total=4, desc="demo", enabled=False) as bar:
...     for _ in range(4):
...         bar.update(1)
>>> bar.done
4
"""

from __future__ import annotations

import sys
import time

AUTO_DELAY_S = 2.0


class Progress:
    def __init__(self, total: float, desc: str = "", enabled: bool | None = None, stream=None):
        self.total = max(float(total), 1e-300)
        self.desc = desc
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._start = time.perf_counter()
        self._last_draw = 0.0
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self._drawn:
            self._draw(final=True)
            self.stream.write("\n")
            self.stream.flush()

    def _should_draw(self, now: float) -> bool:
        if self.enabled is False:
            return False
        if self.enabled is None:
            isatty = getattr(self.stream, "isatty", lambda: False)
            if not isatty() or now - self._start < AUTO_DELAY_S:
                return False
        return now - self._last_draw >= 0.2 or not self._drawn

    def update(self, n: float = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if self._should_draw(now):
            self._draw()
            self._last_draw = now

    def _draw(self, final: bool = False) -> None:
        frac = min(1.0, self.done / self.total)
        elapsed = time.perf_counter() - self._start
        width = 30
        filled = int(round(frac * width))
        eta = "" if final or frac <= 0 else f", {elapsed * (1 - frac) / frac:.0f} s left"
        line = (
            f"\r{self.desc} [{'#' * filled}{'.' * (width - filled)}] {100 * frac:5.1f}% "
            f"({elapsed:.1f} s{eta})"
        )
        self.stream.write(line)
        self.stream.flush()
        self._drawn = True
