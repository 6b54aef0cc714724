"""The documentation site as built by ``make docs-build`` (build/docs/html): every public name
and command documented, every tutorial executed (on the shared data where it is beside the
checkout), every internal link resolving, and the pages rendered in headless Chromium with
their text and images."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import REPO, SHARED_DATA, chromium

import oclstat
from oclstat.cli import COMMANDS

SITE = REPO / "build" / "docs" / "html"
TUTORIALS = ("random", "fisher", "fields", "permutation", "gsea", "epistasis", "scaling", "r")


@pytest.fixture(scope="module")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        if os.environ.get("OCLSTAT_REQUIRE_TOOLS") == "1":
            pytest.fail("the documentation is not built: run `make docs-build` first")
        pytest.skip("the documentation is not built (make docs-build)")
    return SITE


def _ids_and_links(page: Path) -> tuple[set, list]:
    text = page.read_text(encoding="utf-8")
    ids = set(re.findall(r'\bid="([^"]+)"', text))
    links = [html.unescape(h) for h in re.findall(r'\bhref="([^"]*)"', text)]
    return ids, links


def test_every_public_name_has_its_entry(site):
    text = "".join(p.read_text(encoding="utf-8") for p in (site / "api").glob("*.html"))
    ids = set(re.findall(r'\bid="([^"]+)"', text))
    missing = []
    for name in oclstat.__all__:
        if name == "__version__":
            continue
        obj = getattr(oclstat, name)
        target = f"module-oclstat.{name}" if type(obj).__name__ == "module" else f"oclstat.{name}"
        if target not in ids:
            missing.append(name)
    assert not missing, f"no API entry for {missing}"
    for module in ("random", "io", "genotypes", "fields", "spatial", "special", "linalg"):
        for member in getattr(oclstat, module).__all__:
            if callable(getattr(getattr(oclstat, module), member)):
                # documented here, or once under the name that also holds it
                assert any(i.startswith("oclstat.") and i.endswith(f".{member}")
                           for i in ids), f"oclstat.{module}.{member} has no entry"


def test_every_command_has_its_help(site):
    page = html.unescape(re.sub(r"<[^>]+>", "", (site / "cli.html").read_text("utf-8")))
    flat = " ".join(page.split())
    for command in COMMANDS:
        assert f"oclstat {command.NAME}" in page, command.NAME
        assert " ".join(command.HELP.split())[:40] in flat, command.NAME   # its --help ran
    assert page.count("--device") >= len(COMMANDS) and page.count("--quiet") >= len(COMMANDS)


@pytest.mark.parametrize("name", TUTORIALS)
def test_tutorials_ran(site, name):
    page = (site / "tutorials" / f"{name}.html").read_text(encoding="utf-8")
    outputs = page.count("cell_output")
    if name == "r" and not shutil.which("Rscript"):
        pytest.skip("R is not installed: the R tutorial is shown, not run")
    assert outputs >= 3, f"{name}: {outputs} cell outputs"
    assert "Traceback" not in page and "output traceback" not in page
    if SHARED_DATA.is_dir() and name in ("fields", "permutation", "gsea", "epistasis",
                                         "scaling"):
        assert f"data: {SHARED_DATA}" in page, f"{name} did not read the shared data"


def test_internal_links_resolve(site):
    pages = {p.resolve(): _ids_and_links(p) for p in site.rglob("*.html")}
    broken = []
    for page, (_, links) in pages.items():
        for link in links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = page if not parts.path else (page.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target][0] if target in pages else _ids_and_links(target)[0]
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{page.relative_to(site)} -> {link} (no such anchor)")
    assert not broken, "\n".join(broken[:20])
    assert len(pages) >= 20


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000"]


@pytest.mark.parametrize("page,texts,min_images", [
    ("index.html", ["Vendor-portable GPU statistics", "Tutorials", "API reference"], 0),
    ("tutorials/gsea.html", ["Gene set enrichment", "Preranked GSEA", "HALLMARK_"], 2),
    ("api/fisher.html", ["oclstat.fisher_test", "Parameters", "Examples"], 0),
])
def test_pages_render_in_a_browser(site, tmp_path, page, texts, min_images):
    exe = chromium()
    url = (site / page).as_uri()
    dom = subprocess.run([exe, *FLAGS, "--dump-dom", url], capture_output=True, text=True,
                         timeout=180).stdout
    for text in texts:
        if text == "HALLMARK_" and not SHARED_DATA.is_dir():
            text = "PLANTED"
        assert text in dom, f"{page}: {text!r} not rendered"
    found = re.search(r'data-images="(\d+)" data-images-loaded="(\d+)"', dom)
    assert found, f"{page}: the page's load handler did not run"
    total, loaded = map(int, found.groups())
    assert loaded == total >= min_images, f"{page}: {loaded} of {total} images decoded"
    shot = tmp_path / "shot.png"
    subprocess.run([exe, *FLAGS, "--hide-scrollbars", "--window-size=1280,1400",
                    f"--screenshot={shot}", url], capture_output=True, timeout=180)
    image = pytest.importorskip("matplotlib.image").imread(shot)
    assert image.shape[:2] == (1400, 1280)
    assert image[..., :3].std() > 0.05, f"{page}: the screenshot is blank"
    # keep the screenshots where CI can show them
    keep = REPO / "build" / "docs" / "screenshots"
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy(shot, keep / (page.replace("/", "_") + ".png"))


def test_reference_generator_refuses_an_undocumented_name(monkeypatch):
    sys.path.insert(0, str(REPO / "docs" / "_ext"))
    try:
        import oclstat_reference
    finally:
        sys.path.remove(str(REPO / "docs" / "_ext"))
    monkeypatch.setattr(oclstat, "__all__", [*oclstat.__all__, "brand_new_function"])
    monkeypatch.setattr(oclstat, "brand_new_function", lambda: None, raising=False)
    with pytest.raises(RuntimeError, match="brand_new_function"):
        oclstat_reference.api_pages()


GUIDE = REPO / "docs" / "guide"


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", sorted(p.stem for p in GUIDE.glob("*.md")))
def test_guide_pages_are_built_and_their_code_names_what_exists(site, page):
    """Each guide page is on the site, its Python examples parse and every ``oclstat.NAME``
    they use exists (the pages' examples read files of the user's, so they are not run)."""
    import ast

    assert (site / "guide" / f"{page}.html").is_file(), f"guide/{page} is not on the site"
    text = (GUIDE / f"{page}.md").read_text(encoding="utf-8")
    for block in _fenced(text, "python"):
        tree = ast.parse(block)
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "oclstat"):
                assert hasattr(oclstat, node.attr), f"guide/{page}: oclstat.{node.attr}"


def test_the_readme_is_a_front_door():
    """At most 200 lines, the two commands first, one example per face, and every link to a
    file of the checkout resolving."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    first = text.split("```")[1].strip().splitlines()
    assert [ln.split()[:2] for ln in first] == [["make", "demo"], ["make", "test"]]
    assert _fenced(text, "python") and _fenced(text, "sh") and _fenced(text, "r")
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        if "://" not in target:
            assert (REPO / target).is_file(), f"README links to {target}, which is absent"
    for page in GUIDE.glob("*.md"):
        assert f"docs/guide/{page.name}" in text, f"README does not link {page.name}"
