# fgsea's plots of a preranked analysis: one set's running sum, and a table of sets with their
# positions in the ranking. Drawn in R (ggplot2 when installed, else base graphics).

# The columns ggplot2's aes() names (R CMD check would see unbound variables).
utils::globalVariables(c("x", "y", "h", "label", "hjust"))

# The running enrichment sum of `pathway` along `stats` ranked by decreasing value (equal
# values in input order, as fgsea's ranking): list(x, y, hits, es).
running_sum <- function(pathway, stats, gseaParam = 1) {
  if (!is.numeric(stats) || is.null(names(stats)))
    stop("stats must be a named numeric vector (names are genes)", call. = FALSE)
  if (any(!is.finite(stats))) stop("Not all stats values are finite numbers", call. = FALSE)
  ord <- order(stats, decreasing = TRUE)
  s <- stats[ord]
  hit <- names(s) %in% as.character(pathway)
  if (!any(hit)) stop("pathway has no gene in names(stats)", call. = FALSE)
  if (all(hit)) stop("pathway holds every gene of stats", call. = FALSE)
  w <- abs(s)^gseaParam
  step <- ifelse(hit, w / sum(w[hit]), -1 / sum(!hit))
  y <- c(0, cumsum(step))
  top <- max(y)
  bottom <- min(y)
  list(x = 0:length(s), y = y, hits = which(hit), top = top, bottom = bottom,
       es = if (top > -bottom) top else bottom)
}

#' The data of an enrichment plot, as fgsea's plotEnrichmentData
#'
#' The running sum of \code{pathway} along the ranking of \code{stats} (decreasing) and its extremes, for drawing it another way.
#' @param pathway a character vector of genes.
#' @param stats a named numeric vector (names are genes).
#' @param gseaParam the weight (statistics raised to this power).
#' @return A list: curve (rank, ES: the running sum at each rank, 0 at rank 0), ticks (rank, stat: the pathway's genes), stats (rank, stat: every gene), posES, negES (the largest positive and negative deviations), spreadES (their difference), maxAbsStat.
#' @examples
#' stats <- setNames(rnorm(500), paste0("G", 1:500))
#' d <- plotEnrichmentData(paste0("G", 1:20), stats)
#' c(d$posES, d$negES)
#' @export
plotEnrichmentData <- function(pathway, stats, gseaParam = 1) {
  r <- running_sum(pathway, stats, gseaParam)
  s <- sort(stats, decreasing = TRUE, method = "radix")
  w <- abs(s)^gseaParam
  list(curve = data.frame(rank = r$x, ES = r$y),
       ticks = data.frame(rank = r$hits, stat = unname(w[r$hits])),
       stats = data.frame(rank = seq_along(s), stat = unname(w)),
       posES = r$top, negES = r$bottom, spreadES = r$top - r$bottom, maxAbsStat = max(w))
}

#' Plot the running enrichment score of one gene set, as fgsea's plotEnrichment
#'
#' The running sum of \code{pathway} along the ranking of \code{stats} (decreasing), with a tick at each of its genes and dashed lines at its largest positive and negative deviations.
#' @param pathway a character vector of genes.
#' @param stats a named numeric vector (names are genes).
#' @param gseaParam the weight (statistics raised to this power).
#' @param ticksSize the width of the ticks.
#' @return A ggplot object when ggplot2 is installed (fgsea's), else the curve as list(x, y, hits, es), invisibly, after drawing it with base graphics.
#' @examples
#' stats <- setNames(rnorm(500), paste0("G", 1:500))
#' stats[1:20] <- stats[1:20] + 2
#' plotEnrichment(paste0("G", 1:20), stats)
#' @export
plotEnrichment <- function(pathway, stats, gseaParam = 1, ticksSize = 0.2) {
  r <- running_sum(pathway, stats, gseaParam)
  if (requireNamespace("ggplot2", quietly = TRUE)) {
    curve <- data.frame(x = r$x, y = r$y)
    ticks <- data.frame(x = r$hits)
    span <- r$top - r$bottom
    return(ggplot2::ggplot(curve, ggplot2::aes(x = x, y = y)) +
      ggplot2::geom_line(color = "green4") +
      ggplot2::geom_hline(yintercept = c(r$top, r$bottom), color = "red", linetype = "dashed") +
      ggplot2::geom_hline(yintercept = 0, color = "black") +
      ggplot2::geom_segment(data = ticks,
                            ggplot2::aes(x = x, xend = x),
                            y = -span / 16, yend = span / 16, linewidth = ticksSize) +
      ggplot2::theme_bw() +
      ggplot2::labs(x = "rank", y = "enrichment score"))
  }
  graphics::plot(r$x, r$y, type = "l", col = "green4", xlab = "rank", ylab = "enrichment score")
  graphics::abline(h = c(r$top, r$bottom), col = "red", lty = 2)
  graphics::abline(h = 0)
  span <- r$top - r$bottom
  graphics::segments(r$hits, -span / 16, r$hits, span / 16, lwd = ticksSize * 5)
  invisible(r)
}

#' Plot a table of gene sets with their genes' places in the ranking, as fgsea's plotGseaTable
#'
#' One row per pathway: its name, a barcode of its genes along the ranking of \code{stats} (bar height: the gene's weight), and its NES, p-value and adjusted p-value from \code{fgseaRes}. Drawn with base graphics.
#' @param pathways a named list of character vectors; the rows, in this order.
#' @param stats a named numeric vector (names are genes).
#' @param fgseaRes the table \code{fgseaGpu} returns (pathway, NES, pval, padj).
#' @param gseaParam the weight.
#' @param colwidths the relative widths of the columns: name, barcode, NES, pval, padj.
#' @return A ggplot object when ggplot2 is installed (fgsea's result, for \code{ggsave}); else the rows drawn with base graphics (a data.frame: pathway, NES, pval, padj), invisibly.
#' @examples
#' stats <- setNames(rnorm(500), paste0("G", 1:500))
#' sets <- list(a = paste0("G", 1:20), b = paste0("G", 300:340))
#' res <- data.frame(pathway = c("a", "b"), NES = c(1.8, -0.4), pval = c(0.001, 0.7),
#'                   padj = c(0.002, 0.7))
#' plotGseaTable(sets, stats, res)
#' @export
plotGseaTable <- function(pathways, stats, fgseaRes, gseaParam = 1,
                          colwidths = c(5, 3, 0.8, 1.2, 1.2)) {
  if (!is.list(pathways) || is.null(names(pathways)))
    stop("pathways must be a named list of character vectors", call. = FALSE)
  if (!is.numeric(stats) || is.null(names(stats)))
    stop("stats must be a named numeric vector (names are genes)", call. = FALSE)
  res <- as.data.frame(fgseaRes)
  need <- c("pathway", "NES", "pval", "padj")
  if (!all(need %in% names(res)))
    stop("fgseaRes must have columns ", paste(need, collapse = ", "), call. = FALSE)
  if (length(colwidths) != 5) stop("colwidths must have 5 values", call. = FALSE)
  rows <- res[match(names(pathways), res$pathway), need]
  rows$pathway <- names(pathways)
  ord <- order(stats, decreasing = TRUE)
  s <- stats[ord]
  w <- abs(s)^gseaParam
  w <- w / max(w)
  k <- nrow(rows)
  if (requireNamespace("ggplot2", quietly = TRUE))
    return(gsea_table_ggplot(rows, pathways, names(s), w, colwidths))
  old <- graphics::par(mar = c(0, 0, 0, 0))
  on.exit(graphics::par(old))
  edges <- cumsum(c(0, colwidths)) / sum(colwidths)
  graphics::plot.new()
  graphics::plot.window(xlim = c(0, 1), ylim = c(0, k + 1))
  head <- c("Pathway", "Gene ranks", "NES", "pval", "padj")
  graphics::text((edges[-6] + edges[-1]) / 2, k + 0.5, head, font = 2, cex = 0.8)
  fmt <- function(v, d) ifelse(is.na(v), "NA", formatC(v, digits = d, format = "g"))
  for (i in seq_len(k)) {
    y <- k - i + 0.5
    graphics::text(edges[1], y, rows$pathway[i], adj = 0, cex = 0.7)
    at <- which(names(s) %in% pathways[[i]])
    x <- edges[2] + (edges[3] - edges[2]) * (at - 0.5) / length(s)
    graphics::segments(x, y - 0.4 * w[at], x, y + 0.4 * w[at], lwd = 0.5)
    graphics::text((edges[3] + edges[4]) / 2, y, fmt(rows$NES[i], 3), cex = 0.7)
    graphics::text((edges[4] + edges[5]) / 2, y, fmt(rows$pval[i], 2), cex = 0.7)
    graphics::text((edges[5] + edges[6]) / 2, y, fmt(rows$padj[i], 2), cex = 0.7)
  }
  invisible(rows)
}

# plotGseaTable's drawing as one ggplot: row i of `rows` at height k - i, the barcode of its
# genes over the ranking (`genes`, their weights `w`), the numbers beside it.
gsea_table_ggplot <- function(rows, pathways, genes, w, colwidths) {
  k <- nrow(rows)
  n <- length(genes)
  edges <- cumsum(c(0, colwidths)) / sum(colwidths)
  ticks <- do.call(rbind, lapply(seq_len(k), function(i) {
    at <- which(genes %in% pathways[[i]])
    if (!length(at)) return(NULL)
    data.frame(x = edges[2] + (edges[3] - edges[2]) * (at - 0.5) / n, y = k - i + 0.5,
               h = 0.4 * w[at])
  }))
  p <- pathway_table_ggplot(rows$pathway, "Gene ranks",
                            list(NES = rows$NES, pval = rows$pval, padj = rows$padj), edges)
  if (!is.null(ticks))
    p <- p + ggplot2::geom_segment(data = ticks, ggplot2::aes(x = x, xend = x, y = y - h,
                                                              yend = y + h), linewidth = 0.2)
  p
}

# The text of a table of pathways drawn as one ggplot (plotGseaTable, plotGesecaTable): a
# header row, then row i at height k - i + 0.5: pathway i's name in the first column, the
# second column (`middle`, its title) left to the caller's layer, and three numbers (`values`,
# a named list; the first with 3 significant digits, the others 2).
pathway_table_ggplot <- function(pathways, middle, values, edges) {
  k <- length(pathways)
  fmt <- function(v, d) ifelse(is.na(v), "NA", formatC(v, digits = d, format = "g"))
  mid <- (edges[-6] + edges[-1]) / 2
  text <- data.frame(
    x = c(edges[1], mid[2:5], rep(edges[1], k), rep(mid[3], k), rep(mid[4], k), rep(mid[5], k)),
    y = c(rep(k + 0.5, 5), rep(k - seq_len(k) + 0.5, 4)),
    label = c("Pathway", middle, names(values), pathways, fmt(values[[1]], 3),
              fmt(values[[2]], 2), fmt(values[[3]], 2)),
    hjust = c(0, rep(0.5, 4), rep(0, k), rep(0.5, 3 * k)))
  ggplot2::ggplot() +
    ggplot2::geom_text(data = text, ggplot2::aes(x = x, y = y, label = label, hjust = hjust),
                       size = 2.5) +
    ggplot2::scale_x_continuous(limits = c(0, 1)) +
    ggplot2::scale_y_continuous(limits = c(0, k + 1)) +
    ggplot2::theme_void()
}
