"""Host-side arithmetic of L'Ecuyer and Touzin's MRG31k3p generator (the clRNG layout).

The generator has two components of order 3 (L'Ecuyer & Touzin 2000, "Fast combined multiple
recursive generators with multipliers of the form a = +-2^q +- 2^r"):

    x1[n] = (2^22 x1[n-2] + (2^7 + 1) x1[n-3])  mod m1,   m1 = 2^31 - 1
    x2[n] = (2^15 x2[n-1] + (2^15 + 1) x2[n-3]) mod m2,   m2 = 2^31 - 21069
    z[n]  = (x1[n] - x2[n]) mod m1, reported in [1, m1] (0 is mapped to m1)

A state is six integers ``(g1[0], g1[1], g1[2], g2[0], g2[1], g2[2])`` with ``g[0]`` the newest
value, exactly as clRNG's ``clrngMrg31k3pStreamState`` stores it, so one step is the matrix-vector
product ``g <- A g (mod m)`` with the one-step matrices ``A1``/``A2`` below.

Streams are ``2^134`` steps apart and substreams ``2^72`` steps apart (clRNG's defaults). The jump
matrices ``A^(2^134)`` and ``A^(2^72)`` are written here as published with clRNG; the test-suite
recomputes them independently by repeated squaring of the one-step matrices.

Everything here is exact integer arithmetic: Python ints for matrices, numpy ``uint64`` for
vectorised jumps of many states at once (every product of two residues is below 2^62).

>>> create_stream_states((12345,) * 6, 2)[1].tolist()
[336690377, 597094797, 1245771585, 85196284, 523477687, 2094976052]
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from .._constants import MRG31K3P_M1, MRG31K3P_M2

M1 = MRG31K3P_M1  # 2^31 - 1
M2 = MRG31K3P_M2  # 2^31 - 21069

#: One-step transition matrices (state vector ordered newest first).
A1 = ((0, 4194304, 129), (1, 0, 0), (0, 1, 0))
A2 = ((32768, 0, 32769), (1, 0, 0), (0, 1, 0))

#: Substream jump, A^(2^72) mod m (as published with clRNG).
A1P72 = (
    (1516919229, 758510237, 499121365),
    (1884998244, 1516919229, 335398200),
    (601897748, 1884998244, 358115744),
)
A2P72 = (
    (1228857673, 1496414766, 954677935),
    (1133297478, 1407477216, 1496414766),
    (2002613992, 1639496704, 1407477216),
)

#: Stream jump, A^(2^134) mod m (as published with clRNG).
A1P134 = (
    (1702500920, 1849582496, 1656874625),
    (828554832, 1702500920, 1512419905),
    (1143731069, 828554832, 102237247),
)
A2P134 = (
    (796789021, 1464208080, 607337906),
    (1241679051, 1431130166, 1464208080),
    (1401213391, 1178684362, 1431130166),
)

#: clRNG's default base seed.
DEFAULT_SEED = (12345, 12345, 12345, 12345, 12345, 12345)

Matrix = tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]


def matmul_mod(a: Matrix, b: Matrix, m: int) -> Matrix:
    """Product of two 3x3 integer matrices modulo ``m`` (Python ints, exact)."""
    return tuple(
        tuple(sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3)) for i in range(3)
    )


def matpow_mod(a: Matrix, e: int, m: int) -> Matrix:
    """``a**e mod m`` for ``e >= 0`` by binary exponentiation."""
    if e < 0:
        raise ValueError("matpow_mod: exponent must be >= 0")
    result: Matrix = ((1, 0, 0), (0, 1, 0), (0, 0, 1))
    base = a
    while e:
        if e & 1:
            result = matmul_mod(base, result, m)
        base = matmul_mod(base, base, m)
        e >>= 1
    return result


def inverse_mod(a: Matrix, m: int) -> Matrix:
    """Inverse of a 3x3 matrix modulo the prime ``m`` (adjugate over determinant)."""
    cof = [
        [
            (a[(i + 1) % 3][(j + 1) % 3] * a[(i + 2) % 3][(j + 2) % 3]
             - a[(i + 1) % 3][(j + 2) % 3] * a[(i + 2) % 3][(j + 1) % 3])
            for j in range(3)
        ]
        for i in range(3)
    ]
    det = sum(a[0][j] * cof[0][j] for j in range(3)) % m
    if det == 0:
        raise ValueError("matrix is singular modulo m")
    inv_det = pow(det, m - 2, m)
    return tuple(tuple((cof[j][i] * inv_det) % m for j in range(3)) for i in range(3))


def jump_matrices(steps: int) -> tuple[Matrix, Matrix]:
    """The pair ``(A1^steps mod m1, A2^steps mod m2)``; ``steps`` may be any size (e.g. 2**134)
    and negative (steps backwards, through the inverse one-step matrices)."""
    if steps < 0:
        return (
            matpow_mod(inverse_mod(A1, M1), -steps, M1),
            matpow_mod(inverse_mod(A2, M2), -steps, M2),
        )
    return matpow_mod(A1, steps, M1), matpow_mod(A2, steps, M2)


def stream_jump(k: int = 1) -> tuple[Matrix, Matrix]:
    """Jump matrices that move a state ``k`` streams (``k * 2^134`` steps) forward."""
    return matpow_mod(A1P134, k, M1), matpow_mod(A2P134, k, M2)


def substream_jump(k: int = 1) -> tuple[Matrix, Matrix]:
    """Jump matrices that move a state ``k`` substreams (``k * 2^72`` steps) forward."""
    return matpow_mod(A1P72, k, M1), matpow_mod(A2P72, k, M2)


def _matvec_rows(mat: Matrix, x: np.ndarray, m: int) -> np.ndarray:
    """``mat @ x mod m`` for every row of ``x`` (shape (n, 3), uint64 residues)."""
    out = np.empty_like(x)
    for i in range(3):
        acc = (np.uint64(mat[i][0]) * x[:, 0]) % np.uint64(m)
        acc += (np.uint64(mat[i][1]) * x[:, 1]) % np.uint64(m)
        acc += (np.uint64(mat[i][2]) * x[:, 2]) % np.uint64(m)
        out[:, i] = acc % np.uint64(m)
    return out


def apply_jump(jump: tuple[Matrix, Matrix], states: np.ndarray) -> np.ndarray:
    """Apply a jump (pair of matrices) to an ``(n, 6)`` array of states; returns uint32."""
    x = np.asarray(states, dtype=np.uint64).reshape(-1, 6)
    out = np.empty_like(x)
    out[:, :3] = _matvec_rows(jump[0], x[:, :3], M1)
    out[:, 3:] = _matvec_rows(jump[1], x[:, 3:], M2)
    return out.astype(np.uint32)


def jump_state(jump: tuple[Matrix, Matrix], state: Sequence[int]) -> tuple[int, ...]:
    """Apply a jump to one state with Python ints."""
    g1 = [sum(jump[0][i][k] * int(state[k]) for k in range(3)) % M1 for i in range(3)]
    g2 = [sum(jump[1][i][k] * int(state[3 + k]) for k in range(3)) % M2 for i in range(3)]
    return tuple(g1 + g2)


def create_stream_states(seed: Sequence[int], count: int, first: int = 0) -> np.ndarray:
    """Initial states of streams ``first .. first+count-1`` for base seed ``seed``.

    Stream ``k`` is ``A^(k 2^134) seed``, the sequence clRNG's ``clrngMrg31k3pCreateStreams``
    produces from a creator whose base state is ``seed``. Computed by doubling: the states of
    streams ``[0, 2^b)`` jumped by ``2^b`` streams give ``[2^b, 2^(b+1))``.
    """
    if count < 0:
        raise ValueError("count must be >= 0")
    out = np.empty((count, 6), dtype=np.uint32)
    if count == 0:
        return out
    out[0] = jump_state(stream_jump(first), seed) if first else tuple(int(s) for s in seed)
    done = 1
    jump = stream_jump(1)
    while done < count:
        take = min(done, count - done)
        out[done : done + take] = apply_jump(jump, out[:take])
        jump = (matmul_mod(jump[0], jump[0], M1), matmul_mod(jump[1], jump[1], M2))
        done += take
    return out


def jump_as_words(jump: tuple[Matrix, Matrix]) -> np.ndarray:
    """A jump as 18 uint32 words (A1 row-major, then A2), the layout the device kernels read."""
    return np.array([v for mat in jump for row in mat for v in row], dtype=np.uint32)


@functools.lru_cache(maxsize=8)
def stream_jump_levels(levels: int) -> np.ndarray:
    """Words of the stream jumps ``J^(2^b)``, ``b < levels`` (shape (levels, 18)), for doubling."""
    out = np.empty((max(levels, 1), 18), dtype=np.uint32)
    jump = stream_jump(1)
    for b in range(levels):
        out[b] = jump_as_words(jump)
        jump = (matmul_mod(jump[0], jump[0], M1), matmul_mod(jump[1], jump[1], M2))
    out.setflags(write=False)
    return out[:levels]


def state_problem(states: np.ndarray) -> str | None:
    """Why an (n, 6) array is not a set of valid states, or None. Vectorised."""
    if states.ndim != 2 or states.shape[1] != 6:
        return f"expected shape (n, 6), got {states.shape}"
    big1 = np.nonzero((states[:, :3] >= M1).any(axis=1))[0]
    big2 = np.nonzero((states[:, 3:] >= M2).any(axis=1))[0]
    zero1 = np.nonzero((states[:, :3] == 0).all(axis=1))[0]
    zero2 = np.nonzero((states[:, 3:] == 0).all(axis=1))[0]
    if big1.size:
        return f"row {big1[0]}: a first-component value is >= m1 = {M1}"
    if big2.size:
        return f"row {big2[0]}: a second-component value is >= m2 = {M2}"
    if zero1.size:
        return f"row {zero1[0]}: the first component (columns 0-2) is all zero"
    if zero2.size:
        return f"row {zero2[0]}: the second component (columns 3-5) is all zero"
    return None


def seed_problem(seed: Sequence[int]) -> str | None:
    """Why ``seed`` is not a valid MRG31k3p state (clRNG's rules), or None if it is."""
    if len(seed) != 6:
        return f"expected 6 integers, got {len(seed)}"
    for i, v in enumerate(seed):
        if v < 0:
            return f"seed[{i}] = {v} is negative"
        limit = M1 if i < 3 else M2
        if v >= limit:
            name = "m1 = 2147483647" if i < 3 else "m2 = 2147462579"
            return f"seed[{i}] = {v} must be below {name}"
    if all(v == 0 for v in seed[:3]):
        return "the first component seed[0:3] must not be all zero"
    if all(v == 0 for v in seed[3:]):
        return "the second component seed[3:6] must not be all zero"
    return None


def seed_from_int(seed: int) -> tuple[int, ...]:
    """Expand a non-negative integer into a valid 6-word seed, reproducibly.

    Uses numpy's ``SeedSequence`` (whose output is stable across numpy versions) to draw six
    32-bit words, reduced modulo m1 (first three) and m2 (last three).
    """
    words = np.random.SeedSequence(int(seed)).generate_state(6, dtype=np.uint32)
    g = [int(w) % M1 for w in words[:3]] + [int(w) % M2 for w in words[3:]]
    if not any(g[:3]):
        g[0] = 1
    if not any(g[3:]):
        g[3] = 1
    return tuple(g)
