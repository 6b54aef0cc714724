test_that("the gpuRandom paper's workflow runs end to end", {
  skip_without_python()
  env <- new.env()
  sys.source(system.file("scripts", "gpuRandom_workflow.R", package = "oclstat"), envir = env)
  w <- env$workflow
  expect_equal(dim(w$u), c(1000L, 100L))
  expect_true(all(w$u > 0 & w$u < 1))
  expect_s3_class(w$month, "htest")
  expect_gt(w$month$p.value, 0.3)            # R: about 0.40
  expect_lt(w$weekday$p.value, 0.001)        # R: about 1.2e-4
  expect_equal(dim(w$fields), c(2L, 3L, 300L))
})
