/*
 * One stage of the network algorithm for Fisher's exact test of an r x c table
 * (oclstat/_fisher/network.py drives the stages; Mehta & Patel 1983, 1986).
 *
 * The table is walked column by column. A node is the sorted vector of the row totals still
 * to be filled (M rows, ascending, zeros kept); the path from the root to a node is the
 * columns filled so far, and its value is the log of their conditional probability (a product
 * of multivariate hypergeometric terms), in fixed point: V = round(log(p) * 2^bits) as exact
 * integer sums of the host's log-factorial table `lf` (FP_CONTRACT plays no part: no floating
 * point decides anything). The completions of a node have conditional probabilities that sum
 * to 1, so a path of value V contributes exp(V) times the probability of its completions whose
 * value is at most thr - V.
 *
 * Node n holds its distinct past values V[start[n] .. start[n + 1]) sorted ascending, with
 * weights; P[start[n] + n + i] is the sum of weight * exp(V - vref[n]) over its first i values
 * (P has one more element per node than V). Work-item g takes node item_node[g] and the count
 * item_top[g] given to the node's last (largest) row, and enumerates every allocation x of the
 * column total `c` to the rows (x_i <= r_i), rows of equal totals in non-increasing order with
 * the number of orderings they stand for (`mult`). For each allocation, the daughter d = sort(r
 * - x), the arc value a = sum log C(r_i, x_i) - log C(nr, c), and bounds on the log-probability
 * of the daughter's completions with the remaining columns (cols[0 .. K)):
 *
 *   Lmax = const(d) - Slo,  Lmin = const(d) - Shi,   S = sum over cells of log x!,
 *   Slo = max(sum_i f_tab[d_i], sum_j water-filling min of c_j over caps d)  <= min S,
 *   Shi = min(sum_i g_tab[d_i], sum_j greedy max of c_j over caps d)          >= max S,
 *   (with two columns left and M <= 8, Shi is the exact maximum, from the vertices)
 *
 * (f_tab, g_tab: the host's row-wise minimum and maximum for this stage's columns). Past values
 * with V <= thr - a - Lmax have every completion counted: their mass is added to mass[g] from
 * the prefix sums; values in (thr - a - Lmax, thr - a - Lmin] are undecided and written as one
 * record (node, daughter, range, a, mult) for the host to merge into the next stage; the rest
 * count nothing. With HYBRID, an undecided range at a daughter whose remaining table meets
 * Cochran's conditions (R's hybrid = TRUE) is written with kind 1: the host approximates it
 * with the chi-square law instead of carrying it.
 *
 * Defines: M (rows of a node, >= 2), REAL (the mass's precision), HYBRID, EXPECT100, PERCNT,
 * EMIN100 (Cochran's expected count x 100, percentage of cells, minimum expected count x 100).
 */
#include <oclstat/real.clh>

#pragma OPENCL FP_CONTRACT OFF

static ulong fisher_exact_orderings(const int *x, const int *r, __constant ulong *fact)
{
    /* rows of equal totals form runs; x is non-increasing inside a run. The allocation stands
     * for len! / prod(count of each value)! orderings of its run. */
    ulong mult = 1;
    int i = 0;
    while (i < M) {
        int j = i;
        while (j + 1 < M && r[j + 1] == r[i]) j++;
        if (j > i) {
            ulong m = fact[j - i + 1];
            int k = i;
            while (k <= j) {
                int l = k;
                while (l + 1 <= j && x[l + 1] == x[k]) l++;
                m /= fact[l - k + 1];
                k = l + 1;
            }
            mult *= m;
        }
        i = j + 1;
    }
    return mult;
}

/* the last index i in [lo, hi) with V[i] <= t, plus one (upper bound) */
static uint fisher_exact_upper(__global const long *V, uint lo, uint hi, long t)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2;
        if (V[mid] <= t) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* the least sum of log x! when c is spread over the caps d (ascending): as evenly as the caps
 * allow (water-filling; log x! is convex) */
static long fisher_exact_water(const int *d, int c, __global const long *lf)
{
    int rem = c, left = M;
    long lo = 0;
    for (int i = 0; i < M; ++i) {
        const int share = rem / left;
        if (d[i] <= share) {
            lo += lf[d[i]];
            rem -= d[i];
            left--;
        } else {
            const int q = rem / left, extra = rem - q * left;
            return lo + (long)(left - extra) * lf[q] + (long)extra * lf[q + 1];
        }
    }
    return lo;
}

/* the largest sum of log x! when c is spread over the caps d: the largest caps first (a bound
 * over the columns taken one at a time) */
static long fisher_exact_greedy(const int *d, int c, __global const long *lf)
{
    long hi = 0;
    int rem = c;
    for (int i = M - 1; i >= 0 && rem > 0; --i) {
        const int v = min(d[i], rem);
        hi += lf[v];
        rem -= v;
    }
    return hi;
}

#if M <= 8
/* With two columns left (totals c and sum(d) - c), the exact largest sum of log x! over both:
 * the sum of the convex functions log x! + log (d_i - x)! is largest at a vertex of the
 * allocations (every row at 0 or d_i but at most one), M 2^(M-1) of them. */
static long fisher_exact_two_columns_max(const int *d, int c, __global const long *lf)
{
    long best = LONG_MIN;
    for (int free = 0; free < M; ++free) {
        for (uint mask = 0; mask < (1u << (M - 1)); ++mask) {
            int used = 0;
            long s = 0;
            for (int k = 0, b = 0; k < M; ++k) {
                if (k == free) continue;
                if (mask & (1u << b)) used += d[k];      /* row k all in the first column */
                s += lf[d[k]];                            /* log d_k! + log 0! either way */
                b++;
            }
            const int xf = c - used;
            if (xf < 0 || xf > d[free]) continue;
            s += lf[xf] + lf[d[free] - xf];
            best = max(best, s);
        }
    }
    return best;
}
#endif

__kernel void fisher_exact_network_stage(
    const uint n_items, __global const uint *item_node, __global const int *item_top,
    __global const int *node_rows, __global const uint *start, __global const long *V,
    __global const REAL *P, __global const long *vref,
    const int c, const int K, __global const int *cols, const long cols_lf,
    __global const long *f_tab, __global const long *g_tab, __global const long *lf,
    const long thr, const long log_choose_c, const int bits, __constant ulong *fact,
    __global REAL *mass, __global volatile uint *n_records, const uint capacity,
    __global uint *rec_node, __global uint *rec_i1, __global uint *rec_i2,
    __global long *rec_arc, __global ulong *rec_mult, __global int *rec_rows,
    __global uchar *rec_kind, __global uint *arcs)
{
    const uint g = get_global_id(0);
    if (g >= n_items) return;
    const uint node = item_node[g];
    int r[M], x[M], rem_at[M], d[M];
    int nr = 0;
    for (int i = 0; i < M; ++i) {
        r[i] = node_rows[node * M + i];
        nr += r[i];
    }
    const uint lo_v = start[node], hi_v = start[node + 1];
    __global const REAL *Pn = P + lo_v + node;
    const long vr = vref[node];
    const REAL unit = (REAL)1.0 / (REAL)((ulong)1 << bits);
    REAL total = (REAL)0;
    uint n_arcs = 0;

    x[M - 1] = item_top[g];
    /* suffix capacity of rows i+1 .. M-2 (row M-1 is fixed by the work-item) */
    int suffix[M];
    suffix[M - 2] = 0;
    for (int k = M - 3; k >= 0; --k) suffix[k] = suffix[k + 1] + r[k + 1];

    int i = 0;
    rem_at[0] = c - x[M - 1];
    bool have = false;          /* the leaf of the current position is pending */
#if M == 2
    x[0] = rem_at[0];
    have = x[0] >= 0 && x[0] <= r[0] && (r[0] != r[1] || x[0] >= x[1]);
    i = -1;
#else
    x[0] = min(r[0], rem_at[0]) + 1;
#endif
    for (;;) {
        if (!have) {
            if (i < 0) break;
#if M > 2
            /* next value of position i (descending) */
            x[i]--;
            const int lo = max(0, rem_at[i] - suffix[i]);
            if (x[i] < lo) { i--; continue; }
            if (i == M - 3) {
                /* the second-to-last row takes what is left */
                int xl = rem_at[i] - x[i];
                x[M - 2] = xl;
                if (xl < 0 || xl > r[M - 2]) continue;
                if (r[M - 2] == r[M - 3] && xl > x[M - 3]) continue;
                if (r[M - 1] == r[M - 2] && x[M - 1] > xl) continue;
                have = true;
            } else {
                rem_at[i + 1] = rem_at[i] - x[i];
                i++;
                int hi = min(r[i], rem_at[i]);
                if (r[i] == r[i - 1]) hi = min(hi, x[i - 1]);
                x[i] = hi + 1;
                continue;
            }
#endif
        }
        have = false;
        n_arcs++;
        /* one allocation x: arc, daughter, bounds */
        long arc = -log_choose_c;
        for (int k = 0; k < M; ++k) arc += lf[r[k]] - lf[x[k]] - lf[r[k] - x[k]];
        for (int k = 0; k < M; ++k) {
            int v = r[k] - x[k], l = k;
            while (l > 0 && d[l - 1] > v) { d[l] = d[l - 1]; l--; }
            d[l] = v;
        }
        const int nd = nr - c;
        long dl = 0, f_sum = 0;
        for (int k = 0; k < M; ++k) {
            dl += lf[d[k]];
            f_sum += f_tab[d[k]];
        }
        long c_min = 0;
        for (int j = 0; j < K; ++j) c_min += fisher_exact_water(d, cols[j], lf);
        const long cst = dl + cols_lf - lf[nd];
        const long l_max = cst - max(f_sum, c_min);
        const uint i1 = fisher_exact_upper(V, lo_v, hi_v, thr - arc - l_max);
        uint i2 = i1;
        if (i1 < hi_v) {            /* some past values are not settled by the upper bound */
            long s_hi;
#if M <= 8
            if (K == 2) {
                s_hi = fisher_exact_two_columns_max(d, cols[0], lf);
            } else
#endif
            {
                long g_sum = 0, c_max = 0;
                for (int k = 0; k < M; ++k) g_sum += g_tab[d[k]];
                for (int j = 0; j < K; ++j) c_max += fisher_exact_greedy(d, cols[j], lf);
                s_hi = min(g_sum, c_max);
            }
            i2 = fisher_exact_upper(V, i1, hi_v, thr - arc - (cst - s_hi));
        }
        const ulong mult = fisher_exact_orderings(x, r, fact);
        if (i1 > lo_v)
            total += (REAL)mult * exp((REAL)(arc + vr) * unit) * Pn[i1 - lo_v];
        if (i2 > i1) {
            uchar kind = 0;
#ifdef HYBRID
            /* Cochran's conditions on the daughter's remaining table */
            if (K >= 2) {
                int first = 0;
                while (first < M && d[first] == 0) first++;
                const int rows_left = M - first;
                int cmin = cols[0];
                for (int j = 1; j < K; ++j) cmin = min(cmin, cols[j]);
                if (rows_left >= 2 && (long)d[first] * cmin * 100 > (long)nd * EMIN100) {
                    int ncell = 0;
                    for (int k = first; k < M; ++k)
                        for (int j = 0; j < K; ++j)
                            if ((long)d[k] * cols[j] * 100 >= (long)nd * EXPECT100) ncell++;
                    if (ncell * 100 >= K * rows_left * PERCNT) kind = 1;
                }
            }
#endif
            const uint slot = atomic_inc(n_records);
            if (slot < capacity) {
                rec_node[slot] = node;
                rec_i1[slot] = i1 - lo_v;
                rec_i2[slot] = i2 - lo_v;
                rec_arc[slot] = arc;
                rec_mult[slot] = mult;
                rec_kind[slot] = kind;
                for (int k = 0; k < M; ++k) rec_rows[(size_t)slot * M + k] = d[k];
            }
        }
    }
    mass[g] = total;
    arcs[g] = n_arcs;
}

/*
 * The next stage's past values, merged per daughter: daughter d has the runs
 * [run_first[d], run_first[d + 1]) (records of the stage above, in a fixed order); run r holds
 * the values V[src[r] .. src[r] + len[r]) + arc[r] (sorted) with weights W[...] * mult[r]. One
 * work-item merges a daughter's runs with a binary heap (scratch: one slot per run, ties broken
 * by run order, so the result does not depend on the device) and adds the weights of values
 * within `merge_units` of the first of their group (tables of equal probability whose
 * fixed-point sums differ by the rounding of different log-factorials), counting the groups in
 * count[d]; with write != 0 it also writes them from out_first[d] on
 * (the host gives either the exact offsets of a counting pass or room for every value).
 */
static bool fisher_exact_before(long va, uint ra, long vb, uint rb)
{
    return va < vb || (va == vb && ra < rb);
}

__kernel void fisher_exact_merge_runs(
    const uint n_daughters, __global const uint *run_first, __global const ulong *src,
    __global const uint *len, __global const long *arc, __global const REAL *mult,
    __global const long *V, __global const REAL *W, __global long *heap_v,
    __global uint *heap_r, __global uint *pos, const int write,
    __global const ulong *out_first, __global ulong *count, __global long *out_V,
    __global REAL *out_W, const long merge_units, const int bits)
{
    const REAL unit = (REAL)1.0 / (REAL)((ulong)1 << bits);
    const uint d = get_global_id(0);
    if (d >= n_daughters) return;
    const uint r0 = run_first[d], r1 = run_first[d + 1];
    __global long *hv = heap_v + r0;
    __global uint *hr = heap_r + r0;
    uint size = 0;
    /* push the head of every run */
    for (uint r = r0; r < r1; ++r) {
        pos[r] = 0;
        long v = V[src[r]] + arc[r];
        uint k = size++;
        while (k > 0) {
            uint parent = (k - 1) / 2;
            if (!fisher_exact_before(v, r, hv[parent], hr[parent])) break;
            hv[k] = hv[parent];
            hr[k] = hr[parent];
            k = parent;
        }
        hv[k] = v;
        hr[k] = r;
    }
    ulong n = 0, at = write ? out_first[d] : 0;
    long last = 0;
    REAL acc = (REAL)0;
    while (size > 0) {
        const long v = hv[0];
        const uint r = hr[0];
        const REAL w = W[src[r] + pos[r]] * mult[r];
        if (n > 0 && v - last <= merge_units) {
            /* within the merge tolerance of the group's first value: one value, the mass kept
             * (w exp(v - last) to first order; v - last < 2^-30 in log units) */
            acc += w * ((REAL)1 + (REAL)(v - last) * unit);
        } else {
            if (n > 0 && write) {
                out_V[at] = last;
                out_W[at] = acc;
                at++;
            }
            last = v;
            acc = w;
            n++;
        }
        /* advance run r and restore the heap */
        pos[r]++;
        long nv;
        uint nr = r;
        if (pos[r] < len[r]) {
            nv = V[src[r] + pos[r]] + arc[r];
        } else {
            size--;
            nv = hv[size];
            nr = hr[size];
        }
        uint k = 0;
        for (;;) {
            uint a = 2 * k + 1, b = a + 1, m = k;
            long mv = nv;
            uint mr = nr;
            if (a < size && fisher_exact_before(hv[a], hr[a], mv, mr)) { m = a; mv = hv[a]; mr = hr[a]; }
            if (b < size && fisher_exact_before(hv[b], hr[b], mv, mr)) { m = b; mv = hv[b]; mr = hr[b]; }
            if (m == k) break;
            hv[k] = mv;
            hr[k] = mr;
            k = m;
        }
        if (size > 0) {
            hv[k] = nv;
            hr[k] = nr;
        }
    }
    if (n > 0 && write) {
        out_V[at] = last;
        out_W[at] = acc;
    }
    count[d] = n;
}
