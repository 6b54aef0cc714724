#' Exact two-sample permutation test (Green's dynamic programme)
#'
#' The statistic is the sum of the first sample's scores; its exact null distribution over all relabelings comes from Green's dynamic programme, for every feature (row) at once.
#' @param x first sample: a vector, or a features x samples matrix.
#' @param y second sample, the same features (or NULL with \code{groups}); when both matrices have row names, rows are paired by name.
#' @param nWindows discretise each feature into this many equal windows (needed for real-valued data).
#' @param alternative "two.sided", "less" or "greater".
#' @param midP mid-P values.
#' @param twoSided the two-sided rule: "distance" (P(|T - E T| >= |t - E T|), coin's \code{oneway_test}) or "double" (twice the smaller tail).
#' @param groups instead of \code{y}: one label per sample (column) of \code{x}, two groups (the first level of \code{factor(groups)} is the first group: a factor's own order, else alphabetical). A named vector is matched to the column names of \code{x} by name.
#' @return For one feature an htest (with the group means); otherwise a data.frame (feature, meanX, meanY, meanDiff, effectSize, statistic, p.value, q.value).
#' @examples
#' if (oclstat_available()) {
#'   permTest(c(3, 5, 6, 9), c(1, 2, 2, 4, 3), alternative = "greater")
#' }
#' @export
permTest <- function(x, y = NULL, nWindows = NULL, alternative = c("two.sided", "less", "greater"),
                     midP = FALSE, twoSided = c("distance", "double"), groups = NULL) {
  alternative <- match.arg(alternative)
  twoSided <- match.arg(twoSided)
  classes <- NULL
  if (!is.null(groups)) {
    if (!is.null(y)) stop("give y or groups, not both", call. = FALSE)
    dname <- paste(deparse1(substitute(x)), "by", deparse1(substitute(groups)))
    n <- if (is.null(dim(x))) length(x) else ncol(x)
    if (is.null(names(groups)) && length(groups) != n)
      stop("groups has ", length(groups), " labels but x has ", n, " samples", call. = FALSE)
    if (anyNA(groups)) stop("groups must not contain NA", call. = FALSE)
    # the first group is the first level of factor(groups) (a factor's own order, else
    # alphabetical), whatever the order of the samples
    used <- levels(droplevels(if (is.factor(groups)) groups else factor(groups)))
    if (length(used) == 2) classes <- as.list(used)
    groups <- to_py_labels(groups)
  } else {
    if (is.null(y)) stop("give y (the second sample) or groups", call. = FALSE)
    dname <- paste(deparse1(substitute(x)), "and", deparse1(substitute(y)))
    one <- is.null(dim(x)) && is.null(dim(y))
    if (!one && (is.null(dim(x)) || is.null(dim(y)) ||
                 nrow(as.matrix(x)) != nrow(as.matrix(y))))
      stop("x and y must both be vectors, or matrices with the same rows (features)",
           call. = FALSE)
  }
  w <- if (is.null(nWindows)) NULL else py_int(nWindows, "nWindows", minimum = 2)
  call_adapter("permTest", list(x = to_py_array(x, "x"),
                                y = if (is.null(y)) NULL else to_py_array(y, "y"),
                                nWindows = w, alternative = alternative, midP = isTRUE(midP),
                                twoSided = twoSided, groups = groups, classes = classes,
                                dname = dname))
}
