"""One vocabulary: every public signature, every command-line flag and every R formal agrees
with the table of names in oclstat._vocabulary; the R package's NAMESPACE and Rd files are
generated from its roxygen comments; both R bridges offer the same functions."""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
from pathlib import Path

import pytest

import oclstat
from oclstat import _vocabulary as V
from oclstat._radapters import ADAPTERS, INTERNAL
from oclstat.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import rdoc  # noqa: E402

#: Exported R functions that are about the R package itself, not oclstat's functions.
R_PACKAGE_ONLY = {"install_oclstat", "oclstat_available", "setBaseCreator", "createStreamsCpu",
                  "createStreamsGpu", "plotEnrichment", "plotGseaTable",
                  # fgsea's own names (rbridge/R/fgsea.R), over the fgseaGpu adapter or in R
                  "fgsea", "fgseaMultilevel", "fgseaSimple", "calcGseaStat",
                  "calcGseaStatCumulative", "multilevelError", "gmtPathways",
                  "writeGmtPathways", "collapsePathwaysORA", "plotEnrichmentData",
                  "fgseaLabel", "gesecaSimple", "plotCoregulationProfile", "plotGesecaTable",
                  # gpuR's and clrng's device functions (rbridge/R/devices.R)
                  "detectGPUs", "listContexts", "setContext", "currentDevice",
                  "currentPlatform", "gpuInfo", "deviceHasDouble", "get_system_info",
                  # gpuRandom's names masking stats' (rbridge/R/gpurandom.R)
                  "runif", "rnorm", "rexp", "qqnorm",
                  # gpuRandom's profiles over getProfLogL's pieces (rbridge/R/profiles.R)
                  "profVariance", "Prof1dBetas", "Prof2dBetas", "prof2dCov",
                  "prof1dCov", "likfitLgmCov1d",
                  # gpuRandom's grids and its functions around a fit, over getProfLogL
                  # (rbridge/R/profilegrids.R, lgmcurvature.R)
                  "sd_Range", "likfitLgmCov2d", "ParamsFromLgm", "getHessianNolog",
                  "configParams", "configMidPoint", "configFirstStep",
                  # gpuRandom's parameter table and its in-place backends, refused with
                  # oclstat's forms (rbridge/R/fields.R, spatial.R)
                  "maternGpuParam", "gemmBatch2backend", "multiplyLowerBatchBackend",
                  # GSVA 2's parameter objects and gsva(param), over the GSVA methods'
                  # adapters (rbridge/R/gsva2.R)
                  "gsvaParam", "ssgseaParam", "plageParam", "zscoreParam", "gsva"}
#: Sub-commands that are not one function.
CLI_ONLY_COMMANDS = {"demo"}
#: Argument names that were replaced, and by what: none may appear in a signature.
RETIRED = {"n_perm": "n_resamples", "devices": "device", "nperm": "n_resamples",
           "n_permutations": "n_resamples", "B": "n_resamples", "rng": "seed",
           "random_state": "seed"}
#: Functions whose first argument is what they are about (so it may be positional).
SUBJECT = {"get_runtime": "device", "random.as_seed": "seed"}


def public_functions() -> dict[str, object]:
    """{name under oclstat: function} of every public function of the package's faces."""
    out = {}
    faces = {"": oclstat, "random.": oclstat.random, "special.": oclstat.special,
             "io.": oclstat.io, "fields.": oclstat.fields, "genotypes.": oclstat.genotypes,
             "report.": oclstat.report}
    for prefix, module in faces.items():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                key = name if prefix == "fields." and name in oclstat.__all__ else prefix + name
                out[key] = obj
    return out


def parameters(fn) -> dict[str, inspect.Parameter]:
    return {n: p for n, p in inspect.signature(fn).parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}


PUBLIC = public_functions()
CAPABILITIES = {k for k, e in V.ENTRIES.items() if e.cli or e.r}


def test_every_capability_function_has_an_entry_and_every_entry_a_function():
    missing = sorted(k for k in CAPABILITIES if k not in PUBLIC)
    assert not missing, f"entries without a public function: {missing}"
    for name in V.ENTRIES:
        assert name in PUBLIC, f"ENTRIES[{name!r}] names no public function"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_signature_uses_the_vocabulary(name):
    params = parameters(PUBLIC[name])
    for arg, p in params.items():
        assert arg not in RETIRED, f"{name}({arg}=): the name is {RETIRED[arg]}"
        if arg in V.KEYWORD_ONLY and SUBJECT.get(name) != arg:
            assert p.kind is p.KEYWORD_ONLY, f"{name}: {arg}= must be keyword-only"
    if "device" in params and name in CAPABILITIES and not name.startswith(("random.", "io.")):
        assert "client" in params or name in {"fisher_sim", "fisher_test", "random_table",
                                                 "get_runtime", "random.qqnorm",
                                                 "special.logfact_sum", "gsva",
                                                 # cells ranked on one GPU at a time
                                                 "ssgsea", "aucell", "ucell",
                                                 # one AND + popcount pass: no tasks to share
                                                 "ora",
                                                 # one climb of every set size's chains
                                                 "geseca"}, \
            f"{name} takes device= but not client="


@pytest.mark.parametrize("name", sorted(k for k, e in V.ENTRIES.items() if e.cli))
def test_every_argument_has_a_place_on_the_command_line(name):
    entry = V.ENTRIES[name]
    for arg in parameters(PUBLIC[name]):
        try:
            entry.cli_names_of(arg)
        except KeyError:
            pytest.fail(f"{name}({arg}=): not in CLI_FLAGS and not listed as left out of "
                        f"`oclstat {entry.cli}`")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _flags(p: argparse.ArgumentParser) -> set[str]:
    out = set()
    for action in p._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if action.option_strings:
            out.update(action.option_strings)
        else:
            out.add(action.dest)
    return out


def test_command_line_flags_are_the_table():
    commands = _subcommands()
    for command, parser in commands.items():
        entries = [(k, e) for k, e in V.ENTRIES.items() if e.cli == command]
        if command in CLI_ONLY_COMMANDS:
            continue
        assert entries, f"`oclstat {command}` has no entry in oclstat._vocabulary"
        expected = {"--device", "--quiet"}        # every command has both
        for key, entry in entries:
            expected.update(entry.cli_only)
            for arg in parameters(PUBLIC[key]):
                expected.update(entry.cli_names_of(arg))
        actual = _flags(parser)
        assert actual - expected == set(), f"`oclstat {command}` flags not in the table"
        assert expected - actual == set(), f"table flags missing from `oclstat {command}`"


def test_one_flag_means_one_argument_everywhere():
    seen: dict[str, str] = {}
    for key, entry in V.ENTRIES.items():
        for arg in parameters(PUBLIC[key]):
            for flag in entry.cli_names_of(arg) if entry.cli else ():
                if flag.startswith("--"):
                    assert seen.setdefault(flag, arg) == arg, \
                        f"{flag} stands for {seen[flag]} and {arg}"


def _expected_r_formals(key: str) -> list[str]:
    entry = V.ENTRIES[key]
    names = [entry.r_name(a) for a in parameters(PUBLIC[key])]
    return [n for n in names if n is not None] + list(entry.r_only)


def _formals() -> dict[str, list[str]]:
    """The exported R functions' formals; ``...`` (graphical parameters for R's plot, never
    passed to Python) left out."""
    return {k: [f for f in v if f != "..."] for k, v in rdoc.exported_formals().items()}


def test_r_formals_are_the_table():
    formals = _formals()
    by_r = {e.r: k for k, e in V.ENTRIES.items() if e.r}
    assert set(formals) - R_PACKAGE_ONLY == set(by_r), "R exports differ from the table"
    for rname, key in by_r.items():
        assert sorted(formals[rname]) == sorted(_expected_r_formals(key)), \
            f"{rname}: R formals {formals[rname]} vs the table {_expected_r_formals(key)}"


def test_both_r_bridges_call_the_same_adapters():
    from oclstat import rinterop

    formals = _formals()
    assert set(ADAPTERS) - INTERNAL == set(formals) - R_PACKAGE_ONLY
    assert set(rinterop.R_FUNCTIONS) == set(ADAPTERS)
    # the internal ones (a peer's internal names, reached by namespace) are defined, unexported
    everything = {b.name: [f.split("=")[0].strip() for f in b.formals]
                  for p in sorted((ROOT / "rbridge" / "R").glob("*.R"))
                  for b in rdoc.functions(p)}
    assert not INTERNAL & set(formals), "an internal adapter's R function is exported"
    for rname, fn in ADAPTERS.items():
        positional = fn.r_formals
        wanted = everything[rname] if rname in INTERNAL else formals[rname]
        assert positional == wanted, f"adapter {rname}{positional} vs R {wanted}"
    for path in (ROOT / "rbridge" / "R").glob("*.R"):
        text = path.read_text()
        assert "oclstat_module()$" not in text.replace("oclstat_module()$datasets", ""), \
            f"{path.name} calls Python directly instead of through call_adapter()"


def test_namespace_and_rd_files_are_generated_from_roxygen():
    files = rdoc.generate()
    for rel, text in files.items():
        assert (ROOT / "rbridge" / rel).read_text() == text, \
            f"rbridge/{rel} is out of date: run python tools/rdoc.py"
    on_disk = {f"man/{p.name}" for p in (ROOT / "rbridge" / "man").glob("*.Rd")}
    assert on_disk == {k for k in files if k.startswith("man/")}


def test_error_messages_speak_each_interface():
    assert V.python_to_cli("n_resamples must be >= 1") == "--resamples must be >= 1"
    assert V.python_to_cli("min_size (20) must be <= max_size (10)") == \
        "--min-size (20) must be <= --max-size (10)"
    assert V.python_to_r("gsea", "n_resamples must be >= 1, min_size too") == \
        "nperm must be >= 1, minSize too"
    assert V.python_to_r("fisher_sim", "n_resamples must be >= 1") == "N must be >= 1"


def test_renamed_arguments_still_work_one_release():
    import numpy as np

    from oclstat._deprecation import keyword_only, renamed

    epi = importlib.import_module("oclstat._epistasis.api")
    assert epi.epistasis.__renamed__ == {"devices": "device", "score": "test"}
    gsea_api = importlib.import_module("oclstat._gsea.api")
    assert gsea_api.gsea.__renamed__ == {"n_perm": "n_resamples"}
    assert oclstat.random.uniform.__was_positional__ == ("streams", "seed", "dtype")

    @renamed(old="new")
    def f(*, new=0):
        return new

    with pytest.warns(DeprecationWarning, match="old= is now new="):
        assert f(old=3) == 3
    with pytest.raises(TypeError, match="pass new= only"):
        f(old=1, new=2)

    @keyword_only("seed")
    def g(n, *, seed=None):
        return n, seed

    with pytest.warns(DeprecationWarning, match="pass seed= by name"):
        assert g(1, 5) == (1, 5)
    with pytest.raises(TypeError, match="at most 2 positional"):
        g(1, 2, 3)
    with pytest.warns(DeprecationWarning):
        a = oclstat.random.uniform(5, None, 7)
    np.testing.assert_array_equal(a, oclstat.random.uniform(5, seed=7))
    with pytest.warns(DeprecationWarning):
        s = oclstat.random.create_streams(2, 9)
    np.testing.assert_array_equal(s.initial, oclstat.random.create_streams(2, seed=9).initial)


def test_every_result_is_frozen_with_a_short_repr_and_a_frame():
    import dataclasses

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    expr = pd.DataFrame(rng.normal(size=(60, 6)), index=[f"G{i}" for i in range(60)])
    g = rng.integers(0, 3, size=(8, 200))
    results = [
        oclstat.fisher_sim(np.array([[3, 1], [1, 3]]), 200, seed=1),
        oclstat.fisher_sim_batch(rng.integers(1, 9, size=(50, 2, 3)), 100, seed=1),
        oclstat.permutation_test(rng.integers(0, 5, size=(300, 6)),
                                 rng.integers(0, 5, size=(300, 7))),
        oclstat.gsea(expr, list("aaabbb"), {"s": [f"G{i}" for i in range(12)]},
                     n_resamples=20, min_size=5, seed=1),
        oclstat.epistasis(g, rng.integers(0, 2, size=200), order=2, top=5),
        oclstat.ldl_batch(np.stack([np.eye(3) * (i + 1) for i in range(40)])),
    ]
    for res in results:
        name = type(res).__name__
        assert dataclasses.is_dataclass(res) and type(res).__dataclass_params__.frozen, name
        field = dataclasses.fields(res)[0].name
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(res, field, None)
        text = repr(res)
        assert text.startswith(f"{name}(") and len(text) < 200 and "\n" not in text, text
        assert isinstance(res.to_frame(), pd.DataFrame), name
    with pytest.warns(DeprecationWarning, match="n_perm is now n_resamples"):
        assert results[3].n_perm == 20
