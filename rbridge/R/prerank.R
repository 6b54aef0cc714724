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
#' fgsea's preranked gene set enrichment analysis, with fgsea's arguments and defaults: the null of every set size from random gene sets drawn on the device (MRG31k3p streams: the same seed gives the same answer on every device), and, with \code{method = "multilevel"}, fgseaMultilevel's adaptive multilevel splitting for the p-values simple sampling cannot resolve, down to \code{eps}.
#' @param pathways named list of character vectors (gene sets).
#' @param stats named numeric vector of gene-level statistics (names are genes).
#' @param minSize smallest set size (genes in \code{stats}); fgsea's default 1.
#' @param maxSize largest set size; fgsea's default \code{length(stats) - 1}.
#' @param gseaParam ES weight (statistics are raised to this power).
#' @param eps smallest p-value to estimate (0: no bound).
#' @param scoreType fgsea's "std" (both tails), or "pos" / "neg": one-tailed tests on the running sum's maximum / minimum (sets expected only at the top / bottom of the ranking, or statistics of one sign).
#' @param nproc accepted for fgsea's calls: the device does the work (ignored).
#' @param BPPARAM accepted for fgsea's calls (ignored).
#' @param nPermSimple random gene sets per set size.
#' @param method "multilevel" (fgsea's default) or "simple".
#' @param sampleSize chains per set size in multilevel splitting.
#' @param seed an integer or six integers.
#' @return fgsea's table: pathway, pval, padj, log2err, ES, NES, size, leadingEdge (a list), one row per pathway kept by the size filter, in the order of \code{pathways} (as fgsea); a data.table when the data.table package is installed (fgsea's class), else a data.frame.
#' @examples
#' if (oclstat_available()) {
#'   stats <- setNames(rnorm(2000), paste0("G", 1:2000))
#'   stats[1:40] <- stats[1:40] + 3
#'   fgseaGpu(list(up = paste0("G", 1:40), any = paste0("G", 500:560)), stats, seed = 1)
#' }
#' @export
fgseaGpu <- function(pathways, stats, minSize = 1, maxSize = length(stats) - 1, gseaParam = 1,
                     eps = 1e-50, scoreType = c("std", "pos", "neg"), nproc = 0, BPPARAM = NULL,
                     nPermSimple = 1000, method = c("multilevel", "simple"), sampleSize = 101,
                     seed = NULL) {
  method <- match.arg(method)
  scoreType <- match.arg(scoreType)
  if (!is.list(pathways) || is.null(names(pathways)) || any(names(pathways) == ""))
    stop("pathways must be a named list of character vectors", call. = FALSE)
  if (!is.numeric(stats) || is.null(names(stats)))
    stop("stats must be a named numeric vector (names are genes)", call. = FALSE)
  sets <- lapply(pathways, function(g) as.list(as.character(g)))
  res <- call_adapter("fgseaGpu", list(pathways = reticulate::dict(sets),
                                       stats = to_py_array(stats, "stats"),
                                       minSize = py_int(minSize, "minSize"),
                                       maxSize = py_int(maxSize, "maxSize"),
                                       gseaParam = as.double(gseaParam), eps = as.double(eps),
                                       nPermSimple = py_int(nPermSimple, "nPermSimple"),
                                       method = method, scoreType = scoreType,
                                       sampleSize = py_int(sampleSize, "sampleSize"),
                                       seed = py_seed(seed)))
  if (method == "multilevel") res$nMoreExtreme <- NULL
  if (requireNamespace("data.table", quietly = TRUE)) res <- data.table::as.data.table(res)
  res
}

#' Collapse a list of enriched pathways to the independent ones, as fgsea's collapsePathways
#'
#' fgsea's procedure: pathways are taken in the order of \code{fgseaRes} (most significant first); each one not yet explained becomes a main pathway, and every other unexplained pathway is tested conditionally on it with one-tailed preranked GSEA ("pos" for ES >= 0, "neg" below; \code{nperm} gene-set permutations on the device), on the ranking without its genes and on the ranking of its genes only. A pathway significant in neither is explained by it (its parent).
#' @param fgseaRes an fgsea / \code{fgseaGpu} table (columns pathway and ES), ordered and filtered as wanted (e.g. \code{fgseaRes[order(pval)][padj < 0.01]}).
#' @param pathways named list of character vectors holding every pathway of \code{fgseaRes}.
#' @param stats named numeric vector of gene-level statistics.
#' @param pval.threshold a pathway whose conditional p-values are both above this is explained.
#' @param nperm permutations of each conditional test (fgsea's default 10 / pval.threshold).
#' @param gseaParam ES weight.
#' @param seed an integer or six integers.
#' @return list(mainPathways = the independent pathways, parentPathways = for every pathway of \code{fgseaRes} the main pathway explaining it, NA for main pathways), as fgsea.
#' @examples
#' if (oclstat_available()) {
#'   stats <- setNames(rnorm(1000), paste0("G", 1:1000))
#'   stats[1:40] <- stats[1:40] + 3
#'   sets <- list(top = paste0("G", 1:40), inside = paste0("G", 1:25))
#'   res <- fgseaGpu(sets, stats, seed = 1)
#'   collapsePathways(res[order(res$pval), ], sets, stats, seed = 1)
#' }
#' @export
collapsePathways <- function(fgseaRes, pathways, stats, pval.threshold = 0.05,
                             nperm = 10 / pval.threshold, gseaParam = 1, seed = NULL) {
  if (!is.data.frame(fgseaRes) || !all(c("pathway", "ES") %in% names(fgseaRes)))
    stop("fgseaRes must be an fgsea table with columns pathway and ES", call. = FALSE)
  if (!is.list(pathways) || is.null(names(pathways)) || any(names(pathways) == ""))
    stop("pathways must be a named list of character vectors", call. = FALSE)
  if (!is.numeric(stats) || is.null(names(stats)))
    stop("stats must be a named numeric vector (names are genes)", call. = FALSE)
  if (nrow(fgseaRes) == 0)
    return(list(mainPathways = character(),
                parentPathways = stats::setNames(character(), character())))
  sets <- lapply(pathways, function(g) as.list(as.character(g)))
  out <- call_adapter("collapsePathways", list(
    fgseaRes = reticulate::dict(pathway = as.list(as.character(fgseaRes$pathway)),
                                ES = as.list(as.double(fgseaRes$ES))),
    pathways = reticulate::dict(sets), stats = to_py_array(stats, "stats"),
    pval.threshold = as.double(pval.threshold), nperm = py_int(round(nperm), "nperm"),
    gseaParam = as.double(gseaParam), seed = py_seed(seed)))
  parent <- unlist(out$parent)
  parent[parent == ""] <- NA_character_
  list(mainPathways = unlist(out$mainPathways),
       parentPathways = stats::setNames(parent, unlist(out$pathway)))
}
