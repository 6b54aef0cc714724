# gpuRandom's profile likelihoods of the variance and of the regression coefficients, from the
# pieces getProfLogL returns (no device work: closed forms over the parameter table).

#' Profile likelihood of the spatial standard deviation, as gpuRandom's profVariance
#'
#' For each value s of \code{sdSpatial}, the log-likelihood maximised over the parameter sets and Box-Cox powers of \code{getProfLogL}'s pieces with the spatial variance fixed at s^2: -2 LogLik = ssqResidual / s^2 + Nobs log(s^2) + detVar + jacobian + Nobs log(2 pi) (ML; REML: (Nobs - Ncov) log(s^2) and detReml added). The estimate is the value of \code{sdSpatial} with the largest profile, the interval where the profile's linear interpolation is above max - qchisq(cilevel, 1) / 2 (its crossings computed exactly, where gpuRandom searches them with \code{rootSolve::uniroot.all}); one crossing gives the grid's other end, as gpuRandom. The profile is plotted, as gpuRandom does.
#' @param sdSpatial values of the spatial standard deviation (at least two).
#' @param cilevel confidence level.
#' @param Nobs,Nparam,Ndata,detVar,detReml,ssqResidual,jacobian \code{getProfLogL}'s pieces.
#' @param reml restricted likelihood (needs \code{Ncov}).
#' @param Ncov the number of covariates (\code{getProfLogL}'s \code{Ncov}; gpuRandom reads it from the caller's workspace).
#' @return list(estimates = a 1 x 4 matrix with columns MLE, lower and upper (e.g. lower95ci) and maximum, LogLik = the profile (a column), breaks).
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(40), north = runif(40))
#'   d$z <- 1 + rnorm(40)
#'   grid <- expand.grid(range = c(0.1, 0.2, 0.4), shape = 1, nugget = c(0.1, 0.5, 1))
#'   p <- getProfLogL(d, z ~ 1, coordinates = c("east", "north"), params = grid)
#'   v <- profVariance(seq(0.3, 2, length.out = 40), cilevel = 0.9, Nobs = p$Nobs,
#'                     Nparam = p$Nparam, Ndata = p$Ndata, detVar = p$detVar,
#'                     detReml = p$detReml, ssqResidual = p$ssqResidual,
#'                     jacobian = p$jacobian)
#'   v$estimates
#' }
#' @export
profVariance <- function(sdSpatial, cilevel = 0.95, Nobs, Nparam, Ndata, detVar, detReml,
                         ssqResidual, jacobian, reml = FALSE, Ncov = NULL) {
  if (!is.numeric(sdSpatial) || length(sdSpatial) < 2 || any(!is.finite(sdSpatial)) ||
      any(sdSpatial <= 0))
    stop("sdSpatial must be two or more positive numbers", call. = FALSE)
  ssqResidual <- pieces_matrix(ssqResidual, Nparam, Ndata, "ssqResidual")
  dof <- Nobs
  constant <- matrix(detVar, Nparam, Ndata) + rep(jacobian, each = Nparam) +
    Nobs * log(2 * pi)
  if (isTRUE(reml)) {
    if (is.null(Ncov)) stop("reml = TRUE needs Ncov (getProfLogL's Ncov)", call. = FALSE)
    dof <- Nobs - Ncov
    constant <- constant + matrix(detReml, Nparam, Ndata)
  }
  LogLik <- matrix(vapply(sdSpatial, function(s) {
    -0.5 * min(ssqResidual / s^2 + dof * log(s^2) + constant)
  }, numeric(1)), ncol = 1)
  breaks <- max(LogLik) - stats::qchisq(cilevel, df = 1) / 2
  mle <- sdSpatial[which.max(LogLik)]
  ci <- profile_crossings(sdSpatial, LogLik[, 1] - breaks)
  plot_profile(sdSpatial, LogLik[, 1] - breaks, c(mle, ci), "sdSpatial")
  if (length(ci) == 1) ci <- if (ci > mle) c(min(sdSpatial), ci) else c(ci, max(sdSpatial))
  if (length(ci) == 0) {
    warning("require a better param matrix", call. = FALSE)
    ci <- c(NA, NA)
  }
  if (length(ci) > 2) {
    warning("invalid ci's retruned", call. = FALSE)      # gpuRandom's words, and its choice
    ci <- ci[3:4]
  }
  estimates <- matrix(c(mle, ci, max(LogLik)), 1,
                      dimnames = list(NULL, c("MLE", ci_names(cilevel), "maximum")))
  list(estimates = estimates, LogLik = LogLik, breaks = breaks)
}

#' Profile likelihoods of the regression coefficients, as gpuRandom's Prof1dBetas
#'
#' For each coefficient a (a column of \code{Betas}) and each value b of it, the log-likelihood maximised over the other coefficients (in closed form, from X'V^-1 X and X'V^-1 Y of \code{getProfLogL}'s pieces), the spatial variance, the parameter sets and the Box-Cox powers: with the other coefficients at their generalised least squares values given beta_a = b, ssqResidual(b) = ssqY - 2 b x_a'V^-1 Y + b^2 x_a'V^-1 x_a - (r - b c)' S^-1 (r - b c), S, r and c the other coefficients' blocks of X'V^-1 X, X'V^-1 Y and X'V^-1 x_a, and -2 LogLik = Nobs log(ssqResidual / Nobs) + detVar + jacobian + Nobs + Nobs log(2 pi) (ML; REML: (Nobs - Ncov) in place of Nobs where it divides and multiplies the logarithm, detReml added). The estimate is the value with the largest profile, the interval where its linear interpolation is above max - qchisq(cilevel, 1) / 2 (crossings computed exactly; one crossing gives the grid's other end, none the grid's ends, as gpuRandom). The profiles are plotted, as gpuRandom does.
#' @param Betas an m x Ncov matrix of values of the coefficients, a column per coefficient (in \code{getProfLogL}'s \code{predictors} order), m >= 6; with \code{I}, the values of coefficient \code{I} alone.
#' @param cilevel confidence level.
#' @param Nobs,Ndata,Nparam,Ncov,detVar,detReml,ssqY,XVYXVX,jacobian \code{getProfLogL}'s pieces.
#' @param reml restricted likelihood.
#' @param I profile coefficient I only (\code{Betas} then its values).
#' @param convexHull gpuRandom's smoothing of the profile's upper hull (needs the geometry and mgcv packages there): not in oclstat, FALSE only.
#' @return list(estimates = a matrix with a row per coefficient and columns MLE, lower and upper (e.g. lower95ci) and maximum, LogLik = the profiles (m x the coefficients), breaks = one per coefficient).
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(40), north = runif(40), x = rnorm(40))
#'   d$z <- 1 + 0.5 * d$x + rnorm(40)
#'   grid <- expand.grid(range = c(0.1, 0.2, 0.4), shape = 1, nugget = c(0.1, 0.5, 1))
#'   p <- getProfLogL(d, z ~ x, coordinates = c("east", "north"), params = grid)
#'   betas <- cbind(seq(0, 2, length.out = 41), seq(-0.5, 1.5, length.out = 41))
#'   b <- Prof1dBetas(betas, cilevel = 0.95, Nobs = p$Nobs, Ndata = p$Ndata,
#'                    Nparam = p$Nparam, Ncov = p$Ncov, detVar = p$detVar,
#'                    detReml = p$detReml, ssqY = p$ssqY, XVYXVX = p$XVYXVX,
#'                    jacobian = p$jacobian)
#'   b$estimates
#' }
#' @export
Prof1dBetas <- function(Betas, cilevel, Nobs, Ndata, Nparam, Ncov, detVar, detReml, ssqY,
                        XVYXVX, jacobian, reml = FALSE, I = NULL, convexHull = FALSE) {
  if (!isFALSE(convexHull))
    stop("convexHull = TRUE (gpuRandom's hull smoothing with geometry and mgcv) is not in ",
         "oclstat; use convexHull = FALSE", call. = FALSE)
  Betas <- as.matrix(Betas)
  if (!is.null(I)) {
    if (length(I) != 1 || !I %in% seq_len(Ncov))
      stop("I must be one of 1..Ncov (", Ncov, "), got ", deparse(I), call. = FALSE)
    Betas <- matrix(Betas, ncol = 1)
  } else if (ncol(Betas) != Ncov) {
    stop("Betas has ", ncol(Betas), " columns where there are Ncov = ", Ncov,
         " coefficients", call. = FALSE)
  }
  if (nrow(Betas) < 6) stop("need more values for accurate estimate", call. = FALSE)
  ssqY <- pieces_matrix(ssqY, Nparam, Ndata, "ssqY")
  XVYXVX <- as.matrix(XVYXVX)
  if (!identical(dim(XVYXVX), as.integer(c(Nparam * Ncov, Ndata + Ncov))))
    stop("XVYXVX must be (Nparam Ncov) x (Ndata + Ncov), as getProfLogL returns it",
         call. = FALSE)
  dof <- if (isTRUE(reml)) Nobs - Ncov else Nobs
  constant <- matrix(detVar, Nparam, Ndata) + rep(jacobian, each = Nparam) +
    Nobs * log(2 * pi) + dof
  if (isTRUE(reml)) constant <- constant + matrix(detReml, Nparam, Ndata)
  which_coef <- if (is.null(I)) seq_len(Ncov) else I
  LogLik <- matrix(0, nrow(Betas), length(which_coef))
  estimates <- matrix(NA_real_, length(which_coef), 4,
                      dimnames = list(NULL, c("MLE", ci_names(cilevel), "maximum")))
  breaks <- numeric(length(which_coef))
  for (k in seq_along(which_coef)) {
    parts <- beta_profile_parts(XVYXVX, which_coef[k], Nparam, Ncov, Ndata)
    values <- Betas[, k]
    LogLik[, k] <- vapply(values, function(b) {
      ssq <- ssqY - 2 * b * parts$xay + b^2 * parts$xaxa -
        (parts$a - 2 * b * parts$b + b^2 * parts$c)
      max(-0.5 * (dof * log(ssq / dof) + constant))
    }, numeric(1))
    breaks[k] <- max(LogLik[, k]) - stats::qchisq(cilevel, df = 1) / 2
    mle <- values[which.max(LogLik[, k])]
    ci <- profile_crossings(values, LogLik[, k] - breaks[k])
    plot_profile(values, LogLik[, k] - breaks[k], c(mle, ci), paste("beta", which_coef[k]))
    if (length(ci) == 1) ci <- if (ci > mle) c(min(values), ci) else c(ci, max(values))
    if (length(ci) == 0) ci <- range(values)
    if (length(ci) > 2) {
      warning("invalid ci returned", call. = FALSE)
      ci <- c(NA, NA)
    }
    estimates[k, ] <- c(mle, ci, max(LogLik[, k]))
  }
  list(estimates = estimates, LogLik = LogLik, breaks = breaks)
}

#' Profile likelihoods of the covariance parameters over a grid, as gpuRandom's prof1dCov
#'
#' From \code{getProfLogL}'s pieces over a table of parameter sets: the overall maximum (its regression coefficients and spatial standard deviation) and, for each parameter in \code{paramToEstimate}, the estimate (its value at the maximum) and the interval where the profile is above max - qchisq(cilevel, 1) / 2. As gpuRandom: each parameter set's largest log-likelihood over the Box-Cox powers (sets more than 10 below the maximum left out) is a point (x, profile) with x the parameter on gpuRandom's scale (log for range and shape, 2 log for combinedRange = sqrt(range^2 / anisoRatio), as it is for nugget, sdNugget = sqrt(nugget) sdSpatial, aniso1 = sqrt(anisoRatio - 1) cos(2 anisoAngleRadians), aniso2 = the sine's, anisoRatio and anisoAngleRadians); the profile is the linear interpolation of the points' upper convex hull (gpuRandom finds the hull with the geometry package; here a monotone chain), and the interval's ends are its crossings (computed exactly, where gpuRandom searches them with \code{rootSolve::uniroot.all}); one crossing gives the other end of the points' range, with gpuRandom's message. Box-Cox (with more than 5 powers): the maximum over the parameter sets per power, interpolated linearly. Each profile is plotted (gpuRandom also draws a smoothed curve through the hull, by mgcv, that does not enter the numbers).
#' @param LogLik,XVYXVX,ssqResidual,boxcox,Ndata,Nobs,Ncov,predictors \code{getProfLogL}'s pieces.
#' @param paramToEstimate the parameters (any of range, combinedRange, Newrange = log(range^2 / anisoRatio), shape, nugget, sdNugget, aniso1, aniso2, anisoRatio, anisoAngleRadians, boxcox).
#' @param cilevel confidence level.
#' @param params the parameter sets (\code{getProfLogL}'s \code{paramsRenew}).
#' @param reml whether \code{getProfLogL} ran with \code{reml = TRUE} (the spatial variance's divisor).
#' @param verbose accepted for gpuRandom's calls.
#' @return list(summary = a matrix with rows the predictors, sdSpatial and the parameters, columns estimate, lower and upper (e.g. lower95ci); mleIndex = the row and column of the maximum in \code{LogLik}; breaks).
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(50), north = runif(50))
#'   d$z <- 1 + rnorm(50)
#'   grid <- expand.grid(range = exp(seq(log(0.02), log(2), length.out = 15)), shape = 1,
#'                       nugget = c(0, 0.1, 0.3, 0.6, 1, 2, 4))
#'   p <- getProfLogL(d, z ~ 1, coordinates = c("east", "north"), params = grid)
#'   prof1dCov(p$LogLik, p$XVYXVX, p$ssqResidual, c("range", "nugget"), 0.95,
#'             p$paramsRenew, p$boxcox, p$Ndata, p$Nobs, p$Ncov, reml = FALSE,
#'             predictors = p$predictors)$summary
#' }
#' @export
prof1dCov <- function(LogLik, XVYXVX, ssqResidual,
                      paramToEstimate = c("combinedRange", "shape", "nugget", "aniso1", "aniso2",
                                          "boxcox"),
                      cilevel = 0.95, params, boxcox, Ndata, Nobs, Ncov, reml, predictors,
                      verbose = FALSE) {
  cov_profiles(LogLik, XVYXVX, ssqResidual, paramToEstimate, cilevel, params, boxcox, Ndata,
               Nobs, Ncov, reml, predictors)[c("summary", "mleIndex", "breaks")]
}

# prof1dCov's work, with each parameter's hull (x on gpuRandom's scale, profile - breaks)
# kept for likfitLgmCov1d's curves; without intervals, the estimates alone (likfitLgmCov2d).
cov_profiles <- function(LogLik, XVYXVX, ssqResidual, paramToEstimate, cilevel, params, boxcox,
                         Ndata, Nobs, Ncov, reml, predictors, intervals = TRUE) {
  scales <- list(range = c(log, exp), combinedRange = c(function(x) 2 * log(x),
                                                        function(x) exp(x / 2)),
                 shape = c(log, exp), nugget = c(identity, identity),
                 Newrange = c(identity, identity), sdNugget = c(identity, identity),
                 aniso1 = c(identity, identity),
                 aniso2 = c(identity, identity), anisoRatio = c(identity, identity),
                 anisoAngleRadians = c(identity, identity))
  unknown <- setdiff(paramToEstimate, c(names(scales), "boxcox"))
  if (length(unknown))
    stop("paramToEstimate: unknown ", paste(unknown, collapse = ", "), "; the parameters are ",
         paste(c(names(scales), "boxcox"), collapse = ", "), call. = FALSE)
  LogLik <- as.matrix(LogLik)
  params <- as.data.frame(params)
  if (nrow(LogLik) != nrow(params))
    stop("LogLik has ", nrow(LogLik), " rows where params has ", nrow(params), call. = FALSE)
  if (is.null(params$anisoRatio)) params$anisoRatio <- 1
  if (is.null(params$anisoAngleRadians))
    params$anisoAngleRadians <- if (is.null(params$anisoAngleDegrees)) 0 else
      params$anisoAngleDegrees * pi / 180
  for (p in setdiff(intersect(paramToEstimate, c("range", "shape", "nugget")), names(params)))
    stop("params has no column ", p, call. = FALSE)
  summary <- matrix(NA_real_, Ncov + 1 + length(paramToEstimate), 3,
                    dimnames = list(c(predictors, "sdSpatial", paramToEstimate),
                                    c("estimate", ci_names(cilevel))))
  index <- which(LogLik == max(LogLik, na.rm = TRUE), arr.ind = TRUE)
  best <- index[1, ]
  sd_spatial <- sqrt(ssqResidual[best[1], best[2]] / (if (isTRUE(reml)) Nobs - Ncov else Nobs))
  summary["sdSpatial", 1] <- sd_spatial
  maximum <- max(LogLik)
  breaks <- maximum - stats::qchisq(cilevel, df = 1) / 2
  derived <- function(p) switch(p,
    combinedRange = sqrt(params$range^2 / params$anisoRatio),
    Newrange = log(params$range^2 / params$anisoRatio),
    sdNugget = sqrt(params$nugget) * sd_spatial,
    aniso1 = sqrt(params$anisoRatio - 1) * cos(2 * params$anisoAngleRadians),
    aniso2 = sqrt(params$anisoRatio - 1) * sin(2 * params$anisoAngleRadians),
    params[[p]])
  profile <- apply(LogLik, 1, max)
  near <- profile > maximum - 10
  hulls <- list()
  for (p in setdiff(paramToEstimate, "boxcox")) {
    to <- scales[[p]][[1]]
    back <- scales[[p]][[2]]
    values <- derived(p)
    x <- to(values[near])
    g <- profile[near] - breaks
    hull <- upper_hull(x, g)
    hulls[[p]] <- hull
    mle <- values[best[1]]
    ci <- if (intervals) back(profile_crossings(hull$x, hull$y))
    plot_profile(back(hull$x), hull$y, c(mle, ci), p)
    summary[p, ] <- c(mle, if (intervals) interval_ends(ci, mle, back(range(x)), p,
                                                        "error in params") else c(NA, NA))
  }
  if ("boxcox" %in% paramToEstimate) {
    if (length(boxcox) > 5) {
      g <- apply(LogLik, 2, max) - breaks
      mle <- boxcox[best[2]]
      ci <- if (intervals) profile_crossings(boxcox, g)
      plot_profile(boxcox, g, c(mle, ci), "boxcox")
      summary["boxcox", ] <- c(mle, if (intervals)
        interval_ends(ci, mle, range(boxcox), "boxcox", "error in param matrix",
                      none_ok = TRUE) else c(NA, NA))
    } else {
      message("boxcox: not enough values for interpolation!")
    }
  }
  summary[predictors, 1] <- coefficients_at(XVYXVX, best, Ncov, Ndata, predictors)
  list(summary = summary, mleIndex = index, breaks = breaks, hulls = hulls)
}

#' A Matérn model's likelihood over a grid with one-parameter profiles, as gpuRandom's likfitLgmCov1d
#'
#' \code{getProfLogL} (the log-likelihood of every parameter set and Box-Cox power, on the device) followed by \code{prof1dCov} (each parameter's estimate and interval from the upper convex hull of its profile's points), in one call with gpuRandom's arguments and result. Each \code{prof<parameter>} of the result is the profile's curve on 1001 points of the parameter's gpuRandom scale (x1: log range, log shape, 2 log combinedRange, the others as they are; z: profile - breaks), the linear interpolation of the hull (gpuRandom's is mgcv's smoothing of the same points, which does not enter the intervals).
#' @param data,formula,coordinates,params,boxcox,type,reml,verbose as in \code{getProfLogL}'s gpuRandom form.
#' @param paramToEstimate the parameters to estimate (see \code{prof1dCov}).
#' @param cilevel confidence level.
#' @param NparamPerIter,Nglobal,Nlocal,NlocalCache accepted for gpuRandom's calls (the device chooses its work sizes).
#' @return gpuRandom's list: LogLik, breaks, breaks2d (max - qchisq(cilevel, 2) / 2), mleIndex, summary, one prof<parameter> per estimated parameter (profrange, profcombinedRange, profShapeLog, profNugget, profsdNugget, profaniso1, profaniso2, profRatio, profRadians), params, Infindex, boxcox, Nobs, Ncov, Ndata, Nparam, ssqY, ssqBetahat, ssqResidual, detVar, detReml, jacobian, XVYXVX.
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(50), north = runif(50))
#'   d$z <- 1 + rnorm(50)
#'   grid <- expand.grid(range = exp(seq(log(0.02), log(2), length.out = 15)), shape = 1,
#'                       nugget = c(0, 0.1, 0.3, 0.6, 1, 2, 4))
#'   fit <- likfitLgmCov1d(d, z ~ 1, coordinates = c("east", "north"), params = grid,
#'                         paramToEstimate = c("range", "nugget"), boxcox = 1,
#'                         cilevel = 0.95)
#'   fit$summary
#' }
#' @export
likfitLgmCov1d <- function(data, formula, coordinates, params,
                           paramToEstimate = c("range", "nugget"), boxcox, cilevel,
                           type = c("double", "float"), reml = FALSE, NparamPerIter = NULL,
                           Nglobal = NULL, Nlocal = NULL, NlocalCache = NULL, verbose = FALSE) {
  pieces <- getProfLogL(data, formula, coordinates, params, boxcox, type = type, reml = reml,
                        verbose = verbose)
  prof <- cov_profiles(pieces$LogLik, pieces$XVYXVX, pieces$ssqResidual, paramToEstimate,
                       cilevel, pieces$paramsRenew, pieces$boxcox, pieces$Ndata, pieces$Nobs,
                       pieces$Ncov, reml, pieces$predictors)
  names_of <- c(range = "profrange", combinedRange = "profcombinedRange",
                Newrange = "profNewrange",
                shape = "profShapeLog", nugget = "profNugget", sdNugget = "profsdNugget",
                aniso1 = "profaniso1", aniso2 = "profaniso2", anisoRatio = "profRatio",
                anisoAngleRadians = "profRadians")
  curves <- lapply(prof$hulls, function(h) {
    x1 <- seq(min(h$x), max(h$x), length.out = 1001)
    data.frame(x1 = x1, z = if (length(h$x) > 1) stats::approx(h$x, h$y, x1)$y else h$y)
  })
  names(curves) <- names_of[names(curves)]
  c(list(LogLik = pieces$LogLik, breaks = prof$breaks,
         breaks2d = max(pieces$LogLik) - stats::qchisq(cilevel, df = 2) / 2,
         mleIndex = prof$mleIndex, summary = prof$summary),
    curves,
    list(params = pieces$paramsRenew), pieces[c("Infindex", "boxcox", "Nobs", "Ncov", "Ndata",
                                                 "Nparam", "ssqY", "ssqBetahat",
                                                 "ssqResidual", "detVar", "detReml",
                                                 "jacobian", "XVYXVX")])
}

# gpuRandom's rules for an interval's ends from the crossings: one crossing takes the other
# end of the range (with its message), none or more than two give NA (a warning; for the
# Box-Cox power, none leaves NA without one).
interval_ends <- function(ci, mle, ends, what, complaint, none_ok = FALSE) {
  if (length(ci) == 1) {
    if (ci > mle) {
      message("did not find lower ci for ", what)
      return(c(ends[1], ci))
    }
    message("did not find upper ci for ", what)
    return(c(ci, ends[2]))
  }
  if (length(ci) == 2) return(ci)
  if (!(none_ok && length(ci) == 0)) warning(complaint, call. = FALSE)
  c(NA_real_, NA_real_)
}

# The vertices of the upper convex hull of the points (x, y), from the smallest x to the
# largest (Andrew's monotone chain; points on a hull edge are not vertices).
upper_hull <- function(x, y) {
  o <- order(x, -y)
  x <- x[o]
  y <- y[o]
  keep <- !duplicated(x)                   # the highest point of each x
  x <- x[keep]
  y <- y[keep]
  h <- integer(0)
  for (i in rev(seq_along(x))) {
    while (length(h) >= 2) {
      a <- h[length(h) - 1]
      b <- h[length(h)]
      if ((x[b] - x[a]) * (y[i] - y[a]) - (y[b] - y[a]) * (x[i] - x[a]) > 0) break
      h <- h[-length(h)]
    }
    h <- c(h, i)
  }
  h <- rev(h)
  list(x = x[h], y = y[h])
}

#' Joint profile likelihood of two regression coefficients, as gpuRandom's Prof2dBetas
#'
#' For each row b of \code{Betas} (every coefficient of the model fixed; a grid made by \code{expand.grid(prof2list)}), the log-likelihood maximised over the spatial variance, the parameter sets and the Box-Cox powers of \code{getProfLogL}'s pieces: -2 LogLik = Nobs log((ssqY - 2 b'X'V^-1 Y + b'X'V^-1 X b) / Nobs) + detVar + jacobian + Nobs + Nobs log(2 pi) (ML, as gpuRandom's). Drawn as gpuRandom draws it: contours at max - qchisq(cilevel, 2) / 2 and one to three units either side.
#' @param Betas an m x Ncov matrix of coefficient vectors (gpuRandom's: two coefficients, \code{expand.grid(prof2list)}).
#' @param prof2list the two coefficients' values whose grid \code{Betas} is (for the contour plot).
#' @param Nobs,Nparam,Ndata,detVar,ssqY,XVYXVX,jacobian \code{getProfLogL}'s pieces.
#' @param cilevel confidence level.
#' @return list(dataforplot = data.frame(Betas1, Betas2, ..., LogLik), breaks, ssqForBetas = b'X'V^-1 X b at the parameter set of the maximum, an m x 1 matrix).
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(40), north = runif(40), x = rnorm(40))
#'   d$z <- 1 + 0.5 * d$x + rnorm(40)
#'   grid <- expand.grid(range = c(0.1, 0.4), shape = 1, nugget = c(0.1, 1))
#'   p <- getProfLogL(d, z ~ x, coordinates = c("east", "north"), params = grid)
#'   axes <- list(seq(0.4, 1.6, length.out = 13), seq(0, 1, length.out = 11))
#'   b2 <- Prof2dBetas(as.matrix(expand.grid(axes)), axes, Nobs = p$Nobs, Nparam = p$Nparam,
#'                     Ndata = p$Ndata, detVar = p$detVar, ssqY = p$ssqY,
#'                     XVYXVX = p$XVYXVX, jacobian = p$jacobian, cilevel = 0.95)
#'   head(b2$dataforplot)
#' }
#' @export
Prof2dBetas <- function(Betas, prof2list, Nobs, Nparam, Ndata, detVar, ssqY, XVYXVX,
                        jacobian, cilevel) {
  Betas <- as.matrix(Betas)
  ncov <- ncol(Betas)
  XVYXVX <- as.matrix(XVYXVX)
  if (!identical(dim(XVYXVX), as.integer(c(Nparam * ncov, Ndata + ncov))))
    stop("Betas has ", ncov, " columns: XVYXVX must then be (Nparam ", ncov, ") x (Ndata + ",
         ncov, "), as getProfLogL returns it for a model of ", ncov, " coefficients",
         call. = FALSE)
  if (length(prof2list) != 2 ||
      length(prof2list[[1]]) * length(prof2list[[2]]) != nrow(Betas))
    stop("prof2list must hold the two axes whose grid Betas is (expand.grid(prof2list))",
         call. = FALSE)
  ssqY <- pieces_matrix(ssqY, Nparam, Ndata, "ssqY")
  constant <- matrix(detVar, Nparam, Ndata) + rep(jacobian, each = Nparam) + Nobs +
    Nobs * log(2 * pi)
  blocks <- lapply(seq_len(Nparam), function(i) {
    block <- XVYXVX[(i - 1) * ncov + seq_len(ncov), , drop = FALSE]
    xvx <- block[, Ndata + seq_len(ncov), drop = FALSE]
    xvx[upper.tri(xvx)] <- t(xvx)[upper.tri(xvx)]
    list(xvy = block[, seq_len(Ndata), drop = FALSE], xvx = xvx)
  })
  m2 <- numeric(nrow(Betas))
  ssq_beta <- numeric(nrow(Betas))
  for (k in seq_len(nrow(Betas))) {
    b <- Betas[k, ]
    mid <- t(vapply(blocks, function(bl) as.numeric(b %*% bl$xvy), numeric(Ndata)))
    quad <- vapply(blocks, function(bl) as.numeric(b %*% bl$xvx %*% b), numeric(1))
    total <- Nobs * log((ssqY - 2 * matrix(mid, Nparam, Ndata) + quad) / Nobs) + constant
    m2[k] <- min(total)
    ssq_beta[k] <- quad[which(total == min(total, na.rm = TRUE), arr.ind = TRUE)[1, 1]]
  }
  loglik <- -0.5 * m2
  result <- data.frame(Betas, LogLik = loglik)
  colnames(result) <- c(paste0("Betas", seq_len(ncov)), "LogLik")
  breaks <- max(loglik) - stats::qchisq(cilevel, df = 2) / 2
  graphics::contour(prof2list[[1]], prof2list[[2]],
                    matrix(loglik, length(prof2list[[1]]), length(prof2list[[2]])),
                    levels = breaks + c(1, 2, -3, -2, -1, 0), xlab = "Beta1", ylab = "Beta2")
  list(dataforplot = result, breaks = breaks, ssqForBetas = matrix(ssq_beta, ncol = 1))
}

#' Contour plot of a two-parameter profile likelihood, as gpuRandom's prof2dCov
#'
#' The log-likelihood of every parameter set (the Box-Cox column of the overall maximum) over two of its parameters, with the contour at max - qchisq(cilevel, 2) / 2 (the joint confidence region); the parameter sets as grey points. Needs ggplot2.
#' @param LogLik \code{getProfLogL}'s LogLik (Nparam x Ndata).
#' @param paramToEstimate the two parameters (columns of \code{params}).
#' @param cilevel confidence level.
#' @param params the parameter sets (\code{getProfLogL}'s \code{paramsRenew}).
#' @return a ggplot object.
#' @examples
#' if (oclstat_available() && requireNamespace("ggplot2", quietly = TRUE)) {
#'   d <- data.frame(east = runif(40), north = runif(40))
#'   d$z <- 1 + rnorm(40)
#'   grid <- expand.grid(range = seq(0.05, 0.5, length.out = 8), shape = 1,
#'                       nugget = seq(0, 1, length.out = 6))
#'   p <- getProfLogL(d, z ~ 1, coordinates = c("east", "north"), params = grid)
#'   prof2dCov(p$LogLik, c("range", "nugget"), 0.95, p$paramsRenew)
#' }
#' @export
prof2dCov <- function(LogLik, paramToEstimate = c("range", "nugget"), cilevel, params) {
  if (length(paramToEstimate) > 2) stop("should fix the rest params for a 2D plot",
                                        call. = FALSE)
  if (!requireNamespace("ggplot2", quietly = TRUE))
    stop("prof2dCov needs the ggplot2 package", call. = FALSE)
  params <- as.data.frame(params)
  missing_cols <- setdiff(paramToEstimate, names(params))
  if (length(missing_cols))
    stop("params has no column ", paste(missing_cols, collapse = ", "), call. = FALSE)
  LogLik <- as.matrix(LogLik)
  if (nrow(LogLik) != nrow(params))
    stop("LogLik has ", nrow(LogLik), " rows where params has ", nrow(params), call. = FALSE)
  breaks <- max(LogLik) - stats::qchisq(cilevel, df = 2) / 2
  best <- which(LogLik == max(LogLik, na.rm = TRUE), arr.ind = TRUE)[1, ]
  frame <- data.frame(params[, paramToEstimate], LogLik = LogLik[, best[2]])
  names(frame) <- c(paramToEstimate, "LogLik")
  mapping <- do.call(ggplot2::aes, lapply(c(x = paramToEstimate[1], y = paramToEstimate[2],
                                            z = "LogLik"), as.name))
  ggplot2::ggplot(frame, mapping) + ggplot2::theme_bw() +
    ggplot2::scale_x_continuous(limits = range(frame[[1]])) +
    ggplot2::scale_y_continuous(limits = range(frame[[2]])) +
    ggplot2::theme(panel.grid.major = ggplot2::element_blank(),
                   panel.grid.minor = ggplot2::element_blank()) +
    ggplot2::geom_point(size = 0.5, colour = "grey") +
    ggplot2::stat_contour(breaks = breaks)
}

# For coefficient a, per parameter set (rows) and response (columns): x_a'V^-1 Y, x_a'V^-1 x_a
# and, with S the other coefficients' block of X'V^-1 X, r their X'V^-1 Y and c their
# X'V^-1 x_a: a = r'S^-1 r, b = c'S^-1 r, c = c'S^-1 c (S absent with one coefficient: 0).
beta_profile_parts <- function(XVYXVX, a, Nparam, Ncov, Ndata) {
  out <- list(xay = matrix(0, Nparam, Ndata), xaxa = matrix(0, Nparam, Ndata),
              a = matrix(0, Nparam, Ndata), b = matrix(0, Nparam, Ndata),
              c = matrix(0, Nparam, Ndata))
  for (i in seq_len(Nparam)) {
    block <- XVYXVX[(i - 1) * Ncov + seq_len(Ncov), , drop = FALSE]
    xvy <- block[, seq_len(Ndata), drop = FALSE]
    xvx <- block[, Ndata + seq_len(Ncov), drop = FALSE]
    xvx[upper.tri(xvx)] <- t(xvx)[upper.tri(xvx)]
    out$xay[i, ] <- xvy[a, ]
    out$xaxa[i, ] <- xvx[a, a]
    if (Ncov > 1) {
      s <- xvx[-a, -a, drop = FALSE]
      r <- xvy[-a, , drop = FALSE]
      cc <- xvx[-a, a, drop = FALSE]
      sr <- solve(s, r)
      sc <- solve(s, cc)
      out$a[i, ] <- colSums(r * sr)
      out$b[i, ] <- colSums(cc[, 1] * sr)
      out$c[i, ] <- sum(cc * sc)
    }
  }
  out
}

# A piece given as a vector or matrix, as an Nparam x Ndata matrix.
pieces_matrix <- function(x, Nparam, Ndata, name) {
  x <- as.matrix(x)
  if (length(x) != Nparam * Ndata)
    stop(name, " must have Nparam x Ndata = ", Nparam, " x ", Ndata, " values, got ",
         length(x), call. = FALSE)
  matrix(x, Nparam, Ndata)
}

# Where the linear interpolation of (x, g) crosses zero: each sign change between neighbours
# (x sorted), at the exact crossing of the segment; a zero at a grid point counts once.
profile_crossings <- function(x, g) {
  o <- order(x)
  x <- x[o]
  g <- g[o]
  out <- x[g == 0]
  i <- which(g[-1] * g[-length(g)] < 0)
  sort(c(out, x[i] - g[i] * (x[i + 1] - x[i]) / (g[i + 1] - g[i])))
}

ci_names <- function(cilevel) paste0(c("lower", "upper"), cilevel * 100, "ci")

# gpuRandom's plot of a profile: its points above the cut, the interpolation, the estimate
# and the interval's ends.
plot_profile <- function(x, g, marks, xlab) {
  o <- order(x)
  graphics::plot(x[o], g[o], cex = 0.2, col = "blue", xlab = xlab, ylab = "profile - breaks")
  graphics::lines(x[o], g[o], col = 2)
  graphics::abline(h = 0, lty = 2)
  graphics::abline(v = marks, lty = 2)
}
