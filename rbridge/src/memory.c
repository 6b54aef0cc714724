/* The address of an R vector's data, so that the Python side can read it (arguments) or fill
 * it (results) in place: numeric arrays cross between R and numpy as one memory copy, never
 * through files. The address is returned as a double (exact: user-space addresses are below
 * 2^53). Only numeric, integer and logical vectors have one here. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <stdint.h>

static SEXP oclstat_address(SEXP x)
{
    void *data;
    switch (TYPEOF(x)) {
    case REALSXP: data = (void *) REAL(x); break;
    case INTSXP: data = (void *) INTEGER(x); break;
    case LGLSXP: data = (void *) LOGICAL(x); break;
    default: error("oclstat: only numeric, integer and logical vectors cross to Python");
    }
    return ScalarReal((double) (uintptr_t) data);
}

static const R_CallMethodDef calls[] = {
    {"oclstat_address", (DL_FUNC) &oclstat_address, 1},
    {NULL, NULL, 0}
};

void R_init_oclstat(DllInfo *info)
{
    R_registerRoutines(info, NULL, calls, NULL, NULL);
    R_useDynamicSymbols(info, FALSE);
    R_forceSymbols(info, TRUE);
}
