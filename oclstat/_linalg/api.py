"""The public functions of the batched linear algebra."""

from __future__ import annotations

import numpy as np

from .._docs import filled
from .._fields.api import _map
from .._validation import as_finite
from .opencl import product_host, solve_host
from .validate import as_stack, as_trans, common_batch, result_dtype


def _shape_back(out: np.ndarray, ndim: int, batch_given: bool) -> np.ndarray:
    if batch_given:
        return out
    if ndim == 1:
        return out[0, :, 0]
    return out[0]


@filled()
def solve_triangular_batch(a, b, *, lower: bool = True, trans=0, unit_diagonal: bool = False,
                           dtype=None, device=None, client=None) -> np.ndarray:
    """Solve ``T X = B`` for a batch of triangular matrices with many right-hand sides.

    gpuRandom's ``backsolveBatch``; the same arguments as :func:`scipy.linalg.solve_triangular`,
    for stacks.

    Parameters
    ----------
    a : array_like, shape (batch, n, n) or (n, n)
        Triangular matrices; only the triangle named by ``lower`` is read. One matrix (or a
        batch of one) is shared by every right-hand side stack of ``b``.
    b : array_like, shape (batch, n, k), (n, k) or (n,)
        Right-hand sides, ``k`` columns per matrix; a 2-D or 1-D ``b`` with a batch of ``a``
        is solved against every matrix.
    lower : bool, optional
        Whether ``a`` is lower (default) or upper triangular.
    trans : {0, 1, 2, 'N', 'T', 'C'}, optional
        Solve ``a X = b`` (0, 'N') or ``aᵀ X = b`` (1, 'T'; 2, 'C' is the same for real a).
    unit_diagonal : bool, optional
        Take the diagonal of ``a`` as ones (not read), as for the L of :func:`ldl_batch`.
    %(batch_dtype)s
    %(batch_device_client)s

    Returns
    -------
    numpy.ndarray
        X, shape (batch, n, k); (n, k) or (n,) when neither input had a batch axis.

    Raises
    ------
    ValueError
        If shapes disagree, an input is not finite, or a matrix is singular (a zero on its
        diagonal), naming the matrix and the element.

    See Also
    --------
    scipy.linalg.solve_triangular : one matrix on the CPU.
    ldl_batch : factors whose L this solves with (``unit_diagonal=True``).

    Notes
    -----
    One work-item per right-hand side column and matrix, substituting row by row; the
    columns are a CPU's vector lanes, so many right-hand sides (kriging's cross-covariances)
    run at full width. A transposed solve reads the same stored factor with its strides
    swapped, never a copy.

    References
    ----------
    .. [1] Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed., §3.1.
    .. [2] Lu, R. and Brown, P. E. (2023). gpuRandom (R package; ``backsolveBatch``).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> L = np.array([[2.0, 0.0], [1.0, 4.0]])
    >>> oclstat.solve_triangular_batch(L, np.array([2.0, 9.0])).tolist()
    [1.0, 2.0]
    >>> oclstat.solve_triangular_batch(L, np.array([4.0, 8.0]), trans="T").tolist()
    [1.0, 2.0]
    """
    t, t_dim = as_stack(a, "a")
    rhs, b_dim = as_stack(b, "b", vector_ok=True)
    if t.shape[1] != t.shape[2]:
        raise ValueError(f"a must hold square matrices, got shape {np.shape(a)}")
    if rhs.shape[1] != t.shape[1]:
        raise ValueError(f"b has {rhs.shape[1]} rows, a is {t.shape[1]} x {t.shape[1]}")
    n_mat = common_batch({"a": t.shape[0], "b": rhs.shape[0]})
    transposed = as_trans(trans)
    if not unit_diagonal:
        diag = np.diagonal(t, axis1=1, axis2=2)
        zero = np.argwhere(diag == 0)
        if zero.size:
            m, i = (int(v) for v in zero[0])
            raise ValueError(f"a[{m}] is singular: a[{m}, {i}, {i}] is 0")
    dt = result_dtype(dtype, t, rhs)
    rhs = np.ascontiguousarray(np.broadcast_to(rhs, (n_mat, *rhs.shape[1:])), dtype=dt)
    t = np.ascontiguousarray(t, dtype=dt)
    out = _map(solve_host_shared, (rhs,), (t, bool(lower), transposed, bool(unit_diagonal)),
               device, client, "solve_triangular_batch") if t.shape[0] == 1 else _map(
        solve_host, (t, rhs), (bool(lower), transposed, bool(unit_diagonal)), device, client,
        "solve_triangular_batch")
    return _shape_back(out, b_dim, t_dim == 3 or b_dim == 3)


def solve_host_shared(rt, rhs, t, lower, trans, unit):
    """:func:`solve_host` with the shared factor last (so the batch is split over ``rhs``)."""
    return solve_host(rt, t, rhs, lower, trans, unit)


def _product(a, b, w, c, trans_a, trans_b, alpha, beta, dtype, device, client, what):
    arrays = {"a": a, "b": b}
    if w is not None:
        arrays["d"] = w
    if c is not None:
        arrays["c"] = c
    batches = {k: v.shape[0] for k, v in arrays.items()}
    n_mat = common_batch(batches)
    dt = result_dtype(dtype, *arrays.values())
    full = {k: np.ascontiguousarray(np.broadcast_to(v, (n_mat, *v.shape[1:])), dtype=dt)
            for k, v in arrays.items()}
    return _map(_product_batched, tuple(full.values()),
                (tuple(full), trans_a, trans_b, alpha, beta), device, client, what)


def _product_batched(rt, *args):
    *stacks, names, trans_a, trans_b, alpha, beta = args
    named = dict(zip(names, stacks, strict=True))
    return product_host(rt, named["a"], named.get("d"), named["b"], named.get("c"), trans_a,
                        trans_b, alpha, beta)


@filled()
def crossprod_batch(a, b=None, d=None, *, dtype=None, device=None,
                    client=None) -> np.ndarray:
    """``Aᵀ diag(d) B`` for a batch of matrices (gpuRandom's ``crossprodBatch``).

    Parameters
    ----------
    a : array_like, shape (batch, r, ka) or (r, ka)
        Left factors.
    b : array_like, shape (batch, r, kb) or (r, kb), optional
        Right factors (default: ``a``, giving ``Aᵀ D A``).
    d : array_like, shape (batch, r) or (r,), optional
        Diagonal weights (default: none, ``Aᵀ B``).
    %(batch_dtype)s
    %(batch_device_client)s

    Returns
    -------
    numpy.ndarray, shape (batch, ka, kb)
        (ka, kb) when no input had a batch axis.

    See Also
    --------
    gemm_batch : general products ``op(A) op(B)``.
    numpy.matmul : the CPU reference.

    Notes
    -----
    One work-item per element of the result, summing over ``r`` in order; inputs of batch
    size 1 are shared by the whole batch, never copied.

    References
    ----------
    .. [1] Lu, R. and Brown, P. E. (2023). gpuRandom (R package; ``crossprodBatch``).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> oclstat.crossprod_batch(a, d=[1.0, 2.0]).tolist()      # aᵀ diag(1, 2) a
    [[19.0, 26.0], [26.0, 36.0]]
    """
    a_s, a_dim = as_stack(a, "a")
    b_s, b_dim = (a_s, a_dim) if b is None else as_stack(b, "b")
    if b_s.shape[1] != a_s.shape[1]:
        raise ValueError(f"a and b must have the same number of rows, got {a_s.shape[1]} "
                         f"and {b_s.shape[1]}")
    w = None
    batch_given = a_dim == 3 or b_dim == 3
    if d is not None:
        w = np.asarray(d)
        if w.ndim == 1:
            w = w[None]
        else:
            batch_given = True
        if w.ndim != 2 or w.shape[1] != a_s.shape[1]:
            raise ValueError(f"d must have shape (batch, {a_s.shape[1]}) or "
                             f"({a_s.shape[1]},), got {np.shape(d)}")
        if not np.isfinite(w).all():
            raise ValueError("d must be finite (no NaN or inf)")
    out = _product(a_s, b_s, w, None, True, False, 1.0, 0.0, dtype, device, client,
                   "crossprod_batch")
    return out if batch_given else out[0]


@filled()
def gemm_batch(a, b, c=None, *, alpha: float = 1.0, beta: float = 0.0, trans_a: bool = False,
               trans_b: bool = False, dtype=None, device=None, client=None) -> np.ndarray:
    """``alpha op(A) op(B) + beta C`` for a batch of matrices (gpuRandom's ``gemmBatch``).

    Parameters
    ----------
    a : array_like, shape (batch, m, r) or (m, r)
        Left factors (``(batch, r, m)`` with ``trans_a``).
    b : array_like, shape (batch, r, k) or (r, k)
        Right factors (``(batch, k, r)`` with ``trans_b``).
    c : array_like, shape (batch, m, k) or (m, k), optional
        Added with weight ``beta`` (default: none).
    alpha, beta : float, optional
        Weights of the product and of ``c``.
    trans_a, trans_b : bool, optional
        Use ``Aᵀ`` or ``Bᵀ`` (read with swapped strides, never copied).
    %(batch_dtype)s
    %(batch_device_client)s

    Returns
    -------
    numpy.ndarray, shape (batch, m, k)
        (m, k) when no input had a batch axis.

    See Also
    --------
    crossprod_batch : ``Aᵀ D B``.
    numpy.matmul : the CPU reference.

    Notes
    -----
    The same kernel as :func:`crossprod_batch`, with the strides of ``a`` and ``b`` chosen by
    the transpose flags.

    References
    ----------
    .. [1] Lu, R. and Brown, P. E. (2023). gpuRandom (R package; ``gemmBatch``).

    Examples
    --------
    >>> import numpy as np, oclstat
    >>> a = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> oclstat.gemm_batch(a, a, np.eye(2), beta=10.0).tolist()
    [[17.0, 10.0], [15.0, 32.0]]
    """
    alpha = as_finite(alpha, "alpha")
    beta = as_finite(beta, "beta")
    a_s, a_dim = as_stack(a, "a")
    b_s, b_dim = as_stack(b, "b")
    inner_a = a_s.shape[1] if trans_a else a_s.shape[2]
    inner_b = b_s.shape[2] if trans_b else b_s.shape[1]
    if inner_a != inner_b:
        raise ValueError(f"op(a) has {inner_a} columns but op(b) has {inner_b} rows")
    m = a_s.shape[2] if trans_a else a_s.shape[1]
    k = b_s.shape[1] if trans_b else b_s.shape[2]
    c_s, c_dim = (None, 0) if c is None else as_stack(c, "c")
    if c_s is not None and c_s.shape[1:] != (m, k):
        raise ValueError(f"c must hold {m} x {k} matrices, got shape {np.shape(c)}")
    out = _product(a_s, b_s, None, c_s, bool(trans_a), bool(trans_b), alpha, beta, dtype,
                   device, client, "gemm_batch")
    return out if 3 in (a_dim, b_dim, c_dim) else out[0]
