"""Writes tests/data/fisher_rxc_from_r.py: R's fisher.test p-values of r x c tables, frozen.

    python tests/data/make_fisher_rxc_from_r.py      # needs Rscript (R 4.2 here)

The tables: R's help-page examples (Job, MP6), and random tables drawn here (3 to 5 rows and
columns, totals 20 to 120) that R finishes with ``workspace = 2e8``; R's p-values with 17
significant digits, exact and with ``hybrid = TRUE``. Each table runs in its own Rscript with
a time limit (``--seconds``, default 120): a table R does not finish in time is left out.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
HELP = {
    "Job": [[1, 3, 10, 6], [2, 3, 10, 7], [1, 6, 14, 12], [0, 1, 9, 11]],
    "MP6": [[1, 2, 2, 1, 1, 0, 1], [2, 0, 0, 2, 3, 0, 0], [0, 1, 1, 1, 2, 7, 3],
            [1, 1, 2, 0, 0, 0, 1], [0, 1, 1, 1, 1, 0, 0]],
}


def random_tables():
    rng = np.random.default_rng(20261125)
    out = []
    for i in range(36):
        r, c = int(rng.integers(3, 6)), int(rng.integers(3, 6))
        n = int(rng.integers(20, 90)) if i < 30 else int(rng.integers(90, 120))
        t = rng.multinomial(n, rng.dirichlet(np.full(r * c, 2.0))).reshape(r, c)
        t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
        if min(t.shape) >= 2:
            out.append(t.tolist())
    return out


R_SCRIPT = r"""
t <- jsonlite::fromJSON(commandArgs(TRUE)[1], simplifyVector = FALSE)
m <- do.call(rbind, lapply(t, unlist))
one <- function(hybrid) {
  p <- tryCatch(fisher.test(m, workspace = 2e8, hybrid = hybrid)$p.value,
                error = function(e) NA)
  formatC(p, digits = 17, format = "g")
}
cat(one(FALSE), one(TRUE))
"""


def r_pvalues(table, script: Path, seconds: float) -> tuple[str, str]:
    """R's exact and hybrid p-values of one table, as text ("NA" when R fails or times out)."""
    try:
        out = subprocess.run(["Rscript", str(script), json.dumps(table)], capture_output=True,
                             text=True, check=True, timeout=seconds).stdout.split()
    except subprocess.TimeoutExpired:
        return "NA", "NA"
    return out[0], out[1]


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=120.0)
    seconds = ap.parse_args().seconds
    tables = list(HELP.values()) + random_tables()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "run.R"
        script.write_text(R_SCRIPT)
        values = []
        for t in tables:
            values.append(r_pvalues(t, script, seconds))
            print(len(values), values[-1], flush=True)
    version = subprocess.run(["Rscript", "-e", "cat(R.version.string)"], capture_output=True,
                             text=True, check=True).stdout
    lines = ['"""R\'s fisher.test on r x c tables, frozen by make_fisher_rxc_from_r.py\n'
             f'({version}).\n\nEach entry: (table, exact p-value, hybrid p-value)."""',
             "# ruff: noqa: E501", "", "CASES = ["]
    for t, (p, h) in zip(tables, values, strict=True):
        if "NA" in (p.strip(), h.strip()):
            continue                     # R did not finish it (its workspace): not a case
        lines.append(f"    ({t!r}, {float(p)!r}, {float(h)!r}),")
    lines.append("]")
    (HERE / "fisher_rxc_from_r.py").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
