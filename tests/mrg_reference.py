"""An independent MRG31k3p written directly from L'Ecuyer & Touzin's definition, for tests only.

It shares no code with oclstat: the recurrences are applied with Python integers and ``%``,
jumps are built by repeated squaring of the one-step companion matrices.
"""

from __future__ import annotations

M1 = 2**31 - 1
M2 = 2**31 - 21069


def step(state):
    """One step; returns (new state, output z in [1, m1])."""
    x10, x11, x12, x20, x21, x22 = (int(v) for v in state)
    # x1[n] = 2^22 x1[n-2] + (2^7 + 1) x1[n-3]; the state holds (x[n-1], x[n-2], x[n-3])
    n1 = (2**22 * x11 + (2**7 + 1) * x12) % M1
    # x2[n] = 2^15 x2[n-1] + (2^15 + 1) x2[n-3]
    n2 = (2**15 * x20 + (2**15 + 1) * x22) % M2
    z = (n1 - n2) % M1
    return (n1, x10, x11, n2, x20, x21), (z if z != 0 else M1)


def outputs(state, count):
    """``count`` outputs of the generator started at ``state``, and the final state."""
    out = []
    for _ in range(count):
        state, z = step(state)
        out.append(z)
    return out, state


def _companion(a_nm1, a_nm2, a_nm3):
    return [[a_nm1, a_nm2, a_nm3], [1, 0, 0], [0, 1, 0]]


ONE_STEP_1 = _companion(0, 2**22, 2**7 + 1)
ONE_STEP_2 = _companion(2**15, 0, 2**15 + 1)


def matmul(a, b, m):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3)] for i in range(3)]


def power_of_two(matrix, e, m):
    """matrix^(2^e) mod m by e squarings."""
    for _ in range(e):
        matrix = matmul(matrix, matrix, m)
    return matrix


def apply(mats, state):
    a, b = mats
    s1 = [int(v) for v in state[:3]]
    s2 = [int(v) for v in state[3:]]
    r1 = [sum(a[i][k] * s1[k] for k in range(3)) % M1 for i in range(3)]
    r2 = [sum(b[i][k] * s2[k] for k in range(3)) % M2 for i in range(3)]
    return tuple(r1 + r2)


STREAM_JUMP = (power_of_two(ONE_STEP_1, 134, M1), power_of_two(ONE_STEP_2, 134, M2))
SUBSTREAM_JUMP = (power_of_two(ONE_STEP_1, 72, M1), power_of_two(ONE_STEP_2, 72, M2))


def stream_starts(seed, n):
    """Initial states of streams 0..n-1 (each the previous one jumped 2^134 steps)."""
    states = [tuple(int(v) for v in seed)]
    for _ in range(n - 1):
        states.append(apply(STREAM_JUMP, states[-1]))
    return states
