# gpuRandom's names for the draws and the Q-Q plot: runif, rnorm, rexp and qqnorm, which mask
# stats' as gpuRandom's do (said at attach). Called as stats' functions are (no streams, no
# work sizes), they are stats' functions, numbers and all; given streams (or work sizes), they
# draw on the device as gpuRandom's.

.onAttach <- function(libname, pkgname) {
  packageStartupMessage("oclstat: runif, rnorm, rexp and qqnorm take gpuRandom's arguments ",
                        "and mask stats' (as gpuRandom's do); called as stats' (no streams, ",
                        "no Nglobal), they are stats' own.")
}

is_streams <- function(x) {
  inherits(x, "oclstatStreams") || (is.matrix(x) && ncol(x) == 12)
}

# Did the caller name `what` (a gpuRandom argument stats' function does not have)?
named <- function(call, what) any(what %in% names(as.list(call))[-1])

# stats' function `fun` with the arguments as the caller gave them (positions kept).
as_stats <- function(fun, call, env) {
  call[[1]] <- fun
  eval(call, env)
}

# runif and rnorm: stats' `stats_fun` unless given streams or a named Nglobal, else the
# device's `name`. `streams` and `Nglobal` come as list() when missing and list(value) when
# given (each evaluated once), so stats' positional arguments keep their places.
stats_or_device <- function(stats_fun, name, call, n, streams, Nglobal, type, rest) {
  if (!(length(streams) && is_streams(streams[[1]])) && !named(call, "Nglobal"))
    return(do.call(stats_fun, c(list(n), streams, Nglobal, rest)))
  gpurandom_draw(name, n, if (length(streams)) streams[[1]], if (length(Nglobal)) Nglobal[[1]],
                 type)
}

#' Uniform random numbers, as gpuRandom's runif (masking stats')
#'
#' With \code{streams} (from \code{createStreamsCpu} / \code{createStreamsGpu}) or a named \code{Nglobal}, gpuRandom's runif: draws on the device, clrng's layout over the work items (see \code{runifGpu}); fresh streams from R's random number generator when none are given. Otherwise \code{stats::runif} itself (\code{runif(n, min, max)}).
#' @param n a count, or c(nrow, ncol).
#' @param streams streams, or stats' \code{min} when not streams.
#' @param Nglobal work items, or stats' \code{max} when \code{streams} are not streams.
#' @param type "double" or "float".
#' @param ... stats' arguments (\code{min}, \code{max}) when called as stats'.
#' @return A numeric vector or matrix.
#' @examples
#' set.seed(1)
#' runif(3)                      # stats' runif
#' if (oclstat_available()) {
#'   s <- createStreamsCpu(16)
#'   runif(c(2, 4), streams = s, Nglobal = c(8, 2))
#' }
#' @export
runif <- function(n, streams, Nglobal, type = c("double", "float"), ...) {
  stats_or_device(stats::runif, "runifGpu", sys.call(), n,
                  if (!missing(streams)) list(streams), if (!missing(Nglobal)) list(Nglobal),
                  match.arg(type), list(...))
}

#' Normal random numbers, as gpuRandom's rnorm (masking stats')
#'
#' With \code{streams} or a named \code{Nglobal}, gpuRandom's rnorm on the device (see \code{rnormGpu}); otherwise \code{stats::rnorm} itself (\code{rnorm(n, mean, sd)}).
#' @param n a count, or c(nrow, ncol).
#' @param streams streams, or stats' \code{mean}.
#' @param Nglobal work items, or stats' \code{sd}.
#' @param type "double" or "float".
#' @param ... stats' arguments when called as stats'.
#' @return A numeric vector or matrix.
#' @examples
#' set.seed(1)
#' rnorm(3, 10, 2)               # stats' rnorm
#' if (oclstat_available()) rnorm(4, streams = createStreamsCpu(8), Nglobal = c(4, 2))
#' @export
rnorm <- function(n, streams, Nglobal, type = c("double", "float"), ...) {
  stats_or_device(stats::rnorm, "rnormGpu", sys.call(), n,
                  if (!missing(streams)) list(streams), if (!missing(Nglobal)) list(Nglobal),
                  match.arg(type), list(...))
}

#' Exponential random numbers, as gpuRandom's rexp (masking stats')
#'
#' With \code{streams} or a named \code{Nglobal}, gpuRandom's rexp on the device (see \code{rexpGpu}); otherwise \code{stats::rexp} itself.
#' @param n a count, or c(nrow, ncol).
#' @param rate the rate.
#' @param streams streams from \code{createStreamsCpu} or \code{createStreamsGpu}.
#' @param Nglobal work items.
#' @param type "double" or "float".
#' @return A numeric vector or matrix.
#' @examples
#' set.seed(1)
#' rexp(3, 2)                    # stats' rexp
#' if (oclstat_available()) rexp(4, 2, streams = createStreamsCpu(8), Nglobal = c(4, 2))
#' @export
rexp <- function(n, rate = 1, streams, Nglobal, type = c("double", "float")) {
  if (!(!missing(streams) && is_streams(streams)) && !named(sys.call(), "Nglobal"))
    return(stats::rexp(n, rate))
  if (!is.numeric(rate) || length(rate) != 1 || !is.finite(rate) || rate <= 0)
    stop("invalid rate value", call. = FALSE)
  gpurandom_draw("rexpGpu", n, streams, Nglobal, match.arg(type), list(rate = as.double(rate)))
}

# gpuRandom's draw: without streams, prod(Nglobal) fresh ones seeded from R's RNG.
gpurandom_draw <- function(name, n, streams, Nglobal, type, extra = list()) {
  if (missing(Nglobal)) Nglobal <- NULL
  fresh <- missing(streams) || is.null(streams)
  if (fresh) {
    if (is.null(Nglobal)) Nglobal <- c(64L, 8L)          # gpuRandom's default work items
    streams <- createStreams(prod(Nglobal), seed = r_seed())
  }
  x <- draw(name, n, streams, Nglobal, type, FALSE, NULL, extra)
  if (fresh) attr(x, "streams") <- NULL                    # streams nobody holds
  x
}

#' Normal Q-Q plot, as gpuRandom's qqnorm (masking stats')
#'
#' With any of gpuRandom's arguments (\code{mu}, \code{sigma}, \code{lowertail}, \code{Nglobal}, \code{Nlocal}, \code{verbose}) named, gpuRandom's qqnorm: the theoretical quantiles on the device (see \code{qqnormGpu}), plotted. Otherwise \code{stats::qqnorm} itself.
#' @param y the sample.
#' @param ylim the plot's y limits.
#' @param mu,sigma the normal's mean and standard deviation.
#' @param lowertail 1 (TRUE) for lower-tail quantiles.
#' @param main,xlab,ylab the plot's titles.
#' @param Nglobal,Nlocal gpuRandom's work sizes (accepted; the device chooses its own).
#' @param verbose TRUE prints the sample size and the device.
#' @param ... further arguments of \code{plot} (or of \code{stats::qqnorm}).
#' @return list(x, y), invisibly.
#' @examples
#' y <- c(2.1, -0.3, 0.8, 1.7)
#' qqnorm(y)                     # stats' qqnorm
#' if (oclstat_available()) qqnorm(y, mu = 1, sigma = 2)
#' @export
qqnorm <- function(y, ylim, mu = 0, sigma = 1, lowertail = 1, main = "Normal Q-Q Plot",
                   xlab = "Theoretical Quantiles", ylab = "Sample Quantiles", Nglobal,
                   Nlocal = c(2, 2), verbose = FALSE, ...) {
  if (!named(sys.call(), c("mu", "sigma", "lowertail", "Nglobal", "Nlocal", "verbose")))
    return(as_stats(quote(stats::qqnorm), sys.call(), parent.frame()))
  qqnormGpu(y, ylim, mu = mu, sigma = sigma, lower.tail = as.logical(lowertail), main = main,
            xlab = xlab, ylab = ylab, verbose = verbose, ...)
}
