"""On a machine with a GPU and pocl: the same hits, scores bit for bit, on both devices."""

from __future__ import annotations

import numpy as np
import pytest

import oclstat

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("order", [2, 3, 4])
def test_gpu_equals_pocl(gpu_rt, cpu_rt, order):
    rng = np.random.default_rng(order)
    g = rng.integers(0, 3, size=(30, 1500)).astype(np.int8)
    y = rng.integers(0, 2, size=1500)
    a = oclstat.epistasis(g, y, order=order, top=50, device=[gpu_rt])
    b = oclstat.epistasis(g, y, order=order, top=50, device=[cpu_rt])
    assert a.table.equals(b.table)
    g[rng.random(g.shape) < 0.02] = -1
    a = oclstat.epistasis(g, y, order=order, top=50, device=[gpu_rt])
    b = oclstat.epistasis(g, y, order=order, top=50, device=[gpu_rt, cpu_rt])
    assert a.table.equals(b.table)


@pytest.mark.parametrize("score", ["k2", "mi"])
def test_gpu_order_5_equals_numpy_and_pocl(gpu_rt, cpu_rt, score):
    """Order 5 (tiles on every device): every combination's score on the GPU equals numpy's
    integer sum over its table; the GPU, pocl and both together give one table."""
    import itertools

    from oclstat._epistasis import plan as epi
    from oclstat._epistasis import scores, tiles

    rng = np.random.default_rng(50)
    g = rng.integers(0, 3, size=(14, 3001)).astype(np.int8)
    y = (rng.random(3001) < 0.4).astype(int)
    combos = np.array(list(itertools.combinations(range(14), 5)))
    want = scores.exact_scores(scores.contingency_tables(g, y, combos), score)
    best = tiles.search_tiles(gpu_rt, epi.prepare(g, y, order=5, score=score,
                                                  top=len(combos)))
    got = dict(zip(map(tuple, best.combos.tolist()), best.scores.tolist(), strict=True))
    assert got == dict(zip(map(tuple, combos.tolist()), want.tolist(), strict=True))
    a = oclstat.epistasis(g, y, order=5, test=score, top=40, device=[gpu_rt])
    b = oclstat.epistasis(g, y, order=5, test=score, top=40, device=[cpu_rt])
    c = oclstat.epistasis(g, y, order=5, test=score, top=40, device=[gpu_rt, cpu_rt])
    assert a.table.equals(b.table) and a.table.equals(c.table)


@pytest.mark.parametrize("order", [4, 5])
def test_gpu_client_tasks_take_tiles(gpu_rt, cpu_rt, order):
    """client= with the GPU as its workers: the tasks are ranges of tiles (OpenCL here), and
    the table is pocl's."""
    from oclstat._epistasis import plan as epi
    from oclstat._epistasis import tasks
    from oclstat.distributed import LocalDevices

    rng = np.random.default_rng(60 + order)
    g = rng.integers(0, 3, size=(40 if order == 4 else 16, 2500)).astype(np.int8)
    y = (rng.random(2500) < 0.5).astype(int)
    want = oclstat.epistasis(g, y, order=order, top=30, device=[cpu_rt]).table
    with LocalDevices([gpu_rt.info.index, gpu_rt.info.index]) as pool:
        search = epi.prepare(g, y, order=order, top=30)
        assert tasks.route(pool, search, "opencl") == "tiles"
        got = oclstat.epistasis(g, y, order=order, top=30, client=pool, backend="opencl")
    assert got.table.equals(want)


# ----------------------------------------------------------------------------- CUDA tensor cores

@pytest.fixture(scope="module")
def cuda_ok():
    from oclstat._epistasis.cuda import available

    ok, why = available()
    if not ok:
        pytest.skip(f"the CUDA tensor-core path cannot run here: {why}")
    return True


@pytest.mark.parametrize("defines", [
    {"ORDER": 2, "SCORE": 0, "ROW_SNPS": 1, "COL_SNPS": 1},
    {"ORDER": 4, "SCORE": 1, "ROW_SNPS": 2, "COL_SNPS": 2},
])
def test_tensor_core_product_equals_numpy(cuda_ok, defines):
    from oclstat._epistasis.cuda import self_check

    for seed in range(3):
        self_check(defines, seed=seed)


@pytest.mark.parametrize("order", [2, 3, 4])
@pytest.mark.parametrize("score", ["k2", "mi"])
def test_cuda_end_to_end_check(cuda_ok, order, score):
    from oclstat._epistasis.cuda import end_to_end_check

    end_to_end_check(order, score)


def test_cuda_lower_tables_equal_opencl(cuda_ok, gpu_rt):
    from oclstat._epistasis import plan as epi
    from oclstat._epistasis import tiles
    from oclstat._epistasis.cuda import TensorCoreTiles

    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, size=(41, 2333))
    y = (rng.random(2333) < 0.4).astype(int)
    search = epi.prepare(g, y, order=4)
    plan = tiles.tile_plan(41, 4)
    a = TensorCoreTiles(search, plan).read_tables()
    b = tiles.OpenCLTiles(gpu_rt, search, plan).read_tables()
    for x, z in zip(a, b, strict=True):
        assert np.array_equal(x, z)


@pytest.mark.parametrize("order,n_snps,n_samples,score,top", [
    (2, 300, 5000, "k2", 10**6), (2, 129, 777, "mi", 50), (3, 70, 3001, "k2", 10**6),
    (3, 90, 1200, "mi", 40), (4, 33, 2049, "k2", 10**6), (4, 70, 4100, "mi", 30),
])
def test_cuda_equals_opencl(cuda_ok, gpu_rt, order, n_snps, n_samples, score, top):
    rng = np.random.default_rng(order * 7 + n_snps)
    g = rng.integers(0, 3, size=(n_snps, n_samples)).astype(np.int8)
    y = (rng.random(n_samples) < 0.47).astype(int)
    a = oclstat.epistasis(g, y, order=order, score=score, top=top, backend="cuda")
    b = oclstat.epistasis(g, y, order=order, score=score, top=top, backend="opencl",
                          device=[gpu_rt])
    assert a.table.equals(b.table)


def test_cuda_finds_planted_quad(cuda_ok):
    rng = np.random.default_rng(9)
    g = rng.integers(0, 3, size=(48, 6000)).astype(np.int8)
    y = ((g[3] + g[17] + g[30] + g[44]) % 3 == 0).astype(int)
    hits = oclstat.epistasis(g, y, order=4, top=1, backend="cuda").table
    assert [int(hits[f"snp{i}"][0]) for i in (1, 2, 3, 4)] == [3, 17, 30, 44]


def test_cuda_client_tasks_run_on_the_current_gpu(cuda_ok, cpu_rt):
    """backend="cuda" with client=: every worker's tiles on its current CUDA GPU (here the
    GPU, for both workers), the table pocl's."""
    from oclstat.distributed import LocalDevices

    rng = np.random.default_rng(70)
    g = rng.integers(0, 3, size=(40, 2500)).astype(np.int8)
    y = (rng.random(2500) < 0.5).astype(int)
    want = oclstat.epistasis(g, y, order=4, top=30, device=[cpu_rt]).table
    with LocalDevices([cpu_rt.info.index, cpu_rt.info.index]) as pool:
        got = oclstat.epistasis(g, y, order=4, top=30, client=pool, backend="cuda")
    assert got.table.equals(want)
