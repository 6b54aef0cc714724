"""What ``oclstat ssgsea``, ``oclstat gsva`` and ``oclstat aucell`` share: reading the
expression (GCT, Broad's TXT, a plain TSV/CSV table of genes x samples, or an AnnData .h5ad),
their common flags, and writing the sets x samples scores as TSV."""

from __future__ import annotations

import time
from pathlib import Path

from .. import _readers as readers  # its readers import pandas when first used
from ._common import note, read_line, say, show_top
from ._outputs import output

__all__ = ["common_flags", "read_scores_input", "finish"]


def common_flags(p) -> None:
    """The input, gene-set, size and output flags of the three commands."""
    p.add_argument("--expr", required=True,
                   help="expression, genes x samples: GCT, Broad's TXT (NAME, DESCRIPTION, "
                        "samples), a TSV/CSV table with gene names in the first column, or "
                        "an AnnData .h5ad (cells x genes; .X or --layer)")
    p.add_argument("--layer", default=None, help="the .h5ad layer to score (default .X)")
    p.add_argument("--gmt", required=True,
                   help="gene sets: GMT, or GMX (one set per column) by its .gmx name")
    p.add_argument("--min-size", type=int, default=1,
                   help="smallest set size in the data's genes (GSVA's min.sz; default 1)")
    p.add_argument("--max-size", type=int, default=None,
                   help="largest set size (GSVA's max.sz; default no limit)")
    p.add_argument("--out", default=None,
                   help="write the scores (TSV: gene sets x samples, as GSVA's matrix); - for "
                        "standard output")


def _h5ad(path: str):
    try:
        import anndata
    except ImportError:
        raise ValueError(f"reading {path} needs anndata: pip install 'oclstat[singlecell]'") \
            from None
    return anndata.read_h5ad(path)


def read_scores_input(args):
    """``(expression, gene sets, what was read)``: the expression as a DataFrame or an
    AnnData (an .h5ad by its name), the gene sets as a dict."""
    path = str(args.expr)
    sets = readers.read_gene_set_file(args.gmt)
    if path.endswith(".h5ad"):
        ad = _h5ad(path)
        return ad, sets, f"read: {path}: {ad.n_obs:,} cells x {ad.n_vars:,} genes (AnnData" \
            f"{', layer ' + args.layer if getattr(args, 'layer', None) else ', .X'}); " + \
            read_line(sets.input).removeprefix("read: ")
    if getattr(args, "layer", None) is not None:
        raise ValueError(f"--layer {args.layer}: layers are in AnnData (.h5ad) files, and "
                         f"{path} is a table")
    with open(path, "rb") as fh:
        head = fh.read(4096)
    gzipped = head[:2] == b"\x1f\x8b"
    if gzipped:
        import gzip

        with gzip.open(path, "rb") as fh:
            head = fh.read(4096)
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace").strip().lower()
    if first.startswith("#1.") or first.startswith("name\tdescription"):
        expr = readers.read_expression(path)
        info = read_line(readers.combined([expr.attrs.get("input"), sets.input]))
    else:
        expr, what = read_matrix(path, gzipped)
        info = f"read: {what}; " + read_line(sets.input).removeprefix("read: ")
    return expr, sets, info


#: How much of an expression table its delimiter and decimal mark are worked out from: at most
#: SNIFF_LINES lines, and no more than 20 once they make up SNIFF_CHARS characters.
SNIFF_LINES, SNIFF_CHARS = 200, 1 << 18

#: Missing values in expression tables (as the project's readers; nothing else is missing).
_MISSING = ["NA", "NaN", ""]


def read_matrix(path: str, gzipped: bool):
    """A genes x samples table with a header row and gene names in the first column (as
    asked: ``--expr`` says so): its delimiter and decimal mark are worked out from its first
    200 lines (fewer for a wide table: 256 KiB, at least 20 lines) by the project's readers
    (which refuse what they cannot tell), then the whole
    file is parsed with correct rounding, gene names kept as written (``007`` stays ``007``):
    by pyarrow's multi-threaded reader where it is installed (the ``singlecell`` extra) and
    the table is plainly delimited, else by pandas' C parser with ``round_trip`` (pandas'
    faster default misreads about a quarter of 17-digit values by a unit in the last place).
    A 20,000 x 500 table of 17-digit values: about 1.5 s with pyarrow, 6 s without (2 cores).
    """
    import gzip
    import io

    import numpy as np
    import pandas as pd

    from .._readers.text import tokenize

    opener = gzip.open if gzipped else open
    lines, size = [], 0
    with opener(path, "rt", encoding="utf-8", newline="") as fh:
        for line in fh:              # 200 lines, or 20 or more making up 256 KiB (wide tables)
            lines.append(line)
            size += len(line)
            if len(lines) == SNIFF_LINES or (len(lines) >= 20 and size >= SNIFF_CHARS):
                break
    head = "".join(lines)
    tokens = tokenize(io.StringIO(head))
    if not tokens.rows:
        raise ValueError(f"{path}: empty expression table")
    header = tokens.rows[0].texts()
    short = len(tokens.rows) > 1 and len(header) < len(tokens.rows[1])  # R: no corner cell
    samples = header if short else header[1:]
    repeated = sorted({name for name in samples if samples.count(name) > 1})
    if repeated:                          # pandas would rename one ("s1.1"), pyarrow keep both
        raise ValueError(f"{path}: sample name {repeated[0]!r} appears more than once in the "
                         "header")
    plain = (tokens.delimiter is not None and len(tokens.delimiter) == 1
             and not tokens.decimal_comma and not tokens.trailing_delimiter)
    # R's write.table leaves out the corner cell: both parsers get the columns named here
    names = ["", *samples] if short else None
    frame = _read_arrow(path, tokens.delimiter, gzipped, names) if plain else None
    if frame is None:
        sep = tokens.delimiter if tokens.delimiter is not None else r"\s+"
        frame = pd.read_csv(path, sep=sep, index_col=0, dtype={0: str},
                            decimal="," if tokens.decimal_comma else ".",
                            compression="gzip" if gzipped else None, na_values=_MISSING,
                            keep_default_na=False, float_precision="round_trip",
                            **({"names": names, "skiprows": 1} if names else {}))
        frame.index.name = frame.index.name or None
    if tokens.trailing_delimiter and frame.shape[1] and frame.iloc[:, -1].isna().all():
        frame = frame.iloc[:, :-1]
    bad = [c for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if bad:
        raise ValueError(f"{path}: column {bad[0]!r} is not numeric (expected gene names in "
                         "the first column and one numeric column per sample)")
    frame.index = frame.index.astype(str)
    what = (f"{path}: {frame.shape[0]:,} x {frame.shape[1]:,} expression table "
            f"({tokens.delimiter_name}-separated{', decimal comma' if tokens.decimal_comma else ''}"
            "; header row and gene names in the first column, as --expr reads them)")
    return (frame if (frame.dtypes == np.float64).all() else frame.astype(float)), what


def _read_arrow(path: str, delimiter: str, gzipped: bool, names=None):
    """The table through pyarrow's CSV reader (correctly rounded, every core), the first
    column read as text (``names``: the columns, the header line skipped); None where pyarrow
    is not installed."""
    import numpy as np
    import pandas as pd

    try:
        import pyarrow as pa
        from pyarrow import csv
    except ImportError:
        return None

    def stream():
        return pa.input_stream(path, compression="gzip" if gzipped else None)

    parse = csv.ParseOptions(delimiter=delimiter)
    read = csv.ReadOptions(column_names=names, skip_rows=1) if names else csv.ReadOptions()
    if names:
        first = names[0]
    else:
        with csv.open_csv(stream(), parse_options=parse) as reader:     # the header's names
            first = reader.schema.names[0]
    table = csv.read_csv(stream(), read_options=read, parse_options=parse,
                         convert_options=csv.ConvertOptions(
                             column_types={first: pa.string()}, null_values=_MISSING,
                             strings_can_be_null=True))
    # one float64 block straight from the columns (to_pandas and a cast: 2 to 4 times longer)
    values = np.empty((table.num_rows, table.num_columns - 1))
    for j, (name, column) in enumerate(zip(table.column_names[1:], table.columns[1:],
                                           strict=True)):
        kind = column.type
        if pa.types.is_null(kind):                   # an empty column: all missing
            values[:, j] = np.nan
        elif pa.types.is_integer(kind) or pa.types.is_floating(kind):
            values[:, j] = column.to_numpy()
        else:
            raise ValueError(f"{path}: column {name!r} is not numeric (expected gene names in "
                             "the first column and one numeric column per sample)")
    index = pd.Index(table.column(0).to_pylist(), name=first or None)  # "" corner: no name
    return pd.DataFrame(values, index=index, columns=table.column_names[1:])


def finish(args, scores, what: str, read: str, started: float, device: str = "") -> int:
    """Write the scores, show the first rows, and note what was done."""
    elapsed = time.perf_counter() - started
    with output(args.out, "--out") as fh:
        if fh is not None:
            scores.to_csv(fh, sep="\t", float_format="%.10g")
    shown = scores.iloc[:, :6].reset_index()
    shown["gene_set"] = [n if len(n) <= 40 else n[:39] + "…" for n in shown["gene_set"]]
    show_top(args, shown, "sets (first samples)")
    note(read, f"{what}: {scores.shape[0]:,} sets x {scores.shape[1]:,} samples"
         f"{'; ' + device if device else ''}, {elapsed:.2f} s"
         + (f"; wrote {Path(args.out).name}" if args.out and args.out != "-" else ""))
    say(args, "")
    return 0
