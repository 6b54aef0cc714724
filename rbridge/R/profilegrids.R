# gpuRandom's grid functions beside its profiles (profiles.R): the likelihood at a fixed
# spatial variance (sd_Range), the joint grid's estimates on gpuRandom's transformed scales
# (likfitLgmCov2d), and the grid that gpuRandom builds from a fitted model's summary
# (ParamsFromLgm). The likelihood pieces come from getProfLogL (spatial.R).

#' The log-likelihood of a Matérn model at a fixed spatial variance, as gpuRandom's sd_Range
#'
#' gpuRandom's call \code{sd_Range(data, formula, coordinates, params, boxcox, cilevel, ...)}: every row of \code{params} fixes the spatial variance sigma^2 (its \code{variance} column) beside range, shape, nugget and the anisotropy, so the covariance is V = sigma^2 R + nugget I, R the Matérn correlation (geostatsp's and gpuRandom's conventions where a variance is given: the nugget is the nugget's own variance, the diagonal variance + nugget); the regression coefficients are still profiled out (generalised least squares). -2 LogLik = Y'V^-1 Y - b'X'V^-1 X b + log det V + jacobian + Nobs log(2 pi) (ML) and, with \code{reml = TRUE}, log det X'V^-1 X added. The pieces of the result (\code{ssqY}, \code{ssqBetahat}, \code{ssqResidual}, \code{detVar}, \code{detReml}, \code{XVYXVX}) are those of V, the variance included. gpuRandom's own code builds V with the variance and then divides by the variance again (its likelihood counts sigma^2 twice unless sigma^2 = 1); here it is counted once, so that at sigma^2 = ssqResidual / Nobs of \code{getProfLogL} the log-likelihood is \code{getProfLogL}'s profile log-likelihood.
#' @param data,formula,coordinates as in \code{getProfLogL}'s gpuRandom form.
#' @param params data.frame or matrix of parameter sets with a \code{variance} column (sigma^2 > 0), one set per row.
#' @param boxcox Box-Cox powers; 1 is always computed and kept first (then 0, then the others), as gpuRandom's sd_Range does.
#' @param cilevel confidence level of \code{breaks} (max - qchisq(cilevel, 2) / 2, gpuRandom's).
#' @param type "double" or "float" (accepted for gpuRandom's calls; the device's double precision is used).
#' @param reml restricted maximum likelihood instead of ML.
#' @param NparamPerIter,Nglobal,Nlocal,NlocalCache accepted for gpuRandom's calls (the device chooses its work sizes).
#' @param verbose TRUE prints the sizes and the device.
#' @return gpuRandom's list: LogLik (Nparam x Ndata), minusTwoLogLik, breaks, summary (the coefficients at the maximum, an Ncov x 1 matrix "estimate"), Nobs, Ncov, Ndata, Nparam, ssqY, ssqBetahat, ssqResidual, detVar, detReml, jacobian, XVYXVX.
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(40), north = runif(40))
#'   d$z <- 1 + rnorm(40)
#'   grid <- expand.grid(range = c(0.1, 0.3), shape = 1, nugget = 0.2,
#'                       variance = c(0.5, 1, 2))
#'   s <- sd_Range(d, z ~ 1, coordinates = c("east", "north"), params = grid, boxcox = 1,
#'                 cilevel = 0.95)
#'   cbind(grid, s$LogLik)
#' }
#' @export
sd_Range <- function(data, formula, coordinates, params, boxcox, cilevel,
                     type = c("double", "float"), reml = FALSE, NparamPerIter = NULL,
                     Nglobal = NULL, Nlocal = NULL, NlocalCache = NULL, verbose = FALSE) {
  if (!is.data.frame(params) && !is.matrix(params))
    stop("params must be a data.frame or matrix of parameter sets, one per row", call. = FALSE)
  s2 <- as.data.frame(params)$variance
  if (is.null(s2))
    stop("params needs a variance column: sd_Range fixes the spatial variance of each set",
         call. = FALSE)
  if (!is.numeric(s2) || anyNA(s2) || any(s2 <= 0))
    stop("params: the variance column must be positive numbers", call. = FALSE)
  check_cilevel(cilevel)
  sets <- as.data.frame(params)
  if (!is.null(sets$nugget)) sets$nugget <- sets$nugget / s2   # V = s2 (R + nugget / s2 I)
  p <- getProfLogL(data, formula, coordinates, sets, boxcox_with_one(boxcox), type = type,
                   reml = reml, verbose = verbose)
  cols <- rep(seq_len(p$Ndata), each = p$Nparam)
  m2 <- p$ssqResidual / s2 + p$detVar + p$Nobs * log(2 * pi) + p$jacobian[cols] +
    if (isTRUE(reml)) (p$Nobs - p$Ncov) * log(s2) + p$detReml else p$Nobs * log(s2)
  m2 <- matrix(m2, p$Nparam, p$Ndata, dimnames = list(NULL, colnames(p$LogLik)))
  LogLik <- -m2 / 2
  best <- which(LogLik == max(LogLik, na.rm = TRUE), arr.ind = TRUE)[1, ]
  block <- rep(s2, each = p$Ncov)
  list(LogLik = LogLik, minusTwoLogLik = m2,
       breaks = max(LogLik) - stats::qchisq(cilevel, df = 2) / 2,
       summary = coefficients_at(p$XVYXVX, best, p$Ncov, p$Ndata, p$predictors),
       Nobs = p$Nobs, Ncov = p$Ncov, Ndata = p$Ndata, Nparam = p$Nparam,
       ssqY = p$ssqY / s2, ssqBetahat = p$ssqBetahat / s2, ssqResidual = p$ssqResidual / s2,
       detVar = p$detVar + p$Nobs * log(s2), detReml = p$detReml - p$Ncov * log(s2),
       jacobian = p$jacobian, XVYXVX = p$XVYXVX / block)
}

#' A Matérn model's likelihood over a grid with estimates on gpuRandom's transformed scales, as gpuRandom's likfitLgmCov2d
#'
#' \code{getProfLogL} over the grid (1 always among the Box-Cox powers, first), then each parameter of \code{paramToEstimate} estimated from its profile: \code{Newrange} = log(range^2 / anisoRatio) (on that scale, as gpuRandom reports it), \code{range}, \code{combinedRange}, \code{shape}, \code{nugget}, \code{sdNugget} = sqrt(nugget) sdSpatial, \code{anisoRatio}, \code{anisoAngleRadians}, \code{aniso1}, \code{aniso2} (see \code{prof1dCov}) and \code{boxcox}. The estimate is the parameter's value at the grid's maximum, the top of the upper convex hull of its profile's points (gpuRandom maximises mgcv's smoothing of those hull points between its \code{seq*} bounds, which moves the estimate between grid values); the Box-Cox power is estimated from more than five powers only (with a message otherwise, as gpuRandom). Each profile is drawn as gpuRandom draws it. The parameter sets gain gpuRandom's columns \code{Newrange}, \code{gamma3} and \code{gamma4} (sqrt(ratio - 1) cos(2 angle) and sin(2 angle), the ratio taken above 1: below 1 as 1 / ratio with the angle turned by pi / 2).
#' @param data,formula,coordinates,params,type,reml,verbose as in \code{getProfLogL}'s gpuRandom form.
#' @param paramToEstimate the parameters to estimate (listed above).
#' @param boxcox Box-Cox powers of the response.
#' @param cilevel confidence level: \code{breaks} = max - qchisq(cilevel, df) / 2.
#' @param df degrees of freedom of \code{breaks} (gpuRandom's default 2: a joint region of two parameters).
#' @param seqNewRange,seqShapelog,seqNugget,seqRatio,seqRadians gpuRandom's bounds for its smoothed curves; accepted for its calls (the estimates here do not depend on them).
#' @param NparamPerIter,Nglobal,Nlocal,NlocalCache accepted for gpuRandom's calls (the device chooses its work sizes).
#' @return gpuRandom's list: LogLik (columns boxcox1, ...), breaks, summary (rows the coefficients, sdSpatial and the estimated parameters; one column "estimate"), params (the sets with Newrange, gamma3, gamma4), Infindex (always empty: a set whose covariance is not positive definite stops \code{getProfLogL} with its row named), Nobs, Ncov, Ndata, Nparam, ssqY, ssqBetahat, ssqResidual, detVar, detReml, jacobian, XVYXVX.
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(east = runif(50), north = runif(50))
#'   d$z <- 1 + rnorm(50)
#'   grid <- expand.grid(range = exp(seq(log(0.02), log(2), length.out = 10)), shape = 1,
#'                       nugget = c(0, 0.2, 0.5, 1, 2), anisoRatio = c(1, 2),
#'                       anisoAngleRadians = 0)
#'   fit <- likfitLgmCov2d(d, z ~ 1, coordinates = c("east", "north"), params = grid,
#'                         paramToEstimate = c("Newrange", "nugget"), boxcox = 1,
#'                         cilevel = 0.95)
#'   fit$summary
#' }
#' @export
likfitLgmCov2d <- function(data, formula, coordinates, params,
                           paramToEstimate = c("range", "nugget"), boxcox, cilevel, df = 2,
                           seqNewRange = NULL, seqShapelog = NULL, seqNugget = NULL,
                           seqRatio = NULL, seqRadians = NULL, type = c("double", "float"),
                           reml = FALSE, NparamPerIter = NULL, Nglobal = NULL, Nlocal = NULL,
                           NlocalCache = NULL, verbose = FALSE) {
  check_cilevel(cilevel)
  p <- getProfLogL(data, formula, coordinates, params, boxcox_with_one(boxcox), type = type,
                   reml = reml, verbose = verbose)
  sets <- aniso_columns(as.data.frame(params))
  old <- graphics::par(mfrow = c(2, 2))
  on.exit(graphics::par(old))
  prof <- cov_profiles(p$LogLik, p$XVYXVX, p$ssqResidual, paramToEstimate, cilevel, sets,
                       p$boxcox, p$Ndata, p$Nobs, p$Ncov, reml, p$predictors,
                       intervals = FALSE)
  c(list(LogLik = p$LogLik, breaks = max(p$LogLik) - stats::qchisq(cilevel, df = df) / 2,
         summary = prof$summary[, "estimate", drop = FALSE], params = sets),
    p[c("Infindex", "Nobs", "Ncov", "Ndata", "Nparam", "ssqY", "ssqBetahat", "ssqResidual",
        "detVar", "detReml", "jacobian", "XVYXVX")])
}

#' The grid of parameter sets around a fitted model, as gpuRandom's ParamsFromLgm
#'
#' gpuRandom's grid from a fitted model's summary table (geostatsp's, with the intervals its information matrix gives): for each parameter to estimate, values from its lower bound to the estimate and on beyond it to its upper bound, the others fixed at \code{optimMle}; every combination (\code{expand.grid}), and six Box-Cox powers around the estimated one. The values are gpuRandom's: range 7 from ci0.005 to the estimate and 7 from 1.1 estimate to 1.1 ci0.995, times 1000 (gpuRandom's summaries give the range in kilometres of coordinates in metres); shape 5 from 0.1 to the fit's and 5 from 1.1 times it to ci0.995; nugget 5 from 0 to the fit's and 5 from 1.2 to 4 times it; anisoRatio 5 from ci0.005 / 2 to the fit's and 5 from 1.1 times it to ci0.995; anisoAngleRadians 6 and 6 likewise; anisoAngleDegrees 5 from ci0.005 to the estimate and 5 from 4 degrees above it to ci0.995; Box-Cox 3 from ci0.005 - 0.5 to the estimate and 3 from estimate + 0.3 to ci0.995 + 0.5. One angle is estimated (radians when both are named) and the other is then left out of the sets. Without \code{paramToEstimate}, the parameters the summary marks \code{Estimated} (its sdNugget row standing for the nugget) are estimated; gpuRandom's own code stops there, and wherever no angle is estimated.
#' @param Summary the fitted model's summary: a data.frame or matrix with rows range, shape, sdNugget, anisoRatio, anisoAngleRadians, anisoAngleDegrees, boxcox (those it needs) and columns estimate, ci0.005, ci0.995 and Estimated.
#' @param optimMle the fitted values, a named vector (range, shape, nugget, anisoRatio, anisoAngleRadians as needed).
#' @param paramToEstimate the parameters to vary (range, shape, nugget, anisoRatio, anisoAngleRadians, anisoAngleDegrees); boxcox is dropped (its powers are \code{boxcox}).
#' @return list(params = the grid (a data.frame, the estimated parameters first), boxcox = the six powers, ParamList = each parameter's values).
#' @examples
#' s <- data.frame(estimate = c(20, 1.5, 0.3, 1.4, 0.5, 28.6, 0.4),
#'                 ci0.005 = c(10, 0.6, 0.1, 1.1, 0.2, 11.5, 0.1),
#'                 ci0.995 = c(40, 4, 0.6, 2, 0.9, 51.6, 0.8),
#'                 Estimated = c(TRUE, FALSE, TRUE, FALSE, FALSE, FALSE, TRUE),
#'                 row.names = c("range", "shape", "sdNugget", "anisoRatio",
#'                               "anisoAngleRadians", "anisoAngleDegrees", "boxcox"))
#' mle <- c(range = 20000, shape = 1.5, nugget = 0.09, anisoRatio = 1.4,
#'          anisoAngleRadians = 0.5)
#' g <- ParamsFromLgm(s, mle, c("range", "nugget"))
#' dim(g$params)
#' g$boxcox
#' @export
ParamsFromLgm <- function(Summary, optimMle, paramToEstimate = NULL) {
  Summary <- as.data.frame(Summary)
  angles <- c("anisoAngleRadians", "anisoAngleDegrees")
  order <- c("range", "shape", "nugget", "anisoRatio", angles)
  if (is.null(paramToEstimate)) {
    if (is.null(Summary$Estimated))
      stop("Summary has no Estimated column: name paramToEstimate", call. = FALSE)
    rows <- c(range = "range", shape = "shape", nugget = "sdNugget",
              anisoRatio = "anisoRatio", anisoAngleRadians = "anisoAngleRadians")
    rows <- rows[rows %in% rownames(Summary)]
    paramToEstimate <- names(rows)[as.logical(Summary[rows, "Estimated"]) %in% TRUE]
  }
  paramToEstimate <- setdiff(unique(as.character(paramToEstimate)), "boxcox")
  unknown <- setdiff(paramToEstimate, order)
  if (length(unknown))
    stop("paramToEstimate: unknown ", paste(unknown, collapse = ", "), "; the parameters are ",
         paste(c(order, "boxcox"), collapse = ", "), call. = FALSE)
  if (all(angles %in% paramToEstimate)) paramToEstimate <- setdiff(paramToEstimate, angles[2])
  fixed <- setdiff(order, if (any(angles %in% paramToEstimate)) c(paramToEstimate, angles) else
    paramToEstimate)
  cell <- function(row, col) {
    v <- if (row %in% rownames(Summary) && col %in% names(Summary)) Summary[row, col] else NA
    if (!is.numeric(v) || is.na(v))
      stop("Summary needs a number in row ", row, ", column ", col, call. = FALSE)
    v
  }
  mle <- function(name) {
    v <- if (name == "anisoAngleDegrees") cell(name, "estimate") else optimMle[name]
    if (is.null(v) || length(v) != 1 || is.na(v))
      stop("optimMle needs a value named ", name, call. = FALSE)
    unname(v)
  }
  around <- function(from, to_mle, after, to_end, n) {
    c(seq(from, to_mle, length.out = n), seq(after, to_end, length.out = n))
  }
  values <- function(name) {
    switch(name,
      range = 1000 * around(cell("range", "ci0.005"), cell("range", "estimate"),
                            1.1 * cell("range", "estimate"), 1.1 * cell("range", "ci0.995"), 7),
      shape = around(0.1, mle("shape"), 1.1 * mle("shape"), cell("shape", "ci0.995"), 5),
      nugget = around(0, mle("nugget"), 1.2 * mle("nugget"), 4 * mle("nugget"), 5),
      anisoRatio = around(cell("anisoRatio", "ci0.005") / 2, mle("anisoRatio"),
                          1.1 * mle("anisoRatio"), cell("anisoRatio", "ci0.995"), 5),
      anisoAngleRadians = around(cell("anisoAngleRadians", "ci0.005") / 2,
                                 mle("anisoAngleRadians"), 1.1 * mle("anisoAngleRadians"),
                                 cell("anisoAngleRadians", "ci0.995"), 6),
      anisoAngleDegrees = around(cell("anisoAngleDegrees", "ci0.005"),
                                 mle("anisoAngleDegrees"), mle("anisoAngleDegrees") + 4,
                                 cell("anisoAngleDegrees", "ci0.995"), 5))
  }
  ParamList <- c(lapply(stats::setNames(paramToEstimate, paramToEstimate), values),
                 lapply(stats::setNames(fixed, fixed), mle))
  b <- cell("boxcox", "estimate")
  list(params = do.call(expand.grid, ParamList),
       boxcox = around(cell("boxcox", "ci0.005") - 0.5, b, b + 0.3,
                       cell("boxcox", "ci0.995") + 0.5, 3),
       ParamList = ParamList)
}

# gpuRandom's Box-Cox powers for sd_Range and likfitLgmCov2d: 1 always, first (then 0).
boxcox_with_one <- function(boxcox) {
  if (missing(boxcox) || is.null(boxcox)) return(1)
  boxcox <- as.double(boxcox)
  if (0 %in% boxcox) c(1, 0, setdiff(boxcox, c(1, 0))) else c(1, setdiff(boxcox, 1))
}

check_cilevel <- function(cilevel) {
  if (!is.numeric(cilevel) || length(cilevel) != 1 || is.na(cilevel) || cilevel <= 0 ||
      cilevel >= 1)
    stop("cilevel must be one number between 0 and 1, e.g. 0.95", call. = FALSE)
}

# The regression coefficients at the grid's maximum (row best[1], response best[2]) from
# getProfLogL's X'V^-1 Y beside X'V^-1 X (its lower triangle), as an Ncov x 1 matrix.
coefficients_at <- function(XVYXVX, best, Ncov, Ndata, predictors) {
  rows <- (best[1] - 1) * Ncov + seq_len(Ncov)
  xvx <- XVYXVX[rows, Ndata + seq_len(Ncov), drop = FALSE]
  xvx[upper.tri(xvx)] <- t(xvx)[upper.tri(xvx)]
  matrix(solve(xvx, XVYXVX[rows, best[2]]), Ncov, 1,
         dimnames = list(predictors, "estimate"))
}

# gpuRandom's extra columns of likfitLgmCov2d's parameter sets: Newrange = log(range^2 /
# anisoRatio) and the anisotropy as gamma3, gamma4, the ratio taken above 1.
aniso_columns <- function(sets) {
  ratio <- if (is.null(sets$anisoRatio)) rep(1, nrow(sets)) else sets$anisoRatio
  angle <- if (!is.null(sets$anisoAngleRadians)) sets$anisoAngleRadians else
    if (!is.null(sets$anisoAngleDegrees)) sets$anisoAngleDegrees * pi / 180 else
      rep(0, nrow(sets))
  flip <- ratio < 1
  r <- ifelse(flip, 1 / ratio, ratio)
  a <- ifelse(flip, angle + pi / 2, angle)
  sets$Newrange <- log(sets$range^2 / ratio)
  sets$gamma3 <- sqrt(r - 1) * cos(2 * a)
  sets$gamma4 <- sqrt(r - 1) * sin(2 * a)
  sets
}
