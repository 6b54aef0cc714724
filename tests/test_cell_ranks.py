"""Cells ranked on the device (oclstat._singlesample.cell_ranks): ssGSEA, AUCell and UCell of
sparse cells through the device's counting ranks give the host's sorted ranks' scores to the
bit, with ties, negative values, stored zeros, empty cells and cells too full for the device;
the device path is taken with the GPU schedule only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import oclstat
from oclstat._singlesample import cell_ranks


def _cells(genes=400, cells=90, seed=3):
    rng = np.random.default_rng(seed)
    x = sparse.random(genes, cells, density=0.08, format="lil", random_state=rng,
                      data_rvs=lambda k: np.round(rng.normal(1.0, 1.0, k), 1))   # ties, < 0
    x[:, 5] = 0                                           # an empty cell
    x[:, 6] = np.round(rng.normal(size=(genes, 1)), 1)    # a full one
    x = sparse.csc_matrix(x)
    x.data[::11] = 0.0                                    # stored zeros
    names = [f"g{i}" for i in range(genes)]
    sets = {"a": names[:20], "b": names[50:130], "c": names[300:315] + ["absent"]}
    return x, names, sets


@pytest.fixture
def gpu_schedule(monkeypatch, rt):
    if not rt.info.fp64:
        pytest.skip("the device path needs fp64")
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "gpu")


@pytest.mark.parametrize("method,args", [
    ("ssgsea", {}), ("ssgsea", {"flavor": "gseapy", "alpha": 1.0, "normalize": False}),
    ("aucell", {}), ("aucell", {"normalize": False, "max_rank": 40}),
    ("ucell", {"max_rank": 60})])
def test_device_ranks_give_the_hosts_scores_to_the_bit(rt, gpu_schedule, monkeypatch,
                                                        method, args):
    x, names, sets = _cells()
    if method == "ucell":
        sets = {"mixed": ["g1", "g2", "g3-", "g200-", "nope"], "up": names[10:40]}
    f = getattr(oclstat, method)
    on_device = f(x, sets, genes=names, device=rt, **args)
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    on_host = f(x, sets, genes=names, device=rt, **args)
    pd.testing.assert_frame_equal(on_device, on_host, check_exact=True)


def test_the_device_path_is_taken_and_full_cells_go_to_the_host(rt, gpu_schedule,
                                                                 monkeypatch):
    x, names, sets = _cells()
    calls = []
    real = cell_ranks.DeviceCells.ssgsea

    def spy(self, block, **kw):
        calls.append(block.shape[1])
        return real(self, block, **kw)

    monkeypatch.setattr(cell_ranks.DeviceCells, "ssgsea", spy)
    oclstat.ssgsea(x, sets, genes=names, device=rt)
    assert calls == [x.shape[1]]
    calls.clear()
    monkeypatch.setattr(cell_ranks, "MAX_VALUES_PER_CELL", 30)    # cell 6 is too full
    want = oclstat.ssgsea(x, sets, genes=names, device=rt)
    assert calls == []
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "cpu")
    pd.testing.assert_frame_equal(want, oclstat.ssgsea(x, sets, genes=names, device=rt),
                                  check_exact=True)


def test_a_cpu_takes_the_hosts_sort_without_opening_a_device(monkeypatch):
    monkeypatch.setenv("OCLSTAT_SCHEDULE", "auto")
    monkeypatch.delenv("OCLSTAT_DEVICE", raising=False)
    if any(d.type == "GPU" and not d.simulator for d in oclstat.devices(usable=True)):
        pytest.skip("a GPU is present")
    opened = []
    monkeypatch.setattr(cell_ranks, "executor", lambda *a, **k: opened.append(a))
    assert cell_ranks.cells_runtime(None, "ssgsea") is None
    assert opened == []


def test_ranks_are_the_counts_of_the_definition(rt):
    """Positions and doubled average ranks of one cell, read back from the device."""
    x = sparse.csc_matrix(np.array([[2.0], [0.0], [-1.0], [2.0], [5.0], [0.0], [-1.0]]))
    cells = cell_ranks.DeviceCells(rt, [np.arange(7)], n_genes=7)
    # ssGSEA of the one set holding every gene is 0 whatever the order; the areas with
    # max_rank 8 are sum(8 - position) = 8 * 7 - 28 = 28, and UCell's capped ranks sum to 28
    assert cells.areas(x, 8).tolist() == [[28.0]]
    assert cells.capped_ranks(x, 8).tolist() == [[28.0]]
    one = cell_ranks.DeviceCells(rt, [np.array([i]) for i in range(7)], n_genes=7)
    # positions by decreasing value, equal values by row: 5 (row 4), 2 (rows 0, 3), zeros
    # (rows 1, 5), -1 (rows 2, 6)
    positions = 8 - one.areas(x, 8)[:, 0]
    assert positions.tolist() == [2, 4, 6, 3, 1, 5, 7]
    # average ranks by increasing value: -1: 1.5, 0: 3.5, 2: 5.5, 5: 7; capped decreasing
    # ranks are n + 1 - rank
    assert one.capped_ranks(x, 8)[:, 0].tolist() == [2.5, 4.5, 6.5, 2.5, 1.0, 4.5, 6.5]
