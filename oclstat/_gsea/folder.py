"""Broad's GSEA report folder, the files the next tools read (EnrichmentMap's GSEA loader, its
folder scan, GSEApy's replot), for phenotype and preranked runs alike. Names follow Broad's
GSEA 4.1+ (``.tsv``, every report file ending in the run's ``_<timestamp>``), which is what
EnrichmentMap's loader (``GSEAResolver``) rebuilds from the ``.rpt``:

* ``gsea_report_for_<class>_<timestamp>.tsv`` per direction (``na_pos`` / ``na_neg`` for a
  preranked run, as GSEAPreranked names them; ``<profile>_pos`` / ``_neg`` for a continuous
  phenotype), Broad's 11 columns in Broad's order;
* ``ranked_gene_list_<A>_versus_<B>_<timestamp>.tsv``: NAME, TITLE, GENE SYMBOL, GENE_TITLE,
  SCORE (the five columns EnrichmentMap takes as a GSEA ranking, the score last);
* ``<SET>.tsv`` for the top sets of each direction: NAME, PROBE, GENE SYMBOL, GENE_TITLE,
  RANK IN GENE LIST, RANK METRIC SCORE, RUNNING ES, CORE ENRICHMENT;
* ``gene_set_sizes.tsv`` and ``gene_sets.gmt`` (the sets tested, their genes in the data);
* ``edb/results.edb`` (XML: one ``DTG`` element per set with GENESET, ES, NES, NP, FDR, FWER,
  RANK_AT_ES, RANK_SCORE_AT_ES, HIT_INDICES, ES_PROFILE), ``edb/gene_sets.gmt`` and
  ``edb/<label>.rnk``;
* ``<label>.rpt``: ``producer_class`` (``oclstat.gsea.Gsea`` or ``oclstat.gsea.GseaPreranked``:
  EnrichmentMap takes the third dot-separated part as Broad's tool), ``producer_timestamp``,
  then the parameters, one ``param<TAB>name<TAB>value`` line each: ``cls`` (``<the CLS
  path>#<A>_versus_<B>``, the CLS written to ``edb/``), ``gmx``, ``res`` (the expression
  dataset: the file given, else ``<label>.gct`` written beside) or ``rnk`` (preranked);
* ``leading_edge_matrix.tsv`` (genes x top sets: 1 where the gene is in the set's leading
  edge) and ``leading_edge_overlap.tsv`` (shared leading-edge genes of each pair of sets):
  Broad's Leading Edge Analysis (:func:`oclstat.report.write_gsea_report` draws its heat
  map).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np
import pandas as pd

from .._readers.gct import write_gct
from .broad import broad_table, prerank_broad_table

__all__ = ["write_broad_folder"]


def safe_name(name) -> str:
    """A file name for a set or class name (runs of other characters than letters, digits,
    ``.``, ``_`` and ``-`` become ``_``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(name))[:120] or "set"


def _fmt(v) -> str:
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{float(v):.6g}"
    return str(v)


def _write_tsv(frame: pd.DataFrame, path: Path) -> None:
    lines = ["\t".join(map(str, frame.columns))]
    lines += ["\t".join(_fmt(v) for v in row) for row in frame.itertuples(index=False)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def phenotype_names(result) -> tuple[str, str]:
    """The names Broad gives the ranking's two ends, as EnrichmentMap reads them back from the
    .rpt: the two classes, ``<profile>_pos`` / ``_neg`` for a continuous phenotype, ``na_pos``
    / ``na_neg`` for a preranked run."""
    if "ES" in result.table.columns:
        return ("na_pos", "na_neg")
    if getattr(result, "profile", None) is not None:
        return (f"{safe_name(result.profile)}_pos", f"{safe_name(result.profile)}_neg")
    a, b = (safe_name(c) for c in result.classes)
    return (a, b)


def new_timestamp() -> str:
    """Broad's ``producer_timestamp``: milliseconds since the epoch, ending every file name."""
    return str(int(time.time() * 1000))


def _tables(result):
    """(file stem, table in Broad's columns) per direction, and the ranking's two names."""
    a, b = phenotype_names(result)
    if "ES" in result.table.columns:               # preranked
        return ([(a, prerank_broad_table(result.table, "pos")),
                 (b, prerank_broad_table(result.table, "neg"))], (a, b))
    return ([(a, broad_table(result.table, "pos")), (b, broad_table(result.table, "neg"))],
            (a, b))


def _walk(result, name):
    """(positions of the set's genes in the ranking, running ES at each, index of the peak
    hit, whether ES >= 0): the peak is the hit where the running sum is highest (ES >= 0) or
    the hit just after its lowest point (ES < 0), as Broad's leading edge counts them."""
    pos = result._positions(name)
    walk = result.running_sum(name)
    es = float(result.table.loc[name, "ES" if "ES" in result.table.columns else "es"])
    at = walk[pos]
    if es >= 0:
        return pos, at, int(np.argmax(at)), True
    before = np.concatenate([[0.0], walk[:-1]])[pos]
    return pos, at, int(np.argmin(before)), False


def write_broad_folder(result, directory, *, label: str = "oclstat_analysis",
                       details: int = 20, parameters: dict | None = None,
                       expression_file=None, timestamp: str | None = None) -> list:
    """Write Broad's report files of ``result`` (:func:`oclstat.gsea` or
    :func:`oclstat.gsea_prerank`) into ``directory``; returns the paths written.
    ``expression_file``: the dataset the run read (the .rpt's ``res``; by default the result's
    expression is written beside as ``<label>.gct``); ``timestamp``: the run's (default now).

    >>> import numpy as np, pandas as pd, oclstat, tempfile
    >>> rng = np.random.default_rng(1)
    >>> stat = pd.Series(rng.normal(size=300), index=[f"G{i}" for i in range(300)])
    >>> res = oclstat.gsea_prerank(stat, {"s": [f"G{i}" for i in range(20)]}, min_size=5,
    ...                            n_resamples=50, seed=1)
    >>> sorted(p.name for p in write_broad_folder(res, tempfile.mkdtemp()))[:3]
    ['gene_set_sizes.tsv', 'gene_sets.gmt', 'gene_sets.gmt']
    """
    out = Path(directory)
    (out / "edb").mkdir(parents=True, exist_ok=True)
    stamp = timestamp or new_timestamp()
    written = []
    tables, (a, b) = _tables(result)
    for stem, table in tables:
        path = out / f"gsea_report_for_{stem}_{stamp}.tsv"
        _write_tsv(table, path)
        written.append(path)
    ranking = result.ranking
    ranked = pd.DataFrame({"NAME": list(ranking.index), "TITLE": "", "GENE SYMBOL": "",
                           "GENE_TITLE": "", "SCORE": ranking.to_numpy(dtype=float)})
    path = out / f"ranked_gene_list_{a}_versus_{b}_{stamp}.tsv"
    _write_tsv(ranked, path)
    written.append(path)
    names = list(ranking.index)
    for _, table in tables:
        for name in table["NAME"].head(details):
            written.append(_detail(result, name, names, out))
    sets = {k: list(v) for k, v in result.gene_sets.items() if k in result.table.index}
    sizes = pd.DataFrame({"NAME": list(sets), "ORIGINAL SIZE": [len(v) for v in sets.values()],
                          "AFTER RESTRICTING TO DATASET": [len(v) for v in sets.values()],
                          "STATUS": "Tested"})
    _write_tsv(sizes, out / "gene_set_sizes.tsv")
    written.append(out / "gene_set_sizes.tsv")
    for path in (out / "gene_sets.gmt", out / "edb" / "gene_sets.gmt"):
        path.write_text("".join(f"{k}\tna\t" + "\t".join(v) + "\n" for k, v in sets.items()),
                        encoding="utf-8")
        written.append(path)
    rnk = out / "edb" / f"{safe_name(label)}.rnk"
    rnk.write_text("".join(f"{g}\t{float(v)!r}\n" for g, v in ranking.items()),
                   encoding="utf-8")
    written.append(rnk)
    written.append(_edb(result, tables, names, rnk.name, out / "edb" / "results.edb"))
    inputs = {}
    if "ES" not in result.table.columns:           # phenotype GSEA: its dataset and CLS
        inputs = _phenotype_inputs(result, label, out, expression_file, written)
    written.append(_rpt(result, label, out, parameters, stamp, inputs))
    written.extend(_leading_edge(result, tables, details, out))
    return written


def _detail(result, name, names, out: Path) -> Path:
    pos, at, peak, up = _walk(result, name)
    scores = result.ranking.to_numpy(dtype=float)[pos]
    core = np.zeros(pos.size, dtype=bool)
    if up:
        core[:peak + 1] = True
    else:
        core[peak:] = True
    frame = pd.DataFrame({"NAME": [f"row_{i}" for i in range(pos.size)],
                          "PROBE": [names[p] for p in pos], "GENE SYMBOL": "",
                          "GENE_TITLE": "", "RANK IN GENE LIST": pos,
                          "RANK METRIC SCORE": scores, "RUNNING ES": at,
                          "CORE ENRICHMENT": np.where(core, "Yes", "No")})
    path = out / f"{safe_name(name)}.tsv"
    _write_tsv(frame, path)
    return path


def _edb(result, tables, names, rnk_name: str, path: Path) -> Path:
    rows = []
    for _, table in tables:
        for row in table.itertuples(index=False):
            name = row[0]
            pos, at, peak, _ = _walk(result, name)
            rank = int(row[9])
            attrs = {
                "RANKED_LIST": f"{rnk_name}#{rnk_name}", "TEMPLATE": "na",
                "GENESET": f"gene_sets.gmt#{name}", "ES": _fmt(row[4]), "NES": _fmt(row[5]),
                "NP": _fmt(row[6]), "FDR": _fmt(row[7]), "FWER": _fmt(row[8]),
                "RANK_AT_ES": str(rank),
                "RANK_SCORE_AT_ES": _fmt(float(result.ranking.iloc[rank])),
                "EDGE": str(row[10]).replace(",", ""),
                "HIT_INDICES": " ".join(str(int(p)) for p in pos),
                "ES_PROFILE": " ".join(f"{v:.4g}" for v in at)}
            rows.append("<DTG " + " ".join(f"{k}={quoteattr(v)}" for k, v in attrs.items())
                        + " />")
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<EDB>\n' + "\n".join(rows)
                    + "\n</EDB>\n", encoding="utf-8")
    return path


def _phenotype_inputs(result, label: str, out: Path, expression_file, written: list) -> dict:
    """The .rpt's ``res`` (the dataset) and ``cls`` (``<CLS path>#<A>_versus_<B>``, or
    ``#<profile>``) of a phenotype run, writing the CLS into edb/ and, when no dataset file is
    given, the result's expression as ``<label>.gct``."""
    inputs = {}
    if expression_file is not None:
        inputs["res"] = str(Path(expression_file).resolve())
    elif getattr(result, "expression", None) is not None:
        gct = out / f"{safe_name(label)}.gct"
        write_gct(result.expression, gct)
        written.append(gct)
        inputs["res"] = str(gct.resolve())
    labels = getattr(result, "sample_labels", None)
    cls = out / "edb" / f"{safe_name(label)}.cls"
    if labels is not None:
        if result.profile is not None:
            text = f"#numeric\n#{result.profile}\n" + " ".join(repr(v) for v in labels) + "\n"
        else:
            text = (f"{len(labels)} 2 1\n# {result.classes[0]} {result.classes[1]}\n"
                    + " ".join(map(str, labels)) + "\n")
        cls.write_text(text, encoding="utf-8")
        written.append(cls)
    what = (result.profile if result.profile is not None
            else f"{result.classes[0]}_versus_{result.classes[1]}")
    inputs["cls"] = f"{cls.resolve() if labels is not None else ''}#{what}"
    return inputs


def _rpt(result, label: str, out: Path, parameters, stamp: str, inputs: dict) -> Path:
    preranked = "ES" in result.table.columns
    params = {"rpt_label": label, "out": str(out.resolve().parent),
              "nperm": result.n_resamples, "scoring_scheme":
              {0.0: "classic", 1.0: "weighted", 2.0: "weighted_p2"}.get(result.weight,
                                                                     f"weighted_p{result.weight}"),
              "gmx": str((out / "gene_sets.gmt").resolve()),
              "permute": "gene_set" if preranked else result.permutation,
              "collapse": "false", "set_min": "", "set_max": "", "device": result.device,
              **{str(k).replace(" ", "_"): v for k, v in (parameters or {}).items()}}
    if preranked:
        params["rnk"] = str((out / "edb" / f"{safe_name(label)}.rnk").resolve())
    else:
        params["metric"] = result.metric
        params.update(inputs)
        params.setdefault("res", str((out / "edb" / f"{safe_name(label)}.rnk").resolve()))
    tool = "GseaPreranked" if preranked else "Gsea"
    lines = [f"producer_class\toclstat.gsea.{tool}", f"producer_timestamp\t{stamp}"]
    lines += [f"param\t{k}\t{v}" for k, v in params.items() if v != ""]
    lines += [f"file\t{(out / 'index.html').resolve()}"]
    path = out / f"{safe_name(label)}.rpt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _leading_edge(result, tables, details: int, out: Path) -> list:
    """Broad's Leading Edge Analysis of the top sets of each direction."""
    top = [name for _, table in tables for name in table["NAME"].head(details)]
    if not top:
        return []
    edges = {}
    names = list(result.ranking.index)
    for name in top:
        pos, _, peak, up = _walk(result, name)
        cut = pos[:peak + 1] if up else pos[peak:]
        edges[name] = [names[p] for p in cut]
    genes = list(dict.fromkeys(g for name in top for g in edges[name]))
    matrix = pd.DataFrame(0, index=pd.Index(genes, name="GENE"), columns=top)
    for name in top:
        matrix.loc[edges[name], name] = 1
    matrix.to_csv(out / "leading_edge_matrix.tsv", sep="\t")
    overlap = matrix.T.dot(matrix)
    overlap.index.name = "SET"
    overlap.to_csv(out / "leading_edge_overlap.tsv", sep="\t")
    return [out / "leading_edge_matrix.tsv", out / "leading_edge_overlap.tsv"]
