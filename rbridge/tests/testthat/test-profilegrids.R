# gpuRandom's sd_Range, likfitLgmCov2d and ParamsFromLgm, each against a computation written
# here from the definitions (dense algebra in base R, the grid's rules written out).

grid_data <- function(seed, n = 40) {
  set.seed(seed)
  d <- data.frame(east = runif(n), north = runif(n), x = rnorm(n))
  d$z <- exp(0.4 + 0.3 * d$x + rnorm(n, sd = 0.3))
  d
}

test_that("sd_Range is the likelihood at a fixed variance, as dense algebra in R gives it", {
  skip_without_python()
  d <- grid_data(11)
  grid <- expand.grid(range = c(0.1, 0.3), shape = c(0.8, 1.5), nugget = c(0, 0.4),
                      variance = c(0.3, 1.7))
  xy <- as.matrix(d[, c("east", "north")])
  X <- cbind(1, d$x)
  n <- nrow(d)
  lam <- c(1, 0.5)                    # gpuRandom keeps the power 1, first
  Y <- cbind(d$z, (d$z^0.5 - 1) / 0.5)
  jac <- -2 * (lam - 1) * sum(log(d$z))
  for (reml in c(FALSE, TRUE)) {
    s <- sd_Range(d, z ~ x, coordinates = c("east", "north"), params = grid, boxcox = 0.5,
                  cilevel = 0.9, type = "double", reml = reml, NparamPerIter = 4,
                  Nglobal = c(64, 8), Nlocal = c(8, 8), NlocalCache = 500)
    expect_equal(dim(s$LogLik), c(nrow(grid), 2))
    expect_equal(c(s$Nobs, s$Ncov, s$Ndata, s$Nparam), c(n, 2, 2, nrow(grid)))
    for (i in seq_len(nrow(grid))) {
      V <- grid$variance[i] * matern_v(xy, grid$range[i], grid$shape[i], 0) +
        diag(grid$nugget[i], n)                       # gpuRandom's diagonal: variance + nugget
      Vi <- solve(V)
      XVX <- t(X) %*% Vi %*% X
      for (k in 1:2) {
        b <- solve(XVX, t(X) %*% Vi %*% Y[, k])
        r <- Y[, k] - X %*% b
        m2 <- as.numeric(t(r) %*% Vi %*% r) + as.numeric(determinant(V)$modulus) +
          n * log(2 * pi) + jac[k] + if (reml) as.numeric(determinant(XVX)$modulus) else 0
        expect_equal(unname(s$LogLik[i, k]), -m2 / 2, tolerance = 1e-9)
        expect_equal(unname(s$ssqResidual[i, k]), as.numeric(t(r) %*% Vi %*% r),
                     tolerance = 1e-9)
      }
      expect_equal(s$detVar[i], as.numeric(determinant(V)$modulus), tolerance = 1e-10)
      expect_equal(s$detReml[i], as.numeric(determinant(XVX)$modulus), tolerance = 1e-9)
      expect_equal(unname(s$XVYXVX[(2 * i - 1):(2 * i), 2 + 1:2]), unname(XVX),
                   tolerance = 1e-9)
    }
    expect_equal(s$minusTwoLogLik, -2 * s$LogLik)
    expect_equal(s$breaks, max(s$LogLik) - qchisq(0.9, 2) / 2)
    best <- which(s$LogLik == max(s$LogLik), arr.ind = TRUE)[1, ]
    V <- with(grid[best[1], ], variance * matern_v(xy, range, shape, 0) + diag(nugget, n))
    Vi <- solve(V)
    expect_equal(unname(s$summary[, "estimate"]),
                 as.vector(solve(t(X) %*% Vi %*% X, t(X) %*% Vi %*% Y[, best[2]])),
                 tolerance = 1e-9)
    expect_identical(rownames(s$summary), c("(Intercept)", "x"))
  }
  # at the variance that maximises it, the likelihood is getProfLogL's profile likelihood
  # (whose nugget is relative to the variance)
  some <- unique(grid[grid$nugget > 0, 1:3])
  p <- getProfLogL(d, z ~ x, c("east", "north"), some, boxcox = 1)
  s2 <- p$ssqResidual[, 1] / p$Nobs
  at <- data.frame(some[, 1:2], nugget = some$nugget * s2, variance = s2)
  expect_equal(sd_Range(d, z ~ x, c("east", "north"), at, 1, 0.95)$LogLik[, 1],
               p$LogLik[, 1], tolerance = 1e-10)
  expect_error(sd_Range(d, z ~ x, c("east", "north"), grid[, 1:3], 1, 0.95),
               "params needs a variance column")
  grid$variance[2] <- -1
  expect_error(sd_Range(d, z ~ x, c("east", "north"), grid, 1, 0.95),
               "variance column must be positive")
  expect_error(sd_Range(d, z ~ x, c("east", "north"), at, 1, 95), "cilevel must be")
})

test_that("likfitLgmCov2d estimates on gpuRandom's scales at the grid's maximum", {
  skip_without_python()
  d <- grid_data(12, n = 50)
  grid <- expand.grid(range = exp(seq(log(0.03), log(3), length.out = 9)), shape = c(0.7, 1.6),
                      nugget = c(0, 0.1, 0.3, 0.8, 2), anisoRatio = c(0.6, 1.5),
                      anisoAngleRadians = c(0, 0.7))
  lam <- c(0, 0.25, 0.5, 0.75, 1.25)
  pdf(NULL)
  fit <- suppressMessages(likfitLgmCov2d(
    d, z ~ x, c("east", "north"), grid,
    paramToEstimate = c("Newrange", "shape", "nugget", "sdNugget", "anisoRatio",
                        "anisoAngleRadians", "boxcox"),
    boxcox = lam, cilevel = 0.9, seqNewRange = c(-8, 2), type = "double", NparamPerIter = 30))
  dev.off()
  p <- getProfLogL(d, z ~ x, c("east", "north"), grid, boxcox = c(1, lam))
  expect_equal(fit$LogLik, p$LogLik)
  expect_identical(colnames(fit$LogLik), c("boxcox1", "boxcox0", "boxcox0.25", "boxcox0.5",
                                           "boxcox0.75", "boxcox1.25"))
  expect_equal(fit$breaks, max(p$LogLik) - qchisq(0.9, 2) / 2)
  best <- which(p$LogLik == max(p$LogLik), arr.ind = TRUE)[1, ]
  g <- grid[best[1], ]
  sd_spatial <- sqrt(p$ssqResidual[best[1], best[2]] / p$Nobs)
  expect_identical(colnames(fit$summary), "estimate")
  expect_identical(rownames(fit$summary),
                   c("(Intercept)", "x", "sdSpatial", "Newrange", "shape", "nugget",
                     "sdNugget", "anisoRatio", "anisoAngleRadians", "boxcox"))
  expect_equal(fit$summary[c("sdSpatial", "Newrange", "shape", "nugget", "sdNugget",
                             "anisoRatio", "anisoAngleRadians", "boxcox"), 1],
               c(sdSpatial = sd_spatial, Newrange = log(g$range^2 / g$anisoRatio),
                 shape = g$shape, nugget = g$nugget, sdNugget = sqrt(g$nugget) * sd_spatial,
                 anisoRatio = g$anisoRatio, anisoAngleRadians = g$anisoAngleRadians,
                 boxcox = c(1, lam)[best[2]]))
  # the extra columns of the sets: the ratio above 1, the angle turned with it
  r <- ifelse(grid$anisoRatio < 1, 1 / grid$anisoRatio, grid$anisoRatio)
  a <- grid$anisoAngleRadians + ifelse(grid$anisoRatio < 1, pi / 2, 0)
  expect_equal(fit$params$gamma3, sqrt(r - 1) * cos(2 * a))
  expect_equal(fit$params$gamma4, sqrt(r - 1) * sin(2 * a))
  expect_equal(fit$params$Newrange, log(grid$range^2 / grid$anisoRatio))
  expect_length(fit$Infindex, 0)
  # five powers or fewer: no Box-Cox estimate, with gpuRandom's message
  pdf(NULL)
  expect_message(likfitLgmCov2d(d, z ~ x, c("east", "north"), grid,
                                paramToEstimate = c("nugget", "boxcox"), boxcox = 0,
                                cilevel = 0.9),
                 "boxcox: not enough values for interpolation")
  dev.off()
  expect_error(likfitLgmCov2d(d, z ~ x, c("east", "north"), grid, "sill", 1, 0.9),
               "paramToEstimate: unknown sill")
  expect_error(likfitLgmCov2d(d, z ~ x, c("east", "north"), grid, "nugget", 1, 1.5),
               "cilevel must be one number between 0 and 1")
})

test_that("ParamsFromLgm builds gpuRandom's grid from a fitted model's summary", {
  s <- data.frame(estimate = c(20, 1.5, 0.3, 1.4, 0.5, 28.6, 0.4),
                  ci0.005 = c(10, 0.6, 0.1, 1.1, 0.2, 11.5, 0.1),
                  ci0.995 = c(40, 4, 0.6, 2, 0.9, 51.6, 0.8),
                  Estimated = c(TRUE, FALSE, TRUE, FALSE, TRUE, FALSE, TRUE),
                  row.names = c("range", "shape", "sdNugget", "anisoRatio",
                                "anisoAngleRadians", "anisoAngleDegrees", "boxcox"))
  mle <- c(range = 20000, shape = 1.5, nugget = 0.09, anisoRatio = 1.4,
           anisoAngleRadians = 0.5)
  g <- ParamsFromLgm(s, mle, c("range", "nugget", "boxcox"))
  range_values <- 1000 * c(seq(10, 20, length.out = 7), seq(22, 44, length.out = 7))
  expect_equal(g$ParamList$range, range_values)
  expect_equal(g$ParamList$nugget, c(0, 0.0225, 0.045, 0.0675, 0.09,
                                     0.108, 0.171, 0.234, 0.297, 0.36))
  expect_equal(names(g$ParamList), c("range", "nugget", "shape", "anisoRatio",
                                     "anisoAngleRadians", "anisoAngleDegrees"))
  expect_equal(g$ParamList$anisoAngleDegrees, 28.6)
  expect_equal(nrow(g$params), 14 * 10)
  expect_equal(g$params[15, "range"], range_values[1])
  expect_equal(g$params[15, "nugget"], 0.0225)
  expect_equal(g$boxcox, c(-0.4, 0, 0.4, 0.7, 1, 1.3))
  # the summary's Estimated column decides by default (sdNugget standing for the nugget);
  # an estimated angle leaves the other angle out
  h <- ParamsFromLgm(s, mle)
  expect_equal(names(h$ParamList), c("range", "nugget", "anisoAngleRadians", "shape",
                                     "anisoRatio"))
  expect_equal(h$ParamList$anisoAngleRadians,
               c(seq(0.1, 0.5, length.out = 6), seq(0.55, 0.9, length.out = 6)))
  both <- ParamsFromLgm(s, mle, c("anisoAngleDegrees", "anisoAngleRadians"))
  expect_false("anisoAngleDegrees" %in% names(both$ParamList))
  deg <- ParamsFromLgm(s, mle, c("shape", "anisoAngleDegrees"))
  expect_equal(deg$ParamList$shape, c(seq(0.1, 1.5, length.out = 5),
                                      seq(1.65, 4, length.out = 5)))
  expect_equal(deg$ParamList$anisoAngleDegrees, c(seq(11.5, 28.6, length.out = 5),
                                                  seq(32.6, 51.6, length.out = 5)))
  expect_false("anisoAngleRadians" %in% names(deg$ParamList))
  expect_error(ParamsFromLgm(s, mle, "sill"), "paramToEstimate: unknown sill")
  expect_error(ParamsFromLgm(s[-4, ], mle, "anisoRatio"),
               "Summary needs a number in row anisoRatio, column ci0.005")
  expect_error(ParamsFromLgm(s, mle[-2], "shape"), "optimMle needs a value named shape")
  expect_error(ParamsFromLgm(s[, -4], mle), "Summary has no Estimated column")
})
