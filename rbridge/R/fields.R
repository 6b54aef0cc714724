# Gaussian random fields: Matérn covariance, batched LDL^T, L D^(1/2) Z.

param_matrix <- function(params) {
  cols <- c("range", "shape", "variance", "nugget", "anisoRatio", "anisoAngleRadians")
  if (is.data.frame(params)) params <- as.matrix(params)
  if (is.null(dim(params))) params <- matrix(params, nrow = 1,
                                             dimnames = list(NULL, names(params)))
  if (!is.numeric(params)) stop("params must be numeric", call. = FALSE)
  if (!is.null(colnames(params)) && all(cols %in% colnames(params))) {
    params <- params[, cols, drop = FALSE]
  } else if (ncol(params) != 6) {
    stop("params must have 6 columns (", paste(cols, collapse = ", "), "), got ", ncol(params),
         call. = FALSE)
  }
  params
}

coord_matrix <- function(coords) {
  if (is.data.frame(coords)) coords <- as.matrix(coords)
  if (!is.matrix(coords) || ncol(coords) != 2) stop("coords must be an n x 2 matrix",
                                                    call. = FALSE)
  coords
}

#' Matérn covariance matrices for every row of params (range, shape, variance, nugget,
#' anisoRatio, anisoAngleRadians): an array dim c(nrow(params), n, n).
maternBatch <- function(coords, params, type = c("double", "float")) {
  type <- match.arg(type)
  arr <- oclstat_module()$matern_cov(to_py_array(coord_matrix(coords), "coords"),
                                     to_py_array(param_matrix(params), "params"),
                                     dtype = if (type == "double") "float64" else "float32",
                                     device = device_arg())
  from_py_array(arr)
}

as_batch <- function(A) {
  if (is.matrix(A)) A <- array(A, dim = c(1, dim(A)))
  if (length(dim(A)) != 3 || dim(A)[2] != dim(A)[3])
    stop("A must be an n x n matrix or an array dim c(batch, n, n)", call. = FALSE)
  A
}

#' LDL^T of a batch of symmetric positive definite matrices (array dim c(batch, n, n) or one
#' matrix): list(L = unit lower triangular array, D = batch x n matrix, logdet).
cholBatch <- function(A) {
  r <- oclstat_module()$ldl_batch(to_py_array(as_batch(A), "A"), device = device_arg())
  D <- from_py_array(r$D)
  if (is.null(dim(D))) dim(D) <- c(1, length(D))
  list(L = from_py_array(r$L), D = D, logdet = from_py_array(r$logdet))
}

#' L diag(w(D)) Z per matrix: L array c(batch, n, n), D batch x n, Z array c(batch, nsim, n).
multiplyLowerDiagonalBatch <- function(L, D, Z, transform = c("sqrt", "identity", "none")) {
  transform <- match.arg(transform)
  out <- oclstat_module()$multiply_lower_diag(to_py_array(as_batch(L), "L"),
                                              to_py_array(D, "D"), to_py_array(Z, "Z"),
                                              transform = transform, device = device_arg())
  from_py_array(out)
}

#' Exact simulation of Gaussian random fields: array dim c(nrow(params), Nsim, npoints).
simulateFields <- function(coords, params, Nsim, seed = NULL, type = c("double", "float")) {
  type <- match.arg(type)
  f <- oclstat_module()$simulate_fields(to_py_array(coord_matrix(coords), "coords"),
                                        to_py_array(param_matrix(params), "params"),
                                        as.integer(Nsim), seed = py_seed(seed),
                                        dtype = if (type == "double") "float64" else "float32",
                                        device = device_arg())
  from_py_array(f)
}
