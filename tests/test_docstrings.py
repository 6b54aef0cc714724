"""Every docstring example in the package runs and prints what it claims."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import oclstat

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(oclstat.__path__, "oclstat.")
    if m.name != "oclstat.__main__"
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(module, optionflags=flags, verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"


SECTIONS = ("Parameters", "Returns", "See Also", "Notes", "References", "Examples")


def _public_functions():
    import inspect

    faces = {"": oclstat, "random.": oclstat.random, "special.": oclstat.special,
             "io.": oclstat.io, "fields.": oclstat.fields, "genotypes.": oclstat.genotypes,
             "report.": oclstat.report}
    out = {}
    for prefix, module in faces.items():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                out[prefix + name] = obj
    return out


@pytest.mark.parametrize("name", sorted(_public_functions()))
def test_public_functions_have_numpydoc_sections(name):
    import inspect

    fn = _public_functions()[name]
    doc = inspect.getdoc(fn) or ""
    wanted = [s for s in SECTIONS
              if not (s == "Parameters" and not inspect.signature(fn).parameters)]
    missing = [s for s in wanted if f"\n{s}\n{'-' * len(s)}\n" not in f"\n{doc}\n"]
    assert not missing, f"{name}: docstring lacks {missing}"
