"""Maximising a likelihood by batched evaluations: a grid, then Newton steps on quadratics
interpolated through small designs, many problems at once.

Every round evaluates, for each open problem, the design of a full quadratic in d dimensions
around its centre c with steps h (c, c ± hᵢeᵢ, c + hᵢeᵢ + hⱼeⱼ: 1 + 2d + d(d-1)/2 points,
exactly the quadratic's coefficients; the last round's points nearby join the least-squares
fit), all problems' points in one batch for the device. The
quadratic's Newton step s = -H⁻¹g (kept within 4h, or the best design point when the
quadratic is not concave) gives the next centre; a centre that turns out worse than the best
point seen sends the problem back there with h halved; h follows the steps down (never by
more than 4x a round), so the last designs also give the curvature that the profiles start
from. A problem stops when its step is below ``tol`` in every coordinate. Coordinates are on
the scale the caller chose (logarithms of the positive parameters), inside box bounds; a
design point past a bound is taken on the other side instead.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Problem:
    """One local maximisation: its centre, steps, best point and state."""

    centre: np.ndarray
    step: np.ndarray
    free: np.ndarray | None = None
    best_x: np.ndarray | None = None
    best_f: float = -np.inf
    done: bool = False
    rounds: int = 0
    hessian: np.ndarray | None = None
    trail: list = field(default_factory=list)


def design(centre: np.ndarray, step: np.ndarray, lower: np.ndarray, upper: np.ndarray):
    """The quadratic design's points (1 + 2d + d(d-1)/2, d) around ``centre``, the centre
    first; a step past a bound is mirrored (c - 2h instead of c + h)."""
    d = centre.size
    offsets = [np.zeros(d)]
    for i in range(d):
        for sign in (1.0, -1.0):
            o = np.zeros(d)
            o[i] = sign * step[i]
            offsets.append(o)
    for i, j in itertools.combinations(range(d), 2):
        o = np.zeros(d)
        o[i], o[j] = step[i], step[j]
        offsets.append(o)
    pts = []
    for o in offsets:
        x = centre + o
        over = (x > upper) | (x < lower)
        x[over] = centre[over] - 2.0 * o[over]
        pts.append(np.clip(x, lower, upper))
    return np.array(pts)


def quadratic(points: np.ndarray, values: np.ndarray, centre: np.ndarray):
    """Gradient and Hessian at ``centre`` of the quadratic through (or least squares on) the
    points."""
    z = points - centre
    d = z.shape[1]
    pairs = list(itertools.combinations_with_replacement(range(d), 2))
    cols = [np.ones(len(z))] + [z[:, i] for i in range(d)] + [
        z[:, i] * z[:, j] * (0.5 if i == j else 1.0) for i, j in pairs]
    coef, *_ = np.linalg.lstsq(np.column_stack(cols), values, rcond=None)
    g = coef[1:1 + d]
    h = np.zeros((d, d))
    for c, (i, j) in zip(coef[1 + d:], pairs, strict=True):
        h[i, j] = h[j, i] = c
    return g, h


def newton_step(g: np.ndarray, h: np.ndarray, step: np.ndarray) -> np.ndarray | None:
    """-H⁻¹g scaled to stay within 4 steps, or None when H is not negative definite."""
    try:
        np.linalg.cholesky(-h)
    except np.linalg.LinAlgError:
        return None
    s = -np.linalg.solve(h, g)
    ratio = np.max(np.abs(s) / (4.0 * step))
    return s / ratio if ratio > 1 else s


def run_local(evaluate, problems: list[Problem], lower, upper, *, tol=1e-4, max_rounds=40,
              min_step=None) -> int:
    """Maximise every problem by batched rounds; ``evaluate`` maps points (m, d) to values
    (m,), -inf where the model cannot be evaluated. Returns the number of evaluations."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    min_step = np.full(lower.size, 1e-3) if min_step is None else np.asarray(min_step, float)
    evaluations = 0
    for p in problems:
        if p.free is None:
            p.free = np.arange(p.centre.size)
    for _ in range(max_rounds):
        open_ = [p for p in problems if not p.done]
        if not open_:
            break
        designs = []
        for p in open_:
            sub = design(p.centre[p.free], p.step[p.free], lower[p.free], upper[p.free])
            full = np.repeat(p.centre[None], len(sub), axis=0)
            full[:, p.free] = sub
            designs.append(full)
        values = evaluate(np.concatenate(designs))
        evaluations += sum(len(x) for x in designs)
        at = 0
        for p, pts in zip(open_, designs, strict=True):
            f = values[at:at + len(pts)]
            at += len(pts)
            p.rounds += 1
            p.trail.append((pts, f))
            _advance(p, pts, f, lower, upper, tol, min_step)
    return evaluations


def _advance(p: Problem, pts, f, lower, upper, tol, min_step) -> None:
    """One problem's next centre and steps from its design's values."""
    i_best = int(np.argmax(f))
    before = p.best_f
    if f[i_best] > p.best_f:
        p.best_f, p.best_x = float(f[i_best]), pts[i_best].copy()
    free = p.free
    if free.size == 0:
        p.done = True
        return
    if f[0] < before - 1e-9 or not np.isfinite(f).all():
        # the centre is worse than the best point seen before (or a point failed): go back
        # there with smaller steps
        p.centre = p.best_x.copy()
        p.step[free] = np.maximum(p.step[free] * 0.5, min_step[free])
        p.done = bool(np.all(p.step[free] <= min_step[free]))
        return
    near_x, near_f = _neighbourhood(p, free)
    g, h = quadratic(near_x, near_f, p.centre[free])
    p.hessian = h
    s = newton_step(g, h, p.step[free])
    if s is None:
        s = pts[i_best, free] - p.centre[free]
        if not s.any():
            p.step[free] = np.maximum(p.step[free] * 0.5, min_step[free])
            p.done = bool(np.all(p.step[free] <= min_step[free]))
            return
    new = np.clip(p.centre[free] + s, lower[free], upper[free])
    moved = new - p.centre[free]
    if np.all(np.abs(moved) < tol):
        p.done = True
        return
    p.centre[free] = new
    p.step[free] = np.clip(2.0 * np.abs(moved), np.maximum(p.step[free] / 4.0, min_step[free]),
                           p.step[free])


def _neighbourhood(p: Problem, free: np.ndarray):
    """The points of the last two rounds within 4 steps of the centre (the quadratic is
    fitted to all of them by least squares: the earlier round sharpens the curvature)."""
    xs = np.concatenate([x[:, free] for x, _ in p.trail[-2:]])
    fs = np.concatenate([v for _, v in p.trail[-2:]])
    scaled = np.abs(xs - p.centre[free]) / p.step[free]
    keep = np.isfinite(fs) & (scaled.max(axis=1) <= 4.0)
    return xs[keep], fs[keep]


def grid_points(axes: list[np.ndarray]) -> np.ndarray:
    """The grid's points (prod(len), d), the last axis fastest."""
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.column_stack([m.ravel() for m in mesh])


def spacing(axis: np.ndarray, value: float) -> float:
    """The grid step of ``axis`` near ``value`` (1 for a single value)."""
    if axis.size < 2:
        return 0.5
    i = int(np.clip(np.searchsorted(axis, value), 1, axis.size - 1))
    return float(axis[i] - axis[i - 1])
