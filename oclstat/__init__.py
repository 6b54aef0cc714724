"""oclstat: vendor-portable GPU statistics for genomics.

OpenCL C kernels compiled at run time by PyOpenCL on any GPU, or on the CPU through pocl.

>>> import oclstat
>>> len(oclstat.devices()) >= 1
True
"""

from . import fields, genotypes, io, random, report, special
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
from .plot import plot_enrichment, plot_fields

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
