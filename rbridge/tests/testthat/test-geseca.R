# fgsea's GESECA names (rbridge/R/geseca.R) against the Python function they call (the same
# seed gives the same table), R's own arithmetic (pctVar) and fgsea's refusals and warnings.
# fgsea's own GESECA tests and examples run unchanged through tools/peer_suites.R.

geseca_toy <- function() {
  set.seed(5)
  E <- matrix(rnorm(4000), 400, dimnames = list(paste0("g", 1:400), paste0("s", 1:10)))
  E[1:25, ] <- E[1:25, ] + rep(0.8 * sin(1:10), each = 25)
  list(E = E, sets = list(module = paste0("g", 1:25), other = paste0("g", 100:160),
                          small = paste0("g", c(3, 200, 300))))
}

test_that("geseca's table equals the Python call with R's seed", {
  skip_without_python()
  d <- geseca_toy()
  set.seed(3)
  res <- geseca(d$sets, d$E, eps = 0)
  set.seed(3)
  seed <- sample.int(.Machine$integer.max, 1)
  frame <- oclstat:::to_py_array(d$E, "E")
  py_res <- py()$geseca(frame, d$sets, eps = 0, seed = seed)$to_frame()
  ours <- as.data.frame(res)
  py_pval <- stats::setNames(py_array(py_res[["pval"]]), unlist(py_res[["pathway"]]$tolist()))
  expect_equal(ours$pval, unname(py_pval[ours$pathway]), tolerance = 1e-15)
  expect_equal(names(ours), c("pathway", "pctVar", "pval", "padj", "log2err", "size"))
  expect_true(ours$pval[ours$pathway == "module"] < 1e-6)
  set.seed(3)
  expect_identical(as.data.frame(geseca(d$sets, d$E, eps = 0)), ours)   # set.seed() repeats
})

test_that("pctVar is fgsea's definition, computed in R", {
  skip_without_python()
  d <- geseca_toy()
  Ec <- t(scale(t(d$E), center = TRUE, scale = FALSE))
  want <- vapply(d$sets, function(p) sum(colSums(Ec[p, , drop = FALSE])^2) / length(p) /
                   sum(Ec^2) * 100, 0)
  res <- as.data.frame(gesecaSimple(d$sets, d$E, nperm = 200))
  expect_equal(res$pctVar, unname(want[res$pathway]), tolerance = 1e-12)
  expect_equal(names(res), c("pathway", "pctVar", "pval", "padj", "nMoreExtreme", "size"))
  expect_equal(res$pval, (res$nMoreExtreme + 1) / 201)
  Es <- t(scale(t(d$E)))
  want <- sum(colSums(Es[d$sets$module, ])^2) / 25 / sum(Es^2) * 100
  res <- as.data.frame(gesecaSimple(d$sets["module"], d$E, scale = TRUE, nperm = 50))
  expect_equal(res$pctVar, want, tolerance = 1e-12)
})

test_that("geseca refuses and warns as fgsea does", {
  skip_without_python()
  d <- geseca_toy()
  E <- d$E
  rownames(E)[1] <- rownames(E)[2]
  expect_error(geseca(d$sets, E), "Duplicate rownames")
  E <- d$E
  rownames(E)[1] <- NA
  expect_error(geseca(d$sets, E), "NAs in rownames")
  expect_error(geseca(d$sets, unname(d$E)), "rows should be named")
  E <- d$E
  E[2, 2] <- Inf
  expect_error(geseca(d$sets, E), "finite")
  E <- d$E
  E[4, ] <- 1
  expect_error(geseca(d$sets, E, scale = TRUE), "Cannot rescale")
  expect_error(geseca("a", d$E), "pathways should be a list")
  expect_warning(geseca(d$sets, d$E, sampleSize = 1), "sampleSize = 3")
  expect_warning(geseca(d$sets, d$E, eps = 1e-4), "less than 1e-04")
  expect_equal(nrow(geseca(d$sets, d$E, minSize = 50, maxSize = 10)), 0)
})

test_that("the GESECA plots are ggplots of the centred profiles", {
  skip_if_not_installed("ggplot2")
  d <- geseca_toy()
  p <- plotCoregulationProfile(d$sets$module, d$E)
  expect_s3_class(p, "ggplot")
  built <- ggplot2::ggplot_build(p)
  Ec <- t(scale(t(d$E), scale = FALSE))
  expect_equal(built$data[[3]]$y, unname(colMeans(Ec[d$sets$module, ])))
  res <- data.frame(pathway = c("module", "other"), pctVar = c(5, 1), pval = c(1e-5, 0.3),
                    padj = c(2e-5, 0.3))
  expect_s3_class(plotGesecaTable(res, d$sets, d$E), "ggplot")
})
