#' Exhaustive epistasis search (K2 or mutual information), or PLINK's pair tests
#'
#' Every combination of \code{order} SNPs is scored from its 3^order x 2 contingency table (AND + popcount on bit vectors), or every pair is tested with one of PLINK 1.9's tests. A missing genotype (NA) removes the sample from the combinations containing that SNP.
#' @param genotypes numeric matrix, SNPs x samples, 0/1/2 (NA missing).
#' @param phenotype 1 case, 0 control, one per sample (a number per sample for \code{test = "linear"}); a named vector is matched to the column names of \code{genotypes} by name.
#' @param order 2, 3, 4 or 5 (5: complete genotypes only; PLINK's tests: pairs).
#' @param top how many combinations to return (k2, mi).
#' @param test "k2" (lower is better) or "mi" (higher is better); or PLINK 1.9's pair tests: "fast" (--fast-epistasis, Ueki-Cordell), "joint-effects", "logistic" and "linear" (--epistasis).
#' @param snpNames names of the SNPs (default the row names).
#' @param backend "auto", "opencl" or "cuda" (NVIDIA binary tensor cores through CuPy; complete genotypes only). Every backend returns the same result.
#' @param epi1 PLINK's tests: the pairs with p below this are returned (PLINK's --epi1).
#' @param epi2 PLINK's tests: the per-SNP summary counts partners with p below this.
#' @param cellmin joint-effects: fewest samples per genotype cell (PLINK's --je-cellmin).
#' @param keepAlleleOrder count the 0/1/2 as given, not recounted for the minor allele (PLINK's --keep-allele-order).
#' @return k2, mi: a data.frame, best first: snp1..snpK (1-based), name1..nameK, and the score. PLINK's tests: a data.frame in PLINK's columns (CHR1, SNP1, CHR2, SNP2, OR_INT or BETA_INT, STAT, P) with the per-SNP summary in \code{attr(, "summary")}.
#' @examples
#' if (oclstat_available()) {
#'   g <- matrix(sample(0:2, 10 * 200, TRUE), 10)
#'   epistasis(g, rbinom(200, 1, 0.5), order = 2, top = 3)
#'   epistasis(g, rbinom(200, 1, 0.5), test = "fast", epi1 = 0.05)
#' }
#' @export
epistasis <- function(genotypes, phenotype, order = 4, top = 10,
                      test = c("k2", "mi", "fast", "joint-effects", "logistic", "linear"),
                      snpNames = rownames(genotypes), backend = c("auto", "opencl", "cuda"),
                      epi1 = 1e-4, epi2 = 0.01, cellmin = 5, keepAlleleOrder = FALSE) {
  test <- match.arg(test)
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
  if (test == "linear") {
    y <- to_py_array(as.double(y), "phenotype")
  } else {
    y[is.na(y)] <- -1
    y <- to_py_array(y, "phenotype", integer = TRUE)
  }
  call_adapter("epistasis", list(genotypes = to_py_array(g, "genotypes", integer = TRUE),
                                 phenotype = y, order = py_int(order, "order"),
                                 top = py_int(top, "top"), test = test,
                                 snpNames = if (is.null(snpNames)) NULL else
                                   as.list(as.character(snpNames)),
                                 backend = backend, epi1 = as.double(epi1),
                                 epi2 = as.double(epi2), cellmin = py_int(cellmin, "cellmin"),
                                 keepAlleleOrder = isTRUE(keepAlleleOrder)))
}
