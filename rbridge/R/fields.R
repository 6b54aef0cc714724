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

#' Matérn covariance matrices for several parameter sets
#'
#' geostatsp's parametrisation: distances rotated by anisoAngleRadians with the second axis divided by anisoRatio; variance 2^(1-nu)/Gamma(nu) x^nu K_nu(x), x = sqrt(8 nu) d / range; the nugget on the diagonal.
#' @param coords n x 2 matrix of coordinates.
#' @param params matrix with columns range, shape, variance, nugget, anisoRatio, anisoAngleRadians (named, or in that order).
#' @param type "double" or "float".
#' @param layout "stacked" (gpuRandom's: a (k n) x n matrix, rows (i - 1) n + 1 to i n the i-th parameter set's matrix) or "array" (an array dim c(k, n, n), as \code{cholBatch} takes it).
#' @param ... nothing: gpuRandom's in-place form \code{maternBatch(var, coords, param, Nglobal, Nlocal)} is refused with oclstat's form in the message.
#' @return A (k n) x n matrix, or an array dim c(k, n, n), for k = nrow(params).
#' @examples
#' if (oclstat_available()) {
#'   xy <- cbind(runif(5), runif(5))
#'   V <- maternBatch(xy, rbind(c(0.3, 1.5, 1, 0, 1, 0), c(0.2, 0.5, 2, 0.1, 1, 0)))
#'   dim(V)        # 10 x 5, gpuRandom's stacked layout
#'   dim(maternBatch(xy, c(0.3, 1.5, 1, 0, 1, 0), layout = "array"))
#' }
#' @export
maternBatch <- function(coords, params, type = c("double", "float"),
                        layout = c("stacked", "array"), ...) {
  if (...length() || !is.character(type))
    in_place_form("maternBatch(var, coords, param, Nglobal, Nlocal)",
                  "V <- maternBatch(coords, params)")
  layout <- match.arg(layout)
  A <- call_adapter("maternBatch", list(coords = to_py_array(coord_matrix(coords), "coords"),
                                        params = to_py_array(param_matrix(params), "params"),
                                        type = match.arg(type), layout = layout))
  if (layout == "array") return(A)
  d <- dim(A)
  matrix(aperm(A, c(2, 1, 3)), d[1] * d[2], d[3])
}

#' Matérn parameter sets in gpuRandom's 22-column layout
#'
#' gpuRandom's maternGpuParam: the parameter sets completed as geostatsp's \code{fillParam} completes them (variance from a column named "sd..." squared, else 1; nugget from "nuggetSD" squared, else 0; anisoRatio 1; anisoAngleRadians from anisoAngleDegrees, or both 0; anisoAngleDegrees from anisoAngleRadians; "var" read as variance; columns ordered range, shape, variance, nugget, anisoRatio, anisoAngleRadians, then the others; a missing range, anisoRatio or angle set to 1), then padded with zero columns to 22, the width of gpuRandom's device table. gpuRandom returns a gpuR \code{vclMatrix}; here an R matrix, which \code{maternBatch(coords, params)} takes as it is.
#' @param x parameter sets: a named vector (one set), a matrix or data.frame with named columns (one set per row), or a named list of vectors.
#' @param type "double" or "float" (accepted for gpuRandom's calls; the values are R's doubles).
#' @return A numeric matrix, one row per set and 22 columns: the completed parameters (named) and zeros (named "").
#' @examples
#' p <- maternGpuParam(c(range = 0.3, shape = 1.5, nugget = 0.1))
#' p[, 1:7]
#' if (oclstat_available()) {
#'   dim(maternBatch(cbind(c(0, 1, 0.5), c(0, 0, 1)), p))
#' }
#' @export
maternGpuParam <- function(x, type = c("double", "float")) {
  match.arg(type)
  p <- fill_param(x)
  if (ncol(p) > 22)
    stop("x: ", ncol(p), " parameters once completed, more than gpuRandom's 22 columns",
         call. = FALSE)
  out <- cbind(p, matrix(0, nrow(p), 22 - ncol(p)))
  colnames(out) <- c(colnames(p), rep("", 22 - ncol(p)))
  out
}

# geostatsp's fillParam, as its documentation and code define it, on a matrix of sets.
fill_param <- function(x) {
  if (is.list(x) && !is.data.frame(x)) x <- do.call(cbind, lapply(x, as.vector))
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.null(dim(x))) x <- matrix(x, nrow = 1, dimnames = list(NULL, names(x)))
  if (!is.numeric(x) || is.null(colnames(x)) || any(colnames(x) == ""))
    stop("x must be numeric parameter sets with named columns (range, shape, ...)",
         call. = FALSE)
  colnames(x) <- sub("^var$", "variance", colnames(x))
  has <- function(name) name %in% colnames(x)
  sd <- grep("^sd", colnames(x), ignore.case = TRUE, value = TRUE)
  if (!has("variance"))
    x <- cbind(x, variance = if (length(sd)) x[, sd[1]]^2 else 1)
  if (!has("nugget"))
    x <- cbind(x, nugget = if (has("nuggetSD")) x[, "nuggetSD"]^2 else 0)
  for (name in c("shape", "range"))
    if (!has(name)) warning(name, " parameter not supplied", call. = FALSE)
  if (!has("anisoRatio")) x <- cbind(x, anisoRatio = 1)
  if (has("anisoAngleRadians")) {
    x <- cbind(x[, colnames(x) != "anisoAngleDegrees", drop = FALSE],
               anisoAngleDegrees = x[, "anisoAngleRadians"] * 360 / (2 * pi))
  } else if (has("anisoAngleDegrees")) {
    x <- cbind(x, anisoAngleRadians = x[, "anisoAngleDegrees"] * 2 * pi / 360)
  } else {
    x <- cbind(x, anisoAngleRadians = 0, anisoAngleDegrees = 0)
  }
  first <- c("range", "shape", "variance", "nugget", "anisoRatio", "anisoAngleRadians")
  x <- x[, c(intersect(first, colnames(x)), setdiff(colnames(x), first)), drop = FALSE]
  for (name in c("range", "anisoRatio", "anisoAngleRadians", "anisoAngleDegrees"))
    if (has(name)) x[is.na(x[, name]), name] <- 1
  x
}

# gpuRandom's forms that fill gpuR matrices in place cannot work on R matrices (R copies):
# a clear error with oclstat's form, never a silently unfilled matrix.
in_place_form <- function(theirs, ours) {
  stop(theirs, " is gpuRandom's form, which fills gpuR vclMatrix arguments in place; R ",
       "matrices cannot be filled in place: in oclstat the result is returned: ", ours,
       call. = FALSE)
}

as_batch <- function(A) {
  if (is.matrix(A)) A <- array(A, dim = c(1, dim(A)))
  if (length(dim(A)) != 3 || dim(A)[2] != dim(A)[3])
    stop("A must be an n x n matrix or an array dim c(batch, n, n)", call. = FALSE)
  A
}

#' Batched LDL^T decomposition
#'
#' A = L diag(D) L^T for every matrix of the batch; an error names the first matrix and pivot that is not positive.
#' @param A an n x n matrix or an array dim c(batch, n, n) of symmetric positive definite matrices.
#' @param ... nothing: gpuRandom's in-place form \code{cholBatch(A, D, numbatchD, Nglobal, Nlocal, NlocalCache)} is refused with oclstat's form in the message.
#' @return list(L = unit lower triangular array c(batch, n, n), D = batch x n matrix, logdet).
#' @examples
#' if (oclstat_available()) {
#'   cholBatch(matrix(c(4, 2, 2, 3), 2))$D
#' }
#' @export
cholBatch <- function(A, ...) {
  if (...length())
    in_place_form("cholBatch(A, D, numbatchD, Nglobal, Nlocal, NlocalCache)",
                  "r <- cholBatch(A); r$L; r$D")
  call_adapter("cholBatch", list(A = to_py_array(as_batch(A), "A")))
}

#' L diag(w(D)) Z for a batch
#'
#' The last step of field simulation: w = sqrt(D) ("sqrt"), D ("identity") or 1 ("none").
#' @param L lower triangular array c(batch, n, n).
#' @param D batch x n matrix.
#' @param Z array c(batch, nsim, n), e.g. standard normals.
#' @param transform "sqrt", "identity" or "none".
#' @param ... nothing: gpuRandom's in-place form \code{multiplyLowerDiagonalBatch(output, L, D, B, diagIsOne, transformD, Nglobal, Nlocal, NlocalCache)} is refused with oclstat's form in the message.
#' @return An array c(batch, nsim, n).
#' @export
multiplyLowerDiagonalBatch <- function(L, D, Z, transform = c("sqrt", "identity", "none"),
                                       ...) {
  if (...length() || !is.character(transform))
    in_place_form(paste("multiplyLowerDiagonalBatch(output, L, D, B, diagIsOne, transformD,",
                        "Nglobal, Nlocal, NlocalCache)"),
                  "output <- multiplyLowerDiagonalBatch(L, D, B, transform = transformD)")
  call_adapter("multiplyLowerDiagonalBatch",
               list(L = to_py_array(as_batch(L), "L"), D = to_py_array(D, "D"),
                    Z = to_py_array(Z, "Z"), transform = match.arg(transform)))
}

#' Exact simulation of Gaussian random fields
#'
#' Matérn covariance, LDL^T, standard normals from MRG31k3p streams and L D^(1/2) Z, all on the device.
#' @param coords n x 2 matrix of coordinates.
#' @param params parameter sets, as in \code{maternBatch}.
#' @param Nsim fields per parameter set.
#' @param seed an integer or six integers.
#' @param type "double" or "float".
#' @return An array dim c(nrow(params), Nsim, n).
#' @examples
#' if (oclstat_available()) {
#'   xy <- as.matrix(expand.grid(seq(0, 1, length.out = 10), seq(0, 1, length.out = 8)))
#'   f <- simulateFields(xy, c(0.3, 1.5, 1, 0, 1, 0), 2, seed = 1)
#'   dim(f)
#' }
#' @export
simulateFields <- function(coords, params, Nsim, seed = NULL, type = c("double", "float")) {
  call_adapter("simulateFields", list(coords = to_py_array(coord_matrix(coords), "coords"),
                                      params = to_py_array(param_matrix(params), "params"),
                                      Nsim = py_int(Nsim, "Nsim", minimum = 1),
                                      seed = py_seed(seed), type = match.arg(type)))
}
