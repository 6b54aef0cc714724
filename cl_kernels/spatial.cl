/*
 * Gaussian spatial models (oclstat.spatial): the matrices whose LDL^T gives a Matérn model's
 * likelihood, and cross-covariances for kriging.
 *
 *   spatial_bordered   lower triangle of N = n + k square matrices, one per parameter set (a
 *                      work-group per row, its work-items striding along the row):
 *                      [[V, .], [B^T, 0]] with V the Matérn covariance of the n points (nugget
 *                      on the diagonal) and B (n x k, row-major) the covariates and responses.
 *                      LDL^T of it factors V and, in rows n.., gives B^T L^-T D^-1, from which
 *                      B^T V^-1 B is one weighted cross-product; no solve, no extra pass.
 *   spatial_cross      C[j, i] = Matérn covariance of data point j and new point i (no
 *                      nugget: the field's covariance), one parameter set, stored n x n_new:
 *                      the right-hand sides of the kriging solves, new points along the lanes.
 *
 * consts, cheb: oclstat/matern.clh's, per parameter set. Build defines: REAL, MATERN_* (matern.clh).
 */
#include <oclstat/real.clh>

#include <oclstat/matern.clh>

__kernel void spatial_bordered(__global const REAL *coords, __global const REAL *consts,
                               __global const REAL *cheb, __global const REAL *border,
                               const uint n, const uint k, const uint n_params,
                               __global REAL *out)
{
    const uint i = get_global_id(1), p = get_global_id(2), N = n + k;
    if (i >= N || p >= n_params) return;
    __global REAL *row = out + (ulong)p * N * N + (ulong)i * N;
    /* row i, columns j = lane, lane + width, ... <= i: the lanes of a vector share the row */
    if (i >= n) {
        for (uint j = get_global_id(0); j <= i; j += get_global_size(0))
            row[j] = j < n ? border[(ulong)j * k + (i - n)] : (REAL)0;
        return;
    }
    __global const REAL *c = consts + 9 * (ulong)p, *tab = cheb + MATERN_TABLE * (ulong)p;
    const REAL xi = coords[2 * i], yi = coords[2 * i + 1];
#if MATERN_FAST && defined(LANES) && LANES > 1
    for (uint j0 = get_global_id(0) * LANES; j0 <= i; j0 += get_global_size(0) * LANES) {
        OCLSTAT_LANES_UNION(REAL) v;
        v.v = oclstat_matern_lanes(c, tab, coords, xi, yi, j0, i);
        for (uint l = 0; l < LANES && j0 + l <= i; l++)
            row[j0 + l] = j0 + l == i ? c[7] + c[6] : v.s[l];
    }
#else
    for (uint j = get_global_id(0); j <= i; j += get_global_size(0))
        row[j] = oclstat_matern(c, tab, xi - coords[2 * j], yi - coords[2 * j + 1], i == j);
#endif
}

__kernel void spatial_cross(__global const REAL *new_coords, __global const REAL *coords,
                            __global const REAL *consts, __global const REAL *cheb,
                            const uint n_new, const uint n,
                            __global REAL *out)
{
    const uint i = get_global_id(0), j = get_global_id(1);
    if (i >= n_new || j >= n) return;
    out[(ulong)j * n_new + i] = oclstat_matern(consts, cheb, new_coords[2 * i] - coords[2 * j],
                                               new_coords[2 * i + 1] - coords[2 * j + 1], 0);
}
