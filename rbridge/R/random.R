# MRG31k3p streams (clRNG's generator) as gpuRandom keeps them: an n x 12 integer matrix.

stream_colnames <- function() {
  as.vector(outer(c("g1.1", "g1.2", "g1.3", "g2.1", "g2.2", "g2.3"), c("current", "initial"),
                  function(g, w) paste(w, g, sep = ".")))
}

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
createStreams <- function(n, seed = c(12345L, 12345L, 12345L, 12345L, 12345L, 12345L)) {
  n <- py_int(n, "n", minimum = 1)
  st <- py_call(oclstat_module()$random$create_streams(n, seed = py_seed(seed)))
  streams_to_r(st)
}

streams_to_r <- function(st) {
  m <- from_py_array(st$to_matrix(substream = FALSE))
  if (is.null(dim(m))) dim(m) <- c(1L, 12L)
  colnames(m) <- stream_colnames()
  m
}

streams_to_py <- function(streams) {
  if (!is.matrix(streams) || ncol(streams) != 12 || anyNA(streams))
    stop("streams must be an n x 12 integer matrix from createStreams()", call. = FALSE)
  oclstat_module()$random$Streams$from_matrix(to_py_array(streams, "streams", integer = TRUE))
}

draw <- function(fun, n, streams, seed, type, extra = list()) {
  if (!is.numeric(n) || !(length(n) %in% c(1, 2)) || anyNA(n) || any(n < 0))
    stop("n must be a count or c(nrow, ncol)", call. = FALSE)
  type <- match.arg(type, c("double", "float"))
  size <- if (length(n) == 1) py_int(n, "n") else
    reticulate::tuple(py_int(n[1], "n[1]"), py_int(n[2], "n[2]"))
  st <- if (!is.null(streams)) streams_to_py(streams) else NULL
  args <- c(list(size, streams = st, seed = py_seed(seed),
                 dtype = if (type == "double") "float64" else "float32", device = device_arg()),
            extra)
  x <- from_py_array(do.call(oclstat_module()$random[[fun]], args))
  if (!is.null(st)) attr(x, "streams") <- streams_to_r(st)
  x
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
runifGpu <- function(n, streams = NULL, type = c("double", "float"), seed = NULL) {
  draw("uniform", n, streams, seed, type)
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
rnormGpu <- function(n, streams = NULL, type = c("double", "float"), seed = NULL) {
  draw("normal", n, streams, seed, type)
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
rexpGpu <- function(n, rate = 1, streams = NULL, type = c("double", "float"), seed = NULL) {
  draw("exponential", n, streams, seed, type, list(rate = as.double(rate)))
}
