/*
 * Epistasis search on NVIDIA tensor cores (oclstat.cuda): the products of a tile are binary
 * matrix products on the tensor cores, mma.sync m16n8k256 with b1 operands, AND and POPC
 * (sm_80 and newer). Everything else (tile schedule, lower-order tables, table assembly,
 * scores, candidates) is the shared device code of oclstat/epistasis_cells.clh, which the
 * OpenCL twin (cl_kernels/epistasis_tiles.cl) runs with popcount loops; the two must agree
 * exactly. Build defines as in the header (ORDER, SCORE, ROW_SNPS, COL_SNPS).
 *
 * Fragments of mma.m16n8k256 .b1 (PTX ISA): lane = 4 g + t; A (16 x 256 bits, row-major)
 * a0 = row g, bits 32 t .. 32 t + 31; a1 = row g + 8, same bits; a2, a3 = the same rows, bits
 * 128 + 32 t ..; B (256 x 8, column-major) b0 = column g, bits 32 t .., b1 = bits 128 + 32 t ..;
 * C/D c0, c1 = row g, columns 2 t, 2 t + 1; c2, c3 = row g + 8. epi_tc_check multiplies two
 * 64 x K bit matrices with exactly this code, so the host verifies the layout on each device
 * before the first search (oclstat.cuda.epistasis_tc.self_check).
 */
#include "oclstat/epistasis_cells.clh"

/* TC_THREADS (threads per tile) and TC_KCHUNK (32-bit words staged per step: 512 bits, two
 * mma k-steps) come from oclstat/_constants.py. */
#define TC_SROW (TC_KCHUNK + 4u) /* padded shared row: a warp's fragment loads hit 32 banks */
#define TC_QPR (TC_KCHUNK / 4u)   /* 128-bit quads per staged row */
#define TC_QUADS (EPI_TILE * TC_QPR / TC_THREADS) /* quads of each matrix a thread stages */
#if TC_KCHUNK % 4u != 0u || (EPI_TILE * TC_QPR) % TC_THREADS != 0u
#error "TC_KCHUNK must be a multiple of 4 and a tile's quads a multiple of TC_THREADS"
#endif

__device__ __forceinline__ void tc_mma(int d[4], const uint a[4], const uint b[2])
{
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* One staged chunk: warp w of 4 owns rows (w / 2) * 32 .. + 32 and columns (w % 2) * 32 ..
 * + 32 of the 64 x 64 tile, 2 x 4 mma tiles of 16 x 8; as and bs hold 64 rows of TC_KCHUNK
 * words (stride TC_SROW), bs one row per column (column-major B). */
__device__ __forceinline__ void tc_stage(const uint *as, const uint *bs, int acc[2][4][4])
{
    const uint lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint g = lane >> 2, t = lane & 3u;
    const uint m0 = (warp >> 1) * 32u, n0 = (warp & 1u) * 32u;
#pragma unroll
    for (uint ks = 0; ks < TC_KCHUNK; ks += 8u) {
        uint a[2][4], b[4][2];
#pragma unroll
        for (uint i = 0; i < 2u; i++) {
            const uint *r = as + (m0 + i * 16u + g) * TC_SROW + ks + t;
            a[i][0] = r[0];
            a[i][1] = r[8u * TC_SROW];
            a[i][2] = r[4];
            a[i][3] = r[8u * TC_SROW + 4u];
        }
#pragma unroll
        for (uint j = 0; j < 4u; j++) {
            const uint *c = bs + (n0 + j * 8u + g) * TC_SROW + ks + t;
            b[j][0] = c[0];
            b[j][1] = c[4];
        }
#pragma unroll
        for (uint i = 0; i < 2u; i++)
#pragma unroll
            for (uint j = 0; j < 4u; j++) tc_mma(acc[i][j], a[i], b[j]);
    }
}

/* The accumulators of the 64 x 64 tile into ps[row * 64 + col] (uint, or the tile's EPI_PS_T). */
template <typename T> __device__ __forceinline__ void tc_store(int acc[2][4][4], T *ps)
{
    const uint lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const uint g = lane >> 2, t = lane & 3u;
    const uint m0 = (warp >> 1) * 32u, n0 = (warp & 1u) * 32u;
#pragma unroll
    for (uint i = 0; i < 2u; i++)
#pragma unroll
        for (uint j = 0; j < 4u; j++) {
            const uint row = m0 + i * 16u + g, col = n0 + j * 8u + 2u * t;
            ps[row * EPI_TILE + col] = (T)acc[i][j][0];
            ps[row * EPI_TILE + col + 1u] = (T)acc[i][j][1];
            ps[(row + 8u) * EPI_TILE + col] = (T)acc[i][j][2];
            ps[(row + 8u) * EPI_TILE + col + 1u] = (T)acc[i][j][3];
        }
}

/* Where a staged row of an item's genotype-pattern vector comes from: the item's one or two
 * SNPs' genotype vectors (the same vector twice for a one-SNP item) at word 0 of class c, as
 * quads, and a mask that is 0 for a padding item (its row stages zeros). */
struct tc_source {
    const uint4 *v0, *v1;
    uint mask;
};

__device__ __forceinline__ tc_source tc_row_source(const uint *bits, const uint wstride,
                                                   const ushort *snp, const uint n,
                                                   const uint pattern, const uint c)
{
    const uint s0 = snp[0], s1 = snp[n - 1u];
    const uint g0 = (pattern >> (n - 1u)) & 1u, g1 = pattern & 1u;
    const bool pad = s0 == EPI_NONE || s1 == EPI_NONE;
    tc_source src;
    src.mask = pad ? 0u : 0xFFFFFFFFu;
    src.v0 = (const uint4 *)(bits + (pad ? 0ul : ((ulong)(s0 * 2u + c) * 2u + g0) * wstride));
    src.v1 = (const uint4 *)(bits + (pad ? 0ul : ((ulong)(s1 * 2u + c) * 2u + g1) * wstride));
    return src;
}

/* Quad q (words 4 q .. 4 q + 3 of the chunk at word k0) of a staged row: the AND of the item's
 * vectors, 128 bits at a time (wstride and k0 are multiples of 4). */
__device__ __forceinline__ uint4 tc_quad(const tc_source src, const uint k0, const uint q)
{
    const uint4 x = src.v0[k0 / 4u + q], y = src.v1[k0 / 4u + q];
    uint4 v;
    v.x = x.x & y.x & src.mask;
    v.y = x.y & y.y & src.mask;
    v.z = x.z & y.z & src.mask;
    v.w = x.w & y.w & src.mask;
    return v;
}

__device__ __forceinline__ void tc_zero(int acc[2][4][4])
{
#pragma unroll
    for (uint i = 0; i < 2u; i++)
#pragma unroll
        for (uint j = 0; j < 4u; j++)
#pragma unroll
            for (uint r = 0; r < 4u; r++) acc[i][j][r] = 0;
}

/* out[r * 64 + c] = sum over words of popc(a[r * kwords + w] & b[c * kwords + w]), with the
 * search's staging and fragment code (kwords a multiple of TC_KCHUNK). One block. */
extern "C" __global__ void __launch_bounds__(TC_THREADS)
epistasis_tc_check(const uint *a, const uint *b, const uint kwords, uint *out)
{
    __shared__ uint as[EPI_TILE * TC_SROW], bs[EPI_TILE * TC_SROW];
    int acc[2][4][4];
    tc_zero(acc);
    for (uint k0 = 0; k0 < kwords; k0 += TC_KCHUNK) {
        for (uint e = threadIdx.x; e < EPI_TILE * TC_KCHUNK; e += TC_THREADS) {
            const uint row = e / TC_KCHUNK, w = e % TC_KCHUNK;
            as[row * TC_SROW + w] = a[(ulong)row * kwords + k0 + w];
            bs[row * TC_SROW + w] = b[(ulong)row * kwords + k0 + w];
        }
        __syncthreads();
        tc_stage(as, bs, acc);
        __syncthreads();
    }
    tc_store(acc, out);
}

extern "C" __global__ void epistasis_tc_lower_t1(const uint *bits, const uint wstride, const uint kw0,
                                        const uint kw1, const uint n_snps, uint *t1)
{
    const uint s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= n_snps) return;
    const uint snp[1] = {s};
    epi_lower_item(bits, wstride, kw0, kw1, snp, 1u, t1);
}

extern "C" __global__ void epistasis_tc_lower_t2(const uint *bits, const uint wstride, const uint kw0,
                                        const uint kw1, const uint n_snps, uint *t2)
{
    const uint i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (j >= n_snps || i >= j) return;
    const uint snp[2] = {i, j};
    epi_lower_item(bits, wstride, kw0, kw1, snp, 2u, t2);
}

extern "C" __global__ void epistasis_tc_lower_t3(const uint *bits, const uint wstride, const uint kw0,
                                        const uint kw1, const uint n_snps, uint *t3)
{
    const uint j = blockIdx.x * blockDim.x + threadIdx.x, k = blockIdx.y;
    if (k >= n_snps || j >= k) return;
    epi_lower_triples(bits, wstride, kw0, kw1, j, k, t3);
}

/* One block of TC_THREADS per tile (global tile number block0 + blockIdx.x); TC_MIN_BLOCKS
 * (oclstat/_constants.py) blocks per SM bound the registers. */
extern "C" __global__ void __launch_bounds__(TC_THREADS, TC_MIN_BLOCKS)
epistasis_tc_search(const uint *bits, const uint wstride, const uint kw0, const uint kw1,
              const ushort *rows, const ushort *cols, const ulong *cum, const uint *first_ct,
              const uint n_rt, const ulong block0, const uint *t1, const uint *t2,
              const uint *t3, const uint n0, const uint n1, const epi_long *lf,
              const epi_long *nln, const epi_long threshold, uint *count, epi_long *cand_score,
              uint *cand_snps, const uint cap)
{
    __shared__ EPI_PS_T ps[2u * EPI_TILE * EPI_TILE];
    __shared__ __align__(16) uint as[EPI_TILE * TC_SROW], bs[EPI_TILE * TC_SROW];
    __shared__ ushort rsnp[EPI_RI * ROW_SNPS], csnp[EPI_CI * COL_SNPS];
    const uint tid = threadIdx.x;
    uint rt, ct;
    epi_locate_tile(block0 + blockIdx.x, cum, first_ct, n_rt, &rt, &ct);
    epi_load_items(tid, TC_THREADS, rt, ct, rows, cols, rsnp, csnp);
    __syncthreads();
    for (uint c = 0; c < 2u; c++) {
        const uint kw = c ? kw1 : kw0;
        int acc[2][4][4];
        tc_zero(acc);
        /* This thread stages the same quads of every chunk: quad e = tid + i TC_THREADS is
         * row e / TC_QPR, quad e % TC_QPR; their sources are found once per class. */
        tc_source ra[TC_QUADS], cb[TC_QUADS];
#pragma unroll
        for (uint i = 0; i < TC_QUADS; i++) {
            const uint row = (tid + i * TC_THREADS) / TC_QPR;
            ra[i] = tc_row_source(bits, wstride, rsnp + (row / EPI_RC) * ROW_SNPS, ROW_SNPS,
                                  row % EPI_RC, c);
            cb[i] = tc_row_source(bits, wstride, csnp + (row / EPI_CC) * COL_SNPS, COL_SNPS,
                                  row % EPI_CC, c);
        }
        for (uint k0 = 0; k0 < kw; k0 += TC_KCHUNK) {
#pragma unroll
            for (uint i = 0; i < TC_QUADS; i++) {
                const uint e = tid + i * TC_THREADS, row = e / TC_QPR, q = e % TC_QPR;
                *(uint4 *)(as + row * TC_SROW + 4u * q) = tc_quad(ra[i], k0, q);
                *(uint4 *)(bs + row * TC_SROW + 4u * q) = tc_quad(cb[i], k0, q);
            }
            __syncthreads();
            tc_stage(as, bs, acc);
            __syncthreads();
        }
        tc_store(acc, ps + c * EPI_TILE * EPI_TILE);
    }
    __syncthreads();
    for (uint q = tid; q < EPI_RI * EPI_CI; q += TC_THREADS)
        epi_tile_combination(q / EPI_CI, q % EPI_CI, ps, rsnp, csnp, t1, t2, t3, n0, n1, lf,
                             nln, threshold, count, cand_score, cand_snps, cap);
}
