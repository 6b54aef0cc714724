# Checks of GSVA's expression and gene-set arguments, shared by the GSVA methods' functions.
gsva_args <- function(expr, gset.idx.list, min.sz, max.sz) {
  if (is.data.frame(expr)) expr <- as.matrix(expr)
  if (!is.matrix(expr) || !is.numeric(expr))
    stop("expr must be a numeric matrix, genes x samples", call. = FALSE)
  if (is.null(rownames(expr))) stop("expr needs gene names as row names", call. = FALSE)
  if (!is.list(gset.idx.list) || is.null(names(gset.idx.list)) ||
      any(names(gset.idx.list) == ""))
    stop("gset.idx.list must be a named list of character vectors", call. = FALSE)
  if (!is.numeric(max.sz) || length(max.sz) != 1 || is.na(max.sz))
    stop("max.sz must be one number (Inf: no limit)", call. = FALSE)
  list(expr = to_py_array(expr, "expr"),
       gset.idx.list = reticulate::dict(lapply(gset.idx.list,
                                               function(g) as.list(as.character(g)))),
       min.sz = py_int(min.sz, "min.sz", minimum = 1),
       max.sz = if (is.infinite(max.sz)) NULL else py_int(max.sz, "max.sz", minimum = 1))
}

#' Single-sample GSEA scores on the device, as GSVA's ssgsea
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "ssgsea")} (Barbie et al. 2009): each sample's genes ranked by expression, each set's running-sum difference summed over the ranking (rank weight \code{tau}), normalised by the range of all scores (\code{ssgsea.norm}). Samples are scored in blocks, so memory stays bounded whatever their number.
#' @param expr numeric matrix (or data.frame), genes x samples, gene names as row names.
#' @param gset.idx.list named list of character vectors (gene sets).
#' @param tau rank weight (GSVA's default for ssgsea: 0.25).
#' @param ssgsea.norm divide the scores by the range of all scores.
#' @param flavor "gsva" (GSVA's ranks and ties, default) or "gseapy" (GSEApy's rank normalisation and tie order).
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out.
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @return GSVA's matrix: gene sets x samples.
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   ssgseaGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#' }
#' @export
ssgseaGpu <- function(expr, gset.idx.list, tau = 0.25, ssgsea.norm = TRUE,
                      flavor = c("gsva", "gseapy"), min.sz = 1, max.sz = Inf,
                      parallel.sz = 1L, verbose = TRUE) {
  flavor <- match.arg(flavor)
  args <- gsva_args(expr, gset.idx.list, min.sz, max.sz)
  call_adapter("ssgseaGpu", c(args, list(tau = as.double(tau),
                                         ssgsea.norm = isTRUE(ssgsea.norm), flavor = flavor)))
}

#' Gene set variation analysis on the device, as GSVA
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "gsva")} (Hänzelmann et al. 2013): each gene's kernel CDF estimate at every sample (Gaussian kernel on the device, GSVA's tabulated normal CDF unless \code{tabulated = FALSE}; Poisson kernel for counts; or the empirical CDF), then per sample rank scores and each set's Kolmogorov-Smirnov-like running sum (\code{mx.diff}, \code{abs.ranking}, \code{tau}).
#' @param expr numeric matrix (or data.frame), genes x samples, gene names as row names.
#' @param gset.idx.list named list of character vectors (gene sets).
#' @param kcdf "Gaussian" (continuous data), "Poisson" (counts) or "none".
#' @param abs.ranking with \code{mx.diff}: the positive minus the negative excursion.
#' @param tau rank weight of the walk.
#' @param mx.diff the sum of the largest positive and negative excursions (TRUE) or the larger one.
#' @param tabulated read the normal CDF from GSVA's table (as GSVA); FALSE: the exact CDF.
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out.
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @return GSVA's matrix: gene sets x samples.
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   gsvaGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#' }
#' @export
gsvaGpu <- function(expr, gset.idx.list, kcdf = c("Gaussian", "Poisson", "none"),
                    abs.ranking = FALSE, tau = 1, mx.diff = TRUE, tabulated = TRUE,
                    min.sz = 1, max.sz = Inf, parallel.sz = 1L, verbose = TRUE) {
  kcdf <- match.arg(kcdf)
  args <- gsva_args(expr, gset.idx.list, min.sz, max.sz)
  call_adapter("gsvaGpu", c(args, list(kcdf = kcdf, abs.ranking = isTRUE(abs.ranking),
                                       tau = as.double(tau), mx.diff = isTRUE(mx.diff),
                                       tabulated = isTRUE(tabulated))))
}

#' The z-score method on gene sets, as GSVA's zscore
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "zscore")} (Lee et al. 2008): each gene standardised over the samples (R's \code{scale}), each set's members summed over the square root of its size. Constant genes are left out, as GSVA does.
#' @param expr numeric matrix (or data.frame), genes x samples, gene names as row names.
#' @param gset.idx.list named list of character vectors (gene sets).
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out.
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @return GSVA's matrix: gene sets x samples.
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   zscoreGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#' }
#' @export
zscoreGpu <- function(expr, gset.idx.list, min.sz = 1, max.sz = Inf, parallel.sz = 1L,
                      verbose = TRUE) {
  call_adapter("zscoreGpu", gsva_args(expr, gset.idx.list, min.sz, max.sz))
}

#' Pathway level analysis of gene expression (PLAGE), as GSVA's plage
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "plage")} (Tomfohr et al. 2005): each gene standardised over the samples, each set's scores the first right singular vector of its members (in the set's order, with the sign R's \code{svd} gives). Sets need at least two genes.
#' @param expr numeric matrix (or data.frame), genes x samples, gene names as row names.
#' @param gset.idx.list named list of character vectors (gene sets).
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out (\code{min.sz} at least 2).
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @return GSVA's matrix: gene sets x samples.
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   plageGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#' }
#' @export
plageGpu <- function(expr, gset.idx.list, min.sz = 2, max.sz = Inf, parallel.sz = 1L,
                     verbose = TRUE) {
  args <- gsva_args(expr, gset.idx.list, min.sz, max.sz)
  if (args$min.sz < 2) stop("min.sz must be at least 2 for plage", call. = FALSE)
  call_adapter("plageGpu", args)
}
