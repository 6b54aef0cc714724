test_that("fisher.sim equals Python's fisher_sim and prints like fisher.test", {
  skip_without_python()
  x <- matrix(c(3L, 1L, 4L, 1L, 5L, 9L, 2L, 6L, 5L), 3)
  r <- fisher.sim(x, B = 20000, seed = 4)
  expect_s3_class(r, "htest")
  ref <- py()$fisher_sim(oclstat:::to_py_array(x), n_resamples = 20000L, seed = 4L)
  expect_identical(r$p.value, ref$pvalue)
  out <- capture.output(print(r))
  expect_true(any(grepl("Fisher's Exact Test for Count Data with simulated p-value", out)))
  exact <- fisher.test(x)$p.value
  expect_lt(abs(r$p.value - exact), 5 * sqrt(exact * (1 - exact) / 20000) + 1e-4)
})

test_that("fisher.sim on the month and weekday tables is close to R's own simulation", {
  skip_without_python()
  for (name in c("month", "weekday")) {
    tab <- py_array(py()$datasets$fisher_table(name))
    r <- fisher.sim(tab, B = 1e5, seed = 1)
    set.seed(1)
    base <- fisher.test(tab, simulate.p.value = TRUE, B = 1e5)$p.value
    expect_lt(abs(r$p.value - base), 6 * sqrt(max(base, 1e-4) / 1e5) + 2e-5)
  }
})
