#' Monte Carlo Fisher exact test on the device, as clrng's fisher.sim
#'
#' Simulates N tables with the observed margins (Patefield's algorithm) and counts those at most as probable as the observed one, as \code{fisher.test(x, simulate.p.value = TRUE, B = N)}. Takes clrng's arguments and returns its fields alongside the htest ones.
#' @param x a contingency table (matrix of non-negative integer counts).
#' @param N number of simulated tables (clrng's; \code{B} is the same, as fisher.test names it). With \code{Nglobal}, rounded up to a multiple of \code{prod(Nglobal)} as clrng does (\code{simNum}).
#' @param streams streams from \code{createStreamsGpu} (advanced in place) or \code{createStreamsCpu}; NULL: fresh streams from \code{seed}.
#' @param type "double" or "float": the precision of the sampling arithmetic and of \code{sim} (counts are exact either way).
#' @param returnStatistics also return the simulated statistics (\code{sim}).
#' @param Nglobal work items: the first \code{prod(Nglobal)} streams draw \code{simNum / prod(Nglobal)} tables each.
#' @param verbose TRUE prints the work sizes and streams.
#' @param seed an integer or six integers (used without \code{streams}; default: one is drawn and kept in the result).
#' @param B fisher.test's name for \code{N}.
#' @return An object of class htest (p.value, method, data.name, statistic) that also holds clrng's fields: counts, simNum (N rounded up to whole rounds of the work items, prod(Nglobal) or getOption("clrng.Nglobal")), threshold (the statistic -sum(lfactorial(x)) over 1 + 64 eps), streams (the advanced stream matrix), sim (with returnStatistics), seed.
#' @examples
#' if (oclstat_available()) {
#'   Job <- matrix(c(1, 2, 1, 0, 3, 3, 6, 1, 10, 10, 14, 9, 6, 7, 12, 11), 4, 4)
#'   s <- createStreamsCpu(n = 64 * 8)
#'   r <- fisher.sim(Job, 1e4, returnStatistics = TRUE, type = "double", streams = s,
#'                   Nglobal = c(64, 8))
#'   c(r$counts, r$simNum, r$p.value)
#' }
#' @export
fisher.sim <- function(x, N = 2000, streams = NULL, type = getOption("clrng.type", "double"),
                       returnStatistics = FALSE, Nglobal = NULL, verbose = FALSE, seed = NULL,
                       B = NULL) {
  dname <- deparse1(substitute(x))
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.matrix(x)) stop("x must be a matrix (a contingency table)", call. = FALSE)
  if (!is.numeric(x)) stop("x must be a numeric matrix of counts", call. = FALSE)
  if (anyNA(x)) stop("x must not contain NA", call. = FALSE)
  if (any(x < 0) || any(x != round(x))) stop("x must hold non-negative integer counts",
                                               call. = FALSE)
  if (!is.null(B)) {
    if (!missing(N)) stop("give N or B, not both", call. = FALSE)
    N <- py_int(B, "B", minimum = 1)
  }
  N <- py_int(N, "N", minimum = 1)
  Nglobal <- check_nglobal(Nglobal)
  if (is.null(Nglobal)) {                # clrng: whole rounds of its work items, always
    items <- prod(getOption("clrng.Nglobal", c(16L, 8L)))
    N <- py_int(ceiling(N / items) * items, "N")
  }
  input <- stream_input(streams, Nglobal)
  report_sizes(verbose, Nglobal, input)
  res <- call_adapter("fisher.sim", list(
    x = to_py_array(x, "x"), N = N,
    streams = if (is.null(input)) NULL else to_py_array(input$matrix, "streams", integer = TRUE),
    type = check_type(type), returnStatistics = isTRUE(returnStatistics),
    Nglobal = if (is.null(Nglobal)) NULL else as.list(Nglobal), seed = py_seed(seed),
    dname = dname))
  if (!is.null(input)) res$streams <- stream_output(input, res$streams)
  if (!is.null(Nglobal)) res$Nglobal <- Nglobal
  # clrng's threshold: the statistic -sum(log(x!)) a simulated table must reach, with R's
  # fisher.test tolerance
  res$threshold <- -sum(lfactorial(x)) / (1 + 64 * .Machine$double.eps)
  res
}

#' Fisher's exact test for count data, as fisher.test, on the device
#'
#' R's \code{fisher.test} with its arguments and its htest result: 2 x 2 tables by the conditional law (p-value, conditional maximum-likelihood odds ratio, exact interval); larger tables exactly by the network algorithm (on the OpenCL device, also past R's workspace), with \code{hybrid = TRUE} as R's; \code{simulate.p.value = TRUE} simulates on the device (the seed used is returned and printed).
#' @param x a matrix of counts, or a factor (with \code{y}).
#' @param y a factor (with \code{x}): the table is \code{table(x, y)}.
#' @param workspace accepted for compatibility with \code{fisher.test}; the device's limits replace it (the exact test refuses tables past about 5e7 partial tables, naming \code{simulate.p.value = TRUE}).
#' @param hybrid R's hybrid: chi-square approximations where Cochran's conditions hold.
#' @param hybridPars \code{c(expect = 5, percnt = 80, Emin = 1)}, R's Cochran conditions.
#' @param control accepted for compatibility (R uses it for the odds ratio's root finding).
#' @param or the odds ratio under the null hypothesis (2 x 2).
#' @param alternative "two.sided", "less" or "greater" (2 x 2).
#' @param conf.int whether to return the odds ratio's confidence interval (2 x 2).
#' @param conf.level its level.
#' @param simulate.p.value simulate the p-value on the device (r x c).
#' @param B number of simulated tables.
#' @param seed an integer or six integers for the simulation (default: one is drawn and kept in the result).
#' @return An object of class htest, as fisher.test's: p.value, conf.int, estimate, null.value, alternative, method, data.name; with the simulation, also seed.
#' @examples
#' if (oclstat_available()) {
#'   Job <- matrix(c(1, 2, 1, 0, 3, 3, 6, 1, 10, 10, 14, 9, 6, 7, 12, 11), 4, 4)
#'   fisherTest(Job)  # 0.7827, as fisher.test(Job)
#' }
#' @export
fisherTest <- function(x, y = NULL, workspace = 200000, hybrid = FALSE,
                       hybridPars = c(expect = 5, percnt = 80, Emin = 1), control = list(),
                       or = 1, alternative = "two.sided", conf.int = TRUE, conf.level = 0.95,
                       simulate.p.value = FALSE, B = 2000, seed = NULL) {
  dname <- deparse1(substitute(x))
  if (is.data.frame(x)) x <- as.matrix(x)
  if (is.matrix(x)) {
    if (any(dim(x) < 2L)) stop("'x' must have at least 2 rows and columns", call. = FALSE)
    if (!is.numeric(x) || any(x < 0) || anyNA(x))
      stop("all entries of 'x' must be nonnegative and finite", call. = FALSE)
  } else {
    if (is.null(y)) stop("if 'x' is not a matrix, 'y' must be given", call. = FALSE)
    if (length(x) != length(y)) stop("'x' and 'y' must have the same length", call. = FALSE)
    dname <- paste(dname, "and", deparse1(substitute(y)))
    ok <- stats::complete.cases(x, y)
    x <- table(factor(x[ok]), factor(y[ok]))
  }
  alternative <- match.arg(alternative, c("two.sided", "less", "greater"))
  if (!is.numeric(conf.level) || length(conf.level) != 1 || conf.level <= 0 || conf.level >= 1)
    stop("'conf.level' must be a single number between 0 and 1", call. = FALSE)
  if (length(hybridPars) != 3 || !is.numeric(hybridPars))
    stop("'hybridPars' must be three numbers: expect, percnt, Emin", call. = FALSE)
  m <- matrix(as.double(x), nrow(x))
  call_adapter("fisherTest", list(x = to_py_array(m, "x"), hybrid = isTRUE(hybrid),
                                  hybridPars = as.list(as.double(hybridPars)), or = as.double(or),
                                  alternative = alternative, conf.int = isTRUE(conf.int),
                                  conf.level = as.double(conf.level),
                                  simulate.p.value = isTRUE(simulate.p.value),
                                  B = py_int(B, "B", minimum = 1), seed = py_seed(seed),
                                  workspace = as.double(workspace), dname = dname))
}
