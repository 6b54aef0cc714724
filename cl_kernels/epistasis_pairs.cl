/*
 * Genome-wide pairwise epistasis with PLINK 1.9's pair tests (oclstat.epistasis with
 * test="fast", "joint-effects", "boost", "logistic" or "linear" without covariates): a block
 * of SNP pairs at a time, rows i0 .. i0 + R - 1 against columns j0 .. j0 + C - 1, pairs with
 * j <= i skipped.
 *
 *   epistasis_pairs_stat  work-item (r, c): the pairs (r, c') for the LANES columns
 *                    c' = LANES c .. LANES c + LANES - 1 (LANES > 1 for Ueki-Cordell's
 *                    statistic on a CPU, computed in vector registers; else 1): each pair's
 *                    3 x 3 genotype tables (per group) from AND + popcount of the genotype bit
 *                    vectors, then its statistic, written to stat[r C + c']: TEST 0
 *                    Ueki-Cordell (--fast-epistasis), 1 joint effects, 2 BOOST
 *                    (--fast-epistasis boost), 3 the logistic interaction
 *                    (--epistasis, case/control), 4 the linear interaction (--epistasis,
 *                    quantitative trait); NaN for a pair that fails (no finite statistic, a
 *                    joint-effects cell below CELLMIN, BOOST with two genotypes of one SNP
 *                    absent, a singular or unconverged fit), -1 for a pair not tested.
 *                    BOOST also writes exact[r C + c] (the log-linear statistic of a pair
 *                    that passed the screen, else -1) and code[r C + c] (df adjustment in
 *                    bits 0-1, bit 2: at or above the epi2 threshold of its df); the
 *                    regressions write the interaction's odds ratio (3) or coefficient (4)
 *                    to exact[r C + c]; with covariates they are fitted on the pair's
 *                    samples (its genotypes, y and covariates), not on its cells.
 *   epipair_rows     work-item r: over its row of the block, the pairs tested (finite), those
 *                    with stat >= sig2 (PLINK's --epi2 count) and the largest statistic and
 *                    its column (the first on a tie).
 *   epipair_cols     work-item c: the same down its column.
 *   epipair_hits     work-item r: the pairs of its row with stat >= sig1 (--epi1), appended to
 *                    hits through one atomic counter (their order is restored on the host).
 *
 * Bit vectors: bits[((s * G + g) * 3 + v) * W + w], 64-bit words, SNP s, group g of G
 * (G = EPIPAIR_GROUPS: 2 for the case/control tests, 0 cases and 1 controls; 1 for "linear",
 * every sample with a trait value), v the count of the A1 allele; a missing genotype and the
 * padding are 0 in all three. counts[(s * G + g) * 4 + v]: the group's samples with genotype
 * v, and at v = 3 whether the SNP has a missing genotype in the group. The table cell
 * 3 a + b (a = 2 - v1, b = 2 - v2) counts the samples of the group with genotypes v1, v2
 * (PLINK's order: cell 0 is hom A1 x hom A1). "linear" also reads trait[k] (the centred trait
 * of bit k of the group, 0 in the padding; trait[64 W] its sum of squares) and
 * snp_sums[3 s + v] (the trait summed over the samples with genotype v at SNP s).
 *
 * The statistics follow oclstat/_epistasis/pairtests.py (the host reference, checked against
 * PLINK 1.9), in REAL (double, or float without fp64); the tables are exact integers.
 *
 * Build defines: REAL, TEST (0 to 4), LANES (columns per work-item, TEST 0 only: Runtime.lanes,
 * a whole vector register's worth of REAL on a CPU, 1 on a GPU), CELLMIN (joint effects), W
 * (words per group), TAIL
 * ("linear": the samples in the last word, 1 to 64), COVARIATES (the regressions: 0, or the
 * covariate columns of covar, then fitted on the pair's samples),
 * EPI_ONE_ITEM_PER_LANE (CPU compilers, see epistasis.cl), EPI_BUILTIN_POPCOUNT and EPI_VPOPCNT
 * (how bits are counted: oclstat/popcount.clh).
 */
#include <oclstat/real.clh>
#include <oclstat/cpu.clh>
#include <oclstat/popcount.clh> /* EPI_POPC, epi_and_popc2_rows */
#include <oclstat/vector.clh>   /* LANES, uintL, realL */
#pragma OPENCL FP_CONTRACT OFF

#if TEST == 4
#define EPIPAIR_GROUPS 1u
#else
#define EPIPAIR_GROUPS 2u
#endif

#ifdef EPI_ONE_ITEM_PER_LANE
#define EPIPAIR_ATTR OCLSTAT_ONE_ITEM_PER_LANE(ulong4) EPI_VECTOR_ATTR
#else
#define EPIPAIR_ATTR EPI_VECTOR_ATTR
#endif

/* One group's 3 x 3 table t (cell 3 (2 - va) + (2 - vb)) of SNPs a and b (bit rows a, b, their
 * genotype counts ca, cb). Where neither SNP has a missing genotype in the group (ca[3],
 * cb[3]), only the four cells with no genotype 2 are counted: the others follow from the
 * SNPs' own counts (BOOST's and PLINK's shortcut); else every cell is counted, a's three rows
 * against b's in two passes. */
EPI_VECTOR_ATTR inline void epipair_group_table(__global const ulong *a,
                                                __global const ulong *b,
                                                __global const uint *ca,
                                                __global const uint *cb, uint *t)
{
    if (!ca[3] && !cb[3]) {
        uint x[2], y[2];                          /* a's genotypes 0, 1 against b's 0 and 1 */
        epi_and_popc2_rows(a, 2u, b, b + W, W, x, y);
        const uint c00 = x[0], c01 = y[0], c10 = x[1], c11 = y[1];
        const uint c02 = ca[0] - c00 - c01, c12 = ca[1] - c10 - c11;
        const uint c20 = cb[0] - c00 - c10, c21 = cb[1] - c01 - c11;
        t[8] = c00; t[7] = c01; t[6] = c02;
        t[5] = c10; t[4] = c11; t[3] = c12;
        t[2] = c20; t[1] = c21; t[0] = ca[2] - c20 - c21;
        return;
    }
    uint x[3], y[3], z[3], again[3];              /* a's genotypes against b's 0, 1 and 2 */
    epi_and_popc2_rows(a, 3u, b, b + W, W, x, y);
    epi_and_popc2_rows(a, 3u, b + 2 * W, b + 2 * W, W, z, again);
    for (uint va = 0; va < 3; va++) {
        t[(2 - va) * 3 + 2] = x[va];
        t[(2 - va) * 3 + 1] = y[va];
        t[(2 - va) * 3] = z[va];
    }
}

/* The bit rows and the counts of SNP s in group g (see the layout above). */
#define EPIPAIR_BITS(s, g) (bits + ((ulong)(s) * EPIPAIR_GROUPS + (g)) * 3 * W)
#define EPIPAIR_COUNTS(s, g) (counts + ((s) * EPIPAIR_GROUPS + (g)) * 4)

/* The groups' 3 x 3 tables of pair (i, j), n[9 g + cell]. */
EPI_VECTOR_ATTR inline void epipair_tables(__global const ulong *bits,
                                           __global const uint *counts, const uint i,
                                           const uint j, uint *n)
{
    for (uint g = 0; g < EPIPAIR_GROUPS; g++)
        epipair_group_table(EPIPAIR_BITS(i, g), EPIPAIR_BITS(j, g), EPIPAIR_COUNTS(i, g),
                            EPIPAIR_COUNTS(j, g), n + g * 9);
}

#if LANES >= 4 && defined(EPI_VPOPCNT)
#define EPIPAIR_LANE_TABLES
/* LANES values from LANES / 4 uint4 parts, the first part first. */
#if LANES == 4
#define EPIPAIR_JOIN(p) ((p)[0])
#elif LANES == 8
#define EPIPAIR_JOIN(p) ((uint8)((p)[0], (p)[1]))
#else
#define EPIPAIR_JOIN(p) ((uint16)((p)[0], (p)[1], (p)[2], (p)[3]))
#endif

/* The tables of the LANES pairs (i, j0 .. j0 + LANES - 1), n[9 g + cell] (one lane per pair),
 * four columns at a time sharing each load of i's bits (epi_and_popc_2x4), the five derived
 * cells in vector arithmetic (with vpopcntq only: counting a word at a time, one pair's
 * tables after another are faster). Where a SNP of the group has a missing genotype, every
 * cell is counted, two columns at a time (epi_and_popc_3x2). Lanes past `last` (the block's
 * last column) count column `last` again; the caller stores nothing for them. */
EPI_VECTOR_ATTR inline void epipair_lane_tables(__global const ulong *bits,
                                                __global const uint *counts, const uint i,
                                                const uint j0, const uint last, uintL *n)
{
    uint col[LANES];
    for (uint l = 0; l < LANES; l++) col[l] = min(j0 + l, last);
    for (uint g = 0; g < EPIPAIR_GROUPS; g++) {
        __global const ulong *a = EPIPAIR_BITS(i, g);
        __global const uint *ca = EPIPAIR_COUNTS(i, g);
        uint4 x00[LANES / 4], x01[LANES / 4], x10[LANES / 4], x11[LANES / 4];
        uint4 b0[LANES / 4], b1[LANES / 4];
        uint missing = ca[3];
        for (uint p = 0; p < LANES / 4; p++) {
            uint t[16];
            __global const uint *cb[4];
            for (uint k = 0; k < 4u; k++) cb[k] = EPIPAIR_COUNTS(col[4 * p + k], g);
            epi_and_popc_2x4(a, EPIPAIR_BITS(col[4 * p], g), EPIPAIR_BITS(col[4 * p + 1], g),
                             EPIPAIR_BITS(col[4 * p + 2], g), EPIPAIR_BITS(col[4 * p + 3], g),
                             W, t);
            x00[p] = (uint4)(t[0], t[4], t[8], t[12]);
            x01[p] = (uint4)(t[1], t[5], t[9], t[13]);
            x10[p] = (uint4)(t[2], t[6], t[10], t[14]);
            x11[p] = (uint4)(t[3], t[7], t[11], t[15]);
            b0[p] = (uint4)(cb[0][0], cb[1][0], cb[2][0], cb[3][0]);
            b1[p] = (uint4)(cb[0][1], cb[1][1], cb[2][1], cb[3][1]);
            missing |= cb[0][3] | cb[1][3] | cb[2][3] | cb[3][3];
        }
        uintL *t = n + 9 * g;                     /* cell 3 (2 - va) + (2 - vb) */
        if (!missing) {
            const uintL c00 = EPIPAIR_JOIN(x00), c01 = EPIPAIR_JOIN(x01);
            const uintL c10 = EPIPAIR_JOIN(x10), c11 = EPIPAIR_JOIN(x11);
            const uintL c20 = EPIPAIR_JOIN(b0) - c00 - c10, c21 = EPIPAIR_JOIN(b1) - c01 - c11;
            t[8] = c00; t[7] = c01; t[6] = ca[0] - c00 - c01;
            t[5] = c10; t[4] = c11; t[3] = ca[1] - c10 - c11;
            t[2] = c20; t[1] = c21; t[0] = ca[2] - c20 - c21;
        } else {
            uint cells[9][LANES];                 /* every cell, two columns at a time */
            for (uint l = 0; l < LANES; l += 2u) {
                uint both[18];                    /* both[9 k + 3 va + vb] */
                epi_and_popc_3x2(a, EPIPAIR_BITS(col[l], g), EPIPAIR_BITS(col[l + 1], g), W,
                                 both);
                for (uint k = 0; k < 2u; k++)
                    for (uint c = 0; c < 9u; c++) cells[8u - c][l + k] = both[9u * k + c];
            }
            for (uint c = 0; c < 9u; c++) t[c] = OCLSTAT_VLOAD_L(cells[c]);
        }
    }
}
#endif

/* Ueki-Cordell: the log odds ratio and its variance of one group's 9 cells, for LANES pairs at
 * once (n[k]: cell k of each lane's pair). Where a cell is empty, 4.5 is added to the
 * allele-level counts and 0.5 to each cell (empty is 1 or 0, so the sums are exact). */
inline void epipair_ueki(const uintL *n, realL *lor, realL *var)
{
    uintL least = n[0];
    for (uint k = 1; k < 9; k++) least = min(least, n[k]);
    const realL empty = (realL)1 - OCLSTAT_CONVERT_REALL(min(least, (uintL)1u));
    const realL add = empty * (REAL)4.5, plus = empty * (REAL)0.5;
    const realL c11 = OCLSTAT_CONVERT_REALL(4u * n[0] + 2u * (n[1] + n[3]) + n[4]) + add;
    const realL c12 = OCLSTAT_CONVERT_REALL(4u * n[2] + 2u * (n[1] + n[5]) + n[4]) + add;
    const realL c21 = OCLSTAT_CONVERT_REALL(4u * n[6] + 2u * (n[3] + n[7]) + n[4]) + add;
    const realL c22 = OCLSTAT_CONVERT_REALL(4u * n[8] + 2u * (n[5] + n[7]) + n[4]) + add;
    const realL r11 = (REAL)1 / c11, r12 = (REAL)1 / c12, r21 = (REAL)1 / c21,
                r22 = (REAL)1 / c22;
    *lor = log(c11 * c22 * r12 * r21);
    const realL d2 = (r11 - r12) * (r11 - r12), d3 = (r11 - r21) * (r11 - r21);
    const realL d5 = (r11 - r12 - r21 + r22) * (r11 - r12 - r21 + r22);
    const realL d6 = (r22 - r12) * (r22 - r12), d8 = (r22 - r21) * (r22 - r21);
#define EPIPAIR_M(k) (OCLSTAT_CONVERT_REALL(n[k]) + plus)
    *var = (REAL)4 * ((REAL)4 * (r11 * r11 * EPIPAIR_M(0) + r12 * r12 * EPIPAIR_M(2)
                                 + r21 * r21 * EPIPAIR_M(6) + r22 * r22 * EPIPAIR_M(8))
                      + d2 * EPIPAIR_M(1) + d3 * EPIPAIR_M(3) + d6 * EPIPAIR_M(5)
                      + d8 * EPIPAIR_M(7))
           + d5 * EPIPAIR_M(4);
#undef EPIPAIR_M
}

/* The inverse of the symmetric 4 x 4 matrix m (row-major), by Gauss-Jordan with partial
 * pivoting, in place; returns the determinant (the pivots' signed product), 0 when singular
 * (m then undefined). */
inline REAL epipair_invert4(REAL *m)
{
    REAL a[4][8];
    REAL det = (REAL)1;
    for (uint r = 0; r < 4; r++)
        for (uint c = 0; c < 8; c++) a[r][c] = c < 4 ? m[r * 4 + c] : (REAL)(c - 4 == r);
    for (uint k = 0; k < 4; k++) {
        uint p = k;
        for (uint r = k + 1; r < 4; r++) if (fabs(a[r][k]) > fabs(a[p][k])) p = r;
        if (!(fabs(a[p][k]) > (REAL)0)) return (REAL)0;
        if (p != k) {
            det = -det;
            for (uint c = 0; c < 8; c++) { const REAL t = a[k][c]; a[k][c] = a[p][c]; a[p][c] = t; }
        }
        det *= a[k][k];
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
    return det;
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
        if (epipair_invert4(m) == (REAL)0) return NAN;
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

/* Newton's method for the logistic fit stops when no coefficient moves by more than
 * EPIPAIR_NEWTON_TOL (the host's rule in double; float cannot resolve steps that small), or
 * fails after EPIPAIR_NEWTON_ROUNDS steps. */
#ifdef OCLSTAT_REAL_IS_DOUBLE
#define EPIPAIR_NEWTON_TOL 1e-10
#else
#define EPIPAIR_NEWTON_TOL 1e-5f
#endif
#define EPIPAIR_NEWTON_ROUNDS 30u

/* The design row (1, x1, x2, x1 x2) of cell 3 a + b: x1 = 2 - a, x2 = 2 - b (A1 counts). */
inline void epipair_design(const uint cell, REAL *x)
{
    const REAL x1 = (REAL)(2u - cell / 3u), x2 = (REAL)(2u - cell % 3u);
    x[0] = (REAL)1; x[1] = x1; x[2] = x2; x[3] = x1 * x2;
}

/* The information X' W X (m, 4 x 4) and the score X' (y - mu) (u) of the logistic model
 * y ~ 1 + x1 + x2 + x1 x2 at beta, over the 9 cells: n[c] cases, n[9 + c] controls. */
inline void epipair_logistic_terms(const uint *n, const REAL *beta, REAL *m, REAL *u)
{
    for (uint k = 0; k < 16; k++) m[k] = (REAL)0;
    for (uint k = 0; k < 4; k++) u[k] = (REAL)0;
    for (uint c = 0; c < 9; c++) {
        REAL x[4];
        epipair_design(c, x);
        const REAL eta = beta[0] + beta[1] * x[1] + beta[2] * x[2] + beta[3] * x[3];
        const REAL mu = (REAL)1 / ((REAL)1 + exp(-eta));
        const REAL total = (REAL)(n[c] + n[9 + c]);
        const REAL w = total * mu * ((REAL)1 - mu), resid = (REAL)n[c] - total * mu;
        for (uint r = 0; r < 4; r++) {
            u[r] += resid * x[r];
            for (uint k = 0; k < 4; k++) m[r * 4 + k] += w * x[r] * x[k];
        }
    }
}

/* PLINK's --epistasis on a case/control phenotype: the logistic model y ~ 1 + x1 + x2 + x1 x2
 * fitted by Newton's method on the pair's cells (the likelihood depends on them alone), from
 * the overall log odds; returns the Wald chi-square of x1 x2 and writes its odds ratio to
 * *odds. NaN when the information is singular or the fit does not converge. */
inline REAL epipair_logistic(const uint *n, REAL *odds)
{
    uint cases = 0u, total = 0u;
    for (uint c = 0; c < 9; c++) { cases += n[c]; total += n[c] + n[9 + c]; }
    const REAL p0 = (REAL)cases / (REAL)max(total, 1u);
    REAL beta[4] = {log(p0 / ((REAL)1 - p0)), (REAL)0, (REAL)0, (REAL)0};
    REAL m[16], u[4];
    int converged = 0;
    for (uint round = 0; round < EPIPAIR_NEWTON_ROUNDS && !converged; round++) {
        epipair_logistic_terms(n, beta, m, u);
        if (!(fabs(epipair_invert4(m)) > (REAL)1e-12)) return NAN;
        REAL largest = (REAL)0;
        for (uint r = 0; r < 4; r++) {
            const REAL step = m[r * 4] * u[0] + m[r * 4 + 1] * u[1] + m[r * 4 + 2] * u[2]
                              + m[r * 4 + 3] * u[3];
            beta[r] += step;
            largest = isnan(step) ? step : fmax(largest, fabs(step));
        }
        converged = largest < EPIPAIR_NEWTON_TOL;
    }
    if (!converged) return NAN;
    epipair_logistic_terms(n, beta, m, u);
    if (epipair_invert4(m) == (REAL)0) return NAN;
    *odds = exp(beta[3]);
    return beta[3] * beta[3] / m[15];
}

/* The lowest set bit of a non-zero word m: its index, and m without it. */
#define EPIPAIR_NEXT_BIT(m, k) do { const ulong low_ = (m) & (~(m) + 1UL); \
                                    (k) = EPI_POPC(low_ - 1UL); (m) ^= low_; } while (0)

/* The valid samples' bits of word w (the padding of the last word cleared): TAIL, the
 * samples in the last word, is a build define of "linear". */
#ifdef TAIL
#define EPIPAIR_VALID(w) ((w) + 1u < W || TAIL == 64 ? ~0UL : (1UL << TAIL) - 1UL)
#endif

/* The trait summed over the cells of pair (i, j) (s[3 a + b]) and its sum of squares over the
 * samples genotyped at both SNPs (*q), for "linear" (one group). Only two kinds of samples are
 * visited, each once: those with an A1 allele at both SNPs (the rarer genotypes, A1 being the
 * minor allele), giving the four cells of A1 counts 1 and 2 (sums over nested masks, with
 * selects rather than branches), and those missing at one SNP, taken out of the other SNP's
 * sums per genotype (snp_sums) and out of the trait's sum of squares; the other five cells
 * follow from those sums. Bits are visited from the lowest, so every device adds in one
 * order. */
#if TEST == 4
inline void epipair_trait_sums(__global const ulong *bits, __global const REAL *trait,
                               __global const REAL *snp_sums, const uint i, const uint j,
                               REAL *s, REAL *q)
{
    __global const ulong *a = bits + (ulong)i * 3 * W, *b = bits + (ulong)j * 3 * W;
    REAL ri[3], cj[3];
    for (uint v = 0; v < 3; v++) { ri[v] = snp_sums[3 * i + v]; cj[v] = snp_sums[3 * j + v]; }
    REAL aa = (REAL)0, ba = (REAL)0, ab = (REAL)0, bb = (REAL)0, sq = trait[64u * W];
#pragma unroll 1
    for (uint w = 0; w < W; w++) {                 /* not unrolled: data-dependent loops */
        const ulong a1 = a[W + w], a2 = a[2 * W + w], b1 = b[W + w], b2 = b[2 * W + w];
        const ulong ai = a1 | a2, bj = b1 | b2;
        __global const REAL *y = trait + 64u * w;
        ulong m = ai & bj;
        uint k;
        while (m) {                                /* A1 at both: aa; and 2 at i, j, both */
            EPIPAIR_NEXT_BIT(m, k);
            const REAL v = y[k];
            const REAL vi = (a2 >> k) & 1UL ? v : (REAL)0;
            aa += v;
            ba += vi;
            ab += (b2 >> k) & 1UL ? v : (REAL)0;
            bb += (b2 >> k) & 1UL ? vi : (REAL)0;
        }
        const ulong valid = EPIPAIR_VALID(w);
        const ulong mi = ~(a[w] | ai) & valid, mj = ~(b[w] | bj) & valid;
        m = mi | mj;
        while (m) {                                /* missing at i or j */
            EPIPAIR_NEXT_BIT(m, k);
            const REAL v = y[k];
            sq -= v * v;
            if (!((mi >> k) & 1UL)) ri[((a1 >> k) & 1UL) + 2 * ((a2 >> k) & 1UL)] -= v;
            if (!((mj >> k) & 1UL)) cj[((b1 >> k) & 1UL) + 2 * ((b2 >> k) & 1UL)] -= v;
        }
    }
    s[0] = bb;                                     /* cell 3 (2 - vi) + (2 - vj) */
    s[1] = ba - bb;
    s[3] = ab - bb;
    s[4] = aa - ba - ab + bb;
    s[2] = ri[2] - s[0] - s[1];
    s[5] = ri[1] - s[3] - s[4];
    s[6] = cj[2] - s[0] - s[3];
    s[7] = cj[1] - s[1] - s[4];
    s[8] = ri[0] - s[6] - s[7];
    *q = sq;
}
#endif

/* PLINK's --epistasis on a quantitative trait: the least-squares model y ~ 1 + x1 + x2 + x1 x2
 * from the cells' counts n, trait sums s and the sum of squares q; returns the squared t of
 * x1 x2 and writes its coefficient to *coef. NaN when X'X is singular or n <= 4. */
inline REAL epipair_linear(const uint *n, const REAL *s, const REAL q, REAL *coef)
{
    REAL m[16], v[4];
    uint total = 0u;
    for (uint k = 0; k < 16; k++) m[k] = (REAL)0;
    for (uint k = 0; k < 4; k++) v[k] = (REAL)0;
    for (uint c = 0; c < 9; c++) {
        REAL x[4];
        epipair_design(c, x);
        total += n[c];
        for (uint r = 0; r < 4; r++) {
            v[r] += s[c] * x[r];
            for (uint k = 0; k < 4; k++) m[r * 4 + k] += (REAL)n[c] * x[r] * x[k];
        }
    }
    if (total <= 4u || !(fabs(epipair_invert4(m)) > (REAL)1e-9)) return NAN;
    REAL beta[4], fit = (REAL)0;
    for (uint r = 0; r < 4; r++) {
        beta[r] = m[r * 4] * v[0] + m[r * 4 + 1] * v[1] + m[r * 4 + 2] * v[2] + m[r * 4 + 3] * v[3];
        fit += beta[r] * v[r];
    }
    *coef = beta[3];
    const REAL sigma2 = (q - fit) / (REAL)(total - 4u);
    return beta[3] * beta[3] / (sigma2 * m[15]);
}

#if COVARIATES > 0
/* The regressions with K = COVARIATES covariates, fitted on the pair's samples: the model
 * y ~ 1 + x1 + x2 + x1 x2 + covariates has P terms; its P x P normal (information) matrix is
 * factored by Cholesky (a pivot below EPIPAIR_PIVOT_TOL of its diagonal: singular, NaN). */
#define EPIPAIR_P (4u + COVARIATES)
#ifdef OCLSTAT_REAL_IS_DOUBLE
#define EPIPAIR_PIVOT_TOL 1e-10
#else
#define EPIPAIR_PIVOT_TOL 1e-5f
#endif

/* The lower triangle of the symmetric P x P matrix m (row-major) replaced by its Cholesky
 * factor L (m = L L'); 0 when m is not positive definite to the pivot tolerance. */
inline int epipair_cholesky(REAL *m)
{
    for (uint c = 0; c < EPIPAIR_P; c++) {
        REAL d = m[c * EPIPAIR_P + c];
        for (uint k = 0; k < c; k++) d -= m[c * EPIPAIR_P + k] * m[c * EPIPAIR_P + k];
        if (!(d > EPIPAIR_PIVOT_TOL * m[c * EPIPAIR_P + c])) return 0;
        const REAL l = sqrt(d);
        m[c * EPIPAIR_P + c] = l;
        for (uint r = c + 1; r < EPIPAIR_P; r++) {
            REAL x = m[r * EPIPAIR_P + c];
            for (uint k = 0; k < c; k++) x -= m[r * EPIPAIR_P + k] * m[c * EPIPAIR_P + k];
            m[r * EPIPAIR_P + c] = x / l;
        }
    }
    return 1;
}

/* x := L^-1 x (forward), then, with back, x := L'^-1 x: together the solve of L L' z = x. */
inline void epipair_solve(const REAL *l, REAL *x, const int back)
{
    for (uint r = 0; r < EPIPAIR_P; r++) {
        REAL v = x[r];
        for (uint k = 0; k < r; k++) v -= l[r * EPIPAIR_P + k] * x[k];
        x[r] = v / l[r * EPIPAIR_P + r];
    }
    if (!back) return;
    for (uint r = EPIPAIR_P; r-- > 0;) {
        REAL v = x[r];
        for (uint k = r + 1; k < EPIPAIR_P; k++) v -= l[k * EPIPAIR_P + r] * x[k];
        x[r] = v / l[r * EPIPAIR_P + r];
    }
}

/* (X' W X)^-1 at the interaction term (3, 3) from the factor L: |L^-1 e3|^2. */
inline REAL epipair_interaction_variance(const REAL *l)
{
    REAL e[EPIPAIR_P];
    for (uint k = 0; k < EPIPAIR_P; k++) e[k] = (REAL)(k == 3u);
    epipair_solve(l, e, 0);
    REAL v = (REAL)0;
    for (uint k = 0; k < EPIPAIR_P; k++) v += e[k] * e[k];
    return v;
}

/* One pass over the samples genotyped at both SNPs (bit order: group, word, bit): the lower
 * triangle of X' W X (m), X' r (u), and, for "linear", the samples (*used) and the trait's
 * sum of squares (*y_sq). "logistic" at beta: W = mu (1 - mu), r = y - mu, y = 1 in group 0
 * (cases); "linear" (beta unused): W = 1, r = y = trait. covar[(g 64 W + k) K + c]: covariate
 * c of bit k of group g. */
inline void epipair_normal_terms(__global const ulong *bits, __global const REAL *covar,
                                 __global const REAL *trait, const uint i, const uint j,
                                 const REAL *beta, REAL *m, REAL *u, uint *used, REAL *y_sq)
{
    for (uint k = 0; k < EPIPAIR_P * EPIPAIR_P; k++) m[k] = (REAL)0;
    for (uint k = 0; k < EPIPAIR_P; k++) u[k] = (REAL)0;
    uint n = 0u;
    REAL syy = (REAL)0;
    for (uint g = 0; g < EPIPAIR_GROUPS; g++) {
        __global const ulong *a = bits + ((ulong)i * EPIPAIR_GROUPS + g) * 3 * W;
        __global const ulong *b = bits + ((ulong)j * EPIPAIR_GROUPS + g) * 3 * W;
#pragma unroll 1
        for (uint w = 0; w < W; w++) {
            const ulong a1 = a[W + w], a2 = a[2 * W + w], b1 = b[W + w], b2 = b[2 * W + w];
            ulong both = (a[w] | a1 | a2) & (b[w] | b1 | b2);
            uint k;
            while (both) {
                EPIPAIR_NEXT_BIT(both, k);
                const uint at = (g * W + w) * 64u + k;
                __global const REAL *cv = covar + (ulong)at * COVARIATES;
                REAL x[EPIPAIR_P];
                x[0] = (REAL)1;
                x[1] = (REAL)(((a1 >> k) & 1UL) + 2 * ((a2 >> k) & 1UL));
                x[2] = (REAL)(((b1 >> k) & 1UL) + 2 * ((b2 >> k) & 1UL));
                x[3] = x[1] * x[2];
                for (uint c = 0; c < COVARIATES; c++) x[4 + c] = cv[c];
#if TEST == 3
                (void)trait;
                REAL eta = (REAL)0;
                for (uint c = 0; c < EPIPAIR_P; c++) eta += beta[c] * x[c];
                const REAL mu = (REAL)1 / ((REAL)1 + exp(-eta));
                const REAL wt = mu * ((REAL)1 - mu), r = (g == 0u ? (REAL)1 : (REAL)0) - mu;
#else
                (void)beta;
                const REAL wt = (REAL)1, r = trait[at];
                n++;
                syy += r * r;
#endif
                for (uint p = 0; p < EPIPAIR_P; p++) {
                    u[p] += r * x[p];
                    const REAL wx = wt * x[p];
                    for (uint c = 0; c <= p; c++) m[p * EPIPAIR_P + c] += wx * x[c];
                }
            }
        }
    }
    *used = n;
    *y_sq = syy;
}

/* The interaction's Wald chi-square (logistic: Newton's method from the log odds of the
 * pair's samples, as for the cells) or squared t (linear), and its odds ratio or coefficient
 * in *extra; NaN with too few samples, a singular model or no convergence. */
inline REAL epipair_covariate_fit(__global const ulong *bits, __global const REAL *covar,
                                  __global const REAL *trait, const uint i, const uint j,
                                  REAL *extra)
{
    REAL m[EPIPAIR_P * EPIPAIR_P], u[EPIPAIR_P], beta[EPIPAIR_P], y_sq;
    uint n;
    for (uint k = 0; k < EPIPAIR_P; k++) beta[k] = (REAL)0;
#if TEST == 3
    uint used, cases = 0u;                         /* the pair's samples by popcount */
    n = 0u;
    for (uint g = 0; g < EPIPAIR_GROUPS; g++) {
        __global const ulong *a = bits + ((ulong)i * EPIPAIR_GROUPS + g) * 3 * W;
        __global const ulong *b = bits + ((ulong)j * EPIPAIR_GROUPS + g) * 3 * W;
        uint c = 0u;
        for (uint w = 0; w < W; w++)
            c += EPI_POPC((a[w] | a[W + w] | a[2 * W + w])
                              & (b[w] | b[W + w] | b[2 * W + w]));
        n += c;
        if (g == 0u) cases = c;
    }
    if (n <= EPIPAIR_P) return NAN;
    const REAL p0 = (REAL)cases / (REAL)n;
    beta[0] = log(p0 / ((REAL)1 - p0));
    int converged = 0;
    for (uint round = 0; round < EPIPAIR_NEWTON_ROUNDS && !converged; round++) {
        epipair_normal_terms(bits, covar, trait, i, j, beta, m, u, &used, &y_sq);
        if (!epipair_cholesky(m)) return NAN;
        epipair_solve(m, u, 1);
        REAL largest = (REAL)0;
        for (uint k = 0; k < EPIPAIR_P; k++) {
            beta[k] += u[k];
            largest = isnan(u[k]) ? u[k] : fmax(largest, fabs(u[k]));
        }
        converged = largest < EPIPAIR_NEWTON_TOL;
    }
    if (!converged) return NAN;
    epipair_normal_terms(bits, covar, trait, i, j, beta, m, u, &used, &y_sq);
    if (!epipair_cholesky(m)) return NAN;
    *extra = exp(beta[3]);
    return beta[3] * beta[3] / epipair_interaction_variance(m);
#else
    epipair_normal_terms(bits, covar, trait, i, j, beta, m, u, &n, &y_sq);
    if (n <= EPIPAIR_P || !epipair_cholesky(m)) return NAN;
    for (uint k = 0; k < EPIPAIR_P; k++) beta[k] = u[k];
    epipair_solve(m, beta, 1);
    REAL fit = (REAL)0;
    for (uint k = 0; k < EPIPAIR_P; k++) fit += beta[k] * u[k];
    const REAL sigma2 = (y_sq - fit) / (REAL)(n - EPIPAIR_P);
    *extra = beta[3];
    return beta[3] * beta[3] / (sigma2 * epipair_interaction_variance(m));
#endif
}
#endif

#if TEST != 0
/* One pair's statistic (every test but Ueki-Cordell's, which runs in lanes below): z, and
 * *e (BOOST's exact value, the regressions' odds ratio or coefficient), *k (BOOST's code). */
EPI_VECTOR_ATTR inline REAL epipair_statistic(__global const ulong *bits,
                                              __global const uint *counts, const uint i,
                                              const uint j, __global const REAL *thr,
                                              __global const REAL *trait,
                                              __global const REAL *snp_sums,
                                              __global const REAL *covar, REAL *e, uint *k)
{
    (void)thr; (void)trait; (void)snp_sums; (void)covar; (void)k;
#if COVARIATES > 0
    (void)counts;
    return epipair_covariate_fit(bits, covar, trait, i, j, e);
#else
    uint n[9 * EPIPAIR_GROUPS];
    epipair_tables(bits, counts, i, j, n);
#if TEST == 1
    return epipair_joint(n);
#elif TEST == 2
    return epipair_boost(n, thr, e, k);
#elif TEST == 3
    return epipair_logistic(n, e);
#else
    REAL sums[9], q;
    epipair_trait_sums(bits, trait, snp_sums, i, j, sums, &q);
    return epipair_linear(n, sums, q, e);
#endif
#endif
}
#endif

/* Work-item (r, c): row r against the LANES columns LANES c .. LANES c + LANES - 1 of the
 * block (Ueki-Cordell's statistic in lanes: on a CPU the log and the divisions of LANES pairs
 * are SIMD instructions; every other test one pair at a time, LANES = 1). */
__kernel EPIPAIR_ATTR void epistasis_pairs_stat(__global const ulong *bits,
                                                __global const uint *counts, const uint i0,
                                                const uint n_rows, const uint j0,
                                                const uint n_cols, __global REAL *stat,
                                                __global const REAL *thr,
                                                __global REAL *exact, __global uint *code,
                                                __global const REAL *trait,
                                                __global const REAL *snp_sums,
                                                __global const REAL *covar)
{
    const uint r = get_global_id(0), c0 = get_global_id(1) * LANES;
    if (r >= n_rows || c0 >= n_cols) return;
    const uint i = i0 + r;
    const ulong at = (ulong)r * n_cols + c0;
#if TEST == 0
    (void)thr; (void)exact; (void)code; (void)trait; (void)snp_sums; (void)covar;
    uintL n[18];                                   /* cell k of each lane's pair */
#ifdef EPIPAIR_LANE_TABLES
    epipair_lane_tables(bits, counts, i, j0 + c0, j0 + n_cols - 1u, n);
#else
    uint cells[18][LANES];
    for (uint l = 0; l < LANES; l++) {
        const uint j = j0 + c0 + l;
        uint t[18];
        if (c0 + l < n_cols && j > i)
            epipair_tables(bits, counts, i, j, t);
        else
            for (uint k = 0; k < 18; k++) t[k] = 1u;   /* not stored, or -1 */
        for (uint k = 0; k < 18; k++) cells[k][l] = t[k];
    }
    for (uint k = 0; k < 18; k++) n[k] = OCLSTAT_VLOAD_L(cells[k]);
#endif
    realL lor1, var1, lor2, var2;
    epipair_ueki(n, &lor1, &var1);
    epipair_ueki(n + 9, &lor2, &var2);
    const realL z = (lor1 - lor2) * (lor1 - lor2) / (var1 + var2);
    REAL out[LANES];
#if LANES == 1
    out[0] = isfinite(z) ? z : NAN;
#else
    OCLSTAT_VSTORE_L(select((realL)NAN, z, isfinite(z)), out);
#endif
    for (uint l = 0; l < LANES && c0 + l < n_cols; l++)
        stat[at + l] = j0 + c0 + l > i ? out[l] : (REAL)-1;
#else
    const uint j = j0 + c0;
    REAL z = (REAL)-1, e = (REAL)-1;               /* e: BOOST's exact value, the coefficient */
    uint k = 0u;
    if (j > i) {
        z = epipair_statistic(bits, counts, i, j, thr, trait, snp_sums, covar, &e, &k);
        if (!isfinite(z)) z = NAN;
    }
    stat[at] = z;
#if TEST >= 2
    exact[at] = e;
#else
    (void)exact;
#endif
#if TEST == 2
    code[at] = k;
#else
    (void)code;
#endif
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
 * exact statistic and df adjustment, as PLINK reports them; the regressions: with the
 * interaction's odds ratio or coefficient), appended to hits through one atomic counter
 * (their order is restored on the host); and the failed pairs (NaN), for PLINK's count of
 * tests that could not be done. */
__kernel void epistasis_pairs_hits(__global const REAL *stat, const uint n_rows, const uint n_cols,
                           const REAL sig1, const uint capacity, volatile __global uint *count,
                           __global uint *hit_row, __global uint *hit_col,
                           __global REAL *hit_stat, __global uint *failed,
                           __global const REAL *exact, __global const uint *code,
                           __global uint *hit_code, __global REAL *hit_extra)
{
    const uint r = get_global_id(0);
    if (r >= n_rows) return;
    uint f = 0u;
#if TEST != 2
    (void)code; (void)hit_code;
#endif
#if TEST < 2
    (void)exact;
#endif
#if TEST < 3
    (void)hit_extra;
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
#elif TEST >= 3
                hit_extra[k] = exact[at];
#endif
            }
        }
    }
    failed[r] = f;
}
