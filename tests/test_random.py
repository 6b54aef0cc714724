"""oclstat.random on the device against the independent reference and against scipy.stats."""

from __future__ import annotations

import numpy as np
import pytest
from mrg_reference import M1, M2, outputs, stream_starts
from scipy import stats

import oclstat.random as ocr
from oclstat import DeviceCapabilityError

U32_NORM = 2.0**-31
#: clRNG's float scale: the double nearest 4.6566126e-10 (its constant has no f suffix, so
#: clRNG forms the product in double and rounds it to float).
CLRNG_FLOAT_NORM = 4.6566126e-10


def clrng_float(z):
    """clRNG's float U01 of outputs z: (float)((double)z * 4.6566126e-10)."""
    return (np.asarray(z, dtype=np.float64) * CLRNG_FLOAT_NORM).astype(np.float32)


def reference_grid(initial, n_total):
    """Raw outputs in oclstat's layout (element d from stream d % S) and the final states."""
    S = len(initial)
    counts = [len(range(s, n_total, S)) for s in range(S)]
    per_stream = []
    finals = []
    for s in range(S):
        out, final = outputs(tuple(int(v) for v in initial[s]), counts[s])
        per_stream.append(out)
        finals.append(final)
    grid = np.array([per_stream[d % S][d // S] for d in range(n_total)], dtype=np.uint32)
    return grid, np.array(finals, dtype=np.uint32)


# ---------------------------------------------------------------------------- streams


@pytest.mark.parametrize("n", [1, 2, 5, 64, 1000, 4099])
def test_streams_on_device_equal_streams_on_host(rt, n):
    host = ocr.create_streams(n)
    dev = ocr.create_streams(n, on_device=True, device=rt)
    assert np.array_equal(host.initial, dev.initial)
    assert np.array_equal(host.current, dev.current)
    assert np.array_equal(host.substream, dev.substream)


def test_default_streams_are_clrngs():
    st = ocr.create_streams(6)
    assert [tuple(int(v) for v in row) for row in st.initial] == stream_starts((12345,) * 6, 6)
    assert st.initial[0].tolist() == [12345] * 6


def test_int_seed_streams_chain_from_the_expanded_seed():
    st = ocr.create_streams(3, seed=99)
    assert [tuple(int(v) for v in r) for r in st.initial] == stream_starts(ocr.as_seed(99), 3)


# ---------------------------------------------------------------------------- exactness


@pytest.mark.parametrize("lane_count", [None, 1, 4, 8])
# (37, 2595): 71 rows, the last cut short, so CPU row blocks (ROW_BLOCK_CPU rows between
# barriers) end mid-launch and some work-items of the last group own no stream.
@pytest.mark.parametrize("n_streams, n_total",
                         [(1, 7), (3, 10), (5, 23), (8, 64), (13, 200), (37, 2595)])
def test_raw_outputs_and_advance_match_reference(rt, lanes, lane_count, n_streams, n_total):
    lanes(lane_count)
    st = ocr.create_streams(n_streams, seed=(1, 2, 3, 4, 5, 6))
    expected, finals = reference_grid(st.initial, n_total)
    got = ocr.random_raw(n_total, streams=st, device=rt)
    assert got.dtype == np.uint32
    assert np.array_equal(got, expected)
    assert np.array_equal(st.current, finals)  # each stream advanced once per element


@pytest.mark.parametrize("lane_count", [None, 1])
def test_uniform_is_clrng_u01_exactly(rt, lanes, lane_count):
    lanes(lane_count)
    st = ocr.create_streams(9)
    expected, _ = reference_grid(st.initial, 100)
    u64 = ocr.uniform(100, streams=st.copy(), device=rt)
    assert np.array_equal(u64, expected.astype(np.float64) * U32_NORM)
    u32 = ocr.uniform(100, streams=st.copy(), dtype=np.float32, device=rt)
    assert u32.dtype == np.float32
    assert np.array_equal(u32, clrng_float(expected))


def _state_with_next_output(z_wanted):
    """A state whose next output is z_wanted (m1 or 1): choose g2 to hit x1 - z."""
    a = (123456789, 987654321, 555555555)
    x1 = (2**22 * a[1] + 129 * a[2]) % M1  # the next first-component value
    assert x1 < M2 - 1
    target = x1 if z_wanted == M1 else x1 - 1
    b0, b1 = 42, 4242
    b2 = ((target - 2**15 * b0) * pow(2**15 + 1, M2 - 2, M2)) % M2
    state = a + (b0, b1, b2)
    (z,), _ = outputs(state, 1)
    assert z == z_wanted
    return np.array([state], dtype=np.uint32)


@pytest.mark.parametrize("z", [M1, 1])
def test_float32_never_reaches_one_or_zero_at_the_extremes(rt, z):
    st = ocr.Streams(_state_with_next_output(z))
    u = ocr.uniform(1, streams=st.copy(), dtype=np.float32, device=rt)[0]
    assert 0.0 < u < 1.0
    assert u == clrng_float(z)
    d = ocr.uniform(1, streams=st.copy(), device=rt)[0]
    assert 0.0 < d < 1.0 and d == z * U32_NORM
    e = ocr.exponential(1, streams=st.copy(), dtype=np.float32, device=rt)[0]
    assert np.isfinite(e) and e > 0


def test_float32_uniforms_stay_inside_the_interval(rt):
    u = ocr.uniform(4_000_000, seed=11, dtype=np.float32, device=rt)
    assert u.min() > 0.0 and u.max() < 1.0


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-13), (np.float32, 2e-5)])
@pytest.mark.parametrize("lane_count", [None, 1])
def test_normal_is_box_muller_on_the_streams(rt, lanes, lane_count, dtype, rtol):
    lanes(lane_count)
    S, N = 7, 61 + 7 * 66  # odd: the last pair of some streams is cut; 76 rows (row blocks)
    st = ocr.create_streams(S, seed=5)
    got = ocr.normal(N, streams=st.copy(), dtype=dtype, device=rt)
    expected = np.empty(N)
    for s in range(S):
        mine = list(range(s, N, S))
        n_pairs = (len(mine) + 1) // 2
        raw, _ = outputs(tuple(int(v) for v in st.initial[s]), 2 * n_pairs)
        u = np.array(raw, dtype=np.float64) * U32_NORM
        if dtype == np.float32:
            u = clrng_float(raw).astype(np.float64)
        r = np.sqrt(-2 * np.log(u[0::2]))
        z = np.empty(2 * n_pairs)
        z[0::2] = r * np.cos(2 * np.pi * u[1::2])
        z[1::2] = r * np.sin(2 * np.pi * u[1::2])
        expected[mine] = z[: len(mine)]
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)
    after = st.copy()
    ocr.normal(N, streams=after, device=rt)
    counts = [2 * ((len(range(s, N, S)) + 1) // 2) for s in range(S)]
    for s in range(S):  # each stream drew both uniforms of every pair it started
        _, final = outputs(tuple(int(v) for v in st.initial[s]), counts[s])
        assert tuple(int(v) for v in after.current[s]) == final


def test_exponential_is_minus_log_u_over_rate(rt):
    st = ocr.create_streams(5, seed=8)
    expected, _ = reference_grid(st.initial, 50)
    e = ocr.exponential(50, streams=st, rate=2.5, device=rt)
    np.testing.assert_allclose(e, -np.log(expected * U32_NORM) / 2.5, rtol=1e-14)


def test_location_scale_and_interval(rt):
    st = ocr.create_streams(16, seed=3)
    u = ocr.uniform(200, streams=st.copy(), device=rt)
    np.testing.assert_allclose(
        ocr.uniform(200, streams=st.copy(), low=-2, high=6, device=rt), -2 + 8 * u, rtol=1e-15
    )
    z = ocr.normal(200, streams=st.copy(), device=rt)
    np.testing.assert_allclose(
        ocr.normal(200, streams=st.copy(), loc=3, scale=0.5, device=rt), 3 + 0.5 * z, rtol=1e-14
    )


def _integers_reference(initial, n_total, low, n):
    S = len(initial)
    states = [tuple(int(v) for v in row) for row in initial]
    out = np.empty(n_total, dtype=np.int64)
    limit = M1 - M1 % n
    per = {s: [] for s in range(S)}
    for s in range(S):
        st = states[s]
        for _ in range(len(range(s, n_total, S))):
            while True:
                (z,), st = outputs(st, 1)
                if z - 1 < limit:
                    break
            per[s].append(low + (z - 1) % n)
    for d in range(n_total):
        out[d] = per[d % S][d // S]
    return out


@pytest.mark.parametrize(
    "low, high", [(0, 10), (-5, 3), (7, 8), (0, 2**31 - 1), (10, 1_000_000_007)]
)
def test_integers_match_reference_rejection(rt, low, high):
    st = ocr.create_streams(6, seed=21)
    for size in (40, 6 * 70 + 3):   # one row block; several, the last row cut short
        got = ocr.integers(low, high, size=size, streams=st.copy(), device=rt)
        assert np.array_equal(got, _integers_reference(st.initial, size, low, high - low))


def test_integers_are_uniform(rt):
    x = ocr.integers(0, 7, size=700_000, seed=4, device=rt)
    counts = np.bincount(x, minlength=7)
    assert stats.chisquare(counts).pvalue > 1e-3


# ---------------------------------------------------------------------------- distributions


@pytest.mark.slow
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_distributions_pass_ks_on_a_million_draws(rt, dtype):
    n = 10**6
    u = ocr.uniform(n, seed=101, dtype=dtype, device=rt)
    z = ocr.normal(n, seed=102, dtype=dtype, device=rt)
    e = ocr.exponential(n, seed=103, dtype=dtype, device=rt, rate=3.0)
    assert stats.kstest(u, "uniform").pvalue > 1e-3
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert stats.kstest(e, "expon", args=(0, 1 / 3)).pvalue > 1e-3
    # moments within 5 standard errors
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    assert abs(z.mean()) < 5 / np.sqrt(n)
    assert abs(z.var() - 1) < 5 * np.sqrt(2 / n)
    assert abs(stats.skew(z)) < 5 * np.sqrt(6 / n)
    assert abs(stats.kurtosis(z)) < 5 * np.sqrt(24 / n)
    assert abs(e.mean() - 1 / 3) < 5 * (1 / 3) / np.sqrt(n)


def test_streams_are_not_correlated(rt):
    st = ocr.create_streams(64, seed=9)
    z = ocr.normal((500, 64), streams=st, device=rt)  # column s is stream s
    c = np.corrcoef(z.T)
    off = c[~np.eye(64, dtype=bool)]
    assert np.abs(off).max() < 5 / np.sqrt(500) * 1.6
    assert abs(off.mean()) < 3 / np.sqrt(500 * off.size)


def test_uniform_p_values_are_calibrated(rt):
    # 2000 tests of 200 uniforms each: the KS p-values must themselves be uniform.
    u = ocr.uniform((2000, 200), seed=77, device=rt)
    p = np.array([stats.kstest(row, "uniform").pvalue for row in u])
    assert stats.kstest(p, "uniform").pvalue > 1e-3


# ---------------------------------------------------------------------------- seeds and layout


def test_same_seed_same_draws_and_prefix_property(rt):
    a = ocr.normal(300_001, seed=5, device=rt)
    b = ocr.normal(300_001, seed=5, device=rt)
    assert np.array_equal(a, b)
    assert not np.array_equal(a[:100], ocr.normal(100, seed=6, device=rt))
    small = ocr.uniform(10, seed=5, device=rt)
    assert np.array_equal(ocr.uniform(1000, seed=5, device=rt)[:10], small)


def test_seed_draws_use_min_n_2_18_streams(rt):
    n = ocr.MAX_DEFAULT_STREAMS + 5
    got = ocr.random_raw(n, seed=(1, 1, 1, 1, 1, 1), device=rt)
    st = ocr.create_streams(ocr.MAX_DEFAULT_STREAMS, seed=(1, 1, 1, 1, 1, 1))
    assert np.array_equal(got, ocr.random_raw(n, streams=st, device=rt))
    assert got[0] == outputs((1, 1, 1, 1, 1, 1), 1)[0][0]
    assert got[ocr.MAX_DEFAULT_STREAMS] == outputs((1, 1, 1, 1, 1, 1), 2)[0][1]


def test_shapes_and_dtypes(rt):
    assert ocr.uniform((3, 4), seed=1, device=rt).shape == (3, 4)
    assert ocr.normal(0, seed=1, device=rt).shape == (0,)
    assert ocr.integers(5, size=(2, 2), seed=1, device=rt).dtype == np.int64
    assert ocr.exponential((2, 0, 3), seed=1, device=rt).shape == (2, 0, 3)


def test_draws_into_a_device_array(rt):
    import pyopencl.array as cla

    st = ocr.create_streams(32, seed=4)
    arr = cla.empty(rt.queue, 1000, np.float64)
    ocr.normal(1000, streams=st.copy(), device=rt, out=arr)
    assert np.array_equal(arr.get(), ocr.normal(1000, streams=st.copy(), device=rt))
    with pytest.raises(ValueError, match="must hold 999 elements"):
        ocr.normal(999, streams=st.copy(), device=rt, out=arr)
    with pytest.raises(TypeError, match="dtype"):
        ocr.normal(1000, streams=st.copy(), dtype=np.float32, device=rt, out=arr)


def test_chunked_draws_equal_one_launch(rt, monkeypatch):
    st = ocr.create_streams(100, seed=13)
    whole = ocr.normal(5003, streams=st.copy(), device=rt)
    monkeypatch.setattr(type(rt), "max_items", lambda self, b, fraction=0.5: 3)
    chunked = ocr.normal(5003, streams=st.copy(), device=rt)
    assert np.array_equal(whole, chunked)
    raw_whole = ocr.random_raw(777, streams=st.copy(), device=rt)
    monkeypatch.setattr(type(rt), "max_items", lambda self, b, fraction=0.5: 1)
    assert np.array_equal(raw_whole, ocr.random_raw(777, streams=st.copy(), device=rt))


# ---------------------------------------------------------------------------- Streams object


def test_streams_advance_in_place_and_continue(rt):
    st = ocr.create_streams(4)
    first = ocr.random_raw(8, streams=st, device=rt)
    second = ocr.random_raw(8, streams=st, device=rt)
    both, _ = reference_grid(ocr.create_streams(4).initial, 16)
    # element d of the 16-grid: stream d % 4, draw d // 4; two 8-draws give draws 0-1 then 2-3
    assert np.array_equal(np.concatenate([first, second]), both)


def test_advance_equals_drawing(rt):
    st = ocr.create_streams(3)
    drawn = st.copy()
    ocr.random_raw(3 * 50, streams=drawn, device=rt)
    assert np.array_equal(st.copy().advance(50).current, drawn.current)
    assert np.array_equal(drawn.advance(-50).current, st.current)


def test_substreams(rt):
    st = ocr.create_streams(2)
    ocr.random_raw(10, streams=st, device=rt)
    st.rewind_substreams()
    assert np.array_equal(st.current, st.initial)
    st.forward_substreams()
    expected = ocr.create_streams(2).advance(2**72)
    assert np.array_equal(st.current, expected.current)
    assert np.array_equal(st.substream, expected.current)
    ocr.random_raw(6, streams=st, device=rt)
    st.rewind_substreams()
    assert np.array_equal(st.current, expected.current)
    st.rewind()
    assert np.array_equal(st.current, st.initial) and np.array_equal(st.substream, st.initial)


def test_make_substreams_like_clrng():
    parent = ocr.create_streams(2)
    subs = parent.make_substreams(3, stream=1)
    base = ocr.create_streams(2).initial[1:2]
    for i in range(3):
        assert np.array_equal(subs.current[i], ocr.Streams(base).advance(i * 2**72).current[0])
        assert np.array_equal(subs.initial[i], base[0])
    assert np.array_equal(parent.current[1], ocr.Streams(base).advance(3 * 2**72).current[0])
    assert np.array_equal(parent.current[0], ocr.create_streams(1).initial[0])


def test_spawn_continues_the_clrng_sequence():
    st = ocr.create_streams(3)
    a = st.spawn(2)
    b = st.spawn(4)
    all9 = ocr.create_streams(9).initial
    assert np.array_equal(a.initial, all9[3:5])
    assert np.array_equal(b.initial, all9[5:9])
    assert np.array_equal(a.spawn(1).initial, ocr.Streams(all9[4:5]).spawn(1).initial)


def test_save_load_round_trip(rt, tmp_path):
    st = ocr.create_streams(5, seed=17)
    ocr.normal(23, streams=st, device=rt)
    st.forward_substreams()
    ocr.uniform(7, streams=st, device=rt)
    path = tmp_path / "streams.npz"
    st.save(path)
    back = ocr.Streams.load(path)
    assert back == st
    assert back.next_seed == st.next_seed
    assert np.array_equal(
        ocr.normal(50, streams=back, device=rt), ocr.normal(50, streams=st, device=rt)
    )


def test_load_rejects_other_files(tmp_path):
    path = tmp_path / "x.npz"
    np.savez(path, a=np.arange(3))
    with pytest.raises(ValueError, match="not an oclstat Streams file"):
        ocr.Streams.load(path)
    with pytest.raises(FileNotFoundError, match="missing.npz: no such file"):
        ocr.Streams.load(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not a Streams file\n")
    with pytest.raises(ValueError, match="not an oclstat Streams file .Streams.save writes"):
        ocr.Streams.load(tmp_path / "text.npz")



def test_streams_from_a_column_major_matrix(rt):
    """A Fortran-ordered matrix (as R and pandas hand over) gives the same streams: their
    states were read back from the device in memory order, transposed."""
    f = np.asfortranarray(ocr.create_streams(3, seed=4).to_matrix(substream=False))
    st, ref = ocr.Streams.from_matrix(f), ocr.create_streams(3, seed=4)
    assert np.array_equal(ocr.uniform(7, streams=st, device=rt),
                          ocr.uniform(7, streams=ref, device=rt))
    assert np.array_equal(st.to_matrix(substream=False), ref.to_matrix(substream=False))


def test_state_dict_round_trip(rt):
    st = ocr.create_streams(4, seed=2)
    ocr.uniform(9, streams=st, device=rt)
    saved = st.state
    assert saved["bit_generator"] == "MRG31k3p"
    x = ocr.uniform(20, streams=st, device=rt)
    st.state = saved
    assert np.array_equal(ocr.uniform(20, streams=st, device=rt), x)
    with pytest.raises(ValueError, match="bit_generator"):
        st.state = {**saved, "bit_generator": "PCG64"}
    with pytest.raises(ValueError, match="missing"):
        st.state = {"bit_generator": "MRG31k3p"}


def test_gpurandom_matrix_round_trip():
    st = ocr.create_streams(3)
    mat = st.to_matrix()
    assert mat.shape == (3, 18) and mat.dtype == np.int32
    assert np.array_equal(ocr.Streams.from_matrix(mat).substream, st.substream)
    assert ocr.Streams.from_matrix(st.to_matrix(substream=False)) == st
    with pytest.raises(ValueError, match="n x 12 or n x 18"):
        ocr.Streams.from_matrix(np.zeros((2, 7)))


def test_indexing_and_copy(rt):
    st = ocr.create_streams(6)
    sub = st[2:4]
    assert np.array_equal(sub.initial, st.initial[2:4])
    c = st.copy()
    ocr.uniform(6, streams=c, device=rt)
    assert np.array_equal(st.current, st.initial)
    with pytest.raises(IndexError):
        st[10:20]


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (lambda: ocr.uniform(-1, seed=1), ValueError, "size must be non-negative"),
        (lambda: ocr.uniform((2, -3), seed=1), ValueError, "size must be non-negative"),
        (lambda: ocr.uniform(2.5, seed=1), TypeError, "size"),
        (lambda: ocr.uniform("10", seed=1), TypeError, "size"),
        (lambda: ocr.uniform(5, seed=(1, 2, 3)), ValueError, "6 integers"),
        (lambda: ocr.uniform(5, seed=(2**31, 1, 1, 1, 1, 1)), ValueError, "below m1"),
        (lambda: ocr.uniform(5, seed=(0, 0, 0, 0, 0, 0)), ValueError, "all zero"),
        (lambda: ocr.uniform(5, seed=-2), ValueError, "non-negative"),
        (lambda: ocr.uniform(5, seed=1, dtype=np.int32), TypeError, "dtype"),
        (lambda: ocr.uniform(5, seed=1, low=1, high=1), ValueError, "high must be greater"),
        (lambda: ocr.uniform(5, seed=1, low=np.nan), ValueError, "low must be finite"),
        (lambda: ocr.normal(5, seed=1, scale=-1), ValueError, "scale must be >= 0"),
        (lambda: ocr.exponential(5, seed=1, rate=0), ValueError, "rate must be > 0"),
        (lambda: ocr.exponential(5, seed=1, rate=np.inf), ValueError, "rate must be finite"),
        (lambda: ocr.integers(3, 3, seed=1), ValueError, "high must be greater"),
        (lambda: ocr.integers(0, 2**32, seed=1), ValueError, "at most 2\\*\\*31 - 1"),
        (lambda: ocr.uniform(5, streams=np.zeros((2, 6))), TypeError, "Streams"),
        (lambda: ocr.uniform(5, streams=ocr.create_streams(1), seed=1), ValueError, "not both"),
        (lambda: ocr.create_streams(0), ValueError, "n must be >= 1"),
        (lambda: ocr.create_streams(-4), ValueError, "n must be >= 1"),
        (lambda: ocr.create_streams(2.5), TypeError, "n must be an integer"),
        (lambda: ocr.Streams(np.zeros((2, 6), dtype=np.uint32)), ValueError, "all zero"),
        (lambda: ocr.Streams(np.ones((2, 5), dtype=np.uint32)), ValueError, "shape"),
        (lambda: ocr.Streams(np.full((1, 6), 2**31)), ValueError, ">= m1"),
        (lambda: ocr.Streams(np.ones((1, 6)) * 0.5), TypeError, "integers"),
        (lambda: ocr.Streams(-np.ones((1, 6), dtype=np.int64)), ValueError, "negative"),
        (lambda: ocr.create_streams(2).spawn(0), ValueError, "n must be >= 1"),
        (lambda: ocr.create_streams(2).advance(1.5), TypeError, "steps"),
        (lambda: ocr.create_streams(2).make_substreams(2, stream=5), ValueError, "stream"),
    ],
)
def test_bad_arguments_raise_clear_errors(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_float64_on_a_device_without_it_is_a_clear_error(rt, monkeypatch):
    import dataclasses

    monkeypatch.setattr(rt, "info", dataclasses.replace(rt.info, fp64=False))
    with pytest.raises(DeviceCapabilityError, match="float32"):
        ocr.normal(10, seed=1, device=rt)
    assert ocr.normal(10, seed=1, dtype=np.float32, device=rt).dtype == np.float32
