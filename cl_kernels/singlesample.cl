/*
 * Single-sample enrichment (oclstat.gsva): GSVA's kernel estimate of every gene's CDF at
 * every sample, the part whose cost grows with the square of the sample count.
 *
 *   singlesample_density   work-item (gene i, test sample j): F = mean over the density
 *                          samples k of Phi((y_ij - x_ik) / h_i), then log(F / (1 - F)).
 *
 * h_i is the gene's bandwidth (its standard deviation / 4, from the host). Phi is either
 * exact (erfc) or, with TABULATED, read as GSVA 1.46 reads its table: the point at or below
 * |v| of the standard normal CDF tabulated at 10 i / 10,000 (table[], from the host), 0 below
 * -10 and 1 above 10, the index trunc(|v| / 10 * 10,000) of v = (y - x) / h with GSVA's three
 * roundings. The index is first estimated without dividing, |y - x| * (1,000 / h), within a
 * few ulp of GSVA's; only where that estimate lies within SS_SLACK (relative) of an integer,
 * or of the table's end, is GSVA's own division sequence taken, so every index is GSVA's and
 * the terms are summed in GSVA's order (the same bits in double). Rows are genes:
 * x[i * n_density + k], y[i * n_test + j], out[i * n_test + j].
 *
 * Build defines: REAL (double; float without fp64, to float precision), TABULATED, SUMS (the
 * sums of Phi themselves, unscaled: GSVA 2's sparse algorithm divides each gene's by its own
 * number of non-zero values, the rest of its row being padding whose terms are 0).
 */
#include <oclstat/real.clh>
#pragma OPENCL FP_CONTRACT OFF

#define SS_POINTS 10000
#define SS_RANGE 10.0
/* the estimate's relative distance from GSVA's index argument: 5 roundings, 11 ulp spare
 * (half an ulp: 2^-53 in double, 2^-24 in float) */
#define SS_SLACK ((REAL)16 * (sizeof(REAL) == 8 ? (REAL)1.1102230246251565e-16 \
                                                : (REAL)5.9604644775390625e-08))

#ifdef TABULATED
/* GSVA's own sequence: v = d / h, then table[trunc(|v| / 10 * 10,000)], 0 / 1 past +-10 */
inline REAL gsva_table_cdf(const REAL d, const REAL h, __global const REAL *table)
{
    const REAL v = d / h;
    if (v < (REAL)(-SS_RANGE)) return (REAL)0;
    if (v > (REAL)SS_RANGE) return (REAL)1;
    const REAL t = table[(int)(fabs(v) / (REAL)SS_RANGE * (REAL)SS_POINTS)];
    return v < (REAL)0 ? (REAL)1 - t : t;
}
#endif

#ifdef TABULATED
/* the table term of d = y - x by the division-free estimate t = |d| * (1,000 / h); *sure is
 * cleared where t lies within SS_SLACK of a step or of the table's end (then only GSVA's
 * own division sequence, gsva_table_cdf, gives GSVA's index) */
inline REAL estimated_term(const REAL d, const REAL scale, __global const REAL *table,
                           int *sure)
{
    const REAL t = fabs(d) * scale, slack = t * SS_SLACK;
    const REAL p = table[(int)fmin(t, (REAL)SS_POINTS)];
    const int far = t - slack > (REAL)SS_POINTS;
    const int near = t + slack < (REAL)SS_POINTS && floor(t - slack) == floor(t + slack);
    *sure &= far | near;
    return far ? (d < (REAL)0 ? (REAL)0 : (REAL)1) : (d < (REAL)0 ? (REAL)1 - p : p);
}
#endif

__kernel void singlesample_density(__global const REAL *x, __global const REAL *y,
                                   __global const REAL *h, __global const REAL *table,
                                   const uint n_genes, const uint n_density,
                                   const uint n_test, __global REAL *out)
{
    const uint j = get_global_id(0), i = get_global_id(1);
    if (i >= n_genes || j >= n_test) return;
    const REAL yj = y[(ulong)i * n_test + j], hi = h[i];
    __global const REAL *xi = x + (ulong)i * n_density;
    REAL left = (REAL)0;
#ifdef TABULATED
    /* every term by the estimate; in the rare sum (about one in 10^7 here) with a term the
     * estimate cannot settle, the sum again in the same order with GSVA's sequence there:
     * a branch inside the first loop would cost every lane the division */
    const REAL scale = (REAL)(SS_POINTS / SS_RANGE) / hi;
    int sure = 1;
    for (uint k = 0; k < n_density; k++)
        left += estimated_term(yj - xi[k], scale, table, &sure);
    if (!sure) {
        left = (REAL)0;
        for (uint k = 0; k < n_density; k++) {
            int one = 1;
            const REAL c = estimated_term(yj - xi[k], scale, table, &one);
            left += one ? c : gsva_table_cdf(yj - xi[k], hi, table);
        }
    }
#else
    for (uint k = 0; k < n_density; k++)
        left += (REAL)0.5 * erfc(-((yj - xi[k]) / hi) * (REAL)M_SQRT1_2);
#endif
#ifdef SUMS
    out[(ulong)i * n_test + j] = left;
#else
    left = left / (REAL)n_density;
    out[(ulong)i * n_test + j] = -log(((REAL)1 - left) / left);
#endif
}
