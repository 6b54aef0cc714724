# gpuRandom's functions around a fitted model: the curvature of the profile log-likelihood at
# the fit (getHessianNolog), the first derivatives there (configFirstStep), and parameter sets
# on the ellipsoids that curvature draws (configParams, configMidPoint), each log-likelihood
# computed by getProfLogL (spatial.R). A fit is geostatsp's likfitLgm result or oclstat's
# likfitLgmGpu formula fit; lgm_parts reads either.

#' The curvature of a fitted Matérn model's profile log-likelihood, as gpuRandom's getHessianNolog
#'
#' The Hessian of the profile log-likelihood (ML, the coefficients and the spatial variance profiled out, on the device) at the fitted covariance parameters, by central differences of step 0.01 on gpuRandom's scale: sumLogRange = log(range^2 / anisoRatio), log(shape) (1/sqrt(shape) from shape 4 on), the nugget as it is (floored at 0.01), and the anisotropy as aniso1 = sqrt(anisoRatio - 1) cos(2 anisoAngleRadians), aniso2 = the sine's (a ratio below 1 taken as 1 / ratio with the angle turned by pi / 2). The differences use gpuRandom's points: the fit, a step either way along each parameter, and the four corners of each pair; the Box-Cox power's second difference comes from the powers \code{boxcox} (the fit's and 0.05 either side), and \code{boxcoxSetup} is gpuRandom's nine normal quantiles around the fitted power with the variance the curvature gives. gpuRandom's own code needs an estimated anisotropy and a fit whose power lies away from 0 and 1 by more than 0.05 (it reads the powers by position); here any of the parameters may be estimated, and the powers are read by value.
#' @param Model a fit: geostatsp's \code{likfitLgm} result (its \code{optim$options[, "opt"]}, \code{optim$mle}, \code{parameters}, \code{data} and \code{model$formula}) or oclstat's \code{likfitLgmGpu(data, formula, ...)} Newton fit.
#' @param Mle the point (named covariance parameters: range, shape, nugget, anisoRatio, anisoAngleRadians) where the curvature is taken; default the fit's estimated parameters.
#' @param boxcox three Box-Cox powers (centre, lower, upper, equally spaced) for the power's curvature; default the fit's power and 0.05 either side; a single power leaves the Box-Cox curvature out (\code{boxcoxSetup} NULL), as a response with values <= 0 needs.
#' @return gpuRandom's list: HessianMat (rows and columns named by the scale: sumLogRange, log(shape), nugget, aniso1, aniso2), originalPoint (\code{Mle} as used), boxcoxSetup, fixedVar (the parameters not estimated), centralPointGamma (the point on the scale), parToLog, whichAniso, data (the parameter sets with their log-likelihood, a column per power).
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   d <- data.frame(east = runif(60), north = runif(60))
#'   d$z <- exp(1 + 0.3 * rnorm(60))
#'   fit <- likfitLgmGpu(d, z ~ 1, c("east", "north"), paramToEstimate = c("range", "nugget"),
#'                       profiles = FALSE, profile2d = FALSE)
#'   getHessianNolog(fit)$HessianMat
#' }
#' @export
getHessianNolog <- function(Model, Mle = NULL, boxcox = NULL) {
  curv <- lgm_curvature(lgm_parts(Model), Mle, boxcox, "plain")
  curv[setdiff(names(curv), "back")]
}

#' Parameter sets on the confidence ellipsoids of a fitted Matérn model, as gpuRandom's configParams
#'
#' From the curvature \code{getHessianNolog} gives (\code{logNugget = TRUE}: the nugget on the log scale where it is at least 0.01, as gpuRandom's getHessianLog), for each level alpha the points sqrt(qchisq(1 - alpha, d)) E diag(1 / sqrt(v)) u + the fit on the curvature's scale, E and v the eigenvectors and eigenvalues of minus the Hessian (v floored at 0.1 when any exceeds 100, else taken in absolute value, as gpuRandom) and u points on the unit sphere of the d estimated parameters; mapped back to range, shape, nugget, anisoRatio and anisoAngleRadians (the fixed ones from the fit), angles folded into [-pi/2, pi/2], negative nuggets set to 0 in the first half of the points and drawn from U(0, randomNugget) in the second, shapes above \code{shapeRestrict} drawn from U(0.1, shapeRestrict) (R's generator: \code{set.seed} repeats them). The sphere's points are gpuRandom's, in its order: 24 on the circle for two parameters, the golden spiral's 100 for three, the 600-cell's 120 vertices for four (gpuRandom loads the last two from files by a path on its author's computer); for five parameters, where gpuRandom's 726 points are a table of numbers, the 10 points on the axes and the cube's 32 corners scaled to the sphere; for one parameter, -1 and 1.
#' @param Model,Mle,boxcox as in \code{getHessianNolog}.
#' @param alpha levels: one set of points per 1 - alpha confidence region.
#' @param logNugget the nugget on the log scale.
#' @param shapeRestrict the largest shape kept.
#' @param randomNugget the upper bound of the nuggets drawn in place of negative ones in the second half of the points.
#' @return a list: one matrix of parameter sets per level (named alpha0.001, ...), then \code{boxcoxSetup}.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   d <- data.frame(east = runif(60), north = runif(60))
#'   d$z <- exp(1 + 0.3 * rnorm(60))
#'   fit <- likfitLgmGpu(d, z ~ 1, c("east", "north"), paramToEstimate = c("range", "nugget"),
#'                       profiles = FALSE, profile2d = FALSE)
#'   sets <- configParams(fit, alpha = c(0.01, 0.5))
#'   head(sets$alpha0.01)
#' }
#' @export
configParams <- function(Model, alpha = c(0.001, 0.01, 0.1, 0.2, 0.5, 0.8, 0.95, 0.99),
                         logNugget = FALSE, Mle = NULL, boxcox = NULL, shapeRestrict = 1000,
                         randomNugget = 0) {
  check_alpha(alpha)
  curv <- lgm_curvature(lgm_parts(Model), Mle, boxcox, if (isTRUE(logNugget)) "log" else "plain")
  e <- eigen(-curv$HessianMat, symmetric = TRUE)
  v <- if (any(e$values > 100)) pmax(0.1, e$values) else abs(e$values)
  out <- lapply(alpha, function(a) {
    sets <- ellipse_sets(curv, e$vectors, v, a)
    sets[, "anisoAngleRadians"] <- fold_angle(sets[, "anisoAngleRadians"])
    half <- seq_len(nrow(sets)) <= nrow(sets) / 2
    low <- sets[, "nugget"] < 0
    sets[low & half, "nugget"] <- 0
    sets[low & !half, "nugget"] <- stats::runif(sum(low & !half), 0, randomNugget)
    big <- sets[, "shape"] > shapeRestrict
    sets[big, "shape"] <- stats::runif(sum(big), 0.1, shapeRestrict)
    sets
  })
  names(out) <- paste0("alpha", alpha)
  c(out, list(boxcoxSetup = curv$boxcoxSetup))
}

#' Parameter sets on the confidence ellipsoids on the log scale, as gpuRandom's configMidPoint
#'
#' As \code{configParams}, on gpuRandom's other scale: log(range), log(shape) and log(nugget) (the nugget floored at 0.01) with the anisotropy as gamma3, gamma4 (\code{getHessianNolog}'s aniso1, aniso2), and the ellipsoids from minus the inverse Hessian as it is (no eigenvalue floor). gpuRandom's own function stops before its result (it reads a matrix \code{HessianMat2} it never makes).
#' @param Model,Mle as in \code{getHessianNolog}.
#' @param alpha levels: one set of points per 1 - alpha confidence region.
#' @return a list: one matrix of parameter sets per level (named alpha1e-06, ...), then \code{HessianMat} (the curvature on this scale).
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   d <- data.frame(east = runif(60), north = runif(60))
#'   d$z <- exp(1 + 0.3 * rnorm(60))
#'   fit <- likfitLgmGpu(d, z ~ 1, c("east", "north"), paramToEstimate = c("range", "nugget"),
#'                       profiles = FALSE, profile2d = FALSE)
#'   configMidPoint(fit, alpha = 0.05)$HessianMat
#' }
#' @export
configMidPoint <- function(Model, alpha = c(1e-6, 0.0005, 0.01, 0.1, 0.2, 0.5, 0.8, 0.95, 0.99),
                           Mle = NULL) {
  check_alpha(alpha)
  curv <- lgm_curvature(lgm_parts(Model), Mle, 1, "midpoint")
  e <- eigen(-curv$HessianMat, symmetric = TRUE)
  if (any(e$values <= 0))
    stop("the log-likelihood is not concave at Mle (the Hessian has eigenvalues >= 0): ",
         "Mle is not a maximum", call. = FALSE)
  out <- lapply(alpha, function(a) ellipse_sets(curv, e$vectors, e$values, a))
  names(out) <- paste0("alpha", alpha)
  c(out, list(HessianMat = curv$HessianMat))
}

#' First derivatives of a fitted Matérn model's profile log-likelihood, as gpuRandom's configFirstStep
#'
#' The gradient of the profile log-likelihood at \code{Mle} by central differences of step 0.01 on \code{configMidPoint}'s scale (log range, log shape, log nugget, gamma3, gamma4): near zero at a maximum. gpuRandom's function computes these and returns nothing (its last statement an \code{if} with empty branches); here they are the result.
#' @param Model,Mle as in \code{getHessianNolog}.
#' @param alpha accepted for gpuRandom's calls (unused there too).
#' @return the named vector of first derivatives.
#' @examples
#' if (oclstat_available()) {
#'   set.seed(1)
#'   d <- data.frame(east = runif(60), north = runif(60))
#'   d$z <- exp(1 + 0.3 * rnorm(60))
#'   fit <- likfitLgmGpu(d, z ~ 1, c("east", "north"), paramToEstimate = c("range", "nugget"),
#'                       profiles = FALSE, profile2d = FALSE)
#'   configFirstStep(fit)
#' }
#' @export
configFirstStep <- function(Model, alpha = c(0.01, 0.1, 0.2, 0.5, 0.8), Mle = NULL) {
  parts <- lgm_parts(Model)
  sc <- lgm_scale(parts, Mle, "midpoint")
  d <- length(sc$gamma)
  step <- 0.01
  design <- rbind(diag(d), -diag(d))[as.vector(rbind(seq_len(d), d + seq_len(d))), , drop = FALSE]
  ll <- lgm_loglik(parts, sc$back(sweep(step * design, 2, sc$gamma, "+")), 1)[, 1]
  stats::setNames((ll[2 * seq_len(d) - 1] - ll[2 * seq_len(d)]) / (2 * step), names(sc$gamma))
}

# gpuRandom's likfitLgmGpu on a fit: a grid around it (configParams) unless given, its
# profile likelihoods (prof1dCov), the coefficients' (Prof1dBetas) and the spatial standard
# deviation's (profVariance) in the summary.
likfit_on_fit <- function(model, params, alpha, shapeRestrict, paramToEstimate, boxcox, Betas,
                          sdSpatial, cilevel, reml, convexHullForBetas) {
  parts <- lgm_parts(model)
  if (!is.null(params) && is.null(boxcox)) stop("require boxcox values", call. = FALSE)
  if (is.null(Betas)) stop("Betas matrix missing", call. = FALSE)
  if (is.null(sdSpatial)) stop("variance matrix missing: give sdSpatial", call. = FALSE)
  if (is.null(params)) {
    if (is.null(alpha)) stop("alpha is not provided", call. = FALSE)
    config <- configParams(model, alpha = alpha, shapeRestrict = shapeRestrict)
    sets <- do.call(rbind, config[seq_along(alpha)])
    params <- rbind(parts$mle[colnames(sets)], sets)
    if (is.null(boxcox)) {
      b <- config$boxcoxSetup
      boxcox <- c(seq(b[1], b[9], length.out = 32), parts$boxcox)
    }
  }
  p <- getProfLogL(parts$data, parts$formula, parts$coordinates, as.data.frame(params),
                   boxcox = boxcox, reml = reml)
  prof <- cov_profiles(p$LogLik, p$XVYXVX, p$ssqResidual, paramToEstimate, cilevel,
                       p$paramsRenew, p$boxcox, p$Ndata, p$Nobs, p$Ncov, reml, p$predictors)
  betas <- Prof1dBetas(Betas, cilevel, p$Nobs, p$Ndata, p$Nparam, p$Ncov, p$detVar, p$detReml,
                       p$ssqY, p$XVYXVX, p$jacobian, reml = reml,
                       convexHull = convexHullForBetas)
  sigma <- profVariance(sdSpatial, cilevel, p$Nobs, p$Nparam, p$Ndata, p$detVar, p$detReml,
                        p$ssqResidual, p$jacobian, reml = reml, Ncov = p$Ncov)
  summary <- prof$summary
  summary[c(p$predictors, "sdSpatial"), ] <- rbind(betas$estimates[, 1:3, drop = FALSE],
                                                   sigma$estimates[, 1:3, drop = FALSE])
  c(list(summary = summary, breaks = prof$breaks, mleIndex = prof$mleIndex, LogLik = p$LogLik,
         params = p$paramsRenew),
    p[c("boxcox", "Nobs", "Ncov", "Ndata", "Nparam", "jacobian", "detVar", "detReml", "ssqY",
        "XVYXVX", "ssqBetahat", "ssqResidual")])
}

is_lgm_fit <- function(x) {
  is.list(x) && !is.data.frame(x) && !is.null(x$optim) && !is.null(x$model$formula)
}

# What a fit holds, read from geostatsp's likfitLgm result or oclstat's likfitLgmGpu formula
# fit: the estimated parameters, every parameter's value, the Box-Cox power, the data, the
# coordinates and the formula.
lgm_parts <- function(Model) {
  if (!is.list(Model) || is.null(Model$optim) || is.null(Model$model$formula))
    stop("Model must be a fit from geostatsp's likfitLgm or oclstat's likfitLgmGpu(data, ",
         "formula, ...), with optim and model$formula", call. = FALSE)
  options <- Model$optim$options
  if (is.null(options) || !("opt" %in% colnames(options)))
    stop("Model$optim$options has no column opt (the estimated parameters)", call. = FALSE)
  data <- Model$data
  coordinates <- Model$coordinates
  if (isS4(data) && methods::.hasSlot(data, "coords")) {      # sp's Spatial*DataFrame
    coordinates <- methods::slot(data, "coords")
    data <- methods::slot(data, "data")
  }
  if (is.null(coordinates))
    stop("Model holds no coordinates (Model$data@coords or Model$coordinates)", call. = FALSE)
  b <- Model$parameters["boxcox"]
  if (is.null(b) || is.na(b)) b <- Model$optim$mle["boxcox"]
  opt <- stats::setNames(options[, "opt"], rownames(options))   # names kept for one row too
  list(opt = opt, mle = Model$optim$mle, formula = Model$model$formula,
       data = as.data.frame(data), coordinates = as.matrix(coordinates),
       boxcox = if (is.null(b) || is.na(b)) 1 else unname(b))
}

# The estimated covariance parameters on one of gpuRandom's scales, with the map back to
# parameter sets (the five columns, fixed ones from the fit). kind "plain": sumLogRange,
# log(shape) or 1/sqrt(shape) from 4 on, nugget, aniso1, aniso2; "log": the nugget logged
# (from 0.01); "midpoint": log range, log shape, log nugget, gamma3, gamma4.
lgm_scale <- function(parts, Mle, kind) {
  order <- c("range", "shape", "nugget", "anisoRatio", "anisoAngleRadians")
  if (is.null(Mle)) Mle <- parts$opt
  if (is.null(names(Mle)) || !is.numeric(Mle))
    stop("Mle must be a named numeric vector of covariance parameters", call. = FALSE)
  Mle <- Mle[intersect(order, names(Mle))]
  if (!length(Mle)) stop("Mle holds none of ", paste(order, collapse = ", "), call. = FALSE)
  fixed_of <- function(p) {
    v <- if (p %in% names(parts$mle)) parts$mle[[p]] else c(anisoRatio = 1,
                                                           anisoAngleRadians = 0)[p]
    if (is.null(v) || is.na(v)) stop("Model gives no value of ", p, call. = FALSE)
    unname(v)
  }
  fixed <- setdiff(order, names(Mle))
  fixedVal <- vapply(fixed, fixed_of, numeric(1))
  aniso <- "anisoRatio" %in% names(Mle)
  if (xor(aniso, "anisoAngleRadians" %in% names(Mle)))
    stop("anisoRatio and anisoAngleRadians must be together", call. = FALSE)
  small_nugget <- "nugget" %in% names(Mle) && Mle[["nugget"]] < 0.01
  if (small_nugget) Mle[["nugget"]] <- 0.01
  if (aniso && Mle[["anisoRatio"]] <= 1) {
    Mle[["anisoRatio"]] <- 1 / Mle[["anisoRatio"]]
    Mle[["anisoAngleRadians"]] <- Mle[["anisoAngleRadians"]] + pi / 2
  }
  ratio <- if (aniso) Mle[["anisoRatio"]] else fixedVal[["anisoRatio"]]
  big_shape <- kind != "midpoint" && "shape" %in% names(Mle) && Mle[["shape"]] >= 4
  log_nugget <- kind == "midpoint" || (kind == "log" && "nugget" %in% names(Mle) &&
                                        !small_nugget)   # getHessianLog: from 0.01 only
  g <- c(
    if ("range" %in% names(Mle))
      if (kind == "midpoint") c("log(range)" = log(Mle[["range"]])) else
        c(sumLogRange = log(Mle[["range"]]^2 / ratio)),
    if ("shape" %in% names(Mle))
      if (big_shape) c("1/sqrt(shape)" = 1 / sqrt(Mle[["shape"]])) else
        c("log(shape)" = log(Mle[["shape"]])),
    if ("nugget" %in% names(Mle))
      if (log_nugget) c("log(nugget)" = log(Mle[["nugget"]])) else c(nugget = Mle[["nugget"]]),
    if (aniso) {
      r <- sqrt(Mle[["anisoRatio"]] - 1)
      a <- 2 * Mle[["anisoAngleRadians"]]
      stats::setNames(c(r * cos(a), r * sin(a)),
                      if (kind == "midpoint") c("gamma3", "gamma4") else c("aniso1", "aniso2"))
    })
  back <- function(G) {
    G <- matrix(G, ncol = length(g), dimnames = list(NULL, names(g)))
    col <- function(k) G[, k]
    out <- matrix(rep(fixedVal, each = nrow(G)), nrow(G), length(fixed),
                  dimnames = list(NULL, fixed))
    est <- matrix(NA_real_, nrow(G), length(Mle), dimnames = list(NULL, names(Mle)))
    ratio_g <- rep(ratio, nrow(G))
    if (aniso) {
      z <- complex(real = G[, length(g) - 1], imaginary = G[, length(g)])
      ratio_g <- Mod(z)^2 + 1
      est[, "anisoRatio"] <- ratio_g
      est[, "anisoAngleRadians"] <- Arg(z) / 2
    }
    if ("range" %in% names(Mle))
      est[, "range"] <- if (kind == "midpoint") exp(col("log(range)")) else
        sqrt(exp(col("sumLogRange")) * ratio_g)
    if ("shape" %in% names(Mle))
      est[, "shape"] <- if (big_shape) 1 / col("1/sqrt(shape)")^2 else exp(col("log(shape)"))
    if ("nugget" %in% names(Mle))
      est[, "nugget"] <- if (log_nugget) exp(col("log(nugget)")) else col("nugget")
    cbind(est, out)
  }
  list(gamma = g, back = back, Mle = Mle, fixed = fixed,
       parToLog = intersect(c("range"[kind == "midpoint"], "shape"[!big_shape],
                              "nugget"[log_nugget]), names(Mle)),
       whichAniso = which(names(Mle) %in% c("anisoRatio", "anisoAngleRadians")))
}

# The profile log-likelihood (ML) of the fit's data at parameter sets, a column per power.
lgm_loglik <- function(parts, sets, boxcox) {
  p <- getProfLogL(parts$data, parts$formula, parts$coordinates, as.data.frame(sets),
                   boxcox = boxcox)
  LogLik <- p$LogLik[, match(boxcox, p$boxcox), drop = FALSE]
  colnames(LogLik) <- paste0("boxcox", boxcox)
  LogLik
}

# gpuRandom's points for central differences: the centre, a step either way along each
# parameter, then for each pair (i < j) the corners (+,+), (+,-), (-,+), (-,-).
hessian_design <- function(d) {
  rows <- list(rep(0, d))
  for (i in seq_len(d)) for (s in c(1, -1)) rows[[length(rows) + 1]] <- replace(rep(0, d), i, s)
  for (i in seq_len(d - 1)) for (j in seq(i + 1, length.out = d - i))
    for (s in list(c(1, 1), c(1, -1), c(-1, 1), c(-1, -1)))
      rows[[length(rows) + 1]] <- replace(rep(0, d), c(i, j), s)
  do.call(rbind, rows)
}

lgm_curvature <- function(parts, Mle, boxcox, kind) {
  sc <- lgm_scale(parts, Mle, kind)
  if (is.null(boxcox)) boxcox <- parts$boxcox + c(0, -0.05, 0.05)
  boxcox <- as.double(boxcox)
  if (!(length(boxcox) %in% c(1, 3)) ||
      (length(boxcox) == 3 && abs(boxcox[1] - boxcox[2] - (boxcox[3] - boxcox[1])) > 1e-12))
    stop("boxcox: one power, or three equally spaced (centre, lower, upper)", call. = FALSE)
  d <- length(sc$gamma)
  step <- 0.01
  design <- hessian_design(d)
  sets <- sc$back(sweep(step * design, 2, sc$gamma, "+"))
  LogLik <- lgm_loglik(parts, sets, boxcox)
  ll <- LogLik[, 1]
  H <- matrix(0, d, d, dimnames = list(names(sc$gamma), names(sc$gamma)))
  for (i in seq_len(d))
    H[i, i] <- (ll[2 * i] + ll[2 * i + 1] - 2 * ll[1]) / step^2
  k <- 2 * d + 1
  for (i in seq_len(d - 1)) for (j in seq(i + 1, length.out = d - i)) {
    H[i, j] <- H[j, i] <- (ll[k + 1] - ll[k + 2] - ll[k + 3] + ll[k + 4]) / (4 * step^2)
    k <- k + 4
  }
  setup <- NULL
  if (length(boxcox) == 3) {
    h <- boxcox[1] - boxcox[2]
    curve <- (LogLik[1, 3] - 2 * LogLik[1, 1] + LogLik[1, 2]) / h^2
    if (curve >= 0) {
      warning("the log-likelihood is not concave in the Box-Cox power at ", boxcox[1],
              ": boxcoxSetup is NA", call. = FALSE)
      setup <- rep(NA_real_, 9)
    } else {
      setup <- stats::qnorm(c(0.01, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.99),
                            mean = parts$boxcox, sd = sqrt(-1 / curve))
    }
  }
  list(HessianMat = H, originalPoint = sc$Mle, boxcoxSetup = setup, fixedVar = sc$fixed,
       centralPointGamma = sc$gamma, parToLog = sc$parToLog, whichAniso = sc$whichAniso,
       data = cbind(sets, LogLik), back = sc$back)
}

# The parameter sets on the 1 - alpha ellipsoid: the fit plus sqrt(qchisq(1 - alpha, d))
# E diag(1 / sqrt(v)) u on the curvature's scale for the sphere's points u, mapped back.
ellipse_sets <- function(curv, E, v, alpha) {
  d <- length(curv$centralPointGamma)
  u <- sphere_points(d)
  G <- sqrt(stats::qchisq(1 - alpha, df = d)) * u %*% t(E %*% diag(1 / sqrt(v), d)) +
    matrix(curv$centralPointGamma, nrow(u), d, byrow = TRUE)
  curv$back(G)
}

# gpuRandom's points on the unit sphere of d dimensions, in its order: 24 on the circle (d = 2),
# the golden spiral's 100 (d = 3: heights 1 - (2i - 1) / 100, turning by the golden angle),
# the 600-cell's 120 vertices (d = 4: the axes, the 16 (+-1/2)^4, then the signs of
# (phi, 1, 1 / phi) / 2 over 12 even arrangements of them and 0); for d = 5 (gpuRandom's
# 726 points are a table) the axes and the cube's corners scaled to the sphere; -1, 1 for d = 1.
sphere_points <- function(d) {
  if (d == 2) {
    t <- seq(0, 2 * pi, length.out = 25)[-25]
    return(cbind(cos(t), sin(t)))
  }
  if (d == 3) {
    i <- seq_len(100)
    z <- 1 - (2 * i - 1) / 100
    t <- -(i - 0.5) * pi * (3 - sqrt(5))
    return(unname(cbind(sqrt(1 - z^2) * cos(t), sqrt(1 - z^2) * sin(t), z)))
  }
  if (d == 4) return(cell600_vertices())
  axes <- rbind(diag(d), -diag(d))
  corners <- as.matrix(do.call(expand.grid, rep(list(c(1, -1)), d))) / sqrt(d)
  unname(if (d == 1) axes else rbind(axes, corners))
}

cell600_vertices <- function() {
  phi <- (1 + sqrt(5)) / 2
  values <- c(phi / 2, 1 / 2, 1 / (2 * phi))
  axes <- do.call(rbind, lapply(4:1, function(k) rbind(replace(rep(0, 4), k, 1),
                                                       replace(rep(0, 4), k, -1))))
  halves <- as.matrix(expand.grid(rep(list(c(-0.5, 0.5)), 4)))[, 4:1]
  signs <- as.matrix(expand.grid(c(-1, 1), c(-1, 1), c(-1, 1)))[, 3:1]
  # which of phi/2, 1/2, 1/(2 phi) and 0 (1 to 4) stands at each coordinate
  arrangements <- rbind(c(1, 2, 3, 4), c(1, 4, 2, 3), c(1, 3, 4, 2), c(2, 1, 4, 3),
                        c(2, 3, 1, 4), c(2, 4, 3, 1), c(3, 1, 2, 4), c(3, 2, 4, 1),
                        c(3, 4, 1, 2), c(4, 1, 3, 2), c(4, 2, 1, 3), c(4, 3, 2, 1))
  blocks <- lapply(seq_len(nrow(arrangements)), function(b) {
    m <- matrix(0, 8, 4)
    for (v in 1:3) m[, arrangements[b, ] == v] <- signs[, v] * values[v]
    m
  })
  unname(rbind(axes, halves, do.call(rbind, blocks)))
}

fold_angle <- function(a) {
  a[a > pi / 2] <- a[a > pi / 2] - pi
  a[a < -pi / 2] <- a[a < -pi / 2] + pi
  a
}

check_alpha <- function(alpha) {
  if (!is.numeric(alpha) || !length(alpha) || anyNA(alpha) || any(alpha <= 0 | alpha >= 1))
    stop("alpha must be levels between 0 and 1, e.g. c(0.01, 0.1)", call. = FALSE)
}
