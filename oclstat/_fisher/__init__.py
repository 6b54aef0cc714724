"""Monte Carlo Fisher exact test for r x c tables, and random tables with fixed margins.

:func:`fisher_sim` is R's ``fisher.test(x, simulate.p.value = TRUE, B = n_resamples)`` on the
device (gpuRandom's ``fisher.sim``): random tables with the observed margins are drawn by
Patefield's algorithm (AS 159, R's ``rcont2``), one table per work-item per round, and those at
most as probable as the observed table are counted on the device.

R's conventions are kept: rows and columns that are all zero are dropped first (fewer than two
of either left is an error); the statistic is ``-sum(log(x_ij!))``, larger for more probable
tables; a simulated table counts when its statistic is at most the observed one divided by
``almost.1 = 1 + 64 * eps`` (R's tolerance for ties); the p-value is
``(1 + count) / (n_resamples + 1)``.

On the device the statistic is computed in fixed point: ``round(log(k!) * 2^s)`` as 64-bit
integers (``s`` as large as the table total allows, 48 bits for small totals), summed exactly,
so tables with the same cells in any order have exactly the same statistic and every device
gets the same counts for the same seed. R's tolerance is applied in the same units. The
sampling itself uses only correctly rounded arithmetic (see ``exact_math.clh``): the random
tables too are identical on every device.

**Which stream makes which table.** A batch of ``K`` tables uses ``S`` streams per table
(with ``seed=``: ``S = max(1, min(n_resamples, 2**18 // K))``, with ``streams=``:
``S = streams.n_streams // K``); stream ``t * S + j`` makes resamples ``j, j + S, j + 2S, ...``
of table ``t``. The mapping depends only on ``K``, ``S`` and ``n_resamples``, never on the
device.

>>> import numpy as np, oclstat
>>> x = np.array([[12, 5, 7], [3, 9, 4], [6, 2, 11]])
>>> res = oclstat.fisher_sim(x, n_resamples=20000, seed=1)
>>> res.n_resamples, round(res.statistic, 4)
(20000, -75.8462)
>>> 0.012 < res.pvalue < 0.022     # R's exact fisher.test(x): 0.01687
True

Inside: ``validate`` (the tables' checks), ``plan`` (log-factorials, margins, precision),
``exact`` (2 x 2 and enumerated r x c tables on the host), ``opencl`` (the device's draws
and counts), ``result`` (frozen results), ``api`` (the public
functions).
"""

from __future__ import annotations

from .api import fisher_sim, fisher_sim_batch, fisher_test, random_table
from .plan import log_factorial_fixed
from .result import FisherSimBatchResult, FisherSimResult, FisherTestResult

__all__ = [
    "FisherSimResult",
    "FisherSimBatchResult",
    "FisherTestResult",
    "fisher_test",
    "fisher_sim",
    "fisher_sim_batch",
    "random_table",
    "log_factorial_fixed",
]
