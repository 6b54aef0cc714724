"""The R package rbridge/ installed with ``R CMD INSTALL`` and its testthat suite run for real:
every R function against the Python function it calls, on the same seed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import REPO

pytestmark = pytest.mark.r


@pytest.fixture(scope="module")
def r_library(tmp_path_factory):
    if shutil.which("R") is None or shutil.which("Rscript") is None:
        pytest.skip("R is not installed")
    check = subprocess.run(["Rscript", "-e", "cat(requireNamespace('reticulate', quietly=TRUE) "
                            "&& requireNamespace('testthat', quietly=TRUE))"],
                           capture_output=True, text=True)
    if check.stdout.strip() != "TRUE":
        pytest.skip("R packages reticulate and testthat are not installed")
    lib = tmp_path_factory.mktemp("rlib")
    out = subprocess.run(["R", "CMD", "INSTALL", "-l", str(lib), str(REPO / "rbridge")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return lib


def _env(lib):
    env = dict(os.environ)
    env["RETICULATE_PYTHON"] = sys.executable
    env["R_LIBS"] = os.pathsep.join(filter(None, [str(lib), env.get("R_LIBS", "")]))
    if env.get("PYTHONPATH"):   # running from the source tree: make the entries absolute
        env["PYTHONPATH"] = os.pathsep.join(os.path.abspath(p)
                                            for p in env["PYTHONPATH"].split(os.pathsep))
    return env


def test_testthat_suite(r_library):
    script = ("library(testthat); library(oclstat); "
              "res <- test_dir('rbridge/tests/testthat', reporter = 'summary', "
              "stop_on_failure = TRUE, stop_on_warning = TRUE); "
              "df <- as.data.frame(res); "
              "if (any(df$skipped)) stop('tests were skipped: the Python side is missing')")
    out = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True,
                         cwd=REPO, env=_env(r_library), timeout=900)
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-6000:]


def test_clear_message_without_python(r_library, tmp_path):
    env = _env(r_library)
    env["RETICULATE_PYTHON"] = str(tmp_path / "no-such-python")
    out = subprocess.run(["Rscript", "-e", "library(oclstat); createStreams(2)"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode != 0
    assert "the Python package 'oclstat' cannot be imported" in out.stderr
    assert "RETICULATE_PYTHON" in out.stderr


@pytest.mark.slow
def test_r_cmd_check(r_library, tmp_path):
    """R CMD check of the package (documentation, examples and tests, with the Python)."""
    build = subprocess.run(["R", "CMD", "build", str(REPO / "rbridge")], cwd=tmp_path,
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-2000:]
    tarball = next(tmp_path.glob("oclstat_*.tar.gz"))
    check = subprocess.run(["R", "CMD", "check", "--no-manual", tarball.name], cwd=tmp_path,
                           capture_output=True, text=True, env=_env(r_library), timeout=900)
    log = check.stdout + check.stderr
    assert check.returncode == 0, log[-4000:]
    assert "Status: OK" in log, log[-4000:]


@pytest.mark.slow
def test_r_cmd_check_as_cran(tmp_path):
    """R CMD build (vignettes built) and R CMD check --as-cran on the tarball: no error, no
    warning, no note. There is no network here: the remote and clock checks are off and the
    package index is an empty local repository. A packaging check, the same on every device:
    it runs in the pocl pass only."""
    if os.environ.get("OCLSTAT_DEVICE", "pocl") != "pocl":
        pytest.skip("R CMD check runs once, in the pocl pass")
    if shutil.which("R") is None:
        pytest.skip("R is not installed")
    need = "c('reticulate', 'testthat', 'knitr', 'markdown')"
    have = subprocess.run(["Rscript", "-e", f"cat(all(sapply({need}, requireNamespace, "
                           "quietly = TRUE)))"], capture_output=True, text=True)
    if have.stdout.strip() != "TRUE":
        pytest.skip("R packages for building the vignettes are not installed")
    repo = tmp_path / "repo" / "src" / "contrib"
    repo.mkdir(parents=True)
    (repo / "PACKAGES").write_text("")
    profile = tmp_path / "Rprofile"
    profile.write_text(f'options(repos = c(CRAN = "file://{tmp_path / "repo"}"))\n')
    env = _env(tmp_path / "nolib")
    env.update(R_PROFILE_USER=str(profile), _R_CHECK_CRAN_INCOMING_REMOTE_="false",
               _R_CHECK_CRAN_INCOMING_="false", _R_CHECK_SYSTEM_CLOCK_="false",
               _R_CHECK_FUTURE_FILE_TIMESTAMPS_="false")
    build = subprocess.run(["R", "CMD", "build", str(REPO / "rbridge")], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    tarball = next(tmp_path.glob("oclstat_*.tar.gz"))
    check = subprocess.run(["R", "CMD", "check", "--as-cran", "--no-manual", tarball.name],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1200)
    log = (tmp_path / "oclstat.Rcheck" / "00check.log").read_text()
    assert check.returncode == 0, log[-6000:]
    assert "Status: OK" in log, log[-6000:]
