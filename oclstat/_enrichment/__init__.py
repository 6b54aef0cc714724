"""The floor the enrichments stand on (phenotype GSEA, preranked GSEA, over-representation,
the single-sample scores, GESECA): the enrichment walk on the host (:mod:`.walks`), the
inputs read and checked (:mod:`.inputs`), gene sets matched to the data's genes by one rule
(:mod:`.gene_sets`) and the random-set null on a device (:mod:`.random_sets`). It imports
no capability; every enrichment imports it."""
