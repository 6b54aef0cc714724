# fgsea's own names, arguments, results, warnings and refusals (fgsea 1.31-1.39), over the
# device's preranked GSEA (the adapter behind fgseaGpu): code written for fgsea runs with
# library(oclstat) in place of library(fgsea). Seeds come from R's RNG, so set.seed() makes a
# run repeatable, as fgsea's.

# fgsea's checks of the ranking, in its words; the warnings it gives (ties other than zeros,
# "std" on statistics all positive).
fgsea_stats <- function(stats, scoreType) {
  if (!is.numeric(stats)) stop("stats must be a named numeric vector", call. = FALSE)
  universe <- names(stats)
  if (is.null(universe)) stop("stats should be named (names are gene identifiers)", call. = FALSE)
  check_gene_ids(universe, "names(stats)")
  if (any(!is.finite(stats)))
    stop("Not all stats values are finite numbers", call. = FALSE)
  ties <- sum(duplicated(stats[stats != 0]))
  if (ties != 0)
    warning("There are ties in the preranked stats (", round(ties * 100 / length(stats), 2),
            "% of the list).\nThe order of those tied genes will be arbitrary, which may ",
            "produce unexpected results.", call. = FALSE)
  if (all(stats > 0) && scoreType == "std")
    warning("All values in the stats vector are greater than zero and scoreType is \"std\", ",
            "maybe you should switch to scoreType = \"pos\".", call. = FALSE)
  invisible(stats)
}

# fgsea's refusals of gene identifiers (`what`: how the caller named them).
check_gene_ids <- function(ids, what) {
  if (anyNA(ids)) stop("NAs in ", what, " are not allowed", call. = FALSE)
  if (any(ids == "")) stop("Empty strings are not allowed in ", what, call. = FALSE)
  if (anyDuplicated(ids)) stop("Duplicate values in ", what, " not allowed", call. = FALSE)
}

# The pathways fgsea keeps: genes matched to names(stats) (duplicates and unknown genes
# dropped), sizes in [max(minSize, 1), min(maxSize, length(stats) - 1)].
fgsea_pathways <- function(pathways, universe, minSize, maxSize) {
  if (!is.list(pathways))
    stop("pathways should be a list with each element containing gene identifiers",
         call. = FALSE)
  if (length(pathways) && is.null(names(pathways)))
    names(pathways) <- rep("", length(pathways))
  matched <- lapply(pathways, function(p) unique(stats::na.omit(match(p, universe))))
  sizes <- lengths(matched)
  keep <- max(minSize, 1) <= sizes & sizes <= min(maxSize, length(universe) - 1)
  pathways[keep]
}

# fgsea's empty table (its columns, no rows).
fgsea_empty <- function(simple) {
  cols <- list(pathway = character(), pval = numeric(), padj = numeric(),
               log2err = numeric(), ES = numeric(), NES = numeric(),
               nMoreExtreme = numeric(), size = integer(), leadingEdge = list())
  cols[[if (simple) "log2err" else "nMoreExtreme"]] <- NULL
  as_fgsea_table(columns_to_frame(cols))
}

as_fgsea_table <- function(res) {
  if (requireNamespace("data.table", quietly = TRUE)) res <- data.table::as.data.table(res)
  res
}

# One run of the device's preranked GSEA on fgsea's kept pathways: the table in fgsea's row
# order (by pathway name), with fgsea's warnings; the seed from R's RNG.
run_fgsea <- function(pathways, stats, minSize, maxSize, gseaParam, scoreType, method,
                      nperm, sampleSize, eps) {
  fgsea_stats(stats, scoreType)
  kept <- fgsea_pathways(pathways, names(stats), minSize, maxSize)
  simple <- method == "simple"
  if (!length(kept)) return(fgsea_empty(simple))
  # pathways may share a name (fgsea keeps every row): run them under unique keys
  keys <- paste0("p", seq_along(kept))
  sets <- stats::setNames(lapply(kept, function(g) as.list(as.character(g))), keys)
  res <- withCallingHandlers(
    call_adapter("fgseaGpu", list(pathways = reticulate::dict(sets),
                                  stats = to_py_array(stats, "stats"),
                                  minSize = 1L, maxSize = py_int(length(stats) - 1, "maxSize"),
                                  gseaParam = as.double(gseaParam), eps = as.double(eps),
                                  nPermSimple = py_int(nperm, "nperm", minimum = 1),
                                  method = method, scoreType = scoreType,
                                  sampleSize = py_int(sampleSize, "sampleSize"),
                                  seed = r_seed())),
    # fgsea's own words for these are given here
    warning = function(w) {
      if (grepl("tie with the gene before them|no null ES of their sign", conditionMessage(w)))
        invokeRestart("muffleWarning")
    })
  at <- match(res$pathway, keys)
  res$pathway <- names(kept)[at]
  res <- res[order(res$pathway, at, method = "radix"), ]     # fgsea: setorder(result, pathway)
  rownames(res) <- NULL
  unbalanced <- sum(is.na(res$pval))
  if (simple) {
    if (unbalanced)
      warning("There were ", unbalanced, " pathways for which P-values were not calculated ",
              "properly due to unbalanced gene-level statistic values", call. = FALSE)
    res <- res[c("pathway", "pval", "padj", "ES", "NES", "nMoreExtreme", "size",
                 "leadingEdge")]
    return(as_fgsea_table(res))
  }
  if (unbalanced)
    warning("There were ", unbalanced, " pathways for which P-values were not calculated ",
            "properly due to unbalanced (positive and negative) gene-level statistic values. ",
            "For such pathways pval, padj, NES, log2err are set to NA. You can try to increase ",
            "the value of the argument nPermSimple (for example set it nPermSimple = ",
            format(nperm * 10, scientific = FALSE), ")", call. = FALSE)
  known <- !is.na(res$pval)
  if (any(known & is.na(res$log2err) & res$pval > eps))
    warning("For some of the pathways the P-values were likely overestimated. For such ",
            "pathways log2err is set to NA.", call. = FALSE)
  if (any(known & is.na(res$log2err) & res$pval == eps))
    warning("For some pathways, in reality P-values are less than ", eps, ". You can set the ",
            "`eps` argument to zero for better estimation.", call. = FALSE)
  as_fgsea_table(res[c("pathway", "pval", "padj", "log2err", "ES", "NES", "size",
                       "leadingEdge")])
}

# An integer seed for the device's streams, drawn from R's RNG (set.seed() repeats it).
r_seed <- function() sample.int(.Machine$integer.max, 1)

#' Preranked gene set enrichment analysis, as fgsea's fgsea
#'
#' fgsea's entry point: with an \code{nperm} argument it warns (as fgsea) and runs \code{fgseaSimple}, otherwise \code{fgseaMultilevel}. The random gene sets are drawn on the OpenCL device from a seed taken from R's random number generator, so \code{set.seed()} repeats a run.
#' @param pathways list of gene sets (character vectors of names of \code{stats}).
#' @param stats named numeric vector of gene-level statistics.
#' @param minSize smallest pathway size kept (genes of \code{stats}).
#' @param maxSize largest pathway size kept.
#' @param gseaParam GSEA weight (statistics are raised to this power).
#' @param ... further arguments of \code{fgseaMultilevel} (or of \code{fgseaSimple}, with \code{nperm}).
#' @return fgsea's table (a data.table when data.table is installed): pathway, pval, padj, log2err, ES, NES, size, leadingEdge, one row per pathway kept, ordered by pathway name.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   stats <- setNames(rnorm(2000), paste0("G", 1:2000))
#'   stats[1:40] <- stats[1:40] + 3
#'   fgsea(list(up = paste0("G", 1:40), any = paste0("G", 500:560)), stats)
#' }
#' @export
fgsea <- function(pathways, stats, minSize = 1, maxSize = length(stats) - 1, gseaParam = 1,
                  ...) {
  if ("nperm" %in% names(list(...))) {
    warning("You are trying to run fgseaSimple. It is recommended to use fgseaMultilevel. ",
            "To run fgseaMultilevel, you need to remove the nperm argument in the fgsea ",
            "function call.", call. = FALSE)
    return(fgseaSimple(pathways = pathways, stats = stats, minSize = minSize,
                       maxSize = maxSize, gseaParam = gseaParam, ...))
  }
  fgseaMultilevel(pathways = pathways, stats = stats, minSize = minSize, maxSize = maxSize,
                  gseaParam = gseaParam, ...)
}

#' Preranked GSEA with multilevel p-values, as fgsea's fgseaMultilevel
#'
#' fgsea's arguments, defaults, table, warnings and refusals; the simple null (\code{nPermSimple} random sets per size) and adaptive multilevel splitting down to \code{eps} run on the OpenCL device. \code{nproc} and \code{BPPARAM} are accepted and ignored (the device does the work); the seed comes from R's random number generator.
#' @param pathways list of gene sets.
#' @param stats named numeric vector of gene-level statistics.
#' @param sampleSize random sets per size in multilevel splitting (below 3: 3, with fgsea's warning; even: one more).
#' @param minSize smallest pathway size kept.
#' @param maxSize largest pathway size kept.
#' @param eps smallest p-value estimated (0: no bound); pathways reaching it get \code{pval = eps}, \code{log2err = NA} and fgsea's warning.
#' @param scoreType "std", "pos" or "neg".
#' @param nproc accepted, ignored.
#' @param gseaParam GSEA weight.
#' @param BPPARAM accepted, ignored.
#' @param nPermSimple random sets per size for the simple null.
#' @param absEps deprecated name of \code{eps} (fgsea's warning).
#' @return fgsea's table: pathway, pval, padj, log2err, ES, NES, size, leadingEdge.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(42)
#'   stats <- setNames(rnorm(1000), paste0("G", 1:1000))
#'   stats[1:30] <- stats[1:30] + 2
#'   fgseaMultilevel(list(top = paste0("G", 1:30)), stats, eps = 0)
#' }
#' @export
fgseaMultilevel <- function(pathways, stats, sampleSize = 101, minSize = 1,
                            maxSize = length(stats) - 1, eps = 1e-50,
                            scoreType = c("std", "pos", "neg"), nproc = 0, gseaParam = 1,
                            BPPARAM = NULL, nPermSimple = 1000, absEps = NULL) {
  scoreType <- match.arg(scoreType)
  if (!is.null(absEps)) {
    warning("You are using deprecated argument `absEps`. Use `eps` argument instead. ",
            "`absEps` was assigned to `eps`.", call. = FALSE)
    eps <- absEps
  }
  if (sampleSize < 3) {
    warning("sampleSize is too small, so sampleSize = 3 is set.", call. = FALSE)
    sampleSize <- 3
  }
  run_fgsea(pathways, stats, minSize, maxSize, gseaParam, scoreType, "multilevel",
            nPermSimple, sampleSize, max(0, min(1, eps)))
}

#' Preranked GSEA with simple permutation p-values, as fgsea's fgseaSimple
#'
#' fgsea's \code{nperm} random gene sets of every pathway size, drawn on the OpenCL device; fgsea's table with \code{nMoreExtreme} (the random sets' ES at least as extreme as the pathway's, on its side). The seed comes from R's random number generator.
#' @param pathways list of gene sets.
#' @param stats named numeric vector of gene-level statistics.
#' @param nperm number of random gene sets per size.
#' @param minSize smallest pathway size kept.
#' @param maxSize largest pathway size kept.
#' @param scoreType "std", "pos" or "neg".
#' @param nproc accepted, ignored.
#' @param gseaParam GSEA weight.
#' @param BPPARAM accepted, ignored.
#' @return fgsea's table: pathway, pval, padj, ES, NES, nMoreExtreme, size, leadingEdge.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(42)
#'   stats <- setNames(rnorm(1000), paste0("G", 1:1000))
#'   fgseaSimple(list(a = paste0("G", 1:30)), stats, nperm = 1000)
#' }
#' @export
fgseaSimple <- function(pathways, stats, nperm, minSize = 1, maxSize = length(stats) - 1,
                        scoreType = c("std", "pos", "neg"), nproc = 0, gseaParam = 1,
                        BPPARAM = NULL) {
  scoreType <- match.arg(scoreType)
  run_fgsea(pathways, stats, minSize, maxSize, gseaParam, scoreType, "simple", nperm, 101, 0)
}

#' The enrichment score of one gene set, as fgsea's calcGseaStat
#'
#' The weighted running sum of Subramanian et al. over \code{stats} (taken in the order given: sort them decreasing first), with fgsea's rules: equally high positive and negative extremes give 0 under "std"; statistics all zero in the set weigh its genes equally.
#' @param stats numeric vector of gene-level statistics, in ranking order.
#' @param selectedStats positions of the set's genes in \code{stats}.
#' @param gseaParam GSEA weight.
#' @param returnAllExtremes also return the running sum's value after (\code{tops}) and before (\code{bottoms}) each gene of the set.
#' @param returnLeadingEdge also return the positions of the leading-edge genes.
#' @param scoreType "std", "pos" or "neg".
#' @return The score, or a list (res, tops, bottoms, leadingEdge) when asked for more.
#' @examples
#' calcGseaStat(10:-10, selectedStats = 1:5)
#' calcGseaStat(10:-10, selectedStats = (1:5) * 2, returnLeadingEdge = TRUE)
#' @export
calcGseaStat <- function(stats, selectedStats, gseaParam = 1, returnAllExtremes = FALSE,
                         returnLeadingEdge = FALSE, scoreType = c("std", "pos", "neg")) {
  scoreType <- match.arg(scoreType)
  S <- sort(selectedStats)
  if (anyDuplicated(S)) stop("selectedStats must not repeat a position", call. = FALSE)
  if (length(S) && (S[1] < 1 || S[length(S)] > length(stats) || any(S != round(S))))
    stop("selectedStats must be positions in stats (1 to ", length(stats), ")", call. = FALSE)
  m <- length(S)
  N <- length(stats)
  if (m == N) stop("GSEA statistic is not defined when all genes are selected", call. = FALSE)
  w <- abs(stats[S])^gseaParam
  hits <- if (sum(w) == 0) seq_len(m) / m else cumsum(w) / sum(w)
  misses <- (S - seq_len(m)) / (N - m)           # genes outside the set before each hit
  tops <- hits - misses
  bottoms <- c(0, hits[-m]) - misses
  top <- max(tops)
  bottom <- min(bottoms)
  res <- switch(scoreType,
                std = if (top == -bottom) 0 else if (top > -bottom) top else bottom,
                pos = top, neg = bottom)
  if (!returnAllExtremes && !returnLeadingEdge) return(res)
  out <- list(res = res)
  if (returnAllExtremes) out <- c(out, list(tops = tops, bottoms = bottoms))
  if (returnLeadingEdge) {
    side <- switch(scoreType, pos = 1, neg = -1, sign(res))
    out$leadingEdge <- if (side > 0) S[seq_len(which.max(tops))] else
      if (side < 0) rev(S[which.min(bottoms):m]) else integer()
  }
  out
}

#' Enrichment scores of the growing prefixes of a gene set, as fgsea's calcGseaStatCumulative
#'
#' The score of \code{selectedStats[1:i]} for every i, the genes taken in the order given.
#' @param stats numeric vector of gene-level statistics, in ranking order.
#' @param selectedStats positions of the set's genes, in the order they join.
#' @param gseaParam GSEA weight.
#' @param scoreType "std", "pos" or "neg".
#' @return A numeric vector, one score per prefix.
#' @examples
#' calcGseaStatCumulative(10:-10, c(3, 1, 12), gseaParam = 1)
#' @export
calcGseaStatCumulative <- function(stats, selectedStats, gseaParam,
                                   scoreType = c("std", "pos", "neg")) {
  scoreType <- match.arg(scoreType)
  vapply(seq_along(selectedStats), function(i)
    calcGseaStat(stats, selectedStats[seq_len(i)], gseaParam, scoreType = scoreType), 0)
}

# fgsea's internal fgseaMultilevelCpp (fgsea's own tests call it as fgsea:::fgseaMultilevelCpp):
# the multilevel p-value of each enrichment score among random sets of pathwaySize genes of
# ranks (taken in the order given, weights |ranks|), before fgsea divides by denomProb, and
# whether each estimate is reliable (cppIsCpGeHalf). Not exported, as in fgsea.
fgseaMultilevelCpp <- function(enrichmentScores, ranks, pathwaySize, sampleSize, seed, eps,
                               sign) {
  if (!is.numeric(enrichmentScores) || !length(enrichmentScores))
    stop("enrichmentScores must be a numeric vector", call. = FALSE)
  if (!is.numeric(ranks)) stop("ranks must be a numeric vector", call. = FALSE)
  if (!is.logical(sign) || length(sign) != 1 || is.na(sign))
    stop("sign must be TRUE or FALSE", call. = FALSE)
  call_adapter("fgseaMultilevelCpp",
               list(enrichmentScores = to_py_array(as.double(enrichmentScores),
                                                   "enrichmentScores"),
                    ranks = to_py_array(as.double(ranks), "ranks"),
                    pathwaySize = py_int(pathwaySize, "pathwaySize", minimum = 1),
                    sampleSize = py_int(sampleSize, "sampleSize", minimum = 3),
                    seed = py_int(seed, "seed", minimum = 0), eps = as.double(eps),
                    sign = sign))
}

#' Expected error of log2 of a multilevel p-value, as fgsea's multilevelError
#'
#' The standard deviation fgsea expects for \code{log2(pval)} from multilevel splitting with \code{sampleSize} random sets per level.
#' @param pval p-value(s).
#' @param sampleSize sampleSize of \code{fgseaMultilevel}.
#' @return The expected error(s).
#' @examples
#' multilevelError(pval = 1e-10, sampleSize = 1001)
#' @export
multilevelError <- function(pval, sampleSize) {
  levels <- floor(-log2(pval) + 1)
  sqrt(levels * (trigamma((sampleSize + 1) / 2) - trigamma(sampleSize + 1))) / log(2)
}

#' Read a GMT file as a list of pathways, as fgsea's gmtPathways
#'
#' One gene set per line: name, description, genes (tab-separated); empty fields dropped.
#' @param gmt.file path of the file.
#' @return A named list of character vectors.
#' @examples
#' f <- tempfile(fileext = ".gmt")
#' writeLines(c("a\tdesc\tG1\tG2", "b\tdesc\tG3"), f)
#' gmtPathways(f)
#' @export
gmtPathways <- function(gmt.file) {
  lines <- strsplit(readLines(gmt.file), "\t", fixed = TRUE)
  genes <- lapply(lines, function(l) {
    g <- l[-(1:2)]
    g[!is.na(g) & nzchar(g)]
  })
  stats::setNames(genes, vapply(lines, `[`, "", 1))
}

#' Write pathways to a GMT file, as fgsea's writeGmtPathways
#'
#' One line per pathway: its name, an empty description, its genes.
#' @param pathways named list of character vectors.
#' @param gmt.file path of the file written.
#' @return \code{gmt.file}, invisibly.
#' @examples
#' f <- tempfile(fileext = ".gmt")
#' writeGmtPathways(list(a = c("G1", "G2")), f)
#' gmtPathways(f)
#' @export
writeGmtPathways <- function(pathways, gmt.file) {
  lines <- vapply(seq_along(pathways), function(i)
    paste(c(names(pathways)[i], "", pathways[[i]]), collapse = "\t"), "")
  writeLines(lines, gmt.file)
  invisible(gmt.file)
}

#' Over-representation analysis, as fgsea's fora
#'
#' For each pathway, the one-sided hypergeometric test of its overlap with \code{genes} within \code{universe} (P(X >= overlap), R's \code{phyper(overlap - 1, ...)}), BH-adjusted; fgsea's table, ordered by p-value. The overlaps are counted on the OpenCL device (\code{oclstat.ora}).
#' @param pathways list of gene sets.
#' @param genes the genes of interest (those outside \code{universe} are dropped, with fgsea's warning).
#' @param universe all genes that could have been chosen.
#' @param minSize smallest pathway size kept (genes of \code{universe}).
#' @param maxSize largest pathway size kept.
#' @return A table: pathway, pval, padj, foldEnrichment, overlap, size, overlapGenes (a list), ordered by pval.
#' @examples
#' if (oclstat_available())
#'   fora(list(a = c("1", "2", "10")), genes = paste(1:5), universe = paste(1:10))
#' @export
fora <- function(pathways, genes, universe, minSize = 1, maxSize = length(universe) - 1) {
  check_gene_ids(universe, "universe")
  if (!all(genes %in% universe)) {
    warning("Not all of the input genes belong to the universe, such genes were removed",
            call. = FALSE)
    genes <- intersect(genes, universe)
  }
  kept <- fgsea_pathways(pathways, universe, minSize, maxSize)
  if (!length(kept))
    return(as_fgsea_table(columns_to_frame(list(
      pathway = character(), pval = numeric(), padj = numeric(), foldEnrichment = numeric(),
      overlap = integer(), size = integer(), overlapGenes = list()))))
  # the overlaps and p-values on the device (oclstat.ora); pathways may share a name: unique
  # keys; overlapGenes in each pathway's own order, as fgsea lists them
  keys <- paste0("p", seq_along(kept))
  sets <- stats::setNames(lapply(kept, function(g) as.list(as.character(g))), keys)
  res <- call_adapter("fora", list(pathways = reticulate::dict(sets),
                                   genes = as.list(as.character(unique(genes))),
                                   universe = as.list(as.character(universe)),
                                   minSize = 1L, maxSize = py_int(length(universe) - 1,
                                                                  "maxSize")))
  at <- match(res$pathway, keys)
  res$pathway <- names(kept)[at]
  res$overlapGenes <- lapply(kept[at], function(p) {
    p <- universe[unique(stats::na.omit(match(p, universe)))]
    p[p %in% genes]
  })
  names(res$overlapGenes) <- NULL
  rownames(res) <- NULL
  as_fgsea_table(res)
}

#' Collapse over-represented pathways to the independent ones, as fgsea's collapsePathwaysORA
#'
#' Pathways are taken in the order of \code{foraRes}; each one not yet explained becomes a main pathway, and every unexplained pathway is tested (\code{fora}, one-sided hypergeometric) within the main pathway's genes and within the universe without them: one significant in neither is explained by it (its parent).
#' @param foraRes a \code{fora} table, ordered and filtered as wanted.
#' @param pathways list of gene sets holding every pathway of \code{foraRes}.
#' @param genes the genes of interest.
#' @param universe all genes.
#' @param pval.threshold a pathway whose two conditional p-values are above this is explained.
#' @return list(mainPathways, parentPathways), as fgsea.
#' @examples
#' u <- paste(1:100); g <- paste(1:20)
#' sets <- list(a = paste(1:15), b = paste(1:12), c = paste(60:80))
#' res <- fora(sets, g, u)
#' collapsePathwaysORA(res[order(res$pval), ], sets, g, u)
#' @export
collapsePathwaysORA <- function(foraRes, pathways, genes, universe, pval.threshold = 0.05) {
  ids <- as.character(foraRes$pathway)
  members <- lapply(pathways[ids], function(p) intersect(p, universe))
  genes <- intersect(genes, universe)
  parent <- stats::setNames(rep(NA_character_, length(ids)), ids)
  main <- character()
  explained <- stats::setNames(rep(FALSE, length(ids)), ids)
  for (p in ids) {
    if (explained[[p]]) next
    main <- c(main, p)
    explained[[p]] <- TRUE
    others <- ids[!explained]
    if (!length(others)) next
    inside <- members[[p]]
    outside <- setdiff(universe, inside)
    within <- fora(members[others], intersect(genes, inside), inside)
    without <- fora(members[others], intersect(genes, outside), outside)
    p_in <- stats::setNames(within$pval, within$pathway)[others]
    p_out <- stats::setNames(without$pval, without$pathway)[others]
    p_in[is.na(p_in)] <- 1
    p_out[is.na(p_out)] <- 1
    gone <- others[p_in > pval.threshold & p_out > pval.threshold]
    explained[gone] <- TRUE
    parent[gone] <- p
  }
  list(mainPathways = main, parentPathways = parent)
}

#' GSEA by permuting the samples' labels, as fgsea's fgseaLabel
#'
#' Genes ranked by their Pearson correlation with \code{labels} (numbers, one per column of \code{mat}); the null from \code{nperm} permutations of the labels, on the OpenCL device (oclstat's phenotype-permutation GSEA with the "pearson" metric). fgsea's table and statistics: NES = ES over the mean null ES of its sign, p = (nMoreExtreme + 1) / (null ES of its sign + 1). The seed comes from R's random number generator.
#' @param pathways list of gene sets (names of rows of \code{mat}).
#' @param mat a numeric matrix, genes (named rows) x samples.
#' @param labels numbers, one per sample (two classes as 1 and 2, or a continuous phenotype).
#' @param nperm number of label permutations.
#' @param minSize smallest pathway size kept.
#' @param maxSize largest pathway size kept.
#' @param nproc accepted, ignored.
#' @param gseaParam GSEA weight.
#' @param BPPARAM accepted, ignored.
#' @return fgsea's table: pathway, pval, padj, ES, NES, nMoreExtreme, size, leadingEdge, in the order of \code{pathways}.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   mat <- matrix(rnorm(500 * 12), 500, 12, dimnames = list(paste0("g", 1:500), NULL))
#'   mat[1:25, 7:12] <- mat[1:25, 7:12] + 1.5
#'   fgseaLabel(list(up = paste0("g", 1:25), other = paste0("g", 100:140)), mat,
#'              rep(1:2, each = 6), nperm = 200)
#' }
#' @export
fgseaLabel <- function(pathways, mat, labels, nperm, minSize = 1, maxSize = nrow(mat) - 1,
                       nproc = 0, gseaParam = 1, BPPARAM = NULL) {
  if (!is.matrix(mat) || !is.numeric(mat) || is.null(rownames(mat)))
    stop("mat must be a numeric matrix with gene names as row names", call. = FALSE)
  if (!is.numeric(labels) || length(labels) != ncol(mat) || anyNA(labels))
    stop("labels must be ", ncol(mat), " numbers, one per column of mat", call. = FALSE)
  kept <- fgsea_pathways(pathways, rownames(mat), minSize, maxSize)
  if (!length(kept)) return(fgsea_empty(TRUE))
  keys <- paste0("p", seq_along(kept))
  sets <- stats::setNames(lapply(kept, function(g) as.list(as.character(g))), keys)
  colnames(mat) <- NULL                   # the labels go with the columns by position
  res <- call_adapter("gsea", list(
    expr = to_py_array(mat, "mat"), labels = bridge_raw()$labelled(as.list(as.double(labels)),
                                                                  NULL),
    geneSets = reticulate::dict(sets), nperm = py_int(nperm, "nperm", minimum = 1),
    metric = "pearson", weight = as.double(gseaParam), minSize = 1L,
    maxSize = py_int(nrow(mat), "maxSize"), seed = r_seed(), permutation = "phenotype",
    classes = NULL))
  res <- res[match(keys, res$pathway), ]
  res$pathway <- names(kept)
  res$padj <- stats::p.adjust(res$pval, "BH")
  rownames(res) <- NULL
  as_fgsea_table(res[c("pathway", "pval", "padj", "ES", "NES", "nMoreExtreme", "size",
                       "leadingEdge")])
}
