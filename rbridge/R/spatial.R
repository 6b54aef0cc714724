# Gaussian spatial models and batched linear algebra: likelihoods, fits, solves, products.

#' Batched triangular solves
#'
#' gpuRandom's backsolveBatch: X = A^-1 B (or t(A)^-1 B) for every matrix of a batch, many right-hand sides each; one A is shared by the whole batch.
#' @param A triangular n x n matrix or array c(batch, n, n).
#' @param B n x k matrix, n-vector or array c(batch, n, k) of right-hand sides.
#' @param lower whether A is lower triangular.
#' @param trans solve with the transpose of A.
#' @param unitDiagonal take A's diagonal as ones.
#' @return X, shaped as B (an array c(batch, n, k) when either input had a batch).
#' @examples
#' if (oclstat_available()) {
#'   backsolveBatch(matrix(c(2, 1, 0, 4), 2), c(2, 9))
#' }
#' @export
backsolveBatch <- function(A, B, lower = TRUE, trans = FALSE, unitDiagonal = FALSE) {
  call_adapter("backsolveBatch", list(A = to_py_array(A, "A"), B = to_py_array(B, "B"),
                                      lower = isTRUE(lower), trans = isTRUE(trans),
                                      unitDiagonal = isTRUE(unitDiagonal)))
}

#' Batched weighted cross-products
#'
#' gpuRandom's crossprodBatch: t(A) diag(D) B for every matrix of a batch.
#' @param A r x ka matrix or array c(batch, r, ka).
#' @param B r x kb matrix or array c(batch, r, kb) (default: A).
#' @param D weights: an r-vector or batch x r matrix (default: none).
#' @return ka x kb matrix, or an array c(batch, ka, kb).
#' @examples
#' if (oclstat_available()) {
#'   crossprodBatch(matrix(1:4, 2), D = c(1, 2))
#' }
#' @export
crossprodBatch <- function(A, B = NULL, D = NULL) {
  call_adapter("crossprodBatch", list(A = to_py_array(A, "A"),
                                      B = if (is.null(B)) NULL else to_py_array(B, "B"),
                                      D = if (is.null(D)) NULL else to_py_array(D, "D")))
}

#' Batched matrix products
#'
#' gpuRandom's gemmBatch: alpha op(A) op(B) + beta C for every matrix of a batch.
#' @param A m x r matrix or array c(batch, m, r).
#' @param B r x k matrix or array c(batch, r, k).
#' @param C m x k matrix or array added with weight beta (default: none).
#' @param alpha weight of the product.
#' @param beta weight of C.
#' @param transA use t(A).
#' @param transB use t(B).
#' @return m x k matrix, or an array c(batch, m, k).
#' @examples
#' if (oclstat_available()) {
#'   gemmBatch(diag(2), matrix(1:4, 2))
#' }
#' @export
gemmBatch <- function(A, B, C = NULL, alpha = 1, beta = 0, transA = FALSE, transB = FALSE) {
  call_adapter("gemmBatch", list(A = to_py_array(A, "A"), B = to_py_array(B, "B"),
                                 C = if (is.null(C)) NULL else to_py_array(C, "C"),
                                 alpha = as.double(alpha), beta = as.double(beta),
                                 transA = isTRUE(transA), transB = isTRUE(transB)))
}

model_params <- function(params) {
  if (is.data.frame(params)) params <- as.list(params)
  if (is.matrix(params)) {
    if (is.null(colnames(params))) stop("params must have column names", call. = FALSE)
    params <- lapply(seq_len(ncol(params)), function(j) params[, j])
    names(params) <- colnames(params)
  }
  if (!is.list(params) && is.numeric(params)) params <- as.list(params)
  if (is.null(names(params)) || any(names(params) == ""))
    stop("params must name its values (range, shape, nugget, anisoRatio, anisoAngleRadians)",
         call. = FALSE)
  reticulate::dict(lapply(params, function(v) as.list(as.double(v))))
}

#' Profile log-likelihoods of a Matérn model for many parameter sets
#'
#' gpuRandom's getProfLogL: for every parameter set (range, shape, nugget = tau^2/sigma^2, anisoRatio, anisoAngleRadians; geostatsp's conventions) the log-likelihood of y = X beta + U + e with beta and sigma^2 profiled out (generalised least squares), the covariance built and factored on the device.
#' @param coords n x 2 matrix of coordinates.
#' @param y response vector, or n x q matrix of responses sharing the covariance.
#' @param X n x p covariate matrix with the intercept column (default: intercept only).
#' @param params data.frame or named list of parameter vectors (range and shape required).
#' @param reml restricted maximum likelihood instead of ML.
#' @param boxcox Box-Cox powers of the (single, positive) response, each giving a column.
#' @return A data.frame: one row per parameter set and response with loglik, sigma2, tau2, beta and se per covariate.
#' @examples
#' if (oclstat_available()) {
#'   xy <- cbind(runif(30), runif(30))
#'   getProfLogL(xy, rnorm(30), params = list(range = c(0.2, 0.5), shape = 1, nugget = 0.1))
#' }
#' @export
getProfLogL <- function(coords, y, X = NULL, params, reml = FALSE, boxcox = NULL) {
  call_adapter("getProfLogL", list(coords = to_py_array(coord_matrix(coords), "coords"),
                                   y = to_py_array(y, "y"),
                                   X = if (is.null(X)) NULL else to_py_array(X, "X"),
                                   params = model_params(params), reml = isTRUE(reml),
                                   boxcox = if (is.null(boxcox)) NULL else as.list(as.double(boxcox))))
}

#' Maximum-likelihood fit of a Matérn model on the device
#'
#' As geostatsp's likfitLgm (and gpuRandom's likfitLgmGpu): a batched grid over the non-linear parameters, then batched Newton steps, with profile-likelihood intervals (prof1d) and the range x shape profile (prof2d). In fields' terms aRange = range / sqrt(8 shape) and lambda = nugget.
#' @param coords n x 2 matrix of coordinates.
#' @param y response vector.
#' @param X n x p covariate matrix with the intercept column (default: intercept only).
#' @param param named values of the parameters not estimated (default shape = 1, nugget = 0.1, anisoRatio = 1, anisoAngleRadians = 0).
#' @param paramToEstimate parameters to estimate.
#' @param reml restricted maximum likelihood instead of ML.
#' @param profiles profile likelihoods and intervals for each estimated parameter.
#' @param profile2d the range x shape profile.
#' @param level confidence level of the intervals.
#' @param tol convergence tolerance (log scale of the parameters).
#' @return A list: parameters (named vector incl. sigma2, tau2), beta, summary (data.frame with estimate, lower, upper), optimal (logL, method, aic), fields (aRange, smoothness, lambda, sigma2, tau), profiles (data.frames), profile2d, evaluations.
#' @examples
#' if (oclstat_available()) {
#'   xy <- cbind(runif(40), runif(40))
#'   fit <- likfitLgmGpu(xy, rnorm(40), profiles = FALSE, profile2d = FALSE)
#'   fit$parameters
#' }
#' @export
likfitLgmGpu <- function(coords, y, X = NULL, param = NULL,
                         paramToEstimate = c("range", "nugget"), reml = FALSE,
                         profiles = TRUE, profile2d = TRUE, level = 0.95, tol = 1e-4) {
  fixed <- NULL
  if (!is.null(param)) {
    if (is.null(names(param)) || any(names(param) == ""))
      stop("param must be a named vector, e.g. c(shape = 1.5)", call. = FALSE)
    fixed <- as.list(as.double(param))
    names(fixed) <- names(param)
    fixed <- reticulate::dict(fixed)
  }
  out <- call_adapter("likfitLgmGpu", list(
    coords = to_py_array(coord_matrix(coords), "coords"), y = to_py_array(y, "y"),
    X = if (is.null(X)) NULL else to_py_array(X, "X"), param = fixed,
    paramToEstimate = as.list(as.character(paramToEstimate)), reml = isTRUE(reml),
    profiles = isTRUE(profiles), profile2d = isTRUE(profile2d), level = as.double(level),
    tol = as.double(tol)))
  out$parameters <- unlist(out$parameters)
  out$beta <- unlist(out$beta)
  out
}

#' Normal Q-Q plot with the quantiles computed on the device, as clrng's qqnormGpu
#'
#' As R's \code{qqnorm} and clrng's \code{qqnormGpu}: x = qnorm(ppoints(n), mu, sigma) in the ranks of y (NA kept in place), qnorm by Wichura's AS 241 on the device; the plot is drawn with R's \code{plot} unless \code{plot.it = FALSE}.
#' @param y the sample.
#' @param ylim the plot's y limits (default: the range of y).
#' @param mu mean of the normal distribution.
#' @param sigma its standard deviation (0: every quantile is mu).
#' @param lower.tail quantiles of the lower tail (TRUE) or the upper (FALSE), as \code{qnorm}.
#' @param main the plot's title.
#' @param xlab the x axis label.
#' @param ylab the y axis label.
#' @param plot.it draw the plot (as \code{qqnorm}).
#' @param Nglobal accepted for clrng's calls (the device chooses its work sizes) and ignored.
#' @param Nlocal accepted for clrng's calls and ignored.
#' @param verbose TRUE prints the sample size and the device.
#' @param ... further graphical parameters for \code{plot}.
#' @return list(x = theoretical quantiles, y = the sample), invisibly when plotted.
#' @examples
#' if (oclstat_available()) {
#'   y <- stats::rt(256, df = 5)
#'   qqnormGpu(y, ylim = c(-2, 5), mu = 0, sigma = 1, Nglobal = c(16, 4))
#'   q <- qqnormGpu(rnorm(1000), plot.it = FALSE)
#' }
#' @export
qqnormGpu <- function(y, ylim, mu = 0, sigma = 1, lower.tail = TRUE, main = "Normal Q-Q Plot",
                      xlab = "Theoretical Quantiles", ylab = "Sample Quantiles", plot.it = TRUE,
                      Nglobal = NULL, Nlocal = NULL, verbose = FALSE, ...) {
  if (!is.numeric(y)) stop("y must be numeric", call. = FALSE)
  if (!is.numeric(sigma) || length(sigma) != 1 || is.na(sigma) || sigma < 0)
    stop("sigma must be one number >= 0", call. = FALSE)
  ok <- !is.na(y)
  if (!any(ok)) stop("y is empty or has only NAs", call. = FALSE)
  if (isTRUE(verbose >= 1))
    cat("n ", sum(ok), "\ndevice ", bridge()$device_summary(device_arg()), "\n", sep = "")
  q <- call_adapter("qqnormGpu", list(y = to_py_array(as.vector(y[ok]), "y"),
                                      mu = as.double(mu), sigma = as.double(sigma),
                                      lower.tail = isTRUE(as.logical(lower.tail))))
  x <- rep(NA_real_, length(y))
  x[ok] <- q$x
  if (!is.null(names(y))) names(x) <- names(y)
  out <- list(x = x, y = y)
  if (!isTRUE(plot.it)) return(out)
  if (missing(ylim)) ylim <- range(y, na.rm = TRUE)
  graphics::plot(x, y, main = main, xlab = xlab, ylab = ylab, ylim = ylim, ...)
  invisible(out)
}

#' Sum of log-factorials on the device
#'
#' clrng's logfactSum: sum(lgamma(x + 1)) over a matrix of non-negative integers.
#' @param x a matrix or vector of non-negative integers.
#' @return A number.
#' @examples
#' if (oclstat_available()) {
#'   logfactSum(matrix(c(3, 1, 1, 3), 2))
#' }
#' @export
logfactSum <- function(x) {
  call_adapter("logfactSum", list(x = to_py_array(x, "x")))
}
