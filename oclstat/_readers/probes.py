"""Probes to genes, as Broad's GSEA does it: the CHIP file (probe -> gene symbol) and the five
ways of collapsing a gene's probes into one row.

A CHIP file is tab-separated with a header naming ``Probe Set ID`` and ``Gene Symbol`` (and
usually ``Gene Title``); other columns are ignored. A probe whose symbol is empty or ``---``
maps to no gene. Broad's collapse modes, per sample over the probes of one gene:

* ``Max_probe``: the largest value;
* ``Median_of_probes``, ``Mean_of_probes``, ``Sum_of_probes``: the median, mean, sum;
* ``Abs_max_of_probes``: the value of largest magnitude, its sign kept (a over -a).

``collapse`` is Broad's option: ``Collapse`` (remap with the CHIP and collapse),
``Remap_Only`` (rename probes to symbols; two probes of one gene are an error),
``No_Collapse`` (the data as given; the CHIP is not used). Lower-case forms and underscores or
not are accepted (``max_probe``, ``remap_only``).

>>> import io, pandas as pd
>>> chip = read_chip(io.StringIO("Probe Set ID\\tGene Symbol\\tGene Title\\n"
...                              "p1\\tTP53\\ttumour protein\\np2\\tTP53\\t\\np3\\t---\\t\\n"))
>>> chip["p1"], len(chip)
('TP53', 2)
>>> expr = pd.DataFrame({"s1": [1.0, 3.0, 5.0], "s2": [4.0, -6.0, 0.0]},
...                     index=["p1", "p2", "p3"])
>>> collapse_probes(expr, chip, mode="Abs_max_of_probes").loc["TP53"].tolist()
[3.0, -6.0]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .inference import ReadInfo
from .text import open_text

__all__ = ["read_chip", "collapse_probes", "MODES", "COLLAPSE"]

#: Broad's collapse modes (the names its CLI and GUI take).
MODES = ("Max_probe", "Median_of_probes", "Mean_of_probes", "Sum_of_probes",
         "Abs_max_of_probes")
#: Broad's collapse options.
COLLAPSE = ("Collapse", "No_Collapse", "Remap_Only")
_NO_SYMBOL = {"", "---", "NA", "N/A", "null"}


class Chip(dict):
    """{probe: gene symbol} as read from a CHIP file, with ``titles`` {probe: gene title} and
    ``input`` (what was read: probes without a symbol, repeated probes)."""

    titles: dict
    input: ReadInfo | None = None


def _choice(value, options, name: str) -> str:
    key = str(value).replace("_", "").replace("-", "").lower()
    for opt in options:
        if opt.replace("_", "").lower() == key:
            return opt
    raise ValueError(f"{name} must be one of {', '.join(options)} (lower case accepted), got "
                     f"{value!r}")


def read_chip(source) -> Chip:
    """Read a CHIP file (Broad's probe annotation): probe -> gene symbol.

    Parameters
    ----------
    source : path or stream
        The file (gzip read by content).

    Returns
    -------
    Chip
        {probe: symbol} in file order, probes without a symbol (empty or ``---``) left out and
        counted in ``.input``; ``.titles`` {probe: gene title} where the file has them.

    See Also
    --------
    collapse_probes : the dataset collapsed with it.

    Notes
    -----
    The header must name the ``Probe Set ID`` and ``Gene Symbol`` columns (Broad's; case and
    spaces do not matter). A probe listed twice with two symbols is an error naming both
    lines; listed twice with one symbol, it is kept once and noted.

    References
    ----------
    .. [1] Broad Institute, GSEA User Guide: CHIP file format (Data formats).

    Examples
    --------
    >>> import io
    >>> read_chip(io.StringIO("Probe Set ID\\tGene Symbol\\n1007_s_at\\tDDR1\\n"))
    {'1007_s_at': 'DDR1'}
    """
    text, where = open_text(source)
    lines = [(no, ln) for no, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if not lines:
        raise ValueError(f"{where}: the CHIP file is empty")
    no0, head = lines[0]
    cols = [c.strip().lower().replace(" ", "").replace("_", "") for c in head.split("\t")]
    try:
        i_probe, i_symbol = cols.index("probesetid"), cols.index("genesymbol")
    except ValueError:
        raise ValueError(f"{where} line {no0}: a CHIP header names the columns 'Probe Set ID' "
                         f"and 'Gene Symbol' (tab-separated), got {head[:80]!r}") from None
    i_title = cols.index("genetitle") if "genetitle" in cols else None
    chip, seen = Chip(), {}
    chip.titles = {}
    no_symbol, repeated = 0, 0
    for no, line in lines[1:]:
        fields = line.split("\t")
        probe = fields[i_probe].strip() if i_probe < len(fields) else ""
        if not probe:
            raise ValueError(f"{where} line {no}: probe name missing")
        symbol = fields[i_symbol].strip() if i_symbol < len(fields) else ""
        if probe in seen:
            if chip.get(probe, "") != (symbol if symbol not in _NO_SYMBOL else ""):
                raise ValueError(f"{where} line {no}: probe {probe!r} appears again (line "
                                 f"{seen[probe]}) with another symbol")
            repeated += 1
            continue
        seen[probe] = no
        if symbol in _NO_SYMBOL:
            no_symbol += 1
            continue
        chip[probe] = symbol
        if i_title is not None and i_title < len(fields):
            chip.titles[probe] = fields[i_title].strip()
    notes = []
    if no_symbol:
        notes.append(f"{no_symbol:,} probes without a gene symbol left out")
    if repeated:
        notes.append(f"{repeated:,} repeated probe lines (same symbol) read once")
    chip.input = ReadInfo(where, "CHIP probes with a gene symbol", (len(chip),),
                          notes=tuple(notes))
    return chip


def collapse_probes(data, chip=None, *, mode="Max_probe", collapse="Collapse"):
    """Collapse probe-level data to one row per gene, as Broad's GSEA does.

    Parameters
    ----------
    data : DataFrame or Series
        Probes x samples (a GCT as :func:`read_gct` reads it) or one statistic per probe (a
        ranked list), indexed by probe; repeated index names are allowed.
    chip : dict, Chip or path, optional
        probe -> gene symbol (a CHIP file). Without one, rows that share a name are collapsed.
    mode : str, optional
        Broad's ``Max_probe`` (default), ``Median_of_probes``, ``Mean_of_probes``,
        ``Sum_of_probes`` or ``Abs_max_of_probes``.
    collapse : str, optional
        Broad's ``Collapse`` (default), ``Remap_Only`` or ``No_Collapse``.

    Returns
    -------
    DataFrame or Series
        One row per gene, genes in order of first appearance; ``attrs["mapping"]`` is the
        mapping table (probe, gene, kept: whether the probe's values reached the gene's row;
        with ``Max_probe``/``Abs_max_of_probes`` per sample, a probe counts as kept) and
        ``attrs["collapse"]`` one line saying what was done (probes dropped, genes made).

    See Also
    --------
    read_chip : the CHIP reader.

    Notes
    -----
    Probes absent from the CHIP, or without a symbol, are dropped and counted. Missing values
    are skipped per sample (a gene with no value in a sample gets NaN there). Broad's
    ``Max_probe`` takes, per sample, the largest value; ``Abs_max_of_probes`` the value of
    largest magnitude with its sign (when a and -a tie, a).

    References
    ----------
    .. [1] Broad Institute, GSEA User Guide: Collapse Dataset (collapse modes).

    Examples
    --------
    >>> import pandas as pd
    >>> expr = pd.DataFrame({"a": [1.0, 2.0, 7.0]}, index=["p1", "p2", "p3"])
    >>> genes = collapse_probes(expr, {"p1": "G", "p2": "G", "p3": "H"}, mode="Mean_of_probes")
    >>> genes["a"].to_dict(), genes.attrs["collapse"]
    ({'G': 1.5, 'H': 7.0}, 'Mean_of_probes: 3 rows -> 2 genes')
    """
    mode = _choice(mode, MODES, "mode")
    collapse = _choice(collapse, COLLAPSE, "collapse")
    series = isinstance(data, pd.Series)
    frame = data.to_frame() if series else data
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"data must be a DataFrame or a Series, got {type(data).__name__}")
    probes = [str(p) for p in frame.index.to_numpy(dtype=object)]   # fast on string arrays
    if collapse == "No_Collapse":
        if len(set(probes)) != len(probes):
            raise ValueError("data: repeated row names with collapse='No_Collapse'; collapse "
                             "them (collapse='Collapse' with a mode, and a CHIP file if the "
                             "rows are probes)")
        return data
    if isinstance(chip, (str, bytes)) or hasattr(chip, "__fspath__") or hasattr(chip, "read"):
        chip = read_chip(chip)
    if chip is None:
        if collapse == "Remap_Only":
            raise ValueError("collapse='Remap_Only' needs a chip (probe -> symbol)")
        genes = probes
    else:
        if not isinstance(chip, dict):
            raise TypeError(f"chip must be a dict, a Chip or a path, got {type(chip).__name__}")
        genes = [chip.get(p) for p in probes]
    mapped = np.array([g is not None for g in genes])
    if not mapped.any():
        raise ValueError(f"data: none of its {len(probes):,} row names is a probe of the chip "
                         f"(first rows: {probes[:3]}); check the CHIP file")
    values = frame.to_numpy(dtype=np.float64)[mapped]
    kept_genes = [g for g in genes if g is not None]
    codes, uniques = pd.factorize(pd.Index(kept_genes), sort=False)
    if collapse == "Remap_Only" and len(uniques) != len(kept_genes):
        dup = pd.Index(kept_genes)[pd.Index(kept_genes).duplicated()][0]
        raise ValueError(f"collapse='Remap_Only': several probes map to {dup!r}; use "
                         "collapse='Collapse' with a mode")
    out = _reduce(values, codes, len(uniques), mode)
    result = pd.DataFrame(out, index=pd.Index(list(uniques), name=frame.index.name or "NAME"),
                          columns=frame.columns)
    mapping = pd.DataFrame({"probe": probes,
                            "gene": [g if g is not None else "" for g in genes],
                            "kept": mapped})
    dropped = int((~mapped).sum())
    note = (f"{mode}: {len(probes):,} rows -> {len(uniques):,} genes"
            + (f"; {dropped:,} rows without a gene symbol dropped" if dropped else ""))
    if series:
        result = result.iloc[:, 0]
        result.name = data.name
    result.attrs["mapping"] = mapping
    result.attrs["collapse"] = note
    return result


def _reduce(values: np.ndarray, codes: np.ndarray, n_genes: int, mode: str) -> np.ndarray:
    """Per gene (rows grouped by ``codes``, 0 .. n_genes - 1) and column, Broad's ``mode``
    over the non-missing values (NaN where a gene has none in a column)."""
    if mode == "Median_of_probes":
        out = pd.DataFrame(values).groupby(codes, sort=True).median()
        return out.reindex(np.arange(n_genes)).to_numpy(dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    v = values[order]
    starts = np.searchsorted(codes[order], np.arange(n_genes))
    with np.errstate(invalid="ignore", divide="ignore"):
        if mode == "Max_probe":
            return np.fmax.reduceat(v, starts, axis=0)
        if mode == "Abs_max_of_probes":
            hi, lo = np.fmax.reduceat(v, starts, axis=0), np.fmin.reduceat(v, starts, axis=0)
            return np.where(np.isnan(lo) | (hi >= -lo), hi, lo)
        count = np.add.reduceat((~np.isnan(v)).astype(np.int64), starts, axis=0)
        total = np.add.reduceat(np.nan_to_num(v, nan=0.0), starts, axis=0)
        total = np.where(count > 0, total, np.nan)
        return total if mode == "Sum_of_probes" else total / count
