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
 * scores (other entries are 0 and stay 0). The buffer of feature f holds k + 1 rows of
 * row_len doubles (row j at f * (k + 1) * row_len + j * row_len, s fastest, so neighbouring
 * work-items touch neighbouring memory). Two schedules of the same arithmetic (green_mix):
 *
 *   green_step     GPUs: one launch per step i for every feature of the batch; work-item g
 *                  handles feature g / width and sum s = g % width (two buffers, old and new).
 *   green_feature  CPUs: one work-item runs the whole programme of one feature in place
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

__kernel void green_start(__global P_T *p, const ulong n_features, const uint k,
                          const ulong row_len)
{
    const ulong f = get_global_id(0);
    if (f < n_features) p[f * (k + 1) * row_len] = P_ONE; /* P_0[0][0] = 1 */
}

__kernel void green_step(__global const P_T *old, __global P_T *new, __global const uint *scores,
                         __global const uint *csum, const uint n, const uint i, const uint k,
                         const ulong row_len, const ulong n_features, const ulong width)
{
    const ulong g = get_global_id(0);
    const ulong f = g / width;
    const ulong s = g % width;
    if (f >= n_features) return;
    __global const uint *cs = csum + f * (n + 1);
    const uint z = scores[f * n + (i - 1)];
    const uint j_lo = green_first_row(n, i, k);
    const uint j_hi = min(i, k);
    __global const P_T *o = old + f * (k + 1) * row_len;
    __global P_T *w = new + f * (k + 1) * row_len;
    for (uint j = j_lo; j <= j_hi; j++) {
        if (s < cs[j] || s > cs[i] - cs[i - j]) continue;
        REAL stay, join;
        green_weights(i, j, &stay, &join);
        const P_T same = (j < i) ? o[j * row_len + s] : P_ZERO;
        const P_T shifted = (j > 0 && s >= z) ? o[(j - 1) * row_len + (s - z)] : P_ZERO;
        w[j * row_len + s] = green_mix(stay, join, same, shifted);
    }
}

__kernel void green_feature(__global P_T *p, __global const uint *scores,
                            __global const uint *csum, const uint n, const uint k,
                            const ulong row_len, const ulong n_features)
{
    const ulong f = get_global_id(0);
    if (f >= n_features) return;
    __global P_T *P = p + f * (k + 1) * row_len;
    __global const uint *cs = csum + f * (n + 1);
    for (ulong t = 0; t < (k + 1) * row_len; t++) P[t] = P_ZERO;
    P[0] = P_ONE;
    for (uint i = 1; i <= n; i++) {
        const uint z = scores[f * n + (i - 1)];
        const uint j_lo = max(green_first_row(n, i, k), 1u); /* row 0 never changes */
        const uint j_hi = min(i, k);
        for (uint j = j_hi; j >= j_lo; j--) {
            REAL stay, join;
            green_weights(i, j, &stay, &join);
            __global P_T *row = P + j * row_len;
            __global const P_T *prev = P + (j - 1) * row_len;
            const ulong lo = cs[j], hi = cs[i] - cs[i - j];
            const ulong cut = clamp((ulong)z, lo, hi + 1); /* below it s - z < 0 */
            for (ulong s = lo; s < cut; s++) row[s] = green_mix(stay, join, row[s], P_ZERO);
            for (ulong s = cut; s <= hi; s++) row[s] = green_mix(stay, join, row[s], prev[s - z]);
        }
    }
}

/* out[f][s] = row k of feature f's buffer: the null distribution, without reading the rest. */
__kernel void green_last_row(__global const P_T *p, __global P_T *out, const uint k,
                             const ulong row_len, const ulong n_features)
{
    const ulong g = get_global_id(0);
    if (g >= n_features * row_len) return;
    const ulong f = g / row_len, s = g % row_len;
    out[g] = p[f * (k + 1) * row_len + k * row_len + s];
}
