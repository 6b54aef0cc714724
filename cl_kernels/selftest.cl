/*
 * Kernels that expose shared device code to the test-suite, so that each header is checked on
 * its own against an independent reference (tests/test_device_math.py). Not used by the library.
 *
 * Build defines: REAL (float or double), optionally HYPER_EXIT_EACH_STEP (hypergeometric.clh).
 */
#include <oclstat/hypergeometric.clh>

__kernel void selftest_exact_exp_values(__global const REAL *x, __global REAL *y, const ulong n)
{
    const ulong i = get_global_id(0);
    if (i < n) y[i] = oclstat_exact_exp(x[i]);
}

__kernel void selftest_long_to_real_values(__global const long *x, __global REAL *y,
                                           const ulong n)
{
    const ulong i = get_global_id(0);
    if (i < n) y[i] = oclstat_long_to_real(x[i]);
}

/* out[s * per_stream + i] = draw i of stream s from the hypergeometric law (draws, marked,
 * total); logfact as in hypergeometric.clh. */
__kernel void selftest_hypergeometric_values(__global uint *states, const ulong n_streams,
                                    const ulong per_stream, const uint draws, const uint marked,
                                    const uint total, __global const long *logfact,
                                    const REAL scale, __global uint *out)
{
    const ulong s = get_global_id(0);
    if (s >= n_streams) return;
    mrg31k3p_state st;
    mrg31k3p_load(&st, states, s);
    for (ulong i = 0; i < per_stream; i++)
        out[s * per_stream + i] = oclstat_hypergeometric(&st, draws, marked, total, logfact, scale);
    mrg31k3p_store(&st, states, s);
}

#ifdef OCLSTAT_FP64
/* For every z in [1, last]: clRNG's float U01 formed in integers (oclstat_clrng_float, for
 * devices without double) against the double product rounded to float; counts[g] the
 * mismatches of work-item g, which takes z = g + 1, g + 1 + n_items, ... */
__kernel void selftest_clrng_float_mismatches(const uint last, __global uint *counts)
{
    const uint g = get_global_id(0), n = get_global_size(0);
    uint bad = 0;
    for (ulong z = (ulong)g + 1; z <= last; z += n) {
        const float a = oclstat_clrng_float((uint)z);
        const float b = (float)((double)z * MRG31K3P_NORM_FLOAT_AS_DOUBLE);
        bad += as_uint(a) != as_uint(b);
    }
    counts[g] = bad;
}
#endif
