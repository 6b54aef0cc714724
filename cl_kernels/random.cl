/*
 * Random streams and draws (oclstat.random).
 *
 * Output layout (the same on every device, whatever LANES is): with S streams and N outputs in
 * C order, output element d is draw number d / S of stream d % S. A launch covers the grid rows
 * [row0, row0 + n_rows) and writes them to `out` from element 0. Work-item i owns the streams
 * LANES*i .. LANES*i + LANES - 1 (see lanes.clh), loads their states once, advances them in
 * registers and stores them back: streams advance in place, once per element they produce.
 *
 * Normal draws use Box-Muller pairs: rows 2j and 2j + 1 of a stream hold the cosine and sine
 * halves of its j-th pair (row0 is even; an unpaired last row drops the sine half, the stream
 * still having drawn both uniforms).
 *
 * Build defines: REAL (float/double), LANES (1 on GPUs, 4 or 8 on CPUs).
 */
#include <oclstat/distributions.clh>

/* The row loop shared by the kernels that make one element per draw: DRAW is an expression of
 * type VEC_T (one value per lane), written as SCALAR_T. */
#define FILL_ONE_PER_DRAW(SCALAR_T, VEC_T, DRAW)                                             \
    const ulong s0 = get_global_id(0) * LANES;                                               \
    if (s0 >= n_streams) return;                                                             \
    mrg31k3p_lanes st, before;                                                               \
    lanes_load(&st, states, s0, n_streams);                                                  \
    const uint n_valid = lanes_valid(s0, n_streams);                                         \
    for (ulong r = 0; r < n_rows; r++) {                                                     \
        const uint n = lanes_in_row(row0 + r, s0, n_valid, n_streams, n_total);             \
        if (n == 0) break;                                                                   \
        if (n < n_valid) before = st;                                                        \
        const VEC_T v_ = (DRAW);                                                             \
        if (n < n_valid) lanes_keep_first(&st, &before, n);                                  \
        OCLSTAT_LANES_WRITE(SCALAR_T, out + r * n_streams + s0, v_, n);                      \
    }                                                                                        \
    lanes_store(&st, states, s0, n_streams)

__kernel void random_fill_uniform(__global uint *states, __global REAL *out, const ulong n_streams,
                           const ulong row0, const ulong n_rows, const ulong n_total,
                           const REAL low, const REAL span)
{
    FILL_ONE_PER_DRAW(REAL, realL, low + span * oclstat_uniform(&st));
}

__kernel void random_fill_exponential(__global uint *states, __global REAL *out, const ulong n_streams,
                               const ulong row0, const ulong n_rows, const ulong n_total,
                               const REAL rate)
{
    FILL_ONE_PER_DRAW(REAL, realL, oclstat_exponential(&st) / rate);
}

/* Raw generator outputs z in [1, m1] (what every U01 is made from). */
__kernel void random_fill_raw(__global uint *states, __global uint *out, const ulong n_streams,
                       const ulong row0, const ulong n_rows, const ulong n_total)
{
    FILL_ONE_PER_DRAW(uint, uintL, lanes_next(&st));
}

__kernel void random_fill_normal(__global uint *states, __global REAL *out, const ulong n_streams,
                          const ulong row0, const ulong n_rows, const ulong n_total,
                          const REAL loc, const REAL scale)
{
    const ulong s0 = get_global_id(0) * LANES;
    if (s0 >= n_streams) return;
    mrg31k3p_lanes st, before;
    lanes_load(&st, states, s0, n_streams);
    const uint n_valid = lanes_valid(s0, n_streams);
    for (ulong r = 0; r < n_rows; r += 2) {
        const uint n0 = lanes_in_row(row0 + r, s0, n_valid, n_streams, n_total);
        if (n0 == 0) break;
        if (n0 < n_valid) before = st;
        realL z1;
        const realL z0 = loc + scale * oclstat_normal_pair(&st, &z1);
        if (n0 < n_valid) lanes_keep_first(&st, &before, n0);
        OCLSTAT_LANES_WRITE(REAL, out + r * n_streams + s0, z0, n0);
        if (r + 1 < n_rows) {
            const uint n1 = lanes_in_row(row0 + r + 1, s0, n_valid, n_streams, n_total);
            const realL w1 = loc + scale * z1;
            if (n1) OCLSTAT_LANES_WRITE(REAL, out + (r + 1) * n_streams + s0, w1, n1);
        }
    }
    lanes_store(&st, states, s0, n_streams);
}

/* Unbiased integers in [low, low + n) by mrg31k3p_below (integer-only: identical everywhere).
 * Rejection makes lanes diverge, so each of the work-item's streams runs alone. */
__kernel void random_fill_integers(__global uint *states, __global long *out, const ulong n_streams,
                            const ulong row0, const ulong n_rows, const ulong n_total,
                            const long low, const uint n)
{
    const ulong s0 = get_global_id(0) * LANES;
    for (ulong s = s0; s < s0 + LANES && s < n_streams; s++) {
        mrg31k3p_state st;
        mrg31k3p_load(&st, states, s);
        for (ulong r = 0; r < n_rows && (row0 + r) * n_streams + s < n_total; r++)
            out[r * n_streams + s] = low + (long)mrg31k3p_below(&st, n);
        mrg31k3p_store(&st, states, s);
    }
}

/* states[dst + i] = J states[src + i] for i < count, where J is jump number `which` in the
 * array `jumps` of 18-word jumps (see mrg31k3p_jump). With src == dst this jumps streams in
 * place; with dst = src + count it doubles a stream set. One state per work-item. */
__kernel void random_jump_streams(__global uint *states, const ulong count, const ulong src,
                           const ulong dst, __global const uint *jumps, const uint which)
{
    const ulong i = get_global_id(0);
    if (i >= count) return;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, src + i);
    mrg31k3p_jump(&st, jumps + 18 * (size_t)which);
    mrg31k3p_store(&st, states, dst + i);
}
