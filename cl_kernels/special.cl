/*
 * Special functions evaluated element-wise (oclstat.special): K_nu(x) and log K_nu(x).
 * Build defines: REAL (float or double).
 */
#include <oclstat/real.clh>

#include <oclstat/bessel_k.clh>

__kernel void special_bessel_kv(__global const REAL *nu, __global const REAL *x, __global REAL *out,
                        const ulong n, const int logarithm)
{
    const ulong i = get_global_id(0);
    if (i >= n) return;
    out[i] = logarithm ? oclstat_log_kv(nu[i], x[i]) : oclstat_kv(nu[i], x[i]);
}
