"""Special functions on the device, element-wise with numpy broadcasting: K_nu and its
logarithm, the normal quantile (with R's ``qqnorm`` on top) and sums of log-factorials.

:func:`kv` is the modified Bessel function of the second kind K_nu(x) for real order nu >= 0
and x > 0 (Temme's method, cl_kernels/include/oclstat/bessel_k.clh, the function the Matérn
covariance uses); :func:`log_kv` its logarithm, finite where K_nu(x) itself overflows (small x,
large nu) or underflows (large x).

>>> import numpy as np
>>> float(np.round(kv(0.5, 1.0), 12))          # K_1/2(x) = sqrt(pi / 2x) e^-x
0.461068504448
>>> float(np.round(log_kv(20.0, 1e-8), 6))     # K_20(1e-8) is about 1e183
420.923295
"""

from __future__ import annotations

import numpy as np

from .._docs import filled
from .opencl import bessel, logfact_partial_sums, normal_quantiles, ppoint_quantiles
from .validate import bessel_args, counts, probabilities, real_dtype, sample

__all__ = ["kv", "log_kv", "qnorm", "qqnorm", "logfact_sum"]


def _kv(nu, x, dtype, device, logarithm: bool):
    nu_a, x_a = bessel_args(nu, x)
    out = bessel(nu_a, x_a, np.dtype(dtype), device, logarithm)
    return out.reshape(nu_a.shape) if nu_a.shape else out[0]


#: The shared middle of the docstrings of kv and log_kv.
_KV_BODY = """\
Parameters
----------
nu : array_like
    Order (>= 0), broadcast against ``x``.
x : array_like
    Argument (> 0).
%(element_dtype_device)s

Returns
-------
numpy.ndarray or scalar

See Also
--------
scipy.special.kv : the CPU reference the tests compare with.
matern_cov : the Matérn covariance built on it.

Notes
-----
Temme's series for small x and his continued fraction for large x, with the recurrence
in nu; about 1e-15 relative accuracy in double for nu in [0.05, 20] and x from 1e-8 to 700.

References
----------
.. [1] Temme, N. M. (1975). On the numerical evaluation of the modified Bessel function of
       the third kind. Journal of Computational Physics 19(3), 324-337."""


@filled(kv_body=_KV_BODY)
def kv(nu, x, *, dtype=np.float64, device=None):
    """K_nu(x) on the device (inf where it exceeds ``dtype``'s range, 0 where it underflows).

    %(kv_body)s

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import kv as scipy_kv
    >>> bool(np.isclose(kv(0.5, 2.0), scipy_kv(0.5, 2.0), rtol=1e-13))
    True
    """
    return _kv(nu, x, dtype, device, False)


@filled(kv_body=_KV_BODY)
def log_kv(nu, x, *, dtype=np.float64, device=None):
    """log K_nu(x) on the device (finite where K_nu itself over- or underflows).

    %(kv_body)s

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import kv as scipy_kv
    >>> bool(np.isclose(log_kv(1.5, 3.0), np.log(scipy_kv(1.5, 3.0)), rtol=1e-13))
    True
    """
    return _kv(nu, x, dtype, device, True)


@filled()
def qnorm(p, *, lower_tail: bool = True, dtype=np.float64, device=None):
    """Quantiles of the standard normal distribution on the device (R's ``qnorm``).

    Parameters
    ----------
    p : array_like
        Probabilities in [0, 1].
    lower_tail : bool, optional
        Quantiles of P(X <= x) = p (default) or of P(X > x) = p.
    %(element_dtype_device)s

    Returns
    -------
    numpy.ndarray or scalar
        -inf at 0 and inf at 1 (lower tail).

    See Also
    --------
    scipy.special.ndtri : the CPU reference the tests compare with.
    qqnorm : quantiles of R's plotting positions.

    Notes
    -----
    Wichura's AS 241 (PPND16), the algorithm of R's ``qnorm`` (R 4.2): rational functions
    in p - 1/2 near the centre and in sqrt(-log(tail)) beyond, about 1e-16 relative. The
    upper tail is computed from ``p`` itself, so tiny upper-tail probabilities keep their
    precision.

    References
    ----------
    .. [1] Wichura, M. J. (1988). Algorithm AS 241: The percentage points of the normal
       distribution. Applied Statistics 37(3), 477-484.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(qnorm([0.025, 0.5, 0.975]), 6).tolist()
    [-1.959964, 0.0, 1.959964]
    """
    dt = real_dtype(dtype)
    arr = probabilities(p)
    out = normal_quantiles(arr, dt, device, lower_tail)
    return out.reshape(arr.shape) if arr.shape else out[0]


@filled()
def qqnorm(y, *, dtype=np.float64, device=None) -> tuple[np.ndarray, np.ndarray]:
    """Normal Q-Q plot coordinates of a sample, with the quantiles computed on the device
    (R's ``qqnorm``; gpuRandom's ``qqnorm`` for millions of draws).

    Parameters
    ----------
    y : array_like
        The sample (flattened); NaN values are dropped.
    %(element_dtype_device)s

    Returns
    -------
    x : numpy.ndarray
        Theoretical quantiles, ``x[i]`` the one matching ``y[i]`` (R's ``$x``).
    y : numpy.ndarray
        The sample (R's ``$y``).

    See Also
    --------
    qnorm : the quantile function.
    oclstat.plot_qq : the plot.
    scipy.stats.probplot : Filliben's plotting positions instead of R's.

    Notes
    -----
    ``x`` is ``qnorm(ppoints(n))`` in the ranks of ``y`` (ties in the order of appearance,
    as R's ``order``), with R's ``ppoints``: (i - a) / (n + 1 - 2a), a = 3/8 for n <= 10,
    else 1/2. The quantiles of the plotting positions are computed on the device; the
    ranking is a stable sort on the host.

    References
    ----------
    .. [1] Becker, R. A., Chambers, J. M. and Wilks, A. R. (1988). The New S Language
       (``qqnorm``, ``ppoints``).

    Examples
    --------
    >>> import numpy as np
    >>> x, y = qqnorm([3.0, 1.0, 2.0])
    >>> np.round(x, 4).tolist()
    [0.8694, -0.8694, 0.0]
    """
    arr = sample(y)
    sorted_q = ppoint_quantiles(arr.size, real_dtype(dtype), device)
    x = np.empty_like(sorted_q)
    x[np.argsort(arr, kind="stable")] = sorted_q
    return x, arr


@filled()
def logfact_sum(x, *, dtype=np.float64, device=None) -> float:
    """The sum of log(x!) over the elements of an array, on the device (gpuRandom's
    ``logfactSum``).

    Parameters
    ----------
    x : array_like of int
        Non-negative integers (e.g. a contingency table's cells).
    %(element_dtype_device)s

    Returns
    -------
    float

    See Also
    --------
    scipy.special.gammaln : ``gammaln(x + 1).sum()`` is the CPU reference.
    fisher_test : whose statistic is built from such sums.

    Notes
    -----
    Each work-item sums lgamma(x + 1) over a strided share of the elements, work-groups
    reduce in local memory, and the host adds the partial sums in order.

    References
    ----------
    .. [1] Lu, R. and Brown, P. E. (2023). gpuRandom (R package; ``logfactSum``).

    Examples
    --------
    >>> round(logfact_sum([[3, 1], [1, 3]]), 6)        # 2 log(3!) + 2 log(1!)
    3.583519
    """
    arr = counts(x)
    dt = real_dtype(dtype)
    if arr.size == 0:
        return 0.0
    return float(np.sum(logfact_partial_sums(arr, dt, device).astype(np.float64)))
