/*
 * Single-sample enrichment (oclstat.gsva): GSVA's kernel estimate of every gene's CDF at
 * every sample, the part whose cost grows with the square of the sample count.
 *
 *   singlesample_density   work-item (gene i, test sample j): F = mean over the density
 *                          samples k of Phi((y_ij - x_ik) / h_i), then log(F / (1 - F)).
 *   singlesample_density_lanes  (TABULATED, LANES > 1: CPUs) work-item (gene i, test samples
 *                          LANES j0 .. j0 + LANES - 1): the same sums in vector registers, one
 *                          lane per test sample, each summed in the same order with the same
 *                          operations (the same bits). pocl runs each work-item of the scalar
 *                          kernel as scalar code (its loop over k is a reduction the compiler
 *                          may not reorder), 10x slower than Intel's runtime, which vectorises
 *                          across work-items.
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
#include <oclstat/vector.clh>   /* LANES, realL, maskL */
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

#if defined(TABULATED) && LANES > 1
__kernel void singlesample_density_lanes(__global const REAL *x, __global const REAL *y,
                                         __global const REAL *h, __global const REAL *table,
                                         const uint n_genes, const uint n_density,
                                         const uint n_test, __global REAL *out)
{
    const uint j0 = get_global_id(0) * LANES, i = get_global_id(1);
    if (i >= n_genes || j0 >= n_test) return;
    const REAL hi = h[i];
    const REAL scale = (REAL)(SS_POINTS / SS_RANGE) / hi;
    __global const REAL *xi = x + (ulong)i * n_density;
    OCLSTAT_LANES_UNION(REAL) yj, p, left;
    OCLSTAT_LANES_UNION(int) at;
    /* lanes past the last sample repeat it (their sums are not stored) */
    for (uint l = 0; l < LANES; l++) yj.s[l] = y[(ulong)i * n_test + min(j0 + l, n_test - 1u)];
    left.v = (realL)0;
    maskL sure = (maskL)(-1);
    for (uint k = 0; k < n_density; k++) {
        /* estimated_term's operations, lane by lane */
        const realL d = yj.v - xi[k];
        const realL t = fabs(d) * scale, slack = t * SS_SLACK;
        at.v = OCLSTAT_CAT(convert_int, LANES)(fmin(t, (realL)SS_POINTS));
        for (uint l = 0; l < LANES; l++) p.s[l] = table[at.s[l]];
        const maskL far = t - slack > (realL)SS_POINTS;
        const maskL near = (t + slack < (realL)SS_POINTS) & (floor(t - slack) == floor(t + slack));
        sure &= far | near;
        const maskL below = d < (realL)0;
        const realL inside = OCLSTAT_PICK(p.v, (realL)1 - p.v, below);
        const realL outside = OCLSTAT_PICK((realL)1, (realL)0, below);
        left.v += OCLSTAT_PICK(inside, outside, far);
    }
    if (!all(sure)) {
        /* the rare lane with a term the estimate cannot settle: its sum again, as the scalar
         * kernel sums it */
        OCLSTAT_MASK_UNION settled;
        settled.v = sure;
        for (uint l = 0; l < LANES; l++) {
            if (settled.s[l]) continue;
            REAL sum = (REAL)0;
            for (uint k = 0; k < n_density; k++) {
                int one = 1;
                const REAL c = estimated_term(yj.s[l] - xi[k], scale, table, &one);
                sum += one ? c : gsva_table_cdf(yj.s[l] - xi[k], hi, table);
            }
            left.s[l] = sum;
        }
    }
    for (uint l = 0; l < LANES && j0 + l < n_test; l++) {
#ifdef SUMS
        out[(ulong)i * n_test + j0 + l] = left.s[l];
#else
        const REAL f = left.s[l] / (REAL)n_density;
        out[(ulong)i * n_test + j0 + l] = -log(((REAL)1 - f) / f);
#endif
    }
}
#endif

/*
 * The ranks of cells held sparse (CSC: a block of cells, each cell's stored values in
 * increasing row order, no stored zeros), for the rank-based scores of many cells.
 *
 *   singlesample_cell_ranks   work-group c (a cell), its work-items taking the cell's stored
 *                             values in turn: each value v's 1-based position
 *                             in the cell's decreasing order of all n genes (the cell's zeros
 *                             after its positive values, before its negative ones; equal
 *                             values by increasing row, ROWS_DECREASING: by decreasing row)
 *                             and twice its average rank by increasing value (an integer),
 *                             from counts over the cell's m stored values: G greater, E equal
 *                             (itself included), B equal in an earlier row, L = m - G - E.
 *                             pos = G + B + 1 (+ n - m below zero); 2 rank = 2 (L (+ n - m
 *                             above zero)) + E + 1. Integers: the same on every device.
 *   singlesample_ssgsea_sums  work-item (cell c, set s): ssGSEA's closed form over the set's
 *                             members in their order, sum_S w (n - p + 1) / sum_S w -
 *                             (n (n + 1) / 2 - sum_S (n - p + 1)) / (n - k), w = weight[2
 *                             rank] (the host's table of the flavour's rank weights).
 *   singlesample_member_sums  work-item (cell c, set s): AUCell's area or UCell's capped
 *                             ranks summed over the set's members, as integers.
 *
 * A member is found among the cell's rows by binary search (cell_member); a zero gene's place
 * follows from the rows stored before it.
 *
 * Build defines: ROWS_DECREASING (GSEApy's tie order). Doubles throughout (a device without
 * fp64 takes the host's path).
 */
__kernel void singlesample_cell_ranks(__global const double *values,
                                      __global const uint *start, const uint n,
                                      const uint n_cells, __global uint *pos,
                                      __global uint *rank2)
{
    /* a work-group per cell: every work-item runs the same loop over the cell's values (the
     * loop the CPU compilers vectorise across work-items), each for a stride of its own */
    const uint c = get_group_id(0);
    if (c >= n_cells) return;
    const uint a = start[c], e = start[c + 1], zeros = n - (e - a);
    for (uint i = a + get_local_id(0); i < e; i += get_local_size(0)) {
        const double v = values[i];
        uint greater = 0, equal = 0, before = 0;
        for (uint k = a; k < e; k++) {
            const double w = values[k];
            greater += w > v;
            equal += w == v;
            before += (w == v) & (k < i);
        }
        const uint less = (e - a) - greater - equal;
#ifdef ROWS_DECREASING
        const uint ties_first = equal - 1 - before;
#else
        const uint ties_first = before;
#endif
        pos[i] = greater + ties_first + 1 + (v < 0.0 ? zeros : 0);
        rank2[i] = 2 * (less + (v > 0.0 ? zeros : 0)) + equal + 1;
    }
}

/* Member r of cell c (stored rows rows[a .. e), in increasing order): its position *p and
 * twice its average rank *r2, by binary search among the stored rows; a zero gene's place
 * follows from the number of rows stored above it. */
inline void cell_member(__global const uint *rows, const uint a, const uint e,
                        __global const uint *pos, __global const uint *rank2, const uint r,
                        const uint plus, const uint zeros, uint *p, uint *r2)
{
    uint lo = a, hi = e;
    while (lo < hi) {
        const uint mid = lo + (hi - lo) / 2;
        if (rows[mid] < r) lo = mid + 1; else hi = mid;
    }
    if (lo < e && rows[lo] == r) {
        *p = pos[lo];
        *r2 = rank2[lo];
        return;
    }
    const uint z = r - (lo - a);                    /* zero rows above r */
#ifdef ROWS_DECREASING
    *p = plus + zeros - z;
#else
    *p = plus + 1 + z;
#endif
    *r2 = 2 * ((e - a) - plus) + zeros + 1;         /* the zeros' shared average rank */
}

__kernel void singlesample_ssgsea_sums(__global const uint *rows, __global const uint *start,
                                       __global const uint *positive,
                                       __global const uint *pos, __global const uint *rank2,
                                       __global const uint *members,
                                       __global const uint *set_start,
                                       __global const double *weight, const uint n,
                                       const uint n_cells, const uint n_sets,
                                       __global double *out)
{
    const uint c = get_global_id(0), s = get_global_id(1);
    if (c >= n_cells || s >= n_sets) return;
    const uint a = start[c], e = start[c + 1], zeros = n - (e - a);
    double sum_w = 0.0, sum_wb = 0.0;
    ulong sum_b = 0;
    for (uint q = set_start[s]; q < set_start[s + 1]; q++) {
        uint p, r2;
        cell_member(rows, a, e, pos, rank2, members[q], positive[c], zeros, &p, &r2);
        const double w = weight[r2];
        const uint back = n - p + 1;
        sum_w += w;
        sum_wb += w * (double)back;
        sum_b += back;
    }
    const uint k = set_start[s + 1] - set_start[s];
    const double total = (double)((ulong)n * (ulong)(n + 1) / 2);
    out[(ulong)s * n_cells + c] = sum_wb / sum_w - (total - (double)sum_b) / (double)(n - k);
}

/* Work-item (cell c, set s): an integer sum over the set's members, kind 0 (AUCell's area
 * under the recovery curve): max(cap - p, 0); kind 1 (UCell's ranks, doubled): min(2 (n + 1)
 * - 2 rank, 2 cap), the rank by decreasing value capped at cap. */
__kernel void singlesample_member_sums(__global const uint *rows, __global const uint *start,
                                       __global const uint *positive,
                                       __global const uint *pos, __global const uint *rank2,
                                       __global const uint *members,
                                       __global const uint *set_start, const uint n,
                                       const uint n_cells, const uint n_sets, const uint kind,
                                       const uint cap, __global ulong *out)
{
    const uint c = get_global_id(0), s = get_global_id(1);
    if (c >= n_cells || s >= n_sets) return;
    const uint a = start[c], e = start[c + 1], zeros = n - (e - a);
    ulong sum = 0;
    for (uint q = set_start[s]; q < set_start[s + 1]; q++) {
        uint p, r2;
        cell_member(rows, a, e, pos, rank2, members[q], positive[c], zeros, &p, &r2);
        if (kind == 0)
            sum += cap - min(p, cap);       /* max(cap - p, 0) (Oclgrind has no usub.sat) */
        else
            sum += min(2 * (n + 1) - r2, 2 * cap);
    }
    out[(ulong)s * n_cells + c] = sum;
}
