/*
 * Exhaustive epistasis search (oclstat.epistasis): every combination of ORDER SNPs scored by
 * K2 or mutual information from its 3^ORDER x 2 contingency table, built with AND + popcount
 * on bit vectors (BOOST-style). Integers only: no floating point, no fp64 needed, and the
 * same scores bit for bit on every device (scores: oclstat/epistasis_cells.clh).
 *
 * bits[((s * 2 + c) * 3 + v) * n_words + w] (64-bit words; the GPU schedule's copy is
 * word-major, bits[((c * 3 + v) * n_words + w) * n_snps + s]): SNP s, class c (0 control, 1 case),
 * genotype v (0, 1, 2); a missing genotype and the padding past a class's samples are 0 in all
 * three vectors, so a sample missing at a SNP drops out of every cell of the combinations that
 * contain the SNP.
 *
 * Combinations are numbered in colexicographic order: s[0] < s[1] < ... < s[ORDER-1] has rank
 * sum_i C(s[i], i + 1), so consecutive ranks share their upper SNPs s[1..] (the "suffix") while
 * s[0] runs. Work-item g scores ranks rank0 + g * per_item .. + per_item - 1 (below
 * rank0 + n_ranks): it unranks the first and steps to the next; nothing is built on the host,
 * so a launch can hold any number of combinations and host memory stays flat.
 *
 * Two schedules build a combination's table (the same integers either way):
 *
 *   GPU (EPI_CELL_OUTER): bits word-major (below), lanes of a block on consecutive
 *       combinations (coalesced loads of s[0], one broadcast load of the shared suffix), and
 *       one genotype of the top SNP at a time: per word, every mask of the other suffix SNPs
 *       with it, ANDed with s[0]'s three genotype vectors and popcounted per class. A third of
 *       the table's counters live at a time (27 per class at order 4): no stack on a GPU.
 *   CPU (default): one word at a time for every cell, the counters of the whole table in a
 *       private array (the CPU's L1 cache). With NO_MISSING (no missing genotype in the data)
 *       the suffix's cell masks (the ANDs of its SNPs' genotype vectors) are built once per
 *       suffix into the work-item's slice of `scratch` (Fiuncho's prefix table), with the
 *       suffix's own table; then for each s[0] every cell is a run over the words with two
 *       counters in registers, popcount(cell & s[0]'s genotype 0) and (& genotype 1), and the
 *       genotype-2 cell follows by subtraction: two AND + popcount per suffix cell and word,
 *       and no AND for the suffix's cells after the first s[0]. Order 2 needs no scratch (the
 *       suffix cells are s[1]'s own vectors) and counts only the four cells where neither SNP
 *       has genotype 2; the other five follow from the SNPs' own genotype counts
 *       (`counts[(s * 2 + c) * 3 + v]`, from the host).
 *
 * Scores at or below `threshold` (lower is better) are appended to the candidate list (atomic
 * counter); the host keeps the running top-k and lowers the threshold between launches.
 *
 * Build defines: ORDER (2, 3, 4), SCORE (0 K2, 1 mutual information), EPI_CELL_OUTER (the GPU
 * schedule), NO_MISSING (CPU schedule, complete genotypes; `scratch` then holds 2 NP n_words
 * words per work-item for orders 3 and 4), EPI_ONE_ITEM_PER_LANE (CPU compilers, below),
 * EPI_BUILTIN_POPCOUNT and EPI_VPOPCNT (how bits are counted: oclstat/popcount.clh).
 */
#include "oclstat/epistasis_cells.clh" /* epi_acc, epi_candidate */
#include <oclstat/cpu.clh>
#include <oclstat/popcount.clh> /* EPI_POPC, epi_and_popc2_rows */

/* 64-bit words: one popcount per 64 samples (the host pads each vector to 64 bits). */
typedef ulong word_t;

/* EPI_ONE_ITEM_PER_LANE (CPU schedule): one combination per work-item, its words through the
 * scalar POPCNT unit, not lanes of work-items with gathered words and an emulated vector
 * popcount (oclstat/cpu.clh). */
#ifdef EPI_ONE_ITEM_PER_LANE
#define EPI_KERNEL_ATTR OCLSTAT_ONE_ITEM_PER_LANE(ulong4) EPI_VECTOR_ATTR
#else
#define EPI_KERNEL_ATTR EPI_VECTOR_ATTR
#endif

#define NP (NCELL / 3) /* suffix cells */

/* CPU schedule: the suffix cells counted against s[0] (order 2: the two where s[1] has genotype
 * 0 or 1, the third follows from the SNPs' own counts), and how many of them one pass over the
 * words counts (EPI_VPOPCNT: all of them, up to nine, sharing each load of s[0]'s words; one
 * word at a time, one cell per pass is faster). */
#define EPI_COUNTED (ORDER == 2 ? 2u : NP)
#if defined(EPI_VPOPCNT) && ORDER == 2
#define EPI_ROWS 2u
#elif defined(EPI_VPOPCNT)
#define EPI_ROWS 9u
#else
#define EPI_ROWS 1u
#endif

/* C(n, k) for k <= 4, built up C(n, 2) -> C(n, 3) -> C(n, 4) so that every product is at most
 * 4 C(n, k) (each division exact): no overflow while the search's ranks fit (the planner keeps
 * C(n_snps, ORDER) below 2^62; any n < 2^32 at order 2). */
inline ulong epi_binom(const uint n, const uint k)
{
    if (n < k) return 0ul;
    const ulong c2 = (ulong)n * (n - 1u) / 2ul;
    switch (k) {
    case 1u: return n;
    case 2u: return c2;
    case 3u: return c2 * (n - 2u) / 3ul;
    default: return c2 * (n - 2u) / 3ul * (n - 3u) / 4ul;
    }
}

/* The combination of colex rank r (r < C(n_snps, ORDER)), ascending, into s. */
inline void epi_unrank(ulong r, const uint n_snps, uint s[ORDER])
{
    uint hi = n_snps;
    for (uint i = ORDER; i-- > 0u;) {
        uint lo = i; /* C(i, i + 1) = 0 <= r: the largest v < hi with C(v, i + 1) <= r */
        while (hi - lo > 1u) {
            const uint mid = (lo + hi) / 2u;
            if (epi_binom(mid, i + 1u) <= r) lo = mid;
            else hi = mid;
        }
        s[i] = lo;
        r -= epi_binom(lo, i + 1u);
        hi = lo;
    }
}

/* The next combination in colex order: s[0] + 1, carrying into s[1], ...; returns the
 * highest index that changed (0: the suffix s[1..] is the same). */
inline uint epi_next(uint s[ORDER])
{
    uint i = 0u;
    s[0]++;
    while (i + 1u < ORDER && s[i] == s[i + 1u]) {
        s[i] = i;
        i++;
        s[i]++;
    }
    return i;
}

#ifdef EPI_CELL_OUTER
/* GPU schedule: the bits are word-major, bits[((c * 3 + v) * n_words + w) * n_snps + s], so the
 * 32 consecutive combinations of a lane block (which differ in s[0], the suffix shared) load
 * 32 consecutive words, and the suffix's words are one broadcast load. Offsets are 32-bit (the
 * host checks that the bit vectors hold fewer than 2^32 words): fewer registers than pointers. */
#define EPI_AT(s, c, v, w) ((((c) * 3u + (v)) * n_words + (w)) * n_snps + (s))
#define EPI_MID (NP / 3u) /* suffix cells of the SNPs between s[0] and the top one: 3^(ORDER-2) */

/* The score of combination s, one genotype dt of the top SNP s[ORDER-1] at a time: for each
 * word, the 3^(ORDER-2) masks of the middle SNPs' genotypes ANDed with the top SNP's genotype-dt
 * vector, each ANDed with s[0]'s three genotype vectors and popcounted per class. Per word and
 * class: 3 (ORDER - 1) + 1 loads, 3^(ORDER-1) popcounts, 3 EPI_MID counters per class live. */
inline epi_long epi_combination_score(__global const word_t *bits, const uint n_words,
                                      const uint n_snps, const uint *s,
                                      __global const epi_long *lf,
                                      __global const epi_long *nln)
{
    epi_acc acc;
    epi_acc_init(&acc);
    for (uint dt = 0u; dt < 3u; dt++) {
        uint n[2][3u * EPI_MID];
        for (uint c = 0u; c < 2u; c++) {
            for (uint k = 0u; k < 3u * EPI_MID; k++) n[c][k] = 0u;
            for (uint w = 0u; w < n_words; w++) {
                word_t m[EPI_MID];
                m[0] = bits[EPI_AT(s[ORDER - 1], c, dt, w)];
#if ORDER == 3
                const word_t top = m[0];
                for (uint d1 = 0u; d1 < 3u; d1++) m[d1] = top & bits[EPI_AT(s[1], c, d1, w)];
#elif ORDER == 4
                word_t v1[3];
                for (uint d = 0u; d < 3u; d++) v1[d] = bits[EPI_AT(s[1], c, d, w)];
                const word_t top = m[0];
                for (uint d2 = 0u; d2 < 3u; d2++) {
                    const word_t t = top & bits[EPI_AT(s[2], c, d2, w)];
                    for (uint d1 = 0u; d1 < 3u; d1++) m[d1 + 3u * d2] = t & v1[d1];
                }
#endif
                const word_t z0 = bits[EPI_AT(s[0], c, 0u, w)];
                const word_t z1 = bits[EPI_AT(s[0], c, 1u, w)];
                const word_t z2 = bits[EPI_AT(s[0], c, 2u, w)];
                for (uint q = 0u; q < EPI_MID; q++) {
                    n[c][3u * q] += EPI_POPC(m[q] & z0);
                    n[c][3u * q + 1u] += EPI_POPC(m[q] & z1);
                    n[c][3u * q + 2u] += EPI_POPC(m[q] & z2);
                }
            }
        }
        for (uint k = 0u; k < 3u * EPI_MID; k++) epi_acc_cell(&acc, n[1][k], n[0][k], lf, nln);
    }
    return epi_acc_score(&acc, nln);
}

#else
/* The NP suffix cells of class c at word w as bit masks, cell q = d1 + 3 d2 + 9 d3 (digit dj
 * the genotype of s[j]). */
inline void epi_suffix_cells(__global const word_t *bits, const uint *s, const uint c,
                             const uint w, const uint n_words, word_t pc[NP])
{
    word_t v1[3];
    for (uint d = 0u; d < 3u; d++) v1[d] = bits[((ulong)(s[1] * 2u + c) * 3u + d) * n_words + w];
#if ORDER == 2
    for (uint d = 0u; d < 3u; d++) pc[d] = v1[d];
#else
    word_t v2[3];
    for (uint d = 0u; d < 3u; d++) v2[d] = bits[((ulong)(s[2] * 2u + c) * 3u + d) * n_words + w];
#if ORDER == 3
    for (uint d2 = 0u; d2 < 3u; d2++)
        for (uint d1 = 0u; d1 < 3u; d1++) pc[d1 + 3u * d2] = v1[d1] & v2[d2];
#else
    for (uint d3 = 0u; d3 < 3u; d3++) {
        const word_t v3 = bits[((ulong)(s[3] * 2u + c) * 3u + d3) * n_words + w];
        for (uint d2 = 0u; d2 < 3u; d2++) {
            const word_t t = v2[d2] & v3;
            for (uint d1 = 0u; d1 < 3u; d1++) pc[d1 + 3u * d2 + 9u * d3] = v1[d1] & t;
        }
    }
#endif
#endif
}
#endif

__kernel EPI_KERNEL_ATTR void epistasis_search(__global const word_t *bits, const uint n_words,
                         const uint n_snps, const ulong rank0, const ulong n_ranks,
                         const uint per_item, __global const epi_long *lf,
                         __global const epi_long *nln, const epi_long threshold,
                         __global uint *count, __global epi_long *cand_score,
                         __global uint *cand_snps, const uint cap, __global word_t *scratch,
                         __global const uint *counts)
{
#ifdef EPI_CELL_OUTER
    /* lane blocks of EPI_LANES work-items: lane l of block b scores the ranks
     * b EPI_LANES per_item + l + i EPI_LANES, i < per_item, so neighbouring lanes score
     * neighbouring combinations */
    const ulong g = get_global_id(0);
    const ulong first = (g / EPI_LANES) * EPI_LANES * per_item + g % EPI_LANES;
    if (first >= n_ranks) return;
    ulong left = per_item;
#else
    const ulong first = (ulong)get_global_id(0) * per_item;
    if (first >= n_ranks) return;
    ulong left = min((ulong)per_item, n_ranks - first);
#endif
    uint s[ORDER];
    epi_unrank(rank0 + first, n_snps, s);
#if !defined(NO_MISSING) || ORDER > 2
    (void)counts;
#endif
#ifdef EPI_CELL_OUTER
    for (ulong r = first;;) {
        epi_candidate(epi_combination_score(bits, n_words, n_snps, s, lf, nln), threshold, s,
                      count, cand_score, cand_snps, cap);
        if (--left == 0ul || r + EPI_LANES >= n_ranks) break;
        r += EPI_LANES;
        for (uint i = 0u; i < EPI_LANES; i++) epi_next(s);
    }
#elif defined(NO_MISSING)
    /* cells[(c * NP + q) * n_words + w]: suffix cell q of class c at word w */
#if ORDER == 2
    (void)scratch;
#else
    __global word_t *cells = scratch + (ulong)get_global_id(0) * (2u * NP) * n_words;
    word_t pc[NP];
#endif
    uint ptab[2][NP];
    int fresh = 1;
    for (; left > 0ul; left--) {
#if ORDER == 2
        __global const word_t *cells = bits + (ulong)s[1] * 2u * 3u * n_words;
#endif
        if (fresh) { /* the suffix's cell masks and its own table, once per suffix */
            for (uint c = 0u; c < 2u; c++) {
                for (uint q = 0u; q < NP; q++) ptab[c][q] = 0u;
                for (uint w = 0u; w < n_words; w++) {
#if ORDER == 2
                    for (uint q = 0u; q < NP; q++)
                        ptab[c][q] += EPI_POPC(cells[(c * NP + q) * n_words + w]);
#else
                    epi_suffix_cells(bits, s, c, w, n_words, pc);
                    for (uint q = 0u; q < NP; q++) {
                        cells[(c * NP + q) * n_words + w] = pc[q];
                        ptab[c][q] += EPI_POPC(pc[q]);
                    }
#endif
                }
            }
        }
        uint cnt[2][NCELL];
        for (uint c = 0u; c < 2u; c++) {
            __global const word_t *z0 = bits + (ulong)(s[0] * 2u + c) * 3u * n_words;
            __global const word_t *z1 = z0 + n_words;
            /* cell 3 q + v: the suffix has cell q, s[0] genotype v; the suffix cells counted
             * (order 2: those where s[1] has genotype 0 or 1), EPI_ROWS at a time */
            for (uint q0 = 0u; q0 < EPI_COUNTED; q0 += EPI_ROWS) {
                uint a[EPI_ROWS], b[EPI_ROWS];
                epi_and_popc2_rows(cells + (c * NP + q0) * n_words, EPI_ROWS, z0, z1, n_words,
                                   a, b);
                for (uint r = 0u; r < EPI_ROWS; r++) {
                    const uint q = q0 + r;
                    cnt[c][3u * q] = a[r];
                    cnt[c][3u * q + 1u] = b[r];
                    cnt[c][3u * q + 2u] = ptab[c][q] - a[r] - b[r];
                }
            }
#if ORDER == 2
            __global const uint *own = counts + (s[0] * 2u + c) * 3u;
            for (uint v = 0u; v < 2u; v++) cnt[c][6u + v] = own[v] - cnt[c][v] - cnt[c][3u + v];
            cnt[c][8u] = ptab[c][2] - cnt[c][6] - cnt[c][7];
#endif
        }
        epi_candidate(epi_score(cnt, lf, nln), threshold, s, count, cand_score, cand_snps, cap);
        fresh = epi_next(s) > 0u;
    }
#else
    (void)scratch;
    word_t pc[NP];
    for (; left > 0ul; left--) {
        uint cnt[2][NCELL];
        for (uint c = 0u; c < 2u; c++) {
            for (uint i = 0u; i < NCELL; i++) cnt[c][i] = 0u;
            __global const word_t *z = bits + (ulong)(s[0] * 2u + c) * 3u * n_words;
            for (uint w = 0u; w < n_words; w++) {
                epi_suffix_cells(bits, s, c, w, n_words, pc);
                const word_t z0 = z[w], z1 = z[n_words + w], z2 = z[2u * n_words + w];
                for (uint q = 0u; q < NP; q++) {
                    cnt[c][3u * q] += EPI_POPC(pc[q] & z0);
                    cnt[c][3u * q + 1u] += EPI_POPC(pc[q] & z1);
                    cnt[c][3u * q + 2u] += EPI_POPC(pc[q] & z2);
                }
            }
        }
        epi_candidate(epi_score(cnt, lf, nln), threshold, s, count, cand_score, cand_snps, cap);
        epi_next(s);
    }
#endif
}
