"""Host-side MRG31k3p arithmetic against an independent computation from the definition."""

from __future__ import annotations

import numpy as np
import pytest
from mrg_reference import (
    ONE_STEP_1,
    ONE_STEP_2,
    STREAM_JUMP,
    SUBSTREAM_JUMP,
    apply,
    outputs,
    stream_starts,
)

from oclstat._random import mrg31k3p as m
from oclstat.random import as_seed


def test_moduli_from_the_definition():
    assert m.M1 == 2**31 - 1
    assert m.M2 == 2**31 - 21069


def test_one_step_matrices_match_the_recurrence():
    assert [list(r) for r in m.A1] == ONE_STEP_1
    assert [list(r) for r in m.A2] == ONE_STEP_2
    rng = np.random.default_rng(0)
    for _ in range(20):
        state = tuple(int(v) for v in rng.integers(1, m.M2, size=6))
        _, after = outputs(state, 1)
        assert m.jump_state(m.jump_matrices(1), state) == after


@pytest.mark.parametrize(
    "published, exponent, index",
    [(m.A1P134, 134, 0), (m.A2P134, 134, 1), (m.A1P72, 72, 0), (m.A2P72, 72, 1)],
)
def test_published_jump_matrices_equal_repeated_squaring(published, exponent, index):
    expected = (STREAM_JUMP if exponent == 134 else SUBSTREAM_JUMP)[index]
    assert [list(r) for r in published] == expected


def test_jump_equals_stepping():
    state = (12345, 12345, 12345, 12345, 12345, 12345)
    for steps in (0, 1, 2, 3, 17, 1000):
        _, after = outputs(state, steps)
        assert m.jump_state(m.jump_matrices(steps), state) == after


def test_negative_jump_goes_back():
    state = (1, 2, 3, 4, 5, 6)
    _, ahead = outputs(state, 123)
    assert m.jump_state(m.jump_matrices(-123), ahead) == state
    big = 2**100 + 7
    there = m.jump_state(m.jump_matrices(big), state)
    assert m.jump_state(m.jump_matrices(-big), there) == state


def test_stream_states_chain_like_clrng():
    seed = m.DEFAULT_SEED
    ref = stream_starts(seed, 37)
    got = m.create_stream_states(seed, 37)
    assert [tuple(int(v) for v in row) for row in got] == ref
    assert tuple(got[0]) == seed  # stream 0 is the seed itself


def test_stream_states_from_an_offset():
    seed = (1, 2, 3, 4, 5, 6)
    ref = stream_starts(seed, 20)
    got = m.create_stream_states(seed, 9, first=11)
    assert [tuple(int(v) for v in row) for row in got] == ref[11:20]


def test_vectorised_jump_equals_python_jump():
    rng = np.random.default_rng(1)
    states = np.column_stack(
        [rng.integers(0, m.M1, size=(500, 3)), rng.integers(0, m.M2, size=(500, 3))]
    ).astype(np.uint32)
    got = m.apply_jump(m.substream_jump(1), states)
    for row_in, row_out in zip(states, got, strict=True):
        assert apply(SUBSTREAM_JUMP, row_in) == tuple(int(v) for v in row_out)


@pytest.mark.parametrize(
    "seed, message",
    [
        ((1, 2, 3, 4, 5), "6 integers"),
        ((1, 2, 3, 4, 5, 6, 7), "6 integers"),
        ((m.M1, 1, 1, 1, 1, 1), "below m1"),
        ((1, 1, 1, m.M2, 1, 1), "below m2"),
        ((0, 0, 0, 1, 1, 1), "first component"),
        ((1, 1, 1, 0, 0, 0), "second component"),
        ((-1, 1, 1, 1, 1, 1), "negative"),
    ],
)
def test_bad_seeds_are_rejected_as_clrng_does(seed, message):
    with pytest.raises(ValueError, match=message):
        as_seed(seed)


def test_seed_edge_values_are_accepted():
    assert as_seed((m.M1 - 1, 0, 0, m.M2 - 1, 0, 0)) == (m.M1 - 1, 0, 0, m.M2 - 1, 0, 0)


@pytest.mark.parametrize("bad", [True, "12345", 1.5, None, {"a": 1}])
def test_seed_types(bad):
    with pytest.raises(TypeError, match="seed"):
        as_seed(bad)


def test_int_seed_expansion_is_reproducible_and_valid():
    a, b = as_seed(2024), as_seed(2024)
    assert a == b
    assert as_seed(2025) != a
    assert m.seed_problem(a) is None
    assert all(m.seed_problem(as_seed(s)) is None for s in range(200))
    with pytest.raises(ValueError, match="non-negative"):
        as_seed(-3)


def test_state_problem_finds_bad_rows():
    good = np.array([[1, 2, 3, 4, 5, 6]] * 3, dtype=np.uint32)
    assert m.state_problem(good) is None
    bad = good.copy()
    bad[2, 3:] = 0
    assert "row 2" in m.state_problem(bad)
