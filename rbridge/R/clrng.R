# clrng's and gpuRandom's stream interface: a base creator that successive stream sets continue
# from, streams on the device that draws advance in place, the work sizes as options.

.onLoad <- function(libname, pkgname) {
  defaults <- list(clrng.Nglobal = c(16L, 8L), clrng.type = "double")     # clrng's
  unset <- !(names(defaults) %in% names(options()))
  if (any(unset)) options(defaults[unset])
}

# The creator's state: the initial state of the next stream to create (clRNG's base creator).
creator <- function() {
  if (is.null(.state$creator)) .state$creator <- rep(12345L, 6)
  .state$creator
}

#' Set the initial state of the first stream, as clrng's setBaseCreator
#'
#' Streams made afterwards by \code{createStreamsCpu} or \code{createStreamsGpu} start at \code{initial} and each call continues where the previous one stopped (clRNG's base creator): two calls of n streams give the same streams as one call of 2 n.
#' @param initial six integers (recycled if shorter): three below 2147483647, not all 0, and three below 2147462579, not all 0 (clRNG's rules).
#' @return The state set, invisibly.
#' @examples
#' if (oclstat_available()) {
#'   setBaseCreator(rep(12235, 6))
#'   s <- createStreamsCpu(4)
#'   s[1, 1:6]
#' }
#' @export
setBaseCreator <- function(initial = rep(12345, 6)) {
  if (!is.numeric(initial) || !length(initial) || anyNA(initial) || any(initial != round(initial)))
    stop("initial must be six whole numbers", call. = FALSE)
  initial <- rep_len(initial, 6)
  if (any(initial < 0) || any(initial[1:3] >= 2147483647) || any(initial[4:6] >= 2147462579) ||
      all(initial[1:3] == 0) || all(initial[4:6] == 0))
    stop("initial is not a valid MRG31k3p seed (CLRNG_INVALID_SEED): the first three must be ",
         "below 2147483647 and the last three below 2147462579, neither three all 0",
         call. = FALSE)
  .state$creator <- as.integer(initial)
  invisible(.state$creator)
}

# n streams from the creator; the creator moves to the stream after them.
streams_from_creator <- function(n) {
  n <- py_int(n, "n", minimum = 1)
  all <- createStreams(n + 1, seed = creator())
  .state$creator <- unname(all[n + 1, 1:6])
  all[seq_len(n), , drop = FALSE]
}

#' Create streams on the host, as clrng's createStreamsCpu
#'
#' \code{n} MRG31k3p streams continuing from the base creator (\code{setBaseCreator}); stream k is stream k-1 jumped 2^134 steps, bit for bit as clRNG.
#' @param n number of streams (default: the number of work items, \code{prod(getOption("clrng.Nglobal"))}).
#' @param initial gpuRandom's argument: the first stream's six-number state (recycled); the streams then start there and the base creator is not moved. Missing: continue from the base creator (clrng's rule).
#' @return An n x 12 integer matrix (current and initial state); draws from it return the advanced streams as \code{attr(x, "streams")}.
#' @examples
#' if (oclstat_available()) {
#'   setBaseCreator(rep(12345, 6))
#'   t(createStreamsCpu(n = 3))
#' }
#' @export
createStreamsCpu <- function(n = prod(getOption("clrng.Nglobal")), initial) {
  if (!missing(initial)) return(streams_from_initial(n, initial))
  streams_from_creator(n)
}

# gpuRandom's createStreamsCpu(n, initial): n streams, the first starting at `initial`
# (recycled to six numbers); the base creator is left where it was.
streams_from_initial <- function(n, initial) {
  saved <- .state$creator
  on.exit(.state$creator <- saved)
  setBaseCreator(initial)
  streams_from_creator(n)
}

#' Create streams kept for the device, as clrng's createStreamsGpu
#'
#' As \code{createStreamsCpu}, but the result is a reference (as clrng's vclMatrix): every draw that uses it advances it in place, so successive calls continue the streams.
#' @param n number of streams (default \code{prod(getOption("clrng.Nglobal"))}).
#' @param initial as for \code{createStreamsCpu}.
#' @return An object of class oclstatStreams: \code{dim()}, \code{nrow()}, \code{as.matrix()} and \code{print()} work as on the n x 12 matrix.
#' @examples
#' if (oclstat_available()) {
#'   s <- createStreamsGpu(8)
#'   dim(s)
#'   u1 <- runifGpu(4, s)
#'   u2 <- runifGpu(4, s)   # continues: different numbers
#' }
#' @export
createStreamsGpu <- function(n = prod(getOption("clrng.Nglobal")), initial) {
  ref <- new.env(parent = emptyenv())
  ref$matrix <- if (missing(initial)) streams_from_creator(n) else
    streams_from_initial(n, initial)
  class(ref) <- "oclstatStreams"
  ref
}

#' @method dim oclstatStreams
#' @noRd
dim.oclstatStreams <- function(x) dim(x$matrix)

#' @method as.matrix oclstatStreams
#' @noRd
as.matrix.oclstatStreams <- function(x, ...) x$matrix

#' @method print oclstatStreams
#' @noRd
print.oclstatStreams <- function(x, ...) {
  cat("MRG31k3p streams (", nrow(x$matrix), " x 12, advanced in place by draws)\n", sep = "")
  print(utils::head(x$matrix), ...)
  if (nrow(x$matrix) > 6) cat("...\n")
  invisible(x)
}

# The streams a draw uses: list(matrix = the rows to draw from (the first prod(Nglobal) when
# Nglobal is given), ref = the reference to advance in place (NULL for a plain matrix), all).
stream_input <- function(streams, Nglobal) {
  if (is.null(streams)) return(NULL)
  ref <- if (inherits(streams, "oclstatStreams")) streams else NULL
  m <- if (is.null(ref)) streams else ref$matrix
  if (!is.matrix(m) || ncol(m) != 12 || anyNA(m))
    stop("streams must be an n x 12 integer matrix from createStreamsCpu() or ",
         "createStreamsGpu()", call. = FALSE)
  use <- nrow(m)
  if (!is.null(Nglobal)) {
    use <- prod(Nglobal)
    if (use > nrow(m))
      stop("the number of streams (", nrow(m), ") must equal or exceed the number of work ",
           "items prod(Nglobal) = ", use, call. = FALSE)
  }
  list(matrix = m[seq_len(use), , drop = FALSE], ref = ref, all = m)
}

# After a draw: the advanced rows back into the reference (in place) and the full matrix.
stream_output <- function(input, advanced) {
  m <- input$all
  m[seq_len(nrow(advanced)), ] <- advanced
  if (!is.null(input$ref)) input$ref$matrix <- m
  m
}

# Nglobal as clrng takes it: one or two positive whole numbers (NULL: not given).
check_nglobal <- function(Nglobal) {
  if (is.null(Nglobal)) return(NULL)
  if (!is.numeric(Nglobal) || !(length(Nglobal) %in% 1:2) || anyNA(Nglobal) ||
      any(Nglobal < 1) || any(Nglobal != round(Nglobal)))
    stop("Nglobal must be one or two positive whole numbers (work items per dimension)",
         call. = FALSE)
  as.integer(Nglobal)
}

# clrng's verbose lines: the work sizes and the streams used; at 2, also the device.
report_sizes <- function(verbose, Nglobal, input) {
  if (!isTRUE(verbose >= 1)) return(invisible())
  cat("local sizes ", toString(c(1L, 1L)), "\nglobal sizes ",
      toString(if (is.null(Nglobal)) "one work item per stream" else Nglobal),
      "\n streams ", if (is.null(input)) "fresh, from seed" else toString(dim(input$matrix)),
      "\n", sep = "")
  if (isTRUE(verbose >= 2)) {
    d <- bridge()$device_summary(device_arg())
    cat("device ", d, "\n", sep = "")
  }
}
