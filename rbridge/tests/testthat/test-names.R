# R's names travel with the data and are honoured as pandas labels are in Python: rows paired
# by row names, named label vectors matched to column names, never taken by position.

test_that("permTest pairs the rows of x and y by their row names", {
  skip_without_python()
  set.seed(4)
  x <- matrix(rnorm(5 * 6), 5, dimnames = list(paste0("f", 1:5), NULL))
  y <- matrix(rnorm(5 * 7) + 1, 5, dimnames = list(paste0("f", 1:5), NULL))
  r <- permTest(x, y, nWindows = 64)
  shuffled <- y[c(3, 5, 1, 4, 2), ]
  r2 <- permTest(x, shuffled, nWindows = 64)
  expect_identical(r2$feature, paste0("f", 1:5))
  expect_identical(r2$p.value, r$p.value)
  other <- shuffled
  rownames(other)[1] <- "g9"
  expect_error(permTest(x, other, nWindows = 64), "name different features")
})

test_that("named groups, labels and phenotypes are matched to the columns by name", {
  skip_without_python()
  set.seed(5)
  x <- matrix(rnorm(4 * 8), 4, dimnames = list(paste0("f", 1:4), paste0("s", 1:8)))
  x[, 1:4] <- x[, 1:4] + 2
  groups <- setNames(rep(c("a", "b"), each = 4), paste0("s", 1:8))
  r <- permTest(x, groups = groups, nWindows = 32)
  r2 <- permTest(x, groups = rev(groups), nWindows = 32)
  expect_identical(r2$p.value, r$p.value)
  expect_error(permTest(x, groups = setNames(groups, paste0("t", 1:8)), nWindows = 32),
               "no label for 8 sample")

  expr <- matrix(rnorm(200 * 8), 200, dimnames = list(paste0("G", 1:200), paste0("s", 1:8)))
  expr[1:20, 1:4] <- expr[1:20, 1:4] + 1.5
  labels <- setNames(rep(c("A", "B"), each = 4), paste0("s", 1:8))
  sets <- list(up = paste0("G", 1:20), other = paste0("G", 50:90))
  g1 <- gsea(expr, labels, sets, nperm = 100, minSize = 10, seed = 2)
  perm <- c(8, 1, 7, 2, 6, 3, 5, 4)
  g2 <- gsea(expr[, perm], labels, sets, nperm = 100, minSize = 10, seed = 2)
  # the same classes whatever the column order (the metric's sums run in another order)
  expect_equal(g2$ES[match(g1$pathway, g2$pathway)], g1$ES, tolerance = 1e-12)
  expect_gt(g1$ES[g1$pathway == "up"], 0.5)
  expect_error(gsea(expr, setNames(labels, paste0("u", 1:8)), sets, nperm = 10, minSize = 10),
               "labels and the expr's samples .columns. disagree")

  geno <- matrix(sample(0:2, 10 * 300, TRUE), 10,
                 dimnames = list(paste0("rs", 1:10), paste0("s", 1:300)))
  y <- setNames(as.integer((geno[3, ] + geno[7, ]) %% 2 == 1), colnames(geno))
  e1 <- epistasis(geno, y, order = 2, top = 3)
  e2 <- epistasis(geno, rev(y), order = 2, top = 3)
  expect_identical(e2, e1)
  expect_identical(c(e1$name1[1], e1$name2[1]), c("rs3", "rs7"))
})

test_that("Python's warnings arrive as R warnings without Python file paths", {
  skip_without_python()
  xy <- cbind(x = rep(c(0, 0.5, 1), each = 6), y = rep(c(0, 1), 9))
  z <- rep(c(1, 2, 3), each = 6) + rep(c(0, 0.2), 9)
  w <- NULL
  withCallingHandlers(
    likfitLgmGpu(xy, z, profiles = FALSE, profile2d = FALSE),
    warning = function(cond) {
      w <<- c(w, conditionMessage(cond))
      invokeRestart("muffleWarning")
    })
  expect_true(length(w) >= 1)
  expect_match(w[1], "^likfitLgmGpu: nugget is at the lower bound")
  expect_false(any(grepl("\\.py", w)))
})

test_that("arrays cross in memory: large draws are not written to files", {
  skip_without_python()
  before <- list.files(tempdir())
  x <- rnormGpu(2e6, seed = 1)
  expect_identical(length(x), 2000000L)
  expect_identical(list.files(tempdir()), before)
  m <- matrix(as.double(1:6), 2, dimnames = list(c("a", "b"), c("u", "v", "w")))
  back <- oclstat:::from_py_array(oclstat:::to_py_array(m)$to_numpy())
  expect_identical(back, unname(m))
})
