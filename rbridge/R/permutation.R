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
  res <- py_call(oclstat_module()$permutation_test(
    to_py_array(x, "x"), to_py_array(y, "y"), n_windows = w,
    alternative = sub(".", "-", alternative, fixed = TRUE), mid_p = isTRUE(midP),
    device = device_arg()), c(n_windows = "nWindows", mid_p = "midP"))
  stat <- from_py_array(res$statistic)
  p <- from_py_array(res$pvalue)
  if (one) {
    out <- list(statistic = c(T = stat), p.value = p, alternative = alternative,
                method = paste0("Exact two-sample permutation test (sum of the first sample",
                                if (is.null(w)) "" else paste0("'s window scores, ", w, " windows"),
                                ")", if (isTRUE(midP)) ", mid-P" else ""),
                data.name = dname)
    class(out) <- "htest"
    return(out)
  }
  feature <- rownames(x)
  if (is.null(feature)) feature <- seq_len(nrow(x))
  data.frame(feature = feature, statistic = stat, p.value = p,
             q.value = p.adjust(p, method = "BH"), stringsAsFactors = FALSE)
}
