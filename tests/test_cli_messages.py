"""Every command's error paths in the command line's words: each bad invocation ends with exit
status 2 and one line ``oclstat CMD: error: ...`` that names flags as flags, counts rows,
columns and samples from 1 or by their names, and shows no Python: no ``name=`` keyword form,
no ``None``, no traceback or source path. Warnings come the same way (``oclstat CMD:
warning: ...``). Inputs given as pipes (``<(cmd)``) are read like files."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oclstat.cli import main

REPO = Path(__file__).resolve().parents[1]

#: What a message in the command line's words never holds.
PYTHON_WORDS = [
    (re.compile(r"(?<![-\w.])[a-z][a-z0-9_]*=(?!=)"), "a Python keyword (name=)"),
    (re.compile(r"\bNone\b"), "None"),
    (re.compile(r"Traceback|File \"|\.py\b|site-packages"), "a traceback or source path"),
    (re.compile(r"\b(feature|sample|row|column|line|SNP|set|gene|record) 0\b|\[0[],]"),
     "a position counted from 0"),
    (re.compile(r"\bnp\.|\bnumpy\.|dtype\("), "numpy's words"),
]


def _files(tmp: Path) -> dict:
    rng = np.random.default_rng(3)
    names = {"ok": "id,s1,s2,s3\nf1,1,2,3\nf2,3,4,5\nf3,2,2,9\n",
             "nan": "id,s1,s2,s3\nf1,NA,2,3\nf2,3,4,5\n",
             "other": "id,s1,s2,s3\ng1,1,2,3\ng2,3,4,5\n",
             "empty.tsv": "",
             "counts": "a,b\nx,3,-1\ny,2,5\n",
             "three.cls": "6 3 1\n# a b c\na b c a b c\n",
             "rank.rnk": "A\t1\nB\t2\n",
             "sets.gmt": "S1\tna\tA\tB\tC\n",
             "geno.csv": "VarSam,1,0,1,0\nrs1,0,1,2,1\nrs2,2,2,0,1\n"}
    out = {}
    for name, text in names.items():
        path = tmp / (name if "." in name else f"{name}.csv")
        path.write_text(text)
        out[name] = str(path)
    expr = rng.normal(size=(30, 6))
    plain = "".join(f"G{i}\t" + "\t".join(f"{v:.4f}" for v in row) + "\n"
                    for i, row in enumerate(expr))
    (tmp / "expr.tsv").write_text("gene\t" + "\t".join(f"s{j}" for j in range(6)) + "\n" + plain)
    (tmp / "one.tsv").write_text("gene\ts1\n" + "".join(f"G{i}\t{v:.4f}\n" for i, v in
                                                       enumerate(expr[:, 0])))
    (tmp / "g.gmt").write_text("S1\tna\t" + "\t".join(f"G{i}" for i in range(10)) + "\n")
    rows = "".join(f"G{i}\tna\t" + "\t".join(f"{v:.4f}" for v in row) + "\n"
                   for i, row in enumerate(expr))
    (tmp / "expr.txt").write_text("NAME\tDESCRIPTION\t" + "\t".join(f"s{j}" for j in range(6))
                                  + "\n" + rows)
    out.update(expr=str(tmp / "expr.tsv"), one=str(tmp / "one.tsv"), gmt=str(tmp / "g.gmt"),
               broad=str(tmp / "expr.txt"))
    return out


CASES = [
    ("devices", ["--device", "no-such-device"], "matches no device"),
    ("rng", ["normal", "--n", "10", "--out", "{tmp}/x.bin"], "--out must end in .npy"),
    ("rng", ["integers", "--n", "5", "--low", "5", "--high", "1", "--out", "-"], "high"),
    ("fisher", ["{counts}"], "negative"),
    ("fisher", ["{tmp}/nope.csv"], "no such file"),
    ("permtest", ["{nan}", "{ok}", "--windows", "4"], "feature 'f1', sample 's1' is missing"),
    ("permtest", ["{ok}", "{other}", "--windows", "4"], "the features differ"),
    ("permtest", ["{ok}", "{ok}", "--windows", "1"], "--windows"),
    ("fields", ["--nx", "100000", "--ny", "100000", "--out", "{tmp}/f.npy"], "host memory"),
    ("fields", ["--nx", "10", "--ny", "10", "--out", "{tmp}/f.txt"], "ending in .npy"),
    ("fields", ["--nx", "10", "--ny", "10", "--n-sim", "0", "--out", "{tmp}/f.npy"],
     "--n-sim must be at least 1"),
    ("epistasis", ["--csv", "{geno_csv}", "--order", "2", "--id-delim", "_"], "--vcf or --bcf"),
    ("epistasis", ["--csv", "{geno_csv}", "--order", "2", "--epi1", "0.1"], "--epi1"),
    ("gsea", ["--expr", "{broad}", "--cls", "{three_cls}", "--gmt", "{gmt}", "--min-size",
              "5"], "--classes A_versus_B"),
    ("gsea", ["--expr", "{broad}", "--cls", "{three_cls}", "--gmt", "{gmt}", "--profile",
              "x"], "--profile x"),
    ("gsea", ["--expr", "{broad}", "--cls", "{three_cls}#a_versus_b", "--gmt", "{gmt}",
              "--min-size", "5", "--max-size", "3"], "--max-size"),
    ("prerank", ["--rnk", "{rank_rnk}", "--gmt", "{sets_gmt}"], "at least 3 genes"),
    ("ssgsea", ["--expr", "{ok}", "--gmt", "{gmt}", "--layer", "nope"], "--layer nope"),
    ("ssgsea", ["--expr", "{empty_tsv}", "--gmt", "{gmt}"], "empty expression table"),
    ("ssgsea", ["--expr", "{expr}", "--gmt", "{sets_gmt}"], "at least --min-size 1"),
    ("gsva", ["--expr", "{one}", "--gmt", "{gmt}"], "at least 2 samples, got 1"),
    ("geseca", ["--expr", "{expr}", "--gmt", "{gmt}", "--eps", "-1"], "eps must be >= 0"),
    ("geseca", ["--expr", "{expr}", "--gmt", "{gmt}", "--resamples", "0"], "--resamples"),
    ("geseca", ["--expr", "{nan}", "--gmt", "{gmt}"], "missing"),
    ("aucell", ["--expr", "{expr}", "--gmt", "{gmt}", "--max-rank", "0"], "--max-rank"),
    ("epistasis-merge", ["{tmp}/none", "2"], "none"),
    ("demo", ["--section", "nope"], "unknown demo section 'nope'"),
    ("fit-matern", ["{ok}", "--coords", "x,y", "--response", "z"], "--coords x: no column"),
]


@pytest.mark.parametrize("command,argv,expected", CASES,
                         ids=[f"{c}-{i}" for i, (c, *_) in enumerate(CASES)])
def test_errors_are_one_line_in_the_command_lines_words(tmp_path, capsys, command, argv,
                                                        expected):
    files = {k.replace(".", "_"): v for k, v in _files(tmp_path).items()}
    args = [a.format(tmp=tmp_path, **files) for a in argv]
    rc = main([command, *args, "--quiet"] if command != "devices" else [command, *args])
    err = capsys.readouterr().err.strip()
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert rc == 2, err
    assert lines and lines[-1].startswith(f"oclstat {command}: error: "), err
    assert expected in lines[-1], lines[-1]
    for line in lines:
        if line.startswith(("read: ", "host CPU")):
            continue
        for pattern, what in PYTHON_WORDS:
            assert not pattern.search(line), f"{what} in {line!r}"


def test_warnings_come_on_one_line_without_a_source_path(tmp_path, capsys):
    """A warning raised during a command (here the fit's degenerate profile) is printed as
    the command's own line."""
    import warnings

    from oclstat import cli

    show = cli._show_warning("fields")
    show(UserWarning("min_size=3 is small"), UserWarning, "/x/y/z.py", 7)
    line = capsys.readouterr().err.strip()
    assert line == "oclstat fields: warning: --min-size 3 is small"
    before = warnings.showwarning
    assert main(["rng", "normal", "--n", "3", "--out", str(tmp_path / "a.npy")]) == 0
    assert warnings.showwarning is before           # the caller's own handler is back


@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="needs bash for <(...)")
def test_inputs_given_as_pipes_are_read_like_files(tmp_path):
    """``<(cat file)``: the table readers look at a file twice; the command copies a pipe
    once, so the answer is the file's."""
    files = _files(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    py = sys.executable
    for argv in ([f"ssgsea --expr {files['expr']} --gmt {files['gmt']}",
                  f"ssgsea --expr <(cat {files['expr']}) --gmt <(cat {files['gmt']})"],
                 [f"prerank --rnk {tmp_path}/r.rnk --gmt {files['gmt']} --resamples 50 "
                  "--seed 1 --min-size 5",
                  f"prerank --rnk <(cat {tmp_path}/r.rnk) --gmt <(cat {files['gmt']}) "
                  "--resamples 50 --seed 1 --min-size 5"]):
        (tmp_path / "r.rnk").write_text("".join(f"G{i}\t{30 - i}.5\n" for i in range(30)))
        outs = []
        for k, cmd in enumerate(argv):
            out = tmp_path / f"out{k}.tsv"
            done = subprocess.run(["bash", "-c", f"{py} -m oclstat {cmd} --quiet --out {out}"],
                                  capture_output=True, text=True, env=env, timeout=300)
            assert done.returncode == 0, done.stderr
            outs.append(out.read_text())
        assert outs[0] == outs[1]
