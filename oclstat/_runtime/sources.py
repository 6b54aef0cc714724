"""Kernel sources on disk: ``cl_kernels/`` found inside the package, headers inlined."""

from __future__ import annotations

import re
from pathlib import Path


def kernel_dir() -> Path:
    """The kernel sources: ``oclstat/cl_kernels`` (in a source tree a link to the top-level
    ``cl_kernels/``, in a wheel the copy the wheel carries): one lookup either way."""
    kdir = Path(__file__).resolve().parent.parent / "cl_kernels"
    if not (kdir / "include" / "oclstat").is_dir():
        raise FileNotFoundError(f"oclstat's kernel sources are missing: {kdir} (a broken "
                                "install; reinstall oclstat)")
    return kdir


_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](oclstat/[\w.]+)[>"]', re.M)


def kernel_source(filename: str) -> str:
    """The source of ``cl_kernels/<filename>`` with oclstat's headers written in place of their
    ``#include`` lines (``#line`` directives keep the compiler's file names and lines). No
    include path reaches the compiler, so a folder with a space in its name cannot break a
    build, and the source that is compiled (and cached) holds every header it uses."""
    kdir = kernel_dir()

    def expand(name: str, path: Path, depth: int) -> str:
        if depth > 16:
            raise RecursionError(f"{name}: headers include each other too deeply")
        text = path.read_text()
        out, pos = [], 0
        for m in _INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append(text[pos:m.start()])
            header = m.group(1)
            out.append(f'#line 1 "{header}"\n{expand(header, kdir / "include" / header, depth + 1)}'
                       f'\n#line {line + 1} "{name}"')
            pos = m.end()
        out.append(text[pos:])
        return "".join(out)

    return expand(filename, kdir / filename, 0)
