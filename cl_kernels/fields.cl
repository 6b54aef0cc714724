/*
 * Gaussian random fields (oclstat.fields): batched Matérn covariance, batched LDL^T and
 * L D^(1/2) Z. Matrices are row-major, n x n, one after the other (matrix b at b * n * n).
 *
 *   matern_cov        elements (i, j <= i) of covariance matrix p (and (j, i) with mirror), from
 *                     the coordinates and per-parameter-set constants (oclstat/matern.clh); a
 *                     work-group per row, its work-items striding along it.
 *   matern_setup      the per-parameter-set tables of matern.clh's fast path.
 *   ldl_diag_block    LDL^T of the diagonal block [k0, k1) of every matrix (one work-group per
 *                     matrix, left-looking by column); a pivot that is not positive among the
 *                     first n_check is recorded (the rest may be negative: bordered matrices).
 *   ldl_panel_rows    rows k1.. of the panel: each row solved against the diagonal block on its
 *                     own (one work-item per (matrix, row)), L[i, c] = (A[i, c] - sum) / D[c].
 *   ldl_trailing      A22 -= L21 D1 L21^T on the lower triangle, tiles of 4 TS x 4 TS per
 *                     work-group of TS x TS (4 x 4 per work-item) for every matrix at once, so a
 *                     few large matrices fill the device as well as many small ones.
 *   ldl_panel_packed  the rows below the diagonal block for CPUs: copied in micro-panels of 8
 *                     rows (P[c][q], contiguous per 8 rows) and solved there right-looking.
 *   ldl_trailing_outer  the trailing update for CPUs: each work-item accumulates a 4 x 8 block
 *                     as a sum of outer products over t, from two micro-panels.
 *   ldl_finalize      unit diagonal (or sqrt(D) columns for Cholesky) and zeros above it.
 *   ldl_whole         CPUs, small matrices (n <= WHOLE_MAX): one work-item factors a whole
 *                     matrix (right-looking, contiguous row updates on the upper triangle) and
 *                     finalizes it: one launch, the matrix read from memory once and then
 *                     worked on in cache.
 *   lower_times       out[b, s, i] = sum_{j <= i} L[b, i, j] w[b, j] z[b, s, j], w = sqrt(D) (or D
 *                     or 1), the fields from standard normals z.
 *
 * Build defines: REAL (float or double), TS (tile size of ldl_trailing), WHOLE_MAX (largest n
 * of ldl_whole), LDL_GROUP (its pivots per sweep) and LDL_NOT_FINITE (its flag for a matrix
 * that is not finite), MATERN_* (matern.clh).
 */
#include <oclstat/real.clh>

#include <oclstat/cpu.clh>
#include <oclstat/matern.clh>

#define REAL_N_(r, n) r##n
#define REAL_N(r, n) REAL_N_(r, n)
#define REAL4 REAL_N(REAL, 4)
#define REAL8 REAL_N(REAL, 8)

/* consts[p * 9 + .], cheb[p * MATERN_TABLE + .]: oclstat/matern.clh's (REAL: no fp64 needed in
 * float). */
__kernel void fields_matern_cov(__global const REAL *coords, __global const REAL *consts,
                         __global const REAL *cheb, const uint n, const uint n_params,
                         __global REAL *out, const int mirror)
{
    const uint i = get_global_id(1), p = get_global_id(2);   /* row i, lower triangle */
    if (i >= n || p >= n_params) return;
    __global REAL *m = out + (ulong)p * n * n;
#if MATERN_FAST && defined(LANES) && LANES > 1
    __global const REAL *c = consts + 9 * (ulong)p;
    for (uint j0 = get_global_id(0) * LANES; j0 <= i; j0 += get_global_size(0) * LANES) {
        OCLSTAT_LANES_UNION(REAL) v;
        v.v = oclstat_matern_lanes(c, cheb + MATERN_TABLE * (ulong)p, coords, coords[2 * i],
                                   coords[2 * i + 1], j0, i);
        for (uint l = 0; l < LANES && j0 + l <= i; l++) {
            const uint j = j0 + l;
            const REAL value = j == i ? c[7] + c[6] : v.s[l];
            m[(ulong)i * n + j] = value;
            if (mirror) m[(ulong)j * n + i] = value;
        }
    }
#else
    for (uint j = get_global_id(0); j <= i; j += get_global_size(0)) {
        const REAL value = oclstat_matern(consts + 9 * (ulong)p, cheb + MATERN_TABLE * (ulong)p,
                                          coords[2 * i] - coords[2 * j],
                                          coords[2 * i + 1] - coords[2 * j + 1], i == j);
        m[(ulong)i * n + j] = value;
        if (mirror) m[(ulong)j * n + i] = value;
    }
#endif
}

/* The Matérn tables of n_params parameter sets (oclstat/matern.clh), one work-item each. */
__kernel void fields_matern_setup(__global const REAL *consts, const uint n_params,
                                  __global REAL *tables)
{
    const uint p = get_global_id(0);
    if (p >= n_params) return;
    oclstat_matern_setup(consts[9 * (ulong)p + 5], tables + MATERN_TABLE * (ulong)p);
}

/* D[c] = A[c, c] - sum_{k0 <= t < c} L[c, t]^2 D[t]; then L[r, c] for r in (c, k1), written
 * also at [c, r] (the block's upper triangle is scratch until ldl_finalize zeroes it). */
__kernel void fields_ldl_diag_block(__global REAL *a, __global REAL *dg, const uint n, const uint k0,
                             const uint k1, __global int *bad, const uint n_check)
{
    const uint b = get_group_id(0), lid = get_local_id(0), L = get_local_size(0);
    __global REAL *m = a + (ulong)b * n * n;
    __global REAL *dd = dg + (ulong)b * n;
    for (uint c = k0; c < k1; c++) {
        if (lid == 0) {
            REAL s = m[(ulong)c * n + c];
            for (uint t = k0; t < c; t++) s -= m[(ulong)c * n + t] * m[(ulong)c * n + t] * dd[t];
            dd[c] = s;
            if (c < n_check && !(s > (REAL)0) && bad[b] < 0) bad[b] = (int)c;
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
        const REAL dc = dd[c];
        for (uint r = c + 1 + lid; r < k1; r += L) {
            REAL s = m[(ulong)r * n + c];
            for (uint t = k0; t < c; t++) s -= m[(ulong)r * n + t] * dd[t] * m[(ulong)c * n + t];
            m[(ulong)r * n + c] = s / dc;
            m[(ulong)c * n + r] = s / dc;   /* and L^T above the diagonal, for ldl_panel_packed */
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

__kernel void fields_ldl_panel_rows(__global REAL *a, __global const REAL *dg, const uint n,
                             const uint k0, const uint k1, const uint n_mat)
{
    const uint r = k1 + get_global_id(0), b = get_global_id(1);
    if (r >= n || b >= n_mat) return;
    __global REAL *m = a + (ulong)b * n * n;
    __global const REAL *dd = dg + (ulong)b * n;
    __global REAL *row = m + (ulong)r * n;
    for (uint c = k0; c < k1; c++) {
        REAL s = row[c];
        __global const REAL *lc = m + (ulong)c * n;
        for (uint t = k0; t < c; t++) s -= row[t] * dd[t] * lc[t];
        row[c] = s / dd[c];
    }
}

/* The rows below the diagonal block in the CPU schedule. Work-item g copies rows k1 + 8g ..
 * k1 + 8g + 7 of the panel (columns k0 .. k1 - 1) into its micro-panel of p, P[c][q] =
 * A[k1 + 8g + q][k0 + c] (8 x kb, c-major, zeros past the last row), and solves them there
 * right-looking: column c is divided by D[c], written to the matrix and (times D[c]) to the
 * same place of pd, and taken off the later columns at once, A[., c'] -= (L[., c] D[c])
 * L[c', c] for c' > c (L[c', c] read along row c of the diagonal block's upper triangle, where
 * ldl_diag_block put it). Each element sees ldl_panel_rows's subtractions in its order (c
 * ascending), and the 8 rows x (kb - c) independent updates keep the CPU's pipelines full
 * where a dot product per column would wait on its own sum. */
__kernel void fields_ldl_panel_packed(__global REAL *a, __global const REAL *dg, __global REAL *p,
                                      __global REAL *pd, const uint n, const uint k0,
                                      const uint k1, const uint stride)
{
    const uint g = get_global_id(0), b = get_global_id(1);
    const uint kb = k1 - k0, rest = n - k1, r0 = 8 * g;
    if (r0 >= rest) return;
    const uint rows = min(8u, rest - r0);
    __global REAL *m = a + (ulong)b * n * n;
    __global const REAL *dd = dg + (ulong)b * n + k0;
    __global REAL *blk = p + (ulong)b * kb * stride + (ulong)r0 * kb;
    __global REAL *blkd = pd + (ulong)b * kb * stride + (ulong)r0 * kb;
    __global REAL *src = m + (ulong)(k1 + r0) * n + k0;
    for (uint q = 0; q < 8; q++)
        for (uint c = 0; c < kb; c++) blk[8 * c + q] = q < rows ? src[(ulong)q * n + c] : (REAL)0;
    for (uint c = 0; c < kb; c++) {
        __global REAL4 *pc = (__global REAL4 *)(blk + 8 * c);
        const REAL d = dd[c];
        const REAL4 lo = pc[0] / d, hi = pc[1] / d;
        pc[0] = lo;
        pc[1] = hi;
        const REAL v[8] = {lo.s0, lo.s1, lo.s2, lo.s3, hi.s0, hi.s1, hi.s2, hi.s3};
        for (uint q = 0; q < rows; q++) src[(ulong)q * n + c] = v[q];
        const REAL4 wlo = lo * d, whi = hi * d;
        __global REAL4 *pdc = (__global REAL4 *)(blkd + 8 * c);
        pdc[0] = wlo;
        pdc[1] = whi;
        __global const REAL *lc = m + (ulong)(k0 + c) * n + k0; /* lc[c'] = L[k0 + c'][k0 + c] */
        for (uint c2 = c + 1; c2 < kb; c2++) {
            __global REAL4 *pc2 = (__global REAL4 *)(blk + 8 * c2);
            const REAL l = lc[c2];
            pc2[0] -= wlo * l;
            pc2[1] -= whi * l;
        }
    }
}

/* A[i, j] -= sum_{t in [k0, k1)} L[i, t] D[t] L[j, t] for k1 <= j <= i < n. A work-group of
 * TS x TS work-items updates a tile of TS RB x TS RB elements, each work-item RB x RB of them
 * in registers (rows x + TS u, columns y + TS v: neighbouring work-items read neighbouring
 * local words), the panel's columns staged TS at a time: 2 RB local reads per RB^2 multiply-
 * adds (one element per work-item read 2 per 1, and local memory, not arithmetic, set the
 * pace). Each sum runs over t in increasing order, as in every schedule. */
#define TRAIL_ROWS (TS * TRAIL_RB) /* TRAIL_RB from oclstat/_constants.py */
__kernel void fields_ldl_trailing(__global REAL *a, __global const REAL *dg, const uint n,
                           const uint k0, const uint k1)
{
    __local REAL li[TS][TRAIL_ROWS + 1], lj[TS][TRAIL_ROWS + 1];
    const uint ti = get_group_id(0), tj = get_group_id(1), b = get_group_id(2);
    if (tj > ti) return;                         /* whole tile above the diagonal */
    const uint x = get_local_id(0), y = get_local_id(1);
    const uint bi = k1 + ti * TRAIL_ROWS, bj = k1 + tj * TRAIL_ROWS;
    __global REAL *m = a + (ulong)b * n * n;
    __global const REAL *dd = dg + (ulong)b * n;
    REAL acc[TRAIL_RB][TRAIL_RB];
    for (uint u = 0; u < TRAIL_RB; u++)
        for (uint v = 0; v < TRAIL_RB; v++) acc[u][v] = (REAL)0;
    for (uint t0 = k0; t0 < k1; t0 += TS) {
        /* li[s][r] = L[bi + r, t0 + s] D[t0 + s], lj[s][r] = L[bj + r, t0 + s]: work-item
         * (x, y) stages column s = x of rows y + TS u (neighbours read neighbouring words) */
        const uint t = t0 + x;
        for (uint u = 0; u < TRAIL_RB; u++) {
            const uint r = y + TS * u, ri = bi + r, rj = bj + r;
            li[x][r] = (ri < n && t < k1) ? m[(ulong)ri * n + t] * dd[t] : (REAL)0;
            lj[x][r] = (rj < n && t < k1) ? m[(ulong)rj * n + t] : (REAL)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = 0; s < TS; s++) {
            REAL ai[TRAIL_RB], aj[TRAIL_RB];
            for (uint u = 0; u < TRAIL_RB; u++) {
                ai[u] = li[s][x + TS * u];
                aj[u] = lj[s][y + TS * u];
            }
            for (uint u = 0; u < TRAIL_RB; u++)
                for (uint v = 0; v < TRAIL_RB; v++) acc[u][v] += ai[u] * aj[v];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (uint u = 0; u < TRAIL_RB; u++) {
        const uint i = bi + x + TS * u;
        for (uint v = 0; v < TRAIL_RB; v++) {
            const uint j = bj + y + TS * v;
            if (i < n && j <= i) m[(ulong)i * n + j] -= acc[u][v];
        }
    }
}

/* Rows i0 .. i0 + 3 and columns j0 .. j0 + 7 of the trailing update per work-item: four
 * rank-1 updates of an 8-vector per t, read from ldl_panel_packed's micro-panels (8 rows by kb
 * columns, contiguous: two sequential streams per work-item), L D for the rows and L for the
 * columns. */
__kernel void fields_ldl_trailing_outer(__global REAL *a, __global const REAL *p,
                                        __global const REAL *pd, const uint n, const uint k0,
                                        const uint k1, const uint stride)
{
    const uint j0 = get_global_id(0) * 8, i0 = get_global_id(1) * 4, b = get_global_id(2);
    const uint rest = n - k1, kb = k1 - k0;
    if (j0 >= rest || i0 >= rest || j0 > i0 + 3) return;
    __global const REAL *pb = p + (ulong)b * kb * stride;
    __global const REAL8 *pj = (__global const REAL8 *)(pb + (ulong)j0 * kb);
    __global const REAL *pi = pd + (ulong)b * kb * stride + (ulong)(i0 & ~7u) * kb + (i0 & 7u);
    REAL8 acc0 = (REAL8)(0), acc1 = (REAL8)(0), acc2 = (REAL8)(0), acc3 = (REAL8)(0);
    for (uint t = 0; t < kb; t++) {
        const REAL8 lj = pj[t];
        __global const REAL *li = pi + 8 * t;   /* L[i][t] D[t], as ldl_panel_packed rounded it */
        acc0 += li[0] * lj;
        acc1 += li[1] * lj;
        acc2 += li[2] * lj;
        acc3 += li[3] * lj;
    }
    __global REAL *m = a + (ulong)b * n * n;
    for (uint r = 0; r < 4; r++) {
        const uint ir = i0 + r;
        if (ir >= rest) break;
        const REAL8 v = r == 0 ? acc0 : r == 1 ? acc1 : r == 2 ? acc2 : acc3;
        const REAL row[8] = {v.s0, v.s1, v.s2, v.s3, v.s4, v.s5, v.s6, v.s7};
        for (uint c = 0; c < 8; c++) {
            const uint jr = j0 + c;
            if (jr <= ir && jr < rest) m[(ulong)(k1 + ir) * n + k1 + jr] -= row[c];
        }
    }
}

/* mode 0: unit lower L (LDL^T); mode 1: L sqrt(D) (Cholesky). Zeros above the diagonal. */
__kernel void fields_ldl_finalize(__global REAL *a, __global const REAL *dg, const uint n,
                           const uint n_mat, const int mode)
{
    const uint i = get_global_id(0), j = get_global_id(1), b = get_global_id(2);
    if (i >= n || j >= n || b >= n_mat) return;
    __global REAL *m = a + (ulong)b * n * n;
    const ulong at = (ulong)i * n + j;
    if (j > i) m[at] = (REAL)0;
    else if (mode == 0) { if (j == i) m[at] = (REAL)1; }
    else {
        const REAL s = sqrt(dg[(ulong)b * n + j]);
        m[at] = j == i ? s : m[at] * s;
    }
}

#ifdef WHOLE_MAX
/* LDL^T of matrix b of src into a, finalized as ldl_finalize's mode (0: unit L, 1: L sqrt(D));
 * bad[b] gets the first pivot that is not positive among the first n_check, -1 if none, or
 * LDL_NOT_FINITE if the matrix holds NaN or infinity (then a and dg are left as they are).
 * Right-looking on the upper triangle (U = L^T, so a column of L is a contiguous row of U):
 * at step k, row k of U is the pivot row scaled by 1 / D[k], and every later row i is updated
 * by a contiguous axpy, A[i, i..] -= A[k, i] U[k, i..], which compilers vectorise; LDL_GROUP
 * pivots per sweep (a rank-LDL_GROUP update, each element's subtractions still in pivot order),
 * so each row is read and written once per LDL_GROUP steps. Then L is written below the
 * diagonal as U's transpose. */
__kernel OCLSTAT_ONE_ITEM_PER_LANE(REAL4)     /* one matrix per work-item (oclstat/cpu.clh) */
void fields_ldl_whole(__global const REAL *src, __global REAL *a, __global REAL *dg,
                      const uint n, const uint n_mat, __global int *bad, const uint n_check,
                      const int mode)
{
    const uint b = get_global_id(0);
    if (b >= n_mat) return;
    __global REAL *m = a + (ulong)b * n * n;
    __global const REAL *in = src + (ulong)b * n * n;
    /* The input's lower triangle (the part the factorisation reads) as the output's upper one;
     * every element is checked on the way (x - x is 0 for finite x, NaN for NaN and infinity),
     * which spares the host a pass over the batch. */
    int nonfinite = 0;
    for (uint i = 0; i < n; i++) {
        __global const REAL *row = in + (ulong)i * n;
        for (uint j = 0; j <= i; j++) {
            const REAL x = row[j];
            m[(ulong)j * n + i] = x;
            nonfinite |= x - x != (REAL)0;
        }
        for (uint j = i + 1; j < n; j++) nonfinite |= row[j] - row[j] != (REAL)0;
    }
    if (nonfinite) {
        bad[b] = LDL_NOT_FINITE;
        return;
    }
    __global REAL *dd = dg + (ulong)b * n;
    REAL w[LDL_GROUP][WHOLE_MAX];         /* pivot rows k .. k + LDL_GROUP - 1 before scaling */
    REAL u[LDL_GROUP][WHOLE_MAX];         /* and after: private, so the updates below are loops
                                           * over global rows only, which compilers vectorise
                                           * without alias checks on the pivots */
    int first_bad = -1;
    for (uint k = 0; k < n; k += LDL_GROUP) {   /* a rank-LDL_GROUP update per sweep */
        const uint r = min((uint)LDL_GROUP, n - k);
        for (uint t = 0; t < r; t++) {    /* pivot row k + t, updated by the group's earlier */
            __global REAL *piv = m + (ulong)(k + t) * n;
            for (uint p = 0; p < t; p++) {
                const REAL f = w[p][k + t];
                for (uint j = k + t; j < n; j++) piv[j] -= f * u[p][j];
            }
            const REAL d = piv[k + t];
            dd[k + t] = d;
            if (k + t < n_check && !(d > (REAL)0) && first_bad < 0) first_bad = (int)(k + t);
            const REAL inv = (REAL)1 / d;
            for (uint j = k + t + 1; j < n; j++) {
                w[t][j] = piv[j];
                u[t][j] = w[t][j] * inv;
                piv[j] = u[t][j];
            }
        }
        if (r < (uint)LDL_GROUP) break;   /* the last rows were all pivots */
        for (uint i = k + LDL_GROUP; i < n; i++) {
            __global REAL *ri = m + (ulong)i * n;
            REAL f[LDL_GROUP];
#pragma unroll
            for (uint p = 0; p < LDL_GROUP; p++) f[p] = w[p][i];
#pragma clang loop interleave_count(1)
            for (uint j = i; j < n; j++) {
                REAL x = ri[j];
#pragma unroll
                for (uint p = 0; p < LDL_GROUP; p++) x -= f[p] * u[p][j];
                ri[j] = x;
            }
        }
    }
    bad[b] = first_bad;
    for (uint i = 0; i < n; i++) {
        __global REAL *ri = m + (ulong)i * n;
        for (uint j = 0; j < i; j++) {
            const REAL l = m[(ulong)j * n + i];
            ri[j] = mode == 0 ? l : l * sqrt(dd[j]);
            m[(ulong)j * n + i] = (REAL)0;
        }
        ri[i] = mode == 0 ? (REAL)1 : sqrt(dd[i]);
    }
}
#endif

/* out[b, s, i] = sum_{j <= i} L[b, i, j] w(D[b, j]) z[b, s, j]; mode 0: w = sqrt(D),
 * 1: w = D, 2: w = 1. */
__kernel void fields_lower_times(__global const REAL *l, __global const REAL *dg,
                          __global const REAL *z, __global REAL *out, const uint n,
                          const uint n_sim, const uint n_mat, const int mode)
{
    const uint i = get_global_id(0), s = get_global_id(1), b = get_global_id(2);
    if (i >= n || s >= n_sim || b >= n_mat) return;
    __global const REAL *row = l + (ulong)b * n * n + (ulong)i * n;
    __global const REAL *dd = dg + (ulong)b * n;
    __global const REAL *zz = z + ((ulong)b * n_sim + s) * n;
    REAL acc = (REAL)0;
    for (uint j = 0; j <= i; j++) {
        const REAL w = mode == 0 ? sqrt(dd[j]) : (mode == 1 ? dd[j] : (REAL)1);
        acc += row[j] * w * zz[j];
    }
    out[((ulong)b * n_sim + s) * n + i] = acc;
}
