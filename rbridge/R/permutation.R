#' Exact two-sample permutation test (Green's dynamic programme)
#'
#' The statistic is the sum of the first sample's scores; its exact null distribution over all relabelings comes from Green's dynamic programme, for every feature (row) at once.
#' @param x first sample: a vector, or a features x samples matrix.
#' @param y second sample, the same features.
#' @param nWindows discretise each feature into this many equal windows (needed for real-valued data).
#' @param alternative "two.sided", "less" or "greater".
#' @param midP mid-P values.
#' @return For two vectors an htest; otherwise a data.frame (feature, statistic, p.value, q.value).
#' @examples
#' if (oclstat_available()) {
#'   permTest(c(3, 5, 6, 9), c(1, 2, 2, 4, 3), alternative = "greater")
#' }
#' @export
permTest <- function(x, y, nWindows = NULL, alternative = c("two.sided", "less", "greater"),
                     midP = FALSE) {
  alternative <- match.arg(alternative)
  dname <- paste(deparse1(substitute(x)), "and", deparse1(substitute(y)))
  one <- is.null(dim(x)) && is.null(dim(y))
  if (!one) {
    if (is.null(dim(x)) || is.null(dim(y)) || nrow(as.matrix(x)) != nrow(as.matrix(y)))
      stop("x and y must both be vectors, or matrices with the same rows (features)",
           call. = FALSE)
  }
  w <- if (is.null(nWindows)) NULL else py_int(nWindows, "nWindows", minimum = 2)
  features <- if (one) NULL else rownames(x)
  call_adapter("permTest", list(x = to_py_array(x, "x"), y = to_py_array(y, "y"),
                                nWindows = w, alternative = alternative, midP = isTRUE(midP),
                                features = if (is.null(features)) NULL else as.list(features),
                                dname = dname))
}
