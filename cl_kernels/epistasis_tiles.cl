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
 * epi_lower_t3 (global (n, n): pair j < k, looping over i < j), epi_tiles_search (one
 * work-group of EPI_THREADS per tile, global tile numbers block0 + group id).
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

#if defined(ROW_SNPS) && defined(COL_SNPS)
__kernel __attribute__((reqd_work_group_size(EPI_THREADS, 1, 1)))
void epistasis_tiles_search(__global const uint *bits, const uint wstride, const uint kw0,
                      const uint kw1, __global const ushort *rows, __global const ushort *cols,
                      __global const ulong *cum, __global const uint *first_ct, const uint n_rt,
                      const ulong block0, __global const uint *t1, __global const uint *t2,
                      __global const uint *t3, const uint n0, const uint n1,
                      __global const epi_long *lf, __global const epi_long *nln,
                      const epi_long threshold, __global uint *count,
                      __global epi_long *cand_score, __global uint *cand_snps, const uint cap)
{
    __local EPI_PS_T ps[2u * EPI_TILE * EPI_TILE];
    __local ushort rsnp[EPI_RI * ROW_SNPS], csnp[EPI_CI * COL_SNPS];
    const uint tid = get_local_id(0);
    uint rt, ct;
    epi_locate_tile(block0 + get_group_id(0), cum, first_ct, n_rt, &rt, &ct);
    epi_load_items(tid, EPI_THREADS, rt, ct, rows, cols, rsnp, csnp);
    barrier(CLK_LOCAL_MEM_FENCE);
    /* The tile's products, one entry at a time (the CUDA kernel uses tensor cores here). */
    for (uint e = tid; e < 2u * EPI_TILE * EPI_TILE; e += EPI_THREADS) {
        const uint c = e / (EPI_TILE * EPI_TILE), row = (e / EPI_TILE) % EPI_TILE;
        const uint col = e % EPI_TILE, kw = c ? kw1 : kw0;
        const uint ri = row / EPI_RC, ci = col / EPI_CC;
        uint sum = 0u;
        for (uint w = 0; w < kw; w++)
            sum += popcount(epi_item_word(bits, wstride, rsnp + ri * ROW_SNPS, ROW_SNPS,
                                          row % EPI_RC, c, w) &
                            epi_item_word(bits, wstride, csnp + ci * COL_SNPS, COL_SNPS,
                                          col % EPI_CC, c, w));
        ps[e] = (EPI_PS_T)sum;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = tid; q < EPI_RI * EPI_CI; q += EPI_THREADS)
        epi_tile_combination(q / EPI_CI, q % EPI_CI, ps, rsnp, csnp, t1, t2, t3, n0, n1, lf,
                             nln, threshold, count, cand_score, cand_snps, cap);
}
#endif
