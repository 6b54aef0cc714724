"""Scale-out as a protocol: a capability plans its work as tasks, an executor runs them, the
capability merges the results.

Every capability that scales out has a ``tasks`` module with pure module-level functions:
``plan`` (the work cut into :class:`Task` objects) and ``merge`` (the results, in task order,
into the answer a single device gives, exactly). An executor is anything with Dask's
``submit`` and ``scatter``: a ``dask.distributed.Client`` (with :class:`oclstat.distributed.
OclstatPlugin` on the workers) or :class:`LocalDevices` (several OpenCL devices of this
process, one thread each). :func:`run` is the one runner; :func:`task_runtime` is the device a
task runs on. Nothing here knows a capability, and no capability knows an executor.

>>> def square(x):
...     return x * x
>>> with LocalDevices([None]) as pool:
...     run(pool, [Task(square, (i,)) for i in range(4)])
[0, 1, 4, 9]
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from ._progress import Progress
from ._runtime import get_runtime

__all__ = ["Task", "run", "task_runtime", "executor", "LocalDevices", "set_worker_device"]

_THREAD = threading.local()
_WORKER_DEVICE = None


@dataclass(frozen=True)
class Task:
    """One unit of work: a pure module-level function and its arguments (pickled to Dask)."""

    fn: Callable
    args: tuple = ()


def task_runtime():
    """The runtime a task runs on: its :class:`LocalDevices` thread's device, else the Dask
    worker's (:func:`set_worker_device`), else the default device."""
    device = getattr(_THREAD, "device", None)
    if device is None:
        device = _WORKER_DEVICE
    return get_runtime(device)


def set_worker_device(device) -> None:
    """The device of the tasks this process runs as a Dask worker (the worker plugin)."""
    global _WORKER_DEVICE
    _WORKER_DEVICE = device


def _completed(futures):
    """(index, result) as tasks finish, for Dask futures or concurrent futures."""
    index = {id(f): i for i, f in enumerate(futures)}
    if not futures or isinstance(futures[0], Future):
        from concurrent.futures import as_completed

        for f in as_completed(futures):
            yield index[id(f)], f.result()
        return
    from distributed import as_completed as dask_completed

    for f, result in dask_completed(futures, with_results=True):
        yield index[id(f)], result


def run(client, tasks: list[Task], *, progress=None, desc: str = "tasks") -> list:
    """Run ``tasks`` on ``client`` and return their results in task order. Large arguments
    shared by every task should be scattered first (``client.scatter(x, broadcast=True)``)."""
    futures = [client.submit(t.fn, *t.args, pure=False) for t in tasks]
    out: list = [None] * len(futures)
    with Progress(total=max(1, len(futures)), desc=desc, enabled=progress) as bar:
        for i, result in _completed(futures):
            out[i] = result
            bar.update(1)
    return out


class LocalDevices:
    """Several OpenCL devices of this process as a task executor (one thread per device pulling
    tasks from a shared queue: dynamic scheduling). ``submit``/``scatter`` mimic Dask's Client.

    ``devices``: indices, names or None (the default device), e.g. ``LocalDevices([0, 1])``.
    """

    def __init__(self, devices):
        self.devices = list(devices)
        if not self.devices:
            raise ValueError("LocalDevices needs at least one device")
        for d in self.devices:
            get_runtime(d)                       # fail now on a bad device name
        self._queue: queue.Queue = queue.Queue()
        self._threads = [threading.Thread(target=self._serve, args=(d,), daemon=True)
                         for d in self.devices]
        for t in self._threads:
            t.start()

    def _serve(self, device):
        _THREAD.device = device if device is not None else get_runtime(None).info.index
        while True:
            item = self._queue.get()
            if item is None:
                return
            fut, fn, args, kwargs = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                fut.set_exception(exc)

    def submit(self, fn, *args, pure=True, **kwargs) -> Future:
        fut: Future = Future()
        self._queue.put((fut, fn, args, kwargs))
        return fut

    def scatter(self, data, broadcast=True):
        return data

    def close(self):
        for _ in self._threads:
            self._queue.put(None)
        for t in self._threads:
            t.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def executor(device, client):
    """The executor of a call's ``device=`` and ``client=``: ``(client, owned)``. A list of
    devices becomes a :class:`LocalDevices` the caller closes (``owned``); one device or None
    with no client gives ``(None, False)`` (run in this thread)."""
    if client is not None:
        if isinstance(device, (list, tuple)):
            raise ValueError("pass a list of devices (device=[...]) or client=, not both")
        return client, False
    if isinstance(device, (list, tuple)):
        if not device:
            raise ValueError("device= is an empty list")
        if len(device) == 1:
            return None, False
        return LocalDevices(device), True
    return None, False
