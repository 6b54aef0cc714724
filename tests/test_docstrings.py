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
