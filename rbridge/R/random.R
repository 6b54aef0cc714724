# MRG31k3p streams (clRNG's generator) as gpuRandom keeps them: an n x 12 integer matrix.

py_seed <- function(seed) {
  if (is.null(seed)) return(NULL)
  if (!is.numeric(seed) || anyNA(seed) || any(seed != round(seed)) || !(length(seed) %in% c(1, 6)))
    stop("seed must be one integer or six integers", call. = FALSE)
  if (length(seed) == 1) py_int(seed, "seed") else
    lapply(seq_along(seed), function(i) py_int(seed[[i]], paste0("seed[", i, "]")))
}

#' MRG31k3p random streams, as clRNG and gpuRandom make them
#'
#' Stream 0 starts at \code{seed}; stream k is stream k-1 jumped 2^134 steps (clRNG's clrngMrg31k3pCreateStreams).
#' @param n number of streams.
#' @param seed one integer (expanded reproducibly) or six integers (clRNG's seed; default 12345 x 6).
#' @return An n x 12 integer matrix (current and initial state), accepted by every draw function.
#' @examples
#' if (oclstat_available()) {
#'   s <- createStreams(4)
#'   dim(s)
#' }
#' @export
createStreams <- function(n, seed = c(12345L, 12345L, 12345L, 12345L, 12345L, 12345L)) {
  call_adapter("createStreams", list(n = py_int(n, "n", minimum = 1), seed = py_seed(seed)))
}

check_streams <- function(streams) {
  if (!is.matrix(streams) || ncol(streams) != 12 || anyNA(streams))
    stop("streams must be an n x 12 integer matrix from createStreams()", call. = FALSE)
  streams
}

draw <- function(name, n, streams, seed, type, extra = list()) {
  if (!is.numeric(n) || !(length(n) %in% c(1, 2)) || anyNA(n) || any(n < 0))
    stop("n must be a count or c(nrow, ncol)", call. = FALSE)
  size <- if (length(n) == 1) py_int(n, "n") else list(py_int(n[1], "n[1]"), py_int(n[2], "n[2]"))
  st <- if (is.null(streams)) NULL else
    to_py_array(check_streams(streams), "streams", integer = TRUE)
  call_adapter(name, c(list(n = size, streams = st, type = match.arg(type, c("double", "float")),
                            seed = py_seed(seed)), extra))
}

#' Uniform random numbers from MRG31k3p streams
#'
#' Values equal Python's \code{oclstat.random.uniform} at the same indices; the advanced streams come back as \code{attr(x, "streams")}.
#' @param n a count, or c(nrow, ncol) for a matrix.
#' @param streams a stream matrix from \code{createStreams} (or NULL with \code{seed}).
#' @param type "double" or "float".
#' @param seed used when \code{streams} is NULL.
#' @return A numeric vector or matrix.
#' @examples
#' if (oclstat_available()) {
#'   u <- runifGpu(c(3, 4), createStreams(8))
#'   attr(u, "streams")[1, ]
#' }
#' @export
runifGpu <- function(n, streams = NULL, type = c("double", "float"), seed = NULL) {
  draw("runifGpu", n, streams, seed, type)
}

#' Standard normal random numbers from MRG31k3p streams
#'
#' Box-Muller on pairs of the streams' uniforms; see \code{runifGpu}.
#' @param n a count, or c(nrow, ncol).
#' @param streams a stream matrix (or NULL with \code{seed}).
#' @param type "double" or "float".
#' @param seed used when \code{streams} is NULL.
#' @return A numeric vector or matrix.
#' @examples
#' if (oclstat_available()) {
#'   rnormGpu(5, seed = 1)
#' }
#' @export
rnormGpu <- function(n, streams = NULL, type = c("double", "float"), seed = NULL) {
  draw("rnormGpu", n, streams, seed, type)
}

#' Exponential random numbers from MRG31k3p streams
#'
#' -log(U) / rate; see \code{runifGpu}.
#' @param n a count, or c(nrow, ncol).
#' @param rate the rate.
#' @param streams a stream matrix (or NULL with \code{seed}).
#' @param type "double" or "float".
#' @param seed used when \code{streams} is NULL.
#' @return A numeric vector or matrix.
#' @examples
#' if (oclstat_available()) {
#'   rexpGpu(5, rate = 2, seed = 1)
#' }
#' @export
rexpGpu <- function(n, rate = 1, streams = NULL, type = c("double", "float"), seed = NULL) {
  draw("rexpGpu", n, streams, seed, type, list(rate = as.double(rate)))
}
