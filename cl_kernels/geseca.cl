/*
 * Gene set co-regulation analysis (oclstat.geseca, fgsea's GESECA): the score of a gene set is
 * the squared length of its profile, sum over samples c of (sum over its genes i of E[i, c])^2,
 * with E row-centred (and optionally scaled) on the host. Random sets of every size give the
 * null by simple sampling, and chains of adaptive multilevel splitting give p-values far below
 * 1 / n_perm.
 *
 * E arrives as 32-bit integers (E[i m + c] = round(E_ic 2^b), |E[i m + c]| < 2^30, gene-major,
 * oclstat/_geseca/opencl.py) and profiles are summed in 64 bits, with b chosen so that every
 * set's profile is an exact integer below 2^53: a profile is the same integer whatever the
 * order of its genes. A score sums the squares of the profile's values as REAL, without
 * contraction, in one fixed order (geseca_combine): four lanes, lane l the columns
 * c = l (mod 4) below 4 floor(m / 4) in increasing c, the rest in a tail, so the same seed
 * gives the same sets, moves and scores on every device while the columns are summed four
 * at a time (256-bit vectors: no ABI beyond AVX2 is assumed). (32-bit rows halve the bytes a proposal reads, which at thousands of samples is
 * the cost of a move.)

 *   geseca_scores     set s (members[ptr[s] .. ptr[s + 1])): its score into out[s].
 *   geseca_null       work-item p draws, from MRG31k3p stream first + p, sizes[n_sizes - 1]
 *                     distinct genes (rejection); the first sizes[j] of them are a uniform
 *                     random set of that size, scored into out[j n_perm + p] (its lane sums
 *                     in lanes[(p n_sizes + j) 4 ..]).
 *   geseca_ml_start   chain c (group g = c / S, of set size k_g) starts as a uniform random set,
 *                     keeps its profile (profiles[c m ..]) and writes its score.
 *   geseca_ml_perturb chain c (of the ids listed) tries tries_g moves (a random member replaced by a random gene
 *                     not in the set; fgsea's proposal), accepting those whose score stays at
 *                     or above the group's bound; writes its score and the moves accepted.
 *   geseca_ml_copy    chain c of a group starting a level becomes chain from[c] of the
 *                     level before (its members, bitmap, profile and score), through a
 *                     scratch copy of those chains only.
 *
 * Chains live in one buffer: chain i of group g at base[g] + i k[g]; each chain also keeps
 * the set as a bitmap over the genes (words[c W .. c W + W), W = ceil(n / 32)), so a proposal
 * is checked in one read.
 *
 * Build define: REAL.
 */
#include <oclstat/real.clh>
#pragma OPENCL FP_CONTRACT OFF

#include <oclstat/mrg31k3p.clh>

/* Whether gene v is among pos[0 .. k). */
inline int geseca_has(__global const uint *pos, const uint k, const uint v)
{
    for (uint i = 0; i < k; i++)
        if (pos[i] == v) return 1;
    return 0;
}

/* k distinct genes of n into pos, in the order drawn. */
inline void geseca_draw(mrg31k3p_state *st, __global uint *pos, const uint k, const uint n)
{
    for (uint i = 0; i < k; i++) {
        uint v;
        do {
            v = mrg31k3p_below(st, n);
        } while (geseca_has(pos, i, v));
        pos[i] = v;
    }
}

#ifdef OCLSTAT_REAL_IS_DOUBLE
#define GESECA_REAL4 double4
#define geseca_convert4 convert_double4
#else
#define GESECA_REAL4 float4
#define geseca_convert4 convert_float4
#endif

inline REAL geseca_square(const long s)
{
    const REAL x = (REAL)s;
    return x * x;
}

inline GESECA_REAL4 geseca_square4(const long4 s)
{
    const GESECA_REAL4 x = geseca_convert4(s);
    return x * x;
}

/* A score from its four lane sums and its tail, in the one order every kernel uses. */
inline REAL geseca_combine(const GESECA_REAL4 a, const REAL tail)
{
    return ((a.s0 + a.s1) + (a.s2 + a.s3)) + tail;
}

inline long4 geseca_row4(__global const int *row)
{
    return convert_long4(vload4(0, row));
}

/* The profile of pos[0 .. k) into prof (when not null) and its score. */
inline REAL geseca_profile(__global const int *E, const uint m, __global const uint *pos,
                           const uint k, __global long *prof)
{
    const uint m4 = m & ~3u;
    GESECA_REAL4 lanes = (GESECA_REAL4)((REAL)0);
    for (uint c = 0; c < m4; c += 4u) {
        long4 s = (long4)(0);
        for (uint i = 0; i < k; i++) s += geseca_row4(E + (ulong)pos[i] * m + c);
        if (prof) vstore4(s, 0, prof + c);
        lanes += geseca_square4(s);
    }
    REAL tail = (REAL)0;
    for (uint c = m4; c < m; c++) {
        long s = 0;
        for (uint i = 0; i < k; i++) s += E[(ulong)pos[i] * m + c];
        if (prof) prof[c] = s;
        tail += geseca_square(s);
    }
    return geseca_combine(lanes, tail);
}

__kernel void geseca_scores(__global const int *E, const uint m, __global const uint *ptr,
                            __global const uint *members, const uint n_sets,
                            __global REAL *out)
{
    const uint s = get_global_id(0);
    if (s >= n_sets) return;
    out[s] = geseca_profile(E, m, members + ptr[s], ptr[s + 1] - ptr[s], 0);
}

__kernel void geseca_null(__global const uint *states, const ulong first, const uint n_perm,
                          __global const int *E, const uint n, const uint m,
                          __global const uint *sizes, const uint n_sizes,
                          __global uint *members, __global REAL *lanes, __global REAL *out)
{
    const uint p = get_global_id(0);
    if (p >= n_perm) return;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, first + p);
    const uint kmax = sizes[n_sizes - 1u], m4 = m & ~3u;
    __global uint *pos = members + (ulong)p * kmax;
    __global REAL *lane = lanes + (ulong)p * n_sizes * 4u;   /* each size's four lane sums */
    geseca_draw(&st, pos, kmax, n);
    for (uint j = 0; j < n_sizes; j++) {
        vstore4((GESECA_REAL4)((REAL)0), j, lane);
        out[(ulong)j * n_perm + p] = (REAL)0;                 /* the tails, then the scores */
    }
    for (uint c = 0; c < m4; c += 4u) {
        long4 s = (long4)(0);
        uint next = 0u;
        for (uint i = 0; i < kmax; i++) {
            s += geseca_row4(E + (ulong)pos[i] * m + c);
            if (sizes[next] == i + 1u) {
                vstore4(vload4(next, lane) + geseca_square4(s), next, lane);
                next++;
            }
        }
    }
    for (uint c = m4; c < m; c++) {
        long s = 0;
        uint next = 0u;
        for (uint i = 0; i < kmax; i++) {
            s += E[(ulong)pos[i] * m + c];
            if (sizes[next] == i + 1u) {
                out[(ulong)next * n_perm + p] += geseca_square(s);
                next++;
            }
        }
    }
    for (uint j = 0; j < n_sizes; j++)
        out[(ulong)j * n_perm + p] = geseca_combine(vload4(j, lane), out[(ulong)j * n_perm + p]);
}

/* ------------------------------------------------------------------ multilevel chains */

inline int geseca_bit(__global const uint *bits, const uint v)
{
    return (bits[v >> 5] >> (v & 31u)) & 1u;
}

__kernel void geseca_ml_start(__global uint *states, __global const int *E, const uint n,
                              const uint m, const uint S, __global const uint *group_k,
                              __global const ulong *group_base, const uint n_chains,
                              __global uint *chains, __global uint *bitmaps,
                              __global long *profiles, __global REAL *score)
{
    const uint c = get_global_id(0);
    if (c >= n_chains) return;
    const uint g = c / S, k = group_k[g], W = (n + 31u) >> 5;
    __global uint *pos = chains + group_base[g] + (ulong)(c - g * S) * k;
    __global uint *bits = bitmaps + (ulong)c * W;
    for (uint w = 0; w < W; w++) bits[w] = 0u;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, c);
    for (uint i = 0; i < k; i++) {
        uint v;
        do {
            v = mrg31k3p_below(&st, n);
        } while (geseca_bit(bits, v));
        bits[v >> 5] |= 1u << (v & 31u);
        pos[i] = v;
    }
    score[c] = geseca_profile(E, m, pos, k, profiles + (ulong)c * m);
    mrg31k3p_store(&st, states, c);
}

__kernel void geseca_ml_perturb(__global uint *states, __global const int *E, const uint n,
                                const uint m, const uint S, __global const uint *group_k,
                                __global const ulong *group_base,
                                __global const REAL *group_bound,
                                __global const uint *group_tries, __global const uint *ids,
                                const uint n_ids, __global uint *chains,
                                __global uint *bitmaps, __global long *profiles,
                                __global REAL *score, __global uint *accepted)
{
    const uint i = get_global_id(0);
    if (i >= n_ids) return;
    const uint c = ids[i], g = c / S, k = group_k[g], tries = group_tries[g], m4 = m & ~3u;
    accepted[c] = 0u;
    if (tries == 0u) return;
    const REAL bound = group_bound[g];
    __global uint *pos = chains + group_base[g] + (ulong)(c - g * S) * k;
    __global long *prof = profiles + (ulong)c * m;
    __global uint *bits = bitmaps + (ulong)c * ((n + 31u) >> 5);
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, c);
    uint moves = 0u;
    for (uint t = 0; t < tries; t++) {
        const uint drop = mrg31k3p_below(&st, k);
        const uint v = mrg31k3p_below(&st, n);
        if (geseca_bit(bits, v)) continue;
        const uint old = pos[drop];
        __global const int *old_row = E + (ulong)old * m;
        __global const int *new_row = E + (ulong)v * m;
        GESECA_REAL4 lanes = (GESECA_REAL4)((REAL)0);
        for (uint j = 0; j < m4; j += 4u)
            lanes += geseca_square4(vload4(0, prof + j) - geseca_row4(old_row + j)
                                    + geseca_row4(new_row + j));
        REAL tail = (REAL)0;
        for (uint j = m4; j < m; j++) tail += geseca_square(prof[j] - old_row[j] + new_row[j]);
        const REAL next = geseca_combine(lanes, tail);
        if (next >= bound) {
            for (uint j = 0; j < m; j++) prof[j] += (long)new_row[j] - old_row[j];
            pos[drop] = v;
            bits[old >> 5] &= ~(1u << (old & 31u));
            bits[v >> 5] |= 1u << (v & 31u);
            score[c] = next;
            moves++;
        }
    }
    accepted[c] = moves;
    mrg31k3p_store(&st, states, c);
}

/* One chain's members, bitmap, profile and score from chain f of buffers a to chain c of b. */
inline void geseca_chain_copy(const uint f, const uint c, const uint k, const ulong b0,
                              const uint S, const uint g, const uint W, const uint m,
                              __global const uint *a_pos, __global uint *b_pos,
                              __global const uint *a_bits, __global uint *b_bits,
                              __global const long *a_prof, __global long *b_prof,
                              __global const REAL *a_score, __global REAL *b_score)
{
    __global const uint *a = a_pos + b0 + (ulong)(f - g * S) * k;
    __global uint *d = b_pos + b0 + (ulong)(c - g * S) * k;
    for (uint i = 0; i < k; i++) d[i] = a[i];
    for (uint w = 0; w < W; w++) b_bits[(ulong)c * W + w] = a_bits[(ulong)f * W + w];
    for (uint j = 0; j < m; j++) b_prof[(ulong)c * m + j] = a_prof[(ulong)f * m + j];
    b_score[c] = a_score[f];
}

/* The chains ids[0 .. n_ids) of the groups starting a level: into the scratch (gather, chain
 * ids[i] from chain from[i]) or back from it (put). */
__kernel void geseca_ml_copy(__global uint *chains, __global uint *bitmaps,
                             __global long *profiles, __global REAL *score,
                             __global uint *tmp_chains, __global uint *tmp_bitmaps,
                             __global long *tmp_profiles, __global REAL *tmp_score,
                             const uint n, const uint m, const uint S,
                             __global const uint *group_k, __global const ulong *group_base,
                             __global const uint *ids, __global const uint *from,
                             const uint n_ids, const uint put)
{
    const uint i = get_global_id(0);
    if (i >= n_ids) return;
    const uint c = ids[i], g = c / S, W = (n + 31u) >> 5;
    if (put)
        geseca_chain_copy(c, c, group_k[g], group_base[g], S, g, W, m, tmp_chains, chains,
                          tmp_bitmaps, bitmaps, tmp_profiles, profiles, tmp_score, score);
    else
        geseca_chain_copy(from[i], c, group_k[g], group_base[g], S, g, W, m, chains,
                          tmp_chains, bitmaps, tmp_bitmaps, profiles, tmp_profiles, score,
                          tmp_score);
}
