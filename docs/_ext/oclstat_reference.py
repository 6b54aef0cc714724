"""Generate the API and command-line reference pages of the documentation from the package.

At ``builder-inited`` this writes ``docs/api/*.rst`` (one page per group of
:data:`GROUPS`, every name of ``oclstat.__all__`` documented exactly once, the members of the
public modules under them) and ``docs/cli.rst`` (every command of ``oclstat.cli.COMMANDS``
with its ``--help``). A name of ``oclstat.__all__`` that no group lists stops the build, so the
reference cannot fall behind the package. The generated files are not committed.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path

import oclstat

#: (page, title, introduction, names of oclstat.__all__), in the order of the API index.
GROUPS = [
    ("devices", "Devices and errors",
     "Which OpenCL devices are present, the runtime a capability runs on, and the errors "
     "oclstat raises about them.",
     ["devices", "get_runtime", "Runtime", "DeviceInfo", "NoDeviceError",
      "DeviceUnusableError", "DeviceCapabilityError", "KernelBuildError", "KernelBuildWarning"]),
    ("random", "Random streams", "clRNG's MRG31k3p streams and the draws made from them.",
     ["random"]),
    ("fisher", "Fisher's exact test", "R's ``fisher.test``: exact, and Monte Carlo on the device.",
     ["fisher_test", "FisherTestResult", "fisher_sim", "FisherSimResult", "fisher_sim_batch",
      "FisherSimBatchResult", "random_table"]),
    ("permutation", "Exact permutation test", "Green's exact two-sample permutation test.",
     ["permutation_test", "PermutationTestResult"]),
    ("fields", "Gaussian random fields and batched linear algebra",
     "Matérn covariances, batched LDLᵀ and Cholesky factors, simulated fields, special "
     "functions.",
     ["matern_cov", "ldl_batch", "cholesky_batch", "LdlResult", "multiply_lower_diag",
      "simulate_fields", "plot_fields", "solve_triangular_batch", "crossprod_batch",
      "gemm_batch", "fields", "linalg", "special"]),
    ("spatial", "Gaussian spatial models",
     "Batched likelihoods, maximum-likelihood fits and kriging of linear models with a Matérn "
     "field.",
     ["matern_loglik", "MaternLoglik", "fit_matern", "MaternFit", "predict_matern",
      "plot_profiles", "plot_kriging", "plot_qq", "spatial"]),
    ("gsea", "Gene set enrichment",
     "GSEA with phenotype permutations, preranked GSEA (fgsea's method), over-representation "
     "(fgsea's fora), gene set co-regulation (fgsea's geseca), reports and the readers of "
     "Broad's file formats.",
     ["gsea", "GseaResult", "gsea_prerank", "PrerankResult", "collapse_pathways",
      "CollapsedPathways", "ora", "OraResult", "geseca", "GesecaResult", "plot_enrichment",
      "report", "io"]),
    ("singlesample", "Single-sample enrichment",
     "ssGSEA, GSVA, AUCell, UCell, z-score and PLAGE scores per sample, and decoupler's "
     "univariate linear model (ULM) with weighted gene sets.",
     ["ssgsea", "gsva", "aucell", "ucell", "zscore", "plage", "ulm", "UlmResult"]),
    ("epistasis", "Epistasis",
     "Exhaustive 2nd- to 4th-order searches, PLINK's pair tests and the genotype readers.",
     ["epistasis", "EpistasisResult", "PairScanResult", "epistasis_merge", "genotypes"]),
]


def _entry(qualname: str, obj) -> str:
    if inspect.isclass(obj):
        return f".. autoclass:: {qualname}\n   :members:\n   :inherited-members: Exception\n"
    if callable(obj):
        return f".. autofunction:: {qualname}\n"
    return f".. autodata:: {qualname}\n   :no-value:\n"


def _heading(text: str, char: str) -> str:
    return f"{text}\n{char * len(text)}\n\n"


def api_pages() -> dict[str, str]:
    """The API pages by file name (``index`` and one per group)."""
    public = [n for n in oclstat.__all__ if n != "__version__"]
    grouped = [n for *_, names in GROUPS for n in names]
    missing = sorted(set(public) - set(grouped))
    if missing:
        raise RuntimeError(f"docs/_ext/oclstat_reference.py: GROUPS lacks {missing}")
    seen: dict[int, str] = {}       # id(object) -> the name it is documented under
    for name in public:             # top-level names are the canonical ones
        obj = getattr(oclstat, name)
        if not inspect.ismodule(obj):
            seen[id(obj)] = f"oclstat.{name}"
    pages = {}
    index = [_heading("API reference", "="),
             "Every public name of ``oclstat`` (``oclstat.__all__``), by capability; the "
             "public modules' own members follow their capability's functions.\n\n",
             ".. toctree::\n   :maxdepth: 2\n\n"]
    for page, title, intro, names in GROUPS:
        index.append(f"   {page}\n")
        text = [_heading(title, "="), intro + "\n\n"]
        for name in names:
            obj = getattr(oclstat, name)
            if not inspect.ismodule(obj):
                text.append(_entry(f"oclstat.{name}", obj) + "\n")
                continue
            text.append(f".. _api-module-{name}:\n\n")
            text.append(_heading(f"oclstat.{name}", "-"))
            text.append(f".. automodule:: oclstat.{name}\n   :no-members:\n\n")
            again = []
            for member in getattr(obj, "__all__", []):
                value = getattr(obj, member)
                key = id(value)
                if key in seen and (callable(value) or inspect.isclass(value)):
                    again.append(f"``{member}`` (:py:obj:`{seen[key]}`)")
                    continue
                seen[key] = f"oclstat.{name}.{member}"
                text.append(_entry(f"oclstat.{name}.{member}", value) + "\n")
            if again:
                text.append(f"Also in ``oclstat.{name}``: " + ", ".join(again) + ".\n\n")
        pages[page] = "".join(text)
    pages["index"] = "".join(index)
    return pages


def cli_page() -> str:
    """Every command of the command line with its ``--help``."""
    from oclstat.cli import COMMANDS, build_parser

    os.environ["COLUMNS"] = "96"            # argparse wraps to the terminal's width
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = [_heading("Command line", "="),
            "``oclstat COMMAND --help`` prints these. Every command takes ``--device`` and "
            "``--quiet`` (no progress on stderr); results go to stdout or to the files named, "
            "progress and messages to stderr.\n\n",
            ".. code-block:: text\n\n"]
    text += [f"   {line}".rstrip() + "\n" for line in parser.format_help().splitlines()]
    text.append("\n")
    for command in COMMANDS:
        text.append(_heading(f"oclstat {command.NAME}", "-"))
        text.append(".. code-block:: text\n\n")
        help_text = sub.choices[command.NAME].format_help()
        text += [f"   {line}".rstrip() + "\n" for line in help_text.splitlines()]
        text.append("\n")
    return "".join(text)


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:   # unchanged pages are not rebuilt
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def generate(app) -> None:
    src = Path(app.srcdir)
    for page, text in api_pages().items():
        _write(src / "api" / f"{page}.rst", text)
    _write(src / "cli.rst", cli_page())


def setup(app):
    app.connect("builder-inited", generate)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
