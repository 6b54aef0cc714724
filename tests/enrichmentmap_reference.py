"""Cytoscape EnrichmentMap's GSEA loader, the rules of its ``.rpt`` resolution, in Python, to
check that a report folder loads (no oclstat code here).

Source: BaderLab/EnrichmentMapApp at c4decc02 (``EnrichmentMapPlugin/src/main/java/org/
baderlab/csplugins/enrichmentmap/resolver/GSEAResolver.java``); each step names the Java
method it follows and what happens there when the folder does not fit:

* ``parseRPTParameters`` (l. 200-214): a line split on tabs; 2 fields are key, value; 3 are
  "k1 k2", value; other lines are ignored.
* ``producer_class`` split on punctuation, element [2] (l. 125, 168, 252, 290): "Gsea" or
  "GseaPreranked"; fewer than three parts throw ArrayIndexOutOfBoundsException (the
  load fails).
* ``getRptPhenotypes`` (l. 250-286): Gsea: ``param cls`` split on '#', its second part split on
  "_versus_" (one part p: p_pos, p_neg); GseaPreranked: na_pos, na_neg or ``param phenotypes``.
* ``getRptClassFile`` (l. 288-318): Gsea: the part of ``param cls`` before '#' as a path, else
  its file name in the folder, else in edb/.
* ``getRptResultsFile`` (l. 162-198): ``gsea_report_for_<phenotype>_<producer_timestamp>`` and
  ``ranked_gene_list_<p1>_versus_<p2>_<timestamp>`` with ``.xls`` or ``.tsv``, looked for in
  ``<param out>/<rpt_label>.<method>.<timestamp>/`` and then beside the .rpt (``param out``
  missing throws NullPointerException).
* ``getRptGmt`` (l. 220-248): ``param gmx`` as a path, its file name in the folder or its parent,
  else edb/gene_sets.gmt.
* ``getRptExpressionFile`` (l. 124-160): Gsea: ``param res``; GseaPreranked: ``param rnk``
  (``param expressionMatrix`` first); as a path, else its file name in the folder or its parent.
* the data set's name (``getDatasetNameGSEA``, l. 357-363): the folder's name without
  ``.<timestamp>`` and ``.gsea``.
"""

from __future__ import annotations

import re
from pathlib import Path


class LoaderError(Exception):
    """Where EnrichmentMap's Java code would throw."""


def parse_rpt(path: Path) -> dict:
    params = {}
    for line in path.read_text().splitlines():
        tokens = line.split("\t")
        if len(tokens) == 2:
            params[tokens[0]] = tokens[1]
        elif len(tokens) == 3:
            params[tokens[0] + " " + tokens[1]] = tokens[2]
    return params


def _method(params) -> str:
    cls = params.get("producer_class")
    if cls is None:
        raise LoaderError("NullPointerException: no producer_class")
    parts = re.split(r"[!-/:-@\[-`{-~]", cls)        # Java's \p{Punct}
    if len(parts) < 3:
        raise LoaderError(f"ArrayIndexOutOfBoundsException: producer_class {cls!r} has "
                          f"{len(parts)} parts")
    return parts[2]


def _first(*paths: Path):
    return next((p for p in paths if p.exists()), None)


def phenotypes(params) -> tuple[str, str]:
    method, cls = _method(params), params.get("param cls")
    if cls is not None and method.lower() == "gsea":
        parts = cls.split("#")
        if len(parts) >= 2:
            names = parts[1].split("_versus_")
            if len(names) >= 2:
                return names[0], names[1]
            return names[0] + "_pos", names[0] + "_neg"
        return "na", "na"
    if method.lower() == "gseapreranked":
        names = params.get("param phenotypes", "").split("_versus_")
        return (names[0], names[1]) if len(names) >= 2 else ("na_pos", "na_neg")
    return "na", "na"


def _results_file(root: Path, base: str, params):
    out_dir = params.get("param out")
    if out_dir is None:
        raise LoaderError("NullPointerException: no param out")
    job = f"{params.get('param rpt_label')}.{_method(params)}.{params.get('producer_timestamp')}"
    for ext in (".xls", ".tsv"):
        for guess in (Path(out_dir) / job / (base + ext), root / (base + ext)):
            if guess.exists():
                return guess
    return None


def resolve(folder: Path) -> dict:
    """What EnrichmentMap loads from a GSEA report folder with a .rpt: the files it found
    (None where it found none) and the data set's name."""
    rpts = [p for p in folder.iterdir() if p.name.lower().endswith(".rpt")]
    if not rpts:
        raise LoaderError("no .rpt in the folder")
    params = parse_rpt(rpts[0])
    method = _method(params)
    stamp = params.get("producer_timestamp")
    p1, p2 = phenotypes(params)
    cls_file = None
    if params.get("param cls") is not None and method.lower() == "gsea":
        c = Path(params["param cls"].split("#")[0])
        cls_file = _first(c, folder / c.name, folder / "edb" / c.name)
    g = Path(params["param gmx"])                 # NullPointerException without gmx
    gmt = _first(g, folder / g.name, folder.parent / g.name, folder / "edb" / "gene_sets.gmt")
    data = params.get("param res") if method.lower() == "gsea" else (
        params.get("param expressionMatrix") or params.get("param rnk"))
    expression = None
    if data is not None:
        d = Path(data)
        expression = _first(d, folder / d.name, folder.parent / d.name)
    name = folder.name
    if name.endswith(f".{stamp}"):
        name = name[: -len(stamp) - 1]
    if name.lower().endswith(".gsea"):
        name = name[:-5]
    return {"method": method, "phenotypes": (p1, p2), "class_file": cls_file, "gmt": gmt,
            "results1": _results_file(folder, f"gsea_report_for_{p1}_{stamp}", params),
            "results2": _results_file(folder, f"gsea_report_for_{p2}_{stamp}", params),
            "ranks": _results_file(folder, f"ranked_gene_list_{p1}_versus_{p2}_{stamp}", params),
            "expression": expression, "name": name}
