"""The tiled epistasis search (the CUDA tensor-core decomposition, oclstat/_epistasis/tiles.py) run
in OpenCL on this device: the tile schedule covers each combination once, the lower-order
tables equal numpy counts, and the results equal the bit-vector search exactly (same
combinations, same scores bit for bit) for every order and score, at odd sizes."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import oclstat
from oclstat._epistasis import plan as epi_plan
from oclstat._epistasis import scores as epi_scores
from oclstat._epistasis import tiles
from oclstat._epistasis.result import EpistasisResult


def plan_combinations(plan: tiles.TilePlan) -> np.ndarray:
    """Every (row item, column item) the kernels score, from the plan alone."""
    ri, ci = tiles.TILE >> plan.row_snps, tiles.TILE >> plan.col_snps
    n_ct = len(plan.cols) // ci
    found = []
    for rt in range(plan.n_rt):
        r = plan.rows[rt * ri:(rt + 1) * ri].astype(np.int64)
        for ct in range(n_ct):
            c = plan.cols[ct * ci:(ct + 1) * ci].astype(np.int64)
            ok = ((r[:, None, 0] != tiles.NONE) & (c[None, :, 0] != tiles.NONE)
                  & (r[:, None, -1] < c[None, :, 0]))
            if ct < plan.first_ct[rt]:
                assert not ok.any(), f"row tile {rt} skips column tile {ct} with combinations"
                continue
            i, j = np.nonzero(ok)
            found.append(np.column_stack([r[i], c[j]]))
    return np.concatenate(found)


@pytest.mark.parametrize("order", [2, 3, 4, 5])
@pytest.mark.parametrize("n_snps", [5, 17, 70])
def test_plan_covers_each_combination_once(order, n_snps):
    plan = tiles.tile_plan(n_snps, order)
    got = plan_combinations(plan)
    want = np.array(list(itertools.combinations(range(n_snps), order)))
    assert plan.combinations == math.comb(n_snps, order) == len(got)
    assert np.array_equal(got[np.lexsort(got.T[::-1])], want)
    assert plan.n_tiles == int((len(plan.cols) // (tiles.TILE >> plan.col_snps)
                                - plan.first_ct.astype(np.int64)).sum())


@pytest.mark.parametrize("order", [4, 5])
def test_lower_tables_equal_numpy_counts(rt, order):
    rng = np.random.default_rng(5)
    g = rng.integers(0, 3, size=(9, 1037))
    y = (rng.random(1037) < 0.3).astype(int)                 # unequal classes
    search = epi_plan.prepare(g, y, order=order)
    tl = tiles.OpenCLTiles(rt, search, tiles.tile_plan(9, order))
    t1, t2, t3, t4 = tl.read_tables()
    assert (tl.n0, tl.n1) == ((y == 0).sum(), (y == 1).sum())
    assert len(t4) == (math.comb(9, 4) * 32 if order == 5 else 1)
    if order == 4:
        assert t4.tolist() == [0]                              # a stand-in, as CUDA's
    for size, table in ((1, t1), (2, t2), (3, t3), (4, t4))[:order - 1]:
        for snps in itertools.combinations(range(9), size):
            rank = sum(math.comb(s, i + 1) for i, s in enumerate(snps))   # colex rank
            for c in (0, 1):
                sub = g[list(snps)][:, y == c]
                for p in range(2**size):
                    bits = [(p >> (size - 1 - i)) & 1 for i in range(size)]
                    want = np.all(sub == np.array(bits)[:, None], axis=0).sum()
                    assert table[(rank * 2 + c) * 2**size + p] == want, (snps, c, p)


@pytest.mark.parametrize("order,n_snps,n_samples,score,top", [
    (2, 150, 1100, "k2", 40), (2, 33, 97, "mi", 10**6), (3, 45, 613, "k2", 10**6),
    (3, 61, 1500, "mi", 25), (4, 23, 777, "k2", 10**6), (4, 37, 530, "mi", 15),
])
def test_tiles_equal_bit_vector_search(rt, order, n_snps, n_samples, score, top):
    rng = np.random.default_rng(order * 1000 + n_snps)
    g = rng.integers(0, 3, size=(n_snps, n_samples))
    y = (rng.random(n_samples) < 0.45).astype(int)
    search = epi_plan.prepare(g, y, order=order, score=score, top=top)
    plan = tiles.tile_plan(n_snps, order)
    got = _table(search, tiles.run_tiled(search, tiles.OpenCLTiles(rt, search, plan).launch,
                                       plan))
    want = oclstat_search(g, y, order, score, top, rt)
    assert len(got) == min(top, math.comb(n_snps, order))
    assert got.equals(want.table)


def oclstat_search(g, y, order, score, top, rt):
    return oclstat.epistasis(g, y, order=order, test=score, top=top, backend="opencl",
                             device=[rt])


def test_tiles_recover_planted_pair(rt):
    rng = np.random.default_rng(11)
    g = rng.integers(0, 3, size=(40, 800))
    y = ((g[5] + g[29]) % 3 == 0).astype(int)
    search = epi_plan.prepare(g, y, order=2, top=3)
    plan = tiles.tile_plan(40, 2)
    hits = _table(search, tiles.run_tiled(search, tiles.OpenCLTiles(rt, search, plan).launch,
                                        plan))
    assert [int(hits.snp1[0]), int(hits.snp2[0])] == [5, 29]


def test_tiles_refuse_missing_genotypes(rt):
    g = np.zeros((5, 40), dtype=int)
    g[2, 3] = -1
    search = epi_plan.prepare(g, np.arange(40) % 2, order=2)
    with pytest.raises(ValueError, match="needs complete genotypes"):
        tiles.tile_bits(search)


def test_end_to_end_check_catches_a_wrong_search(rt, monkeypatch):
    """The check run before the first CUDA search, driven here by the OpenCL twin: it passes
    for a correct tiled search and raises when one score is off by one fixed-point unit."""
    from oclstat._epistasis import cuda as epistasis_tc

    class Twin(tiles.OpenCLTiles):
        def __init__(self, search, plan, check=True):
            super().__init__(rt, search, plan)

    class Broken(Twin):
        def launch(self, block0, n_blocks, threshold):
            read = super().launch(block0, n_blocks, threshold)

            def off_by_one():
                scores, combos = read()
                if block0 == 0 and len(scores):
                    scores[0] += 1
                return scores, combos

            return off_by_one

    monkeypatch.setattr(epistasis_tc, "TensorCoreTiles", Twin)
    for order in (2, 3, 4):
        epistasis_tc.end_to_end_check(order, "k2")
    monkeypatch.setattr(epistasis_tc, "TensorCoreTiles", Broken)
    with pytest.raises(RuntimeError, match="disagrees with the OpenCL search"):
        epistasis_tc.end_to_end_check(3, "mi")


def _table(search, best):
    """The result table of a top-k found by a backend directly."""
    return EpistasisResult.of(search, best, "opencl").table


@pytest.mark.parametrize("order", [2, 3, 4])
@pytest.mark.parametrize("missing", [False, True])
def test_gpu_schedule_searches_orders_3_and_4_as_tiles(rt, monkeypatch, order, missing):
    """In the GPU schedule an OpenCL search of order 3 or 4 with complete genotypes runs as
    tiles (order 2, or a missing genotype: bit vectors), and every route gives the CPU
    schedule's table."""
    from oclstat._epistasis import api

    rng = np.random.default_rng(40 + order)
    g = rng.integers(0, 3, size=(24, 700))
    if missing:
        g[3, 11] = -1
    y = (rng.random(700) < 0.4).astype(int)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    want = oclstat_search(g, y, order, "k2", 30, rt).table
    calls = []

    def spy(runtimes, search, progress=None):
        calls.append(search.order)
        return tiles.search_tiles(runtimes, search, progress)

    monkeypatch.setattr(api, "search_tiles", spy)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
    got = oclstat_search(g, y, order, "k2", 30, rt).table
    assert calls == ([order] if order >= 3 and not missing else [])
    assert got.equals(want)


def test_tiles_on_a_cpu_keep_their_tables_small(rt, monkeypatch):
    """A CPU device holds the lower tables in host memory: above HOST_TABLE_BYTES (order 4
    over 700 SNPs: 3.4 GiB of triples) the search stays on bit vectors."""
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
    if not rt.is_cpu:
        pytest.skip("the host-memory cap applies to CPU devices")
    small = epi_plan.prepare(np.zeros((40, 64), dtype=int), np.arange(64) % 2, order=4)
    large = epi_plan.prepare(np.zeros((700, 64), dtype=int), np.arange(64) % 2, order=4)
    assert 4 * sum(tiles.lower_table_words(700, 4)) > tiles.HOST_TABLE_BYTES
    assert tiles.tiles_chosen(small, [rt]) and not tiles.tiles_chosen(large, [rt])


@pytest.mark.parametrize("order", [3, 4])
def test_tiles_shared_over_devices_equal_one_device(rt, order):
    """Two devices (here two queues of this one, and every other usable CPU implementation
    beside it) pulling ranges of tiles as they finish give one device's result exactly."""
    rng = np.random.default_rng(7 + order)
    n_snps = 90 if order == 3 else 40                   # more tiles than the first launch
    g = rng.integers(0, 3, size=(n_snps, 900))
    y = (rng.random(900) < 0.5).astype(int)
    search = epi_plan.prepare(g, y, order=order, top=40)
    assert tiles.tile_plan(n_snps, order).n_tiles > tiles.FIRST_LAUNCH_TILES
    one = tiles.search_tiles(rt, search)
    others = [oclstat.get_runtime(i.index) for i in oclstat.devices(usable=True)
              if i.type == "CPU" and i.index != rt.info.index]
    for devices in ([rt, rt], [rt, *others[:1]]):
        if len(devices) < 2:
            continue
        many = tiles.search_tiles(devices, search)
        np.testing.assert_array_equal(many.combos, one.combos)
        np.testing.assert_array_equal(many.scores, one.scores)


def test_tensor_core_search_shares_tiles_over_every_gpu(rt, monkeypatch):
    """search_tensor_cores on several CUDA devices: each device builds its own tiles with
    itself current, every launch runs with its own device current (CuPy's current device is
    per thread), and the result equals one device's. Driven by the OpenCL twin in place of
    the tensor-core tiles and a stand-in for CuPy's device context (no GPU here)."""
    import sys
    import threading
    import types

    from oclstat._epistasis import cuda as epistasis_tc

    current = threading.local()

    class Device:
        def __init__(self, i=None):
            self.id = getattr(current, "id", 0) if i is None else i
            self.compute_capability = "90"

        def __enter__(self):
            self.saved = getattr(current, "id", 0)
            current.id = self.id

        def __exit__(self, *exc):
            current.id = self.saved

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(Device=Device, runtime=types.SimpleNamespace(
        getDeviceCount=lambda: 3))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    built, launched = [], set()
    everyone = threading.Barrier(3, timeout=60)       # each device's first launch waits for all

    class Twin(tiles.OpenCLTiles):
        def __init__(self, search, plan, check=True):
            super().__init__(rt, search, plan)
            self.device = current.id
            built.append(self.device)

        def launch(self, block0, n_blocks, threshold):
            assert current.id == self.device
            if self.device not in launched:
                launched.add(self.device)
                everyone.wait()
            return super().launch(block0, n_blocks, threshold)

    monkeypatch.setattr(tiles, "LAUNCH_TILES", 16)     # many ranges of tiles
    monkeypatch.setattr(tiles, "FIRST_LAUNCH_TILES", 16)

    monkeypatch.setattr(epistasis_tc, "TensorCoreTiles", Twin)
    rng = np.random.default_rng(21)
    g = rng.integers(0, 3, size=(40, 600))
    y = (rng.random(600) < 0.5).astype(int)
    search = epi_plan.prepare(g, y, order=4, top=30)
    assert epistasis_tc.cuda_devices() == [0, 1, 2]
    many = epistasis_tc.search_tensor_cores(search)
    one = tiles.search_tiles(rt, search)
    assert built == [0, 1, 2] and launched == {0, 1, 2}
    np.testing.assert_array_equal(many.combos, one.combos)
    np.testing.assert_array_equal(many.scores, one.scores)


@pytest.mark.parametrize("n_snps,n_samples,score", [(9, 300, "k2"), (13, 701, "mi"),
                                                     (21, 450, "k2")])
def test_order_5_equals_brute_force(rt, n_snps, n_samples, score):
    """Order 5 (tiles only: pairs x triples, 32 products per combination, the other 211 cells
    from the tables of SNPs, pairs, triples and quadruples): every combination's score equals
    numpy's integer sum over its 243 x 2 table counted from the genotypes, and the public
    call returns that table's order."""
    rng = np.random.default_rng(n_snps)
    g = rng.integers(0, 3, size=(n_snps, n_samples))
    y = (rng.random(n_samples) < 0.4).astype(int)
    combos = np.array(list(itertools.combinations(range(n_snps), 5)))
    want = epi_scores.exact_scores(epi_scores.contingency_tables(g, y, combos), score)
    search = epi_plan.prepare(g, y, order=5, score=score, top=len(combos))
    best = tiles.search_tiles(rt, search)
    got = dict(zip(map(tuple, best.combos.tolist()), best.scores.tolist(), strict=True))
    assert got == dict(zip(map(tuple, combos.tolist()), want.tolist(), strict=True))
    top = oclstat.epistasis(g, y, order=5, test=score, top=12, device=[rt]).table
    first = np.lexsort(tuple(combos[:, i] for i in range(4, -1, -1)) + (want,))[:12]
    np.testing.assert_array_equal(top[[f"snp{i}" for i in range(1, 6)]].to_numpy(),
                                  combos[first])


def test_order_5_finds_a_planted_quintuple(rt):
    rng = np.random.default_rng(55)
    g = rng.integers(0, 3, size=(24, 1500))
    y = ((g[[2, 7, 11, 16, 23]].sum(axis=0) % 2) == 0).astype(int)
    hits = oclstat.epistasis(g, y, order=5, top=3, device=[rt]).table
    assert hits.loc[0, [f"snp{i}" for i in range(1, 6)]].tolist() == [2, 7, 11, 16, 23]


def test_order_5_refusals(rt):
    g = np.random.default_rng(1).integers(0, 3, size=(8, 60))
    y = np.arange(60) % 2
    g_missing = g.copy()
    g_missing[3, 5] = -1
    with pytest.raises(ValueError, match="order 5 .* needs complete genotypes"):
        oclstat.epistasis(g_missing, y, order=5, device=[rt])
    with pytest.raises(ValueError, match="order 5 \\(the tensor-core path searches orders 2"):
        oclstat.epistasis(g, y, order=5, backend="cuda", device=None)
    with pytest.raises(ValueError, match="order must be"):
        oclstat.epistasis(g, y, order=6, device=[rt])
    search = epi_plan.prepare(np.zeros((600, 4), dtype=int), [0, 1, 0, 1], order=5)
    if rt.is_cpu:                               # 600 SNPs: 80 GiB of quadruples
        with pytest.raises(ValueError, match="order 5 over 600 SNPs needs .* GiB"):
            tiles.tiles_chosen(search, [rt])


def test_order_5_from_the_command_line(tmp_path, capsys):
    """``oclstat epistasis --order 5`` on a CSV: the planted quintuple first; a missing
    genotype is refused with the reason (exit status 2)."""
    import pandas as pd

    from oclstat.cli import main

    rng = np.random.default_rng(56)
    g = rng.integers(0, 3, size=(1200, 12))
    frame = pd.DataFrame(g, columns=[f"rs{i}" for i in range(12)])
    frame.insert(0, "disease", (g[:, [1, 3, 4, 8, 10]].sum(axis=1) % 2 == 0).astype(int))
    path = tmp_path / "epi5.csv"
    frame.to_csv(path, index=False)
    assert main(["epistasis", "--csv", str(path), "--order", "5", "--top", "3"]) == 0
    top = capsys.readouterr().out.splitlines()[1].split()
    assert top[5:10] == ["rs1", "rs3", "rs4", "rs8", "rs10"]
    frame.loc[7, "rs2"] = None
    frame.to_csv(path, index=False)
    assert main(["epistasis", "--csv", str(path), "--order", "5"]) == 2
    assert "order 5" in capsys.readouterr().err
