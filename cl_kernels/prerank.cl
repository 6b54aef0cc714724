/*
 * Preranked GSEA (oclstat.gsea_prerank): the null of every set size by gene-set permutation,
 * and the chains of the adaptive multilevel splitting method (fgseaMultilevel's).
 *
 * The ranking is fixed: genes sit at positions 0 .. n-1 (decreasing statistic) with exact
 * integer weights w[0 .. n-1] (round(|stat|^p 2^(WEIGHT_BITS - E)), oclstat/_gsea/core.py). A
 * gene set is the ascending array of its members' positions. Random sets are drawn without
 * replacement by rejection (a draw already in the set is drawn again), so every prefix of a
 * draw sequence is a uniform random set of its size: one sequence serves every set size.
 *
 * Scores (argument score): 0 fgsea's "std" (the larger deviation, gsea_pick), 1 "pos" (the
 * running sum's maximum), 2 "neg" (its minimum); the multilevel chains always climb the
 * positive ES of their direction, which is "pos" for direction 0 and minus "neg" for 1.
 *
 *   prerank_null        work-item p draws, from MRG31k3p stream first + p, one sequence of
 *                       sizes[n_sizes - 1] distinct positions, keeps its prefix sorted (insertion)
 *                       and writes, for each of n_rank rankings (weights wt[r n_rank + q],
 *                       gene-major), the ES of the prefix of each needed size:
 *                       es[(q n_sizes + j) n_perm + p] for sizes[j] (ascending, distinct). The
 *                       draw is shared: every ranking's null is the one a run on that ranking
 *                       alone gets from the same seed.
 *   prerank_size_stats  per (ranking, size) over a batch: null ES >= 0, <= 0 and fixed-point
 *                       sums of each sign (NES); prerank_set_counts per (ranking, set): null
 *                       ES of its size at least as extreme as its own (p-values).
 *   prerank_es_sets     the observed sets of every ranking: both extremes and where they are.
 *   prerank_ml_start    chain c (group g = c / S, one set size and direction per group) starts
 *                       as a uniform random set of size k_g and writes its positive ES (the
 *                       running sum's maximum) and whether its ES is > 0.
 *   prerank_ml_perturb  chain c tries tries_g Metropolis moves (a random member replaced by a
 *                       random gene; accepted when the positive ES stays above the group's
 *                       bound), then writes as above and how many moves it accepted. The number
 *                       of tries is fixed per group, not the number of accepted moves: stopping
 *                       at a count of accepted moves would sample the jump chain, which favours
 *                       sets deep inside the region (those that accept more often).
 *                       A proposal is judged on the chain's chunks (sqrt(k) weight sums
 *                       that skip most of the scan) before the set changes: only an accepted
 *                       move shifts the positions.
 *   prerank_ml_copy     chain c of the next level starts as chain from[c] of this level.
 *
 * Chains live in one buffer: chain i of group g at base[g] + i * k[g]. A group climbs on the
 * ranking rank[g] of the weights (rankings x n): the groups of many rankings climb in one
 * launch per level. A group of direction 1
 * walks the reversed ranking (position r there is n - 1 - r here): its positive ES is the
 * magnitude of a negative ES. Integers throughout except the ES points (es_walk.clh): the same
 * seed gives the same sets, moves and scores on every device.
 *
 * Build define: REAL.
 */
#include <oclstat/real.clh>
#pragma OPENCL FP_CONTRACT OFF

#include <oclstat/mrg31k3p.clh>
#include <oclstat/es_walk.clh>

/* The weight of ranking position r (reversed for dir 1), the weights stride apart. */
inline long prerank_w(__global const long *w, const uint n, const uint dir, const uint r,
                      const uint stride)
{
    return w[(ulong)(dir ? n - 1u - r : r) * stride];
}

/* The first index of pos[0 .. k) that is >= v: a search of fixed length without branches
 * on the data (the halving step is a select), which unpredictable draws would mispredict. */
inline uint prerank_lower_bound(__global const uint *pos, const uint k, const uint v)
{
    if (k == 0u) return 0u;
    uint base = 0u, len = k;
    while (len > 1u) {
        const uint step = len >> 1;
        base = pos[base + step - 1u] < v ? base + step : base;
        len -= step;
    }
    return base + (uint)(pos[base] < v);
}

/* Insert a fresh draw into the sorted pos[0 .. k): 0 (nothing changed) when it is a member. */
inline int prerank_insert(__global uint *pos, const uint k, const uint v)
{
    const uint j = prerank_lower_bound(pos, k, v);
    if (j < k && pos[j] == v) return 0;
    for (uint i = k; i > j; i--) pos[i] = pos[i - 1u];
    pos[j] = v;
    return 1;
}

/* The extremes of the running sum of the set pos[0 .. k) (total weight nr): *mx the largest
 * point just after a hit, *mn the smallest just before one, each exactly as gsea_hit forms it
 * (two correctly rounded divisions and a subtraction). The walk finds them without dividing:
 * each point is first formed with two reciprocals and two products, which lies within
 * 8.2 ulp(1) of the divided point (each quotient within 3.1 ulp, both subtractions within
 * 1 ulp); only a point within PRERANK_SLACK = 32 ulp(1) of the extreme so far is divided
 * out. The point that holds the exact extreme is always among them (it is within 8.2 ulp of
 * its approximation, which is at most 16.4 ulp below the approximations before it), so the
 * extremes are the divided walk's bit for bit, at one multiplication per point plus about
 * one division per new extreme (a random walk sets O(sqrt(k)) of them). */
#define PRERANK_SLACK ((REAL)16 * (sizeof(REAL) == 8 ? (REAL)DBL_EPSILON : (REAL)FLT_EPSILON))

inline void prerank_extremes_at(__global const uint *pos, const uint k, const long nr,
                                __global const long *w, const uint stride, const uint n,
                                const uint dir, const uint want, REAL *mx, REAL *mn,
                                uint *i_mx, uint *i_mn)
{
    const REAL hit_scale = (REAL)1 / (REAL)(nr > 0 ? nr : (long)k);
    const REAL miss_scale = (REAL)1 / (REAL)(n - k);
    REAL amx = -INFINITY, amn = INFINITY, emx = -INFINITY, emn = INFINITY;
    long c = 0;
    REAL before = (REAL)0;                /* (REAL)c, carried: one conversion per member */
    for (uint h = 0; h < k; h++) {
        const uint r = pos[h];
        const long wr = nr > 0 ? prerank_w(w, n, dir, r, stride) : 1;
        const REAL miss = (REAL)(r - h) * miss_scale;
        const REAL after = (REAL)(c + wr);
        const REAL top = after * hit_scale - miss;
        const REAL bottom = before * hit_scale - miss;
        before = after;
        if ((want & 1u) && top > amx - PRERANK_SLACK) {
            REAL t, b;
            gsea_hit(r, h, c, wr, nr, k, n, &t, &b);
            if (t > emx) { emx = t; *i_mx = h; }     /* the first member at the maximum */
            amx = top > amx ? top : amx;
        }
        if ((want & 2u) && bottom < amn + PRERANK_SLACK) {
            REAL t, b;
            gsea_hit(r, h, c, wr, nr, k, n, &t, &b);
            if (b < emn) { emn = b; *i_mn = h; }
            amn = bottom < amn ? bottom : amn;
        }
        c += wr;
    }
    *mx = emx;
    *mn = emn;
}

inline void prerank_extremes(__global const uint *pos, const uint k, const long nr,
                             __global const long *w, const uint stride, const uint n,
                             const uint dir, const uint want, REAL *mx, REAL *mn)
{
    uint i_mx, i_mn;
    prerank_extremes_at(pos, k, nr, w, stride, n, dir, want, mx, mn, &i_mx, &i_mn);
}

/* The score (0 std, 1 pos, 2 neg) of the set pos[0 .. k) (total weight nr); *top_max gets
 * the positive ES. */
inline REAL prerank_es(__global const uint *pos, const uint k, const long nr,
                       __global const long *w, const uint n, const uint dir, const uint score,
                       REAL *top_max)
{
    REAL mx, mn;
    prerank_extremes(pos, k, nr, w, 1u, n, dir, 3u, &mx, &mn);
    *top_max = mx;
    return score == 1u ? mx : score == 2u ? mn : gsea_pick(mx, mn);
}

/* Whether the running sum of pos[0 .. k) rises above bound (fgsea's acceptance rule). The
 * points are taken with two reciprocals and multiplications instead of two divisions per
 * member (3-5 times faster on CPUs): still correctly rounded operations only, so the decision
 * is the same on every device; it may differ from the divided points by an ulp, which only
 * moves the acceptance boundary by that much. */
inline REAL prerank_point(const long c, const REAL hit_scale, const uint r, const uint h,
                          const REAL miss_scale)
{
    return (REAL)c * hit_scale - (REAL)(r - h) * miss_scale;
}

inline long prerank_total(__global const uint *pos, const uint k, __global const long *w,
                          const uint n, const uint dir)
{
    long nr = 0;
    for (uint h = 0; h < k; h++) nr += prerank_w(w, n, dir, pos[h], 1u);
    return nr;
}

__kernel void prerank_null(__global const uint *states, const ulong first, const uint n_perm,
                           __global const long *wt, const uint n, const uint n_rank,
                           __global const uint *sizes, const uint n_sizes, const uint score,
                           __global uint *members, __global long *totals, __global REAL *es)
{
    const uint p = get_global_id(0);
    if (p >= n_perm) return;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, first + p);
    const uint kmax = sizes[n_sizes - 1u];
    const uint want = score == 1u ? 1u : score == 2u ? 2u : 3u;
    __global uint *pos = members + (ulong)p * kmax;
    __global long *nr = totals + (ulong)p * n_rank;   /* each ranking's weight of the prefix */
    for (uint q = 0; q < n_rank; q++) nr[q] = 0;
    uint next = 0u;
    for (uint k = 0; k < kmax; k++) {
        uint r;
        do {
            r = mrg31k3p_below(&st, n);
        } while (!prerank_insert(pos, k, r));
        for (uint q = 0; q < n_rank; q++) nr[q] += wt[(ulong)r * n_rank + q];
        if (sizes[next] == k + 1u) {
            /* one random set of positions, scored on every ranking (each its own weights):
             * ranking by ranking, the set's rows of wt stay in the cache */
            for (uint q = 0; q < n_rank; q++) {
                REAL mx, mn;
                prerank_extremes(pos, k + 1u, nr[q], wt + q, n_rank, n, 0u, want, &mx, &mn);
                es[((ulong)q * n_sizes + next) * n_perm + p] =
                    score == 1u ? mx : score == 2u ? mn : gsea_pick(mx, mn);
            }
            next++;
        }
    }
}

/* ------------------------------------------------------------------ multilevel chains */

inline void prerank_ml_report(__global const uint *pos, const uint k, const long nr,
                              __global const long *w, const uint n, const uint dir,
                              const uint c, __global REAL *es_pos, __global uint *is_pos)
{
    REAL top;
    const REAL es = prerank_es(pos, k, nr, w, n, dir, 0u, &top);
    es_pos[c] = top;
    is_pos[c] = es > (REAL)0;
}

/* A uniform random set of k positions into pos (sorted). */
inline void prerank_draw(mrg31k3p_state *st, __global uint *pos, const uint k, const uint n)
{
    for (uint i = 0; i < k; i++) {
        uint r;
        do {
            r = mrg31k3p_below(st, n);
        } while (!prerank_insert(pos, i, r));
    }
}


__kernel void prerank_ml_start(__global uint *states, __global const long *weights,
                               const uint n, const uint S, __global const uint *group_k,
                               __global const uint *group_dir, __global const ulong *group_base,
                               __global const uint *group_rank, const uint n_chains,
                               __global uint *chains, __global REAL *es_pos,
                               __global uint *is_pos)
{
    const uint c = get_global_id(0);
    if (c >= n_chains) return;
    const uint g = c / S, k = group_k[g], dir = group_dir[g];
    __global const long *w = weights + (ulong)group_rank[g] * n;     /* the group's ranking */
    __global uint *pos = chains + group_base[g] + (ulong)(c - g * S) * k;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, c);
    prerank_draw(&st, pos, k, n);
    prerank_ml_report(pos, k, prerank_total(pos, k, w, n, dir), w, n, dir, c, es_pos, is_pos);
    mrg31k3p_store(&st, states, c);
}

/* The chunks of a chain in prerank_ml_perturb (fgsea's sqrt(k) chunks, kept as counts and
 * weights beside the sorted positions): its members split at up to PRERANK_CHUNKS - 1 of
 * their own positions, fixed for the call. Chunk i holds the members at positions
 * [lo[i], lo[i + 1]) (lo[0] = 0), cnt[i] of them, of total weight sum[i]. No point of a chunk
 * can be above its bound: the point its first member would have with the whole chunk's
 * weight and none of the chunk's misses (a point grows with the weight before it and falls
 * with the misses, and correctly rounded operations keep both orders), so a chunk whose
 * bound is not above the level's is skipped without changing any decision. */
#define PRERANK_CHUNKS 32

typedef struct {
    uint m;                           /* chunks in use */
    uint lo[PRERANK_CHUNKS];
    uint cnt[PRERANK_CHUNKS];
    long sum[PRERANK_CHUNKS];
} prerank_chunks;

/* Split pos[0 .. k) into about sqrt(k) chunks; their total weight is the set's (returned). */
inline long prerank_chunk(__global const uint *pos, const uint k, __global const long *w,
                          const uint n, const uint dir, prerank_chunks *ch)
{
    uint m = 1u;
    while (m < PRERANK_CHUNKS && (m + 1u) * (m + 1u) <= k) m++;
    ch->m = m;
    long nr = 0;
    uint h = 0u;
    for (uint i = 0; i < m; i++) {
        const uint end = (uint)(((ulong)(i + 1u) * k) / m);
        ch->lo[i] = i == 0u ? 0u : pos[h];
        ch->cnt[i] = end - h;
        long s = 0;
        for (; h < end; h++) s += prerank_w(w, n, dir, pos[h], 1u);
        ch->sum[i] = s;
        nr += s;
    }
    return nr;
}

/* The chunk that holds position r: how many chunks after the first start at or before it
 * (a count, without branches on the data). */
inline uint prerank_chunk_of(const prerank_chunks *ch, const uint r)
{
    uint i = 0u;
    for (uint b = 1u; b < ch->m; b++) i += (uint)(ch->lo[b] <= r);
    return i;
}

/* Whether the running sum rises above bound (fgsea's acceptance rule) for the set pos[0 .. k)
 * with the member at index u (chunk cu, weight w_u) replaced by position v (chunk cv, weight
 * w_v; not a member), of total weight nr, read without changing pos (a rejected move costs
 * no shifts): *hw gets the index of the first point above bound in the new set, *cw the
 * weight up to and including it. Points: prerank_point. */
inline int prerank_exceeds_swapped(__global const uint *pos, const uint k, const long nr,
                                   __global const long *w, const uint n, const uint dir,
                                   const REAL bound, const prerank_chunks *ch, const uint u,
                                   const uint cu, const long w_u, const uint v, const uint cv,
                                   const long w_v, uint *hw, long *cw)
{
    const REAL hit_scale = nr > 0 ? (REAL)1 / (REAL)nr : (REAL)1 / (REAL)k;
    const REAL miss_scale = (REAL)1 / (REAL)(n - k);
    long c = 0;
    uint h = 0u, t = 0u;              /* members before the chunk: in the new set, in pos */
    for (uint i = 0; i < ch->m; i++) {
        const uint in_u = i == cu, in_v = i == cv;
        const uint cnt = ch->cnt[i] - in_u + in_v;
        const long sum = nr > 0 ? ch->sum[i] - (in_u ? w_u : 0) + (in_v ? w_v : 0) : (long)cnt;
        if (cnt != 0u && prerank_point(c + sum, hit_scale, ch->lo[i], h, miss_scale) > bound) {
            uint pending = in_v;      /* v not yet walked */
            const uint end = t + ch->cnt[i];
            while (t < end || pending) {
                uint r;
                long wr;
                if (pending && (t == end || v < pos[t])) {
                    r = v;
                    wr = w_v;
                    pending = 0u;
                } else {
                    const uint at = t++;
                    if (at == u) continue;
                    r = pos[at];
                    wr = prerank_w(w, n, dir, r, 1u);
                }
                c += nr > 0 ? wr : 1;
                if (prerank_point(c, hit_scale, r, h, miss_scale) > bound) {
                    *hw = h;
                    *cw = c;
                    return 1;
                }
                h++;
            }
        } else {
            c += sum;
            h += cnt;
            t += ch->cnt[i];
        }
    }
    return 0;
}

__kernel void prerank_ml_perturb(__global uint *states, __global const long *weights,
                                 const uint n, const uint S, __global const uint *group_k,
                                 __global const uint *group_dir,
                                 __global const ulong *group_base,
                                 __global const uint *group_rank,
                                 __global const REAL *group_bound,
                                 __global const uint *group_tries, const uint n_chains,
                                 __global uint *chains, __global REAL *es_pos,
                                 __global uint *is_pos, __global uint *accepted)
{
    const uint c = get_global_id(0);
    if (c >= n_chains) return;
    const uint g = c / S, tries = group_tries[g];
    if (tries == 0u) return;
    const uint k = group_k[g], dir = group_dir[g];
    __global const long *w = weights + (ulong)group_rank[g] * n;
    const REAL bound = group_bound[g];
    __global uint *pos = chains + group_base[g] + (ulong)(c - g * S) * k;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, c);
    prerank_chunks ch;
    long nr = prerank_chunk(pos, k, w, n, dir, &ch);
    const REAL miss_scale = (REAL)1 / (REAL)(n - k);
    uint moves = 0u;
    /* The witness: a member whose point was above the bound after the last accepted move
     * (index hw, weight cw up to it; have_w = 0: unknown). A proposal that keeps the witness
     * above the bound is accepted without a scan: the decision is the scan's, found sooner. */
    int have_w = 0;
    uint hw = 0u;
    long cw = 0;
    for (uint t = 0; t < tries; t++) {
        const uint u = mrg31k3p_below(&st, k);
        const uint v = mrg31k3p_below(&st, n);
        const uint j = prerank_lower_bound(pos, k, v);
        if (j < k && pos[j] == v) {
            moves += j == u;          /* a member replaced by itself: a move that stays */
            continue;
        }
        const uint old = pos[u];
        const long w_old = prerank_w(w, n, dir, old, 1u), w_new = prerank_w(w, n, dir, v, 1u);
        const long nr_new = nr - w_old + w_new;
        const uint cu = prerank_chunk_of(&ch, old), cv = prerank_chunk_of(&ch, v);
        uint hw2 = 0u;
        long cw2 = 0;
        int accept = 0;
        if (have_w && u != hw && nr_new > 0) {
            const uint rw = pos[hw];
            const int v_before = v < rw, old_before = u < hw;
            cw2 = cw + (v_before ? w_new : 0) - (old_before ? w_old : 0);
            hw2 = hw + (uint)v_before - (uint)old_before;
            accept = prerank_point(cw2, (REAL)1 / (REAL)nr_new, rw, hw2, miss_scale) > bound;
        }
        if (!accept)
            accept = prerank_exceeds_swapped(pos, k, nr_new, w, n, dir, bound, &ch, u, cu,
                                             w_old, v, cv, w_new, &hw2, &cw2);
        if (!accept) continue;
        /* take old out and put v in, keeping the order */
        if (j > u) {
            for (uint i = u; i + 1u < j; i++) pos[i] = pos[i + 1u];
            pos[j - 1u] = v;
        } else {
            for (uint i = u; i > j; i--) pos[i] = pos[i - 1u];
            pos[j] = v;
        }
        ch.cnt[cu]--;
        ch.sum[cu] -= w_old;
        ch.cnt[cv]++;
        ch.sum[cv] += w_new;
        nr = nr_new;
        moves++;
        have_w = nr > 0;
        hw = hw2;
        cw = cw2;
    }
    prerank_ml_report(pos, k, nr, w, n, dir, c, es_pos, is_pos);
    accepted[c] = moves;
    mrg31k3p_store(&st, states, c);
}

__kernel void prerank_ml_copy(__global const uint *src, __global uint *dst, const uint S,
                              __global const uint *group_k, __global const ulong *group_base,
                              __global const uint *group_active, __global const uint *from,
                              const uint n_chains)
{
    const uint c = get_global_id(0);
    if (c >= n_chains) return;
    const uint g = c / S;
    const uint k = group_k[g];
    const ulong b = group_base[g];
    __global const uint *a = src + b + (ulong)(from[c] - g * S) * k;
    __global uint *d = dst + b + (ulong)(c - g * S) * k;
    if (group_active[g]) for (uint i = 0; i < k; i++) d[i] = a[i];
}

/* ------------------------------------------------------------------ observed sets */

/* Set s of ranking q (weights w[q n .. q n + n)), members[ptr[q S + s] .. ptr[q S + s + 1])
 * (ascending positions; S = n_sets): its running sum's maximum mx and minimum mn and the
 * first members at them, at[2 (q S + s)] and at[2 (q S + s) + 1] (the leading edge). */
__kernel void prerank_es_sets(__global const long *w, const uint n, __global const uint *ptr,
                              __global const uint *members, const uint n_sets,
                              const uint n_rank, __global REAL *mx, __global REAL *mn,
                              __global uint *at)
{
    const uint i = get_global_id(0);
    if (i >= n_sets * n_rank) return;
    __global const long *wq = w + (ulong)(i / n_sets) * n;
    __global const uint *pos = members + ptr[i];
    const uint k = ptr[i + 1u] - ptr[i];
    REAL a, b;
    uint ia = 0u, ib = 0u;
    prerank_extremes_at(pos, k, prerank_total(pos, k, wq, n, 0u), wq, 1u, n, 0u, 3u, &a, &b,
                        &ia, &ib);
    mx[i] = a;
    mn[i] = b;
    at[2 * (ulong)i] = ia;
    at[2 * (ulong)i + 1u] = ib;
}

/* ------------------------------------------------------------------ the null's counts */

#define PRERANK_FIXED(e) ((long)rint(ldexp((e), 32)))    /* exact: |e| <= 1 */

/* Per (ranking q, size j) over the batch's permutations (es as prerank_null writes it), added
 * to the running totals: null ES >= 0 and <= 0, and the fixed-point sums of their positive
 * and negative parts (round(ES 2^32): integer sums, the same for any split into batches). */
__kernel void prerank_size_stats(__global const REAL *es, const uint count, const uint n_rank,
                                 const uint n_sizes, __global long *stats)
{
    const uint i = get_global_id(0);
    if (i >= n_rank * n_sizes) return;
    long ge = 0, le = 0, sp = 0, sn = 0;
    __global const REAL *col = es + (ulong)i * count;
    for (uint p = 0; p < count; p++) {
        const REAL e = col[p];
        ge += e >= (REAL)0;
        le += e <= (REAL)0;
        if (e > (REAL)0) sp += PRERANK_FIXED(e);
        if (e < (REAL)0) sn += PRERANK_FIXED(e);
    }
    stats[4 * (ulong)i] += ge;
    stats[4 * (ulong)i + 1u] += le;
    stats[4 * (ulong)i + 2u] += sp;
    stats[4 * (ulong)i + 3u] += sn;
}

/* Per (ranking q, set s): the batch's null ES of the set's size at least as high as its own
 * ES and at most as low, added to more[2 (q S + s)] and more[2 (q S + s) + 1]. */
__kernel void prerank_set_counts(__global const REAL *es, const uint count, const uint n_rank,
                                 const uint n_sizes, const uint n_sets,
                                 __global const uint *size_of, __global const REAL *es_obs,
                                 __global long *more)
{
    const uint i = get_global_id(0);
    if (i >= n_rank * n_sets) return;
    const uint q = i / n_sets, s = i - q * n_sets;
    const REAL obs = es_obs[i];
    __global const REAL *col = es + ((ulong)q * n_sizes + size_of[s]) * count;
    long ge = 0, le = 0;
    for (uint p = 0; p < count; p++) {
        const REAL e = col[p];
        ge += e >= obs;
        le += e <= obs;
    }
    more[2 * (ulong)i] += ge;
    more[2 * (ulong)i + 1u] += le;
}
