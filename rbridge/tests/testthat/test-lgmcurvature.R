# gpuRandom's getHessianNolog, configParams, configMidPoint and configFirstStep on a fit,
# against differences of the profile log-likelihood computed here in base R (dense algebra).

# The profile log-likelihood (ML; beta and sigma^2 profiled out) of an isotropic Matérn model
# with Box-Cox power lambda, in base R.
profile_ll <- function(xy, y, X, range, shape, nugget, lambda = 1) {
  Y <- if (lambda == 0) log(y) else (y^lambda - 1) / lambda
  V <- matern_v(xy, range, shape, nugget)
  Vi <- solve(V)
  b <- solve(t(X) %*% Vi %*% X, t(X) %*% Vi %*% Y)
  r <- Y - X %*% b
  n <- length(y)
  -n / 2 * (log(2 * pi) + 1 + log(as.numeric(t(r) %*% Vi %*% r) / n)) -
    as.numeric(determinant(V)$modulus) / 2 + (lambda - 1) * sum(log(y))
}

# Second differences of f at g with step h, as the textbook writes them.
second_differences <- function(f, g, h = 0.01) {
  d <- length(g)
  e <- function(i) replace(rep(0, d), i, h)
  H <- matrix(0, d, d)
  for (i in seq_len(d)) {
    H[i, i] <- (f(g + e(i)) + f(g - e(i)) - 2 * f(g)) / h^2
    for (j in seq_len(i - 1))
      H[i, j] <- H[j, i] <- (f(g + e(i) + e(j)) - f(g + e(i) - e(j)) - f(g - e(i) + e(j)) +
                               f(g - e(i) - e(j))) / (4 * h^2)
  }
  H
}

curvature_data <- function() {
  set.seed(21)
  n <- 45
  d <- data.frame(east = runif(n), north = runif(n))
  z <- simulateFields(as.matrix(d[, 1:2]), c(0.25, 1, 1, 0.3, 1, 0), 1, seed = 21)[1, 1, ]
  d$z <- exp(1 + 0.4 * z)
  d$x <- cos(3 * d$east)
  d
}

# The data and their Newton fit, estimating the parameters `estimate`.
curvature_fit <- function(estimate, formula = z ~ 1) {
  d <- curvature_data()
  list(d = d, fit = suppressWarnings(likfitLgmGpu(d, formula, c("east", "north"),
                                                  paramToEstimate = estimate,
                                                  profiles = FALSE, profile2d = FALSE)))
}

test_that("getHessianNolog's curvature is the second differences of the profile likelihood", {
  skip_without_python()
  cf <- curvature_fit(c("range", "shape", "nugget"))
  d <- cf$d
  fit <- cf$fit
  expect_equal(rownames(fit$optim$options), c("range", "shape", "nugget"))
  h <- getHessianNolog(fit)
  mle <- fit$optim$options[, "opt"]
  expect_equal(h$originalPoint, c(mle[1:2], nugget = max(mle[["nugget"]], 0.01)))
  g <- c(sumLogRange = 2 * log(mle[["range"]]), "log(shape)" = log(mle[["shape"]]),
         nugget = max(mle[["nugget"]], 0.01))
  expect_equal(h$centralPointGamma, g)
  expect_equal(h$fixedVar, c("anisoRatio", "anisoAngleRadians"))
  xy <- as.matrix(d[, 1:2])
  X <- matrix(1, nrow(d), 1)
  f <- function(g, lambda = 1) profile_ll(xy, d$z, X, exp(g[1] / 2), exp(g[2]), g[3], lambda)
  ref <- second_differences(f, unname(g))
  expect_equal(unname(h$HessianMat), ref, tolerance = 1e-6)
  expect_identical(rownames(h$HessianMat), names(g))
  expect_equal(unname(h$data[1, "boxcox1"]), f(g), tolerance = 1e-10)
  # the Box-Cox power's curvature and gpuRandom's quantiles around the fitted power
  curve <- (f(g, 1.05) - 2 * f(g, 1) + f(g, 0.95)) / 0.05^2
  expect_equal(h$boxcoxSetup,
               qnorm(c(0.01, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99), 1, sqrt(-1 / curve)),
               tolerance = 1e-6)
  expect_null(getHessianNolog(fit, boxcox = 1)$boxcoxSetup)
  # geostatsp's fit: sp's points (a coords slot beside the data), the power in parameters
  setClass("oclstatTestPoints", representation(coords = "matrix", data = "data.frame"),
           where = globalenv())
  on.exit(removeClass("oclstatTestPoints", where = globalenv()))
  geo <- list(optim = list(mle = c(mle, anisoRatio = 1, anisoAngleRadians = 0),
                           options = cbind(start = 1, opt = mle)),
              parameters = c(mle, boxcox = 1),
              data = new("oclstatTestPoints", coords = xy, data = d["z"]),
              model = list(formula = z ~ 1))
  expect_equal(getHessianNolog(geo)$HessianMat, h$HessianMat, tolerance = 1e-12)
  expect_error(getHessianNolog(list(optim = 1)), "Model must be a fit")
  expect_error(getHessianNolog(fit, Mle = c(range = 0.2, anisoRatio = 2)),
               "anisoRatio and anisoAngleRadians must be together")
  expect_error(getHessianNolog(fit, boxcox = c(1, 0.9, 1.2)), "equally spaced")
})

test_that("configParams puts its sets on the ellipsoids the curvature draws", {
  skip_without_python()
  cf <- curvature_fit(c("range", "shape", "nugget"))
  d <- cf$d
  fit <- cf$fit
  h <- getHessianNolog(fit)
  e <- eigen(-h$HessianMat, symmetric = TRUE)
  v <- if (any(e$values > 100)) pmax(0.1, e$values) else abs(e$values)
  M <- e$vectors %*% diag(v) %*% t(e$vectors)
  set.seed(5)
  cp <- configParams(fit, alpha = c(0.01, 0.5), randomNugget = 0.05, shapeRestrict = Inf)
  expect_identical(names(cp), c("alpha0.01", "alpha0.5", "boxcoxSetup"))
  expect_equal(cp$boxcoxSetup, h$boxcoxSetup)
  for (a in c(0.01, 0.5)) {
    sets <- cp[[paste0("alpha", a)]]
    expect_equal(nrow(sets), 100)                       # gpuRandom's golden spiral
    expect_identical(colnames(sets), c("range", "shape", "nugget", "anisoRatio",
                                       "anisoAngleRadians"))
    expect_true(all(sets[, "nugget"] >= 0 & sets[, "anisoRatio"] == 1))
    kept <- sets[, "nugget"] > 0.05                     # nuggets not replaced
    G <- cbind(2 * log(sets[kept, "range"]), log(sets[kept, "shape"]), sets[kept, "nugget"])
    D <- sweep(G, 2, h$centralPointGamma)
    expect_equal(rowSums((D %*% M) * D), rep(qchisq(1 - a, 3), sum(kept)), tolerance = 1e-8)
  }
  set.seed(5)
  expect_identical(configParams(fit, alpha = c(0.01, 0.5), randomNugget = 0.05,
                                shapeRestrict = Inf), cp)
  # shapes above shapeRestrict drawn again below it; the other sets as they were
  capped <- configParams(fit, alpha = 0.01, shapeRestrict = 50)$alpha0.01
  big <- cp$alpha0.01[, "shape"] > 50
  expect_true(any(big))
  expect_true(all(capped[big, "shape"] >= 0.1 & capped[big, "shape"] <= 50))
  expect_equal(capped[!big, c("range", "shape")], cp$alpha0.01[!big, c("range", "shape")])
  expect_error(configParams(fit, alpha = 5), "alpha must be levels between 0 and 1")
})

test_that("one estimated parameter, and the nugget on the log scale", {
  skip_without_python()
  cf <- curvature_fit("range")
  d <- cf$d
  fit <- cf$fit
  expect_identical(rownames(fit$optim$options), "range")    # a one-row matrix: [, "opt"]
  mle <- c(range = fit$optim$options[1, "opt"])             # drops the name
  xy <- as.matrix(d[, 1:2])
  fixed <- fit$optim$mle
  f <- function(g) profile_ll(xy, d$z, matrix(1, nrow(d), 1), exp(g / 2), fixed[["shape"]],
                              fixed[["nugget"]])
  h <- getHessianNolog(fit, boxcox = 1)
  expect_equal(unname(h$HessianMat), second_differences(f, 2 * log(mle[["range"]])),
               tolerance = 1e-6)
  sets <- configParams(fit, alpha = 0.1, boxcox = 1)$alpha0.1
  expect_equal(nrow(sets), 2)
  expect_equal(sort(2 * log(sets[, "range"]) - 2 * log(mle[["range"]])),
               c(-1, 1) * sqrt(qchisq(0.9, 1) / -h$HessianMat[1, 1]))
  # logNugget: the nugget logged where it is at least 0.01, as it is below
  two <- curvature_fit(c("range", "nugget"))$fit
  nug <- two$optim$mle[["nugget"]]
  logged <- getHessianNolog(two, boxcox = 1)
  h_log <- oclstat:::lgm_curvature(oclstat:::lgm_parts(two), NULL, 1, "log")
  expect_identical(colnames(h_log$HessianMat),
                   c("sumLogRange", if (nug >= 0.01) "log(nugget)" else "nugget"))
  if (nug < 0.01) expect_equal(h_log$HessianMat, logged$HessianMat)
  small <- getHessianNolog(two, Mle = c(range = 0.2, nugget = 0.001), boxcox = 1)
  expect_equal(small$originalPoint[["nugget"]], 0.01)          # floored, as gpuRandom
  expect_identical(colnames(oclstat:::lgm_curvature(
    oclstat:::lgm_parts(two), c(range = 0.2, nugget = 0.001), 1, "log")$HessianMat),
    c("sumLogRange", "nugget"))
  expect_identical(colnames(oclstat:::lgm_curvature(
    oclstat:::lgm_parts(two), c(range = 0.2, nugget = 0.3), 1, "log")$HessianMat),
    c("sumLogRange", "log(nugget)"))
})

test_that("configMidPoint and configFirstStep differentiate on the log scale", {
  skip_without_python()
  cf <- curvature_fit(c("range", "nugget"))
  d <- cf$d
  fit <- cf$fit
  mle <- fit$optim$options[, "opt"]
  g <- c(log(mle[["range"]]), log(max(mle[["nugget"]], 0.01)))
  xy <- as.matrix(d[, 1:2])
  f <- function(g) profile_ll(xy, d$z, matrix(1, nrow(d), 1), exp(g[1]), 1, exp(g[2]))
  mid <- configMidPoint(fit, alpha = c(0.05, 0.5))
  expect_equal(unname(mid$HessianMat), second_differences(f, g), tolerance = 1e-6)
  expect_identical(colnames(mid$HessianMat), c("log(range)", "log(nugget)"))
  for (a in c(0.05, 0.5)) {
    sets <- mid[[paste0("alpha", a)]]
    expect_equal(nrow(sets), 24)                        # gpuRandom's circle
    D <- sweep(log(sets[, c("range", "nugget")]), 2, g)
    expect_equal(rowSums((D %*% -mid$HessianMat) * D), rep(qchisq(1 - a, 2), 24),
                 tolerance = 1e-8)
  }
  first <- configFirstStep(fit)
  e <- function(i) replace(c(0, 0), i, 0.01)
  expect_equal(unname(first), c((f(g + e(1)) - f(g - e(1))) / 0.02,
                                (f(g + e(2)) - f(g - e(2))) / 0.02), tolerance = 1e-6)
  expect_identical(names(first), c("log(range)", "log(nugget)"))
  expect_error(configMidPoint(fit, alpha = c(0.1, 1)), "alpha must be levels between 0 and 1")
  expect_error(configFirstStep(list(a = 1)), "Model must be a fit")
  expect_error(configFirstStep(fit, Mle = c(0.2, 0.1)), "Mle must be a named numeric vector")
  expect_error(configFirstStep(fit, Mle = c(sill = 2)), "Mle holds none of")
})

test_that("an anisotropic fit's curvature is taken on aniso1 and aniso2", {
  skip_without_python()
  cf <- curvature_fit(c("range", "nugget", "anisoRatio", "anisoAngleRadians"))
  d <- cf$d
  fit <- cf$fit
  h <- getHessianNolog(fit, boxcox = 1)
  mle <- h$originalPoint
  expect_gt(mle[["anisoRatio"]], 1)                    # a ratio below 1 turned above it
  g <- unname(h$centralPointGamma)
  expect_equal(g, c(log(mle[["range"]]^2 / mle[["anisoRatio"]]), mle[["nugget"]],
                    sqrt(mle[["anisoRatio"]] - 1) * cos(2 * mle[["anisoAngleRadians"]]),
                    sqrt(mle[["anisoRatio"]] - 1) * sin(2 * mle[["anisoAngleRadians"]])))
  # the same differences through getProfLogL at points mapped back here
  f <- function(g) {
    ratio <- g[3]^2 + g[4]^2 + 1
    sets <- data.frame(range = sqrt(exp(g[1]) * ratio), shape = fit$optim$mle[["shape"]],
                       nugget = g[2], anisoRatio = ratio,
                       anisoAngleRadians = atan2(g[4], g[3]) / 2)
    getProfLogL(d, z ~ 1, c("east", "north"), sets, boxcox = 1)$LogLik[1, 1]
  }
  expect_equal(unname(h$HessianMat), second_differences(f, g), tolerance = 1e-6)
  expect_identical(colnames(h$HessianMat), c("sumLogRange", "nugget", "aniso1", "aniso2"))
  cp <- configParams(fit, alpha = 0.1, boxcox = 1)
  angles <- cp$alpha0.1[, "anisoAngleRadians"]
  expect_true(all(angles >= -pi / 2 & angles <= pi / 2))
  expect_equal(nrow(cp$alpha0.1), 120)                 # the 600-cell's vertices
})

test_that("the sphere's points are gpuRandom's designs, in their order", {
  # rows of gpuRandom's data/coords3d.RData and data/coords4d.RData (r-forge diseasemapping,
  # pkg/gpuRandom, 2026-03), printed there with print(x[rows, ], digits = 8)
  s3 <- oclstat:::sphere_points(3)
  expect_equal(dim(s3), c(100, 3))
  expect_equal(s3[c(1, 50, 100), ], rbind(c(0.05111927, -0.13147935, 0.99),
                                          c(0.83513569, 0.54995306, 0.01),
                                          c(0.14097948, -0.00497860, -0.99)),
               tolerance = 1e-7)
  s4 <- oclstat:::sphere_points(4)
  expect_equal(dim(s4), c(120, 4))
  expect_equal(s4[c(1, 2, 8, 9, 30, 81, 120), ],
               rbind(c(0, 0, 0, 1), c(0, 0, 0, -1), c(-1, 0, 0, 0), rep(-0.5, 4),
                     c(0.80901699, -0.5, 0.30901699, 0), c(-0.30901699, -0.5, 0, -0.80901699),
                     c(0, 0.30901699, 0.5, 0.80901699)), tolerance = 1e-8)
  expect_equal(nrow(unique(round(s4, 9))), 120)
  # the 600-cell: each vertex has 12 nearest neighbours, at 1 / phi
  dd <- as.matrix(dist(s4))
  expect_true(all(rowSums(abs(dd - 2 / (1 + sqrt(5))) < 1e-12) == 12))
  for (d in 1:5) expect_equal(rowSums(oclstat:::sphere_points(d)^2),
                              rep(1, nrow(oclstat:::sphere_points(d))))
  expect_equal(nrow(oclstat:::sphere_points(5)), 10 + 32)
  expect_equal(oclstat:::sphere_points(2)[7, ], c(0, 1))
})

test_that("likfitLgmGpu on a fit is configParams' grid and the profiles, as gpuRandom chains them", {
  skip_without_python()
  cf <- curvature_fit(c("range", "nugget"), z ~ x)
  d <- cf$d
  fit <- cf$fit
  betas <- cbind(seq(1, 4, length.out = 31), seq(-1, 1, length.out = 31))
  sds <- seq(0.05, 2, length.out = 40)
  pdf(NULL)
  set.seed(3)
  out <- suppressMessages(likfitLgmGpu(model = fit, alpha = c(0.01, 0.2, 0.6),
                                       paramToEstimate = c("range", "nugget"), Betas = betas,
                                       sdSpatial = sds, cilevel = 0.9))
  set.seed(3)
  config <- configParams(fit, alpha = c(0.01, 0.2, 0.6))
  grid <- rbind(fit$optim$mle[colnames(config$alpha0.01)],
                do.call(rbind, config[c("alpha0.01", "alpha0.2", "alpha0.6")]))
  lam <- c(seq(config$boxcoxSetup[1], config$boxcoxSetup[9], length.out = 32), 1)
  p <- getProfLogL(d, z ~ x, c("east", "north"), as.data.frame(grid), boxcox = lam)
  ref <- suppressMessages(prof1dCov(p$LogLik, p$XVYXVX, p$ssqResidual, c("range", "nugget"),
                                    0.9, p$paramsRenew, p$boxcox, p$Ndata, p$Nobs, p$Ncov,
                                    FALSE, p$predictors))
  b <- Prof1dBetas(betas, 0.9, p$Nobs, p$Ndata, p$Nparam, p$Ncov, p$detVar, p$detReml, p$ssqY,
                   p$XVYXVX, p$jacobian)
  v <- profVariance(sds, 0.9, p$Nobs, p$Nparam, p$Ndata, p$detVar, p$detReml, p$ssqResidual,
                    p$jacobian)
  dev.off()
  expect_equal(out$LogLik, p$LogLik)
  expect_equal(out$summary[c("range", "nugget"), ], ref$summary[c("range", "nugget"), ])
  expect_equal(unname(out$summary[c("(Intercept)", "x"), ]), unname(b$estimates[, 1:3]))
  expect_equal(unname(out$summary["sdSpatial", ]), unname(v$estimates[1, 1:3]))
  expect_equal(nrow(out$params), 1 + 3 * 24)           # the fit and 24 points per level
  expect_equal(out$boxcox, p$boxcox)
  expect_setequal(out$boxcox, lam)                    # 32 powers over boxcoxSetup, and 1
  # the fit as the first argument, and gpuRandom's refusals
  expect_error(likfitLgmGpu(fit, paramToEstimate = "range", Betas = betas, sdSpatial = sds),
               "alpha is not provided")
  expect_error(likfitLgmGpu(fit, alpha = 0.1, paramToEstimate = "range", sdSpatial = sds),
               "Betas matrix missing")
  expect_error(likfitLgmGpu(model = fit, params = grid, paramToEstimate = "range",
                            Betas = betas, sdSpatial = sds), "require boxcox values")
})
