/*
 * Exact null distribution of a two-sample sum statistic by Green's dynamic programme, for many
 * features at once (oclstat.permutation).
 *
 * For each feature f the N pooled scores z_1 <= ... <= z_N (non-negative integers, sorted) are
 * taken one at a time. After step i, P[j][s] is the probability that a subset of size j drawn
 * uniformly from the first i scores sums to s. With N_i[s, j] the number of such subsets,
 * N_i[s, j] = N_{i-1}[s, j] + N_{i-1}[s - z_i, j - 1]; divided by C(i, j) it becomes the convex
 * combination
 *
 *     P_i[j][s] = (i - j)/i * P_{i-1}[j][s] + j/i * P_{i-1}[j - 1][s - z_i]
 *
 * which neither overflows nor loses relative accuracy: every term is non-negative, so tail
 * probabilities keep their relative precision down to the smallest normal double.
 *
 * Only what can still reach a subset of size k is computed: j in [max(0, k - (N - i)),
 * min(i, k)], and in row j only the sums a j-subset of the first i scores can have:
 * csum[j] <= s <= csum[i] - csum[i - j], with csum[f * (N + 1) + t] the sum of the t smallest
 * scores (other entries are 0 and stay 0). Feature f's table holds k + 1 rows of row_len
 * entries (s fastest, so neighbouring work-items touch neighbouring memory; where the rows
 * live: green_row below). Two schedules of the same arithmetic (green_mix):
 *
 *   permutation_step     GPUs: one launch per step i for every feature of the batch; work-item g
 *                  handles feature g / width and sum s = g % width (two buffers, old and new).
 *   permutation_feature  CPUs: one work-item runs the whole programme of one feature in place,
 *                  several steps per sweep down its rows (rows j from high to low, so the rows
 *                  below still hold the older step when row j reads them; the rows between
 *                  steps in a small ring), so the table goes through the cache once per sweep;
 *                  the loops over s are contiguous and vectorise.
 *
 * Then permutation_tails sums each feature's tails against its observed statistic on the
 * device (fp64 builds), so only five numbers per feature come back; permutation_last_row
 * copies the null itself out when it is asked for (and for the float-pair builds).
 *
 * Build defines: REAL=double, or REAL=float with GREEN_WIDE on a device without fp64: then each
 * entry is a float2 (m, e) worth m 2^e, the exponent an integer held in a float, so the range
 * is unbounded while the arithmetic (products, sums, frexp, ldexp: correctly rounded or exact)
 * keeps float's 24-bit precision per step; a feature's relative error grows at most like
 * 3 N 2^-24 over its N steps.
 */
#include <oclstat/real.clh>
#pragma OPENCL FP_CONTRACT OFF

#ifdef GREEN_WIDE
typedef float2 P_T;
#define GREEN_EXP_ZERO (-1.0e30f)                /* the exponent of 0: below every other */
#define P_ZERO ((float2)(0.0f, GREEN_EXP_ZERO))
#define P_ONE ((float2)(0.5f, 1.0f))
#else
typedef REAL P_T;
#define P_ZERO ((REAL)0)
#define P_ONE ((REAL)1)
#endif

/* The weights of step i, row j: stay = (i - j)/i, join = j/i. */
inline void green_weights(const uint i, const uint j, REAL *stay, REAL *join)
{
    const REAL inv_i = (REAL)1 / (REAL)i;
    *stay = (REAL)(i - j) * inv_i;
    *join = (REAL)j * inv_i;
}

/* One entry of step i: stay * P_{i-1}[j][s] + join * P_{i-1}[j - 1][s - z]. */
inline P_T green_mix(const REAL stay, const REAL join, const P_T same, const P_T shifted)
{
#ifdef GREEN_WIDE
    const float e = fmax(same.y, shifted.y);
    const float r = ldexp(stay * same.x, (int)fmax(same.y - e, -256.0f)) +
                    ldexp(join * shifted.x, (int)fmax(shifted.y - e, -256.0f));
    if (r == 0.0f) return P_ZERO;
    int k;
    const float m = frexp(r, &k);
    return (float2)(m, e + (float)k);
#else
    return stay * same + join * shifted;
#endif
}

/* The first row a subset of size j can still reach at step i: max(0, k - (n - i)). */
inline uint green_first_row(const uint n, const uint i, const uint k)
{
    return max(k + i, n) - n; /* not a ternary: LLVM turns that into usub.sat (oclgrind) */
}

#if GREEN_MAX_PARTS != 4
#error "green_row takes four parts (oclstat/_constants.py GREEN_MAX_PARTS)"
#endif

/* Where the rows live. A feature's table is k + 1 rows of row_len entries, kept in up to four
 * buffers ("parts") of per_part rows each: row j of feature f starts at
 * part[j / per_part] + (f * per_part + j % per_part) * row_len. Whole features share part 0
 * (per_part = k + 1) when a batch fits one allocation; a feature too large for one allocation
 * is spread over several parts (then one feature per launch, f = 0), so the programme can use
 * all of a device's memory. */
#define GREEN_PARTS(p) __global P_T *p##0, __global P_T *p##1, __global P_T *p##2, \
                       __global P_T *p##3
#define GREEN_ROW(p, f, j) green_row(p##0, p##1, p##2, p##3, per_part, (f), (j), row_len)

inline __global P_T *green_row(__global P_T *p0, __global P_T *p1, __global P_T *p2,
                               __global P_T *p3, const uint per_part, const ulong f,
                               const uint j, const ulong row_len)
{
    const uint part = j / per_part;
    __global P_T *base = part == 0u ? p0 : part == 1u ? p1 : part == 2u ? p2 : p3;
    return base + (f * per_part + j % per_part) * row_len;
}

/* The rows j of step i that hold sum s: j in [green_first_row, min(i, k)] with
 * csum[j] <= s <= csum[i] - csum[i - j]. Both bounds grow with j (the scores are sorted and
 * non-negative), so the rows form one run [*first, *end), found by two binary searches: a
 * work-item of the GPU schedule visits only its own cells, not every row. */
inline void green_rows_with(__global const uint *cs, const uint n, const uint i, const uint k,
                            const ulong s, uint *first, uint *end)
{
    uint lo = green_first_row(n, i, k), hi = min(i, k) + 1u;
    while (lo < hi) {                       /* the first row whose largest sum reaches s */
        const uint mid = (lo + hi) / 2u;
        if ((ulong)(cs[i] - cs[i - mid]) >= s) hi = mid; else lo = mid + 1u;
    }
    *first = lo;
    hi = min(i, k) + 1u;
    while (lo < hi) {                       /* the first row whose smallest sum passes s */
        const uint mid = (lo + hi) / 2u;
        if ((ulong)cs[mid] > s) hi = mid; else lo = mid + 1u;
    }
    *end = lo;
}

__kernel void permutation_start(GREEN_PARTS(p), const uint per_part, const ulong n_features,
                          const ulong row_len)
{
    const ulong f = get_global_id(0);
    if (f < n_features) GREEN_ROW(p, f, 0u)[0] = P_ONE; /* P_0[0][0] = 1 */
}

__kernel void permutation_step(GREEN_PARTS(o), GREEN_PARTS(w), const uint per_part,
                         __global const uint *scores, __global const uint *csum, const uint n,
                         const uint i, const uint k, const ulong row_len,
                         const ulong n_features, const ulong width)
{
    const ulong g = get_global_id(0);
    const ulong f = g / width;
    const ulong s = g % width;
    if (f >= n_features) return;
    __global const uint *cs = csum + f * (n + 1);
    const uint z = scores[f * n + (i - 1)];
    uint j_lo, j_end;
    green_rows_with(cs, n, i, k, s, &j_lo, &j_end);
    for (uint j = j_lo; j < j_end; j++) {
        REAL stay, join;
        green_weights(i, j, &stay, &join);
        const P_T same = (j < i) ? GREEN_ROW(o, f, j)[s] : P_ZERO;
        const P_T shifted = (j > 0 && s >= z) ? GREEN_ROW(o, f, j - 1u)[s - z] : P_ZERO;
        GREEN_ROW(w, f, j)[s] = green_mix(stay, join, same, shifted);
    }
}

/* A row of the programme as the CPU schedule reads it: its entries and the sums [lo, hi] where
 * they may be non-zero (outside: zero, whatever memory holds there). */
typedef struct { __global const P_T *at; long lo, hi; } green_span;

/* Row j after step i, from the sums a j-subset of the first i scores can have. */
inline green_span green_span_of(__global const P_T *at, __global const uint *cs, const uint i,
                                const uint j)
{
    green_span r = {at, (long)cs[j], (long)cs[j] - 1};     /* empty */
    if (j <= i) r.hi = (long)cs[i] - (long)cs[i - j];
    return r;
}

/* Row j of step i into out[lo..hi] from row j (same) and row j - 1 (shifted) of step i - 1:
 * the same arithmetic as permutation_step, with the zeros outside each row's sums made
 * explicit, so the source rows may be buffers that hold other rows' numbers there. The sums
 * where the shifted row lands end at hi (the largest sum grows by exactly z) and begin at its
 * lo + z >= lo (z is at least the j-th smallest score). */
inline void green_fill_row(__global P_T *out, const green_span same, const green_span shifted,
                           const uint i, const uint j, const uint z, const long lo,
                           const long hi)
{
    REAL stay, join;
    green_weights(i, j, &stay, &join);
    const long from = shifted.lo + (long)z;                 /* first sum the shift reaches */
    for (long s = lo; s <= min(same.hi, from - 1); s++)
        out[s] = green_mix(stay, join, same.at[s], P_ZERO);
    for (long s = same.hi + 1; s < from; s++) out[s] = P_ZERO;
    for (long s = from; s <= same.hi; s++)
        out[s] = green_mix(stay, join, same.at[s], shifted.at[s - z]);
    for (long s = max(same.hi + 1, from); s <= hi; s++)
        out[s] = green_mix(stay, join, P_ZERO, shifted.at[s - z]);
}

/* The CPU schedule: work-item f runs feature f's whole programme, `levels` steps per sweep over
 * its rows. A sweep over steps i0 + 1 .. i0 + depth goes down the rows once: at iteration t,
 * level l (step i0 + l) computes its row t + l - 1 from level l - 1's rows t + l - 1 (made at
 * iteration t + 1) and t + l - 2 (made just before); level 0 is the table as step i0 left it,
 * the last level writes the table in place (rows that no level below still reads), the levels
 * between keep their two newest rows in `ring` (two rows per level per feature). The table is
 * read and written once per sweep instead of once per step; the arithmetic is that of
 * permutation_step, so both schedules give the same bits. */
__kernel void permutation_feature(GREEN_PARTS(p), const uint per_part, __global P_T *ring,
                                  const uint levels, __global const uint *scores,
                                  __global const uint *csum, const uint n, const uint k,
                                  const ulong row_len, const ulong n_features)
{
    const ulong f = get_global_id(0);
    if (f >= n_features) return;
    __global const uint *cs = csum + f * (n + 1);
    __global P_T *own_ring = ring + f * 2ul * (levels - 1u) * row_len;
    for (uint j = 0; j <= k; j++) {
        __global P_T *row = GREEN_ROW(p, f, j);
        for (ulong s = 0; s < row_len; s++) row[s] = P_ZERO;
    }
    GREEN_ROW(p, f, 0u)[0] = P_ONE;
    const green_span row_zero = {GREEN_ROW(p, f, 0u), 0, 0}; /* never changes: P[0][0] = 1 */
    for (uint i0 = 0; i0 < n; i0 += levels) {
        const uint depth = min(levels, n - i0);
        const long top = min(i0 + 1u, k);
        const long bottom = (long)max(green_first_row(n, i0 + depth, k), 1u) - (depth - 1u);
        for (long t = top; t >= bottom; t--) {
            for (uint l = 1; l <= depth; l++) {
                const uint i = i0 + l;
                const long jl = t + (long)l - 1;
                if (jl < (long)max(green_first_row(n, i, k), 1u) || jl > (long)min(i, k))
                    continue;
                const uint j = (uint)jl;
                green_span same, shifted;
                if (l == 1u) {
                    same = green_span_of(GREEN_ROW(p, f, j), cs, i - 1u, j);
                    shifted = j == 1u ? row_zero
                                      : green_span_of(GREEN_ROW(p, f, j - 1u), cs, i - 1u, j - 1u);
                } else {                                        /* level l - 1's ring */
                    __global const P_T *lower = own_ring + 2ul * (l - 2u) * row_len;
                    same = green_span_of(lower + (j & 1u) * row_len, cs, i - 1u, j);
                    shifted = j == 1u ? row_zero
                                      : green_span_of(lower + ((j - 1u) & 1u) * row_len, cs,
                                                      i - 1u, j - 1u);
                }
                __global P_T *out = l == depth ? GREEN_ROW(p, f, j)
                                               : own_ring + (2ul * (l - 1u) + (j & 1u)) * row_len;
                green_fill_row(out, same, shifted, i, j, scores[f * n + (i - 1u)],
                               (long)cs[j], (long)cs[i] - (long)cs[i - j]);
            }
        }
    }
}

/* out[f][s] = row k of feature f: the null distribution, without reading the rest. */
__kernel void permutation_last_row(GREEN_PARTS(p), const uint per_part, __global P_T *out,
                             const uint k, const ulong row_len, const ulong n_features)
{
    const ulong g = get_global_id(0);
    if (g >= n_features * row_len) return;
    const ulong f = g / row_len, s = g % row_len;
    out[g] = GREEN_ROW(p, f, k)[s];
}

#ifndef GREEN_WIDE
/* Five sums of feature f's null (row k; P(subset sum = s)) against its observed x-sum,
 * where the x-sum of subset sum s is s when x is the subset drawn, else total[f] - s:
 *   sums[5 f + 0]  P(x-sum < observed)    sums[5 f + 3]  P(far > far of observed)
 *   sums[5 f + 1]  P(x-sum = observed)    sums[5 f + 4]  P(far = far of observed)
 *   sums[5 f + 2]  P(x-sum > observed)
 * with far = |(m + n) x-sum - m total| (coin's distance from the mean, in exact integers).
 * Each tail is a sum of its own terms, so small tail probabilities keep their precision. One
 * work-group of GREEN_TAIL_LANES work-items per feature: lane l adds the sums s = l,
 * l + GREEN_TAIL_LANES, ... in order, then a fixed tree joins the lanes: the same bits on
 * every device and in either schedule, and the null table need not leave the device. */
__kernel void permutation_tails(GREEN_PARTS(p), const uint per_part, const uint k,
                                const ulong row_len, const ulong n_features,
                                __global const long *observed, __global const long *total,
                                const uint x_drawn, const long m, const long mn,
                                __global REAL *sums, __local REAL *part)
{
    const ulong f = get_group_id(0);
    const uint lid = get_local_id(0);
    if (f >= n_features) return;
    __global const P_T *row = GREEN_ROW(p, f, k);
    const long obs = observed[f], tot = total[f];
    const long far_obs = abs(mn * obs - m * tot);
    REAL acc[5] = {(REAL)0, (REAL)0, (REAL)0, (REAL)0, (REAL)0};
    for (ulong s = lid; s < row_len; s += GREEN_TAIL_LANES) {
        const REAL q = row[s];
        const long x = x_drawn ? (long)s : tot - (long)s;
        const long far = abs(mn * x - m * tot);
        acc[0] += x < obs ? q : (REAL)0;
        acc[1] += x == obs ? q : (REAL)0;
        acc[2] += x > obs ? q : (REAL)0;
        acc[3] += far > far_obs ? q : (REAL)0;
        acc[4] += far == far_obs ? q : (REAL)0;
    }
    for (uint t = 0; t < 5u; t++) part[t * GREEN_TAIL_LANES + lid] = acc[t];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = GREEN_TAIL_LANES / 2; step > 0u; step >>= 1) {
        if (lid < step)
            for (uint t = 0; t < 5u; t++)
                part[t * GREEN_TAIL_LANES + lid] += part[t * GREEN_TAIL_LANES + lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < 5u) sums[5 * f + lid] = part[lid * GREEN_TAIL_LANES];
}
#endif
