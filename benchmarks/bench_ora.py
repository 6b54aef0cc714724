"""oclstat.ora next to GSEApy's enrich (and scipy looped over the lists), in one run.

    python benchmarks/bench_ora.py [--device D] [--lists 200] [--gseapy-lists 10]

The shape of a batch over-representation run: MSigDB C2 v5.0 (../shared/data/gsea, sets of
1..500 genes in the universe) x ``--lists`` gene lists of 100 to 1,000 genes drawn from a
20,000-gene universe (GENERATED: the genes of the Hallmark and C2 files, padded; numpy seed
1), each list tested against every set (hypergeometric P(X >= q), BH per list):

* oclstat: every list at once (the overlaps as AND + popcount on the device);
* GSEApy 1.x ``enrich(list, sets, background=universe)``, one call per list (its loop), on
  ``--gseapy-lists`` lists, scaled to all of them;
* scipy: ``hypergeom.sf`` of overlaps counted with Python sets, one list at a time, on the
  same lists, scaled (what a script without either library does).

The p-values of the lists both ran are compared. Floor: the device must read the sets' bit
vectors once per list (sets x words x 4 bytes) over the measured copy bandwidth.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import copy_bandwidth, header, shared_data, table

import oclstat

DATA = shared_data("gsea")


def data(n_lists: int, seed: int = 1):
    h = oclstat.io.read_gmt(DATA / "h.all.v5.0.symbols.gmt")
    c2 = oclstat.io.read_gmt(DATA / "c2.all.v5.0.symbols.gmt")
    genes = sorted({g for s in (*h.values(), *c2.values()) for g in s})[:20000]
    genes += [f"GEN{i}" for i in range(20000 - len(genes))]
    rng = np.random.default_rng(seed)
    lists = {f"list{i}": list(rng.choice(genes, int(rng.integers(100, 1001)), replace=False))
             for i in range(n_lists)}
    return genes, dict(c2), lists


def scipy_loop(lists, sets, universe):
    from scipy import stats

    u = set(universe)
    members = {k: set(v) & u for k, v in sets.items()}
    members = {k: v for k, v in members.items() if 1 <= len(v) < len(u)}
    out = {}
    for name, genes in lists.items():
        chosen = set(genes) & u
        q = np.array([len(m & chosen) for m in members.values()])
        size = np.array([len(m) for m in members.values()])
        out[name] = dict(zip(members, stats.hypergeom.sf(q - 1, len(u), size, len(chosen)),
                             strict=True))
    return out


def gseapy_loop(lists, sets, universe):
    import gseapy

    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, genes in lists.items():
            res = gseapy.enrich(gene_list=genes, gene_sets=sets, background=universe,
                                outdir=None, cutoff=1.0, no_plot=True)
            out[name] = dict(zip(res.results["Term"], res.results["P-value"], strict=True))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default=None)
    ap.add_argument("--lists", type=int, default=200)
    ap.add_argument("--gseapy-lists", type=int, default=10)
    ap.add_argument("--no-gseapy", action="store_true")
    args = ap.parse_args(argv)
    rt = oclstat.get_runtime(args.device)
    print(header(rt, "over-representation: oclstat.ora vs GSEApy enrich and scipy"))
    universe, sets, lists = data(args.lists)
    print(f"# {len(universe):,} genes, C2 v5.0 ({len(sets):,} sets), {len(lists)} lists of "
          f"100..1,000 genes (GENERATED); {os.cpu_count()} host cores")
    oclstat.ora(dict(list(lists.items())[:2]), sets, universe, device=rt)      # build
    t0 = time.perf_counter()
    res = oclstat.ora(lists, sets, universe, overlap_genes=False, device=rt)
    ours = time.perf_counter() - t0
    some = dict(list(lists.items())[:args.gseapy_lists])
    scale = len(lists) / len(some)
    t0 = time.perf_counter()
    ref = scipy_loop(some, sets, universe)
    sp = (time.perf_counter() - t0) * scale
    ours_p = res.table["pval"].to_dict()
    worst = max(abs(ours_p[(name, k)] - p) / max(p, 1e-300)
                for name, ps in ref.items() for k, p in ps.items())
    rows = [{"run": "oclstat.ora (all lists at once)", "seconds": f"{ours:.2f}",
             "peer/oclstat": "1.0x"},
            {"run": f"scipy hypergeom, one list at a time (scaled from {len(some)})",
             "seconds": f"{sp:.2f}", "peer/oclstat": f"{sp / ours:.1f}x"}]
    if not args.no_gseapy:
        t0 = time.perf_counter()
        gp_res = gseapy_loop(some, sets, universe)
        gp = (time.perf_counter() - t0) * scale
        rows.append({"run": f"GSEApy enrich, one call per list (scaled from {len(some)})",
                     "seconds": f"{gp:.2f}", "peer/oclstat": f"{gp / ours:.1f}x"})
        common = [(n, k) for n, ps in gp_res.items() for k in ps if (n, k) in res.table.index]
        diff = max(abs(res.table.loc[key, "pval"] - gp_res[key[0]][key[1]]) for key in common)
        print(f"# GSEApy: {len(common):,} (list, set) p-values compared, max |difference| "
              f"{diff:.2g}")
    print(table(rows, ["run", "seconds", "peer/oclstat"]))
    words = -(-len(universe) // 32)
    floor = len(lists) * len(res.table) / len(lists) * words * 4 / copy_bandwidth(rt)
    print(f"# scipy vs oclstat p-values: max relative difference {worst:.2g}; device floor "
          f"{floor * 1e3:.2f} ms (set bits read once per list at the copy bandwidth)")


if __name__ == "__main__":
    main()
