"""Constants shared by Python and the device code, defined once here.

The runtime passes every entry of :data:`KERNEL_DEFINES` to every kernel build as ``-D``, so the
OpenCL and CUDA sources never write these numbers themselves (a header that uses one and finds
it undefined stops the build).

>>> KERNEL_DEFINES["EPI_TILE"]
64
"""

from __future__ import annotations

#: MRG31k3p's moduli (L'Ecuyer and Touzin 2000): m1 = 2^31 - 1, m2 = 2^31 - 21069.
MRG31K3P_M1 = 2147483647
MRG31K3P_M2 = 2147462579

#: Tiled epistasis search: a tile is EPI_TILE x EPI_TILE products (an OpenCL work-item holds
#: EPI_MICRO rows by EPI_MICRO or more columns of them), TC_THREADS CUDA threads per
#: tensor-core tile; both stage TC_KCHUNK 32-bit words at a time; EPI_NONE pads the row and
#: column item lists.
EPI_TILE = 64
EPI_MICRO = 4
EPI_NONE = 0xFFFF
TC_THREADS = 128
TC_KCHUNK = 16
#: Blocks of the tensor-core search per SM that its registers must allow (launch bounds): 4
#: (126 registers on sm_90, no spill) with the scoring's two classes in one word; 5 and 6
#: spill and ran 2-4% slower on an H100 (benchmarks/RESULTS.md, 2026-11-28).
TC_MIN_BLOCKS = 4
#: Bit-vector search in the GPU schedule: lane blocks of EPI_LANES work-items score consecutive
#: combinations (coalesced loads); each work-item then steps EPI_LANES combinations on.
EPI_LANES = 32

#: PLINK's regressions with covariates on the device: at most this many covariate columns (the
#: model's terms live in each work-item's private memory); more are fitted on the host.
EPI_MAX_COVARIATES = 16

#: Buffers one feature's permutation-test programme may be spread over.
GREEN_MAX_PARTS = 4

#: Work-items that sum one feature's null tails (permutation_tails): a fixed order of the sums,
#: so the p-values are the same bits on every device and in either schedule.
GREEN_TAIL_LANES = 64

#: LDLᵀ's trailing update on GPUs (fields.cl ldl_trailing): rows and columns of it per
#: work-item (a TRAIL_RB x TRAIL_RB block of the tile in registers).
TRAIL_RB = 4

KERNEL_DEFINES = {
    "MRG31K3P_M1": MRG31K3P_M1,
    "MRG31K3P_M2": MRG31K3P_M2,
    "EPI_TILE": EPI_TILE,
    "EPI_NONE": EPI_NONE,
    "EPI_MICRO": EPI_MICRO,
    "TC_THREADS": TC_THREADS,
    "TC_KCHUNK": TC_KCHUNK,
    "TC_MIN_BLOCKS": TC_MIN_BLOCKS,
    "EPI_LANES": EPI_LANES,
    "GREEN_MAX_PARTS": GREEN_MAX_PARTS,
    "GREEN_TAIL_LANES": GREEN_TAIL_LANES,
    "TRAIL_RB": TRAIL_RB,
}
