"""oclstat.distributed: tasks on a Dask LocalCluster (2 pocl workers) and on several devices of
one process give exactly the single-device results, also when a worker dies mid-run."""

from __future__ import annotations

import gc
import importlib
import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest
from conftest import run_with_two_pocl_devices

import oclstat
from oclstat.distributed import LocalDevices

dist = importlib.import_module("oclstat.distributed")
from oclstat._epistasis import plan as epi_plan  # noqa: E402
from oclstat._epistasis import tasks as epi_tasks  # noqa: E402
from oclstat._epistasis import tiles as epi_tiles  # noqa: E402
from oclstat._epistasis.result import EpistasisResult  # noqa: E402
from oclstat._gsea import tasks as gsea_tasks  # noqa: E402
from oclstat._scale import Shared, Task  # noqa: E402
from oclstat._scale import run as run_tasks  # noqa: E402


def gsea_data(seed=1):
    rng = np.random.default_rng(seed)
    expr = pd.DataFrame(rng.normal(size=(300, 12)), index=[f"G{i}" for i in range(300)])
    expr.iloc[:20, :6] += 1.0
    sets = {"a": [f"G{i}" for i in range(20)], "b": [f"G{i}" for i in range(40, 90)],
            "c": [f"G{i}" for i in range(100, 130)], "d": [f"G{i}" for i in range(5, 60, 2)]}
    return expr, ["x"] * 6 + ["y"] * 6, sets


def genotype_data(seed=2, m=26, n=600):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, size=(m, n)).astype(np.int8)
    y = rng.integers(0, 2, size=n)
    y[(g[3] + g[17]) % 2 == 1] = 1
    return g, y


def test_local_devices_equal_one_device(rt, monkeypatch):
    monkeypatch.setattr(gsea_tasks, "TASK_PERMUTATIONS", 250)
    expr, labels, sets = gsea_data()
    one = oclstat.gsea(expr, labels, sets, n_resamples=2000, min_size=10, seed=4, device=rt)
    g, y = genotype_data()
    e1 = oclstat.epistasis(g, y, order=3, top=40, device=[rt])
    x, z = np.random.default_rng(5).normal(size=(2, 300, 9))
    p1 = oclstat.permutation_test(x, z, n_windows=32, device=rt)
    with LocalDevices([rt.info.index, rt.info.index]) as pool:
        two = oclstat.gsea(expr, labels, sets, n_resamples=2000, min_size=10, seed=4, client=pool)
        e2 = oclstat.epistasis(g, y, order=3, top=40, client=pool)
        p2 = oclstat.permutation_test(x, z, n_windows=32, client=pool)
    pd.testing.assert_frame_equal(one.table, two.table)
    assert e1.table.equals(e2.table)
    np.testing.assert_array_equal(p1.pvalue, p2.pvalue)


def test_fields_on_several_devices_equal_one_device(rt, monkeypatch):
    """Chunks of matrices on two devices: the same covariances, factors and fields."""
    import oclstat._fields.tasks as field_tasks

    monkeypatch.setattr(field_tasks, "CHUNK_MATRICES", 2)
    xy = oclstat.fields.grid_coords(5, 4)
    params = np.column_stack([np.linspace(0.2, 0.6, 5), np.linspace(0.5, 2.5, 5), np.ones(5),
                              np.zeros(5), np.ones(5), np.zeros(5)])
    cov1 = oclstat.matern_cov(xy, params, device=rt)
    ldl1 = oclstat.ldl_batch(cov1, device=rt)
    f1 = oclstat.simulate_fields(xy, params, 3, seed=2, device=rt)
    two = [rt.info.index, rt.info.index]
    cov2 = oclstat.matern_cov(xy, params, device=two)
    ldl2 = oclstat.ldl_batch(cov2, device=two)
    f2 = oclstat.simulate_fields(xy, params, 3, seed=2, device=two)
    np.testing.assert_array_equal(cov1, cov2)
    np.testing.assert_array_equal(ldl1.L, ldl2.L)
    np.testing.assert_array_equal(ldl1.D, ldl2.D)
    np.testing.assert_array_equal(f1, f2)
    with LocalDevices(two) as pool:
        np.testing.assert_array_equal(oclstat.cholesky_batch(cov1, client=pool),
                                      oclstat.cholesky_batch(cov1, device=rt))
    bad = cov1.copy()
    bad[3] = -bad[3]
    with pytest.raises(ValueError, match=r"A\[3\] is not positive definite"):
        oclstat.ldl_batch(bad, device=two)


def test_gsea_batches_do_not_change_results(rt, monkeypatch):
    expr, labels, sets = gsea_data(3)
    a = oclstat.gsea(expr, labels, sets, n_resamples=999, min_size=10, seed=8, device=rt)
    monkeypatch.setattr(oclstat._gsea.opencl._Plan, "_batch_size", lambda self: 100)
    b = oclstat.gsea(expr, labels, sets, n_resamples=999, min_size=10, seed=8, device=rt)
    pd.testing.assert_frame_equal(a.table, b.table)


def test_fisher_tasks_give_the_single_call_counts(rt, monkeypatch):
    """Chunks of tables on two devices draw from the streams one call gives their tables."""
    import oclstat._fisher.tasks as fisher_tasks

    rng = np.random.default_rng(6)
    tables = [rng.integers(0, 9, size=(3, 4)) + 1 for _ in range(10)]
    monkeypatch.setattr(fisher_tasks, "CHUNK_TABLES", 4)
    one = oclstat.fisher_sim_batch(tables, 2000, seed=3, device=rt)
    with LocalDevices([rt.info.index, rt.info.index]) as pool:
        two = oclstat.fisher_sim_batch(tables, 2000, seed=3, client=pool)
    np.testing.assert_array_equal(one.count, two.count)
    np.testing.assert_array_equal(one.pvalue, two.pvalue)
    with pytest.warns(DeprecationWarning, match="pass client="):
        with LocalDevices([rt.info.index]) as pool:
            s, p, c = dist.fisher_sim_batch(tables, 2000, client=pool, seed=3)
    np.testing.assert_array_equal(c, one.count)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    cl = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40)
    client = distributed.Client(cl)
    client.register_plugin(dist.OclstatPlugin())
    yield client
    client.close()
    cl.close()


def test_dask_cluster_equals_single_process(cluster, rt):
    expr, labels, sets = gsea_data(7)
    one = oclstat.gsea(expr, labels, sets, n_resamples=3000, min_size=10, seed=11, device=rt)
    two = oclstat.gsea(expr, labels, sets, n_resamples=3000, min_size=10, seed=11, client=cluster)
    pd.testing.assert_frame_equal(one.table, two.table)
    g, y = genotype_data(8)
    assert oclstat.epistasis(g, y, order=3, top=30, device=[rt]).table.equals(
        oclstat.epistasis(g, y, order=3, top=30, client=cluster).table)
    x, z = np.random.default_rng(9).normal(size=(2, 500, 8))
    np.testing.assert_array_equal(
        oclstat.permutation_test(x, z, n_windows=16, device=rt).pvalue,
        oclstat.permutation_test(x, z, n_windows=16, client=cluster).pvalue)
    labels_seen = cluster.run(lambda dask_worker: dask_worker.oclstat_device)
    assert len(labels_seen) == 2


def test_dask_gpu_workers_search_tiles(cluster, rt, monkeypatch):
    """Workers in GPU schedules take a search's tiles as tasks (orders 3 and 4, and order 5,
    which runs only as tiles): each worker builds the tables once, and the merged top-k is one
    device's (here the CPU schedule's bit-vector search)."""

    def set_schedule(value):        # nested: shipped by value to the workers
        import os

        before = os.environ.pop("OCLSTAT_SCHEDULE", None)
        if value is not None:
            os.environ["OCLSTAT_SCHEDULE"] = value
        return before

    g, y = genotype_data(12, m=30, n=700)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    want = {order: oclstat.epistasis(g, y, order=order, top=30, device=[rt]).table
            for order in (3, 4)}
    search = epi_plan.prepare(g, y, order=4, top=30)
    untouched = epi_tasks.route(cluster, search)
    before = cluster.run(set_schedule, "gpu")
    try:
        assert epi_tasks.route(cluster, search) == "tiles"
        for order in (3, 4):
            got = oclstat.epistasis(g, y, order=order, top=30, client=cluster)
            assert got.table.equals(want[order])
        g5 = g[:14]
        five = oclstat.epistasis(g5, y, order=5, top=25, client=cluster)
        assert five.table.equals(oclstat.epistasis(g5, y, order=5, top=25, device=rt).table)
    finally:
        for address, value in before.items():
            cluster.run(set_schedule, value, workers=[address])
    assert epi_tasks.route(cluster, search) == untouched


def test_local_devices_search_tiles_and_order_5(rt, monkeypatch):
    """LocalDevices as a client: in the GPU schedule the tasks are ranges of tiles (a spy
    counts them), one device's tables serve all of its tasks and are dropped with the search;
    every order gives the single device's table."""
    g, y = genotype_data(13, m=28, n=600)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    want = oclstat.epistasis(g, y, order=4, top=20, device=rt).table
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")
    built = []
    real = epi_tasks.OpenCLTiles

    def counting(*args):
        built.append(args[1].order)
        return real(*args)

    monkeypatch.setattr(epi_tasks, "OpenCLTiles", counting)
    with LocalDevices([rt.info.index, rt.info.index]) as pool:
        got = oclstat.epistasis(g, y, order=4, top=20, client=pool)
        assert got.table.equals(want)
        assert built == [4]                      # one device (twice): its tables built once
        five = oclstat.epistasis(g[:12], y, order=5, top=15, client=pool)
    assert five.table.equals(oclstat.epistasis(g[:12], y, order=5, top=15, device=rt).table)
    search = epi_plan.prepare(g, y, order=3, top=5)
    assert len(epi_tasks.plan(search, search, numbering="tiles")) > 1
    monkeypatch.setattr(epi_tasks, "tiles_fit", lambda rt, search: False)
    with LocalDevices([rt.info.index]) as pool, \
            pytest.raises(ValueError, match="tiles of this order-3 search over 28 SNPs do not"):
        pool.run(epi_tasks._tiles, search, 0, 1)
    del search
    gc.collect()
    assert not epi_tasks._HELD, "the tiles outlived their search"


def test_workers_run_the_tiles_on_their_cuda_gpus(rt, monkeypatch):
    """A worker whose current CUDA GPU suits the search (Dask-CUDA: one GPU per worker) runs
    its tiles on the tensor cores, once per search and GPU; backend="cuda" stops, naming the
    workers, where one cannot; "auto" falls back to OpenCL tiles (the same numbering) when the
    tensor-core build fails. No GPU here: the OpenCL twin stands in for the tensor-core tiles
    and CuPy's device."""
    g, y = genotype_data(15, m=24, n=600)
    want = oclstat.epistasis(g, y, order=4, top=20, device=rt).table
    built = []

    class StandIn:
        def __init__(self, search, plan):
            built.append(search.order)
            twin = epi_tiles.OpenCLTiles(rt, search, plan)
            self.plan, self.launch = plan, twin.launch

    def broken(search, plan):
        raise RuntimeError("the self check failed")

    monkeypatch.setattr(epi_tasks.cuda, "available", lambda: (True, "stand-in"))
    monkeypatch.setattr(epi_tasks.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(epi_tasks.cuda, "TensorCoreTiles", StandIn)
    search = epi_plan.prepare(g, y, order=4, top=20)
    with LocalDevices([rt.info.index, rt.info.index]) as pool:
        assert epi_tasks.route(pool, search, "cuda") == "tiles"
        assert epi_tasks.route(pool, search, "opencl") == ("tiles" if rt.gpu_schedule
                                                           else "ranks")
        got = oclstat.epistasis(g, y, order=4, top=20, client=pool, backend="cuda")
        assert got.table.equals(want) and built == [4]
        holed = g.copy()
        holed[2, 5] = -1
        with pytest.raises(ValueError, match=r"cannot run on the workers \[0, 1\]: the "
                                             "genotypes have missing values"):
            oclstat.epistasis(holed, y, order=3, client=pool, backend="cuda")
        monkeypatch.setattr(epi_tasks.cuda, "TensorCoreTiles", broken)
        with pytest.warns(RuntimeWarning, match="using OpenCL tiles"):
            again = oclstat.epistasis(g, y, order=4, top=20, client=pool)
        assert again.table.equals(want)
        with pytest.raises(RuntimeError, match="the self check failed"):
            oclstat.epistasis(g, y, order=4, top=20, client=pool, backend="cuda")
    monkeypatch.setattr(epi_tasks.cuda, "available", lambda: (False, "no CUDA device"))
    with LocalDevices([rt.info.index]) as pool, \
            pytest.raises(ValueError, match=r"workers \[0\]: no CUDA GPU"):
        oclstat.epistasis(g, y, order=4, top=20, client=pool, backend="cuda")


def test_route_is_ranks_unless_every_worker_takes_tiles(rt):
    """One worker in a CPU schedule (or whose device cannot hold the tables) sends every
    worker the colex ranks, so the tasks' ranges cover each combination once; CUDA and OpenCL
    tiles mix (one numbering)."""

    class Answers:
        def __init__(self, answers):
            self.answers = answers

        def run(self, fn, *args):
            return dict(enumerate(self.answers))

    search = epi_plan.prepare(*genotype_data(14), order=4, top=5)
    assert epi_tasks.route(Answers(["tiles", "tiles"]), search) == "tiles"
    assert epi_tasks.route(Answers(["cuda", "tiles"]), search, "auto") == "tiles"
    assert epi_tasks.route(Answers(["tiles", "ranks"]), search) == "ranks"
    assert epi_tasks.route(Answers(["cuda", "ranks"]), search, "auto") == "ranks"
    assert epi_tasks.route(Answers([]), search) == "ranks"
    with pytest.raises(ValueError, match=r"on the workers \[1\]"):
        epi_tasks.route(Answers(["cuda", "tiles"]), search, "cuda")
    with pytest.raises(ValueError, match="numbering must be one of"):
        epi_tasks.plan(search, search, numbering="pairs")


def test_shared_data_is_sent_again_when_lost(cluster):
    """Scattered data Dask has lost (every worker holding it gone; here cancelled) is sent
    again before the tasks that read it are submitted: Dask cannot recompute it, and those
    tasks would come back cancelled however often they were resubmitted."""

    def add(data, i):
        return int(data.sum()) + i

    shared = Shared(cluster, np.arange(5))
    first = shared.future()
    assert run_tasks(cluster, [Task(add, (shared, 1))]) == [11]
    cluster.cancel(first)
    assert run_tasks(cluster, [Task(add, (shared, i)) for i in range(4)]) == [10, 11, 12, 13]
    assert shared.future() is not first


def _gated(fn, started, gate):
    """``fn`` as a task that first marks ``started/<pid>`` and then waits for ``gate`` to exist
    (at most two minutes): a worker holding such a task is known to be mid-run. A nested
    function, so that Dask's cloudpickle ships it by value to workers that cannot import tests."""

    def task(*args):
        (started / str(os.getpid())).touch()
        deadline = time.monotonic() + 120.0
        while not gate.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return fn(*args)

    return task


def test_worker_killed_mid_run(cluster, rt, tmp_path):
    """A worker is killed while it holds an epistasis task; Dask recomputes its tasks and the
    merged top-k is one device's. Deterministic: every task waits at a gate until the victim,
    a worker seen inside a task, has been killed (no timing assumption about the search)."""
    g, y = genotype_data(10, m=80, n=2000)
    ref = oclstat.epistasis(g, y, order=4, top=25, device=[rt])
    search = epi_plan.prepare(g, y, order=4, top=25)
    started, gate = tmp_path / "started", tmp_path / "gate"
    started.mkdir()
    out = {}

    def run():
        try:
            shared = Shared(cluster, search)
            tasks = [Task(_gated(t.fn, started, gate), t.args)
                     for t in epi_tasks.plan(search, shared, n_tasks=40)]
            out["best"] = epi_tasks.merge(search, run_tasks(cluster, tasks))
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            out["error"] = exc

    t = threading.Thread(target=run)
    t.start()
    pids = cluster.run(os.getpid)
    deadline = time.monotonic() + 120.0
    while not any(started.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.01)
    inside = {int(p.name) for p in started.iterdir()} & set(pids.values())
    assert inside, "no worker started a task within two minutes"
    victim = min(inside)
    os.kill(victim, signal.SIGKILL)
    assert t.is_alive(), "the search ended while every task was held at the gate"
    gate.touch()
    t.join(timeout=300)
    assert not t.is_alive(), "the search did not end within five minutes of the kill"
    assert "error" not in out, out.get("error")
    assert _table(search, out["best"]).equals(ref.table)
    assert victim not in set(cluster.run(os.getpid).values())


def test_two_pocl_devices_in_one_process_gsea():
    code = (
        "import sys; sys.path.insert(0, 'tests')\n"
        "import numpy as np, pandas as pd, oclstat\n"
        "from test_distributed import gsea_data\n"
        "from oclstat.distributed import LocalDevices\n"
        "import oclstat._gsea.tasks as T; T.TASK_PERMUTATIONS = 300\n"
        "devs = [d.index for d in oclstat.devices(usable=True) if d.type == 'CPU']\n"
        "assert len(devs) >= 2, devs\n"
        "expr, labels, sets = gsea_data(12)\n"
        "a = oclstat.gsea(expr, labels, sets, n_resamples=1500, min_size=10, seed=2,\n"
        "                 device=devs[0])\n"
        "with LocalDevices(devs[:2]) as pool:\n"
        "    b = oclstat.gsea(expr, labels, sets, n_resamples=1500, min_size=10,\n"
        "                     seed=2, client=pool)\n"
        "pd.testing.assert_frame_equal(a.table, b.table)\n"
        "print('same')\n"
    )
    assert run_with_two_pocl_devices(code).strip().endswith("same")


def test_cli_scheduler(cluster, shared_data, tmp_path, capsys):
    from oclstat.cli import main

    address = cluster.scheduler.address
    d = shared_data / "gsea"
    out = tmp_path / "r.tsv"
    rc = main(["gsea", "--gct", str(d / "Leukemia_hgu95av2.trim.gct"), "--cls",
               str(d / "Leukemia.cls"), "--gmt", str(d / "h.all.v7.0.symbols.gmt"), "--resamples",
               "300", "--seed", "2", "--out", str(out), "--scheduler", address])
    assert rc == 0
    rc = main(["gsea", "--gct", str(d / "Leukemia_hgu95av2.trim.gct"), "--cls",
               str(d / "Leukemia.cls"), "--gmt", str(d / "h.all.v7.0.symbols.gmt"), "--resamples",
               "300", "--seed", "2", "--out", str(tmp_path / "l.tsv")])
    assert rc == 0
    assert out.read_text() == (tmp_path / "l.tsv").read_text()
    e = shared_data / "epistasis" / "hiperbio" / "gen_23SNPs_10000sam.csv"
    rc = main(["epistasis", "--csv", str(e), "--order", "3", "--top", "5", "--scheduler",
               address, "--out", str(tmp_path / "h.tsv")])
    assert rc == 0
    assert pd.read_csv(tmp_path / "h.tsv", sep="\t")["k2"][0] == pytest.approx(6979.1083,
                                                                               abs=1e-4)


def _table(search, best):
    """The result table of a top-k found by a backend directly."""
    return EpistasisResult.of(search, best, "opencl").table


def test_one_road_from_device_and_client_to_an_executor():
    """executor(): one device runs here (its runtime chosen for the workload, tasks mapped in
    this thread on it); a list starts LocalDevices on first use and closes them; lists with
    client=, empty lists, and lists where one device is meant are refused naming device=."""
    from oclstat._scale import LocalDevices, Task, executor, task_runtime

    with executor(None, None, "gsea") as ex:
        assert not ex.several and ex.client is None
        assert ex.runtime is oclstat._runtime.runtime_for(None, "gsea")
        assert ex.map([Task(task_runtime)]) == [ex.runtime]
    with executor([None, None], None) as ex:
        assert ex.several and ex._client is None            # nothing started yet
        pool = ex.client
        assert isinstance(pool, LocalDevices)
        assert ex.map([Task(pow, (2, i)) for i in range(5)]) == [1, 2, 4, 8, 16]
    assert ex._client is None and not any(t.is_alive() for t in pool._threads)
    with pytest.raises(ValueError, match="device= is an empty list"):
        executor([], None)
    with pytest.raises(ValueError, match="not both"):
        executor([0, 0], object())
    with pytest.raises(ValueError, match="runs on one device"):
        executor([0], None, several=False)
    with pytest.raises(ValueError, match="runs on one device"):
        oclstat.ora(["A"], {"s": ["A", "B"]}, universe=["A", "B", "C"], device=[0, 0])


class _LosesSomeRuns:
    """A Dask client whose futures number ``lost`` are cancelled as soon as submitted (as when
    their worker dies mid-run)."""

    def __init__(self, client, lost):
        self.client, self.lost, self.submitted = client, set(lost), 0

    def submit(self, fn, *args, **kwargs):
        future = self.client.submit(fn, *args, **kwargs)
        if self.submitted in self.lost:
            self.client.cancel(future)
        self.submitted += 1
        return future


def test_cancelled_tasks_are_submitted_again_never_taken_for_results(cluster):
    """A task whose Dask future is cancelled runs again (its result in its place); one that is
    cancelled every time is an error naming the cancellations, never a result."""
    tasks = [Task(pow, (2, i)) for i in range(4)]
    flaky = _LosesSomeRuns(cluster, lost={1, 4})      # task 1's first and second runs
    assert run_tasks(flaky, tasks) == [1, 2, 4, 8]
    assert flaky.submitted == 6
    always = _LosesSomeRuns(cluster, lost=range(100))
    with pytest.raises(RuntimeError, match="were cancelled 4 times"):
        run_tasks(always, tasks[:1])
