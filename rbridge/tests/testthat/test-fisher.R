test_that("fisher.sim equals Python's fisher_sim and prints like fisher.test", {
  skip_without_python()
  x <- matrix(c(3L, 1L, 4L, 1L, 5L, 9L, 2L, 6L, 5L), 3)
  r <- fisher.sim(x, B = 20000, seed = 4)
  expect_s3_class(r, "htest")
  expect_equal(r$simNum, 20096)                 # clrng: whole rounds of its 16 x 8 work items
  ref <- py()$fisher_sim(oclstat:::to_py_array(x), n_resamples = 20096L, seed = 4L)
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

test_that("fisherTest is fisher.test: exact r x c, 2 x 2 estimates, hybrid, simulation", {
  skip_without_python()
  Job <- matrix(c(1, 2, 1, 0, 3, 3, 6, 1, 10, 10, 14, 9, 6, 7, 12, 11), 4, 4,
                dimnames = list(income = c("< 15k", "15-25k", "25-40k", "> 40k"),
                                satisfaction = c("VeryD", "LittleD", "ModerateS", "VeryS")))
  r <- fisherTest(Job)
  expect_s3_class(r, "htest")
  expect_equal(r$p.value, fisher.test(Job)$p.value, tolerance = 1e-9)
  expect_identical(r$method, fisher.test(Job)$method)
  expect_identical(r$data.name, "Job")
  h <- fisherTest(Job, hybrid = TRUE)
  expect_match(h$method, "hybrid using asym.chisq. iff", fixed = TRUE)
  TeaTasting <- matrix(c(3, 1, 1, 3), nrow = 2)
  for (alt in c("two.sided", "less", "greater")) {
    a <- fisherTest(TeaTasting, alternative = alt)
    b <- fisher.test(TeaTasting, alternative = alt)
    expect_equal(a$p.value, b$p.value, tolerance = 1e-12)
    expect_equal(unname(a$estimate), unname(b$estimate), tolerance = 1e-4)  # R's uniroot
    expect_equal(as.vector(a$conf.int), as.vector(b$conf.int), tolerance = 1e-2)
    expect_identical(names(a$estimate), "odds ratio")
  }
  expect_null(fisherTest(TeaTasting, conf.int = FALSE)$conf.int)
  x <- factor(c("a", "b", "a", "b", "a", "a")); y <- factor(c("u", "u", "v", "v", "u", "v"))
  expect_equal(fisherTest(x, y)$p.value, fisher.test(x, y)$p.value, tolerance = 1e-12)
  s <- fisherTest(Job, simulate.p.value = TRUE, B = 5000, seed = 3)
  expect_identical(s$seed, 3L)
  expect_match(s$method, "simulated p-value")
  expect_equal(fisherTest(Job, simulate.p.value = TRUE, B = 5000, seed = 3)$p.value, s$p.value)
  expect_identical(fisherTest(matrix(c(0, 0, 3, 4), 2))$p.value, 1)
  expect_error(fisherTest(Job, conf.level = 2), "conf.level")
})
