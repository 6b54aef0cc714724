/*
 * Special functions evaluated element-wise (oclstat.special): K_nu(x) and log K_nu(x), the
 * normal quantile (AS 241) of given probabilities or of R's ppoints (Q-Q plots), and sums of
 * log-factorials.
 * Build defines: REAL (float or double).
 */
#include <oclstat/real.clh>

#include <oclstat/bessel_k.clh>
#include <oclstat/normal_quantile.clh>

__kernel void special_bessel_kv(__global const REAL *nu, __global const REAL *x, __global REAL *out,
                        const ulong n, const int logarithm)
{
    const ulong i = get_global_id(0);
    if (i >= n) return;
    out[i] = logarithm ? oclstat_log_kv(nu[i], x[i]) : oclstat_kv(nu[i], x[i]);
}

/* out[i] = qnorm(p[i]) (lower tail) or qnorm(1 - p[i]). */
__kernel void special_qnorm(__global const REAL *p, __global REAL *out, const ulong n,
                            const int lower)
{
    const ulong i = get_global_id(0);
    if (i >= n) return;
    out[i] = oclstat_qnorm(p[i], lower);
}

/* out[i] = qnorm((i + 1 - a) / (n + 1 - 2a)), R's ppoints(n) with a = 3/8 (n <= 10) or 1/2. */
__kernel void special_qnorm_ppoints(__global REAL *out, const ulong n)
{
    const ulong i = get_global_id(0);
    if (i >= n) return;
    const REAL a = n <= 10 ? (REAL)0.375 : (REAL)0.5;
    out[i] = oclstat_qnorm(((REAL)(i + 1) - a) / ((REAL)n + (REAL)1 - (REAL)2 * a), 1);
}

/* partial[g] = sum of lgamma(x + 1) over the elements of work-group g (a tree in local
 * memory, LS a power of two); the host adds the partials in order. */
__kernel void special_logfact_sum(__global const uint *x, const ulong n,
                                  __global REAL *partial, __local REAL *scratch)
{
    const ulong i = get_global_id(0);
    const uint lid = get_local_id(0), ls = get_local_size(0);
    REAL acc = (REAL)0;
    for (ulong k = i; k < n; k += get_global_size(0)) acc += lgamma((REAL)x[k] + (REAL)1);
    scratch[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = ls / 2; s > 0; s >>= 1) {
        if (lid < s) scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = scratch[0];
}
