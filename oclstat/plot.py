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


def _pyplot():
    try:
        import matplotlib

        matplotlib.use(matplotlib.get_backend())
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plot_enrichment needs matplotlib: pip install 'oclstat[plot]'") from None
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
    plt = _pyplot()
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
    plt = _pyplot()
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
