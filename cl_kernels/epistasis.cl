/*
 * Exhaustive epistasis search (oclstat.epistasis): every combination of ORDER SNPs scored by
 * K2 or mutual information from its 3^ORDER x 2 contingency table, built with AND + popcount
 * on bit vectors (BOOST-style).
 *
 * bits[((s * 2 + c) * 3 + v) * n_words + w] (64-bit words): SNP s, class c (0 control, 1 case), vector v:
 * v = 0 genotype 0, v = 1 genotype 1, v = 2 "genotype present"; genotype 2 is present & ~(g0 |
 * g1) (by subtraction), so a sample missing at a SNP drops out of every cell of the
 * combinations that contain the SNP. Padding bits are 0 in all three vectors.
 *
 * One work-item takes one prefix of ORDER - 1 SNPs (from the host, ascending) and runs the
 * last SNP over every index above the prefix; the prefix's 3^(ORDER-1) cell masks are formed
 * per word from the pair product (W.X, then .Y) and ANDed with the last SNP's genotypes. With
 * NO_MISSING (no missing genotype in the data) only the last SNP's genotypes 0 and 1 are
 * counted: its genotype-2 cells are the prefix table (counted once per work-item) minus those
 * (2/3 of the popcounts). Scores (lower is
 * better; mutual information is stored negated) at or below `threshold` are appended to the
 * candidate list (atomic counter); the host keeps the running top-k and lowers the threshold.
 *
 * Build defines: ORDER (2, 3, 4), SCORE (0 K2, 1 mutual information), NO_MISSING (optional).
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* 64-bit words: one popcount per 64 samples (the host pads each vector to 64 bits). */
typedef ulong word_t;

#include "oclstat/epistasis_cells.clh" /* NCELL, epi_score */

inline void epi_load(__global const word_t *bits, const uint s, const uint c, const uint w,
                     const uint n_words, word_t v[3])
{
    __global const word_t *b = bits + ((ulong)(s * 2u + c) * 3u) * n_words + w;
    v[0] = b[0];
    v[1] = b[n_words];
    v[2] = b[2u * n_words] & ~(v[0] | v[1]);
}

/* The NP = 3^(ORDER-1) genotype cells of the prefix SNPs at word w, as bit masks. */
inline void epi_prefix_cells(__global const word_t *bits, const uint *s, const uint c,
                             const uint w, const uint n_words, word_t *pc)
{
    word_t a[3], b[3];
    epi_load(bits, s[0], c, w, n_words, a);
#if ORDER == 2
    for (uint i = 0; i < 3u; i++) pc[i] = a[i];
#else
    epi_load(bits, s[1], c, w, n_words, b);
#if ORDER == 3
    for (uint i = 0; i < 3u; i++)
        for (uint j = 0; j < 3u; j++) pc[i * 3u + j] = a[i] & b[j];
#else
    word_t x[3];
    epi_load(bits, s[2], c, w, n_words, x);
    for (uint i = 0; i < 3u; i++)
        for (uint j = 0; j < 3u; j++) {
            const word_t ab = a[i] & b[j];
            for (uint l = 0; l < 3u; l++) pc[(i * 3u + j) * 3u + l] = ab & x[l];
        }
#endif
#endif
}

#define NP (NCELL / 3)

__kernel void epi_search(__global const word_t *bits, const uint n_words,
                         __global const ushort *prefix, const uint n_prefix, const uint n_snps,
                         __global const double *lf, __global const double *nln,
                         const double threshold, __global uint *count,
                         __global double *cand_score, __global ushort *cand_snps,
                         const uint cap)
{
    const uint p = get_global_id(0);
    if (p >= n_prefix) return;
    uint s[ORDER];
    for (uint i = 0; i < ORDER - 1; i++) s[i] = prefix[(ulong)p * (ORDER - 1) + i];
    word_t pc[NP];
#ifdef NO_MISSING
    /* No missing genotypes: the prefix table once, then only the last SNP's genotypes 0 and 1
     * per combination; its genotype-2 cells by subtraction from the prefix table. */
    uint ptab[2][NP];
    for (uint c = 0; c < 2u; c++) {
        for (uint i = 0; i < NP; i++) ptab[c][i] = 0u;
        for (uint w = 0; w < n_words; w++) {
            epi_prefix_cells(bits, s, c, w, n_words, pc);
            for (uint i = 0; i < NP; i++) ptab[c][i] += (uint)popcount(pc[i]);
        }
    }
#endif
    for (uint last = s[ORDER - 2] + 1u; last < n_snps; last++) {
        s[ORDER - 1] = last;
        uint cnt[2][NCELL];
        for (uint c = 0; c < 2u; c++) {
            for (uint i = 0; i < NCELL; i++) cnt[c][i] = 0u;
            for (uint w = 0; w < n_words; w++) {
                word_t z[3];
                epi_load(bits, last, c, w, n_words, z);
                epi_prefix_cells(bits, s, c, w, n_words, pc);
                for (uint i = 0; i < NP; i++) {
                    cnt[c][i * 3u] += (uint)popcount(pc[i] & z[0]);
                    cnt[c][i * 3u + 1u] += (uint)popcount(pc[i] & z[1]);
#ifndef NO_MISSING
                    cnt[c][i * 3u + 2u] += (uint)popcount(pc[i] & z[2]);
#endif
                }
            }
#ifdef NO_MISSING
            for (uint i = 0; i < NP; i++)
                cnt[c][i * 3u + 2u] = ptab[c][i] - cnt[c][i * 3u] - cnt[c][i * 3u + 1u];
#endif
        }
        const double score = epi_score(cnt, lf, nln);
        if (score <= threshold) {
            const uint at = atomic_inc(count);
            if (at < cap) {
                cand_score[at] = score;
                for (uint i = 0; i < ORDER; i++) cand_snps[(ulong)at * ORDER + i] = (ushort)s[i];
            }
        }
    }
}
