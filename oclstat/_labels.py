"""Labelled inputs, one rule for every capability: labels are aligned, never trusted by position.

When the inputs of a call carry labels (a pandas DataFrame's index or columns, a Series' index,
a dict's keys) they are matched by label; labels that repeat, or that one input has and the
other lacks, are an error naming them. Positions are used only when neither input is labelled
(plain arrays and lists, or a Series with pandas' default 0..n-1 index).

>>> import pandas as pd
>>> aligned(pd.Series({"s2": 1, "s1": 0}), ["s1", "s2"], "phenotype", "the expression columns")
array([0, 1])
"""

from __future__ import annotations

import numpy as np

__all__ = ["labels_of", "check_unique", "aligned", "is_default_index"]


def is_default_index(index) -> bool:
    """pandas' default RangeIndex 0..n-1 (labels nobody chose)."""
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def labels_of(obj) -> list | None:
    """The labels of a 1-D input (Series index, dict keys), or None when it has none."""
    import pandas as pd

    if isinstance(obj, pd.Series):
        return None if is_default_index(obj.index) else list(obj.index)
    if isinstance(obj, dict):
        return list(obj)
    return None


def check_unique(labels, what: str) -> None:
    """Raise ``ValueError`` naming the first label of ``labels`` that repeats."""
    seen = set()
    for x in labels:
        if x in seen:
            raise ValueError(f"{what}: label {x!r} appears more than once; labels must be unique")
        seen.add(x)


def aligned(values, labels, name: str, target: str) -> np.ndarray:
    """``values`` (a Series or dict keyed by label, or an unlabelled sequence) in the order of
    ``labels`` (the labels of ``target``, or None when the target is unlabelled)."""
    own = labels_of(values)
    if own is None:
        arr = np.asarray(list(values.values()) if isinstance(values, dict) else values)
        return arr
    if labels is None:
        raise ValueError(f"{name} is labelled (e.g. {own[:3]}) but {target} are not: give "
                         f"{target} the same labels, or pass {name} as a plain array")
    check_unique(own, name)
    check_unique(labels, target)
    want, have = set(labels), set(own)
    missing = [x for x in labels if x not in have]
    extra = [x for x in own if x not in want]
    if missing or extra:
        raise ValueError(f"{name} and {target} disagree: {len(missing)} labels of {target} "
                         f"missing from {name} (e.g. {missing[:3]}), {len(extra)} labels of "
                         f"{name} not in {target} (e.g. {extra[:3]})")
    lookup = dict(zip(own, list(values.values()) if isinstance(values, dict)
                      else values.to_numpy(), strict=True))
    return np.asarray([lookup[x] for x in labels])
