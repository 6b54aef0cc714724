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
