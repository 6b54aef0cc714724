"""oclstat: vendor-portable GPU statistics for genomics.

OpenCL C kernels compiled at run time by PyOpenCL on any GPU, or on the CPU through pocl.

>>> import oclstat
>>> len(oclstat.devices()) >= 1
True
"""

from . import fields, genotypes, io, linalg, random, report, spatial, special
from ._epistasis import EpistasisResult, epistasis
from ._fields import (
    LdlResult,
    cholesky_batch,
    ldl_batch,
    matern_cov,
    multiply_lower_diag,
    simulate_fields,
)
from ._fisher import (
    FisherSimBatchResult,
    FisherSimResult,
    FisherTestResult,
    fisher_sim,
    fisher_sim_batch,
    fisher_test,
    random_table,
)
from ._gsea import GseaResult, gsea
from ._linalg import crossprod_batch, gemm_batch, solve_triangular_batch
from ._permutation import PermutationTestResult, permutation_test
from ._prerank import PrerankResult, gsea_prerank
from ._runtime import (
    DeviceCapabilityError,
    DeviceInfo,
    KernelBuildError,
    KernelBuildWarning,
    NoDeviceError,
    Runtime,
    devices,
    get_runtime,
)
from ._spatial import MaternFit, MaternLoglik, fit_matern, matern_loglik, predict_matern
from .plot import plot_enrichment, plot_fields, plot_kriging, plot_profiles, plot_qq

__version__ = "0.1.0"

__all__ = [
    "DeviceCapabilityError",
    "DeviceInfo",
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
    "PrerankResult",
    "plot_enrichment",
    "plot_fields",
    "special",
    "fields",
    "report",
    "genotypes",
    "EpistasisResult",
    "epistasis",
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
