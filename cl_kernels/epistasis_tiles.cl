/*
 * Tiled epistasis search in OpenCL: the same decomposition as the CUDA tensor-core kernel
 * (oclstat/cuda/epistasis_tc.cu), with the tile's binary matrix product done by popcount
 * loops instead of mma.sync. It is the portable reference that the CUDA path must equal, and it
 * checks the tile schedule, the lower-order tables and the table assembly on any device.
 * Shared device code: oclstat/epistasis_cells.clh (layouts and defines are described there).
 *
 * Scores are fixed-point integers (see the header), so they equal the bit-vector search's
 * exactly on any device.
 *
 * Kernels: epi_lower_t1 (one work-item per SNP), epi_lower_t2 (global (n, n): pair j0 < j1),
 * epi_lower_t3 (global (n, n): pair j < k, looping over i < j), epi_lower_t4 (order 5, global
 * (n, n, n): triple j < k < l, looping over i < j), epi_tiles_search (one work-group of
 * EPI_TR x EPI_TC work-items per tile, global tile numbers block0 + group id; its products a
 * register-blocked popcount matrix product, below).
 */
#include "oclstat/epistasis_cells.clh"


__kernel void epistasis_tiles_lower_t1(__global const uint *bits, const uint wstride, const uint kw0,
                           const uint kw1, const uint n_snps, __global uint *t1)
{
    const uint s = get_global_id(0);
    if (s >= n_snps) return;
    const uint snp[1] = {s};
    epi_lower_item(bits, wstride, kw0, kw1, snp, 1u, t1);
}

__kernel void epistasis_tiles_lower_t2(__global const uint *bits, const uint wstride, const uint kw0,
                           const uint kw1, const uint n_snps, __global uint *t2)
{
    const uint i = get_global_id(0), j = get_global_id(1);
    if (j >= n_snps || i >= j) return;
    const uint snp[2] = {i, j};
    epi_lower_item(bits, wstride, kw0, kw1, snp, 2u, t2);
}

__kernel void epistasis_tiles_lower_t3(__global const uint *bits, const uint wstride, const uint kw0,
                           const uint kw1, const uint n_snps, __global uint *t3)
{
    const uint j = get_global_id(0), k = get_global_id(1);
    if (k >= n_snps || j >= k) return;
    epi_lower_triples(bits, wstride, kw0, kw1, j, k, t3);
}

#if ORDER == 5
__kernel void epistasis_tiles_lower_t4(__global const uint *bits, const uint wstride,
                                       const uint kw0, const uint kw1, const uint n_snps,
                                       __global uint *t4)
{
    const uint j = get_global_id(0), k = get_global_id(1), l = get_global_id(2);
    if (l >= n_snps || k >= l || j >= k) return;
    epi_lower_quads(bits, wstride, kw0, kw1, j, k, l, t4);
}
#endif

#if defined(ROW_SNPS) && defined(COL_SNPS)
/* The tile's products as a register-blocked binary matrix product: work-item (tr, tc) of the
 * EPI_TR x EPI_TC grid holds the EPI_MR x EPI_MC products of rows tr EPI_MR .. and columns
 * tc EPI_MC .. in registers (EPI_MC = 8 at order 5, whose column items are triples; at
 * orders 4 and 5 exactly one combination's 16 or 32 products). The group stages
 * EPI_KC words of every row and column pattern vector at a time into local memory (each
 * pattern word the AND of its item's genotype words, built once per tile and chunk); per
 * staged word a work-item reads one 128-bit row quad and EPI_MC / 4 column quads and does
 * 4 EPI_MC AND + popcount, so local traffic is 2 or 3 loads per 16 or 32 popcounts and the
 * popcount unit sets the pace.
 * Then each work-item scores its own combinations from its registers.
 * Budget (clang 16 + libclc, ptxas 12, 2026-11-28; tools/kernel_resources.py checks it): on
 * sm_90 56 registers and a 480-byte stack frame at order 4 (the assembly's 81-cell table, used
 * once per combination; 64 and 808 bytes when a class has 65,536 samples or more), 47 and 264
 * at order 3, 56 and 1,520 at order 5 (a 243-cell table), 8.6 KiB of local memory, no
 * spills; the hot loop keeps its 16 (order 5: 32) counters in registers and touches no
 * stack. */
#if EPI_MICRO != 4
#error "the product loop reads rows and columns in 128-bit quads: EPI_MICRO must be 4"
#endif
#define EPI_MR 4u
#if EPI_CC > 4u
#define EPI_MC EPI_CC
#else
#define EPI_MC 4u
#endif
#define EPI_TR (EPI_TILE / EPI_MR)
#define EPI_TC (EPI_TILE / EPI_MC)
#define EPI_KC TC_KCHUNK             /* words per staged chunk (each class's words: a multiple) */
#define EPI_LS (EPI_TILE + 4u)       /* padded staged row of words: staging stores spread */
#define EPI_RPI (EPI_MR / EPI_RC)    /* row items per work-item */
#define EPI_CPI (EPI_MC / EPI_CC)    /* column items per work-item */
/* work-items per tile: 256, or 128 at order 5 (OpenCLTiles.threads, oclstat/_epistasis/tiles.py) */
#define EPI_TILE_ITEMS (EPI_TR * EPI_TC)

/* Stage words k0 .. k0 + EPI_KC - 1 of class c: stage[w * EPI_LS + row pattern] for the rows,
 * stage[(EPI_KC + w) * EPI_LS + column pattern] for the columns. Consecutive work-items take
 * consecutive words of one pattern vector (coalesced global loads). */
inline void epi_tiles_stage(__global const uint *bits, const uint wstride,
                            __local const ushort *rsnp, __local const ushort *csnp,
                            const uint c, const uint k0, const uint tid, __local uint *stage)
{
    for (uint e = tid; e < 2u * EPI_TILE * EPI_KC; e += EPI_TILE_ITEMS) {
        const uint col = e >= EPI_TILE * EPI_KC;
        const uint rem = e - col * EPI_TILE * EPI_KC;
        const uint j = rem / EPI_KC, w = rem % EPI_KC;
        const uint v = col ? epi_item_word(bits, wstride, csnp + (j / EPI_CC) * COL_SNPS,
                                           COL_SNPS, j % EPI_CC, c, k0 + w)
                           : epi_item_word(bits, wstride, rsnp + (j / EPI_RC) * ROW_SNPS,
                                           ROW_SNPS, j % EPI_RC, c, k0 + w);
        stage[(col * EPI_KC + w) * EPI_LS + j] = v;
    }
}

__kernel __attribute__((reqd_work_group_size(EPI_TILE_ITEMS, 1, 1)))
void epistasis_tiles_search(__global const uint *bits, const uint wstride, const uint kw0,
                      const uint kw1, __global const ushort *rows, __global const ushort *cols,
                      __global const ulong *cum, __global const uint *first_ct, const uint n_rt,
                      const ulong block0, __global const uint *t1, __global const uint *t2,
                      __global const uint *t3, __global const uint *t4, const uint n0,
                      const uint n1,
                      __global const epi_long *lf, __global const epi_long *nln,
                      const epi_long threshold, __global uint *count,
                      __global epi_long *cand_score, __global uint *cand_snps, const uint cap)
{
    __local uint4 stage4[2u * EPI_KC * EPI_LS / 4u];
    __local ushort rsnp[EPI_RI * ROW_SNPS], csnp[EPI_CI * COL_SNPS];
    __local uint *stage = (__local uint *)stage4;
    const uint tid = get_local_id(0), tr = tid / EPI_TC, tc = tid % EPI_TC;
    uint rt, ct;
    epi_locate_tile(block0 + get_group_id(0), cum, first_ct, n_rt, &rt, &ct);
    epi_load_items(tid, EPI_TILE_ITEMS, rt, ct, rows, cols, rsnp, csnp);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint prod[2][EPI_MR * EPI_MC];
    for (uint c = 0; c < 2u; c++) {
        const uint kw = c ? kw1 : kw0;
        uint acc[EPI_MR * EPI_MC];
        for (uint i = 0; i < EPI_MR * EPI_MC; i++) acc[i] = 0u;
        for (uint k0 = 0; k0 < kw; k0 += EPI_KC) {
            epi_tiles_stage(bits, wstride, rsnp, csnp, c, k0, tid, stage);
            barrier(CLK_LOCAL_MEM_FENCE);
            for (uint w = 0; w < EPI_KC; w++) {
                const uint4 r = stage4[w * (EPI_LS / 4u) + tr];
                const uint rv[4] = {r.x, r.y, r.z, r.w};
                uint qv[EPI_MC];
                for (uint h = 0; h < EPI_MC / 4u; h++) {
                    const uint4 q = stage4[(EPI_KC + w) * (EPI_LS / 4u) + tc * (EPI_MC / 4u) + h];
                    qv[4u * h] = q.x;
                    qv[4u * h + 1u] = q.y;
                    qv[4u * h + 2u] = q.z;
                    qv[4u * h + 3u] = q.w;
                }
                for (uint i = 0; i < EPI_MR; i++)
                    for (uint j = 0; j < EPI_MC; j++)
                        acc[i * EPI_MC + j] += popcount(rv[i] & qv[j]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        for (uint i = 0; i < EPI_MR * EPI_MC; i++) prod[c][i] = acc[i];
    }
    /* the work-item's combinations: row items tr EPI_RPI .., column items tc EPI_CPI .. */
    for (uint a = 0; a < EPI_RPI; a++)
        for (uint b = 0; b < EPI_CPI; b++) {
            uint s[ORDER];
            if (!epi_tile_snps(tr * EPI_RPI + a, tc * EPI_CPI + b, rsnp, csnp, s)) continue;
            uint p0[EPI_RC * EPI_CC], p1[EPI_RC * EPI_CC];
            for (uint rp = 0; rp < EPI_RC; rp++)
                for (uint cp = 0; cp < EPI_CC; cp++) {
                    const uint at = (a * EPI_RC + rp) * EPI_MC + b * EPI_CC + cp;
                    p0[rp * EPI_CC + cp] = prod[0][at];
                    p1[rp * EPI_CC + cp] = prod[1][at];
                }
            epi_tile_score(s, p0, p1, t1, t2, t3, t4, n0, n1, lf, nln, threshold, count,
                           cand_score, cand_snps, cap);
        }
}
#endif
