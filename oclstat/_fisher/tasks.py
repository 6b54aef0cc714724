"""The Fisher test as tasks (the scale-out protocol, :mod:`oclstat._scale`): a batch of tables
cut into chunks, each chunk drawing from exactly the MRG31k3p streams a single call gives its
tables (table t of the batch: streams t S .. t S + S - 1 of the seed), with the log-factorial
scale of the whole batch: the same counts as one call, for any chunking and any workers."""

from __future__ import annotations

import numpy as np

from .._random.mrg31k3p import create_stream_states
from .._random.streams import Streams
from .._scale import Task, task_runtime
from .opencl import _run_rcont2
from .plan import MAX_STREAMS, prepare

#: Tables per task.
CHUNK_TABLES = 1024


def _chunk(tables, total, n_resamples, words, first_stream, per_table, dtype):
    rt = task_runtime()
    margins, statistic, thresholds, logfact, bits = prepare(rt, tables, total)
    states = create_stream_states(words, len(tables) * per_table, first=first_stream)
    counts, _, _ = _run_rcont2(rt, margins, thresholds, n_resamples, logfact, bits, seed=None,
                               streams=Streams(states), dtype=np.dtype(dtype),
                               store_stats=False, store_tables=False, progress=False,
                               desc="fisher_sim")
    return statistic, counts


def plan(tables: list[np.ndarray], n_resamples: int, words, dtype, chunk: int | None = None):
    """Tasks for cleaned ``tables`` (each returns (statistics, counts) of its chunk)."""
    chunk = chunk or CHUNK_TABLES
    per_table = max(1, min(n_resamples, MAX_STREAMS // len(tables)))
    total = max(int(x.sum()) for x in tables)
    return [Task(_chunk, (tables[a:a + chunk], total, n_resamples, words, a * per_table,
                          per_table, np.dtype(dtype).name))
            for a in range(0, len(tables), chunk)]


def merge(results) -> tuple[np.ndarray, np.ndarray]:
    """(statistics, counts) of the whole batch, in table order."""
    return (np.concatenate([r[0] for r in results]),
            np.concatenate([r[1] for r in results]).astype(np.int64))
