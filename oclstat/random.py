"""Random streams (clRNG's MRG31k3p) and uniform, normal and exponential draws on the device.

A :class:`Streams` object holds ``n`` streams of L'Ecuyer and Touzin's MRG31k3p generator in
clRNG's layout: for each stream its current state, its initial state and the start of its
current substream (each an ``(n, 6)`` uint32 array). :func:`create_streams` makes them exactly
as clRNG's ``clrngMrg31k3pCreateStreams`` does from the same base seed: stream 0 starts at the
seed, stream ``k`` is stream ``k-1`` jumped ``2^134`` steps. Substreams are ``2^72`` steps apart.

Every draw function takes ``streams=`` (a :class:`Streams`, advanced in place, as clRNG and
gpuRandom do) or ``seed=`` (an int, or six integers as clRNG accepts).

**Which stream produces which element.** With ``S`` streams and ``N`` outputs in C order,
element ``i`` is draw number ``i // S`` of stream ``i % S`` (work-item ``s`` owns stream ``s``
and fills elements ``s, s+S, s+2S, ...``). For :func:`normal`, draws come in Box-Muller pairs:
a stream's draws ``2j`` and ``2j+1`` are the cosine and sine halves of its ``j``-th pair, made
from its uniforms ``2j`` and ``2j+1``; when the stream's last pair is cut by the end of the
array, the sine half is dropped (the stream still advances past both uniforms). With ``seed=``,
``S = min(N, 2**18)`` streams are created from the seed, so ``uniform(n, seed=s)[:k]`` equals
``uniform(k, seed=s)`` for ``k <= n``. The mapping depends only on ``S`` and ``N``, never on the
device: integer outputs are bit-identical on every device, floating outputs agree to rounding
(uniforms are exact: ``z * 2^-31`` in double).

>>> import oclstat.random as ocr
>>> st = ocr.create_streams(4)
>>> st.initial[0].tolist()
[12345, 12345, 12345, 12345, 12345, 12345]
>>> u = ocr.uniform(8, streams=st)
>>> bool((0 < u).all() and (u < 1).all())
True
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from . import _mrg31k3p as _m
from ._progress import Progress
from ._runtime import get_runtime
from ._validation import as_finite, as_float_dtype, as_int, as_shape, check_host_memory

__all__ = [
    "Streams",
    "create_streams",
    "uniform",
    "normal",
    "exponential",
    "integers",
    "random_raw",
    "DEFAULT_SEED",
    "MAX_DEFAULT_STREAMS",
]

DEFAULT_SEED = _m.DEFAULT_SEED
#: Number of streams used for ``seed=`` draws of at least this many elements.
MAX_DEFAULT_STREAMS = 2**18
_U32 = np.uint32
_U64 = np.uint64
_STATE_FORMAT = "oclstat.Streams/1"


# ----------------------------------------------------------------------------- seeds


def as_seed(seed, name: str = "seed") -> tuple[int, ...]:
    """A validated 6-word MRG31k3p seed from an int (expanded by SeedSequence) or 6 integers.

    clRNG's rules apply to six integers: ``seed[0:3]`` below m1 = 2^31 - 1, ``seed[3:6]`` below
    m2 = 2^31 - 21069, neither component all zero.

    >>> as_seed(7) == as_seed(7)
    True
    >>> as_seed((0, 0, 0, 1, 1, 1))
    Traceback (most recent call last):
    ...
    ValueError: seed: the first component seed[0:3] must not be all zero
    """
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int or six integers, got a boolean")
    if isinstance(seed, (float, np.floating)):      # 1e3, or R's doubles above 2^31
        seed = as_int(seed, name)
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise ValueError(f"{name} must be a non-negative integer, got {seed}")
        return _m.seed_from_int(int(seed))
    if isinstance(seed, (Sequence, np.ndarray)) and not isinstance(seed, str):
        values = list(np.asarray(seed).ravel()) if isinstance(seed, np.ndarray) else list(seed)
        if len(values) != 6:
            raise ValueError(f"{name} must have 6 integers (g1[0..2], g2[0..2]), got {len(values)}")
        words = tuple(as_int(v, f"{name}[{i}]") for i, v in enumerate(values))
        problem = _m.seed_problem(words)
        if problem:
            raise ValueError(f"{name}: {problem}")
        return words
    raise TypeError(f"{name} must be an int or a sequence of six integers, got {seed!r}")


def _fresh_seed() -> tuple[int, ...]:
    return _m.seed_from_int(int.from_bytes(os.urandom(16), "little"))


def _as_states(array, name: str, n: int | None = None) -> np.ndarray:
    arr = np.asarray(array)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 6:
        raise ValueError(f"{name} must have shape (n, 6), got {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} must have {n} rows like `current`, got {arr.shape[0]}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must hold at least one stream")
    if (arr < 0).any():
        raise ValueError(f"{name} holds negative values")
    states = arr.astype(_U32)
    problem = _m.state_problem(states)
    if problem:
        raise ValueError(f"{name}: {problem}")
    return states


# ----------------------------------------------------------------------------- Streams


class Streams:
    """``n`` MRG31k3p streams in clRNG's layout, advanced in place by every draw.

    Parameters
    ----------
    current, initial, substream : array_like of shape (n, 6)
        States as clRNG keeps them (``g1[0..2], g2[0..2]``). ``initial`` and ``substream``
        default to ``current``.
    next_seed : six integers, optional
        Where :meth:`spawn` continues; defaults to the last stream's initial state jumped
        ``2^134`` steps (what clRNG's creator would hand out next).

    The current states live on the device between draws (no copy back per call); reading
    :attr:`current` brings them back.

    >>> st = create_streams(3)
    >>> st.n_streams, st.current.shape
    (3, (3, 6))
    >>> child = st.spawn(2)          # streams 3 and 4 of the same clRNG sequence
    >>> bool((child.initial == create_streams(5).initial[3:]).all())
    True
    """

    def __init__(self, current, initial=None, substream=None, *, next_seed=None):
        cur = _as_states(current, "current")
        n = cur.shape[0]
        self._current = cur
        self._initial = cur.copy() if initial is None else _as_states(initial, "initial", n)
        self._substream = (
            self._initial.copy() if substream is None else _as_states(substream, "substream", n)
        )
        self._next_seed = None if next_seed is None else as_seed(next_seed, "next_seed")
        self._device = None  # (runtime, buffer) holding the current states
        self._host_valid = True

    # -- basic views ------------------------------------------------------------------------

    @property
    def n_streams(self) -> int:
        return self._current.shape[0]

    def __len__(self) -> int:
        return self.n_streams

    def __repr__(self) -> str:
        return f"Streams(n_streams={self.n_streams}, generator='MRG31k3p')"

    @property
    def current(self) -> np.ndarray:
        """Current states, (n, 6) uint32 (a copy)."""
        self._sync_host()
        return self._current.copy()

    @property
    def initial(self) -> np.ndarray:
        """Initial states of the streams, (n, 6) uint32 (a copy)."""
        return self._initial.copy()

    @property
    def substream(self) -> np.ndarray:
        """Starts of the current substreams, (n, 6) uint32 (a copy)."""
        return self._substream.copy()

    @property
    def next_seed(self) -> tuple[int, ...]:
        """The initial state :meth:`spawn` gives its first new stream."""
        if self._next_seed is None:
            self._next_seed = _m.jump_state(_m.stream_jump(1), self._initial[-1])
        return self._next_seed

    def copy(self) -> Streams:
        """An independent copy (same states; advancing one does not move the other)."""
        self._sync_host()
        return Streams(self._current, self._initial, self._substream, next_seed=self.next_seed)

    def __getitem__(self, index) -> Streams:
        """A copy of some of the streams: ``streams[2:5]``, ``streams[[0, 3]]``."""
        self._sync_host()
        rows = np.arange(self.n_streams)[index]
        rows = np.atleast_1d(rows)
        if rows.size == 0:
            raise IndexError("selection holds no stream")
        return Streams(self._current[rows], self._initial[rows], self._substream[rows])

    def __eq__(self, other) -> bool:
        if not isinstance(other, Streams):
            return NotImplemented
        return (
            np.array_equal(self.current, other.current)
            and np.array_equal(self._initial, other._initial)
            and np.array_equal(self._substream, other._substream)
        )

    __hash__ = None

    # -- state, save, load --------------------------------------------------------------------

    @property
    def state(self) -> dict:
        """numpy-style state dictionary (copies); assign one to restore it."""
        self._sync_host()
        return {
            "bit_generator": "MRG31k3p",
            "current": self._current.copy(),
            "initial": self._initial.copy(),
            "substream": self._substream.copy(),
            "next_seed": list(self.next_seed),
        }

    @state.setter
    def state(self, value: dict) -> None:
        if not isinstance(value, dict):
            raise TypeError("state must be a dict as returned by Streams.state")
        if value.get("bit_generator") != "MRG31k3p":
            raise ValueError(
                f"state['bit_generator'] must be 'MRG31k3p', got {value.get('bit_generator')!r}"
            )
        missing = {"current", "initial", "substream"} - set(value)
        if missing:
            raise ValueError(f"state is missing {sorted(missing)}")
        new = Streams(
            value["current"], value["initial"], value["substream"],
            next_seed=value.get("next_seed"),
        )
        self._adopt(new)

    def _adopt(self, other: Streams) -> None:
        self._current = other._current
        self._initial = other._initial
        self._substream = other._substream
        self._next_seed = other._next_seed
        self._device = None
        self._host_valid = True

    def save(self, path) -> None:
        """Write the streams to ``path`` (numpy ``.npz``); :meth:`load` reads them back."""
        state = self.state
        with open(path, "wb") as fh:
            np.savez(
                fh,
                format=np.array(_STATE_FORMAT),
                current=state["current"],
                initial=state["initial"],
                substream=state["substream"],
                next_seed=np.array(state["next_seed"], dtype=np.int64),
            )

    @classmethod
    def load(cls, path) -> Streams:
        """Read streams written by :meth:`save`."""
        try:
            with np.load(path, allow_pickle=False) as data:
                fmt = str(data["format"]) if "format" in data else ""
                if fmt != _STATE_FORMAT:
                    raise ValueError(f"{path}: not an oclstat Streams file (format {fmt!r})")
                return cls(
                    data["current"], data["initial"], data["substream"],
                    next_seed=[int(v) for v in data["next_seed"]],
                )
        except (OSError, KeyError, EOFError) as exc:
            raise ValueError(f"{path}: cannot read Streams ({exc})") from exc

    # -- creation of more streams ---------------------------------------------------------------

    def spawn(self, n: int) -> Streams:
        """``n`` new streams continuing this set's clRNG sequence (as a second call to
        ``clrngMrg31k3pCreateStreams`` on the same creator would); later spawns continue after
        them."""
        n = as_int(n, "n", minimum=1)
        new = Streams(_m.create_stream_states(self.next_seed, n))
        self._next_seed = _m.jump_state(_m.stream_jump(n), self.next_seed)
        return new

    def make_substreams(self, count: int, stream: int = 0) -> Streams:
        """``count`` streams made of consecutive substreams of one stream (clRNG's
        ``MakeSubstreams``): the first is a copy of that stream, each next one starts at the
        following substream; the parent stream is moved past them."""
        count = as_int(count, "count", minimum=1)
        stream = as_int(stream, "stream", minimum=0, maximum=self.n_streams - 1)
        self._sync_host()
        jump = _m.substream_jump(1)
        cur = np.empty((count, 6), dtype=_U32)
        ini = np.repeat(self._initial[stream : stream + 1], count, axis=0)
        sub = np.empty((count, 6), dtype=_U32)
        cur[0] = self._current[stream]
        sub[0] = self._substream[stream]
        for i in range(1, count):
            sub[i] = _m.apply_jump(jump, sub[i - 1])
            cur[i] = sub[i]
        nxt = _m.apply_jump(jump, sub[-1])
        self._current[stream] = nxt
        self._substream[stream] = nxt
        self._host_changed()
        return Streams(cur, ini, sub)

    # -- moving streams -------------------------------------------------------------------------

    def advance(self, steps: int) -> Streams:
        """Move every stream ``steps`` steps (any size; negative goes back). Returns self."""
        steps = as_int(steps, "steps")
        self._sync_host()
        self._current = _m.apply_jump(_m.jump_matrices(steps), self._current)
        self._host_changed()
        return self

    def forward_substreams(self) -> Streams:
        """Move every stream to the start of its next substream (``2^72`` steps on)."""
        self._sync_host()
        self._substream = _m.apply_jump(_m.substream_jump(1), self._substream)
        self._current = self._substream.copy()
        self._host_changed()
        return self

    def rewind_substreams(self) -> Streams:
        """Move every stream back to the start of its current substream."""
        self._sync_host()
        self._current = self._substream.copy()
        self._host_changed()
        return self

    def rewind(self) -> Streams:
        """Move every stream back to its initial state."""
        self._sync_host()
        self._current = self._initial.copy()
        self._substream = self._initial.copy()
        self._host_changed()
        return self

    # -- R (gpuRandom / clrng) matrices ---------------------------------------------------------

    def to_matrix(self, substream: bool = True) -> np.ndarray:
        """The states as gpuRandom's integer matrix: columns ``current.g1.1 .. current.g2.3,
        initial.g1.1 .. initial.g2.3`` and, with ``substream=True``, ``substream.g1.1 ..``
        (n x 18; n x 12 without substreams, as the clrng package keeps them). int32."""
        self._sync_host()
        parts = [self._current, self._initial] + ([self._substream] if substream else [])
        return np.hstack(parts).astype(np.int32)

    @classmethod
    def from_matrix(cls, matrix) -> Streams:
        """Streams from a gpuRandom/clrng matrix (n x 12 or n x 18, see :meth:`to_matrix`)."""
        mat = np.asarray(matrix)
        if mat.ndim != 2 or mat.shape[1] not in (12, 18):
            raise ValueError(f"matrix must be n x 12 or n x 18, got shape {mat.shape}")
        return cls(mat[:, 0:6], mat[:, 6:12], mat[:, 12:18] if mat.shape[1] == 18 else None)

    # -- host/device residency ------------------------------------------------------------------

    def _device_buffer(self, rt):
        """The device buffer of current states on runtime ``rt`` (uploaded when needed)."""
        if self._device is not None and self._device[0] is rt:
            return self._device[1]
        self._sync_host()
        buf = rt.to_device(self._current)
        self._device = (rt, buf)
        return buf

    def _device_changed(self) -> None:
        self._host_valid = False

    def _sync_host(self) -> None:
        if not self._host_valid:
            rt, buf = self._device
            rt.read(buf, self._current)
            self._host_valid = True

    def _host_changed(self) -> None:
        self._device = None
        self._host_valid = True


def create_streams(n: int, seed=DEFAULT_SEED, *, on_device: bool = False, device=None) -> Streams:
    """``n`` streams exactly as clRNG's ``clrngMrg31k3pCreateStreams`` makes them.

    Stream 0 starts at ``seed`` (default clRNG's ``(12345,) * 6``); stream ``k`` is stream
    ``k-1`` jumped ``2^134`` steps. An int seed is expanded reproducibly (numpy SeedSequence).
    With ``on_device=True`` the states are computed by a kernel (same values) and stay on the
    device for the next draw.

    >>> create_streams(2).initial[1].tolist()
    [336690377, 597094797, 1245771585, 85196284, 523477687, 2094976052]
    """
    n = as_int(n, "n", minimum=1)
    check_host_memory(3 * n * 6 * 4, f"create_streams({n:,})",
                      "streams are 72 bytes each; create fewer")
    words = as_seed(seed)
    if not on_device:
        return Streams(_m.create_stream_states(words, n))
    rt = get_runtime(device)
    buf = _create_on_device(rt, words, n)
    states = np.empty((n, 6), dtype=_U32)
    rt.read(buf, states)
    st = Streams(states)
    st._device = (rt, buf)
    return st


def _create_on_device(rt, seed: tuple[int, ...], n: int):
    """Buffer with the initial states of streams 0..n-1 of ``seed``, by doubling on the device."""
    buf = rt.empty(n * 6 * 4)
    rt.write(buf, np.array([seed], dtype=_U32))
    levels = max(1, (n - 1).bit_length())
    jumps = rt.to_device(_m.stream_jump_levels(levels), writable=False)
    kernel = rt.kernel("random.cl", "jump_streams", _defines(rt, np.float32, rt.lanes(np.uint32)))
    done, level = 1, 0
    while done < n:
        take = min(done, n - done)
        rt.launch(kernel, take, buf, _U64(take), _U64(0), _U64(done), jumps, _U32(level))
        done += take
        level += 1
    return buf


def check_stream_source(seed, streams) -> None:
    """The checks every randomised function makes of its ``seed=`` / ``streams=`` pair."""
    if streams is not None and seed is not None:
        raise ValueError("pass either streams= or seed=, not both")
    if streams is not None and not isinstance(streams, Streams):
        raise TypeError(f"streams must be an oclstat.random.Streams, got {type(streams)}")


def stream_buffer(rt, count: int, *, seed=None, streams=None):
    """A device buffer of ``count`` MRG31k3p states for a kernel that draws from streams.

    With ``streams`` (a :class:`Streams` holding at least ``count`` streams) the buffer is the
    streams' own device copy: the kernel advances streams ``0 .. count-1`` in place (call
    ``streams._device_changed()`` after it). Otherwise ``count`` fresh streams of ``seed`` (an
    int or six integers; None: a fresh seed) are created on the device, stream ``k`` being the
    ``k``-th clRNG stream of that seed. Returns ``(buffer, streams_or_None)``.

    >>> import oclstat
    >>> buf, st = stream_buffer(oclstat.get_runtime(), 4, seed=1)
    >>> st is None
    True
    """
    check_stream_source(seed, streams)
    if streams is not None:
        if streams.n_streams < count:
            raise ValueError(
                f"streams holds {streams.n_streams} streams; this call needs at least {count}"
            )
        return streams._device_buffer(rt), streams
    words = _fresh_seed() if seed is None else as_seed(seed)
    return _create_on_device(rt, words, count), None


# ----------------------------------------------------------------------------- draws


def _defines(rt, dtype, lanes: int) -> dict:
    defines = rt.real_defines(dtype)
    defines["LANES"] = str(lanes)
    return defines


def _plan(size, streams, seed, device):
    """Shape, element count, runtime and stream count for a draw."""
    shape, n_total = as_shape(size)
    check_stream_source(seed, streams)
    if streams is not None:
        if device is None and streams._device is not None:
            rt = streams._device[0]
        else:
            rt = get_runtime(device)
        return shape, n_total, rt, streams.n_streams
    if seed is not None:
        as_seed(seed)  # a bad seed is reported before any device work
    return shape, n_total, get_runtime(device), max(1, min(n_total, MAX_DEFAULT_STREAMS))


def _draw(kernel_name, size, streams, seed, dtype, device, out, extra, *, paired=False,
          progress=None, defines_dtype=None):
    shape, n_total, rt, n_streams = _plan(size, streams, seed, device)
    out_dtype = np.dtype(dtype)
    lanes = rt.lanes(out_dtype)
    kernel = rt.kernel("random.cl", kernel_name, _defines(rt, defines_dtype or dtype, lanes))
    itemsize = out_dtype.itemsize
    n_items = -(-n_streams // lanes)

    states, user_streams = stream_buffer(rt, n_streams, seed=seed, streams=streams)

    total_rows = -(-n_total // n_streams) if n_total else 0
    device_out = rt.device_array(out, out_dtype, n_total) if out is not None else None
    if device_out is not None:
        rows_per_chunk = max(total_rows, 1)
    else:
        rows_per_chunk = max(1, rt.max_items(n_streams * itemsize, fraction=0.25))
        if paired and rows_per_chunk > 1:
            rows_per_chunk -= rows_per_chunk % 2
        rows_per_chunk = min(rows_per_chunk, max(total_rows, 1))
        check_host_memory(n_total * itemsize, f"{n_total:,} draws ({out_dtype})",
                          "draw in pieces with streams= (they continue where they stopped), "
                          "or into a device array with out=")
        result = np.empty(n_total, dtype=out_dtype)
        scratch = None

    with Progress(total_rows, desc=kernel_name.replace("fill_", ""), enabled=progress) as bar:
        for row0 in range(0, total_rows, rows_per_chunk):
            n_rows = min(rows_per_chunk, total_rows - row0)
            args = (states, _U64(n_streams), _U64(row0), _U64(n_rows), _U64(n_total), *extra)
            if device_out is not None:
                rt.launch(kernel, n_items, args[0], device_out, *args[1:])
            else:
                start = row0 * n_streams
                stop = min(n_total, (row0 + n_rows) * n_streams)
                with rt.writing_into(result[start:stop], scratch) as target:
                    rt.launch(kernel, n_items, args[0], target, *args[1:])
                    scratch = target
            bar.update(n_rows)

    if user_streams is not None and total_rows:
        user_streams._device_changed()
    if device_out is not None:
        return out
    return result.reshape(shape)


def uniform(size, streams=None, seed=None, dtype=np.float64, *, low=0.0, high=1.0, device=None,
            out=None, progress=None):
    """Uniform draws on ``(low, high)``: clRNG's U01 scaled.

    U01 is the generator output ``z`` (in ``[1, m1]``) times ``2^-31`` in double, or times
    ``4.6566126e-10`` in float32 (so it never reaches 1.0 or 0.0), exactly as clRNG computes it.

    Parameters
    ----------
    size : int or tuple of ints
        Output shape.
    streams : Streams, optional
        Streams to draw from (advanced in place). Mutually exclusive with ``seed``.
    seed : int or six integers, optional
        Seed for fresh streams (see the module docstring for the layout); neither given: a
        fresh seed from the operating system.
    dtype : numpy.float64 or numpy.float32
    low, high : float
        Interval; ``low + (high - low) * U01``.
    device : optional
        Device (see :func:`oclstat.get_runtime`); default: the streams' device or the best one.
    out : pyopencl.array.Array, optional
        Device array to fill instead of returning a host array.
    progress : bool or None
        Progress bar for long runs (None: automatic).

    >>> u = uniform((2, 3), seed=42)
    >>> u.shape, u.dtype.name
    ((2, 3), 'float64')
    """
    dt = as_float_dtype(dtype)
    lo = as_finite(low, "low")
    hi = as_finite(high, "high")
    if not hi > lo:
        raise ValueError(f"high must be greater than low, got low={low}, high={high}")
    return _draw("fill_uniform", size, streams, seed, dt, device, out,
                 (dt.type(lo), dt.type(hi - lo)), progress=progress)


def normal(size, streams=None, seed=None, dtype=np.float64, *, loc=0.0, scale=1.0, device=None,
           out=None, progress=None):
    """Normal draws by Box-Muller on clRNG's U01 (pairs as described in the module docstring).

    ``loc + scale * z``. Other arguments as :func:`uniform`.

    >>> z = normal(100000, seed=1)
    >>> bool(abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02)
    True
    """
    dt = as_float_dtype(dtype)
    mu = as_finite(loc, "loc")
    sd = as_finite(scale, "scale", nonnegative=True)
    return _draw("fill_normal", size, streams, seed, dt, device, out, (dt.type(mu), dt.type(sd)),
                 paired=True, progress=progress)


def exponential(size, streams=None, seed=None, dtype=np.float64, *, rate=1.0, device=None,
                out=None, progress=None):
    """Exponential draws with the given ``rate`` (mean ``1/rate``): ``-log(U01) / rate``.

    >>> e = exponential(100000, seed=3, rate=2.0)
    >>> bool(abs(e.mean() - 0.5) < 0.01)
    True
    """
    dt = as_float_dtype(dtype)
    lam = as_finite(rate, "rate", positive=True)
    return _draw("fill_exponential", size, streams, seed, dt, device, out, (dt.type(lam),),
                 progress=progress)


def integers(low, high=None, size=1, streams=None, seed=None, *, device=None, out=None,
             progress=None):
    """Unbiased integers in ``[low, high)`` (numpy's ``Generator.integers`` convention; with
    one bound, ``[0, low)``), as int64. ``high - low`` may be at most ``2^31 - 1``.

    Integer-only arithmetic (rejection of the top partial block of generator outputs): the
    same seed gives the same integers on every device. Each value uses one draw, rarely more.

    >>> x = integers(1, 7, size=1000, seed=5)
    >>> int(x.min()), int(x.max())
    (1, 6)
    """
    if high is None:
        low, high = 0, low
    lo = as_int(low, "low")
    hi = as_int(high, "high")
    span = hi - lo
    if span < 1:
        raise ValueError(f"high must be greater than low, got low={lo}, high={hi}")
    if span > _m.M1:
        raise ValueError(f"high - low must be at most 2**31 - 1 = {_m.M1}, got {span}")
    return _draw("fill_integers", size, streams, seed, np.int64, device, out,
                 (np.int64(lo), _U32(span)), progress=progress, defines_dtype=np.float32)


def random_raw(size, streams=None, seed=None, *, device=None, out=None, progress=None):
    """The generator's raw outputs ``z`` in ``[1, m1]`` as uint32 (what every U01 is made of).

    >>> random_raw(3, streams=create_streams(1)).tolist()   # clRNG's first outputs, seed 12345
    [1579097239, 1319000434, 236390836]
    """
    return _draw("fill_raw", size, streams, seed, np.uint32, device, out, (),
                 progress=progress, defines_dtype=np.float32)
