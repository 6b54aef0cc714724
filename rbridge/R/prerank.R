#' Read a ranked gene list (.rnk)
#'
#' A gene and its statistic per line (tab- or space-separated, optional header, # comments), as GSEApy and Broad's GSEAPreranked take it.
#' @param path the file.
#' @param header whether the first line is a header: TRUE, FALSE or "auto" (decided from the content; a first line that could be either is refused).
#' @return A named numeric vector (statistic by gene), in file order.
#' @export
readRnk <- function(path, header = "auto") {
  if (!(isTRUE(header) || isFALSE(header) || identical(header, "auto")))
    stop("header must be TRUE, FALSE or \"auto\"", call. = FALSE)
  call_adapter("readRnk", list(path = path.expand(path), header = header))
}

#' Preranked GSEA on the device, as fgsea
#'
#' fgsea's preranked gene set enrichment analysis: the null of every set size from random gene sets drawn on the device (MRG31k3p streams: the same seed gives the same answer on every device), and, with \code{method = "multilevel"}, fgseaMultilevel's adaptive multilevel splitting for the p-values simple sampling cannot resolve, down to \code{eps}.
#' @param pathways named list of character vectors (gene sets).
#' @param stats named numeric vector of gene-level statistics (names are genes).
#' @param nPermSimple random gene sets per set size.
#' @param method "multilevel" (fgsea's default) or "simple".
#' @param minSize smallest set size (genes in \code{stats}).
#' @param maxSize largest set size.
#' @param eps smallest p-value to estimate (0: no bound).
#' @param sampleSize chains per set size in multilevel splitting.
#' @param gseaParam ES weight (statistics are raised to this power).
#' @param seed an integer or six integers.
#' @return A data.frame like fgsea's: pathway, pval, padj, log2err, ES, NES, size, leadingEdge (a list), ordered by pval.
#' @examples
#' if (oclstat_available()) {
#'   stats <- setNames(rnorm(2000), paste0("G", 1:2000))
#'   stats[1:40] <- stats[1:40] + 3
#'   fgseaGpu(list(up = paste0("G", 1:40), any = paste0("G", 500:560)), stats, seed = 1)
#' }
#' @export
fgseaGpu <- function(pathways, stats, nPermSimple = 1000, method = c("multilevel", "simple"),
                     minSize = 15, maxSize = 500, eps = 1e-50, sampleSize = 101,
                     gseaParam = 1, seed = NULL) {
  method <- match.arg(method)
  if (!is.list(pathways) || is.null(names(pathways)) || any(names(pathways) == ""))
    stop("pathways must be a named list of character vectors", call. = FALSE)
  if (!is.numeric(stats) || is.null(names(stats)))
    stop("stats must be a named numeric vector (names are genes)", call. = FALSE)
  sets <- lapply(pathways, function(g) as.list(as.character(g)))
  call_adapter("fgseaGpu", list(pathways = reticulate::dict(sets),
                                stats = to_py_array(stats, "stats"),
                                nPermSimple = py_int(nPermSimple, "nPermSimple"),
                                method = method, minSize = py_int(minSize, "minSize"),
                                maxSize = py_int(maxSize, "maxSize"), eps = as.double(eps),
                                sampleSize = py_int(sampleSize, "sampleSize"),
                                gseaParam = as.double(gseaParam), seed = py_seed(seed)))
}
