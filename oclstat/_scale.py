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
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property

from ._progress import Progress
from ._runtime import get_runtime

__all__ = ["Task", "Shared", "run", "task_runtime", "executor", "Executor", "LocalDevices",
           "set_worker_device"]

_THREAD = threading.local()
_WORKER_DEVICE = None


@dataclass(frozen=True)
class Task:
    """One unit of work: a pure module-level function and its arguments (pickled to Dask)."""

    fn: Callable
    args: tuple = ()


class Shared:
    """Data every task of a Dask run reads, sent once to every worker and kept here, so that
    :func:`run` can send it again when the workers holding it are lost (Dask cannot recompute
    scattered data: without it every task that reads it comes back cancelled). A task's
    argument that is a ``Shared`` reaches the task as the data itself."""

    def __init__(self, client, data):
        self.client, self.data = client, data
        self._future = None

    def future(self):
        """The data's Dask future, scattered again when the one held is no longer there."""
        if self._future is None or getattr(self._future, "status", "finished") != "finished":
            # a key of its own each time: never the lost one's (a content hash would repeat it)
            self._future = self.client.scatter(self.data, broadcast=True, hash=False)
        return self._future


def task_runtime():
    """The runtime a task runs on: its :class:`LocalDevices` thread's device, else the Dask
    worker's (:func:`set_worker_device`), else the default device."""
    device = getattr(_THREAD, "device", None)
    if device is None:
        device = _WORKER_DEVICE
    return get_runtime(device)


@contextmanager
def _tasks_on(device):
    """Within the block, :func:`task_runtime` in this thread resolves ``device``."""
    before = getattr(_THREAD, "device", None)
    _THREAD.device = device
    try:
        yield
    finally:
        _THREAD.device = before


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


#: Times a task whose future Dask cancelled (its worker lost mid-run) is submitted again.
RESUBMITS = 3


def _cancelled(future, result) -> bool:
    """Whether a Dask future came back cancelled (``as_completed`` then hands over the
    cancellation in place of a result)."""
    return getattr(future, "status", None) == "cancelled" or (
        isinstance(result, BaseException) and "cancel" in type(result).__name__.lower())


def _arguments(task: Task) -> tuple:
    """A task's arguments as submitted: a :class:`Shared` as its current Dask future."""
    return tuple(a.future() if isinstance(a, Shared) else a for a in task.args)


def run(client, tasks: list[Task], *, progress=None, desc: str = "tasks") -> list:
    """Run ``tasks`` on ``client`` and return their results in task order. Large arguments
    shared by every task should be :class:`Shared` (``Executor.scatter``): sent once to every
    worker, and again if the workers holding them are lost. A task whose future Dask cancels
    (a worker lost while it ran, or the shared data it reads) is submitted again, up to
    :data:`RESUBMITS` times; a cancellation is never taken for a result."""
    out: list = [None] * len(tasks)
    todo = list(range(len(tasks)))
    with Progress(total=max(1, len(tasks)), desc=desc, enabled=progress) as bar:
        for _ in range(RESUBMITS + 1):
            futures = [client.submit(tasks[i].fn, *_arguments(tasks[i]), pure=False)
                       for i in todo]
            lost = []
            for j, result in _completed(futures):
                if _cancelled(futures[j], result):
                    lost.append(todo[j])
                    continue
                out[todo[j]] = result
                bar.update(1)
            if not lost:
                return out
            todo = sorted(lost)
    raise RuntimeError(f"{len(todo)} of {len(tasks)} {desc} were cancelled {RESUBMITS + 1} "
                       "times (workers lost while they ran them); check the cluster")


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

    @staticmethod
    def _thread_device(device):
        """What :func:`task_runtime` resolves for a task run for ``device``."""
        return device if device is not None else get_runtime(None).info.index

    def _serve(self, device):
        _THREAD.device = self._thread_device(device)
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

    def run(self, fn, *args) -> dict:
        """``fn(*args)`` once for every device, as Dask's ``Client.run`` on every worker:
        {position in ``devices``: result}, each call's :func:`task_runtime` that device."""
        out = {}
        for i, d in enumerate(self.devices):
            with _tasks_on(self._thread_device(d)):
                out[i] = fn(*args)
        return out

    def close(self):
        for _ in self._threads:
            self._queue.put(None)
        for t in self._threads:
            t.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Executor:
    """What one call's ``device=`` and ``client=`` mean, decided once: the devices its tasks
    run on (:attr:`several`: a Dask client, or a :class:`LocalDevices` over a list of devices,
    closed with the executor), or the one device the call runs on (:attr:`runtime`, with the
    workload's measured CPU preference). :meth:`map` runs tasks on either, in task order.
    Always closable, and a context manager.

    >>> def square(x):
    ...     return x * x
    >>> with executor(None, None) as ex:
    ...     ex.several, ex.map([Task(square, (i,)) for i in range(3)])
    (False, [0, 1, 4])
    """

    def __init__(self, device, client, workload: str | None = None, *, several: bool = True):
        self.workload = workload
        listed = isinstance(device, (list, tuple))
        if not several and (listed or client is not None):
            raise ValueError("this function runs on one device: pass one device= (an index, "
                             "a name or a runtime), not a list or client=")
        if listed and not device:
            raise ValueError("device= is an empty list")
        if listed and client is not None:
            raise ValueError("pass a list of devices (device=[...]) or client=, not both")
        self.device = device[0] if listed else device
        self._devices = list(device) if listed else [device]
        self._given = device is not None or client is not None
        self._client = client
        self._pool = list(device) if listed and len(device) > 1 else None
        self._owned = False

    @property
    def several(self) -> bool:
        """Whether the call's work goes out as tasks (several devices or a Dask client)."""
        return self._client is not None or self._pool is not None

    @property
    def client(self):
        """The task executor: the Dask client given, or the :class:`LocalDevices` of the
        listed devices (started on first use, closed with this executor); None for one
        device."""
        if self._client is None and self._pool is not None:
            self._client, self._owned = LocalDevices(self._pool), True
        return self._client

    @cached_property
    def runtime(self):
        """The runtime of the call's one device (the first of a list), chosen for the
        workload."""
        from ._runtime import runtime_for

        return runtime_for(self.device, self.workload)

    @property
    def runtimes(self) -> list:
        """The runtime of every device listed (one device: :attr:`runtime`), for a capability
        that splits one job over devices itself (the epistasis search)."""
        from ._runtime import runtime_for

        return [runtime_for(d, self.workload) for d in self._devices]

    @property
    def given(self) -> bool:
        """Whether the call named its devices or a client (else the defaults decide)."""
        return self._given

    def scatter(self, data):
        """``data`` for every task: :class:`Shared` on a Dask client (sent to every worker,
        again if they lose it), as it is where the tasks run in this process."""
        if not self.several or isinstance(self.client, LocalDevices):
            return data
        return Shared(self.client, data)

    def map(self, tasks: list[Task], *, progress=None, desc: str = "tasks") -> list:
        """The tasks' results in task order: on the executor's devices, or one after another
        in this thread on :attr:`runtime`."""
        if self.several:
            return run(self.client, tasks, progress=progress, desc=desc)
        with _tasks_on(self.runtime), \
                Progress(total=max(1, len(tasks)), desc=desc, enabled=progress) as bar:
            out = []
            for t in tasks:
                out.append(t.fn(*t.args))
                bar.update(1)
            return out

    def close(self) -> None:
        if self._owned:
            self._client.close()
            self._client, self._owned = None, False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def executor(device, client=None, workload: str | None = None, *,
             several: bool = True) -> Executor:
    """The :class:`Executor` of a call's ``device=`` and ``client=``: the one road from those
    arguments to devices (every API function takes it, then its ``runtime`` or its ``map``).
    ``several=False``: the function runs on one device, and a list or a client is refused."""
    return Executor(device, client, workload, several=several)
