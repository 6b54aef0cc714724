"""PLINK 1.9's two-locus tests, computed from the genotype tables of SNP pairs (the host
definitions the device follows, vectorised over many pairs).

A pair's table holds, for cases and for controls, the 3 x 3 counts of its genotypes, indexed as
PLINK indexes them: cell ``3 a + b`` with ``a = 2 - x1`` and ``b = 2 - x2``, where x1 and x2
count the A1 allele (the minor allele, PLINK 1.9's default) of the two SNPs; cell 0 is
[hom A1 x hom B1], cell 8 [hom A2 x hom B2]. Tables have shape (pairs, 2, 9): [case, control].

* ``fast``: ``--fast-epistasis``, the Ueki-Cordell (2012) test: per group, allele-pair counts
  c11 = 4 n0 + 2 (n1 + n3) + n4 (and c12, c21, c22 likewise), each + 4.5 when a cell of the
  group is empty, the log odds ratio log(c11 c22 / (c12 c21)) and its variance (the
  adjusted formula); the statistic (lor_case - lor_ctrl)^2 / (var_case + var_ctrl), chi-square
  with 1 df.
* ``joint-effects``: ``--fast-epistasis joint-effects``, Ueki and Cordell's joint-effects test
  (cells + 0.5 in both groups when any is empty; the reference cell raised to 1% when below;
  the weighted combination of the four interaction odds ratios; chi-square 1 df); pairs with a
  cell below ``cellmin`` (PLINK's ``--je-cellmin``, 5) fail.
* ``logistic``: ``--epistasis`` on a case/control phenotype: the logistic model
  y ~ 1 + x1 + x2 + x1 x2 fitted by maximum likelihood, the Wald chi-square of the
  interaction and its odds ratio (without covariates the likelihood depends on the tables
  alone: the fit runs on the 9 cells).
* ``linear``: ``--epistasis`` on a quantitative trait: the least-squares model
  y ~ 1 + x1 + x2 + x1 x2, the t statistic of the interaction squared and its coefficient,
  from per-cell counts, trait sums and the trait's sum of squares.

With covariates, :func:`interaction_fit` fits the same models per pair on the samples
(R's ``glm``/``lm`` with the covariates as further terms).

>>> t = np.zeros((1, 2, 9), np.int64); t[0, 0] = [9, 8, 7, 6, 5, 4, 3, 2, 1]
>>> t[0, 1] = [3, 5, 7, 2, 9, 6, 8, 1, 4]
>>> round(float(ueki_cordell(t)[0]), 4)
0.5764
"""

from __future__ import annotations

import numpy as np

__all__ = ["TESTS", "ueki_cordell", "joint_effects", "boost", "boost_thresholds",
           "logistic_cells", "linear_cells", "interaction_fit", "chi2_p", "cell_codes"]

#: The tests PLINK 1.9 offers for pairs (``--fast-epistasis`` variants, ``--epistasis``).
TESTS = ("fast", "joint-effects", "boost", "logistic", "linear")

#: PLINK 1.9's --epi1 of --fast-epistasis boost when none is given.
BOOST_EPI1 = 5e-6

#: The genotype codes x1, x2 (A1 allele counts) of the 9 cells (cell 3 a + b, a = 2 - x1).
cell_codes = (np.repeat([2, 1, 0], 3), np.tile([2, 1, 0], 3))


def chi2_p(stat, df=1) -> np.ndarray:
    """The upper tail of chi-square with ``df`` degrees of freedom (NaN stays NaN)."""
    from scipy.special import chdtrc  # chi2.sf: no scipy.stats, and only when asked (start-up)

    return chdtrc(df, np.maximum(np.asarray(stat, dtype=np.float64), 0.0))  # below 0: p = 1


def boost_thresholds(epi1: float, epi2: float) -> tuple[np.ndarray, np.ndarray]:
    """BOOST's chi-square thresholds for 4, 2 and 1 df (df adjustment 0, 1, 2): the screen at
    ``epi1`` and the summary's count at ``epi2``, as PLINK 1.9 sets them (when the two are
    equal, the count is of values strictly above the screen's).

    >>> [np.round(t, 4).tolist() for t in boost_thresholds(0.05, 0.01)]
    [[9.4877, 5.9915, 3.8415], [13.2767, 9.2103, 6.6349]]
    """
    from scipy.special import chdtri  # chi2.isf: no scipy.stats, and only when asked

    df = np.array([4, 2, 1])
    a1 = chdtri(df, epi1) if epi1 < 1 else np.zeros(3)
    a2 = chdtri(df, epi2) if epi2 < 1 else np.zeros(3)
    if a1[0] == a2[0]:
        a2 = a1 * (1 + 2.0 ** -44)
    return a1, a2


def boost(tables: np.ndarray, epi1: float, epi2: float):
    """BOOST's statistics of pairs (Wan et al. 2010) as PLINK 1.9's ``--fast-epistasis boost``
    computes them; the host reference of the device's kernel.

    Parameters
    ----------
    tables : array_like, shape (pairs, 18)
        Cell counts ``9 k + 3 a + b``: k 0 cases, 1 controls; a, b the two SNPs' genotypes.
    epi1, epi2 : float
        PLINK's --epi1 (the screen) and --epi2 (the summary's count).

    Returns
    -------
    value : ndarray
        What PLINK's summary uses: the Kirkwood-superposition (KSA) statistic, or for pairs
        past the screen the exact one raised to the screen's threshold; NaN for a pair that
        fails (two genotypes of one SNP absent).
    exact : ndarray
        The likelihood-ratio statistic of the model without the three-way interaction, by
        iterative proportional fitting (PLINK's stopping rule), for the pairs past the screen
        (PLINK reports them all); NaN elsewhere.
    df : ndarray
        4, or 2 and 1 with absent genotypes.
    significant : ndarray of bool
        ``value`` at or above the epi2 threshold of its df.

    Examples
    --------
    >>> t = np.array([[30, 10, 5, 12, 20, 9, 4, 8, 25, 10, 30, 6, 11, 18, 10, 7, 9, 12]])
    >>> value, exact, df, sig = boost(t, 0.5, 0.5)
    >>> round(float(exact[0]), 4), int(df[0])
    (16.1705, 4)
    """
    a1, a2 = boost_thresholds(epi1, epi2)
    t = np.asarray(tables, dtype=np.int64)
    out = [np.full(len(t), np.nan) for _ in range(2)]
    dfs, sig = np.full(len(t), 4), np.zeros(len(t), bool)
    for p, n in enumerate(t):
        value, exact, adj = _boost_one(n, a1)
        out[0][p], out[1][p], dfs[p] = value, exact, 4 >> adj
        sig[p] = value >= a2[adj]
    return out[0], out[1], dfs, sig


def _boost_one(n: np.ndarray, a1: np.ndarray) -> tuple[float, float, int]:
    """(summary value, exact or NaN, df adjustment) of one pair's 18 cells."""
    c = n.reshape(2, 3, 3).astype(np.float64)             # class, a, b
    per_a = c.sum(axis=(0, 2))
    adj = int((per_a == 0).sum())
    if adj > 1:
        return np.nan, np.nan, 0
    with np.errstate(divide="ignore", invalid="ignore"):
        p_ca = np.nan_to_num(c.sum(axis=2) / per_a)        # P(class | a), (class, a)
        p_bc = np.nan_to_num(c.sum(axis=1) / c.sum(axis=(1, 2))[:, None])   # P(b | class)
        per_b = c.sum(axis=(0, 1))
        if (per_b == 0).sum() > 1:
            return np.nan, np.nan, 0
        adj += int((per_b == 0).sum())
        p_ab = np.nan_to_num(c.sum(axis=0) / per_b)        # P(a | b), (a, b)
        total = c.sum()
        m = p_ab[None] * p_bc[:, None, :] * p_ca[:, :, None]
        nz = c > 0
        value = 2 * (np.sum(np.where(nz & (m > 0), c * np.log(np.where(nz, c, 1)
                                                                / np.where(m > 0, m, 1)), 0))
                     - np.sum(np.where(nz & (m == 0), c * np.log(np.where(nz, c, 1)), 0))
                     + total * np.log(m.sum() / total))
    if not value > a1[adj]:
        return value, np.nan, adj
    mu = np.ones((2, 3, 3))
    for _ in range(10_000):        # PLINK's rule ends in a few dozen rounds (the device's cap)
        before = mu.copy()
        for axis, margin in ((0, c.sum(axis=0)), (2, c.sum(axis=2)), (1, c.sum(axis=1))):
            fitted = mu.sum(axis=axis)
            with np.errstate(divide="ignore", invalid="ignore"):
                f = np.where(fitted != 0, margin / fitted, 0.0)
            mu = mu * np.expand_dims(f, axis)
        if not np.abs(mu - before).sum() > 0.001:
            break
    x, y = c / total, mu / total
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(x != 0, x * np.log(np.where(y != 0, x / y, x)), 0.0)
    exact = (terms.sum() + np.log(y.sum())) * 2 * total
    return max(exact, a1[adj]), exact, adj


def _group_ueki(n: np.ndarray):
    """Log odds ratio and its variance of one group's tables (pairs x 9)."""
    n = n.astype(np.float64)
    c11 = 4 * n[:, 0] + 2 * (n[:, 1] + n[:, 3]) + n[:, 4]
    c12 = 4 * n[:, 2] + 2 * (n[:, 1] + n[:, 5]) + n[:, 4]
    c21 = 4 * n[:, 6] + 2 * (n[:, 3] + n[:, 7]) + n[:, 4]
    c22 = 4 * n[:, 8] + 2 * (n[:, 5] + n[:, 7]) + n[:, 4]
    empty = (n == 0).any(axis=1)
    add = np.where(empty, 4.5, 0.0)
    c11, c12, c21, c22 = c11 + add, c12 + add, c21 + add, c22 + add
    with np.errstate(divide="ignore", invalid="ignore"):
        r11, r12, r21, r22 = 1 / c11, 1 / c12, 1 / c21, 1 / c22
        lor = np.log(c11 * c22 * r12 * r21)
        d2, d3 = (r11 - r12) ** 2, (r11 - r21) ** 2
        d5 = (r11 - r12 - r21 + r22) ** 2
        d6, d8 = (r22 - r12) ** 2, (r22 - r21) ** 2
        m = n + np.where(empty, 0.5, 0.0)[:, None]
        var = 4 * (4 * (r11 ** 2 * m[:, 0] + r12 ** 2 * m[:, 2] + r21 ** 2 * m[:, 6]
                        + r22 ** 2 * m[:, 8])
                   + d2 * m[:, 1] + d3 * m[:, 3] + d6 * m[:, 5] + d8 * m[:, 7]) + d5 * m[:, 4]
    return lor, var


def ueki_cordell(tables: np.ndarray) -> np.ndarray:
    """PLINK's ``--fast-epistasis`` statistic (chi-square, 1 df) of every pair; NaN where it
    is not a number (PLINK counts those pairs as failed)."""
    t = np.asarray(tables)
    lor1, var1 = _group_ueki(t[:, 0])
    lor2, var2 = _group_ueki(t[:, 1])
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (lor1 - lor2) ** 2 / (var1 + var2)
    return np.where(np.isfinite(z), z, np.nan)


def _je_group(q: np.ndarray):
    """Ueki and Cordell's joint-effects combination of one group's adjusted cells (pairs x
    9, float): (lambda or mu, total inverse variance, whether the regular form applies)."""
    inv = 1.0 / q
    i22 = q[:, 8] * q[:, 0] * inv[:, 2] * inv[:, 6]
    i21 = q[:, 8] * q[:, 1] * inv[:, 2] * inv[:, 7]
    i12 = q[:, 8] * q[:, 3] * inv[:, 5] * inv[:, 6]
    i11 = q[:, 8] * q[:, 4] * inv[:, 5] * inv[:, 7]
    return (i22, i21, i12, i11), inv


def _je_matrix(inv, xi):
    d = inv[:, 8]
    x0, x1, x2, x3 = xi
    m = np.empty((inv.shape[0], 4, 4))
    m[:, 0, 0] = (inv[:, 0] + inv[:, 2] + inv[:, 6] + d) * x0 * x0
    m[:, 0, 1] = m[:, 1, 0] = (inv[:, 2] + d) * x0 * x1
    m[:, 0, 2] = m[:, 2, 0] = (inv[:, 6] + d) * x0 * x2
    m[:, 0, 3] = m[:, 3, 0] = d * x0 * x3
    m[:, 1, 1] = (inv[:, 1] + inv[:, 2] + inv[:, 7] + d) * x1 * x1
    m[:, 1, 2] = m[:, 2, 1] = d * x1 * x2
    m[:, 1, 3] = m[:, 3, 1] = (inv[:, 7] + d) * x1 * x3
    m[:, 2, 2] = (inv[:, 3] + inv[:, 5] + inv[:, 6] + d) * x2 * x2
    m[:, 2, 3] = m[:, 3, 2] = (inv[:, 5] + d) * x2 * x3
    m[:, 3, 3] = (inv[:, 4] + inv[:, 5] + inv[:, 7] + d) * x3 * x3
    return m


def joint_effects(tables: np.ndarray, cellmin: int = 5) -> np.ndarray:
    """PLINK's ``--fast-epistasis joint-effects`` statistic (chi-square, 1 df) of every pair;
    NaN for pairs with a cell below ``cellmin`` or no finite statistic."""
    t = np.asarray(tables).astype(np.float64)
    n_pairs = t.shape[0]
    out = np.full(n_pairs, np.nan)
    ok = np.ones(n_pairs, dtype=bool) if not cellmin else (t >= cellmin).all(axis=(1, 2))
    if not ok.any():
        return out
    t = t[ok]
    q = t.copy()
    empty = (t == 0).any(axis=(1, 2))
    q[empty] += 0.5
    for g in range(2):                         # the reference cell raised to about 1%
        total = q[:, g].sum(axis=1) - np.where(empty, 4.5, 0.0)
        last = q[:, g, 8]
        low = last * 100 < total
        factor = np.where(low, total / (1.01 * total - last + np.where(empty, 4.5, 0.0)), 1.0)
        q[:, g, :8] *= factor[:, None]
        q[:, g, 8] = np.where(low, 0.01 * factor * total, last)
    with np.errstate(divide="ignore", invalid="ignore"):
        ivs, invs = zip(*(_je_group(q[:, g]) for g in range(2)), strict=True)
        regular = (ivs[0][3] > 0.5) & (ivs[1][3] > 0.5)
        values, totals = [], []
        for g in range(2):
            i22, i21, i12, i11 = ivs[g]
            root = np.sqrt(i22)
            xi = (np.where(regular, 0.5, root / (2 * root + 2)),
                  np.where(regular, 1.0, i21 / (i21 + 1)),
                  np.where(regular, 1.0, i12 / (i12 + 1)),
                  np.where(regular, 2 * i11 / (2 * i11 - 1), 1.0))
            m = _je_matrix(invs[g], xi)
            bad = ~np.isfinite(m).all(axis=(1, 2))
            m[bad] = np.eye(4)
            rows = np.linalg.inv(m).sum(axis=2)
            rows[bad] = np.nan
            lam = (rows[:, 0] * np.log(i22) * 0.5 + rows[:, 1] * np.log(i21)
                   + rows[:, 2] * np.log(i12) + rows[:, 3] * np.log(2 * i11 - 1))
            mu = (rows[:, 0] * np.log((root + 1) * 0.5) + rows[:, 1] * np.log((i21 + 1) * 0.5)
                  + rows[:, 2] * np.log((i12 + 1) * 0.5) + rows[:, 3] * np.log(i11))
            values.append(np.where(regular, lam, mu))
            totals.append(rows.sum(axis=1))
        v1, v2 = 1.0 / totals[0], 1.0 / totals[1]
        diff = values[0] * v1 - values[1] * v2
        z = diff * diff / (v1 + v2)
    out[ok] = np.where(np.isfinite(z), z, np.nan)
    return out


def _design(x1, x2):
    return np.stack([np.ones_like(x1), x1, x2, x1 * x2], axis=-1)


def logistic_cells(tables: np.ndarray, iterations: int = 30, tol: float = 1e-10):
    """The logistic interaction of every pair from its tables: ``(stat, odds_ratio)``, the
    Wald chi-square of the x1 x2 term and exp of its coefficient (NaN where the fit does not
    converge or the design is singular, as PLINK reports NA)."""
    t = np.asarray(tables).astype(np.float64)
    cases, controls = t[:, 0], t[:, 1]
    n = cases + controls
    x = _design(*(c.astype(np.float64) for c in cell_codes))        # 9 x 4
    beta = np.zeros((t.shape[0], 4))
    p0 = cases.sum(axis=1) / np.maximum(n.sum(axis=1), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        beta[:, 0] = np.log(p0 / (1 - p0))
        converged = np.zeros(t.shape[0], dtype=bool)
        for _ in range(iterations):
            eta = beta @ x.T
            mu = 1 / (1 + np.exp(-eta))
            w = n * mu * (1 - mu)
            info = np.einsum("pc,ci,cj->pij", w, x, x)
            score = (cases - n * mu) @ x
            ok = np.isfinite(info).all(axis=(1, 2)) & (np.abs(np.linalg.det(info)) > 1e-12)
            info[~ok] = np.eye(4)
            step = np.linalg.solve(info, score[..., None])[..., 0]
            step[~ok] = np.nan
            beta = beta + step
            converged = np.abs(step).max(axis=1) < tol
            if converged.all():
                break
        eta = beta @ x.T
        mu = 1 / (1 + np.exp(-eta))
        info = np.einsum("pc,ci,cj->pij", n * mu * (1 - mu), x, x)
        good = np.isfinite(info).all(axis=(1, 2)) & converged
        info[~good] = np.eye(4)
        var = np.linalg.inv(info)[:, 3, 3]
        stat = beta[:, 3] ** 2 / var
    stat = np.where(good & np.isfinite(stat), stat, np.nan)
    return stat, np.exp(beta[:, 3])


def linear_cells(counts: np.ndarray, sums: np.ndarray, total_sq: np.ndarray):
    """The linear interaction of every pair from its cells: ``counts`` and trait ``sums``
    (pairs x 9) and the trait's sum of squares over the pair's samples: ``(stat, beta)``,
    the squared t statistic of the x1 x2 term and its coefficient."""
    c = np.asarray(counts, dtype=np.float64)
    s = np.asarray(sums, dtype=np.float64)
    x = _design(*(v.astype(np.float64) for v in cell_codes))
    xtx = np.einsum("pc,ci,cj->pij", c, x, x)
    xty = s @ x
    n = c.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ok = np.abs(np.linalg.det(xtx)) > 1e-9
        xtx[~ok] = np.eye(4)
        inv = np.linalg.inv(xtx)
        beta = np.einsum("pij,pj->pi", inv, xty)
        rss = np.asarray(total_sq, dtype=np.float64) - np.einsum("pi,pi->p", beta, xty)
        sigma2 = rss / (n - 4)
        stat = beta[:, 3] ** 2 / (sigma2 * inv[:, 3, 3])
    stat = np.where(ok & (n > 4) & np.isfinite(stat), stat, np.nan)
    return stat, np.where(ok, beta[:, 3], np.nan)


def interaction_fit(x1, x2, y, covariates=None, *, family: str = "binomial",
                    iterations: int = 30):
    """The interaction of every pair fitted on the samples, with covariates: ``x1``, ``x2``
    (pairs x samples, A1 counts, NaN missing), ``y`` (samples), ``covariates`` (samples x k);
    model y ~ 1 + x1 + x2 + x1 x2 + covariates (logistic for ``family="binomial"``, least
    squares for "gaussian"), on the samples complete for the pair. Returns ``(stat, coef)``:
    the Wald chi-square (logistic) or squared t (linear) of x1 x2 and its coefficient."""
    x1 = np.atleast_2d(np.asarray(x1, dtype=np.float64))
    x2 = np.atleast_2d(np.asarray(x2, dtype=np.float64))
    y = np.asarray(y, dtype=np.float64)
    cov = (np.zeros((y.size, 0)) if covariates is None
           else np.asarray(covariates, dtype=np.float64).reshape(y.size, -1))
    stat = np.full(x1.shape[0], np.nan)
    coef = np.full(x1.shape[0], np.nan)
    for p in range(x1.shape[0]):
        keep = np.isfinite(x1[p]) & np.isfinite(x2[p]) & np.isfinite(y) & \
            np.isfinite(cov).all(axis=1)
        a, b, yy = x1[p, keep], x2[p, keep], y[keep]
        design = np.column_stack([np.ones(a.size), a, b, a * b, cov[keep]])
        k = design.shape[1]
        if a.size <= k or np.linalg.matrix_rank(design) < k:
            continue
        if family == "gaussian":
            xtx = design.T @ design
            inv = np.linalg.inv(xtx)
            beta = inv @ design.T @ yy
            resid = yy - design @ beta
            s2 = resid @ resid / (a.size - k)
            stat[p] = beta[3] ** 2 / (s2 * inv[3, 3])
            coef[p] = beta[3]
            continue
        beta = np.zeros(k)
        m = yy.mean()
        beta[0] = np.log(m / (1 - m))
        for _ in range(iterations):
            mu = 1 / (1 + np.exp(-(design @ beta)))
            w = mu * (1 - mu)
            info = design.T @ (design * w[:, None])
            step = np.linalg.solve(info, design.T @ (yy - mu))
            beta = beta + step
            if np.abs(step).max() < 1e-10:
                break
        else:
            continue
        mu = 1 / (1 + np.exp(-(design @ beta)))
        info = design.T @ (design * (mu * (1 - mu))[:, None])
        stat[p] = beta[3] ** 2 / np.linalg.inv(info)[3, 3]
        coef[p] = np.exp(beta[3])
    return stat, coef
