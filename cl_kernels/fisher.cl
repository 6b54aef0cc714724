/*
 * Random r x c tables with fixed margins (Patefield's algorithm, AS 159, as R's rcont2) and the
 * Monte Carlo Fisher test (oclstat.fisher).
 *
 * A batch holds K tables. Table t has nr x nc cells (dims[3t], dims[3t + 1]), total n =
 * dims[3t + 2], row totals rows[t * row_stride ...] and column totals cols[t * NC_MAX ...] (the host
 * has dropped empty rows and columns, and ordered them; see oclstat/fisher.py). The kernel
 * draws cell (l, m) for l < nr - 1, m < nc - 1 from its hypergeometric law given the cells
 * drawn before it; the last cell of each row and the last row follow from the margins.
 *
 * Work-item g serves table t = g / S with stream g (S streams per table) and makes resamples
 * b = (round0 + i) * S + g % S for i < n_rounds while b < n_resamples: resample b of a table
 * is always made by the same stream at the same point of it, whatever the device or the way
 * the rounds are cut into launches.
 *
 * For each resample, the statistic is log of the product of the cell factorials in fixed point
 * (sum of logfact[cell], exact integer arithmetic, see hypergeometric.clh); resamples whose
 * statistic reaches threshold[t] (tables at most as probable as the observed one, with R's
 * tolerance) are counted in counts[g]. Optionally the statistics (store & 1) and the tables
 * themselves (store & 2) are written for the rounds of this launch.
 *
 * Build defines: REAL (float or double), NC_MAX (largest nc). The remaining column totals of
 * a work-item live in a private array (CPU schedule, NC_MAX <= 64), in local memory
 * (COLUMN_LOCAL, the GPU schedule: col_local[m * group size + local id], no stack frame), or
 * in the global scratch array `spill` (NC_MAX > 64). HYPER_EXIT_EACH_STEP: see
 * hypergeometric.clh (the same draws with or without it).
 */
#include <oclstat/hypergeometric.clh>

#if defined(COLUMN_LOCAL)
#define COLUMN_LEFT(m) col_local[(m) * get_local_size(0) + get_local_id(0)]
#define DECLARE_COLUMN_LEFT
#elif NC_MAX <= 64
#define COLUMN_LEFT(m) left_in_col[m]
#define DECLARE_COLUMN_LEFT uint left_in_col[NC_MAX]
#else
#define COLUMN_LEFT(m) spill[(size_t)(m) * n_items + g]
#define DECLARE_COLUMN_LEFT
#endif

__kernel void fisher_rcont2_count(__global uint *states, const ulong n_items, const ulong per_table,
                           const ulong n_resamples, const ulong round0, const ulong n_rounds,
                           __global const uint *dims, const ulong row_stride, __global const uint *rows,
                           __global const uint *cols, __global const long *logfact,
                           const REAL scale, __global const long *threshold,
                           __global ulong *counts, const uint store, __global long *stats,
                           __global uint *tables, __global uint *spill,
                           __local uint *col_local)
{
    const ulong g = get_global_id(0);
    if (g >= n_items) return;
    const ulong t = g / per_table;
    const ulong j = g % per_table;
    const uint nr = dims[3 * t], nc = dims[3 * t + 1], n = dims[3 * t + 2];
    __global const uint *row = rows + t * row_stride;
    __global const uint *col = cols + t * NC_MAX;
    const long limit = threshold[t];
    const ulong chunk = n_rounds * per_table; /* resamples per table in this launch */

    mrg31k3p_state st;
    mrg31k3p_load(&st, states, g);
    DECLARE_COLUMN_LEFT;
    ulong count = 0;
    for (ulong i = 0; i < n_rounds; i++) {
        const ulong b = (round0 + i) * per_table + j;
        if (b >= n_resamples) break;
        const ulong slot = t * chunk + i * per_table + j; /* this resample's place in outputs */
        __global uint *table = tables + slot * nr * nc;

        for (uint m = 0; m < nc; m++) COLUMN_LEFT(m) = col[m];
        long stat = 0;
        uint rows_left = n; /* total of rows l .. nr - 1 */
        for (uint l = 0; l + 1 < nr; l++) {
            uint in_row = row[l];
            uint block = rows_left; /* total of rows l.., columns m.. */
            rows_left -= in_row;
            for (uint m = 0; m + 1 < nc; m++) {
                const uint in_col = COLUMN_LEFT(m);
                const uint v = in_row ? oclstat_hypergeometric(&st, in_row, in_col, block,
                                                               logfact, scale)
                                      : 0u;
                block -= in_col;
                COLUMN_LEFT(m) = in_col - v;
                in_row -= v;
                stat += logfact[v];
                if (store & 2u) table[l * nc + m] = v;
            }
            COLUMN_LEFT(nc - 1) -= in_row;
            stat += logfact[in_row];
            if (store & 2u) table[l * nc + nc - 1] = in_row;
        }
        for (uint m = 0; m < nc; m++) {
            const uint v = COLUMN_LEFT(m);
            stat += logfact[v];
            if (store & 2u) table[(nr - 1) * nc + m] = v;
        }

        count += (stat >= limit);
        if (store & 1u) stats[slot] = stat;
    }
    counts[g] += count;
    mrg31k3p_store(&st, states, g);
}

#if LANES > 1
#include <oclstat/hypergeometric_lanes.clh>

/*
 * The same counts with LANES streams of one table per work-item, side by side in vector
 * registers (pocl's CPU drivers, double precision, counts only): work-item w serves table
 * t = w / per_item and its streams j = (w % per_item) * LANES + l for the lanes l with
 * j < per_table, each making the resamples stream j makes in fisher_rcont2_count, from the same
 * draws (hypergeometric_lanes.clh). Lanes past per_table, and lanes whose resamples are done,
 * draw nothing and count nothing.
 */
__kernel void fisher_rcont2_count_lanes(__global uint *states, const ulong per_table,
                                        const ulong per_item, const ulong n_work,
                                        const ulong n_resamples, const ulong round0,
                                        const ulong n_rounds, __global const uint *dims,
                                        const ulong row_stride, __global const uint *rows,
                                        __global const uint *cols, __global const long *logfact,
                                        const REAL scale, __global const long *threshold,
                                        __global ulong *counts)
{
    const ulong w = get_global_id(0);
    if (w >= n_work) return;
    const ulong t = w / per_item;
    const ulong j0 = (w % per_item) * LANES;
    const ulong s0 = t * per_table + j0;
    const uint nr = dims[3 * t], nc = dims[3 * t + 1], n = dims[3 * t + 2];
    __global const uint *row = rows + t * row_stride;
    __global const uint *col = cols + t * NC_MAX;
    const long limit = threshold[t];
    /* lanes j0 + l < per_table are streams of this table; the rest copy stream s0 */
    const uint n_valid = (uint)((per_table - j0) < LANES ? per_table - j0 : LANES);
    mrg31k3p_lanes st;
    lanes_load(&st, states, s0, s0 + n_valid);
    OCLSTAT_LANES_UNION(uint) ids;
    for (uint l = 0; l < LANES; l++) ids.s[l] = l;
    const uintL lane = ids.v;

    uintL left[NC_MAX];
    ulong count[LANES];
    for (uint l = 0; l < LANES; l++) count[l] = 0;
    for (ulong i = 0; i < n_rounds; i++) {
        /* resample b = (round0 + i) * per_table + j0 + l of each lane */
        const ulong first = (round0 + i) * per_table + j0;
        if (first >= n_resamples) break;
        const ulong left_b = n_resamples - first;
        const uint n_active = (uint)(left_b < n_valid ? left_b : n_valid);
        const uintL active = OCLSTAT_MASK_UINT(lane < n_active);

        for (uint m = 0; m < nc; m++) left[m] = (uintL)col[m];
        longL stat = 0;
        uint rows_left = n;
        for (uint l = 0; l + 1 < nr; l++) {
            uintL in_row = (uintL)row[l];
            uintL block = (uintL)rows_left; /* total of rows l.., columns m.. */
            rows_left -= row[l];
            for (uint m = 0; m + 1 < nc; m++) {
                const uintL in_col = left[m];
                const uintL v = oclstat_hypergeometric_lanes(
                    &st, active & OCLSTAT_MASK_UINT(in_row != 0u), in_row, in_col, block,
                    logfact, scale);
                block -= in_col;
                left[m] = in_col - v;
                in_row -= v;
                stat += oclstat_logfact_lanes(logfact, OCLSTAT_AS_ULONGL(v));
            }
            left[nc - 1] -= in_row;
            stat += oclstat_logfact_lanes(logfact, OCLSTAT_AS_ULONGL(in_row));
        }
        for (uint m = 0; m < nc; m++)
            stat += oclstat_logfact_lanes(logfact, OCLSTAT_AS_ULONGL(left[m]));

        OCLSTAT_LANES_UNION(long) s;
        s.v = stat;
        for (uint l = 0; l < n_active; l++) count[l] += (s.s[l] >= limit);
    }
    for (uint l = 0; l < n_valid; l++) counts[s0 + l] += count[l];
    lanes_store(&st, states, s0, s0 + n_valid);
}
#endif
