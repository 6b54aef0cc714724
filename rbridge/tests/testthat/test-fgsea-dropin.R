# fgsea's names, arguments, tables, warnings and refusals (rbridge/R/fgsea.R). The references
# are fgsea's own published values and R itself (phyper, set.seed); fgsea's whole testthat
# suite runs unchanged through tools/peer_suites.R (tests/test_peer_suites.py).

# fgsea's example data from ../shared/data/fgsea (the repository's sibling; testthat runs in
# rbridge/tests/testthat) or $OCLSTAT_SHARED_DATA/fgsea
shared_ranks <- function() {
  dir <- file.path(Sys.getenv("OCLSTAT_SHARED_DATA", "../../../../shared/data"), "fgsea")
  if (!dir.exists(dir)) skip("../shared/data/fgsea is absent")
  gz <- gzfile(file.path(dir, "examplePathways.gmt.gz"))
  lines <- strsplit(readLines(gz), "\t")
  close(gz)
  gz <- gzfile(file.path(dir, "exampleRanks.rnk.gz"))
  rnk <- utils::read.delim(gz, header = FALSE, colClasses = c("character", "numeric"))
  list(pathways = stats::setNames(lapply(lines, function(l) l[-(1:2)]),
                                  vapply(lines, `[`, "", 1)),
       ranks = stats::setNames(rnk[[2]], rnk[[1]]))
}

toy <- function() {
  set.seed(11)
  stats <- stats::setNames(rnorm(600), paste0("G", 1:600))
  stats[1:30] <- stats[1:30] + 2
  list(stats = stats, sets = list(up = paste0("G", 1:30), mid = paste0("G", 200:260),
                                  low = paste0("G", 560:600)))
}

test_that("calcGseaStat gives fgsea's published scores and leading edges", {
  expect_equal(calcGseaStat(10:-10, 1:5), 1)
  expect_equal(calcGseaStat(10:-10, 16:21), -1)
  expect_equal(calcGseaStat(10:-10, (1:5) * 2), 0.71)
  expect_equal(calcGseaStat(10:-10, 10:12), 0)          # equal extremes: 0, fgsea's rule
  le <- calcGseaStat(10:-10, c(10, 1:5), returnLeadingEdge = TRUE)$leadingEdge
  expect_true(1 %in% le && !(10 %in% le))
  le <- calcGseaStat(10:-10, c(10, 16:21), returnLeadingEdge = TRUE)$leadingEdge
  expect_true(21 %in% le && !(10 %in% le))
  expect_error(calcGseaStat(1:3, 1:3), "all genes are selected")
  expect_error(calcGseaStat(1:3, c(1, 5)), "positions in stats")
  expect_error(calcGseaStat(1:3, c(1, 1)), "repeat")
  set.seed(42)
  s <- sort(rnorm(100), decreasing = TRUE)
  pick <- sample(100, 10)
  for (type in c("std", "pos", "neg"))
    expect_equal(calcGseaStatCumulative(s, pick, 1, type),
                 vapply(1:10, function(i) calcGseaStat(s, pick[1:i], scoreType = type), 0))
})

test_that("calcGseaStat equals the device's ES of the same set", {
  skip_without_python()
  d <- toy()
  res <- fgseaSimple(d$sets, d$stats, nperm = 200)
  ranked <- sort(d$stats, decreasing = TRUE)
  for (p in names(d$sets))
    expect_equal(res$ES[res$pathway == p],
                 calcGseaStat(ranked, match(d$sets[[p]], names(ranked))), tolerance = 1e-9)
})

test_that("set.seed() repeats fgsea, fgseaSimple, fisher.sim and the draws", {
  skip_without_python()
  d <- toy()
  set.seed(5); a <- fgseaMultilevel(d$sets, d$stats)
  set.seed(5); b <- fgseaMultilevel(d$sets, d$stats)
  set.seed(6); c <- fgseaMultilevel(d$sets, d$stats)
  expect_identical(a$pval, b$pval)
  expect_false(identical(a$pval, c$pval))
  set.seed(5); a <- fgseaSimple(d$sets, d$stats, nperm = 500)
  set.seed(5); b <- fgseaSimple(d$sets, d$stats, nperm = 500)
  expect_identical(a$nMoreExtreme, b$nMoreExtreme)
  set.seed(1); u1 <- runifGpu(5); set.seed(1); u2 <- runifGpu(5)
  expect_identical(u1, u2)
  x <- matrix(c(3, 1, 1, 3), 2)
  set.seed(2); f1 <- fisher.sim(x, 500); set.seed(2); f2 <- fisher.sim(x, 500)
  expect_identical(f1$counts, f2$counts)
})

test_that("fgsea's tables: columns, rows of one name, zero rows, nMoreExtreme", {
  skip_without_python()
  d <- toy()
  set.seed(1)
  m <- fgsea(d$sets, d$stats)
  expect_named(m, c("pathway", "pval", "padj", "log2err", "ES", "NES", "size", "leadingEdge"))
  expect_identical(m$pathway, sort(names(d$sets)))
  s <- fgseaSimple(d$sets, d$stats, nperm = 999)
  expect_named(s, c("pathway", "pval", "padj", "ES", "NES", "nMoreExtreme", "size",
                    "leadingEdge"))
  # fgsea's simple p: (nMoreExtreme + 1) / (random ES of the pathway's sign + 1) <= that
  expect_true(all(s$pval >= (s$nMoreExtreme + 1) / 1000 - 1e-12))
  twice <- fgseaSimple(c(d$sets["up"], d$sets["up"]), d$stats, nperm = 100)
  expect_identical(twice$pathway, c("up", "up"))
  none <- fgseaMultilevel(d$sets, d$stats, minSize = 50, maxSize = 10)
  expect_equal(nrow(none), 0)
  expect_identical(colnames(none), colnames(m))
  expect_equal(nrow(fgseaSimple(list(p = names(d$stats)), d$stats, nperm = 1, maxSize = Inf)), 0)
  dup <- fgseaSimple(list(a = d$sets$up, b = rep(d$sets$up, 2)), d$stats, nperm = 100)
  expect_equal(dup$size[1], dup$size[2])
})

test_that("fgsea's warnings and refusals", {
  skip_without_python()
  d <- toy()
  expect_warning(fgsea(d$sets, d$stats, nperm = 100), "You are trying to run fgseaSimple")
  expect_warning(fgseaMultilevel(d$sets, d$stats, sampleSize = 1), "sampleSize is too small")
  expect_warning(fgseaMultilevel(d$sets, d$stats, eps = 1e-3), "less than 0.001")
  ties <- d$stats
  ties[2] <- ties[3]
  expect_warning(fgseaSimple(d$sets, ties, nperm = 100), "ties in the preranked stats")
  zeros <- d$stats
  zeros[2:3] <- 0
  expect_silent(fgseaSimple(d$sets, zeros, nperm = 100))
  bad <- d$stats
  names(bad)[4] <- NA
  expect_error(fgseaSimple(d$sets, bad, nperm = 10), "NAs in names")
  names(bad)[4] <- ""
  expect_error(fgseaSimple(d$sets, bad, nperm = 10), "Empty strings")
  names(bad)[4] <- names(bad)[5]
  expect_error(fgseaMultilevel(d$sets, bad), "Duplicate values")
  expect_error(fgseaSimple(d$sets, unname(d$stats), nperm = 10), "should be named")
  inf <- d$stats
  inf[7] <- Inf
  expect_error(fgsea(d$sets, inf), "finite")
})

test_that("fgsea's example data: the ES and leading edges its tests pin", {
  skip_without_python()
  ex <- shared_ranks()
  set.seed(42)
  res <- fgseaMultilevel(ex$pathways, ex$ranks, sampleSize = 50, eps = 0, maxSize = 500)
  expect_equal(res[23, ]$ES, 0.5788464, tolerance = 1e-7)
  le <- res$leadingEdge[[grep("5991851", res$pathway)]]
  expect_true("70385" %in% le && !("68549" %in% le))
})

test_that("fora is the one-sided hypergeometric test (phyper), with fgsea's table", {
  skip_without_python()
  r <- fora(list(a = c("1", "2", "10"), b = paste(1:4), c = paste(6:8)), paste(1:5),
            paste(1:10))
  expect_equal(r$pval, sort(c(phyper(1, 3, 7, 5, lower.tail = FALSE),
                              phyper(3, 4, 6, 5, lower.tail = FALSE),
                              phyper(-1, 3, 7, 5, lower.tail = FALSE))))
  expect_named(r, c("pathway", "pval", "padj", "foldEnrichment", "overlap", "size",
                    "overlapGenes"))
  expect_equal(nrow(fora(list(p = c("11", "12")), paste(1:5), paste(1:10))), 0)
  expect_warning(fora(list(a = paste(1:3)), c("1", "99"), paste(1:10)), "universe")
  expect_error(fora(list(a = "1"), "1", c(paste(1:9), "1")), "Duplicate values in universe")
  expect_error(fora(list(a = "1"), "1", c(paste(1:9), NA)), "NAs in universe")
  # fgsea 1.39.4 itself, on this case (library(fgsea); the same four lines):
  # fora pvals 2.059093e-15 8.528553e-13 8.141609e-12 1 for b, a, d, c; collapsePathwaysORA:
  # mainPathways b, d; parentPathways c(b = NA, a = "b", d = NA, c = "b")
  u <- paste(1:200)
  sets <- list(a = paste(1:30), b = paste(1:25), c = paste(100:140),
               d = paste(c(1:8, 150:170)))
  genes <- paste(c(1:20, 150:160))
  res <- fora(sets, genes, u)
  expect_identical(res$pathway, c("b", "a", "d", "c"))
  expect_equal(res$pval, c(2.059093e-15, 8.528553e-13, 8.141609e-12, 1), tolerance = 1e-6)
  col <- collapsePathwaysORA(res[order(res$pval), ], sets, genes, u)
  expect_identical(col$mainPathways, c("b", "d"))
  expect_identical(col$parentPathways, c(b = NA, a = "b", d = NA, c = "b"))
})

test_that("gmtPathways and writeGmtPathways round-trip; multilevelError is fgsea's formula", {
  f <- tempfile(fileext = ".gmt")
  p <- list(a = c("G1", "G2"), b = "G3")
  writeGmtPathways(p, f)
  expect_identical(gmtPathways(f), p)
  expect_equal(multilevelError(1e-10, 1001),
               sqrt(floor(-log2(1e-10) + 1) * (trigamma(501) - trigamma(1002))) / log(2))
})

test_that("plotEnrichmentData's extremes are the ES; plotGseaTable returns a ggplot", {
  skip_without_python()
  skip_if_not_installed("ggplot2")
  d <- toy()
  pd <- plotEnrichmentData(d$sets$up, d$stats)
  fr <- fgseaSimple(d$sets["up"], d$stats, nperm = 10)
  expect_equal(pd$posES, fr$ES, tolerance = 1e-9)
  expect_error(plotEnrichment(d$sets$up, c(d$stats, bla = NA)), "finite")
  p <- plotGseaTable(d$sets, d$stats, fr)
  expect_true(inherits(p, "gg"))
  f <- tempfile(fileext = ".png")
  ggplot2::ggsave(f, plot = p, width = 6, height = 3)
  expect_true(file.exists(f))
})

test_that("fgseaLabel gives fgsea 1.31.6's ES and, within Monte Carlo error, its NES and p", {
  skip_without_python()
  # fgsea 1.31.6 itself on this input (the same lines with library(fgsea)):
  # ES 0.8305419 0.1909185 0.2775565, NES 2.1774296 0.9018249 1.4295514,
  # pval 0.0010152284 0.7248459959 0.0009920635 for up, a, b
  set.seed(7)
  mat <- matrix(stats::rnorm(1000 * 20), 1000, 20)
  labels <- rep(1:2, c(10, 10))
  rownames(mat) <- as.character(seq_len(nrow(mat)))
  mat[1:40, 11:20] <- mat[1:40, 11:20] + 1
  pathways <- list(up = as.character(1:40), a = sample(rownames(mat), 100),
                   b = sample(rownames(mat), 200))
  set.seed(3)
  r <- fgseaLabel(pathways, mat, labels, nperm = 2000, minSize = 15, maxSize = 500)
  expect_named(r, c("pathway", "pval", "padj", "ES", "NES", "nMoreExtreme", "size",
                    "leadingEdge"))
  expect_identical(r$pathway, c("up", "a", "b"))
  expect_equal(r$ES, c(0.8305419, 0.1909185, 0.2775565), tolerance = 1e-6)
  expect_equal(r$NES, c(2.1774296, 0.9018249, 1.4295514), tolerance = 0.03)
  expect_lt(abs(r$pval[2] - 0.7248460), 4 * sqrt(0.725 * 0.275 / 1000))
  expect_true(all(r$pval[c(1, 3)] < 0.005))
  # the ES is calcGseaStat's on the genes ranked by their correlation with the labels
  corr <- sort(stats::cor(t(mat), labels)[, 1], decreasing = TRUE)
  expect_equal(r$ES[1], calcGseaStat(corr, match(pathways$up, names(corr))), tolerance = 1e-9)
  set.seed(3)
  expect_identical(fgseaLabel(pathways, mat, labels, nperm = 2000, minSize = 15)$pval, r$pval)
  expect_equal(nrow(fgseaLabel(pathways, mat, labels, nperm = 10, minSize = 300)), 0)
  expect_error(fgseaLabel(pathways, unname(mat), labels, nperm = 10), "row names")
  expect_error(fgseaLabel(pathways, mat, labels[-1], nperm = 10), "20 numbers")
  expect_error(fgseaLabel(pathways, mat, labels, nperm = 0), "nperm must be >= 1")
})

test_that("fgseaMultilevelCpp (fgsea's internal) gives the exact p over every set of its size", {
  skip_if_not(oclstat_available())
  set.seed(3)
  ranks <- sort(rnorm(16) * 2, decreasing = TRUE)
  sets <- utils::combn(16, 4)
  w <- abs(ranks)
  ex <- apply(sets, 2, function(s) {
    tops <- calcGseaStat(ranks, s, returnAllExtremes = TRUE)
    c(top = max(tops$tops), bottom = min(tops$bottoms))
  })
  pos <- ex["top", ] > -ex["bottom", ]
  exact <- c(mean(ex["top", ] >= 0.7 & pos), mean(ex["top", ] >= 0.7),
             mean(-ex["bottom", ] >= 0.6 & !pos & ex["top", ] != -ex["bottom", ]))
  res <- oclstat:::fgseaMultilevelCpp(c(0.7, -0.6), ranks, 4, 1001, seed = 5, eps = 0,
                                      sign = FALSE)
  expect_named(res, c("cppMPval", "cppIsCpGeHalf"))
  expect_true(is.logical(res$cppIsCpGeHalf))
  bound <- 4 * multilevelError(exact[c(1, 3)], 1001) + 0.1
  expect_true(all(abs(log2(res$cppMPval / exact[c(1, 3)])) <= bound))
  either <- oclstat:::fgseaMultilevelCpp(0.7, ranks, 4, 1001, seed = 5, eps = 0, sign = TRUE)
  expect_true(abs(log2(either$cppMPval / exact[2])) <= bound[1])
  expect_error(oclstat:::fgseaMultilevelCpp(0.7, ranks, 16, 101, seed = 1, eps = 0,
                                            sign = FALSE), "pathwaySize")
  expect_error(oclstat:::fgseaMultilevelCpp(0.7, ranks, 4, 101, seed = 1, eps = 0,
                                            sign = NA), "sign")
})
