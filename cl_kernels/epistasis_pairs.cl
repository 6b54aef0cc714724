/*
 * Genome-wide pairwise epistasis with PLINK 1.9's fast tests (oclstat.epistasis with
 * test="fast" or "joint-effects"): a block of SNP pairs at a time, rows i0 .. i0 + R - 1
 * against columns j0 .. j0 + C - 1, pairs with j <= i skipped.
 *
*   epistasis_pairs_stat    work-item (r, c): the pair's 3 x 3 genotype tables of cases and controls
 *                    from AND + popcount of the genotype bit vectors, then its statistic
 *                    (TEST 0: Ueki-Cordell, --fast-epistasis; TEST 1: joint effects; TEST 2:
 *                    BOOST, --fast-epistasis boost), written to stat[r C + c]: NaN for a pair
 *                    that fails (no finite statistic, a joint-effects cell below CELLMIN,
 *                    BOOST with two genotypes of one SNP absent), -1 for a pair not tested.
 *                    BOOST also writes exact[r C + c] (the log-linear statistic of a pair
 *                    that passed the screen, else -1) and code[r C + c] (df adjustment in
 *                    bits 0-1, bit 2: at or above the epi2 threshold of its df).
 *   epipair_rows     work-item r: over its row of the block, the pairs tested (finite), those
 *                    with stat >= sig2 (PLINK's --epi2 count) and the largest statistic and
 *                    its column (the first on a tie).
 *   epipair_cols     work-item c: the same down its column.
 *   epipair_hits     work-item r: the pairs of its row with stat >= sig1 (--epi1), appended to
 *                    hits through one atomic counter (their order is restored on the host).
 *
 * Bit vectors: bits[((s * 2 + g) * 3 + v) * W + w], 64-bit words, SNP s, group g (0 cases,
 * 1 controls), v the count of the A1 allele; a missing genotype and the padding are 0 in all
 * three. counts[(s * 2 + g) * 4 + v]: the group's samples with genotype v, and at v = 3 whether
 * the SNP has a missing genotype in the group. The table cell 3 a + b (a = 2 - v1, b = 2 - v2) counts the samples of the group with
 * genotypes v1, v2 (PLINK's order: cell 0 is hom A1 x hom A1).
 *
 * The statistics follow oclstat/_epistasis/pairtests.py (the host reference, checked against
 * PLINK 1.9), in REAL (double, or float without fp64); the tables are exact integers.
 *
 * Build defines: REAL, TEST (0, 1, 2), CELLMIN (joint effects), W (words per group),
 * EPI_BUILTIN_POPCOUNT and EPI_ONE_ITEM_PER_LANE (CPU compilers, see epistasis.cl).
 */
#include <oclstat/real.clh>
#include <oclstat/cpu.clh>
#pragma OPENCL FP_CONTRACT OFF

/* The compiler's popcount in line on CPU compilers whose OpenCL popcount is a library call
 * (EPI_BUILTIN_POPCOUNT: see cl_kernels/epistasis.cl). */
#ifdef EPI_BUILTIN_POPCOUNT
#define EPIPAIR_POPC(x) ((uint)__builtin_popcountl(x))
#else
#define EPIPAIR_POPC(x) ((uint)popcount(x))
#endif

#ifdef EPI_ONE_ITEM_PER_LANE
#define EPIPAIR_ATTR OCLSTAT_ONE_ITEM_PER_LANE(ulong4)
#else
#define EPIPAIR_ATTR
#endif

/* The two groups' 3 x 3 tables of pair (i, j). counts[(s * 2 + g) * 4 + v]: the samples of
 * group g with genotype v at SNP s, and at v = 3 whether the SNP has a missing genotype in the
 * group. Where neither SNP has one, only the four cells with no genotype 2 are counted: the
 * others follow from the SNPs' own counts (BOOST's and PLINK's shortcut). */
inline void epipair_tables(__global const ulong *bits, __global const uint *counts,
                           const uint i, const uint j, uint *n)
{
    for (uint g = 0; g < 2; g++) {
        __global const ulong *a = bits + ((ulong)i * 2 + g) * 3 * W;
        __global const ulong *b = bits + ((ulong)j * 2 + g) * 3 * W;
        __global const uint *ca = counts + (i * 2 + g) * 4, *cb = counts + (j * 2 + g) * 4;
        uint *t = n + g * 9;                       /* cell 3 (2 - va) + (2 - vb) */
        if (!ca[3] && !cb[3]) {
            uint c00 = 0u, c01 = 0u, c10 = 0u, c11 = 0u;
            for (uint w = 0; w < W; w++) {
                const ulong a0 = a[w], a1 = a[W + w], b0 = b[w], b1 = b[W + w];
                c00 += EPIPAIR_POPC(a0 & b0);
                c01 += EPIPAIR_POPC(a0 & b1);
                c10 += EPIPAIR_POPC(a1 & b0);
                c11 += EPIPAIR_POPC(a1 & b1);
            }
            const uint c02 = ca[0] - c00 - c01, c12 = ca[1] - c10 - c11;
            const uint c20 = cb[0] - c00 - c10, c21 = cb[1] - c01 - c11;
            t[8] = c00; t[7] = c01; t[6] = c02;
            t[5] = c10; t[4] = c11; t[3] = c12;
            t[2] = c20; t[1] = c21; t[0] = ca[2] - c20 - c21;
        } else {
            for (uint va = 0; va < 3; va++) {
                for (uint vb = 0; vb < 3; vb++) {
                    uint c = 0u;
                    for (uint w = 0; w < W; w++) c += EPIPAIR_POPC(a[va * W + w] & b[vb * W + w]);
                    t[(2 - va) * 3 + (2 - vb)] = c;
                }
            }
        }
    }
}

/* Ueki-Cordell: log odds ratio and variance of one group's 9 cells. */
inline void epipair_ueki(const uint *n, REAL *lor, REAL *var)
{
    REAL c11 = (REAL)(4 * n[0] + 2 * (n[1] + n[3]) + n[4]);
    REAL c12 = (REAL)(4 * n[2] + 2 * (n[1] + n[5]) + n[4]);
    REAL c21 = (REAL)(4 * n[6] + 2 * (n[3] + n[7]) + n[4]);
    REAL c22 = (REAL)(4 * n[8] + 2 * (n[5] + n[7]) + n[4]);
    int empty = 0;
    for (uint k = 0; k < 9; k++) empty |= n[k] == 0u;
    const REAL add = empty ? (REAL)4.5 : (REAL)0;
    const REAL plus = empty ? (REAL)0.5 : (REAL)0;
    c11 += add; c12 += add; c21 += add; c22 += add;
    const REAL r11 = (REAL)1 / c11, r12 = (REAL)1 / c12, r21 = (REAL)1 / c21,
               r22 = (REAL)1 / c22;
    *lor = log(c11 * c22 * r12 * r21);
    const REAL d2 = (r11 - r12) * (r11 - r12), d3 = (r11 - r21) * (r11 - r21);
    const REAL d5 = (r11 - r12 - r21 + r22) * (r11 - r12 - r21 + r22);
    const REAL d6 = (r22 - r12) * (r22 - r12), d8 = (r22 - r21) * (r22 - r21);
    *var = (REAL)4 * ((REAL)4 * (r11 * r11 * ((REAL)n[0] + plus) + r12 * r12 * ((REAL)n[2] + plus)
                                 + r21 * r21 * ((REAL)n[6] + plus)
                                 + r22 * r22 * ((REAL)n[8] + plus))
                      + d2 * ((REAL)n[1] + plus) + d3 * ((REAL)n[3] + plus)
                      + d6 * ((REAL)n[5] + plus) + d8 * ((REAL)n[7] + plus))
           + d5 * ((REAL)n[4] + plus);
}

/* The inverse of the symmetric positive 4 x 4 matrix m (row-major), by Gauss-Jordan with
 * partial pivoting, in place; 0 when singular. */
inline int epipair_invert4(REAL *m)
{
    REAL a[4][8];
    for (uint r = 0; r < 4; r++)
        for (uint c = 0; c < 8; c++) a[r][c] = c < 4 ? m[r * 4 + c] : (REAL)(c - 4 == r);
    for (uint k = 0; k < 4; k++) {
        uint p = k;
        for (uint r = k + 1; r < 4; r++) if (fabs(a[r][k]) > fabs(a[p][k])) p = r;
        if (!(fabs(a[p][k]) > (REAL)0)) return 0;
        if (p != k)
            for (uint c = 0; c < 8; c++) { const REAL t = a[k][c]; a[k][c] = a[p][c]; a[p][c] = t; }
        const REAL inv = (REAL)1 / a[k][k];
        for (uint c = 0; c < 8; c++) a[k][c] *= inv;
        for (uint r = 0; r < 4; r++) {
            if (r == k) continue;
            const REAL f = a[r][k];
            for (uint c = 0; c < 8; c++) a[r][c] -= f * a[k][c];
        }
    }
    for (uint r = 0; r < 4; r++)
        for (uint c = 0; c < 4; c++) m[r * 4 + c] = a[r][c + 4];
    return 1;
}

/* Joint effects (Ueki and Cordell): the statistic of both groups' 18 cells. */
inline REAL epipair_joint(const uint *n)
{
    for (uint k = 0; k < 18; k++) if (n[k] < (uint)CELLMIN) return NAN;
    REAL q[18];
    int empty = 0;
    for (uint k = 0; k < 18; k++) empty |= n[k] == 0u;
    for (uint k = 0; k < 18; k++) q[k] = (REAL)n[k] + (empty ? (REAL)0.5 : (REAL)0);
    for (uint g = 0; g < 2; g++) {                 /* the reference cell raised to about 1% */
        REAL total = empty ? (REAL)-4.5 : (REAL)0;
        for (uint k = 0; k < 9; k++) total += q[g * 9 + k];
        const REAL last = q[g * 9 + 8];
        if (last * (REAL)100 < total) {
            const REAL f = total / ((REAL)1.01 * total - last + (empty ? (REAL)4.5 : (REAL)0));
            for (uint k = 0; k < 8; k++) q[g * 9 + k] *= f;
            q[g * 9 + 8] = (REAL)0.01 * f * total;
        }
    }
    REAL iv[2][4], inv[2][9];
    for (uint g = 0; g < 2; g++) {
        for (uint k = 0; k < 9; k++) inv[g][k] = (REAL)1 / q[g * 9 + k];
        const REAL *c = q + g * 9;
        const REAL *r = inv[g];
        iv[g][0] = c[8] * c[0] * r[2] * r[6];
        iv[g][1] = c[8] * c[1] * r[2] * r[7];
        iv[g][2] = c[8] * c[3] * r[5] * r[6];
        iv[g][3] = c[8] * c[4] * r[5] * r[7];
    }
    const int regular = iv[0][3] > (REAL)0.5 && iv[1][3] > (REAL)0.5;
    REAL value[2], total_inv[2];
    for (uint g = 0; g < 2; g++) {
        const REAL i22 = iv[g][0], i21 = iv[g][1], i12 = iv[g][2], i11 = iv[g][3];
        const REAL root = sqrt(i22);
        REAL x0, x1, x2, x3;
        if (regular) {
            x0 = (REAL)0.5; x1 = (REAL)1; x2 = (REAL)1;
            x3 = (REAL)2 * i11 / ((REAL)2 * i11 - (REAL)1);
        } else {
            x0 = root / ((REAL)2 * root + (REAL)2); x1 = i21 / (i21 + (REAL)1);
            x2 = i12 / (i12 + (REAL)1); x3 = (REAL)1;
        }
        const REAL *r = inv[g];
        const REAL d = r[8];
        REAL m[16];
        m[0] = (r[0] + r[2] + r[6] + d) * x0 * x0;
        m[1] = m[4] = (r[2] + d) * x0 * x1;
        m[2] = m[8] = (r[6] + d) * x0 * x2;
        m[3] = m[12] = d * x0 * x3;
        m[5] = (r[1] + r[2] + r[7] + d) * x1 * x1;
        m[6] = m[9] = d * x1 * x2;
        m[7] = m[13] = (r[7] + d) * x1 * x3;
        m[10] = (r[3] + r[5] + r[6] + d) * x2 * x2;
        m[11] = m[14] = (r[5] + d) * x2 * x3;
        m[15] = (r[4] + r[5] + r[7] + d) * x3 * x3;
        if (!epipair_invert4(m)) return NAN;
        REAL rows[4];
        REAL tot = (REAL)0;
        for (uint a = 0; a < 4; a++) {
            rows[a] = m[a * 4] + m[a * 4 + 1] + m[a * 4 + 2] + m[a * 4 + 3];
            tot += rows[a];
        }
        total_inv[g] = tot;
        if (regular)
            value[g] = rows[0] * log(i22) * (REAL)0.5 + rows[1] * log(i21) + rows[2] * log(i12)
                       + rows[3] * log((REAL)2 * i11 - (REAL)1);
        else
            value[g] = rows[0] * log((root + (REAL)1) * (REAL)0.5)
                       + rows[1] * log((i21 + (REAL)1) * (REAL)0.5)
                       + rows[2] * log((i12 + (REAL)1) * (REAL)0.5) + rows[3] * log(i11);
    }
    const REAL v1 = (REAL)1 / total_inv[0], v2 = (REAL)1 / total_inv[1];
    const REAL diff = value[0] * v1 - value[1] * v2;
    return diff * diff / (v1 + v2);
}

/* A bound on BOOST's fitting rounds (PLINK has none): in float, cells of millions cannot move
 * by less than 0.001 in all; in double PLINK's rule ends in a few dozen rounds. */
#define EPIPAIR_IPF_ROUNDS 10000u

/* BOOST (Wan et al. 2010) as PLINK 1.9's --fast-epistasis boost computes it, on the pair's
 * 18 cells n[9 k + 3 a + b] (k 0 cases, 1 controls; a, b the genotypes of the two SNPs):
 * the likelihood-ratio statistic of the full model against the log-linear model without the
 * three-way interaction, first with the Kirkwood superposition approximation (KSA, closed
 * form, never below the exact value), then, where that passes the epi1 threshold of its df
 * (thr[df_adj]), exactly, by iterative proportional fitting from all ones until the fitted
 * cells move by at most 0.001 in all (PLINK's rule; at most EPIPAIR_IPF_ROUNDS rounds).
 * df = 4, or 2 / 1 when one genotype of the first SNP (df_adj 1) or one of each SNP (2) is
 * absent; more absent: NaN (fails). Returns the value PLINK's summary uses (the KSA value, or
 * the exact one raised to the epi1 threshold); *exact gets the exact statistic (-1 when not
 * fitted), *code the df adjustment and the epi2 bit (thr[3 + df_adj]). thr[6 + x] holds
 * x log x for the cell counts x. */
inline REAL epipair_boost(const uint *n, __global const REAL *thr, REAL *exact, uint *code)
{
    *exact = (REAL)-1;
    REAL p_ca[6], p_bc[6], mu_xx[9];
    uint df_adj = 0u;
    for (uint a = 0; a < 3; a++) {                 /* P(class | genotype a of the first SNP) */
        const uint ca = n[3 * a] + n[3 * a + 1] + n[3 * a + 2];
        const uint ct = n[9 + 3 * a] + n[9 + 3 * a + 1] + n[9 + 3 * a + 2];
        const REAL r = ca + ct ? (REAL)1 / (REAL)(ca + ct) : (REAL)0;
        df_adj += ca + ct == 0u;
        p_ca[2 * a] = (REAL)ca * r;
        p_ca[2 * a + 1] = (REAL)ct * r;
    }
    if (df_adj > 1u) return NAN;
    for (uint k = 0; k < 2; k++) {                 /* P(genotype b of the second SNP | class) */
        uint c[3], tot = 0u;
        for (uint b = 0; b < 3; b++) {
            c[b] = n[9 * k + b] + n[9 * k + 3 + b] + n[9 * k + 6 + b];
            tot += c[b];
        }
        const REAL r = tot ? (REAL)1 / (REAL)tot : (REAL)0;
        for (uint b = 0; b < 3; b++) p_bc[3 * k + b] = (REAL)c[b] * r;
    }
    uint sum = 0u, empty_b = 0u;
    for (uint b = 0; b < 3; b++) {                 /* P(a | b), mu_xx[3 b + a] */
        const uint x0 = n[b] + n[b + 9], x1 = n[b + 3] + n[b + 12], x2 = n[b + 6] + n[b + 15];
        const uint nb = x0 + x1 + x2;
        if (nb == 0u) {
            if (empty_b++) return NAN;
            df_adj++;
        }
        sum += nb;
        const REAL r = nb ? (REAL)1 / (REAL)nb : (REAL)0;
        mu_xx[3 * b] = (REAL)x0 * r;
        mu_xx[3 * b + 1] = (REAL)x1 * r;
        mu_xx[3 * b + 2] = (REAL)x2 * r;
    }
    /* sum over cells of x log(x / m): m = P(a | b) P(b | k) P(k | a) is positive wherever x
     * is, and log m splits into the logs of the margins' counts, so the sum is one of
     * x log x over the cells and the margins (the table thr[6 + x]): no logarithm per cell */
    REAL measure = (REAL)0, tau = (REAL)0;
    for (uint k = 0; k < 2; k++) {
        for (uint a = 0; a < 3; a++) {
            const REAL pk = p_ca[2 * a + k];
            for (uint b = 0; b < 3; b++) tau += mu_xx[a + 3 * b] * p_bc[3 * k + b] * pk;
        }
    }
    {
        uint nk[2] = {0u, 0u}, na[3] = {0u, 0u, 0u}, nb[3] = {0u, 0u, 0u};
        for (uint k = 0; k < 2; k++) {
            for (uint a = 0; a < 3; a++) {
                uint nak = 0u;
                for (uint b = 0; b < 3; b++) {
                    const uint x = n[9 * k + 3 * a + b];
                    measure += thr[6u + x];    /* + x log x of the cell */
                    nak += x;
                }
                measure -= thr[6u + nak];      /* - n_ak log n_ak (P(k | a)) */
                na[a] += nak;
                nk[k] += nak;
            }
            for (uint b = 0; b < 3; b++) {
                const uint nkb = n[9 * k + b] + n[9 * k + 3 + b] + n[9 * k + 6 + b];
                measure -= thr[6u + nkb];      /* - n_kb log n_kb (P(b | k)) */
                nb[b] += nkb;
            }
            measure += thr[6u + nk[k]];
        }
        for (uint a = 0; a < 3; a++) {
            for (uint b = 0; b < 3; b++)       /* - n_ab log n_ab (P(a | b)) */
                measure -= thr[6u + n[3 * a + b] + n[9 + 3 * a + b]];
            measure += thr[6u + na[a]];
        }
        for (uint b = 0; b < 3; b++) measure += thr[6u + nb[b]];
    }
    const REAL sum_r = (REAL)1 / (REAL)sum;
    measure = (REAL)2 * (measure + (REAL)sum * log(tau * sum_r));
    if (measure > thr[df_adj]) {                   /* passes the screen: fit exactly */
        REAL mu[18], mu0[18], err;                 /* mu[6 a + 2 b + k] */
        uint rounds = 0u;
        for (uint i = 0; i < 18; i++) mu[i] = (REAL)1;
        do {
            for (uint i = 0; i < 18; i++) mu0[i] = mu[i];
            for (uint i = 0; i < 9; i++) {         /* the (a, b) margins */
                const REAL t = mu[2 * i] + mu[2 * i + 1];
                const REAL f = t != (REAL)0 ? (REAL)(n[i] + n[i + 9]) / t : (REAL)0;
                mu[2 * i] *= f;
                mu[2 * i + 1] *= f;
            }
            for (uint a = 0; a < 3; a++) {         /* the (a, class) margins */
                for (uint k = 0; k < 2; k++) {
                    const uint o = 6 * a + k;
                    const REAL t = mu[o] + mu[o + 2] + mu[o + 4];
                    const uint x = n[9 * k + 3 * a] + n[9 * k + 3 * a + 1] + n[9 * k + 3 * a + 2];
                    const REAL f = t != (REAL)0 ? (REAL)x / t : (REAL)0;
                    mu[o] *= f;
                    mu[o + 2] *= f;
                    mu[o + 4] *= f;
                }
            }
            for (uint b = 0; b < 3; b++) {         /* the (b, class) margins */
                for (uint k = 0; k < 2; k++) {
                    const uint o = 2 * b + k;
                    const REAL t = mu[o] + mu[o + 6] + mu[o + 12];
                    const uint x = n[9 * k + b] + n[9 * k + b + 3] + n[9 * k + b + 6];
                    const REAL f = t != (REAL)0 ? (REAL)x / t : (REAL)0;
                    mu[o] *= f;
                    mu[o + 6] *= f;
                    mu[o + 12] *= f;
                }
            }
            err = (REAL)0;
            for (uint i = 0; i < 18; i++) err += fabs(mu[i] - mu0[i]);
        } while (err > (REAL)0.001 && ++rounds < EPIPAIR_IPF_ROUNDS);
        REAL lr = (REAL)0, fitted = (REAL)0;
        for (uint k = 0; k < 2; k++) {
            for (uint a = 0; a < 3; a++) {
                for (uint b = 0; b < 3; b++) {
                    const REAL x = (REAL)n[9 * k + 3 * a + b] * sum_r;
                    const REAL y = mu[6 * a + 2 * b + k] * sum_r;
                    if (x != (REAL)0) lr += y != (REAL)0 ? x * log(x / y) : x * log(x);
                    fitted += y;
                }
            }
        }
        measure = (lr + log(fitted)) * (REAL)(2u * sum);
        *exact = measure;
        if (measure < thr[df_adj]) measure = thr[df_adj];
    }
    *code = df_adj | (measure >= thr[3 + df_adj] ? 4u : 0u);
    return measure;
}

__kernel EPIPAIR_ATTR void epistasis_pairs_stat(__global const ulong *bits,
                                                __global const uint *counts, const uint i0,
                                                const uint n_rows, const uint j0,
                                                const uint n_cols, __global REAL *stat,
                                                __global const REAL *thr,
                                                __global REAL *exact, __global uint *code)
{
    const uint r = get_global_id(0), c = get_global_id(1);
    if (r >= n_rows || c >= n_cols) return;
    const uint i = i0 + r, j = j0 + c;
    const ulong at = (ulong)r * n_cols + c;
    REAL z;
#if TEST == 2
    REAL e = (REAL)-1;
    uint k = 0u;
#else
    (void)thr; (void)exact; (void)code;
#endif
    if (j <= i) {
        z = (REAL)-1;
    } else {
        uint n[18];
        epipair_tables(bits, counts, i, j, n);
#if TEST == 0
        REAL lor1, var1, lor2, var2;
        epipair_ueki(n, &lor1, &var1);
        epipair_ueki(n + 9, &lor2, &var2);
        z = (lor1 - lor2) * (lor1 - lor2) / (var1 + var2);
#elif TEST == 1
        z = epipair_joint(n);
#else
        z = epipair_boost(n, thr, &e, &k);
#endif
        if (!isfinite(z)) z = NAN;
    }
    stat[at] = z;
#if TEST == 2
    exact[at] = e;
    code[at] = k;
#endif
}

/* Whether a tested pair counts at epi2: BOOST's bit (the threshold of its df), else z >= sig2. */
#if TEST == 2
#define EPIPAIR_SIG(z, at) ((code[at] >> 2) & 1u)
#else
#define EPIPAIR_SIG(z, at) ((z) >= sig2)
#endif

/* Row and column summaries: tested (finite), significant (>= sig2), best and where. */
__kernel void epistasis_pairs_rows(__global const REAL *stat, const uint n_rows, const uint n_cols,
                           const REAL sig2, __global const uint *code, __global uint *tested,
                           __global uint *sig, __global REAL *best, __global uint *best_at)
{
#if TEST != 2
    (void)code;
#endif
    const uint r = get_global_id(0);
    if (r >= n_rows) return;
    uint t = 0u, s = 0u, at = 0u;
    REAL b = (REAL)-1;
    for (uint c = 0; c < n_cols; c++) {
        const ulong k = (ulong)r * n_cols + c;
        const REAL z = stat[k];
        if (!(z >= (REAL)0)) continue;           /* untested (-1) or failed (NaN) */
        t++;
        s += EPIPAIR_SIG(z, k);
        if (z > b) { b = z; at = c; }
    }
    tested[r] = t; sig[r] = s; best[r] = b; best_at[r] = at;
}

__kernel void epistasis_pairs_cols(__global const REAL *stat, const uint n_rows, const uint n_cols,
                           const REAL sig2, __global const uint *code, __global uint *tested,
                           __global uint *sig, __global REAL *best, __global uint *best_at)
{
#if TEST != 2
    (void)code;
#endif
    const uint c = get_global_id(0);
    if (c >= n_cols) return;
    uint t = 0u, s = 0u, at = 0u;
    REAL b = (REAL)-1;
    for (uint r = 0; r < n_rows; r++) {
        const ulong k = (ulong)r * n_cols + c;
        const REAL z = stat[k];
        if (!(z >= (REAL)0)) continue;
        t++;
        s += EPIPAIR_SIG(z, k);
        if (z > b) { b = z; at = r; }
    }
    tested[c] = t; sig[c] = s; best[c] = b; best_at[c] = at;
}

/* The hits of a row: pairs with stat >= sig1 (BOOST: every pair fitted exactly, with its
 * exact statistic and df adjustment, as PLINK reports them), appended to hits through one
 * atomic counter (their order is restored on the host); and the failed pairs (NaN), for
 * PLINK's count of tests that could not be done. */
__kernel void epistasis_pairs_hits(__global const REAL *stat, const uint n_rows, const uint n_cols,
                           const REAL sig1, const uint capacity, volatile __global uint *count,
                           __global uint *hit_row, __global uint *hit_col,
                           __global REAL *hit_stat, __global uint *failed,
                           __global const REAL *exact, __global const uint *code,
                           __global uint *hit_code)
{
    const uint r = get_global_id(0);
    if (r >= n_rows) return;
    uint f = 0u;
#if TEST != 2
    (void)exact; (void)code; (void)hit_code;
#endif
    for (uint c = 0; c < n_cols; c++) {
        const ulong at = (ulong)r * n_cols + c;
        const REAL z = stat[at];
        if (isnan(z)) { f++; continue; }
#if TEST == 2
        const REAL value = exact[at];
        if (value >= (REAL)0) {
#else
        const REAL value = z;
        if (z >= sig1) {
#endif
            const uint k = atomic_inc(count);
            if (k < capacity) {
                hit_row[k] = r; hit_col[k] = c; hit_stat[k] = value;
#if TEST == 2
                hit_code[k] = code[at] & 3u;
#endif
            }
        }
    }
    failed[r] = f;
}
