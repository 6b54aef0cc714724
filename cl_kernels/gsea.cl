/*
 * GSEA with phenotype permutations (oclstat.gsea): a batch of permutations at a time, from the
 * permuted labels to the null statistics, without the ES table leaving the device.
 *
 *   gsea_labels      permutation p draws a uniform subset of n_a of the n samples for class A
 *                    (selection sampling with exact integers from MRG31k3p stream first + p) and
 *                    writes it as a bit mask: labels[p * n_words + s / 32] bit s % 32.
 *   gsea_metric      the ranking metric of one gene under one permutation per work-item:
 *                    the sums of the smaller class over its own samples, the other class's
 *                    as the gene's totals minus them.
 *   gsea_shuffle     continuous phenotypes: permutation p is a uniform shuffle of the samples
 *                    (Fisher-Yates, exact integers from stream first + p): sample s takes the
 *                    profile value of sample shuffle[p * n + s].
 *   gsea_metric_profile  the correlation or distance of every gene with PPI shuffled profiles
 *                    per work-item (METRIC 6-9), each expression value read once.
 *   gsea_rank        one work-group per permutation ranks the genes (descending metric; equal
 *                    values: the larger gene index first) by a bucket count on the metric range
 *                    and exact comparisons inside each bucket: rank[g] and order[r]; it also
 *                    writes the permutation's weight exponent wexp[p] (below). With RANKED
 *                    (the pairs schedule) only the genes of some set get their rank.
 *   gsea_es_pairs    GPUs: one work-group per (pack of sets, permutation); member j of set s
 *                    gets its position among the members from pairwise rank comparisons.
 *   gsea_es_walk     CPUs: one work-item per permutation walks the genes in rank order and
 *                    advances the running sum of every set the gene belongs to.
 *   gsea_set_stats   per set over the batch: positive/negative null counts and sums (for NES)
 *                    and how many null ES are at least as extreme as the observed one.
 *   gsea_null_counts per permutation: the normalised null ES of every set, counted against the
 *                    sorted observed NES (Broad's FDR numerators) and its max/min (FWER).
 *
 * The metric uses only correctly rounded operations (+ - * / sqrt, contraction off) with sums in
 * sample order (the totals summed on the host, in sample order), so ranks are the same on every
 * device. The ES sums are exact: a gene's weight
 * |m|^p becomes the integer round(|m|^p 2^(WEIGHT_BITS - E)), E the binary exponent of the largest weight
 * of the permutation (wexp[p]; a power-of-two scaling, exact), the running sums are 64-bit
 * integer sums, and each point of the walk is (hits' weight) / (set's weight) - misses / (N - k)
 * with correctly rounded divisions: the same ES bit for bit in either ES schedule and on every
 * device (oclstat/gsea.py computes the observed ES by the same rule).
 *
 * Build defines: REAL (double, or float without fp64), METRIC (0 signal_to_noise, 1 t_test,
 * 2 diff_of_classes, 3 ratio_of_classes, 4 log2_ratio_of_classes, 5 abs_signal_to_noise; the
 * ranking key of 4 is the ratio, log2 is applied for the weight only; continuous profiles:
 * 6 pearson, 7 cosine, 8 manhattan, 9 euclidean, Broad's definitions), WEIGHT_MODE (0: p = 0, 1: p = 1, 2: p = 2,
 * 3: p = 1.5, 4: pow(|m|, WEIGHT_P)), PPI (permutations per work-item in gsea_metric_profile),
 * MINORITY_A (1: class A is the smaller class, or as large as B; gsea_metric reads its samples),
 * NB (buckets in gsea_rank, a power of two at least the work-group size), RANKED (1: gsea_rank
 * ranks only the genes listed in wanted), WEIGHT_BITS (digits of the
 * largest fixed-point weight: sums over every gene stay below 2^62).
 */
#include <oclstat/real.clh>
#pragma OPENCL FP_CONTRACT OFF


#include <oclstat/mrg31k3p.clh>
#include <oclstat/es_walk.clh>

/* ------------------------------------------------------------------ permuted labels */

__kernel void gsea_labels(__global const uint *states, const ulong first, const uint n,
                          const uint n_a, const uint n_words, __global uint *labels,
                          const uint n_perm)
{
    const uint p = get_global_id(0);
    if (p >= n_perm) return;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, first + p);
    uint need = n_a, word = 0u;
    for (uint s = 0; s < n; s++) {
        const uint left = n - s;
        uint take;
        if (need == 0u) take = 0u;
        else if (need == left) take = 1u;
        else take = mrg31k3p_below(&st, left) < need;
        need -= take;
        word |= take << (s & 31u);
        if ((s & 31u) == 31u || s + 1u == n) {
            labels[(ulong)p * n_words + (s >> 5)] = word;
            word = 0u;
        }
    }
}

/* ------------------------------------------------------------------ ranking metric */

/* Metric of one gene from its centred class sums (sum and sum of squares of x - mean). */
inline REAL gsea_metric_value(const REAL sa, const REAL qa, const REAL sb, const REAL qb,
                              const REAL na, const REAL nb, const REAL centre)
{
    const REAL ca = sa / na, cb = sb / nb;           /* centred means */
    const REAL ma = ca + centre, mb = cb + centre;   /* class means */
#if METRIC <= 1 || METRIC == 5
    const REAL va = fmax((qa - sa * ca) / (na - (REAL)1), (REAL)0);
    const REAL vb = fmax((qb - sb * cb) / (nb - (REAL)1), (REAL)0);
#endif
    REAL m;
#if METRIC == 0 || METRIC == 5
    REAL da = fmax(sqrt(va), (REAL)0.2 * fabs(ma));
    REAL db = fmax(sqrt(vb), (REAL)0.2 * fabs(mb));
    if (da == (REAL)0) da = (REAL)0.2;
    if (db == (REAL)0) db = (REAL)0.2;
    m = (ma - mb) / (da + db);
#if METRIC == 5
    m = fabs(m);
#endif
#elif METRIC == 1
    m = (ma - mb) / sqrt(va / na + vb / nb);
#elif METRIC == 2
    m = ma - mb;
#else
    m = ma / mb;
#endif
    return isfinite(m) ? m : (REAL)0;
}

/* key[p * n_genes + g], one gene and permutation per work-item: xt is the centred expression,
 * sample-major (xt[s * n_genes + g]), centre[g] the gene means taken out, totals[g] and
 * totals[n_genes + g] its sum and sum of squares over all samples. Only the samples of the
 * smaller class are read (class A with MINORITY_A, else class B), their sums taken in sample
 * order; the other class's sums are the totals minus them: 17 of the 200 values per gene and
 * permutation in GSE19429's design (183 vs 17), where adding every sample to its own class's
 * sums read all 200 (about 6x faster on CPUs, benchmarks/RESULTS.md). A work-group shares its
 * permutation, so the walk over a label word's bits takes the same branches in every
 * work-item. */
__kernel void gsea_metric(__global const REAL *xt, __global const REAL *centre,
                          __global const REAL *totals, __global const uint *labels,
                          const uint n_genes, const uint n, const uint n_a, const uint n_words,
                          const uint n_perm, __global REAL *key)
{
    const uint g = get_global_id(0);
    const uint p = get_global_id(1);
    if (g >= n_genes || p >= n_perm) return;
    __global const uint *row = labels + (ulong)p * n_words;
    REAL sm = (REAL)0, qm = (REAL)0;
    for (uint w = 0; w < n_words; w++) {
#if MINORITY_A
        uint bits = row[w];
#else
        const uint valid = (w + 1u == n_words && (n & 31u)) ? (1u << (n & 31u)) - 1u
                                                             : 0xffffffffu;
        uint bits = ~row[w] & valid;
#endif
        while (bits) {
            const uint s = (w << 5) + popcount((bits & (0u - bits)) - 1u);
            bits &= bits - 1u;
            const REAL x = xt[(ulong)s * n_genes + g];
            sm += x;
            qm += x * x;
        }
    }
    const REAL ts = totals[g], tq = totals[n_genes + g];
#if MINORITY_A
    const REAL sa = sm, qa = qm, sb = ts - sm, qb = tq - qm;
#else
    const REAL sb = sm, qb = qm, sa = ts - sm, qa = tq - qm;
#endif
    key[(ulong)p * n_genes + g] = gsea_metric_value(sa, qa, sb, qb, (REAL)n_a, (REAL)(n - n_a),
                                                    centre[g]);
}

/* ------------------------------------------------------------------ continuous profiles */

__kernel void gsea_shuffle(__global const uint *states, const ulong first, const uint n,
                           __global uint *shuffle, const uint n_perm)
{
    const uint p = get_global_id(0);
    if (p >= n_perm) return;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, first + p);
    __global uint *row = shuffle + (ulong)p * n;
    for (uint s = 0; s < n; s++) row[s] = s;
    for (uint s = n - 1u; s > 0u; s--) {
        const uint j = mrg31k3p_below(&st, s + 1u);
        const uint t = row[s];
        row[s] = row[j];
        row[j] = t;
    }
}

/* key[p * n_genes + g] for permutations p0 .. p0 + PPI - 1 of the profile tmpl: xt is the
 * expression, sample-major (centred for pearson, whose tmpl is centred too), scale[g] the
 * product of the two norms (pearson, cosine; unused by the distances). */
__kernel void gsea_metric_profile(__global const REAL *xt, __global const REAL *scale,
                                  __global const REAL *tmpl, __global const uint *shuffle,
                                  const uint n_genes, const uint n, const uint n_perm,
                                  __global REAL *key)
{
    const uint g = get_global_id(0);
    const uint p0 = get_global_id(1) * PPI;
    if (g >= n_genes || p0 >= n_perm) return;
    REAL acc[PPI];
    ulong row[PPI];
    for (uint k = 0; k < PPI; k++) {
        acc[k] = (REAL)0;
        row[k] = (ulong)min(p0 + k, n_perm - 1u) * n;
    }
    for (uint s = 0; s < n; s++) {
        const REAL x = xt[(ulong)s * n_genes + g];
        for (uint k = 0; k < PPI; k++) {
            const REAL t = tmpl[shuffle[row[k] + s]];
#if METRIC == 6 || METRIC == 7
            acc[k] += x * t;
#elif METRIC == 8
            acc[k] += fabs(x - t);
#else
            const REAL d = x - t;
            acc[k] += d * d;
#endif
        }
    }
    const REAL sg = scale[g];
    for (uint k = 0; k < PPI; k++) {
#if METRIC == 6 || METRIC == 7
        REAL m = acc[k] / sg;
#elif METRIC == 8
        REAL m = acc[k];
#else
        REAL m = sqrt(acc[k]);
#endif
        if (p0 + k < n_perm) key[(ulong)(p0 + k) * n_genes + g] = isfinite(m) ? m : (REAL)0;
    }
}

/* ------------------------------------------------------------------ ranks */

inline uint gsea_bucket(const REAL v, const REAL hi, const REAL scale)
{
    const REAL t = (hi - v) * scale;     /* monotone in v: larger values, lower buckets */
    return t >= (REAL)(NB - 1) ? (uint)(NB - 1) : (uint)(int)t;    /* int: an instruction */
}

/* The weight |m|^p of a gene from its ranking key. */
inline REAL gsea_weight(const REAL k)
{
#if METRIC == 4
    const REAL a = fabs(log2(k));
#else
    const REAL a = fabs(k);
#endif
#if WEIGHT_MODE == 0
    (void)a;
    return (REAL)1;
#elif WEIGHT_MODE == 1
    return a;
#elif WEIGHT_MODE == 2
    return a * a;
#elif WEIGHT_MODE == 3
    return a * sqrt(a);
#else
    return pow(a, (REAL)WEIGHT_P);
#endif
}

/* The weight of a gene as an exact integer, scaled by 2^(WEIGHT_BITS - wexp). */
inline long gsea_weight_fixed(const REAL k, const int wexp)
{
    return (long)rint(ldexp(gsea_weight(k), WEIGHT_BITS - wexp));
}

__kernel void gsea_rank(__global const REAL *key, const uint n_genes, __global uint *slots,
                        __global REAL *slot_key, __global uint *rank, __global uint *order,
                        __global int *wexp, __global const uint *wanted,
                        const uint n_wanted, __local uint *hist, __local uint *cursor, __local uint *part,
                        __local REAL *lo_hi)
{
    const uint p = get_group_id(0), lid = get_local_id(0), L = get_local_size(0);
    const ulong base = (ulong)p * n_genes;
    REAL lo = INFINITY, hi = -INFINITY;
    for (uint g = lid; g < n_genes; g += L) {
        const REAL v = key[base + g];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    lo_hi[2 * lid] = lo;
    lo_hi[2 * lid + 1] = hi;
    for (uint b = lid; b < NB; b += L) hist[b] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = L / 2; stride > 0; stride >>= 1) {
        if (lid < stride) {
            const REAL a = lo_hi[2 * (lid + stride)], b = lo_hi[2 * (lid + stride) + 1];
            if (a < lo_hi[2 * lid]) lo_hi[2 * lid] = a;
            if (b > lo_hi[2 * lid + 1]) lo_hi[2 * lid + 1] = b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    lo = lo_hi[0];
    hi = lo_hi[1];
    if (lid == 0) { /* the binary exponent of the largest weight (0 when every weight is 0) */
#if METRIC == 4
        const REAL top = fmax(gsea_weight(lo), gsea_weight(hi)); /* |log2| is not monotone */
#else
        const REAL top = gsea_weight(fmax(fabs(lo), fabs(hi)));
#endif
        int e = 0;
        if (top > (REAL)0) frexp(top, &e);
        wexp[p] = e;
    }
    const REAL spread = (REAL)NB / (hi - lo);  /* all equal, or a denormal range: one bucket */
    const REAL scale = hi > lo && isfinite(spread) ? spread : (REAL)0;
    for (uint g = lid; g < n_genes; g += L) atomic_inc(&hist[gsea_bucket(key[base + g], hi, scale)]);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* exclusive scan of hist into cursor: per-thread runs of NB / L buckets, then the runs */
    const uint run = NB / L, first = lid * run;
    uint total = 0u;
    for (uint b = 0; b < run; b++) total += hist[first + b];
    part[lid] = total;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < L; off <<= 1) {
        const uint t = lid >= off ? part[lid - off] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    uint acc = part[lid] - total;
    for (uint b = 0; b < run; b++) {
        cursor[first + b] = acc;
        acc += hist[first + b];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (uint g = lid; g < n_genes; g += L) {
        const REAL v = key[base + g];
        const uint pos = atomic_inc(&cursor[gsea_bucket(v, hi, scale)]);
        slots[base + pos] = g;
        slot_key[base + pos] = v;   /* a bucket's keys side by side: the comparisons below */
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);

    /* cursor[b] is now the end of bucket b; rank = start + members that come first. RANKED:
     * only the genes of wanted[0 .. n_wanted) get a rank (the ES pairs read the set members'
     * ranks alone); else every gene gets its rank and its place in order. */
#if RANKED
    for (uint i = lid; i < n_wanted; i += L) {
        const uint g = wanted[i];
#else
    for (uint g = lid; g < n_genes; g += L) {
#endif
        const REAL v = key[base + g];
        const uint b = gsea_bucket(v, hi, scale);
        const uint end = cursor[b], start = end - hist[b];
        uint r = start;
        for (uint q = start; q < end; q++) {
            const REAL w = slot_key[base + q];
            r += (w > v) || (w == v && slots[base + q] > g);
        }
        rank[base + g] = r;
#if !RANKED
        order[base + r] = g;
#endif
    }
}

/* ------------------------------------------------------------------ enrichment scores */

__kernel void gsea_es_pairs(__global const REAL *key, __global const uint *rank,
                            __global const int *wexp, const uint n_genes,
                            __global const uint *pack_begin, __global const uint *members,
                            __global const uint *member_set, __global const uint *set_begin,
                            __global const uint *set_size, __global REAL *es, const uint n_perm,
                            __local uint *lr, __local long *lw, __local REAL *lt,
                            __local REAL *lb)
{
    const uint pk = get_group_id(0), lid = get_local_id(0), L = get_local_size(0);
    const uint p = get_global_id(1);
    const uint b0 = pack_begin[pk], b1 = pack_begin[pk + 1];
    const ulong base = (ulong)p * n_genes;
    const int e = wexp[p];
    for (uint j = b0 + lid; j < b1; j += L) {
        const uint g = members[j];
        lr[j - b0] = rank[base + g];
        lw[j - b0] = gsea_weight_fixed(key[base + g], e);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = b0 + lid; j < b1; j += L) {
        const uint s = member_set[j], o = set_begin[s] - b0, k = set_size[s];
        const uint r = lr[j - b0];
        long c = 0, nr = 0;
        uint h = 0u;
        for (uint l = o; l < o + k; l++) {
            const long w = lw[l];
            const int before = lr[l] < r;
            nr += w;
            c += before ? w : 0;
            h += before;
        }
        REAL top, bottom;
        gsea_hit(r, h, c, lw[j - b0], nr, k, n_genes, &top, &bottom);
        lt[j - b0] = top;
        lb[j - b0] = bottom;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = b0 + lid; j < b1; j += L) {
        const uint s = member_set[j];
        if (set_begin[s] != j) continue;
        const uint o = j - b0, k = set_size[s];
        REAL mx = -INFINITY, mn = INFINITY;
        for (uint l = o; l < o + k; l++) {
            mx = lt[l] > mx ? lt[l] : mx;
            mn = lb[l] < mn ? lb[l] : mn;
        }
        es[(ulong)s * n_perm + p] = gsea_pick(mx, mn);
    }
}

/* scratch: per permutation 2 * n_sets REALs (max, min) and 2 * n_sets longs (total weight,
 * weight so far); hits: n_sets uints (hits so far). */
__kernel void gsea_es_walk(__global const REAL *key, __global const uint *order,
                           __global const int *wexp, const uint n_genes,
                           __global const uint *gene_ptr, __global const uint *gene_sets,
                           __global const uint *set_size, const uint n_sets,
                           __global REAL *scratch, __global long *sums, __global uint *hits,
                           __global REAL *es, const uint n_perm)
{
    const uint p = get_global_id(0);
    if (p >= n_perm) return;
    const ulong base = (ulong)p * n_genes;
    const int e = wexp[p];
    __global REAL *mx = scratch + (ulong)p * 2 * n_sets, *mn = mx + n_sets;
    __global long *nr = sums + (ulong)p * 2 * n_sets, *cw = nr + n_sets;
    __global uint *hit = hits + (ulong)p * n_sets;
    for (uint s = 0; s < n_sets; s++) {
        nr[s] = cw[s] = 0;
        mx[s] = -INFINITY;
        mn[s] = INFINITY;
        hit[s] = 0u;
    }
    for (uint g = 0; g < n_genes; g++) {
        const uint e0 = gene_ptr[g], e1 = gene_ptr[g + 1];
        if (e0 == e1) continue;
        const long w = gsea_weight_fixed(key[base + g], e);
        for (uint i = e0; i < e1; i++) nr[gene_sets[i]] += w;
    }
    for (uint q = 0; q < n_genes; q++) {
        const uint g = order[base + q];
        const uint e0 = gene_ptr[g], e1 = gene_ptr[g + 1];
        if (e0 == e1) continue;
        const long w = gsea_weight_fixed(key[base + g], e);
        for (uint i = e0; i < e1; i++) {
            const uint s = gene_sets[i];
            REAL top, bottom;
            gsea_hit(q, hit[s], cw[s], w, nr[s], set_size[s], n_genes, &top, &bottom);
            mx[s] = top > mx[s] ? top : mx[s];
            mn[s] = bottom < mn[s] ? bottom : mn[s];
            cw[s] += w;
            hit[s] += 1u;
        }
    }
    for (uint s = 0; s < n_sets; s++) es[(ulong)s * n_perm + p] = gsea_pick(mx[s], mn[s]);
}

/* ------------------------------------------------------------------ null statistics */

/* stats[s * 5 + .]: count and sum of null ES >= 0, count and sum of null ES < 0, and the
 * count at least as extreme as the observed ES on its side (>= for es_obs >= 0, else <=).
 * The sums are in fixed point, round(ES * 2^32) as 64-bit integers: integer sums do not depend
 * on how permutations are grouped into batches, tasks or devices, so every split gives the
 * same NES bit for bit (|ES| <= 1: no overflow below 2^31 permutations). */
__kernel void gsea_set_stats(__global const REAL *es, const uint n_perm, const uint n_sets,
                             __global const REAL *es_obs, __global long *stats)
{
    const uint s = get_global_id(0);
    if (s >= n_sets) return;
    const REAL obs = es_obs[s];
    const int positive = obs >= (REAL)0;
    long np = 0, sp = 0, nn = 0, sn = 0, ext = 0;
    __global const REAL *row = es + (ulong)s * n_perm;
    for (uint p = 0; p < n_perm; p++) {
        const REAL e = row[p];
        const long fixed = (long)rint(ldexp(e, 32)); /* exact: |e| <= 1 */
        if (e >= (REAL)0) { np += 1; sp += fixed; }
        else { nn += 1; sn += fixed; }
        ext += positive ? (e >= obs) : (e <= obs);
    }
    stats[s * 5 + 0] = np;
    stats[s * 5 + 1] = sp;
    stats[s * 5 + 2] = nn;
    stats[s * 5 + 3] = sn;
    stats[s * 5 + 4] = ext;
}

/* Number of the n ascending values a[] that are <= v (upper bound). */
inline uint gsea_upper(__global const REAL *a, const uint n, const REAL v)
{
    uint lo = 0u, hi = n;
    while (lo < hi) {
        const uint mid = (lo + hi) >> 1;
        if (a[mid] <= v) lo = mid + 1u; else hi = mid;
    }
    return lo;
}

/* Number of the n ascending values a[] that are < v (lower bound). */
inline uint gsea_lower(__global const REAL *a, const uint n, const REAL v)
{
    uint lo = 0u, hi = n;
    while (lo < hi) {
        const uint mid = (lo + hi) >> 1;
        if (a[mid] < v) lo = mid + 1u; else hi = mid;
    }
    return lo;
}

/* The normalised null ES of set s in permutation p is es / pos_mean[s] (es >= 0) or
 * es / neg_mean[s] (es < 0, neg_mean = |mean of the negative null ES|). hist_pos[u] counts
 * null NES >= 0 with u observed positive NES <= it; hist_neg[u] null NES < 0 with u observed
 * negative NES < it. extremes[2p], [2p+1]: the largest null NES (at least 0) and the smallest
 * (at most 0) over the sets of permutation p. */
__kernel void gsea_null_counts(__global const REAL *es, const uint n_perm, const uint n_sets,
                               __global const REAL *pos_mean, __global const REAL *neg_mean,
                               __global const REAL *obs_pos, const uint n_obs_pos,
                               __global const REAL *obs_neg, const uint n_obs_neg,
                               __global uint *hist_pos, __global uint *hist_neg,
                               __global REAL *extremes)
{
    const uint p = get_global_id(0);
    if (p >= n_perm) return;
    REAL hi = (REAL)0, lo = (REAL)0;
    for (uint s = 0; s < n_sets; s++) {
        const REAL e = es[(ulong)s * n_perm + p];
        if (e >= (REAL)0) {
            const REAL v = e / pos_mean[s];
            hi = v > hi ? v : hi;
            atomic_inc(&hist_pos[gsea_upper(obs_pos, n_obs_pos, v)]);
        } else {
            const REAL v = e / neg_mean[s];
            lo = v < lo ? v : lo;
            atomic_inc(&hist_neg[gsea_lower(obs_neg, n_obs_neg, v)]);
        }
    }
    extremes[2 * (ulong)p] = hi;
    extremes[2 * (ulong)p + 1] = lo;
}
