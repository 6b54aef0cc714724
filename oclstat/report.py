"""Reports of results as the users of each method's reference tool read them: Broad GSEA's
HTML report (both directions' tables in Broad's columns, enrichment plots of the top sets,
the run's parameters and device) beside the full tables as TSV.

>>> import numpy as np, pandas as pd, oclstat, tempfile, matplotlib
>>> matplotlib.use("Agg")
>>> rng = np.random.default_rng(1)
>>> expr = pd.DataFrame(rng.normal(size=(120, 6)), index=[f"G{i}" for i in range(120)])
>>> res = oclstat.gsea(expr, list("aaabbb"), {"s": [f"G{i}" for i in range(15)],
...                    "t": [f"G{i}" for i in range(50, 70)]}, n_resamples=50, min_size=10,
...                    seed=1)
>>> write_gsea_report(res, tempfile.mkdtemp(), plots=1).name
'index.html'
"""

from __future__ import annotations

import datetime
import html
from pathlib import Path

import numpy as np
import pandas as pd

from ._gsea.broad import broad_table
from ._gsea.folder import new_timestamp, phenotype_names, safe_name, write_broad_folder
from .plot import _pyplot, plot_enrichment

__all__ = ["write_gsea_report"]


_file_name = safe_name
_LINKS = ("GS<br> follow link to MSigDB", "GS DETAILS")


def _html_table(frame: pd.DataFrame, plots: dict) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in frame.columns)
    rows = []
    for _, row in frame.iterrows():
        cells = []
        for c in frame.columns:
            v = row[c]
            if c == "NAME" and v in plots:
                text = f'<a href="{html.escape(plots[v])}">{html.escape(str(v))}</a>'
            elif isinstance(v, (float, np.floating)):
                text = f"{v:.4g}"
            else:
                text = html.escape(str(v))
            cells.append(f"<td>{text}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="report"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


_STYLE = """body{font-family:sans-serif;margin:2em;color:#222}table.report{border-collapse:
collapse;font-size:13px;margin-bottom:1em}table.report td,table.report th{border:1px solid #bbb;
padding:2px 6px;text-align:right}table.report td:first-child{text-align:left}
.plots figure{display:inline-block;margin:4px}.plots img{width:420px;border:1px solid #ddd}"""

_CHECK = """<script>
window.addEventListener('load', function () {
  var imgs = document.images, ok = 0;
  for (var i = 0; i < imgs.length; i++) { if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; }
  document.body.setAttribute('data-images-loaded', String(ok));
  var rows = document.querySelectorAll('table.report tbody tr').length;
  document.body.setAttribute('data-table-rows', String(rows));
});
</script>"""


def _directions(result, stamp: str):
    """(title, TSV name, table with a NAME column, significance text) of each direction (a
    phenotype run's tables are Broad's report files, named as Broad names them)."""
    if "ES" in result.table.columns:              # preranked: fgsea's columns
        for label, table in (("top", result.positive), ("bottom", result.negative)):
            frame = table.reset_index().rename(columns={"pathway": "NAME", "size": "SIZE"})
            frame = frame[["NAME", "SIZE", "ES", "NES", "pval", "padj", "log2err",
                           "rank_at_max"]].rename(columns={"rank_at_max": "RANK AT MAX"})
            yield (f"Enriched at the {label} of the ranking "
                   f"({'ES &gt; 0' if label == 'top' else 'ES &le; 0'})",
                   f"prerank_report_{label}.tsv", frame,
                   f"{int((frame['padj'] < 0.05).sum())} with padj &lt; 5%")
        return
    cut = result.fdr_threshold
    stems = phenotype_names(result)
    for direction, cls, stem in (("pos", result.classes[0], stems[0]),
                                 ("neg", result.classes[1], stems[1])):
        table = broad_table(result.table, direction)
        yield (f"Enrichment in phenotype {html.escape(str(cls))} "
               f"({'ES &ge; 0' if direction == 'pos' else 'ES &lt; 0'})",
               f"gsea_report_for_{stem}_{stamp}.tsv", table,
               f"{int((table['FDR q-val'] < cut).sum())} with FDR q &lt; {100 * cut:g}%")


def write_gsea_report(result, directory, *, parameters: dict | None = None, rows: int = 100,
                      plots: int = 5, details: int = 20, label: str = "oclstat_analysis",
                      expression_file=None) -> Path:
    """Write Broad GSEA's report of a :class:`GseaResult` (or of a preranked
    :class:`PrerankResult`, in fgsea's columns) into a folder.

    Parameters
    ----------
    result : GseaResult or PrerankResult
        From :func:`oclstat.gsea` or :func:`oclstat.gsea_prerank`.
    directory : str or path
        The folder (created if needed).
    parameters : dict, optional
        More rows for the report's parameter table (input files, seed, ...).
    rows : int, optional
        Sets per direction shown in index.html (the TSV files hold them all).
    plots : int, optional
        Enrichment plots for the top sets of each direction.
    details : int, optional
        Sets of each direction with a detail table (``<SET>.tsv``) and in the leading-edge
        analysis.
    label : str, optional
        Broad's ``rpt_label``: names the ``.rpt`` file and the ranking in ``edb/``.
    expression_file : str or path, optional
        The dataset a phenotype run read (the ``.rpt``'s ``res``, where EnrichmentMap finds
        it); by default the result's expression is written into the folder as a GCT.

    Returns
    -------
    pathlib.Path
        The path of index.html.

    See Also
    --------
    GseaResult.positive, GseaResult.negative : the two tables.
    oclstat.plot_enrichment : one set's plot.

    Notes
    -----
    Writes ``index.html`` (the run's parameters and device, both directions' tables in Broad's
    columns, the top sets' names linked to their pages ``<set>.html``: the set's row, its
    enrichment plot and its detail table; other plotted sets to ``enplot_<set>.png``),
    Broad's report files (``gsea_report_for_<class>_<timestamp>.tsv`` for each direction, the
    ``.rpt``, ``edb/``: what Cytoscape's EnrichmentMap loads) and the plots. The pages need no
    server and no network; a script in each records, once loaded, how many images decoded
    and how many table rows it shows (the tests read them from a headless browser).

    References
    ----------
    .. [1] Subramanian, A. et al. (2005). Gene set enrichment analysis: a knowledge-based
           approach for interpreting genome-wide expression profiles. PNAS 102(43), 15545-15550.
    .. [2] Broad Institute. GSEA User Guide: interpreting GSEA results.

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat, tempfile, matplotlib
    >>> matplotlib.use("Agg")
    >>> rng = np.random.default_rng(1)
    >>> expr = pd.DataFrame(rng.normal(size=(120, 6)), index=[f"G{i}" for i in range(120)])
    >>> res = oclstat.gsea(expr, list("aaabbb"), {"s": [f"G{i}" for i in range(15)]},
    ...                    n_resamples=20, min_size=10, seed=1)
    >>> write_gsea_report(res, tempfile.mkdtemp(), plots=1).name
    'index.html'
    """
    plt = _pyplot("write_gsea_report")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    directions, images = [], []
    stamp = new_timestamp()
    for title, tsv, table, significant in _directions(result, stamp):
        table.to_csv(out / tsv, sep="\t", index=False, float_format="%.6g")
        linked = {}
        for name in table["NAME"].head(plots):
            linked[name] = _plot(result, name, out, plt)
            images.append((name, linked[name]))
        directions.append((title, tsv, table, significant, linked))
    write_broad_folder(result, out, label=label, details=details, parameters=parameters,
                       expression_file=expression_file, timestamp=stamp)
    sections = []
    for title, tsv, table, significant, linked in directions:
        for name in table["NAME"].head(details):      # Broad's page per top set
            page = _detail_page(result, name, table, out, plt)
            if page is not None:
                linked[name] = page
        sections.append(
            f"<h2>{title}</h2>"
            f"<p>{len(table)} gene sets; {significant}. "
            f"Full table: <a href=\"{html.escape(tsv)}\">{html.escape(tsv)}</a>"
            + (f" (first {rows} shown)" if len(table) > rows else "") + "</p>"
            + _html_table(table.head(rows).drop(columns=list(_LINKS), errors="ignore"),
                          linked))
    heat = _leading_edge_heatmap(out, plt)
    if heat:
        images.append(("leading-edge genes of the top sets", heat))
    sections.append(
        "<h2>Files for EnrichmentMap and Broad's tools</h2><p>"
        + ", ".join(f'<a href="{html.escape(f)}">{html.escape(f)}</a>' for f in
                    sorted(p.name for p in out.glob("gsea_report_for_*.tsv")))
        + f', <a href="edb/results.edb">edb/results.edb</a>, '
        f'<a href="{html.escape(safe_name(label))}.rpt">{html.escape(safe_name(label))}.rpt'
        "</a>, the ranked gene list, one detail table per top set and the leading-edge "
        "analysis (leading_edge_matrix.tsv, leading_edge_overlap.tsv).</p>")
    preranked = "ES" in result.table.columns
    params = ({"method": f"preranked, {result.method}", "random sets per size":
               result.n_resamples, "sets by multilevel splitting": result.n_multilevel}
              if preranked else
              {"classes": f"{result.classes[0]} vs {result.classes[1]}",
               "metric": result.metric, "permutations": result.n_resamples})
    params = {**params, "weight (p)": result.weight, "genes ranked": len(result.ranking),
              "gene sets tested": len(result.table),
              "gene sets outside the size limits": result.n_filtered,
              "device": result.device, **(parameters or {}),
              "written": datetime.datetime.now().isoformat(timespec="seconds")}
    param_rows = "".join(f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td>"
                         "</tr>" for k, v in params.items())
    gallery = "".join(f'<figure><img src="{html.escape(png)}" alt="{html.escape(name)}">'
                      f"<figcaption>{html.escape(name)}</figcaption></figure>"
                      for name, png in images)
    page = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>GSEA report</title>"
            f"<style>{_STYLE}</style></head><body><h1>GSEA report (oclstat)</h1>"
            f"<table class=\"params\">{param_rows}</table>{''.join(sections)}"
            f"<h2>Enrichment plots</h2><div class=\"plots\">{gallery}</div>"
            + ("<p>p-values as fgsea: (k + 1) / (n + 1) from random gene sets, or multilevel "
               "splitting with log2err, the expected standard deviation of log2 p; padj is "
               "Benjamini-Hochberg.</p>" if preranked else
               "<p>p-values and q-values count the observed labelling with the permutations, "
               "(k + 1) / (n + 1), so none is 0 (Broad's GSEA writes k / n).</p>")
            + f"{_CHECK}</body></html>")
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def _plot(result, name, out: Path, plt) -> str:
    """The enrichment plot of set ``name`` (``enplot_<set>.png``, made once)."""
    png = f"enplot_{_file_name(name)}.png"
    if not (out / png).exists():
        fig = plot_enrichment(result, name)
        fig.savefig(out / png, dpi=90)
        plt.close(fig)
    return png


def _detail_page(result, name, table, out: Path, plt) -> str | None:
    """``<set>.html``, Broad's page of one top set: its row of the report, its enrichment
    plot and its detail table (the ``<set>.tsv`` the folder holds, as HTML)."""
    tsv = out / f"{safe_name(name)}.tsv"
    if not tsv.exists():
        return None
    detail = pd.read_csv(tsv, sep="\t", keep_default_na=False)
    row = table[table["NAME"] == name].drop(columns=list(_LINKS), errors="ignore")
    png = _plot(result, name, out, plt)
    page = (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(name)}"
            f"</title><style>{_STYLE}</style></head><body><h1>{html.escape(name)}</h1>"
            f"<p><a href=\"index.html\">back to the report</a>; the table as "
            f"<a href=\"{html.escape(tsv.name)}\">{html.escape(tsv.name)}</a></p>"
            + _html_table(row, {})
            + f'<div class="plots"><figure><img src="{html.escape(png)}" '
            f'alt="{html.escape(name)}"></figure></div>'
            + _html_table(detail, {}) + f"{_CHECK}</body></html>")
    path = out / f"{safe_name(name)}.html"
    path.write_text(page, encoding="utf-8")
    return path.name


def _leading_edge_heatmap(out: Path, plt) -> str | None:
    """``leading_edge_heatmap.png`` from ``leading_edge_matrix.tsv`` (the genes in most
    leading edges first, at most 60)."""
    path = out / "leading_edge_matrix.tsv"
    if not path.exists():
        return None
    matrix = pd.read_csv(path, sep="\t", index_col=0)
    if matrix.empty:
        return None
    shown = matrix.loc[matrix.sum(axis=1).sort_values(ascending=False, kind="stable")
                       .index[:60]]
    fig, ax = plt.subplots(figsize=(max(4.0, 0.3 * shown.shape[1] + 2),
                                    max(3.0, 0.16 * len(shown) + 1.5)))
    ax.imshow(shown.to_numpy(), aspect="auto", cmap="Reds", vmin=0, vmax=1)
    ax.set_xticks(range(shown.shape[1]), [str(c)[:30] for c in shown.columns], rotation=90,
                  fontsize=6)
    ax.set_yticks(range(len(shown)), [str(g) for g in shown.index], fontsize=6)
    ax.set_title("Leading-edge genes of the top sets")
    fig.tight_layout()
    fig.savefig(out / "leading_edge_heatmap.png", dpi=90)
    plt.close(fig)
    return "leading_edge_heatmap.png"
