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

# gpuRandom's pieces for one parameter set, in base R: V from besselK, dense solves.
gpurandom_pieces <- function(xy, Y, X, range, shape, nugget, jacobian, reml) {
  V <- matern_v(xy, range, shape, nugget)
  Vi <- solve(V)
  n <- nrow(X)
  p <- ncol(X)
  XVX <- t(X) %*% Vi %*% X
  XVY <- t(X) %*% Vi %*% Y
  ssqY <- colSums(Y * (Vi %*% Y))
  ssqBetahat <- colSums(XVY * solve(XVX, XVY))
  res <- ssqY - ssqBetahat
  detVar <- as.numeric(determinant(V)$modulus)
  detReml <- as.numeric(determinant(XVX)$modulus)
  m2 <- if (reml) {
    (n - p) * log(res / (n - p)) + detVar + detReml + jacobian + n * log(2 * pi) + n - p
  } else {
    n * log(res / n) + detVar + jacobian + n + n * log(2 * pi)
  }
  list(LogLik = -m2 / 2, detVar = detVar, detReml = detReml, ssqY = ssqY,
       ssqBetahat = ssqBetahat, XVYXVX = cbind(XVY, XVX))
}

test_that("getProfLogL takes gpuRandom's call and returns its pieces, as base R computes them", {
  skip_without_python()
  set.seed(4)
  n <- 35
  d <- data.frame(east = runif(n), north = runif(n), elev = rnorm(n))
  d$z <- exp(0.3 * d$elev + rnorm(n, sd = 0.4))
  d$elev[5] <- NA                            # a row gpuRandom leaves out
  grid <- expand.grid(range = c(0.15, 0.4), shape = c(1, 2), nugget = c(0.05, 0.5),
                      variance = 1)
  for (reml in c(FALSE, TRUE)) {
    out <- getProfLogL(d, z ~ elev, coordinates = as.matrix(d[, c("east", "north")]),
                       params = grid, boxcox = c(0.5, 0), type = "double",
                       NparamPerIter = 4, reml = reml, Nglobal = c(64, 8), Nlocal = c(8, 8),
                       NlocalCache = 500)
    keep <- !is.na(d$elev)
    y <- d$z[keep]
    X <- cbind(1, d$elev[keep])
    lam <- c(0, 0.5)                          # 1 computed first, dropped: not asked for
    Y <- cbind(log(y), (y^0.5 - 1) / 0.5)
    jac <- -2 * (lam - 1) * sum(log(y))
    expect_equal(out$boxcox, lam)
    expect_equal(out$jacobian, jac, tolerance = 1e-12)
    expect_equal(c(out$Nobs, out$Ncov, out$Ndata, out$Nparam), c(n - 1, 2, 2, nrow(grid)))
    expect_equal(colnames(out$LogLik), c("boxcox0", "boxcox0.5"))
    expect_equal(out$predictors, c("(Intercept)", "elev"))
    expect_identical(out$paramsRenew, grid)
    expect_length(out$Infindex, 0)
    for (i in seq_len(nrow(grid))) {
      ref <- gpurandom_pieces(as.matrix(d[keep, c("east", "north")]), Y, X, grid$range[i],
                              grid$shape[i], grid$nugget[i], jac, reml)
      expect_equal(unname(out$LogLik[i, ]), ref$LogLik, tolerance = 1e-9)
      expect_equal(out$detVar[i], ref$detVar, tolerance = 1e-10)
      expect_equal(out$detReml[i], ref$detReml, tolerance = 1e-9)
      expect_equal(out$ssqY[i, ], ref$ssqY, tolerance = 1e-9)
      expect_equal(out$ssqBetahat[i, ], ref$ssqBetahat, tolerance = 1e-9)
      expect_equal(out$ssqResidual[i, ], ref$ssqY - ref$ssqBetahat, tolerance = 1e-9)
      expect_equal(unname(out$XVYXVX[(2 * i - 1):(2 * i), ]), unname(ref$XVYXVX),
                   tolerance = 1e-9)
    }
  }
  # the power 1 kept when asked for: the response itself, first
  one <- getProfLogL(d, z ~ elev, c("east", "north"), grid, boxcox = c(0, 1),
                     gpuElementsOnly = TRUE)
  expect_null(one$LogLik)
  expect_equal(one$boxcox, c(1, 0))
  expect_equal(one$jacobian[1], 0)
  expect_error(getProfLogL(d, z ~ elev, c("east", "north"), as.list(grid)),
               "params must be a data.frame or matrix")
  d$z[2] <- -1
  expect_error(getProfLogL(d, z ~ elev, c("east", "north"), grid, boxcox = 0.5),
               "boxcox other than 1 needs a response > 0")
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

test_that("likfitLgmGpu takes gpuRandom's data/formula/params call and returns its fields", {
  skip_without_python()
  set.seed(9)
  n <- 60
  d <- data.frame(east = runif(n), north = runif(n), elev = rnorm(n))
  z <- simulateFields(as.matrix(d[, 1:2]), c(0.3, 1, 1, 0.3, 1, 0), 1, seed = 9)[1, 1, ]
  d$y <- 1 + 0.5 * d$elev + z
  d$y[3] <- NA                                  # dropped, as gpuRandom drops NA rows
  grid <- expand.grid(range = exp(seq(log(0.05), log(2), length.out = 25)),
                      nugget = c(0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2, 2), shape = 1,
                      variance = 1)
  fit <- likfitLgmGpu(d, y ~ elev, coordinates = as.matrix(d[, c("east", "north")]),
                      params = grid, paramToEstimate = c("range", "nugget"), cilevel = 0.9,
                      type = "double", reml = FALSE, NparamPerIter = 50, df = 1,
                      Nglobal = c(64, 8), Nlocal = c(8, 8), NlocalCache = 1000)
  expect_equal(fit$estimates["nugget", "lower90ci"], 0)   # the nugget's own bound
  # a grid that stops short of the interval says so
  expect_warning(likfitLgmGpu(d, y ~ elev, coordinates = c("east", "north"),
                              params = grid[grid$range > 0.2, ]),
                 "range: the interval's lower end is below the grid")
  expect_true(all(c("LogLik", "minusTwoLogLik", "estimates", "Nobs", "Ncov", "Ndata", "Nparam",
                    "breaks") %in% names(fit)))
  expect_equal(dim(fit$LogLik), c(nrow(grid), 1))
  expect_equal(c(fit$Nobs, fit$Ncov, fit$Nparam), c(n - 1, 2, nrow(grid)))
  expect_identical(rownames(fit$estimates),
                   c("intercept", "betahat1", "sdSpatial", "range", "nugget", "boxcox"))
  expect_identical(colnames(fit$estimates), c("estimate", "lower90ci", "upper90ci"))
  # the log-likelihood of a few sets, computed here in R (Matérn with besselK, GLS)
  keep <- !is.na(d$y)
  X <- cbind(1, d$elev[keep])
  y <- d$y[keep]
  dd <- as.matrix(dist(d[keep, 1:2]))
  loglik <- function(range, nugget, shape = 1) {
    x <- sqrt(8 * shape) * dd / range
    V <- ifelse(dd > 0, 2^(1 - shape) / gamma(shape) * x^shape * besselK(x, shape), 1) +
      diag(nugget, nrow(dd))
    Vi <- solve(V)
    beta <- solve(t(X) %*% Vi %*% X, t(X) %*% Vi %*% y)
    r <- y - X %*% beta
    s2 <- as.numeric(t(r) %*% Vi %*% r) / length(y)
    list(ll = -length(y) / 2 * (log(2 * pi) + 1 + log(s2)) -
           as.numeric(determinant(V)$modulus) / 2, beta = beta, s2 = s2)
  }
  for (i in c(1, 77, 150, nrow(grid)))
    expect_equal(unname(fit$LogLik[i, 1]), loglik(grid$range[i], grid$nugget[i])$ll,
                 tolerance = 1e-9)
  best <- which.max(fit$LogLik[, 1])
  ref <- loglik(grid$range[best], grid$nugget[best])
  expect_equal(unname(fit$estimates[c("intercept", "betahat1"), 1]), as.vector(ref$beta),
               tolerance = 1e-8)
  expect_equal(fit$estimates["sdSpatial", 1], sqrt(ref$s2), tolerance = 1e-8)
  # the range profile: its maximum and where it crosses max - qchisq(0.9, 1) / 2
  prof <- tapply(fit$LogLik[, 1], grid$range, max)
  est <- fit$estimates["range", ]
  expect_equal(fit$breaks, max(fit$LogLik) - qchisq(0.9, 1) / 2)
  expect_lt(est[["lower90ci"]], est[["estimate"]])
  expect_gt(est[["upper90ci"]], est[["estimate"]])
  f <- approxfun(as.numeric(names(prof)), prof - fit$breaks)
  expect_equal(f(est[["lower90ci"]]), 0, tolerance = 1e-6)
  expect_equal(f(est[["upper90ci"]]), 0, tolerance = 1e-6)
  # the grid's estimate lies near the Newton fit's (same formula, no grid)
  newton <- likfitLgmGpu(d, y ~ elev, coordinates = c("east", "north"),
                         param = c(shape = 1), profiles = FALSE, profile2d = FALSE)
  expect_lt(abs(log(est[["estimate"]] / newton$parameters[["range"]])), 0.15)
  expect_gte(newton$optimal$logL, max(fit$LogLik) - 1e-6)
  expect_error(likfitLgmGpu(d, y ~ nope, coordinates = c("east", "north")), "no column nope")
  expect_error(likfitLgmGpu(d, y ~ elev), "coordinates")
  expect_error(likfitLgmGpu(d, y ~ elev, coordinates = c("east", "up")), "name two columns")
  expect_error(likfitLgmGpu(d, y ~ elev, coordinates = c("east", "north"),
                            params = data.frame(1:3)), "column names|range")
})

test_that("qqnormGpu and logfactSum equal R's qqnorm and lfactorial", {
  skip_without_python()
  y <- c(rnorm(50), 3, 3)
  q <- qqnormGpu(y)
  expect_equal(q$x, qqnorm(y, plot.it = FALSE)$x, tolerance = 1e-14)
  tab <- matrix(c(3, 10, 200, 7), 2)
  expect_equal(logfactSum(tab), sum(lfactorial(tab)), tolerance = 1e-13)
})

test_that("Prof1dBetas and profVariance profile getProfLogL's pieces as refits in base R do", {
  skip_without_python()
  set.seed(6)
  n <- 40
  d <- data.frame(east = runif(n), north = runif(n), x = rnorm(n))
  d$z <- exp(0.2 + 0.4 * d$x + rnorm(n, sd = 0.3))
  grid <- expand.grid(range = c(0.1, 0.3), shape = 1.5, nugget = c(0.2, 1))
  p <- getProfLogL(d, z ~ x, c("east", "north"), grid, boxcox = c(1, 0))
  xy <- as.matrix(d[, c("east", "north")])
  X <- cbind(1, d$x)
  Y <- cbind(d$z, log(d$z))
  # the profile of beta_2 = b: every set and power refitted with x's coefficient fixed
  refit <- function(b) {
    best <- -Inf
    for (i in seq_len(nrow(grid))) {
      V <- matern_v(xy, grid$range[i], 1.5, grid$nugget[i])
      Vi <- solve(V)
      for (j in 1:2) {
        r0 <- Y[, j] - b * X[, 2]
        b1 <- sum(Vi %*% r0) / sum(Vi)
        r <- r0 - b1
        ssq <- as.numeric(t(r) %*% Vi %*% r)
        ll <- -0.5 * (n * log(ssq / n) + as.numeric(determinant(V)$modulus) +
                        p$jacobian[j] + n + n * log(2 * pi))
        best <- max(best, ll)
      }
    }
    best
  }
  betas <- cbind(seq(-1, 3, length.out = 9), seq(-0.2, 1, length.out = 9))
  pdf(NULL)
  prof <- Prof1dBetas(betas, cilevel = 0.9, Nobs = p$Nobs, Ndata = p$Ndata, Nparam = p$Nparam,
                      Ncov = p$Ncov, detVar = p$detVar, detReml = p$detReml, ssqY = p$ssqY,
                      XVYXVX = p$XVYXVX, jacobian = p$jacobian)
  expect_equal(prof$LogLik[, 2], vapply(betas[, 2], refit, numeric(1)), tolerance = 1e-9)
  expect_equal(colnames(prof$estimates), c("MLE", "lower90ci", "upper90ci", "maximum"))
  g <- prof$LogLik[, 2] - prof$breaks[2]
  f <- stats::approxfun(betas[, 2], g)
  lo <- which(diff(sign(g)) != 0)
  expect_equal(unname(prof$estimates[2, 2:3]),
               vapply(lo, function(k) stats::uniroot(f, betas[k:(k + 1), 2],
                                                      tol = 1e-12)$root, numeric(1)),
               tolerance = 1e-8)
  one <- Prof1dBetas(betas[, 2], 0.9, p$Nobs, p$Ndata, p$Nparam, p$Ncov, p$detVar, p$detReml,
                     p$ssqY, p$XVYXVX, p$jacobian, I = 2)
  expect_equal(one$LogLik[, 1], prof$LogLik[, 2])
  expect_error(Prof1dBetas(betas[1:5, ], 0.9, p$Nobs, p$Ndata, p$Nparam, p$Ncov, p$detVar,
                           p$detReml, p$ssqY, p$XVYXVX, p$jacobian),
               "need more values for accurate estimate")
  expect_error(Prof1dBetas(betas, 0.9, p$Nobs, p$Ndata, p$Nparam, p$Ncov, p$detVar,
                           p$detReml, p$ssqY, p$XVYXVX, p$jacobian, convexHull = TRUE),
               "convexHull = TRUE")
  # the variance's profile reaches getProfLogL's maximum at sigma^2 = ssqResidual / Nobs
  best <- which(p$LogLik == max(p$LogLik), arr.ind = TRUE)
  s_hat <- sqrt(p$ssqResidual[best[1], best[2]] / p$Nobs)
  sds <- sort(c(s_hat, seq(0.1, 1.5, length.out = 30)))
  v <- profVariance(sds, cilevel = 0.95, Nobs = p$Nobs, Nparam = p$Nparam, Ndata = p$Ndata,
                    detVar = p$detVar, detReml = p$detReml, ssqResidual = p$ssqResidual,
                    jacobian = p$jacobian)
  expect_equal(max(v$LogLik), max(p$LogLik), tolerance = 1e-12)
  expect_equal(unname(v$estimates[1, "MLE"]), s_hat)
  expect_true(all(v$LogLik <= max(p$LogLik) + 1e-9))
  expect_error(profVariance(sds, 0.95, p$Nobs, p$Nparam, p$Ndata, p$detVar, p$detReml,
                            p$ssqResidual, p$jacobian, reml = TRUE), "needs Ncov")
  # both coefficients fixed: every set and power's likelihood of y - X b, maximised
  axes <- list(seq(0, 1, length.out = 4), seq(0, 0.8, length.out = 3))
  B <- as.matrix(expand.grid(axes))
  two <- Prof2dBetas(B, axes, p$Nobs, p$Nparam, p$Ndata, p$detVar, p$ssqY, p$XVYXVX,
                     p$jacobian, cilevel = 0.95)
  fixed <- function(b) {
    best <- -Inf
    for (i in seq_len(nrow(grid))) {
      V <- matern_v(xy, grid$range[i], 1.5, grid$nugget[i])
      for (j in 1:2) {
        r <- Y[, j] - X %*% b
        ll <- -0.5 * (n * log(sum(r * solve(V, r)) / n) + as.numeric(determinant(V)$modulus) +
                        p$jacobian[j] + n + n * log(2 * pi))
        best <- max(best, ll)
      }
    }
    best
  }
  expect_equal(two$dataforplot$LogLik, apply(B, 1, fixed), tolerance = 1e-9)
  expect_equal(names(two$dataforplot), c("Betas1", "Betas2", "LogLik"))
  expect_equal(two$breaks, max(two$dataforplot$LogLik) - qchisq(0.95, 2) / 2)
  expect_error(Prof2dBetas(B[-1, ], axes, p$Nobs, p$Nparam, p$Ndata, p$detVar, p$ssqY,
                           p$XVYXVX, p$jacobian, 0.95), "prof2list must hold the two axes")
  dev.off()
})

test_that("prof2dCov draws the joint region of two covariance parameters", {
  skip_without_python()
  skip_if_not_installed("ggplot2")
  set.seed(7)
  d <- data.frame(east = runif(30), north = runif(30))
  d$z <- rnorm(30)
  grid <- expand.grid(range = seq(0.05, 0.6, length.out = 6), shape = 1,
                      nugget = seq(0, 1.5, length.out = 5))
  p <- getProfLogL(d, z ~ 1, c("east", "north"), grid)
  g <- prof2dCov(p$LogLik, c("range", "nugget"), 0.95, p$paramsRenew)
  expect_s3_class(g, "ggplot")
  expect_equal(g$data$LogLik, p$LogLik[, 1])
  expect_equal(g$data$range, grid$range)
  expect_error(prof2dCov(p$LogLik, c("range", "nugget", "shape"), 0.95, grid),
               "should fix the rest params")
  expect_error(prof2dCov(p$LogLik, c("range", "sill"), 0.95, grid), "params has no column sill")
})

test_that("prof1dCov's intervals come from the upper hull of the profile points", {
  skip_without_python()
  set.seed(8)
  n <- 80
  d <- data.frame(east = runif(n), north = runif(n), x = rnorm(n))
  z <- simulateFields(as.matrix(d[, 1:2]), c(0.3, 1, 1, 0.2, 1, 0), 1, seed = 8)[1, 1, ]
  d$z <- exp(0.5 + 0.3 * d$x + 0.5 * z)
  grid <- expand.grid(range = exp(seq(log(0.02), log(5), length.out = 16)), shape = 1,
                      nugget = c(0, 0.02, 0.05, 0.1, 0.2, 0.35, 0.6, 1, 1.6, 3, 6))
  lam <- c(1, 0, 0.25, 0.5, 0.75, 1.5)
  p <- getProfLogL(d, z ~ x, c("east", "north"), grid, boxcox = lam)
  pdf(NULL)
  out <- suppressMessages(prof1dCov(p$LogLik, p$XVYXVX, p$ssqResidual,
                                    c("range", "nugget", "combinedRange", "boxcox"), 0.9,
                                    p$paramsRenew, p$boxcox, p$Ndata, p$Nobs, p$Ncov,
                                    reml = FALSE, predictors = p$predictors))
  dev.off()
  best <- which(p$LogLik == max(p$LogLik), arr.ind = TRUE)[1, ]
  brk <- max(p$LogLik) - qchisq(0.9, 1) / 2
  expect_equal(out$breaks, brk)
  expect_equal(unname(out$summary["sdSpatial", 1]),
               sqrt(p$ssqResidual[best[1], best[2]] / p$Nobs))
  rows <- (best[1] - 1) * 2 + 1:2
  expect_equal(unname(out$summary[p$predictors, 1]),
               as.vector(solve(p$XVYXVX[rows, p$Ndata + 1:2], p$XVYXVX[rows, best[2]])),
               tolerance = 1e-10)
  # the reference: the points' upper hull by brute force, its crossings by uniroot
  prof <- apply(p$LogLik, 1, max)
  near <- prof > max(p$LogLik) - 10
  check <- function(x, what, back) {
    ux <- sort(unique(x))
    uy <- vapply(ux, function(v) max(prof[near][x == v]), numeric(1)) - brk
    on <- vapply(seq_along(ux), function(k) {
      all(vapply(seq_along(ux), function(i) all(vapply(seq_along(ux), function(j) {
        if (i == k || j == k || ux[i] >= ux[k] || ux[j] <= ux[k]) return(TRUE)
        uy[k] > uy[i] + (uy[j] - uy[i]) * (ux[k] - ux[i]) / (ux[j] - ux[i]) + 1e-12
      }, logical(1))), logical(1)))
    }, logical(1))
    hx <- ux[on]
    hy <- uy[on]
    f <- stats::approxfun(hx, hy)
    s <- which(diff(sign(hy)) != 0)
    roots <- vapply(s, function(k) stats::uniroot(f, hx[k:(k + 1)], tol = 1e-13)$root,
                    numeric(1))
    expect_length(roots, 2)
    expect_equal(unname(out$summary[what, 2:3]), back(roots), tolerance = 1e-8)
  }
  check(log(grid$range[near]), "range", exp)
  check(grid$nugget[near], "nugget", identity)
  check(2 * log(grid$range[near]), "combinedRange", function(v) exp(v / 2))
  expect_equal(unname(out$summary["range", 1]), grid$range[best[1]])
  expect_equal(unname(out$summary["boxcox", 1]), p$boxcox[best[2]])
  expect_error(prof1dCov(p$LogLik, p$XVYXVX, p$ssqResidual, "sill", 0.9, grid, p$boxcox,
                         p$Ndata, p$Nobs, p$Ncov, FALSE, p$predictors),
               "paramToEstimate: unknown sill")
})

test_that("likfitLgmCov1d is getProfLogL then prof1dCov, with each profile's curve", {
  skip_without_python()
  set.seed(8)
  n <- 60
  d <- data.frame(east = runif(n), north = runif(n))
  z <- simulateFields(as.matrix(d[, 1:2]), c(0.3, 1, 1, 0.2, 1, 0), 1, seed = 3)[1, 1, ]
  d$z <- 2 + z
  grid <- expand.grid(range = exp(seq(log(0.02), log(5), length.out = 12)), shape = 1,
                      nugget = c(0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2))
  pdf(NULL)
  fit <- suppressMessages(likfitLgmCov1d(d, z ~ 1, c("east", "north"), grid,
                                         paramToEstimate = c("range", "nugget"), boxcox = 1,
                                         cilevel = 0.95, NparamPerIter = 20))
  p <- getProfLogL(d, z ~ 1, c("east", "north"), grid, boxcox = 1)
  ref <- suppressMessages(prof1dCov(p$LogLik, p$XVYXVX, p$ssqResidual, c("range", "nugget"),
                                    0.95, p$paramsRenew, p$boxcox, p$Ndata, p$Nobs, p$Ncov,
                                    FALSE, p$predictors))
  dev.off()
  expect_equal(fit$summary, ref$summary)
  expect_equal(fit$LogLik, p$LogLik)
  expect_equal(fit$breaks2d, max(p$LogLik) - qchisq(0.95, 2) / 2)
  expect_equal(nrow(fit$profrange), 1001)
  # the curve crosses zero where the interval ends (on the log scale for range)
  f <- stats::approxfun(fit$profrange$x1, fit$profrange$z)
  expect_equal(unname(f(log(fit$summary["range", 2:3]))), c(0, 0), tolerance = 1e-3)
  expect_true(all(c("profNugget", "params", "XVYXVX", "detVar") %in% names(fit)))
})
