# MRG31k3p streams (clRNG's generator) as gpuRandom keeps them: an n x 12 integer matrix.

py_seed <- function(seed) {
  if (is.null(seed)) return(r_seed())          # R's RNG decides: set.seed() repeats a run
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
  if (inherits(streams, "oclstatStreams")) streams <- streams$matrix
  if (!is.matrix(streams) || ncol(streams) != 12 || anyNA(streams))
    stop("streams must be an n x 12 integer matrix from createStreams()", call. = FALSE)
  streams
}

check_type <- function(type) {
  if (is.null(type)) stop("type is missing (getOption(\"clrng.type\") is unset)", call. = FALSE)
  match.arg(type, c("double", "float"))
}

draw <- function(name, n, streams, Nglobal, type, verbose, seed, extra = list()) {
  if (!is.numeric(n) || !(length(n) %in% c(1, 2)) || anyNA(n) || any(n < 0))
    stop("n must be a count or c(nrow, ncol)", call. = FALSE)
  size <- if (length(n) == 1) py_int(n, "n") else list(py_int(n[1], "n[1]"), py_int(n[2], "n[2]"))
  Nglobal <- check_nglobal(Nglobal)
  input <- stream_input(streams, Nglobal)
  report_sizes(verbose, Nglobal, input)
  st <- if (is.null(input)) NULL else to_py_array(input$matrix, "streams", integer = TRUE)
  laid <- !is.null(Nglobal) && !is.null(input)
  if (laid) {     # clrng's layout: draw what each work item draws, then place it
    layout <- clrng_layout(n, Nglobal)
    size <- py_int(layout$draws, "n")
  }
  normal <- laid && name == "rnormGpu"      # clrng's Box-Muller pairs work items: uniforms
  x <- call_adapter(if (normal) "runifGpu" else name,
                    c(list(n = size, streams = st, type = check_type(type),
                           seed = py_seed(seed)), extra))     # st: the used rows already
  if (laid) x <- structure(if (normal) clrng_normals(x, layout) else x[layout$take],
                           dim = if (length(n) == 2) n, streams = attr(x, "streams"))
  if (!is.null(input)) {
    full <- stream_output(input, attr(x, "streams"))
    attr(x, "streams") <- if (is.null(input$ref)) full else NULL
  }
  if (!is.null(Nglobal)) attr(x, "Nglobal") <- Nglobal
  x
}

# clrng's kernel: work item (i, j) of Nglobal = c(G1, G2) uses stream i * G2 + j (0-based) and
# fills rows i, i + G1, ... and, in each, columns j, j + G2, ..., drawing for every block even
# where it lies past the result. So each stream draws ceiling(nrow / G1) * ceiling(ncol / G2)
# numbers; `take` picks, from draws laid out as oclstat makes them (number k from stream
# k mod streams, its (k div streams)-th draw), the one of each element (column-major).
clrng_layout <- function(n, Nglobal) {
  g <- if (length(Nglobal) == 2) Nglobal else c(Nglobal, 1L)
  dims <- if (length(n) == 2) n else c(n, 1)
  blocks <- ceiling(dims / g)
  r <- rep(seq_len(dims[1]) - 1, dims[2])
  c <- rep(seq_len(dims[2]) - 1, each = dims[1])
  stream <- (r %% g[1]) * g[2] + c %% g[2]
  draw <- (r %/% g[1]) * blocks[2] + c %/% g[2]
  # the work item beside each in dimension 2 (j xor 1: clrng's Box-Muller pair), same draw
  odd <- (c %% g[2]) %% 2 == 1
  partner <- stream + ifelse(odd, -1, 1)
  list(draws = prod(g) * prod(blocks), take = draw * prod(g) + stream + 1,
       partner = draw * prod(g) + partner + 1, odd = odd, g = g)
}

# clrng's normals from the uniforms of its layout: the even work item of a pair gives
# sqrt(-2 log u0) cos(2 pi u1), the odd one sqrt(-2 log u0) cos(2 pi u1 - pi / 2), u0 the even
# one's uniform and u1 the odd one's (same draw).
clrng_normals <- function(u, layout) {
  if (layout$g[2] %% 2 != 0)
    stop("number of work items in dimension 2 must be a multiple of 2 (clrng's rnormGpu ",
         "pairs them)", call. = FALSE)
  own <- u[layout$take]
  other <- u[layout$partner]
  u0 <- ifelse(layout$odd, other, own)
  u1 <- ifelse(layout$odd, own, other)
  sqrt(-2 * log(u0)) * cos(2 * pi * u1 + ifelse(layout$odd, -pi / 2, 0))
}

#' Uniform random numbers from MRG31k3p streams
#'
#' clrng's \code{runifGpu}: without \code{Nglobal}, values equal Python's \code{oclstat.random.uniform} at the same indices; with \code{Nglobal} (work items c(G1, G2)), clrng's layout: element (i, j) comes from stream ((i - 1) mod G1) * G2 + ((j - 1) mod G2) + 1, rows stepped by G1 and columns by G2 within a stream, so clrng's and its paper's printed values come out as published. Streams from \code{createStreamsGpu} advance in place (as clrng's); from a plain matrix, the advanced streams come back as \code{attr(x, "streams")}.
#' @param n a count, or c(nrow, ncol) for a matrix.
#' @param streams streams from \code{createStreamsGpu} or \code{createStreamsCpu} (or NULL with \code{seed}).
#' @param Nglobal work items (clrng's): the draw uses the first \code{prod(Nglobal)} streams (at least that many needed); NULL uses every stream given. Recorded as \code{attr(x, "Nglobal")}.
#' @param type "double" or "float" (default \code{getOption("clrng.type")}, "double").
#' @param verbose TRUE or 1 prints the work sizes and the streams, 2 also the device.
#' @param seed used when \code{streams} is NULL: fresh streams from this seed.
#' @return A numeric vector or matrix.
#' @examples
#' if (oclstat_available()) {
#'   s <- createStreamsGpu(8)
#'   u <- runifGpu(c(3, 4), s, verbose = TRUE)
#'   runifGpu(5, seed = 1)
#' }
#' @export
runifGpu <- function(n, streams = NULL, Nglobal = NULL, type = getOption("clrng.type", "double"),
                     verbose = FALSE, seed = NULL) {
  draw("runifGpu", n, streams, Nglobal, type, verbose, seed)
}

#' Standard normal random numbers from MRG31k3p streams
#'
#' clrng's \code{rnormGpu}: Box-Muller on pairs of the streams' uniforms; see \code{runifGpu}.
#' @param n a count, or c(nrow, ncol).
#' @param streams streams from \code{createStreamsGpu} or \code{createStreamsCpu} (or NULL with \code{seed}).
#' @param Nglobal work items: the first \code{prod(Nglobal)} streams are used, in clrng's layout (see \code{runifGpu}) and its Box-Muller pairs: work items 2j and 2j + 1 of dimension 2 share their two uniforms (cosine and sine); \code{Nglobal[2]} must be even.
#' @param type "double" or "float".
#' @param verbose TRUE, 1 or 2: print the work sizes (2: also the device).
#' @param seed used when \code{streams} is NULL.
#' @return A numeric vector or matrix.
#' @examples
#' if (oclstat_available()) {
#'   rnormGpu(5, seed = 1)
#'   s <- createStreamsGpu(n = 512 * 128)
#'   a <- rnormGpu(c(1024, 512), streams = s, Nglobal = c(512, 128))
#' }
#' @export
rnormGpu <- function(n, streams = NULL, Nglobal = NULL, type = getOption("clrng.type", "double"),
                     verbose = FALSE, seed = NULL) {
  draw("rnormGpu", n, streams, Nglobal, type, verbose, seed)
}

#' Exponential random numbers from MRG31k3p streams
#'
#' clrng's \code{rexpGpu}: -log(U) / rate; see \code{runifGpu}.
#' @param n a count, or c(nrow, ncol).
#' @param rate the rate.
#' @param streams streams from \code{createStreamsGpu} or \code{createStreamsCpu} (or NULL with \code{seed}).
#' @param Nglobal work items: the first \code{prod(Nglobal)} streams are used, in clrng's layout (see \code{runifGpu}).
#' @param type "double" or "float".
#' @param verbose TRUE, 1 or 2: print the work sizes (2: also the device).
#' @param seed used when \code{streams} is NULL.
#' @return A numeric vector or matrix.
#' @examples
#' if (oclstat_available()) {
#'   rexpGpu(5, rate = 2, seed = 1)
#' }
#' @export
rexpGpu <- function(n, rate = 1, streams = NULL, Nglobal = NULL,
                    type = getOption("clrng.type", "double"), verbose = FALSE, seed = NULL) {
  draw("rexpGpu", n, streams, Nglobal, type, verbose, seed, list(rate = as.double(rate)))
}
