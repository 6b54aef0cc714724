/*
 * Batched linear algebra (oclstat.linalg): triangular solves with many right-hand sides and
 * strided products, for whole batches of matrices in one launch.
 *
 *   linalg_solve_triangular  X = T^-1 B for every right-hand side column c (dimension 0, so a
 *                            CPU's vector lanes are consecutive columns and the factor's
 *                            element is one broadcast) and matrix b (dimension 1): forward
 *                            substitution when T is lower, backward when upper. T[i, j] is
 *                            t[t_off + b * t_bs + i * t_rs + j * t_cs], so the transpose of a
 *                            stored factor is the same factor with its strides swapped, and a
 *                            batch stride of 0 shares one factor across the whole batch.
 *                            B (batch, n, k) is overwritten by X.
 *   linalg_product           C[b, i, j] = sum_r A[b, i, r] w[b, r] B[b, r, j] with strided A,
 *                            B and w (w_bs < 0: no weight), so A^T D B (crossprod) and A B
 *                            (gemm) are one kernel: C (batch, m, k) contiguous, one work-item
 *                            per element; C = alpha * product + beta * C.
 *
 * Build defines: REAL (float or double).
 */
#include <oclstat/real.clh>

__kernel void linalg_solve_triangular(__global const REAL *t, const ulong t_off, const ulong t_bs,
                                      const ulong t_rs, const ulong t_cs,
                                      __global REAL *x, const uint n, const uint k,
                                      const uint n_mat, const int lower, const int unit)
{
    const uint c = get_global_id(0), b = get_global_id(1);
    if (c >= k || b >= n_mat) return;
    __global const REAL *tb = t + t_off + (ulong)b * t_bs;
    __global REAL *xb = x + (ulong)b * n * k + c;
    for (uint s = 0; s < n; s++) {
        const uint i = lower ? s : n - 1 - s;
        REAL acc = xb[(ulong)i * k];
        if (lower) {
            for (uint j = 0; j < i; j++) acc -= tb[i * t_rs + j * t_cs] * xb[(ulong)j * k];
        } else {
            for (uint j = i + 1; j < n; j++) acc -= tb[i * t_rs + j * t_cs] * xb[(ulong)j * k];
        }
        xb[(ulong)i * k] = unit ? acc : acc / tb[i * t_rs + i * t_cs];
    }
}

__kernel void linalg_product(__global const REAL *a, const ulong a_off, const ulong a_bs,
                             const ulong a_rs, const ulong a_cs,
                             __global const REAL *w, const ulong w_off, const long w_bs,
                             __global const REAL *bm, const ulong b_off, const ulong b_bs,
                             const ulong b_rs, const ulong b_cs,
                             __global REAL *out, const uint m, const uint k, const uint inner,
                             const uint n_mat, const REAL alpha, const REAL beta)
{
    const uint j = get_global_id(0), i = get_global_id(1), b = get_global_id(2);
    if (j >= k || i >= m || b >= n_mat) return;
    __global const REAL *ab = a + a_off + (ulong)b * a_bs + (ulong)i * a_rs;
    __global const REAL *bb = bm + b_off + (ulong)b * b_bs + (ulong)j * b_cs;
    REAL acc = (REAL)0;
    if (w_bs >= 0) {
        __global const REAL *wb = w + w_off + (ulong)b * (ulong)w_bs;
        for (uint r = 0; r < inner; r++) acc += ab[r * a_cs] * wb[r] * bb[r * b_rs];
    } else {
        for (uint r = 0; r < inner; r++) acc += ab[r * a_cs] * bb[r * b_rs];
    }
    __global REAL *o = out + ((ulong)b * m + i) * k + j;
    *o = beta == (REAL)0 ? alpha * acc : alpha * acc + beta * *o;
}
