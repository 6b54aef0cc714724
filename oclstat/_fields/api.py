"""The public functions of the Gaussian random fields."""

from __future__ import annotations

import numpy as np

from .._docs import filled
from .._random.draws import normal
from .._scale import executor
from .._validation import as_int
from . import tasks
from .opencl import (
    _raise_if_not_finite,
    _raise_if_not_pd,
    factor_host,
    matern_host,
    multiply_host,
    simulate_host,
)
from .plan import _TRANSFORMS, _real
from .result import LdlResult
from .validate import _as_batch, _as_coords, _as_params


def _map(host_fn, batched: tuple, shared: tuple, device, client, desc: str,
         workload: str | None = None):
    """``host_fn`` over the batch on one device, or as tasks on several (``device=[...]`` or
    ``client=``); the same numbers either way. ``workload`` picks the default CPU
    implementation (see runtime_for)."""
    with executor(device, client, workload) as ex:
        if not ex.several:
            return host_fn(ex.runtime, *batched, *shared)
        return tasks.merge(ex.map(tasks.plan(host_fn, batched, shared), desc=desc,
                                  progress=False))


def matern_cov(coords, params, *, dtype=np.float64, device=None, client=None) -> np.ndarray:
    """Matérn covariance matrices of a set of points for many parameter sets.

    Parameters
    ----------
    coords : array_like, shape (n_points, 2)
        Coordinates of the points.
    params : array_like, shape (n_params, 6), DataFrame or dict
        One parameter set per row, columns :data:`PARAM_COLUMNS` (range, shape, variance,
        nugget, anisoRatio, anisoAngleRadians), as geostatsp's ``matern``.
    dtype : {numpy.float64, numpy.float32}, optional
        Precision of the result (float64 needs a device with fp64).
    device : int, str, Runtime or list, optional
        The OpenCL device; a list spreads the parameter sets over several devices.
    client : dask.distributed.Client, optional
        Run the parameter sets as tasks on a Dask cluster instead.

    Returns
    -------
    numpy.ndarray, shape (n_params, n_points, n_points)
        The covariance matrices (nugget on the diagonal).

    See Also
    --------
    simulate_fields : draws fields with these covariances.
    ldl_batch : factorises them.

    Notes
    -----
    The Bessel function K_nu is evaluated on the device by Temme's method and the product
    formed in logarithms (see :mod:`oclstat.fields`).

    References
    ----------
    .. [1] Brown, P. E. (2015). Model-based geostatistics the easy way. Journal of Statistical
       Software 63(12).
    .. [2] Lu, R. and Brown, P. E. (2023). gpuRandom: Random number generation and statistics
       on GPUs. (R package; ``maternBatch``.)

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> xy = np.array([[0.0, 0.0], [1.0, 0.0]])
    >>> round(float(oclstat.matern_cov(xy, [[1.0, 0.5, 1.0, 0.0, 1.0, 0.0]])[0, 0, 1]), 6)
    0.135335
    """
    coords, p = _as_coords(coords), _as_params(params)
    return _map(matern_host, (p,), (coords, np.dtype(dtype)), device, client, "matern_cov")


def _factor(a, dtype, device, client, mode):
    arr = _as_batch(a, finite=False)     # checked in the precision of the factorisation
    dt = np.dtype(dtype) if dtype is not None else (
        np.dtype(np.float32) if arr.dtype == np.float32 else np.dtype(np.float64))
    with np.errstate(over="ignore"):    # a value out of dt's range is reported as such below
        host = np.ascontiguousarray(arr, dtype=dt)
    low, d, bad = _map(factor_host, (host,), (mode,), device, client, "factorisation",
                        workload="ldl")
    _raise_if_not_finite(bad, dt)
    _raise_if_not_pd(bad)
    return low, d


@filled()
def ldl_batch(a, *, dtype=None, device=None, client=None) -> LdlResult:
    """LDLᵀ factorisations of a batch of symmetric positive definite matrices.

    Parameters
    ----------
    a : array_like, shape (batch, n, n) or (n, n)
        The matrices; only their lower triangles are used (every value must be finite).
    dtype : {None, numpy.float64, numpy.float32}, optional
        Precision (default: float32 for float32 input, else float64).
    %(batch_device_client)s

    Returns
    -------
    LdlResult
        ``L`` (unit lower triangular), ``D`` and ``logdet`` per matrix.

    Raises
    ------
    ValueError
        If a matrix is not positive definite (naming the matrix and the pivot), or holds NaN
        or infinity in the precision of the factorisation (naming the matrix).

    See Also
    --------
    cholesky_batch : the factors ``L D^½``.
    scipy.linalg.ldl : one matrix on the CPU.

    Notes
    -----
    Blocked right-looking LDLᵀ: three launches per block column for the whole batch (the
    diagonal block, the rows below it, the trailing update), so a few large matrices keep the
    device as busy as many small ones.

    References
    ----------
    .. [1] Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed., §4.1.

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> r = oclstat.ldl_batch(np.array([[4.0, 2.0], [2.0, 3.0]]))
    >>> r.L[0].tolist(), r.D[0].tolist(), round(float(r.logdet[0]), 6)
    ([[1.0, 0.0], [0.5, 1.0]], [4.0, 2.0], 2.079442)
    """
    low, d = _factor(a, dtype, device, client, 0)
    return LdlResult(low, d, np.log(d.astype(np.float64)).sum(axis=1))


@filled()
def cholesky_batch(a, *, dtype=None, device=None, client=None) -> np.ndarray:
    """Cholesky factors L (A = L Lᵀ) of a batch of symmetric positive definite matrices.

    Parameters
    ----------
    a : array_like, shape (batch, n, n) or (n, n)
        The matrices; only their lower triangles are used (every value must be finite).
    dtype : {None, numpy.float64, numpy.float32}, optional
        Precision (default: float32 for float32 input, else float64).
    %(batch_device_client)s

    Returns
    -------
    numpy.ndarray, shape (batch, n, n)
        Lower triangular factors.

    Raises
    ------
    ValueError
        As :func:`ldl_batch`.

    See Also
    --------
    ldl_batch : the same factorisation as L, D.
    numpy.linalg.cholesky : the CPU reference.

    Notes
    -----
    Computed as ``L D^½`` from :func:`ldl_batch`'s kernels.

    References
    ----------
    .. [1] Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed., §4.2.

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> oclstat.cholesky_batch(np.array([[4.0, 2.0], [2.0, 5.0]]))[0].tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    """
    low, _ = _factor(a, dtype, device, client, 1)
    return low


@filled()
def multiply_lower_diag(L, D, Z, *, transform: str = "sqrt", device=None,
                        client=None) -> np.ndarray:
    """``L · w(D) · Z`` for every matrix of a batch (gpuRandom's ``multiplyLowerDiagonalBatch``).

    Parameters
    ----------
    L : array_like, shape (batch, n, n)
        Lower triangular matrices (the upper triangle is not read).
    D : array_like, shape (batch, n)
        Diagonals.
    Z : array_like, shape (batch, n_sim, n)
        Rows to multiply (e.g. standard normals).
    transform : {"sqrt", "identity", "none"}, optional
        w(D) = D^½ (the field recipe), D, or 1.
    %(batch_device_client)s

    Returns
    -------
    numpy.ndarray, shape (batch, n_sim, n)

    See Also
    --------
    ldl_batch : gives L and D.
    simulate_fields : the whole recipe on the device.

    Notes
    -----
    Row ``s`` of the result for matrix ``b`` is ``L[b] @ (w(D[b]) * Z[b, s])``.

    References
    ----------
    .. [1] Lu, R. and Brown, P. E. (2023). gpuRandom (R package).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> L = np.array([[[1.0, 0.0], [0.5, 1.0]]]); D = np.array([[4.0, 1.0]])
    >>> oclstat.multiply_lower_diag(L, D, np.array([[[1.0, 1.0]]])).tolist()
    [[[2.0, 2.0]]]
    """
    if transform not in _TRANSFORMS:
        raise ValueError(f"transform must be one of {sorted(_TRANSFORMS)}, got {transform!r}")
    low = _as_batch(L, "L")
    b, n = low.shape[0], low.shape[1]
    d = np.asarray(D, dtype=np.float64).reshape(-1, n) if np.size(D) else None
    if d is None or d.shape[0] != b:
        raise ValueError(f"D must have shape ({b}, {n}), got {np.shape(D)}")
    if transform == "sqrt" and (d < 0).any():
        raise ValueError("D must be >= 0 for transform='sqrt'")
    z = np.asarray(Z, dtype=np.float64)
    if z.ndim == 2:
        z = z[None]
    if z.ndim != 3 or z.shape[0] != b or z.shape[2] != n:
        raise ValueError(f"Z must have shape ({b}, n_sim, {n}), got {np.shape(Z)}")
    dt = np.dtype(np.float32) if low.dtype == np.float32 else np.dtype(np.float64)
    low = np.ascontiguousarray(low, dtype=dt)
    return _map(multiply_host, (low, d, z), (_TRANSFORMS[transform],), device, client,
                "multiply_lower_diag")


def simulate_fields(coords, params, n_sim: int, *, seed=None, dtype=np.float64,
                    device=None, client=None) -> np.ndarray:
    """Exact simulation of Gaussian random fields with Matérn covariances.

    Parameters
    ----------
    coords : array_like, shape (n_points, 2)
        Coordinates of the points.
    params : array_like, shape (n_params, 6), DataFrame or dict
        Matérn parameter sets (columns :data:`PARAM_COLUMNS`).
    n_sim : int
        Fields per parameter set.
    seed : int or sequence of 6 ints, optional
        Seed of the MRG31k3p streams of the normal draws (default: a fresh one).
    dtype : {numpy.float64, numpy.float32}, optional
        Precision.
    device : int, str, Runtime or list, optional
        The OpenCL device; a list spreads the parameter sets over several devices (the normals
        are drawn on the first).
    client : dask.distributed.Client, optional
        Run chunks of parameter sets as tasks on a Dask cluster instead.

    Returns
    -------
    numpy.ndarray, shape (n_params, n_sim, n_points)

    See Also
    --------
    matern_cov, ldl_batch, multiply_lower_diag : the three steps.
    oclstat.random.normal : the normal draws.

    Notes
    -----
    Matérn covariance of every parameter set, LDLᵀ, standard normals Z from MRG31k3p streams
    of ``seed``, and ``L D^½ Z``, all on the device; the same seed gives the same fields on
    every device and every split of the batch.

    References
    ----------
    .. [1] Lu, R. and Brown, P. E. (2023). gpuRandom (R package).
    .. [2] L'Ecuyer, P. and Touzin, R. (2000). Fast combined multiple recursive generators
       with multipliers of the form a = ±2^q ± 2^r. Proceedings of the Winter Simulation
       Conference, 683-689.

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> xy = oclstat.fields.grid_coords(4, 4)
    >>> oclstat.simulate_fields(xy, [[0.5, 1.0, 1.0, 0.0, 1.0, 0.0]], 3, seed=1).shape
    (1, 3, 16)
    """
    coords, p = _as_coords(coords), _as_params(params)
    n_sim = as_int(n_sim, "n_sim", minimum=1)
    first = executor(device, client).runtime
    dt, _ = _real(dtype, first)
    z = normal((p.shape[0], n_sim, coords.shape[0]), seed=seed, dtype=dt, device=first)
    out, bad = _map(simulate_host, (p, z), (coords,), device, client, "simulate_fields")
    _raise_if_not_pd(bad, "params", covariance=True)
    return out


def grid_coords(nx: int, ny: int, *, xlim=(0.0, 1.0), ylim=(0.0, 1.0)) -> np.ndarray:
    """Cell centres of an ``nx`` x ``ny`` grid as (nx * ny, 2) coordinates, x fastest.

    Parameters
    ----------
    nx, ny : int
        Cells along x and y.
    xlim, ylim : (float, float), optional
        The grid's extent.

    Returns
    -------
    numpy.ndarray, shape (nx * ny, 2)

    See Also
    --------
    fields_on_grid : fields on these points back as images.
    simulate_fields : fields at these points.

    Notes
    -----
    Point ``j * nx + i`` is the centre of cell (i, j), so a field reshapes to (ny, nx) images.

    References
    ----------
    .. [1] Xu, R. and Brown, P. E. gpuRandom (R package): fields on raster grids.

    Examples
    --------
    >>> grid_coords(2, 1).tolist()
    [[0.25, 0.5], [0.75, 0.5]]
    """
    nx, ny = as_int(nx, "nx", minimum=1), as_int(ny, "ny", minimum=1)
    xs = xlim[0] + (np.arange(nx) + 0.5) * (xlim[1] - xlim[0]) / nx
    ys = ylim[0] + (np.arange(ny) + 0.5) * (ylim[1] - ylim[0]) / ny
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()])


def fields_on_grid(fields: np.ndarray, nx: int, ny: int) -> np.ndarray:
    """Fields from :func:`simulate_fields` on :func:`grid_coords` points as images.

    Parameters
    ----------
    fields : numpy.ndarray, shape (..., nx * ny)
        Fields at the grid's points.
    nx, ny : int
        The grid.

    Returns
    -------
    numpy.ndarray, shape (..., ny, nx)

    See Also
    --------
    grid_coords : the points.
    oclstat.plot_fields : draws the images.

    Notes
    -----
    A view when possible (a reshape), never a copy of the values' order.

    References
    ----------
    .. [1] Xu, R. and Brown, P. E. gpuRandom (R package): fields on raster grids.

    Examples
    --------
    >>> import numpy as np
    >>> fields_on_grid(np.arange(6.0)[None], 3, 2).tolist()
    [[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]]
    """
    f = np.asarray(fields)
    if f.shape[-1] != nx * ny:
        raise ValueError(f"fields have {f.shape[-1]} points, the grid {nx} x {ny} has {nx * ny}")
    return f.reshape(*f.shape[:-1], ny, nx)
