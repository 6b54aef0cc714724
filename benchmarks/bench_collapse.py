"""Collapsing probes to genes (Broad's Collapse Dataset) next to the GSEA run it feeds, in
one run: the cost of the collapse as a share of the analysis.

    python benchmarks/bench_collapse.py [--device D] [--perms N] [--probes-per-gene K]

Data: the Broad Leukemia example (../shared/data/gsea/Leukemia_hgu95av2.trim.gct, 9,020 genes
x 48 samples, ALL vs AML) made probe-level: each gene split into 1 to 2K - 1 probes (K on
average; default 5, 45,000 probes) carrying its values plus noise (numpy seed 1), with a CHIP
file written beside it. Timed: reading the probe-level GCT (repeated names kept) and the CHIP
and collapsing with each of Broad's five modes; then ``oclstat.gsea`` on the collapsed data
(Hallmark v7.0, ``--perms`` phenotype permutations, signal_to_noise). Target (issue 32): the
collapse costs less than a tenth of the GSEA run. Floor of the collapse: reading the values
once (8 bytes per probe and sample) at the measured copy bandwidth of host memory.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import host_lines, table

import oclstat
from oclstat.io import collapse_probes, read_chip, read_gct, read_gmt, write_gct

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gsea"
MODES = ("Max_probe", "Median_of_probes", "Mean_of_probes", "Sum_of_probes",
         "Abs_max_of_probes")


def probe_level(genes: pd.DataFrame, k: int, folder: Path):
    """The probe-level GCT and CHIP files of ``genes`` (1 to 2k - 1 probes per gene)."""
    rng = np.random.default_rng(1)
    counts = rng.integers(1, 2 * k, size=len(genes))
    rows = np.repeat(genes.to_numpy(), counts, axis=0)
    rows = rows + rng.normal(scale=20.0, size=rows.shape)
    symbols = np.repeat(np.asarray(genes.index), counts)
    probes = [f"{i}_at" for i in range(rows.shape[0])]
    write_gct(pd.DataFrame(rows, index=probes, columns=genes.columns), folder / "probes.gct")
    (folder / "probes.chip").write_text(
        "Probe Set ID\tGene Symbol\tGene Title\n"
        + "".join(f"{p}\t{g}\tna\n" for p, g in zip(probes, symbols, strict=True)))
    return len(probes)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--perms", type=int, default=1000)
    ap.add_argument("--probes-per-gene", type=int, default=5)
    args = ap.parse_args(argv)
    print("\n".join(host_lines()), flush=True)
    genes = read_gct(DATA / "Leukemia_hgu95av2.trim.gct")
    labels = ["ALL"] * 24 + ["AML"] * 24
    sets = read_gmt(DATA / "h.all.v7.0.symbols.gmt")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        n_probes = probe_level(genes, args.probes_per_gene, folder)
        t0 = time.perf_counter()
        data = read_gct(folder / "probes.gct", duplicates="keep")
        chip = read_chip(folder / "probes.chip")
        t_read = time.perf_counter() - t0
        rows = []
        for mode in MODES:
            t0 = time.perf_counter()
            collapsed = collapse_probes(data, chip, mode=mode)
            rows.append({"step": f"collapse {mode}", "seconds": time.perf_counter() - t0})
        oclstat.gsea(collapsed.iloc[:500], labels, sets, n_resamples=20, min_size=5,
                     seed=1, device=args.device)            # kernels built
        t0 = time.perf_counter()
        res = oclstat.gsea(collapse_probes(data, chip), labels, sets, n_resamples=args.perms,
                           seed=1, device=args.device)
        t_gsea = time.perf_counter() - t0
    worst = max(r["seconds"] for r in rows)
    floor = data.size * 8 / 10e9
    print(f"{n_probes:,} probes x {data.shape[1]} samples -> {collapsed.shape[0]:,} genes; "
          f"GSEA on {res.device}")
    rows.insert(0, {"step": "read GCT (probes) and CHIP", "seconds": t_read})
    rows.append({"step": f"gsea, {args.perms} permutations (collapsed data)",
                 "seconds": t_gsea})
    print(table([{**r, "seconds": f"{r['seconds']:.3f}",
                  "share of gsea": f"{r['seconds'] / t_gsea:.3f}"} for r in rows],
                ["step", "seconds", "share of gsea"]))
    print(f"slowest collapse / gsea = {worst / t_gsea:.3f} (target < 0.1); collapse floor "
          f"(values read once at 10 GB/s) {floor * 1e3:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
