"""Plots (matplotlib, optional: ``pip install oclstat[plot]``).

:func:`plot_fields` draws simulated Gaussian random fields on a grid as images.

:func:`plot_enrichment` draws the classic GSEA figure of one gene set: the running enrichment
sum along the ranked genes, a bar for every member of the set, and the ranked metric.

>>> import numpy as np, pandas as pd, oclstat
>>> rng = np.random.default_rng(0)
>>> expr = pd.DataFrame(rng.normal(size=(40, 6)), index=[f"g{i}" for i in range(40)])
>>> res = oclstat.gsea(expr, [0, 0, 0, 1, 1, 1], {"s": [f"g{i}" for i in range(8)]},
...                    n_resamples=20, min_size=5, seed=1)
>>> fig = plot_enrichment(res, "s")                   # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np


def _pyplot(caller: str):
    """matplotlib's pyplot; without matplotlib an ImportError that names ``caller`` (the
    function or option the user called) and how to install it."""
    try:
        import matplotlib

        matplotlib.use(matplotlib.get_backend())
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{caller} needs matplotlib: pip install 'oclstat[plot]' (or pip "
                          "install matplotlib)") from None
    return plt


def plot_enrichment(result, set_name: str, *, ax=None, title: str | None = None):
    """The running-sum plot of one gene set, as Broad GSEA draws it.

    Parameters
    ----------
    result : GseaResult or PrerankResult
        From :func:`oclstat.gsea` or :func:`oclstat.gsea_prerank`.
    set_name : str
        The set to draw.
    ax : sequence of three matplotlib Axes, optional
        Draw into these stacked axes instead of a new figure.
    title : str, optional
        Title (default: the set's ES, NES, p and FDR).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    GseaResult.running_sum : the values drawn.

    Notes
    -----
    Top: the running enrichment sum with its peak; middle: the set's genes along the
    ranking; bottom: the ranking metric.

    References
    ----------
    .. [1] Subramanian, A. et al. (2005). Gene set enrichment analysis. PNAS 102(43),
           15545-15550 (figure 1).

    Examples
    --------
    >>> import numpy as np, pandas as pd, oclstat
    >>> expr = pd.DataFrame(np.random.default_rng(0).normal(size=(50, 6)),
    ...                     index=[f"G{i}" for i in range(50)])
    >>> res = oclstat.gsea(expr, list("aaabbb"), {"s": [f"G{i}" for i in range(10)]},
    ...                    n_resamples=20, min_size=5, seed=1)
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = plot_enrichment(res, "s")
    >>> len(fig.axes)
    3
    """
    plt = _pyplot("plot_enrichment")
    rsum = result.running_sum(set_name)
    pos = result._positions(set_name)
    metric = result.ranking.to_numpy()
    row = result.table.loc[set_name]
    if ax is None:
        fig, ax = plt.subplots(
            3, 1, figsize=(6, 4.5), sharex=True, gridspec_kw={"height_ratios": [3, 0.6, 1.4]}
        )
    else:
        fig = ax[0].figure
    x = np.arange(metric.size)
    ax[0].plot(x, rsum, color="tab:green", lw=1.5)
    ax[0].axhline(0, color="grey", lw=0.6)
    peak = int(np.argmax(np.abs(rsum)))
    ax[0].axvline(peak, color="tab:red", lw=0.8, ls="--")
    ax[0].set_ylabel("running ES")
    if "ES" in row:        # a preranked result (fgsea's columns)
        stats = f"ES {row['ES']:.3f}  NES {row['NES']:.3f}  p {row['pval']:.3g}  " \
                f"padj {row['padj']:.3g}"
        xlabel = "rank (decreasing statistic)"
    else:
        stats = f"ES {row['es']:.3f}  NES {row['nes']:.3f}  p {row['pval']:.3g}  " \
                f"FDR {row['fdr']:.3g}"
        xlabel = f"rank ({result.classes[0]} > {result.classes[1]} on the left)"
    ax[0].set_title(title or f"{set_name}\n{stats}", fontsize=9)
    ax[1].vlines(pos, 0, 1, color="black", lw=0.5)
    ax[1].set_yticks([])
    ax[2].fill_between(x, metric, color="tab:grey", lw=0)
    ax[2].set_ylabel(result.metric, fontsize=8)
    ax[2].set_xlabel(xlabel)
    fig.tight_layout()
    return fig


def plot_fields(images, *, titles=None, cmap: str = "viridis", max_cols: int = 5):
    """Images of fields in a grid of panels with a shared colour scale.

    Parameters
    ----------
    images : array_like, shape (n_fields, ny, nx) or (ny, nx)
        E.g. ``fields_on_grid(simulate_fields(...), nx, ny)[p]``.
    titles : sequence of str, optional
        One per panel.
    cmap : str, optional
        Matplotlib colour map.
    max_cols : int, optional
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    oclstat.fields.fields_on_grid : fields as images.

    Notes
    -----
    One colour scale for every panel, so fields of different parameters compare by eye.

    References
    ----------
    .. [1] Xu, R. and Brown, P. E. gpuRandom (R package): simulated fields.

    Examples
    --------
    >>> import numpy as np
    >>> import matplotlib; matplotlib.use("Agg")
    >>> fig = plot_fields(np.arange(24.0).reshape(2, 3, 4), titles=["a", "b"])
    >>> [ax.get_title() for ax in fig.axes[:2]]
    ['a', 'b']
    """
    plt = _pyplot("plot_fields")
    imgs = np.asarray(images)
    if imgs.ndim == 2:
        imgs = imgs[None]
    if imgs.ndim != 3:
        raise ValueError(f"images must be (n_fields, ny, nx), got shape {imgs.shape}")
    k = imgs.shape[0]
    cols = min(max_cols, k)
    rows = -(-k // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.4 * cols, 2.2 * rows), squeeze=False)
    lo, hi = float(imgs.min()), float(imgs.max())
    for idx, ax in enumerate(axes.ravel()):
        ax.set_axis_off()
        if idx < k:
            im = ax.imshow(imgs[idx], origin="lower", cmap=cmap, vmin=lo, vmax=hi)
            if titles is not None:
                ax.set_title(str(titles[idx]), fontsize=8)
    fig.colorbar(im, ax=axes.ravel().tolist(), shrink=0.8)
    return fig


def _log_axis(axis) -> None:
    """A log scale with plain numbers on its few major ticks only."""
    from matplotlib.ticker import LogLocator, NullFormatter, ScalarFormatter

    scale = "x" if axis.axis_name == "x" else "y"
    getattr(axis.axes, f"set_{scale}scale")("log")
    axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_formatter(NullFormatter())


def plot_profiles(fit):
    """Profile likelihoods of a Matérn fit: one panel per estimated parameter with its
    confidence interval, and the range x shape profile as contours when it was computed.

    Parameters
    ----------
    fit : MaternFit
        From :func:`oclstat.fit_matern` (with ``profiles=True`` and/or ``profile2d=True``).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    oclstat.fit_matern : computes the profiles.

    Notes
    -----
    Each curve is the likelihood maximised over the other parameters, minus the maximum; the
    dashed line is -χ²₁(level)/2 and the dotted lines the interval's ends. The 2-D panel
    draws the deviance 2 (max - profile) at the χ²₂ levels of 50, 80, 95 and 99%.

    References
    ----------
    .. [1] Brown, P. E. (2015). Model-based geostatistics the easy way. Journal of
       Statistical Software 63(12) (profile likelihoods of geostatsp).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, oclstat
    >>> xy = oclstat.fields.grid_coords(6, 6)
    >>> y = oclstat.simulate_fields(xy, [[0.5, 1.0, 1.0, 0.1, 1.0, 0.0]], 1, seed=2)[0, 0]
    >>> fit = oclstat.fit_matern(xy, y, profile2d=False)
    >>> len(plot_profiles(fit).axes)
    2
    """
    from scipy.stats import chi2

    plt = _pyplot("plot_profiles")
    names = list(fit.profiles)
    panels = len(names) + (fit.profile2d is not None)
    if panels == 0:
        raise ValueError("the fit has no profiles: fit with profiles=True or profile2d=True")
    fig, axes = plt.subplots(1, panels, figsize=(3.2 * panels, 3.0), squeeze=False)
    cut = chi2.ppf(fit.level, 1) / 2.0
    for ax, name in zip(axes[0], names, strict=False):
        curve = fit.profiles[name]
        ax.plot(curve[name], curve["loglik"] - fit.loglik, "o-", ms=3)
        ax.axhline(-cut, ls="--", color="grey")
        if fit.ci is not None and name in fit.ci.index:
            for v in fit.ci.loc[name, ["lower", "upper"]]:
                if np.isfinite(v):
                    ax.axvline(v, ls=":", color="C3")
        ax.axvline(fit.params[name], color="C2", lw=0.8)
        if name != "anisoAngleRadians":
            _log_axis(ax.xaxis)
        ax.set_xlabel(name)
        ax.set_ylabel("profile log-likelihood - max")
    if fit.profile2d is not None:
        ax = axes[0][-1]
        surf = fit.profile2d
        r = np.unique(surf["range"])
        s = np.unique(surf["shape"])
        z = surf.set_index(["range", "shape"])["loglik"].unstack().loc[r, s].to_numpy()
        dev = 2.0 * (np.nanmax(z) - z)
        levels = chi2.ppf([0.5, 0.8, 0.95, 0.99], 2)
        cs = ax.contour(r, s, dev.T, levels=levels)
        ax.clabel(cs, fmt={lv: f"{p:.0%}" for lv, p in zip(levels, [0.5, 0.8, 0.95, 0.99],
                                                            strict=True)}, fontsize=7)
        ax.plot([fit.params["range"]], [fit.params["shape"]], "x", color="C3")
        _log_axis(ax.xaxis)
        _log_axis(ax.yaxis)
        ax.set_xlabel("range")
        ax.set_ylabel("shape")
    fig.tight_layout()
    return fig


def plot_kriging(prediction, *, what: str = "mean", points=None, cmap: str = "viridis",
                 ax=None):
    """A map of kriging predictions on a grid.

    Parameters
    ----------
    prediction : DataFrame
        From :func:`oclstat.predict_matern` on grid points (columns x, y, mean, sd).
    what : {"mean", "sd"}, optional
        The column drawn.
    points : array_like, shape (n, 2), optional
        Data locations to overlay.
    cmap : str, optional
        Matplotlib colour map.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    oclstat.predict_matern : the predictions.
    oclstat.fields.grid_coords : a grid to predict on.

    Notes
    -----
    The grid is recovered from the unique x and y values (x fastest, as
    :func:`oclstat.fields.grid_coords` orders it).

    References
    ----------
    .. [1] Cressie, N. (1993). Statistics for Spatial Data, §3.4.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import pandas as pd
    >>> pred = pd.DataFrame({"x": [0, 1, 0, 1], "y": [0, 0, 1, 1], "mean": [1.0, 2, 3, 4],
    ...                      "sd": [1.0, 1, 1, 1]})
    >>> fig = plot_kriging(pred)
    >>> fig.axes[0].get_title()
    'kriging mean'
    """
    if what not in ("mean", "sd"):
        raise ValueError(f"what must be 'mean' or 'sd', got {what!r}")
    plt = _pyplot("plot_kriging")
    xs = np.unique(prediction["x"])
    ys = np.unique(prediction["y"])
    if len(xs) * len(ys) != len(prediction):
        raise ValueError("prediction is not on a grid (use oclstat.fields.grid_coords)")
    img = prediction.set_index(["y", "x"])[what].unstack().loc[ys, xs].to_numpy()
    if ax is None:
        fig, ax = plt.subplots(figsize=(5.0, 4.2))
    else:
        fig = ax.figure
    im = ax.imshow(img, origin="lower", cmap=cmap, aspect="auto",
                   extent=(xs[0], xs[-1], ys[0], ys[-1]))
    if points is not None:
        pts = np.asarray(points, dtype=float)
        ax.plot(pts[:, 0], pts[:, 1], ".", color="k", ms=2)
    ax.set_title(f"kriging {what}")
    fig.colorbar(im, ax=ax, shrink=0.85)
    fig.tight_layout()
    return fig


def plot_qq(y, *, ax=None, max_points: int = 20_000, device=None):
    """A normal Q-Q plot with R's ``qqline`` (through the quartiles), quantiles on the device.

    Parameters
    ----------
    y : array_like
        The sample (e.g. millions of draws).
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: a new figure).
    max_points : int, optional
        At most this many points are drawn (evenly spaced in rank; the line uses all).
    device : optional
        Device of the quantiles (see :func:`oclstat.get_runtime`).

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    oclstat.random.qqnorm : the coordinates.

    Notes
    -----
    The line passes through the first and third quartiles of the sample and of the normal
    (R's ``qqline`` with its default type-7 quantiles).

    References
    ----------
    .. [1] Becker, R. A., Chambers, J. M. and Wilks, A. R. (1988). The New S Language.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np
    >>> fig = plot_qq(np.random.default_rng(0).normal(size=500))
    >>> fig.axes[0].get_xlabel()
    'theoretical quantiles'
    """
    from ._special import qnorm, qqnorm

    plt = _pyplot("plot_qq")
    x, yy = qqnorm(y, device=device)
    order = np.argsort(x, kind="stable")
    keep = order[np.unique(np.linspace(0, len(order) - 1, min(max_points, len(order)))
                           .astype(int))]
    if ax is None:
        fig, ax = plt.subplots(figsize=(4.2, 4.2))
    else:
        fig = ax.figure
    ax.plot(x[keep], yy[keep], ".", ms=2)
    q_y = np.quantile(yy, [0.25, 0.75])
    q_x = qnorm([0.25, 0.75], device=device)
    slope = (q_y[1] - q_y[0]) / (q_x[1] - q_x[0])
    ax.axline((q_x[0], q_y[0]), slope=slope, color="C3")
    ax.set_xlabel("theoretical quantiles")
    ax.set_ylabel("sample quantiles")
    return fig
