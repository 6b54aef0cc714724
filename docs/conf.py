"""Sphinx configuration of oclstat's documentation site (``make docs``).

The API and command-line references are generated from the package at build time
(``docs/_ext/oclstat_reference.py``); the tutorials are MyST notebooks executed by myst-nb on
every build, on the shared real data where ``../shared/data`` is beside the checkout.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# the package documented and run is the checkout's, here and in the tutorials' kernels
sys.path[:0] = [str(ROOT), str(DOCS / "_ext")]
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(ROOT), os.environ.get("PYTHONPATH", "")]))

import oclstat  # noqa: E402

project = "oclstat"
author = "the oclstat developers"
copyright = "2026, the oclstat developers"
release = version = oclstat.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "numpydoc",
    "myst_nb",
    "oclstat_reference",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints", "README.md"]
root_doc = "index"

# numpydoc: the docstrings are numpydoc; class pages list their members themselves
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"

# The tutorials read the shared real data where ../shared/data is beside the checkout (as in
# CI), else they make small data of the same kind; the kernels they run in inherit this.
SHARED = ROOT.parent / "shared" / "data"
if "OCLSTAT_SHARED_DATA" not in os.environ and SHARED.is_dir():
    os.environ["OCLSTAT_SHARED_DATA"] = str(SHARED)
DATA_KIND = "shared" if os.environ.get("OCLSTAT_SHARED_DATA") else "made"

# the tutorials run on every build (cached per notebook text and data kind); a cell that
# raises fails the build
nb_execution_mode = "cache"
nb_execution_cache_path = str(ROOT / "build" / "docs" / f".jupyter_cache-{DATA_KIND}")
nb_execution_timeout = 600
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_merge_streams = True
# the R tutorial runs where R, Rscript and the R package's dependencies are present
if not shutil.which("Rscript") or os.environ.get("OCLSTAT_DOCS_R") == "0":
    nb_execution_excludepatterns = ["tutorials/r.md"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# doctests of the docstrings (``sphinx-build -b doctest``)
# (the examples use the names of the module they document, as test_docstrings.py runs them)
doctest_global_setup = "\n".join(
    ["import numpy as np", "import pandas as pd", "import oclstat", "from oclstat import *"]
    + [f"from oclstat.{m} import *" for m in ("random", "io", "fields", "genotypes", "spatial",
                                              "special", "linalg", "report")])

html_theme = "furo"
html_title = f"oclstat {release}"
html_static_path = ["_static"]
# counts the images that decoded, for the browser test (tests/test_docs.py)
html_js_files = ["render-check.js"]
