"""Uniform, normal, exponential and integer draws from MRG31k3p streams on the device
(cl_kernels/random.cl), each element made by the stream the rule of :mod:`oclstat.random` names.
"""

from __future__ import annotations

import numpy as np

from .._deprecation import keyword_only
from .._docs import filled
from .._progress import Progress
from .._runtime import get_runtime
from .._validation import as_finite, as_float_dtype, as_int, as_shape, check_host_memory
from . import mrg31k3p as _m
from .streams import (
    MAX_DEFAULT_STREAMS,
    as_seed,
    check_stream_source,
    kernel_defines,
    stream_buffer,
)

_U32 = np.uint32
_U64 = np.uint64

# ----------------------------------------------------------------------------- draws


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
    kernel = rt.kernel("random.cl", kernel_name, kernel_defines(rt, defines_dtype or dtype, lanes))
    itemsize = out_dtype.itemsize
    n_items = -(-n_streams // lanes)
    local = rt.spread_local_size(kernel, n_items)

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
                rt.launch(kernel, n_items, args[0], device_out, *args[1:], local_size=local)
            else:
                start = row0 * n_streams
                stop = min(n_total, (row0 + n_rows) * n_streams)
                with rt.writing_into(result[start:stop], scratch) as target:
                    rt.launch(kernel, n_items, args[0], target, *args[1:], local_size=local)
                    scratch = target
            bar.update(n_rows)

    if user_streams is not None and total_rows:
        user_streams._device_changed()
    if device_out is not None:
        return out
    return result.reshape(shape)


@keyword_only("streams", "seed", "dtype")
@filled()
def uniform(size, *, streams=None, seed=None, dtype=np.float64, low=0.0, high=1.0, device=None,
            out=None, progress=None):
    """Uniform draws on ``(low, high)``: clRNG's U01 scaled.

    Parameters
    ----------
    size : int or tuple of ints
        Output shape.
    %(streams_seed)s
    dtype : numpy.float64 or numpy.float32
        Precision.
    low, high : float
        Interval; ``low + (high - low) * U01``.
    %(device_out_progress)s

    Returns
    -------
    numpy.ndarray of ``dtype`` (or ``out``)

    See Also
    --------
    numpy.random.Generator.uniform : the CPU analogue.
    create_streams : streams to draw from.

    Notes
    -----
    U01 is the generator output ``z`` (in ``[1, m1]``) times ``2^-31`` in double, or in float32
    the double product ``z * 4.6566126e-10`` rounded to float (so it never reaches 1.0 or 0.0),
    exactly as clRNG computes it, bit for bit on every device (in integers where a device has
    no double precision);
    draw ``j`` of work-item ``i`` comes from stream ``i`` (module docstring), so the same seed
    gives the same numbers on every device.

    References
    ----------
    %(mrg_references)s

    Examples
    --------
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


@keyword_only("streams", "seed", "dtype")
@filled()
def normal(size, *, streams=None, seed=None, dtype=np.float64, loc=0.0, scale=1.0, device=None,
           out=None, progress=None):
    """Normal draws by Box-Muller on clRNG's U01 (pairs as described in the module docstring).

    Parameters
    ----------
    size : int or tuple of ints
        Output shape.
    %(streams_seed)s
    dtype : numpy.float64 or numpy.float32
        Precision.
    loc, scale : float
        ``loc + scale * z``.
    %(device_out_progress)s

    Returns
    -------
    numpy.ndarray of ``dtype`` (or ``out``)

    See Also
    --------
    numpy.random.Generator.normal : the CPU analogue.
    uniform : the U01 they are made of.

    Notes
    -----
    Each pair of U01 (u1, u2) gives ``sqrt(-2 log u1) cos(2 pi u2)`` and the sine, as
    gpuRandom's ``rnormGpu``; Box, G. E. P. and Muller, M. E. (1958), Annals of Mathematical
    Statistics 29(2), 610-611.

    References
    ----------
    %(mrg_references)s

    Examples
    --------
    >>> z = normal(100000, seed=1)
    >>> bool(abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02)
    True
    """
    dt = as_float_dtype(dtype)
    mu = as_finite(loc, "loc")
    sd = as_finite(scale, "scale", nonnegative=True)
    return _draw("fill_normal", size, streams, seed, dt, device, out, (dt.type(mu), dt.type(sd)),
                 paired=True, progress=progress)


@keyword_only("streams", "seed", "dtype")
@filled()
def exponential(size, *, streams=None, seed=None, dtype=np.float64, rate=1.0, device=None,
                out=None, progress=None):
    """Exponential draws with the given ``rate`` (mean ``1/rate``): ``-log(U01) / rate``.

    Parameters
    ----------
    size : int or tuple of ints
        Output shape.
    %(streams_seed)s
    dtype : numpy.float64 or numpy.float32
        Precision.
    rate : float
        Rate (> 0).
    %(device_out_progress)s

    Returns
    -------
    numpy.ndarray of ``dtype`` (or ``out``)

    See Also
    --------
    numpy.random.Generator.exponential : the CPU analogue (``scale = 1 / rate``).

    Notes
    -----
    Inversion of one U01 per value, as gpuRandom's ``rexpGpu``.

    References
    ----------
    %(mrg_references)s

    Examples
    --------
    >>> e = exponential(100000, seed=3, rate=2.0)
    >>> bool(abs(e.mean() - 0.5) < 0.01)
    True
    """
    dt = as_float_dtype(dtype)
    lam = as_finite(rate, "rate", positive=True)
    return _draw("fill_exponential", size, streams, seed, dt, device, out, (dt.type(lam),),
                 progress=progress)


@keyword_only("streams", "seed")
@filled()
def integers(low, high=None, size=1, *, streams=None, seed=None, device=None, out=None,
             progress=None):
    """Unbiased integers in ``[low, high)`` (numpy's ``Generator.integers`` convention; with
    one bound, ``[0, low)``), as int64.

    Parameters
    ----------
    low, high : int
        Bounds; ``high - low`` may be at most ``2^31 - 1``.
    size : int or tuple of ints
        Output shape.
    %(streams_seed)s
    %(device_out_progress)s

    Returns
    -------
    numpy.ndarray of int64 (or ``out``)

    See Also
    --------
    numpy.random.Generator.integers : the CPU analogue.

    Notes
    -----
    Integer-only arithmetic (rejection of the top partial block of generator outputs): the
    same seed gives the same integers on every device. Each value uses one draw, rarely more.

    References
    ----------
    %(mrg_references)s

    Examples
    --------
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


@keyword_only("streams", "seed")
@filled()
def random_raw(size, *, streams=None, seed=None, device=None, out=None, progress=None):
    """The generator's raw outputs ``z`` in ``[1, m1]`` as uint32 (what every U01 is made of).

    Parameters
    ----------
    size : int or tuple of ints
        Output shape.
    %(streams_seed)s
    %(device_out_progress)s

    Returns
    -------
    numpy.ndarray of uint32 (or ``out``)

    See Also
    --------
    uniform : the same outputs scaled to (0, 1).

    Notes
    -----
    Compared bit for bit with clRNG's published first outputs and with the Python reference
    implementation of MRG31k3p in the tests.

    References
    ----------
    %(mrg_references)s

    Examples
    --------
    >>> from oclstat.random import create_streams
    >>> random_raw(3, streams=create_streams(1)).tolist()   # clRNG's first outputs, seed 12345
    [1579097239, 1319000434, 236390836]
    """
    return _draw("fill_raw", size, streams, seed, np.uint32, device, out, (),
                 progress=progress, defines_dtype=np.float32)
