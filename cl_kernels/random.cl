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
 * Row blocks (ROW_BLOCK > 0, CPU schedules): a work-group's items write rows in blocks of
 * ROW_BLOCK with a barrier between blocks. A CPU runs a work-group's items one after the other
 * between barriers, so without them one item would write its LANES elements of every row
 * before the next item writes the neighbouring ones: with few streams (a short row) each cache
 * line would be written in pieces far apart in time. With the barrier, the group writes a block
 * of rows whole while its lines are still in cache, and the time no longer depends on the
 * stream count. Which element each stream draws is unchanged. GPUs (ROW_BLOCK = 0) coalesce the
 * writes of neighbouring work-items without it.
 *
 * Build defines: REAL (float/double), LANES (1 on GPUs, 4 or 8 on CPUs), ROW_BLOCK.
 */
#include <oclstat/distributions.clh>

#ifndef ROW_BLOCK
#define ROW_BLOCK 0
#endif

/* Between row blocks: the work-group waits for all its items (every item reaches it, so the
 * kernels below never return early when ROW_BLOCK > 0). */
#if ROW_BLOCK > 0
#define ROW_BLOCK_END(r) if (((r) + 1) % ROW_BLOCK == 0) barrier(CLK_GLOBAL_MEM_FENCE)
#else
#define ROW_BLOCK_END(r)
#endif

/* Whether an item may stop early (no barriers to meet). */
inline bool rows_may_stop(void) { return ROW_BLOCK == 0; }

/* The row loop shared by the kernels that make one element per draw: DRAW is an expression of
 * type VEC_T (one value per lane), written as SCALAR_T. Items past the last stream and rows past
 * the end draw nothing but still meet the barriers. Without row blocks (GPUs) the rows whose
 * every lane owns an element go first, with none of the per-row bookkeeping (64-bit index
 * products and tests that cost about as many instructions as the draw itself). */
#define FILL_ONE_PER_DRAW(SCALAR_T, VEC_T, DRAW)                                             \
    const ulong s0 = get_global_id(0) * LANES;                                               \
    const bool active = s0 < n_streams;                                                      \
    if (!active && rows_may_stop()) return;                                                \
    mrg31k3p_lanes st, before;                                                               \
    if (active) lanes_load(&st, states, s0, n_streams);                                      \
    const uint n_valid = active ? lanes_valid(s0, n_streams) : 0;                            \
    ulong r = 0;                                                                             \
    if (ROW_BLOCK == 0 && active) {                                                          \
        const ulong full = lanes_full_rows(row0, n_rows, s0, n_valid, n_streams, n_total);  \
        __global SCALAR_T *p_ = out + s0;                                                    \
        for (; r < full; r++, p_ += n_streams) {                                             \
            const VEC_T v_ = (DRAW);                                                         \
            OCLSTAT_LANES_WRITE(SCALAR_T, p_, v_, n_valid);                                  \
        }                                                                                    \
    }                                                                                        \
    for (; r < n_rows; r++) {                                                                \
        const uint n = active ? lanes_in_row(row0 + r, s0, n_valid, n_streams, n_total) : 0; \
        if (n == 0 && rows_may_stop()) break;                                              \
        if (n > 0) {                                                                         \
            if (n < n_valid) before = st;                                                    \
            const VEC_T v_ = (DRAW);                                                         \
            if (n < n_valid) lanes_keep_first(&st, &before, n);                              \
            OCLSTAT_LANES_WRITE(SCALAR_T, out + r * n_streams + s0, v_, n);                  \
        }                                                                                    \
        ROW_BLOCK_END(r);                                                                    \
    }                                                                                        \
    if (active) lanes_store(&st, states, s0, n_streams)

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
    const bool active = s0 < n_streams;
    if (!active && rows_may_stop()) return;
    mrg31k3p_lanes st, before;
    if (active) lanes_load(&st, states, s0, n_streams);
    const uint n_valid = active ? lanes_valid(s0, n_streams) : 0;
    for (ulong r = 0; r < n_rows; r += 2) {
        const uint n0 = active ? lanes_in_row(row0 + r, s0, n_valid, n_streams, n_total) : 0;
        if (n0 == 0 && rows_may_stop()) break;
        if (n0 > 0) {
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
        ROW_BLOCK_END(r + 1);   /* r + 2 rows done; ROW_BLOCK is even */
    }
    if (active) lanes_store(&st, states, s0, n_streams);
}

/* Unbiased integers in [low, low + n) by mrg31k3p_below (integer-only: identical everywhere).
 * Rejection makes lanes diverge, so each of the work-item's streams runs alone, one row block
 * at a time (the states go back to global memory between blocks). */
__kernel void random_fill_integers(__global uint *states, __global long *out, const ulong n_streams,
                            const ulong row0, const ulong n_rows, const ulong n_total,
                            const long low, const uint n)
{
    const ulong s0 = get_global_id(0) * LANES;
    const ulong block = ROW_BLOCK > 0 ? ROW_BLOCK : n_rows;
    for (ulong b = 0; b < n_rows; b += block) {
        const ulong b_end = min(n_rows, b + block);
        for (ulong s = s0; s < s0 + LANES && s < n_streams; s++) {
            mrg31k3p_state st;
            mrg31k3p_load(&st, states, s);
            for (ulong r = b; r < b_end && (row0 + r) * n_streams + s < n_total; r++)
                out[r * n_streams + s] = low + (long)mrg31k3p_below(&st, n);
            mrg31k3p_store(&st, states, s);
        }
#if ROW_BLOCK > 0
        barrier(CLK_GLOBAL_MEM_FENCE);
#endif
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
