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
/* Staging units: quad q of every pattern row of one item, EPI_RI * TC_QPR of them for the row
 * items (matrix A), EPI_CI * TC_QPR for the column items (B), TC_UNITS per thread at most. */
#define TC_UNITS_A (EPI_RI * TC_QPR)
#define TC_UNITS (TC_UNITS_A + EPI_CI * TC_QPR)
#define TC_UNITS_PER_THREAD ((TC_UNITS + TC_THREADS - 1u) / TC_THREADS)
#if TC_KCHUNK % 4u != 0u
#error "TC_KCHUNK must be a multiple of 4 (128-bit staging)"
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

/* A staging unit of this thread: quad q of the 2^n pattern rows of one item (n = 1: a SNP,
 * rows genotype 0, 1; n = 2: a pair, rows (0,0), (0,1), (1,0), (1,1), first SNP high), from
 * the genotype-0 vectors v0 (first SNP) and v1 (last SNP) of class c as quads, their
 * genotype-1 vectors g1 quads further on. Each vector is read once per chunk and every row
 * is an AND of two of them; a padding item (mask 0) stages zeros. */
struct tc_unit {
    const uint4 *v0, *v1;
    uint *dst; /* the item's first row in as or bs, at quad q */
    uint q, g1, mask, n;
};

__device__ __forceinline__ tc_unit tc_unit_of(const uint u, const uint *bits,
                                              const uint wstride, const ushort *rsnp,
                                              const ushort *csnp, const uint c, uint *as,
                                              uint *bs)
{
    const bool b = u >= TC_UNITS_A;
    const uint v = b ? u - TC_UNITS_A : u, n = b ? COL_SNPS : ROW_SNPS;
    const uint item = v / TC_QPR;
    const ushort *snp = (b ? csnp : rsnp) + item * n;
    const uint s0 = snp[0], s1 = snp[n - 1u];
    const bool pad = s0 == EPI_NONE || s1 == EPI_NONE;
    tc_unit un;
    un.q = v % TC_QPR;
    un.n = n;
    un.g1 = wstride / 4u;
    un.mask = pad ? 0u : 0xFFFFFFFFu;
    un.v0 = (const uint4 *)(bits + (pad ? 0ul : (ulong)(s0 * 2u + c) * 2u * wstride));
    un.v1 = (const uint4 *)(bits + (pad ? 0ul : (ulong)(s1 * 2u + c) * 2u * wstride));
    un.dst = (b ? bs : as) + (item << n) * TC_SROW + 4u * un.q;
    return un;
}

__device__ __forceinline__ uint4 tc_and(const uint4 x, const uint4 y)
{
    return make_uint4(x.x & y.x, x.y & y.y, x.z & y.z, x.w & y.w);
}

/* The unit's rows of the chunk at word k0 (a multiple of 4) into shared memory. */
__device__ __forceinline__ void tc_stage_unit(const tc_unit un, const uint k0)
{
    const uint k = k0 / 4u + un.q;
    const uint4 m = make_uint4(un.mask, un.mask, un.mask, un.mask);
    const uint4 a0 = tc_and(un.v0[k], m), a1 = tc_and(un.v0[k + un.g1], m);
    if (un.n == 1u) {
        *(uint4 *)un.dst = a0;
        *(uint4 *)(un.dst + TC_SROW) = a1;
    } else {
        const uint4 b0 = un.v1[k], b1 = un.v1[k + un.g1];
        *(uint4 *)un.dst = tc_and(a0, b0);
        *(uint4 *)(un.dst + TC_SROW) = tc_and(a0, b1);
        *(uint4 *)(un.dst + 2u * TC_SROW) = tc_and(a1, b0);
        *(uint4 *)(un.dst + 3u * TC_SROW) = tc_and(a1, b1);
    }
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
              const uint *t3, const uint *t4, const uint n0, const uint n1, const epi_long *lf,
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
        /* This thread stages the same units of every chunk, u = tid + i TC_THREADS. */
        tc_unit units[TC_UNITS_PER_THREAD];
#pragma unroll
        for (uint i = 0; i < TC_UNITS_PER_THREAD; i++)
            units[i] = tc_unit_of(min(tid + i * TC_THREADS, TC_UNITS - 1u), bits, wstride, rsnp,
                                  csnp, c, as, bs);
        for (uint k0 = 0; k0 < kw; k0 += TC_KCHUNK) {
#pragma unroll
            for (uint i = 0; i < TC_UNITS_PER_THREAD; i++)
                if (tid + i * TC_THREADS < TC_UNITS) tc_stage_unit(units[i], k0);
            __syncthreads();
            tc_stage(as, bs, acc);
            __syncthreads();
        }
        tc_store(acc, ps + c * EPI_TILE * EPI_TILE);
    }
    __syncthreads();
    for (uint q = tid; q < EPI_RI * EPI_CI; q += TC_THREADS)
        epi_tile_combination(q / EPI_CI, q % EPI_CI, ps, rsnp, csnp, t1, t2, t3, t4, n0, n1, lf,
                             nln, threshold, count, cand_score, cand_snps, cap);
}
