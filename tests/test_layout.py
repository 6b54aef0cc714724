"""The package's shape: imports run one way (runtime -> capability core -> backends -> public
face), no import cycle (counting imports inside functions), capability packages independent of
each other but for the random streams, and the same inside of every capability package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import oclstat

PKG = Path(oclstat.__file__).resolve().parent
CAPABILITIES = ("_random", "_fisher", "_permutation", "_fields", "_gsea", "_prerank",
                "_epistasis", "_linalg", "_spatial", "_special", "_singlesample", "_ora",
                "_geseca")
#: Modules below every capability: they import no capability and no public face.
#: The runtime package, from the bottom up (each module imports only lower ones).
RUNTIME_LAYERS = [["icd", "errors", "switches", "sources"], ["device"], ["runtime"],
                  ["choice"], ["registry"]]
RUNTIME = {"oclstat._constants", "oclstat._runtime", "oclstat._validation", "oclstat._labels",
           *(f"oclstat._runtime.{m}" for layer in RUNTIME_LAYERS for m in layer),
           "oclstat._readers", *(f"oclstat._readers.{p.stem}"
                                 for p in (PKG / "_readers").glob("*.py") if p.stem != "__init__"),
           "oclstat._progress", "oclstat._prefetch", "oclstat._multitest", "oclstat._scale",
           "oclstat._results", "oclstat._deprecation", "oclstat._vocabulary",
           "oclstat._docs"}
#: Inside a capability package, from the bottom up: a module may import its own layer or
#: lower layers only. Core (checks, plans, definitions on the host, results), backends (the
#: devices' code paths), tasks (the scale-out protocol), the public functions, the face.
LAYERS = [{"validate", "plan", "exact", "broad", "scores", "core", "stats", "tails", "result",
           "streams", "mrg31k3p", "special", "multilevel", "search", "folder", "pairtests",
           "scan"},
          {"opencl", "draws", "tiles", "cuda", "network", "gene_set_null", "pairs",
           "sparse_gsva", "missing", "cell_ranks"}, {"tasks"},
          {"api", "random_sets"},   # random_sets: one step of the api (fgsea's internal)
          # built on api: collapse (conditional tests), ulm and ucell (the single-sample blocks)
          {"collapse", "ulm", "ucell"}, {"__init__"}]


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PKG.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> list[tuple[str, bool]]:
    """(imported oclstat module, inside a function?) of one module."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".")
                    base = base[:len(base) - (child.level - 1)]
                    mod = ".".join(base + ([child.module] if child.module else []))
                else:
                    mod = child.module or ""
                if mod.split(".")[0] != "oclstat":
                    continue
                for alias in child.names:
                    sub = f"{mod}.{alias.name}"
                    out.append((sub if sub in known else mod, in_function))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "oclstat":
                        out.append((alias.name, in_function))
            visit(child, nested)

    visit(tree, False)
    return [(m, f) for m, f in out if m in known]


@pytest.fixture(scope="module")
def graph():
    mods = _modules()
    known = set(mods)
    return {name: _imports(name, path, known) for name, path in mods.items()}


def test_no_import_cycle(graph):
    edges = {m: {t for t, _ in targets if t != m} for m, targets in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                cycle = stack[stack.index(t):] + [t]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if t not in state:
                dfs(t)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            dfs(m)


def _capability(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in CAPABILITIES else None


def test_runtime_layer_imports_no_capability(graph):
    for m in RUNTIME:
        bad = [t for t, _ in graph[m] if t not in RUNTIME]
        assert not bad, f"{m} (runtime layer) imports {bad}"


def test_the_runtime_package_imports_one_way(graph):
    """icd, errors, switches and sources at the bottom; the device module (discovery and the
    usability probe) above them; the Runtime; the choice of a device; the registry."""
    level = {f"oclstat._runtime.{m}": i for i, layer in enumerate(RUNTIME_LAYERS) for m in layer}
    for m, lvl in level.items():
        for t, _ in graph[m]:
            if t in level:
                assert level[t] < lvl, f"{m} imports {t}"


#: The floor under the enrichments (oclstat/_enrichment/): the enrichment walk, the inputs,
#: one gene-set matcher and the random-set device plan. Every capability may stand on it; it
#: stands on the runtime layer, the readers and the random streams only.
FLOOR = "oclstat._enrichment"

#: Capabilities built on another's definitions.
BUILDS_ON = {# batched solves and products reuse the fields' chunking and multi-device map;
             # the spatial models build on the fields' Matérn and LDLᵀ kernels and on them
             "_linalg": {"_fields"}, "_spatial": {"_fields", "_linalg"},
             # the Matérn covariance evaluates K_nu with the special functions' code
             "_fields": {"_special"},
             # GESECA reads expression as the single-sample scores do and climbs with the
             # multilevel levels of preranked GSEA
             "_geseca": {"_singlesample", "_prerank"}}


def _in_floor(module: str) -> bool:
    return module == FLOOR or module.startswith(FLOOR + ".")


def test_the_enrichment_floor_stands_on_the_runtime_readers_and_random_only(graph):
    floor = [m for m in graph if _in_floor(m)]
    assert {f"{FLOOR}.{m}" for m in ("walks", "inputs", "gene_sets", "random_sets")} <= set(floor)
    for m in floor:
        for t, _ in graph[m]:
            assert (t in RUNTIME or _in_floor(t) or t == "oclstat.io"
                    or _capability(t) == "_random"), f"{m} (the enrichment floor) imports {t}"


def test_no_capability_imports_upwards_into_another(graph):
    """No pair of capabilities builds on each other (the one arrow that ran back up, between
    phenotype and preranked GSEA, went with the floor)."""
    for cap, others in BUILDS_ON.items():
        for other in others:
            assert cap not in BUILDS_ON.get(other, ()), f"{cap} and {other} build on each other"


def test_capabilities_depend_only_on_the_runtime_readers_and_random(graph):
    readers = {"oclstat.io", "oclstat.genotypes"}
    for m, targets in graph.items():
        cap = _capability(m)
        if cap is None:
            continue
        for t, in_function in targets:
            other = _capability(t)
            allowed = (t in RUNTIME or t in readers or other == cap or _in_floor(t)
                       or other == "_random" or other in BUILDS_ON.get(cap, ()))
            assert allowed, f"{m} imports {t}"
            assert not in_function, f"{m} imports {t} inside a function (only optional " \
                                    "dependencies are imported there)"


def test_every_capability_package_is_layered(graph):
    rank = {name: i for i, layer in enumerate(LAYERS) for name in layer}
    for m, targets in graph.items():
        cap = _capability(m)
        if cap is None:
            continue
        own = m.split(".")[2] if m.count(".") >= 2 else "__init__"
        for t, _ in targets:
            if _capability(t) != cap:
                continue
            dep = t.split(".")[2] if t.count(".") >= 2 else "__init__"
            assert rank[dep] <= rank[own], f"{m} ({own}) imports {t} ({dep}): upwards"


def test_every_capability_has_the_same_inside():
    for cap in CAPABILITIES:
        files = {p.stem for p in (PKG / cap).glob("*.py")}
        assert "__init__" in files, cap
        assert files <= set().union(*LAYERS), f"{cap}: unexpected modules {files}"
        if cap != "_random":
            assert {"validate", "api", "result", "opencl"} <= files | {"result"}, cap


def test_public_names_do_not_shadow_modules():
    import importlib

    for name in ("fisher_sim", "permutation_test", "gsea", "epistasis", "matern_cov"):
        assert callable(getattr(oclstat, name))
    for module in ("oclstat.gsea", "oclstat.epistasis", "oclstat.fisher", "oclstat.permutation"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(module)


def test_r_adapters_sit_beside_their_r_files():
    """oclstat/_radapters/ has one module per file of the R package: every adapter of module
    ``m`` is a function that ``rbridge/R/m.R`` defines."""
    import importlib
    import re

    from oclstat._radapters import ADAPTERS

    rdir = Path(__file__).resolve().parents[1] / "rbridge" / "R"
    for name, adapter in ADAPTERS.items():
        module = adapter.__module__.rsplit(".", 1)[-1]
        assert module != "base", f"{name}: adapters live beside their R files, not in base"
        rfile = rdir / f"{module}.R"
        assert rfile.is_file(), f"{adapter.__module__} has no R file {rfile.name}"
        defined = re.search(rf"^`?{re.escape(name)}`?\s*<-\s*function", rfile.read_text(),
                            re.MULTILINE)
        assert defined, f"{name} (adapter in {adapter.__module__}) is not defined in {rfile}"
    assert {m.stem for m in (PKG / "_radapters").glob("*.py")} - {"__init__", "base"} == {
        importlib.import_module(a.__module__).__name__.rsplit(".", 1)[-1]
        for a in ADAPTERS.values()}


def test_one_rule_says_what_is_a_path():
    """Only ``oclstat._readers.text.is_path`` decides whether a value names a file."""
    rule = PKG / "_readers" / "text.py"
    others = [p.relative_to(PKG) for p in PKG.rglob("*.py")
              if p != rule and "os.PathLike)" in p.read_text()]
    assert not others, f"these decide 'a path' themselves: {others}"


def test_every_genotype_reader_lives_with_the_readers():
    import oclstat.genotypes as face
    from oclstat._readers import genotypes

    assert not (PKG / "_plink_files.py").exists()
    for name in face.__all__:
        assert getattr(face, name) is getattr(genotypes, name)


def test_one_road_from_device_to_devices():
    """Only the scale-out layer (``oclstat._scale.executor``) decides what a list of devices
    or a client means; every capability takes its executor."""
    road = PKG / "_scale.py"
    others = [p.relative_to(PKG) for p in PKG.rglob("*.py")
              if p != road and "isinstance(device, (list, tuple))" in p.read_text()]
    assert not others, f"these unwrap device= themselves: {others}"
