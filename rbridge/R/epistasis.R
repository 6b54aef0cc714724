#' Exhaustive epistasis search (K2 or mutual information)
#'
#' Every combination of \code{order} SNPs is scored from its 3^order x 2 contingency table (AND + popcount on bit vectors). A missing genotype (NA) removes the sample from the combinations containing that SNP.
#' @param genotypes numeric matrix, SNPs x samples, 0/1/2 (NA missing).
#' @param phenotype 1 case, 0 control, one per sample; a named vector is matched to the column names of \code{genotypes} by name.
#' @param order 2, 3 or 4.
#' @param top how many combinations to return.
#' @param score "k2" (lower is better) or "mi" (higher is better).
#' @param snpNames names of the SNPs (default the row names).
#' @param backend "auto", "opencl" or "cuda" (NVIDIA binary tensor cores through CuPy; complete genotypes only). Every backend returns the same result.
#' @return A data.frame, best first: snp1..snpK (1-based), name1..nameK, and the score.
#' @examples
#' if (oclstat_available()) {
#'   g <- matrix(sample(0:2, 10 * 200, TRUE), 10)
#'   epistasis(g, rbinom(200, 1, 0.5), order = 2, top = 3)
#' }
#' @export
epistasis <- function(genotypes, phenotype, order = 4, top = 10, score = c("k2", "mi"),
                      snpNames = rownames(genotypes), backend = c("auto", "opencl", "cuda")) {
  score <- match.arg(score)
  backend <- match.arg(backend)
  if (is.data.frame(genotypes)) genotypes <- as.matrix(genotypes)
  if (!is.matrix(genotypes) || !is.numeric(genotypes))
    stop("genotypes must be a numeric matrix, SNPs x samples", call. = FALSE)
  if (is.null(names(phenotype)) && length(phenotype) != ncol(genotypes))
    stop("phenotype has ", length(phenotype), " values but genotypes has ", ncol(genotypes),
         " samples (columns)", call. = FALSE)
  if (is.factor(phenotype)) phenotype <- stats::setNames(as.integer(phenotype) - 1L, names(phenotype))
  g <- genotypes
  g[is.na(g)] <- -1
  y <- phenotype
  y[is.na(y)] <- -1
  call_adapter("epistasis", list(genotypes = to_py_array(g, "genotypes", integer = TRUE),
                                 phenotype = to_py_array(y, "phenotype", integer = TRUE),
                                 order = py_int(order, "order"), top = py_int(top, "top"),
                                 score = score,
                                 snpNames = if (is.null(snpNames)) NULL else
                                   as.list(as.character(snpNames)),
                                 backend = backend))
}
