"""ICD registration at import: OpenCL implementations installed from PyPI made visible to the
ICD loader before pyopencl first lists platforms, then pyopencl itself.

pocl and oclgrind from PyPI register themselves in pyopencl's own ICD directory. Intel's CPU
runtime (``pip install "oclstat[intel]"``, the packages ``intel-opencl-rt`` and
``intel-cmplr-lib-rt``) installs ``lib/libintelocl.so`` into the environment; at import, this
module points ``OCL_ICD_VENDORS`` at a directory holding its ICD file and copies of the
system's, so nothing already registered is hidden. ``OCLSTAT_REGISTER_ICDS=0`` skips it. ``cl``
is pyopencl (None, with ``IMPORT_ERROR`` set, where it cannot be imported).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import site
import sys
import tempfile
import warnings
from pathlib import Path

#: ICD libraries that PyPI packages install into an environment's ``lib/`` folder.
_PIP_ICD_LIBRARIES = ("libintelocl.so",)


def _pip_icd_libraries() -> list[Path]:
    """The OpenCL implementations installed from PyPI into this environment (or the user's)."""
    bases = [Path(sys.prefix)]
    with contextlib.suppress(Exception):
        bases.append(Path(site.getuserbase()))
    found = []
    for base in bases:
        for name in _PIP_ICD_LIBRARIES:
            lib = base / "lib" / name
            if lib.is_file() and lib.resolve() not in {f.resolve() for f in found}:
                found.append(lib)
    return found


def _write_atomically(path: Path, text: str) -> None:
    if path.is_file() and path.read_text() == text:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def register_pip_icds() -> Path | None:
    """Make the ICD loader see OpenCL implementations installed from PyPI (see the module
    docstring). Returns the vendors directory it set up, or None when nothing was needed.
    Must run before pyopencl first lists platforms; importing oclstat does it."""
    if os.environ.get("OCLSTAT_REGISTER_ICDS", "1").strip() == "0":
        return None
    libs = _pip_icd_libraries()
    current = os.environ.get("OCL_ICD_VENDORS", "").strip()
    if not libs or current.endswith(".icd"):       # the user named one ICD file: respect it
        return None
    source = Path(current or "/etc/OpenCL/vendors")
    existing = {}
    if source.is_dir():
        for icd in sorted(source.glob("*.icd")):
            with contextlib.suppress(OSError):
                existing[icd.name] = icd.read_text()
    wanted = [lib for lib in libs
              if not any(lib.name in text for text in existing.values())]
    if not wanted:
        return None
    key = hashlib.sha1(f"{source}|{existing}|{wanted}".encode()).hexdigest()[:16]
    target = Path(tempfile.gettempdir()) / f"oclstat-icd-{os.getuid()}-{os.getpid()}-{key}"
    try:
        target.mkdir(mode=0o755, exist_ok=True)
        for name, text in existing.items():
            _write_atomically(target / name, text)
        for lib in wanted:
            _write_atomically(target / f"oclstat-{lib.stem}.icd", f"{lib.resolve()}\n")
    except OSError as exc:
        warnings.warn(f"oclstat could not register {', '.join(map(str, wanted))} with the "
                      f"OpenCL ICD loader ({exc})", RuntimeWarning, stacklevel=2)
        return None
    _ICD_DIR.update(path=target, previous=os.environ.get("OCL_ICD_VENDORS"))
    os.environ["OCL_ICD_VENDORS"] = str(target)
    return target


#: The vendors directory this process made (removed once the ICD loader has read it).
_ICD_DIR: dict = {}


def release_icd_dir() -> None:
    """After the ICD loader has listed the platforms (it reads the vendors directory once per
    process): put OCL_ICD_VENDORS back as it was, so child processes register again, and
    remove the directory, so nothing is left in the temporary folder."""
    path = _ICD_DIR.pop("path", None)
    if path is None:
        return
    previous = _ICD_DIR.pop("previous", None)
    if os.environ.get("OCL_ICD_VENDORS") == str(path):
        if previous is None:
            os.environ.pop("OCL_ICD_VENDORS", None)
        else:
            os.environ["OCL_ICD_VENDORS"] = previous
    shutil.rmtree(path, ignore_errors=True)


register_pip_icds()

try:  # pyopencl is a hard dependency, but give a helpful message if it is missing
    import pyopencl as cl

    IMPORT_ERROR: Exception | None = None
except ImportError as exc:  # pragma: no cover - exercised only without pyopencl
    cl = None
    IMPORT_ERROR = exc
