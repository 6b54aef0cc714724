"""Genotype readers for the epistasis search: PLINK 1 binary files, PLINK 2 ``.pgen``, VCF/BCF,
TPED/TFAM and 0/1/2 tables, each returning :class:`Genotypes` (the readers themselves live
with every other reader, in ``oclstat/_readers/genotypes.py``).

>>> import io
>>> g = read_genotype_table(io.StringIO("VarSam,1,0,1\\nrs1,0,1,2\\nrs2,2,2,0\\n"))
>>> g.genotypes.tolist(), g.phenotype.tolist(), g.snp_names
([[0, 1, 2], [2, 2, 0]], [1, 0, 1], ['rs1', 'rs2'])
"""

from __future__ import annotations

from ._readers.genotypes import (
    PHENOTYPE_NAMES,
    Genotypes,
    read_genotype_table,
    read_pgen,
    read_plink,
    read_tped,
    read_vcf,
)

__all__ = ["Genotypes", "read_plink", "read_pgen", "read_vcf", "read_tped",
           "read_genotype_table", "PHENOTYPE_NAMES"]
