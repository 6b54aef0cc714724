"""Progress of long device work, shown where the user looks, always on stderr.

``progress=None`` (auto) shows nothing for the first two seconds of work
(``OCLSTAT_PROGRESS_DELAY``), then

- in a terminal (stderr a tty): a bar redrawn in place;
- in a Jupyter notebook: a notebook bar (tqdm's, where tqdm and ipywidgets are installed: the
  ``notebook`` extra), else the text bar, which Jupyter also redraws in place;
- anywhere else (a log file, a batch job's stderr): one line every 30 s
  (``OCLSTAT_PROGRESS_SECONDS``) with the fraction done, the time taken and the time left, and a
  last line with the whole time.

``progress=True`` shows the same from the start; ``False`` never shows anything, and neither
does auto under ``OCLSTAT_PROGRESS=0`` or the command line's ``--quiet``
(:func:`silenced`). Results never go to stderr, and progress never to stdout.

>>> import io
>>> log = io.StringIO()                          # not a terminal: lines, as in a log file
>>> with Progress(total=4, desc="demo", enabled=True, stream=log) as bar:
...     for _ in range(4):
...         bar.update(1)
>>> print(log.getvalue().splitlines()[-1])       # doctest: +ELLIPSIS
demo: 100% done in ...
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
import time

__all__ = ["Progress", "silenced", "in_notebook", "duration"]

#: Auto progress starts after this much work.
AUTO_DELAY_S = 2.0
#: A log gets a line this often (``OCLSTAT_PROGRESS_SECONDS`` overrides).
LOG_SECONDS = 30.0
#: A terminal bar is redrawn at most this often.
BAR_SECONDS = 0.2

_silenced_depth = [0]


@contextlib.contextmanager
def silenced():
    """Within this block auto progress (``progress=None``) shows nothing: a progress made in
    it stays silent, whichever thread updates it. ``progress=True`` still shows.

    >>> with silenced():
    ...     Progress(total=1)._active(now=1e9)
    False
    """
    _silenced_depth[0] += 1
    try:
        yield
    finally:
        _silenced_depth[0] -= 1


def _auto_silenced() -> bool:
    return _silenced_depth[0] > 0 or os.environ.get("OCLSTAT_PROGRESS", "").strip().lower() in (
        "0", "false", "no", "off")


def _seconds(variable: str, default: float) -> float:
    raw = os.environ.get(variable, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value >= 0 else default


def in_notebook() -> bool:
    """Whether this process is a Jupyter kernel (IPython's ZMQ shell), without importing
    IPython where nothing else has."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:                     # noqa: BLE001 - any IPython state means "no"
        return False
    return type(shell).__name__ == "ZMQInteractiveShell"


def _notebook_bar_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("tqdm", "ipywidgets"))


def duration(seconds: float) -> str:
    """A time as a person reads it in a log.

    >>> duration(42.4), duration(754), duration(12_000)
    ('42 s', '12 min 34 s', '3 h 20 min')
    """
    s = max(0, int(round(seconds)))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"


class Progress:
    """Progress of ``total`` units of work, updated with :meth:`update` (thread-safe) and
    finished by leaving the ``with`` block.

    Parameters
    ----------
    total : float
        The units of work.
    desc : str
        What is being done (the line's or bar's label).
    enabled : bool or None
        None: auto (see the module); True: from the start; False: never.
    stream : file-like, optional
        Where text goes (default ``sys.stderr``); its ``isatty`` chooses a bar or lines.
    clock : callable, optional
        Seconds (``time.perf_counter``); tests pass their own.
    """

    def __init__(self, total: float, desc: str = "", enabled: bool | None = None, stream=None,
                 clock=time.perf_counter):
        self.total = max(float(total), 1e-300)
        self.desc = desc
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.done = 0
        self._start = clock()
        self._last = None              # when the bar or line was last shown
        self._mode = None              # "bar", "lines" or "notebook", chosen when first shown
        self._notebook = None
        self._lock = threading.Lock()
        self._auto_silent = _auto_silenced()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        with self._lock:
            if self._last is None:
                return
            if self._mode == "notebook":
                self._notebook.n = self.done
                self._notebook.close()
            elif self._mode == "bar":
                self._write(self._bar_text(final=True) + "\n")
            else:
                self._write(self._final_line(interrupted=exc_type is not None) + "\n")

    # -- deciding --------------------------------------------------------------------------

    def _active(self, now: float) -> bool:
        if self.enabled is False:
            return False
        if self.enabled is None:
            return (not self._auto_silent
                    and now - self._start >= _seconds("OCLSTAT_PROGRESS_DELAY", AUTO_DELAY_S))
        return True

    def _choose_mode(self) -> str:
        if self.stream is sys.stderr and in_notebook():
            return "notebook" if _notebook_bar_available() else "bar"
        isatty = getattr(self.stream, "isatty", None)
        try:
            return "bar" if isatty is not None and isatty() else "lines"
        except ValueError:                 # a closed stream
            return "lines"

    # -- showing ---------------------------------------------------------------------------

    def update(self, n: float = 1) -> None:
        """Count ``n`` more units done, and show the progress if it is due."""
        with self._lock:
            self.done += n
            now = self.clock()
            if not self._active(now):
                return
            if self._mode is None:
                self._mode = self._choose_mode()
            if self._mode == "notebook":
                self._update_notebook()
            elif self._mode == "bar":
                if self._last is None or now - self._last >= BAR_SECONDS:
                    self._write(self._bar_text())
                    self._last = now
            elif self._last is None or now - self._last >= _seconds("OCLSTAT_PROGRESS_SECONDS",
                                                                   LOG_SECONDS):
                self._write(self._line(now) + "\n")
                self._last = now

    def _update_notebook(self) -> None:
        if self._notebook is None:
            from tqdm.auto import tqdm

            self._notebook = tqdm(total=self.total, desc=self.desc, initial=0, leave=True)
            self._last = self.clock()
        self._notebook.n = self.done
        self._notebook.refresh()

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):      # a closed or full stderr never stops the work
            pass

    def _fraction_and_elapsed(self, now: float | None = None) -> tuple[float, float]:
        return (min(1.0, self.done / self.total),
                (self.clock() if now is None else now) - self._start)

    def _bar_text(self, final: bool = False) -> str:
        frac, elapsed = self._fraction_and_elapsed()
        width = 30
        filled = int(round(frac * width))
        eta = "" if final or frac <= 0 else f", {elapsed * (1 - frac) / frac:.0f} s left"
        return (f"\r{self.desc} [{'#' * filled}{'.' * (width - filled)}] {100 * frac:5.1f}% "
                f"({elapsed:.1f} s{eta})")

    def _line(self, now: float) -> str:
        frac, elapsed = self._fraction_and_elapsed(now)
        left = f", about {duration(elapsed * (1 - frac) / frac)} left" if frac > 0 else ""
        return f"{self.desc}: {100 * frac:.1f}% done after {duration(elapsed)}{left}"

    def _final_line(self, interrupted: bool) -> str:
        frac, elapsed = self._fraction_and_elapsed()
        if interrupted or frac < 1:
            return f"{self.desc}: stopped at {100 * frac:.1f}% after {duration(elapsed)}"
        return f"{self.desc}: 100% done in {duration(elapsed)}"
