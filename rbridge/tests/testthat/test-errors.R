test_that("bad R input gives an R error with a clear message", {
  skip_without_python()
  expect_error(fisher.sim(data.frame(a = c("x", "y"), b = 1:2)), "numeric matrix of counts")
  expect_error(fisher.sim(matrix(c(1, NA, 2, 3), 2)), "must not contain NA")
  expect_error(fisher.sim(matrix(c(1, -1, 2, 3), 2)), "non-negative integer counts")
  expect_error(fisher.sim(1:4), "must be a matrix")
  expect_error(permTest(matrix(1:6, 2), matrix(1:9, 3)), "same rows")
  expect_error(permTest(c(1, NA), c(2, 3)), "must not contain NA")
  expr <- matrix(rnorm(20), 5, dimnames = list(letters[1:5], NULL))
  expect_error(gsea(expr, c("a", "b", "a"), list(s = letters[1:3])), "labels has 3 values")
  expect_error(gsea(data.frame(g = letters[1:5], v = 1:5), c("a"), list(s = "a")),
               "expr must be numeric; column\\(s\\) g")
  expect_error(gsea(expr, c("a", "b", "a", "b"), list(letters[1:3])), "named list")
  expect_error(createStreams(-2), "n must be >= 1")
  expect_error(maternBatch(cbind(1:3, 1:3), c(1, 1, 1, 0, 1)), "6 columns")
  expect_error(maternBatch(cbind(c(0, NA), 1:2), c(1, 1, 1, 0, 1, 0)), "must not contain NA")
  expect_error(maternBatch(cbind(1:3, 1:3), c(-1, 1, 1, 0, 1, 0)), "range must be > 0")
  bad <- diag(3); bad[3, 3] <- -1
  expect_error(cholBatch(bad), "A\\[1\\] is not positive definite: pivot number 3")
  expect_error(cholBatch(array(0, c(2, 3, 4))), "dim c\\(batch, n, n\\)")
  g <- matrix(0, 5, 10); g[3, 8] <- 3      # positions as R counts them
  expect_error(epistasis(g, rep(0:1, 5), order = 2), "genotypes\\[3, 8\\] \\(SNP, sample\\) is 3")
})

test_that("numbers at or above 2^31 cross as doubles, never as NA integers", {
  skip_without_python()
  expect_identical(oclstat:::py_int(5, "B"), 5L)
  expect_identical(oclstat:::py_int(3e9, "B"), 3e9)
  expect_error(oclstat:::py_int(NA, "B"), "B must be one whole number")
  expect_error(oclstat:::py_int(2.5, "B"), "B must be one whole number")
  a <- createStreams(2, seed = 2^31)
  b <- createStreams(2, seed = 2^31)
  expect_identical(a, b)
  expect_false(identical(a, createStreams(2, seed = 2^31 + 1)))
})

test_that("errors name the argument as the R caller wrote it", {
  skip_without_python()
  expect_error(permTest(c(1.5, 2), c(3, 4), nWindows = 1), "nWindows must be >= 2")
  expect_error(permTest(c(1.5, 2), c(3, 4), nWindows = 2^21), "^nWindows must be <= 1048576")
  expect_error(fisher.sim(matrix(c(3, 1, 1, 3), 2), B = 0), "B must be >= 1")
  expr <- matrix(rnorm(40), 10, dimnames = list(letters[1:10], NULL))
  expect_error(gsea(expr, c("a", "b", "a", "b"), list(s = letters[1:5]), nperm = 0, minSize = 2),
               "nperm must be >= 1")
})
