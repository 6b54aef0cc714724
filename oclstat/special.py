"""Special functions on the device: the public names of :mod:`oclstat._special` (K_nu,
log K_nu, the normal quantile and R's qqnorm, sums of log-factorials).

>>> import numpy as np
>>> float(np.round(kv(0.5, 1.0), 12))          # K_1/2(x) = sqrt(pi / 2x) e^-x
0.461068504448
"""

from __future__ import annotations

from ._special import kv, log_kv, logfact_sum, qnorm, qqnorm

__all__ = ["kv", "log_kv", "qnorm", "qqnorm", "logfact_sum"]
