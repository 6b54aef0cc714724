"""oclstat.io: GCT / expression / CLS / GMT readers and writers, on the shared Broad files and on
small hand-written files, including the malformed ones."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from oclstat import io as oio


def text(s: str) -> io.StringIO:
    return io.StringIO(s)


def test_shared_files(shared_data):
    d = shared_data / "gsea"
    p53 = oio.read_expression(d / "P53.txt")
    assert p53.shape == (10100, 50) and p53.index[0] == "TACC2"
    assert p53.loc["TACC2", "786-0"] == 46.05
    leuk = oio.read_gct(d / "Leukemia_hgu95av2.trim.gct")
    assert leuk.shape == (9020, 48) and leuk.attrs["description"][0] == "TEST"
    # round_trip: the file holds values such as 47.300000000000004, which pandas' default
    # (faster, not correctly rounded) parser reads as 47.3
    ref = pd.read_csv(d / "Leukemia_hgu95av2.trim.gct", sep="\t", skiprows=2, index_col=0,
                      float_precision="round_trip")
    np.testing.assert_array_equal(leuk.to_numpy(), ref.iloc[:, 1:].to_numpy())
    cls = oio.read_cls(d / "P53.cls")
    assert cls.classes == ("MUT", "WT") and cls.counts == (33, 17)
    geo = oio.read_cls(d / "GSE19429_series.cls")
    assert geo.classes == ("PATIENT", "CONTROL") and geo.counts == (183, 17)
    c2 = oio.read_gmt(d / "c2.all.v5.0.symbols.gmt")
    assert len(c2) == 4725
    h = oio.read_gmt(d / "h.all.v7.0.symbols.gmt")
    assert len(h) == 50 and min(map(len, h.values())) == 32 and max(map(len, h.values())) == 200


def test_gct_13_with_metadata():
    f = text("#1.3\n2\t3\t1\t1\nid\tsymbol\ta\tb\tc\ndose\tna\t1\t2\t3\n"
             "p1\tTP53\t1\t2\t3\np2\tMDM2\t4\tNA\t6\n")
    frame = oio.read_gct(f)
    assert list(frame.index) == ["p1", "p2"] and list(frame.columns) == ["a", "b", "c"]
    assert frame.attrs["description"] == ["TP53", "MDM2"]
    assert np.isnan(frame.loc["p2", "b"])


def test_round_trips(tmp_path):
    frame = pd.DataFrame({"s1": [1.5, -2.0], "s2": [3.25, 1e-9]}, index=["A", "B"])
    oio.write_gct(frame, tmp_path / "x.gct")
    back = oio.read_expression(tmp_path / "x.gct")
    pd.testing.assert_frame_equal(back, frame, check_names=False)
    ph = oio.Phenotype(("x", "y", "x"), ("x", "y"))
    oio.write_cls(ph, tmp_path / "x.cls")
    assert oio.read_cls(tmp_path / "x.cls") == ph
    sets = {"S1": ["A", "B"], "S2": ["C"]}
    oio.write_gmt(sets, tmp_path / "x.gmt")
    assert oio.read_gmt(tmp_path / "x.gmt") == sets


@pytest.mark.parametrize(
    "content,match",
    [
        ("#1.4\n1\t1\n", "expected '#1.2' or '#1.3'"),
        ("#1.2\n1\tx\nNAME\tDescription\ta\n", "dimensions must be integers"),
        ("#1.2\n1\t2\nNAME\tDescription\ta\n", "expected 4 tab-separated fields, got 3"),
        ("#1.2\n1\t1\nNAME\tD\ta\nG\tna\t1\t2\n", "expected 3 tab-separated fields"),
        ("#1.2\n2\t1\nNAME\tD\ta\nG\tna\t1\nG\tna\t2\n", "gene name 'G' appears twice"),
        ("#1.2\n2\t1\nNAME\tD\ta\nG\tna\t1\n", "says 2 genes, the file has 1"),
        ("#1.2\n1\t1\nNAME\tD\ta\nG\tna\tabc\n", "value 'abc' in data column 1 is not a number"),
    ],
)
def test_malformed_gct(content, match):
    with pytest.raises(ValueError, match=match):
        oio.read_gct(text(content))


def test_malformed_expression_table():
    with pytest.raises(ValueError, match="NAME<TAB>DESCRIPTION"):
        oio.read_expression(text("GENE\tx\ta\nA\tna\t1\n"))
    with pytest.raises(ValueError, match="sample name 'a' appears twice"):
        oio.read_expression(text("NAME\tDESCRIPTION\ta\ta\nA\tna\t1\t2\n"))


@pytest.mark.parametrize(
    "content,match",
    [
        ("4 2 1\n# A B\nA A B\n", "line 1 says 4 samples, the label line has 3"),
        ("3 3 1\n# A B\nA B A\n", "line 1 says 3 classes, this line names 2"),
        ("3 3 1\n# A B C\nA B A\n", "labels take 2 values"),
        ("3 2 1\nA B\nA B A\n", "expected '# CLASS_1 CLASS_2 ...'"),
        ("3 2 1\n# A B\nA A A\n", "labels take 1 values"),
        ("3 2 1\n# A B\nA C A\n", "match neither the class names"),
        ("#numeric\n1.0 2.0\n", "values before the first '#profile' line"),
        ("#numeric\n#x\n1.0 two\n", "'two' in profile 'x' is not a number"),
        ("#numeric\n#x\n1 2\n#y\n1 2 3\n", "different lengths"),
        ("3 2\n", "needs 3 lines"),
    ],
)
def test_malformed_cls(content, match):
    with pytest.raises(ValueError, match=match):
        oio.read_cls(text(content))


def test_malformed_gmt():
    with pytest.raises(ValueError, match="line 2: a GMT line needs"):
        oio.read_gmt(text("S1\tna\tA\nS2\n"))
    sets = oio.read_gmt(text("S1\tna\tA\nS2\tna\n\nS3\tna\t\t\n"))   # empty sets: skipped
    assert sets == {"S1": ["A"]}
    assert "2 set(s) with no genes skipped: 'S2' (line 2), 'S3' (line 4)" in \
        sets.input.summary()
    with pytest.raises(ValueError, match="no gene sets found .1 lines name a set with no"):
        oio.read_gmt(text("S2\tna\n"))
    with pytest.raises(ValueError, match="gene set 'S1' appears twice"):
        oio.read_gmt(text("S1\tna\tA\nS1\tna\tB\n"))
    with pytest.raises(ValueError, match="no gene sets"):
        oio.read_gmt(text("\n"))


def test_phenotype_checks():
    with pytest.raises(ValueError, match="two or more distinct classes"):
        oio.Phenotype(("a",), ("a", "a"))
    with pytest.raises(ValueError, match="not one of the classes"):
        oio.Phenotype(("a", "c"), ("a", "b"))
