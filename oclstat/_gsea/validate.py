"""Checks of GSEA's inputs: expression, phenotype (aligned to the samples by label), gene
sets restricted to the data and filtered by size."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import io as _io
from .._labels import aligned, is_default_index
from .._readers.cls import ContinuousPhenotype, Phenotype
from .._readers.text import is_path
from .core import PROFILE_METRICS

#: Metrics of two classes.
CLASS_METRICS = (
    "signal_to_noise",
    "t_test",
    "diff_of_classes",
    "ratio_of_classes",
    "log2_ratio_of_classes",
    "abs_signal_to_noise",
)
#: Every ranking metric: the class metrics, then those of a continuous profile.
METRICS = CLASS_METRICS + PROFILE_METRICS

#: Broad's and GSEApy's names (any case) for the metrics.
_ALIASES = {"s2n": "signal_to_noise", "signal2noise": "signal_to_noise",
            "abs_s2n": "abs_signal_to_noise", "ttest": "t_test",
            "manhatten": "manhattan"}   # Broad's old spelling, which it still reads


def metric_name(metric, continuous: bool | None = None) -> str:
    """The metric's name here from ours, Broad's (``Signal2Noise``, ``tTest``,
    ``Ratio_of_Classes``, ``Pearson``, ...) or GSEApy's (``s2n``, ``abs_s2n``); None picks
    signal_to_noise for classes and pearson for a continuous profile. A metric of the other
    kind of phenotype is an error, as in Broad's GSEA.

    >>> metric_name("Signal2Noise"), metric_name(None, continuous=True)
    ('signal_to_noise', 'pearson')
    """
    if metric is None:
        return "pearson" if continuous else "signal_to_noise"
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a string, got {type(metric).__name__}")
    key = metric.strip().lower()
    name = _ALIASES.get(key, key)
    if name not in METRICS:
        raise ValueError(f"metric must be one of {METRICS} (or Broad's and GSEApy's names: "
                         f"Signal2Noise, tTest, s2n, abs_s2n, ...), got {metric!r}")
    if continuous is True and name in CLASS_METRICS:
        raise ValueError(f"metric {metric!r} compares two classes; a continuous phenotype "
                         f"needs one of {PROFILE_METRICS}")
    if continuous is False and name in PROFILE_METRICS:
        raise ValueError(f"metric {metric!r} is for a continuous phenotype (a profile); two "
                         f"classes need one of {CLASS_METRICS}")
    return name


@dataclass(frozen=True)
class Design:
    """The samples' phenotype as the metric reads it: two classes (``mask``, class A) or a
    continuous ``template``; ``kept`` the samples used (None: all; a comparison A_versus_B
    leaves out the other classes' samples); ``classes`` (A, B), or ("na_pos", "na_neg") for
    a profile (Broad's names for the two ends of a continuous ranking), ``profile`` its name."""

    mask: np.ndarray | None
    template: np.ndarray | None
    classes: tuple
    kept: np.ndarray | None = None
    profile: str | None = None

    @property
    def pheno(self) -> np.ndarray:
        """What the metric takes: the mask or the template."""
        return self.mask if self.template is None else self.template


def _expression(expression, genes):
    if is_path(expression):
        expression = _io.read_expression(expression)
    if isinstance(expression, pd.DataFrame):
        if genes is not None:
            raise ValueError("genes= is only for array input; a DataFrame's index names the genes")
        names = [str(g) for g in expression.index]
        samples = None if is_default_index(expression.columns) else list(expression.columns)
        try:
            values = expression.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError("expression must hold numbers only (genes x samples)") from None
    else:
        values = np.asarray(expression)
        if values.dtype.kind not in "iuf":
            raise TypeError(f"expression must be numeric, got dtype {values.dtype}")
        values = values.astype(np.float64)
        if values.ndim != 2:
            raise ValueError(f"expression must be 2-D (genes x samples), got shape {values.shape}")
        if genes is None:
            raise ValueError("genes= (one name per row) is needed when expression is an array")
        names = [str(g) for g in genes]
        if len(names) != values.shape[0]:
            raise ValueError(
                f"genes has {len(names)} names, expression has {values.shape[0]} rows"
            )
        samples = None
    if values.shape[0] < 2 or values.shape[1] < 2:
        raise ValueError(f"expression needs at least 2 genes and 2 samples, got {values.shape}")
    bad = ~np.isfinite(values)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        raise ValueError(
            f"expression has {int(bad.sum())} missing or infinite values in {rows.size} genes "
            f"(first: {names[rows[0]]!r}); remove or impute them first"
        )
    if len(set(names)) != len(names):
        dup = pd.Index(names)[pd.Index(names).duplicated()][0]
        raise ValueError(
            f"expression has duplicate gene name {dup!r}; collapse to one row per gene"
        )
    return values, names, samples


def _phenotype(phenotype, classes, n_samples, samples=None, *, metric=None,
               profile=None) -> tuple[Design, str]:
    """``(design, metric)``: the samples' classes or continuous profile, aligned to
    ``samples`` (the expression's column names, None for an array) when labelled, and the
    metric's name (:func:`metric_name`)."""
    if is_path(phenotype):
        phenotype = _io.read_cls(phenotype)
    if isinstance(phenotype, ContinuousPhenotype):
        if classes is not None:
            raise ValueError("classes= is for two classes; a continuous phenotype takes "
                             "profile=")
        name, values = phenotype.profile(profile)
        metric = metric_name(metric, continuous=True)
        return _profile_design(values, name, n_samples), metric
    continuous = None if metric is None else metric_name(metric) in PROFILE_METRICS
    if continuous:
        if isinstance(phenotype, Phenotype):
            raise ValueError(f"metric {metric!r} needs a continuous phenotype (one number per "
                             "sample, or a #numeric CLS file); got class labels")
        arr = aligned(phenotype, samples, "phenotype", "the expression's samples (columns)")
        try:
            values = arr.astype(np.float64) if arr.dtype.kind in "iufO" else None
        except (TypeError, ValueError):
            values = None
        if arr.ndim != 1 or values is None:
            raise ValueError(f"phenotype: metric {metric!r} needs one number per sample, got "
                             f"{arr.dtype} of shape {arr.shape}")
        named = getattr(phenotype, "name", None)       # a Series names its profile
        name = profile or (str(named) if named is not None else "profile")
        return _profile_design(values, name, n_samples), metric_name(metric)
    if profile is not None:
        raise ValueError("profile= is for continuous phenotypes")
    metric = metric_name(metric, continuous=False)
    if isinstance(phenotype, Phenotype):
        ph = phenotype
    else:
        arr = aligned(phenotype, samples, "phenotype", "the expression's samples (columns)")
        if arr.ndim != 1:
            raise ValueError(f"phenotype must be 1-D (one label per sample), got shape {arr.shape}")
        labels = arr.tolist()
        distinct = list(dict.fromkeys(labels))
        if len(distinct) < 2:
            raise ValueError(f"phenotype must take 2 values, got {len(distinct)}: {distinct}")
        if isinstance(classes, str):
            ph = Phenotype(tuple(labels), tuple(distinct))
        else:
            if classes is None and len(distinct) != 2:
                hint = (" (for a continuous phenotype choose metric='pearson', 'cosine', "
                        "'manhattan' or 'euclidean')" if arr.dtype.kind in "iuf" else "")
                raise ValueError(f"phenotype must take exactly 2 values, got {len(distinct)}: "
                                 f"{distinct[:5]}; choose two with classes='A_versus_B' or "
                                 f"'A_versus_REST'{hint}")
            chosen = tuple(classes) if classes is not None else tuple(distinct)
            if len(chosen) != 2 or chosen[0] == chosen[1]:
                raise ValueError(f"classes must be two distinct labels, got {classes!r}")
            extra = [x for x in distinct if x not in chosen]
            if extra:
                raise ValueError(f"phenotype has labels {extra[:5]} that are not in classes "
                                 f"{chosen!r}; classes='{chosen[0]}_versus_{chosen[1]}' "
                                 "leaves their samples out")
            ph = Phenotype(tuple(labels), chosen)
    if isinstance(classes, str):
        ph = ph.compare(classes)
    elif classes is not None:
        chosen = tuple(classes)
        if len(chosen) != 2 or chosen[0] == chosen[1]:
            raise ValueError(f"classes must be two distinct labels, got {classes!r}")
        if tuple(ph.classes) != chosen:
            ph = ph.versus(*chosen)
    elif len(ph.classes) != 2:
        raise ValueError(f"phenotype has {len(ph.classes)} classes {list(ph.classes)}; choose "
                         "two with classes='A_versus_B' or classes='A_versus_REST'")
    if len(ph.labels) != n_samples:
        raise ValueError(
            f"phenotype has {len(ph.labels)} labels but expression has {n_samples} samples"
        )
    kept = ph.kept
    mask = ph.mask[kept] if not kept.all() else ph.mask
    return Design(mask, None, tuple(ph.classes), None if kept.all() else kept), metric


def _profile_design(values, name, n_samples) -> Design:
    values = np.asarray(values, dtype=np.float64)
    if values.size != n_samples:
        raise ValueError(f"phenotype has {values.size} values but expression has {n_samples} "
                         "samples")
    if not np.all(np.isfinite(values)):
        raise ValueError("phenotype: the profile has missing or infinite values")
    if np.all(values == values[0]):
        raise ValueError("phenotype: the profile is constant; it ranks nothing")
    return Design(None, values, ("na_pos", "na_neg"), None, str(name))

