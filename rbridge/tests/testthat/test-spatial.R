test_that("backsolveBatch, crossprodBatch and gemmBatch equal R's own algebra", {
  skip_without_python()
  set.seed(2)
  L <- matrix(rnorm(36), 6); L[upper.tri(L)] <- 0; diag(L) <- diag(L) + 4
  B <- matrix(rnorm(18), 6)
  expect_equal(backsolveBatch(L, B), forwardsolve(L, B), tolerance = 1e-12)
  expect_equal(backsolveBatch(L, B, trans = TRUE), backsolve(t(L), B), tolerance = 1e-12)
  expect_equal(backsolveBatch(t(L), B, lower = FALSE), backsolve(t(L), B), tolerance = 1e-12)
  w <- runif(6)
  expect_equal(crossprodBatch(B, L, D = w), t(B) %*% diag(w) %*% L, tolerance = 1e-12)
  expect_equal(gemmBatch(L, B, B, beta = 2), L %*% B + 2 * B, tolerance = 1e-12)
  expect_error(backsolveBatch(L, B[1:5, ]), "B has 5 rows")
})

test_that("getProfLogL equals a likelihood computed in R", {
  skip_without_python()
  set.seed(3)
  n <- 40
  xy <- cbind(runif(n), runif(n))
  X <- cbind(1, xy[, 1])
  y <- rnorm(n)
  out <- getProfLogL(xy, y, X, params = list(range = c(0.2, 0.6), shape = c(1, 2.5),
                                             nugget = c(0.1, 0.3)))
  d <- as.matrix(dist(xy))
  for (k in 1:2) {
    nu <- out$shape[k]
    x <- sqrt(8 * nu) * d / out$range[k]
    V <- ifelse(d > 0, 2^(1 - nu) / gamma(nu) * x^nu * besselK(x, nu), 1) +
      diag(out$nugget[k], n)
    Vi <- solve(V)
    beta <- solve(t(X) %*% Vi %*% X, t(X) %*% Vi %*% y)
    r <- y - X %*% beta
    s2 <- as.numeric(t(r) %*% Vi %*% r) / n
    ll <- -n / 2 * (log(2 * pi) + 1 + log(s2)) -
      as.numeric(determinant(V)$modulus) / 2
    expect_equal(out$loglik[k], ll, tolerance = 1e-9)
    expect_equal(out[k, "beta[x2]"], beta[2], tolerance = 1e-8)
  }
})

test_that("likfitLgmGpu gives the Python fit, in geostatsp's and fields' terms", {
  skip_without_python()
  xy <- as.matrix(expand.grid(seq(0, 1, length.out = 8), seq(0, 1, length.out = 8)))
  z <- simulateFields(xy, c(0.4, 1, 1, 0.6, 1, 0), 1, seed = 22)[1, 1, ]
  X <- cbind(1, sin(3 * xy[, 1]))
  y <- 2 + 0.7 * X[, 2] + z
  fit <- likfitLgmGpu(xy, y, X, param = c(shape = 1), profiles = FALSE, profile2d = FALSE)
  ref <- py()$fit_matern(oclstat:::to_py_array(xy), oclstat:::to_py_array(y),
                         oclstat:::to_py_array(X), profiles = FALSE, profile2d = FALSE)
  expect_equal(fit$optimal$logL, ref$loglik, tolerance = 1e-12)
  expect_equal(fit$parameters[["range"]], ref$params$range, tolerance = 1e-12)
  expect_true(all(c("range", "nugget", "sigma2", "tau2") %in% names(fit$parameters)))
  expect_equal(fit$parameters[["shape"]], 1)
  expect_equal(fit$fields$aRange, fit$parameters[["range"]] / sqrt(8), tolerance = 1e-12)
  expect_s3_class(fit$summary, "data.frame")
  expect_error(likfitLgmGpu(xy, y, param = c(1)), "named vector")
})

test_that("qqnormGpu and logfactSum equal R's qqnorm and lfactorial", {
  skip_without_python()
  y <- c(rnorm(50), 3, 3)
  q <- qqnormGpu(y)
  expect_equal(q$x, qqnorm(y, plot.it = FALSE)$x, tolerance = 1e-14)
  tab <- matrix(c(3, 10, 200, 7), 2)
  expect_equal(logfactSum(tab), sum(lfactorial(tab)), tolerance = 1e-13)
})
