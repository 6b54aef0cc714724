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
 *   permutation_feature  CPUs: one work-item runs the whole programme of one feature in place
 *                  (rows j from high to low, so row j - 1 still holds step i - 1 when row j
 *                  reads it); the loop over s is contiguous and vectorises.
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
    const uint j_lo = green_first_row(n, i, k);
    const uint j_hi = min(i, k);
    for (uint j = j_lo; j <= j_hi; j++) {
        if (s < cs[j] || s > cs[i] - cs[i - j]) continue;
        REAL stay, join;
        green_weights(i, j, &stay, &join);
        const P_T same = (j < i) ? GREEN_ROW(o, f, j)[s] : P_ZERO;
        const P_T shifted = (j > 0 && s >= z) ? GREEN_ROW(o, f, j - 1u)[s - z] : P_ZERO;
        GREEN_ROW(w, f, j)[s] = green_mix(stay, join, same, shifted);
    }
}

__kernel void permutation_feature(GREEN_PARTS(p), const uint per_part, __global const uint *scores,
                            __global const uint *csum, const uint n, const uint k,
                            const ulong row_len, const ulong n_features)
{
    const ulong f = get_global_id(0);
    if (f >= n_features) return;
    __global const uint *cs = csum + f * (n + 1);
    for (uint j = 0; j <= k; j++) {
        __global P_T *row = GREEN_ROW(p, f, j);
        for (ulong s = 0; s < row_len; s++) row[s] = P_ZERO;
    }
    GREEN_ROW(p, f, 0u)[0] = P_ONE;
    for (uint i = 1; i <= n; i++) {
        const uint z = scores[f * n + (i - 1)];
        const uint j_lo = max(green_first_row(n, i, k), 1u); /* row 0 never changes */
        const uint j_hi = min(i, k);
        for (uint j = j_hi; j >= j_lo; j--) {
            REAL stay, join;
            green_weights(i, j, &stay, &join);
            __global P_T *row = GREEN_ROW(p, f, j);
            __global const P_T *prev = GREEN_ROW(p, f, j - 1u);
            const ulong lo = cs[j], hi = cs[i] - cs[i - j];
            const ulong cut = clamp((ulong)z, lo, hi + 1); /* below it s - z < 0 */
            for (ulong s = lo; s < cut; s++) row[s] = green_mix(stay, join, row[s], P_ZERO);
            for (ulong s = cut; s <= hi; s++) row[s] = green_mix(stay, join, row[s], prev[s - z]);
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
