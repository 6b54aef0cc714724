"""MRG31k3p streams: seeds, the :class:`Streams` object (clRNG's layout) and the device
buffers kernels draw from. The stream-to-element rule of the draws is stated once, in
:mod:`oclstat.random`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from .._deprecation import keyword_only
from .._docs import filled
from .._runtime import get_runtime
from .._validation import as_int, check_host_memory
from . import mrg31k3p as _m

DEFAULT_SEED = _m.DEFAULT_SEED
#: Number of streams used for ``seed=`` draws of at least this many elements.
MAX_DEFAULT_STREAMS = 2**18
_U32 = np.uint32
_U64 = np.uint64
_STATE_FORMAT = "oclstat.Streams/1"


# ----------------------------------------------------------------------------- seeds


@filled()
def as_seed(seed, name: str = "seed") -> tuple[int, ...]:
    """A validated 6-word MRG31k3p seed from an int (expanded by SeedSequence) or 6 integers.

    Parameters
    ----------
    seed : int or sequence of six ints
        The seed.
    name : str, optional
        The argument's name in error messages.

    Returns
    -------
    tuple of six int

    Raises
    ------
    ValueError
        If the six integers break clRNG's rules.

    See Also
    --------
    create_streams : streams from a seed.

    Notes
    -----
    clRNG's rules apply to six integers: ``seed[0:3]`` below m1 = 2^31 - 1, ``seed[3:6]`` below
    m2 = 2^31 - 21069, neither component all zero.

    References
    ----------
    %(mrg_references)s

    Examples
    --------
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


def fresh_seed() -> tuple[int, ...]:
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
    states = np.array(arr, dtype=_U32, order="C")    # a copy, C-ordered as device buffers are
    problem = _m.state_problem(states)
    if problem:
        raise ValueError(f"{name}: {problem}")
    return states


#: Rows a CPU work-group writes between barriers (random.cl's ROW_BLOCK; even, for normal pairs).
ROW_BLOCK_CPU = 32


def kernel_defines(rt, dtype, lanes: int) -> dict:
    """Build defines of random.cl for draws in ``dtype`` with ``lanes`` streams per work-item."""
    defines = rt.real_defines(dtype)
    defines["LANES"] = str(lanes)
    defines["ROW_BLOCK"] = "0" if rt.gpu_schedule else str(ROW_BLOCK_CPU)
    return defines


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
        """Write the streams to ``path`` (a path or a binary file object; numpy ``.npz``);
        :meth:`load` reads them back."""
        state = self.state
        arrays = dict(format=np.array(_STATE_FORMAT), current=state["current"],
                      initial=state["initial"], substream=state["substream"],
                      next_seed=np.array(state["next_seed"], dtype=np.int64))
        if hasattr(path, "write"):
            np.savez(path, **arrays)
            return
        with open(path, "wb") as fh:
            np.savez(fh, **arrays)

    @classmethod
    def load(cls, path) -> Streams:
        """Read streams written by :meth:`save`."""
        try:
            with open(path, "rb") as fh:
                magic = fh.read(4)
        except FileNotFoundError:
            raise FileNotFoundError(f"{path}: no such file") from None
        except OSError as exc:
            raise ValueError(f"{path}: cannot read Streams ({exc.strerror or exc})") from None
        if magic != b"PK\x03\x04":
            raise ValueError(f"{path}: not an oclstat Streams file (Streams.save writes a .npz "
                             "archive; this file is not one)")
        try:
            with np.load(path, allow_pickle=False) as data:
                fmt = str(data["format"]) if "format" in data else ""
                if fmt != _STATE_FORMAT:
                    raise ValueError(f"{path}: not an oclstat Streams file (format {fmt!r})")
                return cls(
                    data["current"], data["initial"], data["substream"],
                    next_seed=[int(v) for v in data["next_seed"]],
                )
        except (OSError, KeyError, EOFError, ValueError) as exc:
            if "not an oclstat Streams file" in str(exc):
                raise
            raise ValueError(f"{path}: cannot read Streams ({exc})") from None

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


@keyword_only("seed")
@filled()
def create_streams(n: int, *, seed=DEFAULT_SEED, on_device: bool = False, device=None) -> Streams:
    """``n`` streams exactly as clRNG's ``clrngMrg31k3pCreateStreams`` makes them.

    Parameters
    ----------
    n : int
        Number of streams.
    seed : int or six integers, optional
        State of stream 0 (default clRNG's ``(12345,) * 6``); an int is expanded
        reproducibly (numpy SeedSequence).
    on_device : bool, optional
        Compute the states with a kernel (same values) and keep them on the device for the
        next draw.
    device : optional
        The device of ``on_device``.

    Returns
    -------
    Streams
        Current, initial and substream states, n x 6 each.

    See Also
    --------
    Streams.to_matrix : gpuRandom's n x 12 integer matrix.
    as_seed : how a seed is checked and expanded.

    Notes
    -----
    Stream ``k`` is stream ``k-1`` jumped ``2^134`` steps (matrix powers modulo m1 and m2).

    References
    ----------
    %(mrg_references)s

    Examples
    --------
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
    kernel = rt.kernel("random.cl", "jump_streams",
                       kernel_defines(rt, np.float32, rt.lanes(np.uint32)))
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
    words = fresh_seed() if seed is None else as_seed(seed)
    return _create_on_device(rt, words, count), None
