"""oclstat: vendor-portable GPU statistics for genomics.

OpenCL C kernels compiled at run time by PyOpenCL on any GPU, or on the CPU through pocl.

>>> import oclstat
>>> len(oclstat.devices()) >= 1
True
"""

import importlib

#: Public modules, imported on first use (``oclstat.fields``, ``oclstat.random``, ...).
_SUBMODULES = ("fields", "genotypes", "io", "linalg", "random", "report", "spatial", "special")
#: Public name -> the module that defines it (imported on first use).
_EXPORTS = {
    "EpistasisResult": "._epistasis",
    "PairScanResult": "._epistasis",
    "epistasis": "._epistasis",
    "epistasis_merge": "._epistasis",
    "LdlResult": "._fields",
    "cholesky_batch": "._fields",
    "ldl_batch": "._fields",
    "matern_cov": "._fields",
    "multiply_lower_diag": "._fields",
    "simulate_fields": "._fields",
    "FisherSimBatchResult": "._fisher",
    "FisherSimResult": "._fisher",
    "FisherTestResult": "._fisher",
    "fisher_sim": "._fisher",
    "fisher_sim_batch": "._fisher",
    "fisher_test": "._fisher",
    "random_table": "._fisher",
    "GseaResult": "._gsea",
    "gsea": "._gsea",
    "OraResult": "._ora",
    "ora": "._ora",
    "GesecaResult": "._geseca",
    "geseca": "._geseca",
    "crossprod_batch": "._linalg",
    "gemm_batch": "._linalg",
    "solve_triangular_batch": "._linalg",
    "PermutationTestResult": "._permutation",
    "permutation_test": "._permutation",
    "PrerankResult": "._prerank",
    "gsea_prerank": "._prerank",
    "CollapsedPathways": "._prerank",
    "collapse_pathways": "._prerank",
    "DeviceCapabilityError": "._runtime",
    "DeviceInfo": "._runtime",
    "DeviceUnusableError": "._runtime",
    "KernelBuildError": "._runtime",
    "KernelBuildWarning": "._runtime",
    "NoDeviceError": "._runtime",
    "Runtime": "._runtime",
    "devices": "._runtime",
    "get_runtime": "._runtime",
    "ssgsea": "._singlesample",
    "gsva": "._singlesample",
    "aucell": "._singlesample",
    "zscore": "._singlesample",
    "plage": "._singlesample",
    "ucell": "._singlesample",
    "ulm": "._singlesample",
    "UlmResult": "._singlesample",
    "MaternFit": "._spatial",
    "MaternLoglik": "._spatial",
    "fit_matern": "._spatial",
    "matern_loglik": "._spatial",
    "predict_matern": "._spatial",
    "plot_enrichment": ".plot",
    "plot_fields": ".plot",
    "plot_kriging": ".plot",
    "plot_profiles": ".plot",
    "plot_qq": ".plot",
}


def __getattr__(name):
    """Import a public module or name on first use (PEP 562), so that ``import oclstat`` costs
    only this file and a command pays only for the capability it runs."""
    if name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    elif name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name], __name__), name)
    else:
        raise AttributeError(f"module 'oclstat' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


__version__ = "0.1.0"

__all__ = [
    "DeviceCapabilityError",
    "DeviceInfo",
    "DeviceUnusableError",
    "KernelBuildError",
    "KernelBuildWarning",
    "NoDeviceError",
    "Runtime",
    "devices",
    "get_runtime",
    "random",
    "io",
    "GseaResult",
    "gsea",
    "gsea_prerank",
    "ora",
    "OraResult",
    "geseca",
    "GesecaResult",
    "PrerankResult",
    "ssgsea",
    "gsva",
    "aucell",
    "zscore",
    "plage",
    "ucell",
    "ulm",
    "UlmResult",
    "collapse_pathways",
    "CollapsedPathways",
    "plot_enrichment",
    "plot_fields",
    "special",
    "fields",
    "report",
    "genotypes",
    "EpistasisResult",
    "PairScanResult",
    "epistasis",
    "epistasis_merge",
    "LdlResult",
    "cholesky_batch",
    "ldl_batch",
    "matern_cov",
    "multiply_lower_diag",
    "simulate_fields",
    "solve_triangular_batch",
    "crossprod_batch",
    "gemm_batch",
    "linalg",
    "spatial",
    "MaternLoglik",
    "MaternFit",
    "matern_loglik",
    "fit_matern",
    "predict_matern",
    "plot_profiles",
    "plot_kriging",
    "plot_qq",
    "FisherSimResult",
    "FisherSimBatchResult",
    "FisherTestResult",
    "fisher_test",
    "fisher_sim",
    "fisher_sim_batch",
    "random_table",
    "PermutationTestResult",
    "permutation_test",
    "__version__",
]
