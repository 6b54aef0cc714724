"""Special functions on the device (K_nu and its logarithm, the normal quantile and R's
``qqnorm``, sums of log-factorials): the functions the Matérn covariance, the random draws and
gpuRandom's R interface share, in a package of their own. The public face is
:mod:`oclstat.special` (and :mod:`oclstat.random` for ``qnorm``/``qqnorm``).
"""

from __future__ import annotations

from .api import kv, log_kv, logfact_sum, qnorm, qqnorm

__all__ = ["kv", "log_kv", "qnorm", "qqnorm", "logfact_sum"]
