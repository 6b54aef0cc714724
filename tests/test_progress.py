"""Progress where users look: a bar in a terminal, a notebook bar in Jupyter, timed lines in a
log; never on stdout; silenced by progress=False, OCLSTAT_PROGRESS=0 and the CLI's --quiet."""

from __future__ import annotations

import io
import re
import sys
import types

import numpy as np
import pytest

import oclstat._progress as progress_module
from oclstat._progress import Progress, silenced


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


def run(total, steps, seconds_per_step, stream, enabled=None, clock=None):
    clock = clock or Clock()
    with Progress(total=total, desc="work", enabled=enabled, stream=stream, clock=clock) as bar:
        for _ in range(steps):
            clock.now += seconds_per_step
            bar.update(total / steps)
    return stream.getvalue()


def test_a_terminal_gets_a_bar_redrawn_in_place():
    text = run(10, 10, 1.0, Terminal())
    assert text.startswith("\rwork [") and "100.0%" in text and text.endswith("\n")
    assert "\n" not in text[:-1]                      # one line, redrawn


def test_a_log_gets_a_line_every_30_seconds_with_the_time_left():
    text = run(100, 100, 5.0, io.StringIO())          # 500 s of work, stderr a file
    lines = text.splitlines()
    assert lines[0] == "work: 1.0% done after 5 s, about 8 min 15 s left"
    assert lines[1] == "work: 7.0% done after 35 s, about 7 min 45 s left"
    assert len(lines) == 1 + (500 - 5) // 30 + 1      # one per 30 s, and the last
    assert lines[-1] == "work: 100% done in 8 min 20 s"
    assert all(re.fullmatch(r"work: [\d.]+% done after .+ left", ln) for ln in lines[:-1])


def test_auto_waits_two_seconds_and_short_work_stays_silent():
    assert run(10, 10, 0.1, io.StringIO()) == ""      # 1 s in all
    assert run(10, 10, 0.1, Terminal()) == ""
    assert run(10, 10, 0.1, io.StringIO(), enabled=True).startswith("work: 10.0% done")


def test_the_interval_and_delay_come_from_the_environment(monkeypatch):
    monkeypatch.setenv("OCLSTAT_PROGRESS_SECONDS", "100")
    monkeypatch.setenv("OCLSTAT_PROGRESS_DELAY", "0")
    lines = run(100, 100, 5.0, io.StringIO()).splitlines()
    assert len(lines) == 1 + (500 - 5) // 100 + 1 and lines[0].startswith("work: 1.0% done")


def test_silenced_by_false_the_environment_and_silenced(monkeypatch):
    assert run(10, 10, 1.0, io.StringIO(), enabled=False) == ""
    with silenced():
        assert run(10, 10, 1.0, io.StringIO()) == ""
        assert run(10, 10, 1.0, io.StringIO(), enabled=True) != ""     # asked for: shown
    assert run(10, 10, 1.0, io.StringIO()) != ""
    monkeypatch.setenv("OCLSTAT_PROGRESS", "0")
    assert run(10, 10, 1.0, Terminal()) == ""


def test_an_interrupted_run_says_where_it_stopped():
    clock, log = Clock(), io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        with Progress(total=10, desc="work", stream=log, clock=clock) as bar:
            clock.now = 40.0
            bar.update(3)
            raise KeyboardInterrupt
    assert log.getvalue().splitlines()[-1] == "work: stopped at 30.0% after 40 s"


def test_a_notebook_gets_a_notebook_bar(monkeypatch):
    made = []

    class FakeBar:
        def __init__(self, total, desc, initial, leave):
            self.total, self.desc, self.n, self.closed, self.refreshed = total, desc, initial, \
                False, 0
            made.append(self)

        def refresh(self):
            self.refreshed += 1

        def close(self):
            self.closed = True

    monkeypatch.setitem(sys.modules, "tqdm.auto", types.SimpleNamespace(tqdm=FakeBar))
    monkeypatch.setattr(progress_module, "in_notebook", lambda: True)
    monkeypatch.setattr(progress_module, "_notebook_bar_available", lambda: True)
    clock, err = Clock(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Progress(total=8, desc="gsva density", clock=clock) as bar:
        for _ in range(8):
            clock.now += 1.0
            bar.update(1)
    assert len(made) == 1 and made[0].total == 8 and made[0].desc == "gsva density"
    assert made[0].n == 8 and made[0].closed and made[0].refreshed == 7   # from 2 s on
    assert err.getvalue() == ""
    # without tqdm and ipywidgets: the text bar, which Jupyter redraws in place
    monkeypatch.setattr(progress_module, "_notebook_bar_available", lambda: False)
    with Progress(total=8, desc="w", clock=clock, enabled=True) as bar:
        bar.update(8)
    assert err.getvalue().startswith("\rw [")


def test_in_notebook_is_false_outside_jupyter():
    assert progress_module.in_notebook() is False


def test_a_command_logs_progress_to_stderr_only(tmp_path, monkeypatch, capsys, rt):
    from oclstat.cli import main

    rng = np.random.default_rng(1)
    np.savetxt(tmp_path / "a.csv", rng.normal(size=(40, 6)), delimiter=",")
    np.savetxt(tmp_path / "b.csv", rng.normal(size=(40, 5)), delimiter=",")
    monkeypatch.setenv("OCLSTAT_PROGRESS_DELAY", "0")
    monkeypatch.setenv("OCLSTAT_PROGRESS_SECONDS", "0")
    args = ["permtest", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--windows", "64",
            "--out", "-"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    logged = [ln for ln in err.splitlines() if re.match(r"permutation_test: .*% done", ln)]
    assert len(logged) >= 2                     # every update (interval 0), then the end
    assert logged[-1].startswith("permutation_test: 100% done in")
    assert "% done" not in out and len(out.splitlines()) == 41            # header + 40 rows
    assert main([*args, "--quiet"]) == 0
    out_quiet, err_quiet = capsys.readouterr()
    assert "% done" not in err_quiet and out_quiet == out


def test_a_jupyter_cell_shows_a_notebook_bar():
    """A real Jupyter kernel (nbclient): the draw's progress is a widget (tqdm's notebook bar),
    nothing of it in the cell's printed output."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for module in ("ipykernel", "ipywidgets", "tqdm"):
        pytest.importorskip(module)
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(
        "import oclstat\n"
        "z = oclstat.random.normal(size=(64, 20000), seed=1, progress=True)\n"
        "print(z.shape)"))
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    view = "application/vnd.jupyter.widget-view+json"
    widgets = [o for o in outputs if view in o.get("data", {})]
    streams = {name: "".join(o.get("text", "") for o in outputs if o.get("name") == name)
               for name in ("stdout", "stderr")}
    assert len(widgets) == 1
    assert streams["stdout"] == "(64, 20000)\n" and "%" not in streams["stderr"]
