test_that("permTest equals Python's permutation_test", {
  skip_without_python()
  set.seed(2)
  x <- matrix(rnorm(5 * 8), 5); y <- matrix(rnorm(5 * 11) + 0.5, 5)
  rownames(x) <- paste0("f", 1:5)
  r <- permTest(x, y, nWindows = 32, alternative = "less")
  ref <- py()$permutation_test(oclstat:::to_py_array(x), oclstat:::to_py_array(y),
                               n_windows = 32L, alternative = "less")
  expect_identical(r$p.value, py_array(ref$pvalue))
  expect_identical(r$feature, paste0("f", 1:5))
  expect_equal(r$q.value, p.adjust(r$p.value, "BH"))
})

test_that("permTest on two vectors is an htest with the exact p-value", {
  skip_without_python()
  r <- permTest(c(3, 5, 6, 9), c(1, 2, 2, 4, 3), alternative = "greater")
  expect_s3_class(r, "htest")
  expect_equal(r$p.value, 3 / 126, tolerance = 1e-12)   # 3 of the C(9, 4) relabelings
  expect_equal(unname(r$statistic), 23)
})

test_that("permTest's two-sided p-value is coin's by default, and groups= splits one matrix", {
  skip_without_python()
  x <- c(3, 5, 6, 9); y <- c(1, 2, 2, 4, 3)
  d <- permTest(x, y)
  ref <- py()$permutation_test(oclstat:::to_py_array(x), oclstat:::to_py_array(y),
                               two_sided = "distance")
  expect_identical(d$p.value, ref$pvalue)
  expect_equal(permTest(x, y, twoSided = "double")$p.value, 2 * 3 / 126, tolerance = 1e-12)
  expect_equal(unname(d$estimate), c(mean(x), mean(y)))
  if (requireNamespace("coin", quietly = TRUE)) {
    g <- factor(rep(c("x", "y"), c(4, 5)))
    t <- coin::oneway_test(c(x, y) ~ g, distribution = coin::exact())
    expect_equal(d$p.value, as.numeric(coin::pvalue(t)), tolerance = 1e-9)
  }
  m <- rbind(a = c(x, y), b = c(y, x))
  g <- factor(c(rep("x", 4), rep("y", 5)), levels = c("x", "y"))
  r <- permTest(m, groups = g)
  expect_equal(r$p.value[1], d$p.value)
  expect_identical(r$feature, c("a", "b"))
  expect_equal(r$meanDiff, r$meanX - r$meanY)
  expect_error(permTest(m, y, groups = g), "not both")
})
