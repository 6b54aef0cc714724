test_that("epistasis equals Python's search and finds a planted pair", {
  skip_without_python()
  set.seed(5)
  g <- matrix(sample(0:2, 12 * 500, replace = TRUE), 12,
              dimnames = list(paste0("rs", 1:12), NULL))
  y <- rbinom(500, 1, 0.5)
  y[(g[4, ] + g[9, ]) %% 2 == 1] <- 1
  g[2, 7] <- NA
  r <- epistasis(g, y, order = 2, top = 5)
  expect_identical(c(r$snp1[1], r$snp2[1]), c(4L, 9L))
  expect_identical(r$name1[1], "rs4")
  g0 <- g; g0[is.na(g0)] <- -1
  ref <- py()$epistasis(oclstat:::to_py_array(g0, integer = TRUE),
                        oclstat:::to_py_array(y, integer = TRUE), order = 2L, top = 5L)
  cols <- oclstat:::bridge()$table_columns(ref)
  expect_identical(r$k2, as.numeric(unlist(cols$k2)))
  expect_error(epistasis(g, y[-1], order = 2), "phenotype has 499 values")
  expect_error(epistasis(matrix("a", 2, 2), c(0, 1)), "numeric matrix")
  expect_error(epistasis(g, y, order = 2, backend = "tensor"), "should be one of")
  # with a missing genotype the tensor-core path refuses, whatever the machine has
  expect_error(epistasis(g, y, order = 2, backend = "cuda"), 'backend = "cuda" cannot run')
  r2 <- epistasis(g, y, order = 2, top = 5, backend = "opencl")
  expect_identical(r2, r)
})

test_that("PLINK's pair tests from R equal Python's, with the summary", {
  skip_without_python()
  set.seed(5)
  g <- matrix(sample(0:2, 12 * 300, TRUE), 12, dimnames = list(paste0("rs", 1:12), NULL))
  y <- rbinom(300, 1, 0.4)
  r <- epistasis(g, y, test = "fast", epi1 = 0.2)
  ref <- py()$epistasis(oclstat:::to_py_array(g, "g", integer = TRUE),
                        oclstat:::to_py_array(y, "y", integer = TRUE), test = "fast",
                        epi1 = 0.2)
  cols <- oclstat:::bridge()$table_columns(ref$table)
  expect_identical(r$STAT, unlist(cols$STAT))
  expect_identical(r$SNP1, unlist(cols$SNP1))     # the row names travel with the matrix
  s <- attr(r, "summary")
  expect_identical(s$N_TOT, rep(11, 12))
  expect_equal(sum(s$N_SIG), 2 * sum(r$P < 0.01))
  expect_error(epistasis(g, y, test = "boost"), "should be one of")
})
