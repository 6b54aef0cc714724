/*
 * The bit counting of oclstat/popcount.clh on its own: Runtime.vector_popcount builds and runs
 * it with EPI_VPOPCNT once per device before any search counts that way, and the test-suite
 * checks it against numpy (tests/test_epistasis.py).
 *
 *   popcount_rows  one work-item: for the rows r < rows (at most 9) of m, n words each,
 *                  out[2 r] = the set bits of row r AND z0, out[2 r + 1] = of row r AND z1.
 *   popcount_2x4   one work-item: epi_and_popc_2x4 of a's two rows (a, a + n) against four
 *                  columns of two rows each (b + 2 n k, b + 2 n k + n): out[0 .. 15].
 *   popcount_3x2   one work-item: epi_and_popc_3x2 of a's three rows against two columns of
 *                  three rows each (b + 3 n k + n rb): out[0 .. 17].
 *
 * Build defines: EPI_BUILTIN_POPCOUNT, EPI_VPOPCNT (oclstat/popcount.clh).
 */
#include <oclstat/popcount.clh>

__kernel EPI_VECTOR_ATTR void popcount_rows(__global const ulong *m, const uint rows,
                                            __global const ulong *z0,
                                            __global const ulong *z1, const uint n,
                                            __global uint *out)
{
    if (get_global_id(0) != 0u || rows > 9u) return;
    uint a[9], b[9];
    epi_and_popc2_rows(m, rows, z0, z1, n, a, b);
    for (uint r = 0u; r < rows; r++) {
        out[2u * r] = a[r];
        out[2u * r + 1u] = b[r];
    }
}

__kernel EPI_VECTOR_ATTR void popcount_2x4(__global const ulong *a, __global const ulong *b,
                                           const uint n, __global uint *out)
{
    if (get_global_id(0) != 0u) return;
    uint t[16];
    epi_and_popc_2x4(a, b, b + 2u * n, b + 4u * n, b + 6u * n, n, t);
    for (uint k = 0u; k < 16u; k++) out[k] = t[k];
}

__kernel EPI_VECTOR_ATTR void popcount_3x2(__global const ulong *a, __global const ulong *b,
                                           const uint n, __global uint *out)
{
    if (get_global_id(0) != 0u) return;
    uint t[18];
    epi_and_popc_3x2(a, b, b + 3u * n, n, t);
    for (uint k = 0u; k < 18u; k++) out[k] = t[k];
}
