"""Broad's phenotype files (CLS): categorical labels of two or more classes, and continuous
(``#numeric``) profiles, with Broad's comparison syntax.

A categorical file is ``N K 1`` / ``# name_1 ... name_K`` / one label per sample. With two
classes the first named is class A. With more, a comparison picks two: ``A_versus_B`` (the
samples of other classes are left out) or ``A_versus_REST`` (every other class is B), written
after the file name as Broad writes it (``data.cls#A_versus_B``) or given as ``comparison=``.
A ``#numeric`` file holds one or more named profiles (``#name`` then one number per sample);
``data.cls#name`` or ``profile=`` picks one.

>>> import io
>>> ph = read_cls(io.StringIO("6 3 1\\n# a b c\\na a b b c c\\n"), comparison="c_versus_REST")
>>> ph.classes, ph.labels
(('c', 'REST'), ('REST', 'REST', 'REST', 'REST', 'c', 'c'))
>>> cp = read_cls(io.StringIO("#numeric\\n#age\\n31 45 52\\n"))
>>> cp.profile()[0], cp.profile()[1].tolist()
('age', [31.0, 45.0, 52.0])
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np

from .._docs import filled
from .inference import Inference, ReadInfo
from .text import is_path, open_text, text_stream

__all__ = ["Phenotype", "ContinuousPhenotype", "read_cls", "write_cls", "split_selector"]

#: Broad's name for "every other class" in ``A_versus_REST``.
REST = "REST"


@dataclass(frozen=True)
class Phenotype:
    """Sample labels: ``labels[i]`` is the class of sample ``i`` (None for a sample a
    comparison leaves out); ``classes`` the class names in the file's order. With two
    classes, the first is class A: its mean comes first in the metrics (signal_to_noise =
    (mean of classes[0] - mean of classes[1]) / ...). ``input`` says what was read when it came
    from a file.

    >>> Phenotype(("a", "b", "a"), ("a", "b")).mask.tolist()
    [True, False, True]
    >>> Phenotype(("a", "b", "c"), ("a", "b", "c")).versus("c", "a").labels
    ('a', None, 'c')
    """

    labels: tuple
    classes: tuple
    input: ReadInfo | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if len(self.classes) < 2 or len(set(self.classes)) != len(self.classes):
            raise ValueError("a phenotype needs two or more distinct classes, got "
                             f"{self.classes!r}")
        bad = sorted({str(x) for x in self.labels if x is not None}
                     - {str(c) for c in self.classes})
        if bad:
            raise ValueError(f"labels {bad} are not one of the classes {self.classes!r}")

    def _two(self, what: str) -> None:
        if len(self.classes) != 2:
            raise ValueError(f"{what}: the phenotype has {len(self.classes)} classes "
                             f"{list(self.classes)}; choose two with a comparison "
                             "('A_versus_B' or 'A_versus_REST': comparison=, classes=, or "
                             "file.cls#A_versus_B)")

    @property
    def mask(self) -> np.ndarray:
        """True for samples of ``classes[0]``."""
        self._two("mask")
        return np.array([x == self.classes[0] for x in self.labels], dtype=bool)

    @property
    def kept(self) -> np.ndarray:
        """True for the samples the phenotype labels (False: left out by a comparison)."""
        return np.array([x is not None for x in self.labels], dtype=bool)

    @property
    def counts(self) -> tuple[int, int]:
        """Samples of class A and of class B."""
        self._two("counts")
        labels = [x for x in self.labels if x is not None]
        a = sum(x == self.classes[0] for x in labels)
        return a, len(labels) - a

    def versus(self, a, b) -> Phenotype:
        """The two-class phenotype ``a`` versus ``b`` (Broad's ``a_versus_b``): samples of
        other classes are left out (label None); ``b`` = "REST" (when no class is so named)
        makes every other class B, relabelled "REST"."""
        names = [str(c) for c in self.classes]
        if str(a) not in names:
            raise ValueError(f"comparison: class {a!r} is not one of {names}")
        a = self.classes[names.index(str(a))]
        if str(b) == REST and REST not in names:
            labels = tuple(None if x is None else (a if x == a else REST) for x in self.labels)
            out = Phenotype(labels, (a, REST))
            how = f"{a!r} versus every other class (REST)"
        else:
            if str(b) not in names:
                raise ValueError(f"comparison: class {b!r} is not one of {names} (or "
                                 f"{REST!r} for every other class)")
            b = self.classes[names.index(str(b))]
            if a == b:
                raise ValueError(f"comparison: {a!r} versus itself")
            labels = tuple(x if x in (a, b) else None for x in self.labels)
            out = Phenotype(labels, (a, b))
            dropped = sum(x is None for x in labels) - sum(x is None for x in self.labels)
            how = f"{a!r} versus {b!r}" + (f", {dropped} samples of other classes left out"
                                           if dropped else "")
        if self.input is not None:
            info = self.input
            kept = [i for i in info.inferences if not i.reading.startswith("class A")]
            out = replace(out, input=replace(info, inferences=(
                *kept, Inference(f"comparison {how}", "", None))))
        return out

    def compare(self, spec: str) -> Phenotype:
        """:meth:`versus` from Broad's ``A_versus_B`` / ``A_versus_REST`` text."""
        a, b = parse_comparison(spec, self.classes)
        return self.versus(a, b)


def parse_comparison(spec, classes) -> tuple:
    """``(A, B)`` of Broad's ``A_versus_B``; class names may hold ``_versus_`` themselves, so
    every split is tried against the known classes (and REST)."""
    text = str(spec)
    names = [str(c) for c in classes] + [REST]
    parts = text.split("_versus_")
    found = []
    for cut in range(1, len(parts)):
        a, b = "_versus_".join(parts[:cut]), "_versus_".join(parts[cut:])
        if a in names and b in names:
            found.append((a, b))
    if len(found) != 1:
        raise ValueError(f"comparison {text!r}: expected 'A_versus_B' or 'A_versus_REST' with "
                         f"A and B among the classes {list(map(str, classes))}"
                         + (" (more than one reading)" if found else ""))
    return found[0]


@dataclass(frozen=True)
class ContinuousPhenotype:
    """Continuous phenotypes (Broad's ``#numeric`` CLS): ``profiles`` {name: one value per
    sample}; :meth:`profile` picks one. GSEA ranks genes by their correlation (or distance)
    with the chosen profile: the metrics ``pearson``, ``cosine``, ``manhattan``,
    ``euclidean``.

    >>> ContinuousPhenotype({"dose": (0.0, 1.0, 2.0)}).profile()[1].tolist()
    [0.0, 1.0, 2.0]
    """

    profiles: dict
    input: ReadInfo | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        if not self.profiles:
            raise ValueError("a continuous phenotype needs at least one profile")
        sizes = {len(v) for v in self.profiles.values()}
        if len(sizes) != 1:
            raise ValueError(f"the profiles have different lengths {sorted(sizes)}")

    @property
    def names(self) -> list:
        return list(self.profiles)

    def profile(self, name=None) -> tuple[str, np.ndarray]:
        """``(name, values)`` of one profile: ``name``, or the only one."""
        if name is None:
            if len(self.profiles) != 1:
                raise ValueError(f"the phenotype has {len(self.profiles)} profiles "
                                 f"{self.names[:5]}; choose one with profile=NAME")
            name = self.names[0]
        if name not in self.profiles:
            raise ValueError(f"profile {name!r} is not one of {self.names[:10]}")
        values = np.asarray(self.profiles[name], dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise ValueError(f"profile {name!r} has missing or infinite values")
        if np.all(values == values[0]):
            raise ValueError(f"profile {name!r} is constant: it ranks nothing")
        return name, values

    def select(self, name) -> ContinuousPhenotype:
        """The phenotype with only profile ``name``."""
        name, _ = self.profile(name)
        info = self.input
        if info is not None:
            info = info.with_notes(f"profile {name!r} chosen")
        return ContinuousPhenotype({name: tuple(self.profiles[name])}, info)


def split_selector(source):
    """``(source, selector)``: Broad's ``file.cls#A_versus_B`` / ``file.cls#profile`` split
    where the whole text is not itself an existing file."""
    if is_path(source):
        text = os.fspath(source)
        if "#" in text and not os.path.exists(text):
            path, _, sel = text.rpartition("#")
            if path and sel:
                return path, sel
    return source, None


def _numeric(lines, where: str) -> ContinuousPhenotype:
    profiles: dict = {}
    name = None
    for no, line in lines[1:]:
        s = line.strip()
        if s.startswith("#"):
            name = s[1:].strip()
            if not name:
                raise ValueError(f"{where} line {no}: a profile needs a name after '#'")
            if name in profiles:
                raise ValueError(f"{where} line {no}: profile {name!r} appears twice")
            profiles[name] = []
            continue
        if name is None:
            raise ValueError(f"{where} line {no}: values before the first '#profile' line")
        for tok in s.replace(",", " ").split():
            try:
                profiles[name].append(float(tok))
            except ValueError:
                raise ValueError(f"{where} line {no}: {tok!r} in profile {name!r} is not a "
                                 "number") from None
    if not profiles:
        raise ValueError(f"{where}: a #numeric CLS file names no profile ('#NAME' then values)")
    sizes = {k: len(v) for k, v in profiles.items()}
    if len(set(sizes.values())) != 1:
        raise ValueError(f"{where}: the profiles have different lengths {sizes}")
    n = next(iter(sizes.values()))
    info = ReadInfo(where, "continuous (#numeric) phenotype: samples", (n,),
                    notes=(f"profiles {list(profiles)}",))
    return ContinuousPhenotype({k: tuple(v) for k, v in profiles.items()}, info)


def _categorical(lines, where: str) -> Phenotype:
    if len(lines) < 3:
        raise ValueError(f"{where}: a CLS file needs 3 lines (counts, '# names', labels), "
                         f"got {len(lines)}")
    head = lines[0][1].split()
    try:
        n_samples, n_classes = int(head[0]), int(head[1])
    except (ValueError, IndexError):
        raise ValueError(f"{where} line {lines[0][0]}: expected 'N_SAMPLES N_CLASSES 1', got "
                         f"{lines[0][1]!r}") from None
    if n_classes < 2:
        raise ValueError(f"{where} line {lines[0][0]}: {n_classes} classes; a phenotype needs "
                         "at least 2")
    no, names_line = lines[1]
    if not names_line.lstrip().startswith("#"):
        raise ValueError(f"{where} line {no}: expected '# CLASS_1 CLASS_2 ...', got "
                         f"{names_line!r}")
    names = names_line.lstrip()[1:].split()
    if len(names) != n_classes:
        raise ValueError(f"{where} line {no}: line {lines[0][0]} says {n_classes} classes, "
                         f"this line names {len(names)}: {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"{where} line {no}: a class is named twice: {names}")
    labels = " ".join(ln for _, ln in lines[2:]).split()
    if len(labels) != n_samples:
        raise ValueError(f"{where}: line {lines[0][0]} says {n_samples} samples, the label "
                         f"line has {len(labels)} labels")
    distinct = list(dict.fromkeys(labels))
    if len(distinct) != n_classes:
        raise ValueError(f"{where} line {lines[2][0]}: labels take {len(distinct)} values "
                         f"{distinct[:5]}; line {lines[0][0]} says {n_classes} classes")
    inferences = []
    if n_classes == 2:
        inferences.append(Inference(f"class A {names[0]!r}, class B {names[1]!r}",
                                    "the order of the '#' line", "classes="))
    numbers = [str(i) for i in range(n_classes)]
    if set(distinct) <= set(names):
        mapped = labels
    elif set(distinct) <= set(numbers):
        mapped = [names[int(x)] for x in labels]
        inferences.append(Inference(
            "labels " + "/".join(numbers) + " read as " + "/".join(map(repr, names)),
            "the order of the '#' line"))
    else:
        raise ValueError(f"{where}: labels {distinct[:5]} match neither the class names "
                         f"{names} nor 0..{n_classes - 1}")
    what = "CLS phenotype (samples)" if n_classes == 2 else f"CLS phenotype of {n_classes} " \
                                                           "classes (samples)"
    info = ReadInfo(where, what, (n_samples,), tuple(inferences))
    return Phenotype(tuple(mapped), tuple(names), info)


@filled()
def read_cls(source, *, comparison=None, profile=None):
    """Read a CLS file: categorical (two or more classes) or continuous (``#numeric``).

    Parameters
    ----------
    %(text_source)s
        A path may end in Broad's selector: ``data.cls#A_versus_B``, ``data.cls#A_versus_REST``
        or ``data.cls#PROFILE``.
    comparison : str, optional
        ``"A_versus_B"`` or ``"A_versus_REST"``: two classes of a file of several (or class A
        of a two-class file).
    profile : str, optional
        The profile of a ``#numeric`` file.

    Returns
    -------
    Phenotype or ContinuousPhenotype
        ``labels`` per sample and the ``classes`` in the order of the ``#`` line (a comparison
        leaves out the samples of other classes: label None); or the ``profiles`` of a
        ``#numeric`` file.

    See Also
    --------
    write_cls : the inverse.
    oclstat.gsea : takes the result as ``phenotype``.

    Notes
    -----
    Labels may be the class names or numbers (0 .. K-1 in the order of the ``#`` line, as in
    GEO-derived files). With two classes, class A (the first of the metrics) is the first of
    the ``#`` line, stated in ``input``. A file of more classes needs a comparison before a
    GSEA run: ``A_versus_B`` leaves out the samples of other classes, ``A_versus_REST``
    compares A with all of them (Broad's GSEA does the same).

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> read_cls(_io.StringIO("3 2 1\\n# CASE CONTROL\\n0 1 0\\n")).labels
    ('CASE', 'CONTROL', 'CASE')
    >>> read_cls(_io.StringIO("3 2 1\\n# CASE CONTROL\\n0 1 0\\n"),
    ...          comparison="CONTROL_versus_CASE").classes
    ('CONTROL', 'CASE')
    """
    source, selector = split_selector(source)
    text, where = open_text(source)
    lines = [(no, ln) for no, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    if lines and lines[0][1].strip().lower().startswith("#numeric"):
        if comparison is not None:
            raise ValueError(f"comparison={comparison!r} is for categorical phenotypes; "
                             f"{where} is continuous (#numeric): choose a profile instead")
        out = _numeric(lines, where)
        chosen = profile if profile is not None else selector
        if profile is not None and selector is not None and profile != selector:
            raise ValueError(f"profile={profile!r} and the file's selector #{selector} "
                             "disagree")
        return out.select(chosen) if chosen is not None else out
    if profile is not None:
        raise ValueError(f"profile={profile!r} is for continuous (#numeric) phenotypes; "
                         f"{where} is categorical")
    out = _categorical(lines, where)
    if comparison is not None and selector is not None and comparison != selector:
        raise ValueError(f"comparison={comparison!r} and the file's selector #{selector} "
                         "disagree")
    spec = comparison if comparison is not None else selector
    return out.compare(spec) if spec is not None else out


@filled()
def write_cls(phenotype, dest) -> None:
    """Write a :class:`Phenotype` or :class:`ContinuousPhenotype` as a CLS file.

    Parameters
    ----------
    phenotype : Phenotype or ContinuousPhenotype
        The labels and classes, or the profiles.
    dest : path or file object
        Where to write.

    Returns
    -------
    None

    See Also
    --------
    read_cls : the inverse.

    Notes
    -----
    The ``#`` line lists the classes in the phenotype's order, so class A stays class A. A
    phenotype whose comparison left samples out cannot be written (the file would not say
    which); write the phenotype before the comparison.

    References
    ----------
    %(broad_formats)s

    Examples
    --------
    >>> import io as _io
    >>> out = _io.StringIO(); write_cls(Phenotype(("a", "b", "a"), ("a", "b")), out)
    >>> out.getvalue().splitlines()
    ['3 2 1', '# a b', 'a b a']
    """
    if isinstance(phenotype, ContinuousPhenotype):
        with text_stream(dest, "w") as (fh, _):
            fh.write("#numeric\n")
            for name, values in phenotype.profiles.items():
                fh.write(f"#{name}\n" + " ".join(repr(float(v)) for v in values) + "\n")
        return
    if not isinstance(phenotype, Phenotype):
        raise TypeError(f"phenotype: expected a Phenotype, got {type(phenotype).__name__}")
    if any(x is None for x in phenotype.labels):
        raise ValueError("phenotype: a comparison left samples out (label None); write the "
                         "phenotype it was made from")
    with text_stream(dest, "w") as (fh, _):
        fh.write(f"{len(phenotype.labels)} {len(phenotype.classes)} 1\n# "
                 + " ".join(map(str, phenotype.classes)) + "\n")
        fh.write(" ".join(map(str, phenotype.labels)) + "\n")
