# Gaussian spatial models and batched linear algebra: likelihoods, fits, solves, products.

#' Batched triangular solves
#'
#' gpuRandom's backsolveBatch: X = A^-1 B (or t(A)^-1 B) for every matrix of a batch, many right-hand sides each; one A is shared by the whole batch.
#' @param A triangular n x n matrix or array c(batch, n, n).
#' @param B n x k matrix, n-vector or array c(batch, n, k) of right-hand sides.
#' @param lower whether A is lower triangular.
#' @param trans solve with the transpose of A.
#' @param unitDiagonal take A's diagonal as ones.
#' @param ... nothing: gpuRandom's in-place form \code{backsolveBatch(C, A, B, numbatchB, diagIsOne, Nglobal, Nlocal, NlocalCache)} is refused with oclstat's form in the message.
#' @return X, shaped as B (an array c(batch, n, k) when either input had a batch).
#' @examples
#' if (oclstat_available()) {
#'   backsolveBatch(matrix(c(2, 1, 0, 4), 2), c(2, 9))
#' }
#' @export
backsolveBatch <- function(A, B, lower = TRUE, trans = FALSE, unitDiagonal = FALSE, ...) {
  if (...length() || !is.logical(lower))
    in_place_form("backsolveBatch(C, A, B, numbatchB, diagIsOne, Nglobal, Nlocal, NlocalCache)",
                  "C <- backsolveBatch(A, B, unitDiagonal = diagIsOne)")
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
#' @param ... nothing: gpuRandom's in-place form \code{crossprodBatch(C, A, D, invertD, Nglobal, Nlocal, NlocalCache)} is refused with oclstat's form in the message.
#' @return ka x kb matrix, or an array c(batch, ka, kb).
#' @examples
#' if (oclstat_available()) {
#'   crossprodBatch(matrix(1:4, 2), D = c(1, 2))
#' }
#' @export
crossprodBatch <- function(A, B = NULL, D = NULL, ...) {
  if (...length())
    in_place_form("crossprodBatch(C, A, D, invertD, Nglobal, Nlocal, NlocalCache)",
                  "C <- crossprodBatch(A, D = D) (D = 1 / D for invertD = TRUE)")
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
#' @param ... nothing: gpuRandom's form \code{gemmBatch(A, B, Arowbatch, Browbatch, Acolbatch, Bcolbatch, need_transpose, workgroupSize)}, over row- and column-stacked gpuR matrices, is refused with oclstat's form in the message.
#' @return m x k matrix, or an array c(batch, m, k).
#' @examples
#' if (oclstat_available()) {
#'   gemmBatch(diag(2), matrix(1:4, 2))
#' }
#' @export
gemmBatch <- function(A, B, C = NULL, alpha = 1, beta = 0, transA = FALSE, transB = FALSE,
                      ...) {
  if (...length() || (length(C) == 1 && is.null(dim(C))))     # C: gpuRandom's Arowbatch
    stop("gemmBatch(A, B, Arowbatch, Browbatch, Acolbatch, Bcolbatch, need_transpose, ",
         "workgroupSize) is gpuRandom's form over row- and column-stacked gpuR vclMatrix ",
         "batches; in oclstat a batch is an array c(batch, m, r): ",
         "gemmBatch(A, B, transA = need_transpose)", call. = FALSE)
  call_adapter("gemmBatch", list(A = to_py_array(A, "A"), B = to_py_array(B, "B"),
                                 C = if (is.null(C)) NULL else to_py_array(C, "C"),
                                 alpha = as.double(alpha), beta = as.double(beta),
                                 transA = isTRUE(transA), transB = isTRUE(transB)))
}

#' gpuRandom's in-place backends, refused with oclstat's forms
#'
#' gpuRandom exports two of its device backends, \code{gemmBatch2backend} (batched products of sub-matrices of gpuR matrices, written into \code{C}) and \code{multiplyLowerBatchBackend} (C = A B for a batch of lower triangular A, written into \code{C}). Both fill gpuR \code{vclMatrix} arguments in place, which R matrices cannot be; these stop with the oclstat call that returns the same product.
#' @param A,B,C gpuRandom's matrices (C the output it fills).
#' @param transposeABC,submatrixA,submatrixB,submatrixC,batches,workgroupSize,NlocalCache,verbose,diagIsOne,Nglobal,Nlocal gpuRandom's arguments.
#' @return Nothing: an error naming oclstat's form.
#' @examples
#' try(multiplyLowerBatchBackend(diag(2), diag(2), diag(2), FALSE, c(2, 2, 1), c(2, 2, 1), 4))
#' @export
gemmBatch2backend <- function(A, B, C, transposeABC, submatrixA, submatrixB, submatrixC,
                              batches, workgroupSize, NlocalCache, verbose) {
  in_place_form(paste("gemmBatch2backend(A, B, C, transposeABC, submatrixA, submatrixB,",
                      "submatrixC, batches, workgroupSize, NlocalCache, verbose)"),
                paste("C <- gemmBatch(A, B, transA = transposeABC[1], transB =",
                      "transposeABC[2]) on arrays c(batch, m, r) of the sub-matrices"))
}

#' @rdname gemmBatch2backend
#' @export
multiplyLowerBatchBackend <- function(C, A, B, diagIsOne, Nglobal, Nlocal, NlocalCache) {
  in_place_form("multiplyLowerBatchBackend(C, A, B, diagIsOne, Nglobal, Nlocal, NlocalCache)",
                paste("C <- gemmBatch(A, B) with A lower triangular (its upper part zero and,",
                      "for diagIsOne, its diagonal 1)"))
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
#' gpuRandom's getProfLogL: for every parameter set (range, shape, nugget = tau^2/sigma^2, anisoRatio, anisoAngleRadians or anisoAngleDegrees; geostatsp's conventions; a variance column is ignored, sigma^2 is profiled out) the log-likelihood of y = X beta + U + e with beta and sigma^2 profiled out (generalised least squares), the covariance built and factored on the device.
#'
#' gpuRandom's call \code{getProfLogL(data, formula, coordinates, params, boxcox, ...)} returns gpuRandom's list: \code{LogLik} (Nparam x Ndata, a column per Box-Cox power, 1 first, then 0, then the others; the column of 1 dropped when \code{boxcox} does not hold 1), the generalised least squares' pieces \code{detVar} (log det V, V the correlation matrix plus nugget I), \code{detReml} (log det X'V^-1 X), \code{ssqY} (Y'V^-1 Y), \code{XVYXVX} (Nparam Ncov rows: X'V^-1 Y beside X'V^-1 X), \code{ssqBetahat}, \code{ssqResidual}, \code{jacobian} (-2 (lambda - 1) sum(log y)), and \code{paramsRenew}, \code{Infindex}, \code{Nobs}, \code{Ncov}, \code{Ndata}, \code{Nparam}, \code{boxcox}, \code{predictors}, with gpuRandom's formulas: -2 LogLik = Nobs log(ssqResidual / Nobs) + detVar + jacobian + Nobs + Nobs log(2 pi) (ML), (Nobs - Ncov) log(ssqResidual / (Nobs - Ncov)) + detVar + detReml + jacobian + Nobs log(2 pi) + Nobs - Ncov (REML). Rows of \code{data} with a missing value in the formula's variables are left out, as gpuRandom does. A parameter set whose covariance is not positive definite stops with its row named (gpuRandom drops it and lists it in \code{Infindex}, which is here always empty). The numeric form \code{getProfLogL(coords, y, X, params)} returns oclstat's table instead.
#' @param data a data.frame holding the variables of \code{formula}; in the numeric form, the n x 2 coordinates.
#' @param formula the model, e.g. \code{y ~ x1}; in the numeric form, the response vector (or an n x q matrix of responses sharing the covariance).
#' @param coordinates n x 2 matrix of coordinates (rows as \code{data}) or the names of two columns of \code{data}; in the numeric form, the n x p covariate matrix with the intercept column (default: intercept only).
#' @param params data.frame or matrix of parameter sets, one per row (a named list of vectors in the numeric form: every combination is not taken, the vectors are recycled).
#' @param boxcox Box-Cox powers of the (positive) response, each giving a column (gpuRandom's form: 1 is always computed, and its column kept when asked for).
#' @param type "double" or "float" (accepted for gpuRandom's calls; the device's double precision is used).
#' @param NparamPerIter accepted for gpuRandom's calls (the device batches the sets itself).
#' @param gpuElementsOnly gpuRandom's form: leave \code{LogLik} out of the result.
#' @param reml restricted maximum likelihood instead of ML.
#' @param Nglobal,Nlocal,NlocalCache accepted for gpuRandom's calls (the device chooses its work sizes).
#' @param verbose TRUE prints the sizes and the device.
#' @return gpuRandom's form: the list described above. Numeric form: a data.frame, one row per parameter set and response with loglik, sigma2, tau2, beta and se per covariate.
#' @examples
#' if (oclstat_available()) {
#'   xy <- cbind(runif(30), runif(30))
#'   getProfLogL(xy, rnorm(30), params = list(range = c(0.2, 0.5), shape = 1, nugget = 0.1))
#'   d <- data.frame(east = xy[, 1], north = xy[, 2], z = exp(rnorm(30)))
#'   grid <- expand.grid(range = c(0.1, 0.2, 0.4), shape = 1, nugget = c(0, 0.5),
#'                       variance = 1)
#'   pieces <- getProfLogL(d, z ~ east, coordinates = c("east", "north"), params = grid,
#'                         boxcox = c(1, 0, 0.5))
#'   pieces$LogLik
#' }
#' @export
getProfLogL <- function(data, formula, coordinates = NULL, params, boxcox = NULL,
                        type = c("double", "float"), NparamPerIter = NULL,
                        gpuElementsOnly = FALSE, reml = FALSE, Nglobal = NULL, Nlocal = NULL,
                        NlocalCache = NULL, verbose = FALSE) {
  type <- match.arg(type)
  if (!inherits(formula, "formula"))
    return(call_adapter("getProfLogL", list(
      data = to_py_array(coord_matrix(data), "coords"), formula = to_py_array(formula, "y"),
      coordinates = if (is.null(coordinates)) NULL else to_py_array(coordinates, "X"),
      params = model_params(params), reml = isTRUE(reml),
      boxcox = if (is.null(boxcox)) NULL else as.list(as.double(boxcox)))))
  m <- model_from_formula(data, formula, coordinates)
  if (isTRUE(verbose >= 1)) print_model_sizes(m)
  if (!is.data.frame(params) && !is.matrix(params))
    stop("params must be a data.frame or matrix of parameter sets, one per row", call. = FALSE)
  out <- call_adapter("getProfLogL", list(
    data = to_py_array(m$coords, "coordinates"), formula = to_py_array(m$y, "formula"),
    coordinates = to_py_array(m$X, "X"), params = model_params(grid_sets(params)),
    boxcox = as.list(as.double(if (is.null(boxcox)) 1 else boxcox)),
    gpuElementsOnly = isTRUE(gpuElementsOnly), reml = isTRUE(reml), gpurandom = TRUE))
  out$paramsRenew <- params
  out$predictors <- colnames(m$X)
  first <- if (isTRUE(gpuElementsOnly)) "paramsRenew" else c("LogLik", "paramsRenew")
  out[c(first, "Infindex", "Nobs", "Ncov", "Ndata", "Nparam", "boxcox", "jacobian", "detVar",
        "detReml", "ssqY", "XVYXVX", "ssqBetahat", "ssqResidual", "predictors")]
}

# gpuRandom's parameter table as oclstat's sets: the variance column left out (sigma^2 is
# profiled out), anisoAngleDegrees as anisoAngleRadians.
grid_sets <- function(params) {
  sets <- as.data.frame(params)
  if (is.null(names(sets)) || any(names(sets) == ""))
    stop("params must have column names (range, shape, nugget, ...)", call. = FALSE)
  if (nrow(sets) < 1) stop("params has no rows", call. = FALSE)
  sets$variance <- NULL
  if ("anisoAngleDegrees" %in% names(sets)) {
    sets$anisoAngleRadians <- sets$anisoAngleDegrees * pi / 180
    sets$anisoAngleDegrees <- NULL
  }
  sets
}

#' Maximum-likelihood fit of a Matérn model on the device, as gpuRandom's likfitLgmGpu
#'
#' gpuRandom's interface: \code{likfitLgmGpu(data, formula, coordinates, params, boxcox, paramToEstimate, cilevel, reml, ...)}. With \code{params} a matrix (or data.frame) of parameter sets (columns range, shape, nugget, anisoRatio, anisoAngleDegrees or anisoAngleRadians; variance is ignored, profiled out as in gpuRandom), the log-likelihood of every set and Box-Cox power is computed on the device (y = X beta + U + e, beta and sigma^2 profiled out) and each parameter in \code{paramToEstimate} is estimated, with a \code{cilevel} interval, from its profile over the grid (the largest log-likelihood at each of its values, interpolated linearly; the interval where it is above max - qchisq(cilevel, df) / 2), as gpuRandom does. Without \code{params} (or with a named vector of fixed values), the model is fitted by batched Newton steps instead (geostatsp's likfitLgm), with profile-likelihood intervals: this fit does not depend on a grid. The numeric form \code{likfitLgmGpu(coords, y, X, param = ...)} fits directly too. In fields' terms aRange = range / sqrt(8 shape) and lambda = nugget.
#' @param data a data.frame holding the variables of \code{formula} (or an sp SpatialPointsDataFrame, whose coordinates are then the default); in the numeric form, the n x 2 coordinates.
#' @param formula the model, e.g. \code{y ~ x1 + x2}; in the numeric form, the response vector.
#' @param coordinates n x 2 matrix of coordinates (rows as \code{data}), or the names of two columns of \code{data}; in the numeric form, the covariate matrix X.
#' @param params matrix or data.frame of parameter sets (one per row) for the grid of gpuRandom; or NULL (fit by Newton steps).
#' @param boxcox Box-Cox powers of the response (positive responses only when other than 1); the grid's log-likelihood has one column per power, 1 first.
#' @param paramToEstimate parameters to estimate (range, shape, nugget, anisoRatio, anisoAngleDegrees / anisoAngleRadians, boxcox).
#' @param cilevel confidence level of the intervals.
#' @param type "double" or "float" (accepted for gpuRandom's calls; the device's double precision is used where it has it).
#' @param reml restricted maximum likelihood instead of ML.
#' @param NparamPerIter accepted for gpuRandom's calls (the device batches the sets itself).
#' @param df degrees of freedom of the chi-squared cut of the profile intervals (gpuRandom's df; 1 for one parameter).
#' @param minustwotimes accepted for gpuRandom's calls (both LogLik and minusTwoLogLik are returned).
#' @param Nglobal accepted for gpuRandom's calls (the device chooses its work sizes).
#' @param Nlocal accepted for gpuRandom's calls.
#' @param NlocalCache accepted for gpuRandom's calls.
#' @param verbose TRUE prints the sizes and the device.
#' @param X n x p covariate matrix with the intercept column (numeric form; default: intercept only).
#' @param param named values of the parameters not estimated in the Newton fit (default shape = 1, nugget = 0.1, anisoRatio = 1, anisoAngleRadians = 0).
#' @param profiles Newton fit: profile likelihoods and intervals for each estimated parameter.
#' @param profile2d Newton fit: the range x shape profile.
#' @param tol Newton fit: convergence tolerance (log scale of the parameters).
#' @param model gpuRandom's form on a fit (also taken as the first argument): geostatsp's \code{likfitLgm} result or a \code{likfitLgmGpu(data, formula, ...)} fit. Without \code{params}, the grid is the fit and \code{configParams(model, alpha, shapeRestrict = shapeRestrict)}'s sets, and without \code{boxcox} the powers are 32 from the first to the last of its \code{boxcoxSetup} and the fit's; then \code{getProfLogL}, \code{prof1dCov} for \code{paramToEstimate}, \code{Prof1dBetas} over \code{Betas} and \code{profVariance} over \code{sdSpatial}, whose estimates and intervals take the coefficients' and sdSpatial's rows of the summary (gpuRandom's own code stops in every case: it uses a grid it defines only in a branch it never takes).
#' @param alpha levels of \code{configParams}' ellipsoids (gpuRandom's form on a fit, without \code{params}).
#' @param shapeRestrict the largest shape in those sets.
#' @param Betas values of the coefficients for \code{Prof1dBetas} (a column per coefficient; gpuRandom's form on a fit).
#' @param sdSpatial values of the spatial standard deviation for \code{profVariance} (gpuRandom's form on a fit).
#' @param convexHullForBetas \code{Prof1dBetas}' \code{convexHull} (FALSE only).
#' @return With a grid (gpuRandom's result): list(LogLik = Nparam x Ndata matrix, minusTwoLogLik, estimates = matrix with rows intercept, betahat1, ..., sdSpatial, the estimated parameters, boxcox and columns estimate, lower, upper (named as gpuRandom, e.g. lower95ci), Nobs, Ncov, Ndata, Nparam, breaks, params (the grid), boxcox). Without: list(parameters (named vector incl. sigma2, tau2), beta, summary (data.frame with estimate, lower, upper), optimal (logL, method, aic), fields (aRange, smoothness, lambda, sigma2, tau), profiles (data.frames), profile2d, evaluations; with a formula also geostatsp's optim (mle, options[, "opt"]), data, coordinates and model (formula, reml), which \code{getHessianNolog}, \code{configParams}, \code{configMidPoint} and \code{configFirstStep} read).
#' @examples
#' if (oclstat_available()) {
#'   d <- data.frame(x = runif(40), y = runif(40))
#'   d$z <- 1 + d$x + rnorm(40)
#'   grid <- expand.grid(range = c(0.05, 0.1, 0.2, 0.4, 0.8), nugget = c(0.1, 0.5, 1, 2),
#'                       shape = 1)
#'   fit <- likfitLgmGpu(d, z ~ x, coordinates = c("x", "y"), params = grid,
#'                       paramToEstimate = c("range", "nugget"))
#'   fit$estimates
#'   newton <- likfitLgmGpu(d, z ~ x, coordinates = c("x", "y"), profiles = FALSE,
#'                          profile2d = FALSE)
#'   newton$parameters
#' }
#' @export
likfitLgmGpu <- function(data, formula, coordinates = NULL, params = NULL, boxcox = 1,
                         paramToEstimate = c("range", "nugget"), cilevel = 0.95,
                         type = c("double", "float"), reml = FALSE, NparamPerIter = NULL,
                         df = 1, minustwotimes = FALSE, Nglobal = NULL, Nlocal = NULL,
                         NlocalCache = NULL, verbose = FALSE, X = NULL, param = NULL,
                         profiles = TRUE, profile2d = TRUE, tol = 1e-4, model = NULL,
                         alpha = NULL, shapeRestrict = 1000, Betas = NULL, sdSpatial = NULL,
                         convexHullForBetas = FALSE) {
  type <- match.arg(type)
  if (is.null(model) && is_lgm_fit(data)) model <- data
  if (!is.null(model))
    return(likfit_on_fit(model, params, alpha, shapeRestrict, paramToEstimate,
                         if (missing(boxcox)) NULL else boxcox, Betas, sdSpatial, cilevel,
                         reml, convexHullForBetas))
  if (inherits(formula, "formula")) {
    m <- model_from_formula(data, formula, coordinates)
  } else {
    if (is.null(X) && !is.null(coordinates)) X <- coordinates
    m <- list(coords = coord_matrix(data), y = formula, X = X)
  }
  if (isTRUE(verbose >= 1)) print_model_sizes(m)
  if (!is.null(params) && (is.matrix(params) || is.data.frame(params)))
    return(likfit_grid(m, params, boxcox, paramToEstimate, cilevel, reml, df))
  if (!is.null(params) && is.null(param)) param <- params
  fit <- likfit_newton(m, param, paramToEstimate, reml, profiles, profile2d, cilevel, tol)
  if (inherits(formula, "formula")) fit <- c(fit, lgm_fields(fit, data, formula, coordinates,
                                                             reml))
  fit
}

# What gpuRandom's functions read from a geostatsp fit (getHessianNolog, configParams, ...),
# added to a formula fit: optim$mle (every covariance parameter and the Box-Cox power),
# optim$options[, "opt"] (the estimated ones), the data, the coordinates and the formula.
lgm_fields <- function(fit, data, formula, coordinates, reml) {
  cov <- c("range", "shape", "nugget", "anisoRatio", "anisoAngleRadians")
  mle <- c(fit$parameters[intersect(cov, names(fit$parameters))], boxcox = 1)
  estimated <- fit$summary$parameter[fit$summary$estimated %in% TRUE]
  opt <- mle[intersect(cov, estimated)]
  if (is.character(coordinates))
    coordinates <- as.matrix(as.data.frame(data)[, coordinates])
  list(optim = list(mle = mle, options = cbind(opt = opt)), data = data,
       coordinates = coordinates, model = list(formula = formula, reml = isTRUE(reml)))
}

# gpuRandom's verbose lines: the observations, the covariates and the device.
print_model_sizes <- function(m) {
  cat("Nobs ", length(m$y), "\nNcov ", if (is.null(m$X)) 1 else ncol(m$X), "\ndevice ",
      bridge()$device_summary(device_arg()), "\n", sep = "")
}

model_from_formula <- function(data, formula, coordinates) {
  if (methods::is(data, "SpatialPointsDataFrame")) {
    if (is.null(coordinates)) coordinates <- methods::slot(data, "coords")
    data <- methods::slot(data, "data")
  }
  if (!is.data.frame(data)) data <- as.data.frame(data)
  vars <- all.vars(formula)
  missing_vars <- setdiff(vars, names(data))
  if (length(missing_vars))
    stop("formula: data has no column ", paste(missing_vars, collapse = ", "), call. = FALSE)
  if (is.null(coordinates))
    stop("coordinates: give an n x 2 matrix or the names of two columns of data",
         call. = FALSE)
  if (is.character(coordinates)) {
    if (length(coordinates) != 2 || !all(coordinates %in% names(data)))
      stop("coordinates: name two columns of data, got ", paste(coordinates, collapse = ", "),
           call. = FALSE)
    coordinates <- as.matrix(data[, coordinates])
  }
  coordinates <- coord_matrix(coordinates)
  if (nrow(coordinates) != nrow(data))
    stop("coordinates has ", nrow(coordinates), " rows where data has ", nrow(data),
         call. = FALSE)
  keep <- stats::complete.cases(data[, vars, drop = FALSE])
  if (sum(keep) < 3) stop("data: fewer than 3 complete rows for the formula", call. = FALSE)
  frame <- stats::model.frame(formula, data[keep, , drop = FALSE])
  X <- stats::model.matrix(formula, frame)
  coords <- coordinates[keep, , drop = FALSE]
  rownames(X) <- rownames(coords) <- NULL      # aligned by construction: rows of data
  list(coords = coords, y = as.vector(stats::model.response(frame)), X = X)
}

likfit_newton <- function(m, param, paramToEstimate, reml, profiles, profile2d, level, tol) {
  fixed <- NULL
  if (!is.null(param)) {
    if (is.null(names(param)) || any(names(param) == ""))
      stop("param must be a named vector, e.g. c(shape = 1.5)", call. = FALSE)
    fixed <- as.list(as.double(unlist(param)))
    names(fixed) <- names(param)
    fixed <- reticulate::dict(fixed)
  }
  out <- call_adapter("likfitLgmGpu", list(
    data = to_py_array(m$coords, "coords"), formula = to_py_array(m$y, "y"),
    X = if (is.null(m$X)) NULL else to_py_array(m$X, "X"), param = fixed,
    paramToEstimate = as.list(as.character(paramToEstimate)), reml = isTRUE(reml),
    profiles = isTRUE(profiles), profile2d = isTRUE(profile2d), cilevel = as.double(level),
    tol = as.double(tol)))
  out$parameters <- unlist(out$parameters)
  out$beta <- unlist(out$beta)
  out
}

# gpuRandom's grid: the log-likelihood of every parameter set and Box-Cox power, and each
# parameter's estimate and interval from its profile over the grid.
likfit_grid <- function(m, params, boxcox, paramToEstimate, cilevel, reml, df) {
  sets <- grid_sets(params)
  params <- as.data.frame(params)
  params$variance <- NULL
  boxcox <- unique(c(1, as.double(boxcox)))
  ll <- getProfLogL(m$coords, m$y, m$X, params = sets, reml = reml,
                    boxcox = if (length(boxcox) > 1) boxcox else NULL)
  nparam <- nrow(params)
  LogLik <- matrix(ll$loglik, nparam, length(boxcox), byrow = TRUE,
                   dimnames = list(NULL, paste0("boxcox", round(boxcox, 2))))
  best <- which(LogLik == max(LogLik, na.rm = TRUE), arr.ind = TRUE)[1, ]
  row <- ll[(best[1] - 1) * length(boxcox) + best[2], ]
  breaks <- max(LogLik, na.rm = TRUE) - stats::qchisq(cilevel, df = df) / 2
  beta_cols <- grep("^beta\\[", names(ll), value = TRUE)
  ncov <- length(beta_cols)
  est <- union(intersect(paramToEstimate, c(names(params), "boxcox")), "boxcox")
  ci <- paste0(c("lower", "upper"), cilevel * 100, "ci")
  rows <- c("intercept", if (ncov > 1) paste0("betahat", seq_len(ncov - 1)), "sdSpatial", est)
  table <- matrix(NA_real_, length(rows), 3, dimnames = list(rows, c("estimate", ci)))
  table[seq_len(ncov), 1] <- unlist(row[beta_cols])
  table["sdSpatial", 1] <- sqrt(row$sigma2)
  for (p in setdiff(est, "boxcox")) {
    prof <- tapply(apply(LogLik, 1, max), params[[p]], max)
    table[p, ] <- profile_interval(as.double(names(prof)), as.double(prof), breaks, p,
                                   floor = if (p == "nugget") 0 else -Inf)
  }
  if ("boxcox" %in% paramToEstimate && length(boxcox) > 3) {
    prof <- apply(LogLik, 2, max)
    table["boxcox", ] <- profile_interval(boxcox, prof, breaks, "boxcox")
  } else {
    table["boxcox", 1] <- boxcox[best[2]]
  }
  list(LogLik = LogLik, minusTwoLogLik = -2 * LogLik, estimates = table,
       Nobs = length(m$y), Ncov = ncov, Ndata = length(boxcox), Nparam = nparam,
       breaks = breaks, params = params, boxcox = boxcox)
}

# The maximum of the linear interpolation of a profile, and where it crosses breaks (an end
# at the grid's edge warns, unless the edge is the parameter's own bound, floor).
profile_interval <- function(x, prof, breaks, what, floor = -Inf) {
  o <- order(x)
  x <- x[o]
  prof <- prof[o]
  if (length(x) < 2) {
    warning(what, ": one value in params, no interval", call. = FALSE)
    return(c(x, NA, NA))
  }
  f <- stats::approxfun(x, prof - breaks)
  mle <- stats::optimize(f, range(x), maximum = TRUE, tol = 1e-4 * diff(range(x)))$maximum
  crossing <- function(a, b) stats::uniroot(f, c(a, b), tol = 1e-8 * diff(range(x)))$root
  g <- prof - breaks
  left <- which(x < mle)
  right <- which(x > mle)
  lower <- NA_real_
  upper <- NA_real_
  below <- left[g[left] < 0]
  if (length(below)) {
    i <- max(below)
    lower <- crossing(x[i], min(x[x > x[i]]))
  } else {
    if (min(x) > floor)
      warning(what, ": the interval's lower end is below the grid (", min(x), ")",
              call. = FALSE)
    lower <- min(x)
  }
  below <- right[g[right] < 0]
  if (length(below)) {
    i <- min(below)
    upper <- crossing(max(x[x < x[i]]), x[i])
  } else {
    warning(what, ": the interval's upper end is above the grid (", max(x), ")", call. = FALSE)
    upper <- max(x)
  }
  c(mle, lower, upper)
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
#' @param type "double" or "float" (clrng's precisions; default \code{getOption("clrng.type")}): the quantiles in that precision.
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
                      Nglobal = NULL, Nlocal = NULL, type = getOption("clrng.type", "double"),
                      verbose = FALSE, ...) {
  if (!is.numeric(y)) stop("y must be numeric", call. = FALSE)
  if (!is.numeric(sigma) || length(sigma) != 1 || is.na(sigma) || sigma < 0)
    stop("sigma must be one number >= 0", call. = FALSE)
  ok <- !is.na(y)
  if (!any(ok)) stop("y is empty or has only NAs", call. = FALSE)
  if (isTRUE(verbose >= 1))
    cat("n ", sum(ok), "\ndevice ", bridge()$device_summary(device_arg()), "\n", sep = "")
  q <- call_adapter("qqnormGpu", list(y = to_py_array(as.vector(y[ok]), "y"),
                                      mu = as.double(mu), sigma = as.double(sigma),
                                      lower.tail = isTRUE(as.logical(lower.tail)),
                                      type = check_type(type)))
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
#' @param Nglobal clrng's work items: checked and accepted (the device chooses its own work sizes; the sum does not depend on them).
#' @return A number.
#' @examples
#' if (oclstat_available()) {
#'   logfactSum(matrix(c(3, 1, 1, 3), 2))
#' }
#' @export
logfactSum <- function(x, Nglobal = getOption("clrng.Nglobal")) {
  check_nglobal(Nglobal)
  call_adapter("logfactSum", list(x = to_py_array(x, "x")))
}
