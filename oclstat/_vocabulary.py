"""One table of names: every public function's arguments as Python, the command line and R
spell them.

A Python argument has one meaning everywhere (``n_resamples`` is the number of random
resamples of every capability, ``seed``/``streams``/``device`` are keyword-only and mean the
same thing in every function). The command line writes it as one flag in every sub-command
(``--resamples``, ``--seed``, ``--device``). The R package follows the R tools its users know
(``B`` as ``fisher.test``, ``nperm``/``minSize`` as fgsea, ``type``/``Nsim`` as gpuRandom), so an
R name is per function; the R bridges choose the device with ``setDevice()`` instead of an
argument. ``tests/test_vocabulary.py`` checks every public signature, every argparse flag and
every R formal against this table, and the command line and both R bridges translate error
messages with it.

>>> ENTRIES["fisher_sim"].r_name("n_resamples"), ENTRIES["gsea"].r_name("n_resamples")
('N', 'nperm')
>>> cli_flag("n_resamples"), cli_flag("min_size")
('--resamples', '--min-size')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Entry", "ENTRIES", "CLI_FLAGS", "KEYWORD_ONLY", "cli_flag", "python_to_r",
           "python_to_cli", "plain_values"]

#: Arguments that place results in an AnnData (scanpy's): no meaning in R or on the command
#: line, which write matrices and files.
_ANNDATA_ONLY = {"inplace": None, "copy": None}

#: Python argument -> command-line flag, the same in every sub-command that offers it
#: (positional command-line arguments are written without dashes).
CLI_FLAGS = {
    "seed": "--seed",
    "streams": "--streams",
    "device": "--device",
    "client": "--scheduler",
    "dtype": "--dtype",
    "n_resamples": "--resamples",
    "n_windows": "--windows",
    "alternative": "--alternative",
    "mid_p": "--mid-p",
    "metric": "--metric",
    "weight": "--weight",
    "min_size": "--min-size",
    "nan_policy": "--nan-policy",
    "max_size": "--max-size",
    "case_sensitive": "--case-insensitive",
    "order": "--order",
    "score": "--score",
    "top": "--top",
    "layout": "--layout",
    "phenotype_name": "--phenotype-name",
    "backend": "--backend",
    "n_sim": "--n-sim",
    "params": "--param",
    "size": "--n",
    "low": "--low",
    "high": "--high",
    "loc": "--loc",
    "scale": "--scale",
    "rate": "--rate",
    "header": "--header",
    "row_names": "--row-names",
    "return_statistics": "--statistics",
    "conf_level": "--conf-level",
    "hybrid": "--hybrid",
    "hybrid_pars": "--hybrid-pars",
    "max_entries": "--max-entries",
    "max_seconds": "--max-seconds",
    "null_odds_ratio": "--null-odds-ratio",
    "method": "--method",
    "two_sided": "--two-sided",
    "groups": "--groups",
    "eps": "--eps",
    "sample_size": "--sample-size",
    "score_type": "--score-type",
    "chip": "--chip",
    "collapse": "--collapse",
    "collapse_mode": "--mode",
    "table": "table",
    "estimate": "--estimate",
    "level": "--level",
    "tol": "--tol",
}

#: Arguments that are keyword-only in every public function that has them.
KEYWORD_ONLY = ("seed", "streams", "device", "client", "progress", "dtype")


@dataclass(frozen=True)
class Entry:
    """One public function: its command-line sub-command and R function (None: not offered
    there), the R name of each argument that R spells differently or leaves out (None: R has
    no such argument), other command-line spellings, and the flags and formals with no Python
    argument."""

    cli: str | None = None
    r: str | None = None
    r_names: dict = field(default_factory=dict)
    cli_names: dict = field(default_factory=dict)
    not_in_cli: tuple = ()
    cli_only: tuple = ()
    r_only: tuple = ()

    def r_name(self, python: str) -> str | None:
        """The R formal of Python argument ``python`` (None where R has none)."""
        if python in self.r_names:
            return self.r_names[python]
        return None if python in _NOT_IN_R else python

    def cli_names_of(self, python: str) -> tuple[str, ...]:
        """The command-line flags of Python argument ``python`` (empty where the command line
        leaves it out); KeyError for an argument this table does not place."""
        if python in self.cli_names:
            value = self.cli_names[python]
            return value if isinstance(value, tuple) else (value,)
        if self.cli is None or python in self.not_in_cli or python in _NOT_IN_CLI:
            return ()
        return (CLI_FLAGS[python],)


#: Arguments no R function takes (the device comes from setDevice(); Python-only options).
_NOT_IN_R = {"device", "client", "progress", "out", "return_null", "return_statistics",
             "dtype", "axis", "case_sensitive", "genes", "layout"}

#: Arguments the command line leaves out (it writes files and shows its own progress).
_NOT_IN_CLI = {"progress", "out", "return_null", "axis", "genes", "classes"}

_FILES = ("--out",)
_TABLE_LAYOUT = ("--header", "--row-names")
#: clrng's arguments of its draws (work sizes, printing) that Python has no use for.
_CLRNG = ("Nglobal", "verbose")
_DRAW = {"size": "n", "dtype": "type", "low": None, "high": None, "loc": None, "scale": None}

#: Public function (its name under ``oclstat``) -> its names.
ENTRIES: dict[str, Entry] = {
    "fisher_test": Entry(
        cli="fisher", r="fisherTest",
        r_names={"table": "x", "n_resamples": "B", "null_odds_ratio": "or",
                 "conf_level": "conf.level", "hybrid_pars": "hybridPars", "method": None,
                 "max_entries": None, "max_seconds": None, "streams": None},
        r_only=("y", "workspace", "control", "conf.int", "simulate.p.value"),
        not_in_cli=("streams",), cli_only=(*_FILES, *_TABLE_LAYOUT)),
    "fisher_sim": Entry(r="fisher.sim",
                        r_names={"table": "x", "n_resamples": "N", "dtype": "type",
                                 "return_statistics": "returnStatistics"},
                        r_only=("Nglobal", "verbose", "B")),
    "fisher_sim_batch": Entry(r_names={"tables": None, "n_resamples": None}),
    "random_table": Entry(r_names={"row_sums": None, "col_sums": None, "size": None}),
    "permutation_test": Entry(
        cli="permtest", r="permTest",
        r_names={"n_windows": "nWindows", "mid_p": "midP", "two_sided": "twoSided",
                 "classes": None},
        cli_names={"x": ("a", "--data"), "y": "b"}, cli_only=(*_FILES, *_TABLE_LAYOUT)),
    "gsea": Entry(
        cli="gsea", r="gsea",
        r_names={"expression": "expr", "phenotype": "labels", "gene_sets": "geneSets",
                 "n_resamples": "nperm", "min_size": "minSize", "max_size": "maxSize",
                 "classes": "classes", "profile": None, "chip": None, "collapse": None,
                 "collapse_mode": None},
        cli_names={"expression": ("--expr", "--gct"), "phenotype": "--cls",
                   "gene_sets": "--gmt", "permutation": "--permute", "classes": "--classes",
                   "profile": "--profile"},
        not_in_cli=("classes", "genes", "dtype", "return_null"),
        cli_only=(*_FILES, "--plot", "--plot-set", "--report", "--perms")),
    "gsea_prerank": Entry(
        cli="prerank", r="fgseaGpu",
        r_names={"ranking": "stats", "gene_sets": "pathways", "n_resamples": "nPermSimple",
                 "min_size": "minSize", "max_size": "maxSize", "sample_size": "sampleSize",
                 "weight": "gseaParam", "score_type": "scoreType", "chip": None,
                 "collapse": None, "collapse_mode": None},
        r_only=("nproc", "BPPARAM"),
        cli_names={"ranking": "--rnk", "gene_sets": "--gmt"}, not_in_cli=("dtype",),
        cli_only=(*_FILES, "--plot", "--plot-set", "--report", "--header")),
    "ssgsea": Entry(
        cli="ssgsea", r="ssgseaGpu",
        r_names={"expression": "expr", "gene_sets": "gset.idx.list", "alpha": "tau",
                 "normalize": "ssgsea.norm", "min_size": "min.sz", "max_size": "max.sz",
                 "nan_policy": "use", "samples": None, "layer": "assay", **_ANNDATA_ONLY},
        r_only=("parallel.sz", "verbose"),
        cli_names={"expression": "--expr", "gene_sets": "--gmt", "alpha": "--alpha",
                   "normalize": "--no-normalize", "flavor": "--flavor", "layer": "--layer"},
        not_in_cli=("samples", *_ANNDATA_ONLY), cli_only=_FILES),
    "gsva": Entry(
        cli="gsva", r="gsvaGpu",
        r_names={"expression": "expr", "gene_sets": "gset.idx.list",
                 "abs_ranking": "abs.ranking", "mx_diff": "mx.diff", "min_size": "min.sz",
                 "max_size": "max.sz", "nan_policy": "use", "samples": None, "layer": "assay",
                 **_ANNDATA_ONLY},
        r_only=("parallel.sz", "verbose"),
        cli_names={"expression": "--expr", "gene_sets": "--gmt", "kcdf": "--kcdf",
                   "abs_ranking": "--abs-ranking", "tau": "--tau", "mx_diff": "--no-mx-diff",
                   "tabulated": "--exact-cdf", "sparse": "--sparse", "layer": "--layer"},
        not_in_cli=("samples", *_ANNDATA_ONLY), cli_only=_FILES),
    "zscore": Entry(
        r="zscoreGpu",
        r_names={"expression": "expr", "gene_sets": "gset.idx.list", "min_size": "min.sz",
                 "max_size": "max.sz", "samples": None, "layer": "assay",
                 "nonzero_only": None, **_ANNDATA_ONLY},
        r_only=("parallel.sz", "verbose")),
    "plage": Entry(
        r="plageGpu",
        r_names={"expression": "expr", "gene_sets": "gset.idx.list", "min_size": "min.sz",
                 "max_size": "max.sz", "samples": None, "layer": "assay",
                 "nonzero_only": None, **_ANNDATA_ONLY},
        r_only=("parallel.sz", "verbose")),
    "aucell": Entry(
        cli="aucell",
        cli_names={"expression": "--expr", "gene_sets": "--gmt", "max_rank": "--max-rank",
                   "normalize": "--no-normalize", "ties": "--ties", "layer": "--layer"},
        not_in_cli=("samples", *_ANNDATA_ONLY), cli_only=_FILES),
    "geseca": Entry(
        cli="geseca", r="geseca",
        cli_names={"expression": "--expr", "gene_sets": "--gmt", "center": "--no-center"},
        not_in_cli=("samples", "dtype"), cli_only=_FILES,
        r_names={"expression": "E", "gene_sets": "pathways", "min_size": "minSize",
                 "max_size": "maxSize", "n_resamples": "nPermSimple",
                 "sample_size": "sampleSize", "method": None, "samples": None, "seed": None},
        r_only=("nproc", "BPPARAM")),
    "ora": Entry(
        cli="ora", r="fora",
        r_names={"genes": "genes", "gene_sets": "pathways", "min_size": "minSize",
                 "max_size": "maxSize", "overlap_genes": None},
        cli_names={"genes": "--genes", "gene_sets": "--gmt", "universe": "--universe",
                   "overlap_genes": "--no-overlap-genes"},
        cli_only=("--out",)),
    "collapse_pathways": Entry(
        r="collapsePathways",
        r_names={"result": "fgseaRes", "gene_sets": "pathways", "ranking": "stats",
                 "pval_threshold": "pval.threshold", "n_resamples": "nperm",
                 "weight": "gseaParam"}),
    "epistasis": Entry(
        cli="epistasis", r="epistasis",
        r_names={"snps": "snpNames", "keep_allele_order": "keepAlleleOrder",
                 "covariates": None, "out": None, "job": None, "resume": None},
        cli_names={"genotypes": ("--bfile", "--pfile", "--vcf", "--bcf", "--tfile", "--csv"),
                   "phenotype": "--pheno", "test": "--test", "epi1": "--epi1",
                   "epi2": "--epi2", "covariates": "--covar", "cellmin": "--je-cellmin",
                   "keep_allele_order": "--keep-allele-order", "out": "--out",
                   "job": "--parallel", "resume": "--no-resume"},
        not_in_cli=("snps",),
        cli_only=(*_FILES, *_TABLE_LAYOUT, "--devices", "--epi-cc", "--phenotype-name",
                  "--score", "--pheno-name", "--covar-name", "--extract", "--exclude", "--keep",
                  "--remove", "--1", "--id-delim", "--double-id", "--const-fid")),
    "epistasis_merge": Entry(
        cli="epistasis-merge", cli_names={"out": "prefix", "n_jobs": "n_jobs",
                                          "test": "--test"}),
    "matern_cov": Entry(r="maternBatch", r_names={"dtype": "type"}, r_only=("layout",)),
    "solve_triangular_batch": Entry(
        r="backsolveBatch", r_names={"a": "A", "b": "B", "unit_diagonal": "unitDiagonal"}),
    "crossprod_batch": Entry(r="crossprodBatch", r_names={"a": "A", "b": "B", "d": "D"}),
    "gemm_batch": Entry(r="gemmBatch", r_names={"a": "A", "b": "B", "c": "C",
                                               "trans_a": "transA", "trans_b": "transB"}),
    "matern_loglik": Entry(r="getProfLogL",
                           r_names={"coords": "data", "y": "formula", "X": "coordinates",
                                    "method": "reml", "boxcox": "boxcox"},
                           r_only=("type", "NparamPerIter", "gpuElementsOnly", "Nglobal",
                                   "Nlocal", "NlocalCache", "verbose")),
    "fit_matern": Entry(
        cli="fit-matern", r="likfitLgmGpu",
        r_names={"coords": "data", "y": "formula", "params": "param",
                 "estimate": "paramToEstimate", "method": "reml", "level": "cilevel",
                 "grid": None, "profile2d": "profile2d"},
        r_only=("coordinates", "params", "boxcox", "type", "NparamPerIter", "df",
                "minustwotimes", "Nglobal", "Nlocal", "NlocalCache", "verbose", "model",
                "alpha", "shapeRestrict", "Betas", "sdSpatial", "convexHullForBetas"),
        cli_names={"coords": ("data", "--coords"), "y": "--response", "X": "--covariates",
                   "profiles": "--no-profiles", "profile2d": "--no-profile2d"},
        not_in_cli=("grid",),
        cli_only=(*_FILES, "--png", "--profile-png", "--map-size")),
    "random.qqnorm": Entry(r="qqnormGpu", r_only=(
        "ylim", "mu", "sigma", "lower.tail", "main", "xlab", "ylab", "plot.it", "Nglobal",
        "Nlocal", "type", "verbose")),
    "special.logfact_sum": Entry(r="logfactSum", r_only=("Nglobal",)),
    "special.kv": Entry(),
    "special.log_kv": Entry(),
    "ldl_batch": Entry(r="cholBatch", r_names={"a": "A"}),
    "cholesky_batch": Entry(),
    "multiply_lower_diag": Entry(r="multiplyLowerDiagonalBatch"),
    "simulate_fields": Entry(
        cli="fields", r="simulateFields", r_names={"n_sim": "Nsim", "dtype": "type"},
        cli_names={"coords": ("--nx", "--ny", "--xlim", "--ylim")},
        cli_only=(*_FILES, "--png")),
    "random.create_streams": Entry(r="createStreams", r_names={"on_device": None}),
    "random.uniform": Entry(cli="rng", r="runifGpu", r_names=_DRAW, r_only=_CLRNG,
                            cli_only=(*_FILES, "distribution")),
    "random.normal": Entry(cli="rng", r="rnormGpu", r_names=_DRAW, r_only=_CLRNG),
    "random.exponential": Entry(cli="rng", r="rexpGpu", r_names=_DRAW, r_only=_CLRNG),
    "random.integers": Entry(cli="rng", cli_names={"low": "--low", "high": "--high"}),
    "random.random_raw": Entry(cli="rng"),
    "io.read_gct": Entry(r="readGct", r_names={"source": "path", "duplicates": None}),
    "io.read_cls": Entry(r="readCls", r_names={"source": "path"}),
    "io.read_gmt": Entry(r="readGmt", r_names={"source": "path", "descriptions": None}),
    "io.read_rnk": Entry(r="readRnk", r_names={"source": "path"}),
    "io.read_frame": Entry(),
    "get_runtime": Entry(r="setDevice", r_names={"device": "device"}),
    # the listings show every device with its state; the usable filter is Python's
    "devices": Entry(cli="devices", r="listDevices", r_names={"usable": None},
                     not_in_cli=("usable",)),
}


def cli_flag(python: str) -> str:
    """The command-line flag of Python argument ``python``."""
    return CLI_FLAGS[python]


def _replace(message: str, names: dict) -> str:
    for old, new in sorted(names.items(), key=lambda kv: -len(kv[0])):
        message = re.sub(rf"(?<![\w.-]){re.escape(old)}\b(?!\()", new, message)
    return message


#: numpy scalars as Python prints them (np.float64(1.5), np.int32(2)): their plain values.
_NUMPY_SCALAR = re.compile(r"\bnp\.(?:float|int|uint|complex|bool|str)_?\d*\(([^()]*)\)")
#: Python keyword syntax in a message: name=value (value quoted, numpy, or a word).
_KEYWORD = re.compile(r"(?<![\w.-])([a-z][a-z0-9_]*)=(\'[^\']*\'|\"[^\"]*\"|(?:np|numpy)"
                      r"\.\w+|[\w.+-]+)?")
#: Flags that take yes/no/auto.
_YES_NO = {"--header", "--row-names"}


def plain_values(message: str) -> str:
    """A message with numpy scalars written as plain numbers (``np.float64(1.5)`` -> 1.5)."""
    return _NUMPY_SCALAR.sub(r"\1", message)


def _cli_keyword(match, flags=None) -> str:
    name, value = match.group(1), match.group(2)
    flag = (flags or CLI_FLAGS).get(name)
    if flag is None or not flag.startswith("--"):
        return match.group(0)
    if value is None:
        return flag
    if value == "None":
        return f"{flag} (not given)"
    value = value.strip("'\"")
    if value.startswith(("np.", "numpy.")):
        value = value.split(".", 1)[1]
    if flag in _YES_NO and value in ("True", "False"):
        value = "yes" if value == "True" else "no"
    elif value == "True":
        return flag
    elif value == "False":
        return f"no {flag}"
    return f"{flag} {value}"


#: An element of an argument in Python's 0-based index notation: ``name[3]``, ``a[0, 2, 2]``.
_INDEX = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)\[(\d+(?:, *\d+)*)\]")


def _one_based(indices: str) -> str:
    return ", ".join(str(int(i) + 1) for i in indices.split(","))


def python_to_cli(message: str, command: str | None = None) -> str:
    """An error message with Python argument names written as command-line flags: ``name=
    value`` as ``--name value`` (True/False as yes/no where the flag takes them, None as "not
    given"), bare names with an underscore as their flags, numpy scalars as plain numbers,
    and an element of a repeatable option counted from 1 (``params[0]`` is the first
    ``--param``); ``command``'s own spellings (``classes=`` is ``--classes`` in ``oclstat
    gsea``) first."""
    flags = dict(CLI_FLAGS)
    for entry in ENTRIES.values():
        if command is not None and entry.cli == command:
            flags.update({k: v for k, v in entry.cli_names.items()
                          if isinstance(v, str) and v.startswith("--")})

    def element(match):
        flag = flags.get(match.group(1))
        if flag is None or not flag.startswith("--") or "," in match.group(2):
            return match.group(0)
        return f"{flag} #{int(match.group(2)) + 1}"

    message = _INDEX.sub(element, plain_values(message))
    message = _KEYWORD.sub(lambda m: _cli_keyword(m, flags), message)
    names = {k: v for k, v in flags.items() if v.startswith("--") and "_" in k}
    return _replace(message, names)


def _r_literal(value: str) -> str:
    if value in ("True", "False", "None"):
        return {"True": "TRUE", "False": "FALSE", "None": "NULL"}[value]
    if value.startswith("'") and value.endswith("'"):
        return '"' + value[1:-1] + '"'
    if value.startswith(("np.", "numpy.")):
        return '"' + value.split(".", 1)[1].replace("float64", "double").replace(
            "float32", "float") + '"'
    return value


def python_to_r(function: str, message: str) -> str:
    """An error message of ``function`` (a key of :data:`ENTRIES`) with Python argument names
    written as its R formals, ``name=value`` as ``name = value`` with R's literals, and numpy
    scalars as plain numbers."""
    entry = ENTRIES[function]
    names = {k: v for k, v in entry.r_names.items() if v is not None and v != k}

    def keyword(match):
        name, value = match.group(1), match.group(2)
        r = names.get(name, name if entry.r_name(name) else None)
        if r is None:
            return match.group(0)
        return f"{r} = {_r_literal(value)}" if value is not None else f"{r} ="

    def element(match):          # R counts from 1
        name = names.get(match.group(1), match.group(1))
        return f"{name}[{_one_based(match.group(2))}]"

    message = _INDEX.sub(element, plain_values(message))
    message = _KEYWORD.sub(keyword, message)
    return _replace(message, names)
