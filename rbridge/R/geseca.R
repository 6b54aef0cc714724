# fgsea's gene set co-regulation analysis (GESECA: geseca, gesecaSimple and their plots) over
# the device's oclstat.geseca: fgsea's names, arguments, tables, warnings and refusals; seeds
# from R's RNG, so set.seed() repeats a run.

# fgsea's refusals of an expression matrix and of the pathways, in its words.
geseca_check <- function(E, pathways) {
  if (!is.list(pathways))
    stop("pathways should be a list with each element containing names of the stats argument",
         call. = FALSE)
  if (is.null(dim(E))) E <- as.matrix(E)
  if (is.null(rownames(E))) stop("E rows should be named", call. = FALSE)
  if (anyNA(rownames(E))) stop("NAs in rownames(E) are not allowed", call. = FALSE)
  if (anyDuplicated(rownames(E))) stop("Duplicate rownames(E) are not allowed", call. = FALSE)
  if (!is.numeric(E)) stop("E must be a numeric matrix", call. = FALSE)
  if (any(!is.finite(E))) stop("Not all E values are finite numbers", call. = FALSE)
  E
}

# One device run of the kept pathways (under unique keys: pathways may share a name), as
# fgsea's table; `simple` gives gesecaSimple's columns.
run_geseca <- function(pathways, E, minSize, maxSize, center, scale, sampleSize, eps,
                       nperm, simple) {
  E <- geseca_check(E, pathways)
  if (scale && any(apply(E, 1, stats::sd) == 0))
    stop("Cannot rescale a constant/zero gene expression rows to unit variance", call. = FALSE)
  kept <- fgsea_pathways(pathways, rownames(E), minSize, maxSize)
  if (!length(kept)) {
    cols <- list(pathway = character(), pctVar = numeric(), pval = numeric(),
                 padj = numeric(), log2err = numeric(), size = integer())
    if (simple) cols$log2err <- NULL
    return(as_fgsea_table(columns_to_frame(cols)))
  }
  keys <- paste0("p", seq_along(kept))
  sets <- stats::setNames(lapply(kept, function(g) as.list(as.character(g))), keys)
  res <- call_adapter("geseca", list(
    pathways = reticulate::dict(sets), E = to_py_array(E, "E"), minSize = 1L,
    maxSize = py_int(nrow(E) - 1, "maxSize"), center = isTRUE(center), scale = isTRUE(scale),
    sampleSize = py_int(sampleSize, "sampleSize"), eps = as.double(eps),
    nPermSimple = py_int(nperm, if (simple) "nperm" else "nPermSimple", minimum = 1),
    method = if (simple) "simple" else "multilevel", seed = r_seed()))
  res$pathway <- names(kept)[match(res$pathway, keys)]
  rownames(res) <- NULL
  as_fgsea_table(res)
}

#' Gene set co-regulation analysis, as fgsea's geseca
#'
#' Which gene sets vary together across the samples (a time course, cells, spots) more than random sets of their size: the score of a set is the squared length of its summed, centred profile, \code{pctVar} that score per gene as a percentage of the total variance. P-values come from \code{nPermSimple} random sets of every size and, where those cannot resolve them, adaptive multilevel splitting down to \code{eps}, both on the OpenCL device. fgsea's arguments, table, warnings and refusals; \code{nproc} and \code{BPPARAM} are accepted and ignored; the seed comes from R's random number generator. padj is Benjamini-Hochberg over every pathway (fgsea adjusts the multilevel pathways among themselves).
#' @param pathways list of gene sets (character vectors of row names of \code{E}).
#' @param E expression matrix, genes x samples, with row names.
#' @param minSize smallest pathway size kept (genes of \code{E}).
#' @param maxSize largest pathway size kept.
#' @param center centre each gene on its mean first (R's \code{scale}).
#' @param scale scale each gene to unit variance first.
#' @param sampleSize chains per set size in multilevel splitting (below 3: 3, with fgsea's warning; even: one more).
#' @param eps smallest p-value estimated (0: no bound); pathways reaching it get \code{pval = eps}, \code{log2err = NA} and fgsea's warning.
#' @param nproc accepted, ignored.
#' @param BPPARAM accepted, ignored.
#' @param nPermSimple random sets per size for the simple p-values.
#' @return fgsea's table (a data.table when data.table is installed): pathway, pctVar, pval, padj, log2err, size, by p-value (by pathway when no pathway needed multilevel splitting, as fgsea).
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   E <- matrix(rnorm(3000), 300, dimnames = list(paste0("g", 1:300), paste0("s", 1:10)))
#'   E[1:20, ] <- E[1:20, ] + rep(sin(1:10), each = 20)
#'   geseca(list(module = paste0("g", 1:20), other = paste0("g", 100:140)), E)
#' }
#' @export
geseca <- function(pathways, E, minSize = 1, maxSize = nrow(E) - 1, center = TRUE,
                   scale = FALSE, sampleSize = 101, eps = 1e-50, nproc = 0, BPPARAM = NULL,
                   nPermSimple = 1000) {
  run_geseca(pathways, E, minSize, maxSize, center, scale, sampleSize, eps, nPermSimple,
             simple = FALSE)
}

#' Gene set co-regulation analysis by simple sampling, as fgsea's gesecaSimple
#'
#' \code{geseca}'s score against \code{nperm} random sets of every size on the OpenCL device, p-values (k + 1) / (nperm + 1) with k (\code{nMoreExtreme}) the random sets scoring at least as high.
#' @param pathways list of gene sets (character vectors of row names of \code{E}).
#' @param E expression matrix, genes x samples, with row names.
#' @param minSize smallest pathway size kept (genes of \code{E}).
#' @param maxSize largest pathway size kept.
#' @param center centre each gene on its mean first (R's \code{scale}).
#' @param scale scale each gene to unit variance first.
#' @param nperm random sets per size.
#' @param nproc accepted, ignored.
#' @param BPPARAM accepted, ignored.
#' @return fgsea's table: pathway, pctVar, pval, padj, nMoreExtreme, size, by p-value.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   E <- matrix(rnorm(3000), 300, dimnames = list(paste0("g", 1:300), paste0("s", 1:10)))
#'   gesecaSimple(list(a = paste0("g", 1:20)), E, nperm = 500)
#' }
#' @export
gesecaSimple <- function(pathways, E, minSize = 1, maxSize = nrow(E) - 1, center = TRUE,
                         scale = FALSE, nperm = 1000, nproc = 0, BPPARAM = NULL) {
  run_geseca(pathways, E, minSize, maxSize, center, scale, 101, 0, nperm, simple = TRUE)
}

# the columns the GESECA plots map (ggplot2's aes)
utils::globalVariables(c("gene", "value", "condition"))

# E centred and scaled per gene as geseca does.
geseca_scaled <- function(E, center, scale) t(base::scale(t(E), center = center, scale = scale))

#' Plot the expression profile of a gene set, as fgsea's plotCoregulationProfile
#'
#' Each gene of the set across the samples (faint lines and points), their mean (the thick line, with dashed lines at its extremes), after centring (and scaling) each gene as \code{geseca} does.
#' @param pathway the gene set (character vector of row names of \code{E}).
#' @param E expression matrix, genes x samples.
#' @param center,scale as in \code{geseca}.
#' @param titles sample labels (default \code{colnames(E)}).
#' @param conditions optional sample grouping, colouring the mean's points.
#' @return a ggplot object.
#' @examples
#' E <- matrix(rnorm(200), 20, dimnames = list(paste0("g", 1:20), paste0("s", 1:10)))
#' if (requireNamespace("ggplot2", quietly = TRUE))
#'   plotCoregulationProfile(paste0("g", 1:8), E)
#' @export
plotCoregulationProfile <- function(pathway, E, center = TRUE, scale = FALSE,
                                    titles = colnames(E), conditions = NULL) {
  if (!requireNamespace("ggplot2", quietly = TRUE))
    stop("plotCoregulationProfile needs the ggplot2 package", call. = FALSE)
  E <- geseca_scaled(geseca_check(E, list(pathway)), center, scale)
  rows <- E[rownames(E) %in% pathway, , drop = FALSE]
  if (!nrow(rows)) stop("no gene of pathway is a row of E", call. = FALSE)
  if (is.null(titles)) titles <- paste0("S", seq_len(ncol(E)))
  if (length(titles) != ncol(E)) stop("titles must have one label per column of E", call. = FALSE)
  x <- seq_len(ncol(E))
  genes <- data.frame(gene = rep(rownames(rows), times = ncol(rows)),
                      x = rep(x, each = nrow(rows)), y = as.vector(rows))
  mean_profile <- data.frame(x = x, y = colMeans(rows),
                             condition = if (is.null(conditions)) "all" else
                               factor(conditions, levels = unique(conditions)))
  p <- ggplot2::ggplot(genes, ggplot2::aes(x = x, y = y, group = gene, colour = gene)) +
    ggplot2::geom_point(alpha = 0.1) +
    ggplot2::geom_line(alpha = 0.2) +
    ggplot2::scale_colour_discrete(guide = "none") +
    ggplot2::geom_line(data = mean_profile, ggplot2::aes(x = x, y = y), inherit.aes = FALSE,
                       colour = "#13242a", linewidth = 1.5) +
    ggplot2::geom_hline(yintercept = range(mean_profile$y), colour = "#495057",
                        linetype = "dashed", linewidth = 1) +
    ggplot2::scale_x_continuous(breaks = x, labels = titles) +
    ggplot2::theme_classic(base_size = 16) +
    ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 45, hjust = 1)) +
    ggplot2::labs(x = "sample", y = "expression")
  if (is.null(conditions))
    return(p + ggplot2::geom_point(data = mean_profile, ggplot2::aes(x = x, y = y),
                                   inherit.aes = FALSE, shape = 21, size = 4, fill = "black"))
  p + ggplot2::geom_point(data = mean_profile, ggplot2::aes(x = x, y = y, fill = condition),
                          inherit.aes = FALSE, shape = 21, size = 4, colour = "black")
}

#' Plot a table of gene set profiles, as fgsea's plotGesecaTable
#'
#' One row per pathway of \code{gesecaRes} found in \code{pathways}: its name, its mean centred profile over the samples as a heat strip (scaled to its largest magnitude), its pctVar, pval and padj.
#' @param gesecaRes a \code{geseca} table.
#' @param pathways the gene sets, named as in \code{gesecaRes}.
#' @param E expression matrix, genes x samples.
#' @param center,scale as in \code{geseca}.
#' @param colwidths relative widths of the columns: pathway, profile, pctVar, pval, padj.
#' @param titles sample labels.
#' @param colors low, middle and high colours of the profile.
#' @param pathwayLabelStyle,headerLabelStyle,valueStyle,axisLabelStyle,axisLabelHeightScale accepted for fgsea's calls (ignored).
#' @return a ggplot object.
#' @examples
#' E <- matrix(rnorm(400), 40, dimnames = list(paste0("g", 1:40), paste0("s", 1:10)))
#' res <- data.frame(pathway = c("a", "b"), pctVar = c(9, 3), pval = c(1e-4, 0.4),
#'                   padj = c(2e-4, 0.4))
#' if (requireNamespace("ggplot2", quietly = TRUE))
#'   plotGesecaTable(res, list(a = paste0("g", 1:10), b = paste0("g", 20:30)), E)
#' @export
plotGesecaTable <- function(gesecaRes, pathways, E, center = TRUE, scale = FALSE,
                            colwidths = c(5, 3, 0.8, 1.2, 1.2), titles = colnames(E),
                            colors = c("blue", "white", "red"), pathwayLabelStyle = NULL,
                            headerLabelStyle = NULL, valueStyle = NULL, axisLabelStyle = NULL,
                            axisLabelHeightScale = NULL) {
  if (!requireNamespace("ggplot2", quietly = TRUE))
    stop("plotGesecaTable needs the ggplot2 package", call. = FALSE)
  if (!is.list(pathways) || is.null(names(pathways)))
    stop("pathways must be a named list of character vectors", call. = FALSE)
  if (length(colwidths) != 5) stop("colwidths must have 5 values", call. = FALSE)
  res <- as.data.frame(gesecaRes)
  need <- c("pathway", "pctVar", "pval", "padj")
  if (!all(need %in% names(res)))
    stop("gesecaRes must have columns ", paste(need, collapse = ", "), call. = FALSE)
  res <- res[res$pathway %in% names(pathways), need, drop = FALSE]
  E <- geseca_scaled(geseca_check(E, pathways), center, scale)
  k <- nrow(res)
  m <- ncol(E)
  edges <- cumsum(c(0, colwidths)) / sum(colwidths)
  strip <- do.call(rbind, lapply(seq_len(k), function(i) {
    rows <- E[rownames(E) %in% pathways[[res$pathway[i]]], , drop = FALSE]
    prof <- colMeans(rows)
    prof <- if (max(abs(prof)) > 0) prof / max(abs(prof)) else prof
    data.frame(x = edges[2] + (edges[3] - edges[2]) * (seq_len(m) - 0.5) / m,
               y = k - i + 0.5, value = prof)
  }))
  p <- pathway_table_ggplot(res$pathway, "Profile",
                            list(pctVar = res$pctVar, pval = res$pval, padj = res$padj), edges)
  if (k)
    p <- p + ggplot2::geom_tile(data = strip, ggplot2::aes(x = x, y = y, fill = value),
                                width = (edges[3] - edges[2]) / m, height = 0.8) +
      ggplot2::scale_fill_gradient2(low = colors[1], mid = colors[2], high = colors[3],
                                    limits = c(-1, 1), guide = "none")
  p
}
