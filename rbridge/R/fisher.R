#' Monte Carlo Fisher exact test on the device
#'
#' Simulates B tables with the observed margins (Patefield's algorithm) and counts those at most as probable as the observed one, like \code{fisher.test(x, simulate.p.value = TRUE, B = B)}.
#' @param x a contingency table (matrix of non-negative integer counts).
#' @param B number of simulated tables.
#' @param seed an integer or six integers.
#' @param streams a stream matrix instead of \code{seed}.
#' @return An object of class htest (p.value, method, data.name).
#' @examples
#' if (oclstat_available()) {
#'   fisher.sim(matrix(c(3, 1, 1, 3, 2, 2), 2), B = 1e5, seed = 1)
#' }
#' @export
fisher.sim <- function(x, B = 2000, seed = NULL, streams = NULL) {
  dname <- deparse1(substitute(x))
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.matrix(x)) stop("x must be a matrix (a contingency table)", call. = FALSE)
  if (!is.numeric(x)) stop("x must be a numeric matrix of counts", call. = FALSE)
  if (anyNA(x)) stop("x must not contain NA", call. = FALSE)
  if (any(x < 0) || any(x != round(x))) stop("x must hold non-negative integer counts",
                                               call. = FALSE)
  call_adapter("fisher.sim", list(x = to_py_array(x, "x"), B = py_int(B, "B", minimum = 1),
                                   seed = py_seed(seed),
                                   streams = if (is.null(streams)) NULL else
                                     to_py_array(check_streams(streams), "streams",
                                                 integer = TRUE),
                                   dname = dname))
}
