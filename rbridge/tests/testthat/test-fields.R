params <- rbind(c(0.3, 1.5, 1, 0, 1, 0), c(0.2, 0.5, 2, 0.1, 2, 0.5), c(0.5, 2.5, 1, 0, 1, 0))

test_that("maternBatch, cholBatch and simulateFields equal Python's", {
  skip_without_python()
  set.seed(4)
  xy <- cbind(runif(40), runif(40))
  C <- maternBatch(xy, params, layout = "array")
  expect_equal(dim(C), c(3L, 40L, 40L))
  V <- maternBatch(xy, params)                       # gpuRandom's stacked layout
  expect_equal(dim(V), c(120L, 40L))
  for (k in 1:3) expect_identical(V[(k - 1) * 40 + 1:40, ], C[k, , ])
  ref <- py_array(py()$matern_cov(oclstat:::to_py_array(xy), oclstat:::to_py_array(params)))
  expect_identical(C, ref)
  expect_equal(C[2, 5, 5], 2.1)
  d <- sqrt(sum((xy[1, ] - xy[2, ])^2)); x <- sqrt(8 * 1.5) * d / 0.3
  expect_equal(C[1, 1, 2], (1 + x) * exp(-x), tolerance = 1e-13)     # nu = 3/2 closed form
  ch <- cholBatch(C)
  for (k in 1:3) {
    rec <- ch$L[k, , ] %*% diag(ch$D[k, ]) %*% t(ch$L[k, , ])
    expect_lt(max(abs(rec - C[k, , ])), 1e-12)
    expect_equal(ch$logdet[k], as.numeric(determinant(C[k, , ])$modulus), tolerance = 1e-10)
  }
  f <- simulateFields(xy, params, 4, seed = 9)
  expect_equal(dim(f), c(3L, 4L, 40L))
  ref <- py_array(py()$simulate_fields(oclstat:::to_py_array(xy), oclstat:::to_py_array(params),
                                       4L, seed = 9L))
  expect_identical(f, ref)
  z <- array(rnorm(3 * 2 * 40), c(3, 2, 40))
  m <- multiplyLowerDiagonalBatch(ch$L, ch$D, z)
  expect_equal(m[2, 1, ], as.vector(ch$L[2, , ] %*% (sqrt(ch$D[2, ]) * z[2, 1, ])),
               tolerance = 1e-12)
})
