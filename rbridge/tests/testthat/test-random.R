test_that("streams made in R equal the streams made in Python", {
  skip_without_python()
  seed <- c(1L, 2L, 3L, 4L, 5L, 6L)
  s <- createStreams(7, seed = seed)
  expect_true(is.integer(s))
  expect_equal(dim(s), c(7L, 12L))
  ref <- py_array(py()$random$create_streams(7L, seed = as.list(seed))$to_matrix(substream = FALSE))
  expect_identical(unname(s), ref)
  expect_identical(unname(createStreams(2)[1, 1:6]), rep(12345L, 6))   # clRNG's default seed
})

test_that("draws equal Python's for the same streams and the streams advance", {
  skip_without_python()
  s <- createStreams(4, seed = 11)
  for (fun in c("uniform", "normal", "exponential")) {
    r_fun <- switch(fun, uniform = runifGpu, normal = rnormGpu, exponential = rexpGpu)
    x <- r_fun(c(3, 5), streams = s)
    st <- py()$random$create_streams(4L, seed = 11L)
    ref <- py_array(py()$random[[fun]](reticulate::tuple(3L, 5L), streams = st))
    expect_equal(dim(x), c(3L, 5L))
    expect_identical(as.vector(x), as.vector(ref))
    expect_identical(unname(attr(x, "streams")),
                     py_array(st$to_matrix(substream = FALSE)))
  }
  u1 <- runifGpu(10, s)
  u2 <- runifGpu(10, attr(u1, "streams"))
  expect_false(any(as.vector(u1) == as.vector(u2)))
  expect_identical(as.vector(runifGpu(6, seed = 3)),
                   py_array(py()$random$uniform(6L, seed = 3L)))
  x <- runifGpu(1e5, seed = 5)
  counts <- tabulate(pmin(20L, floor(as.vector(x) * 20) + 1L), 20)
  expect_gt(chisq.test(counts)$p.value, 0.001)
})
