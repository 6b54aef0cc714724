# Finding the Python that has oclstat, importing it lazily, moving arrays across.

.state <- new.env(parent = emptyenv())

#' The imported Python module oclstat (imported on first use).
#' @noRd
oclstat_module <- function() {
  if (!is.null(.state$mod)) return(.state$mod)
  if (!requireNamespace("reticulate", quietly = TRUE))
    stop("oclstat needs the R package 'reticulate' (Debian: apt-get install r-cran-reticulate)",
         call. = FALSE)
  py <- getOption("oclstat.python", "")
  if (nzchar(py) && !nzchar(Sys.getenv("RETICULATE_PYTHON")))
    reticulate::use_python(py, required = TRUE)
  found <- tryCatch(reticulate::py_module_available("oclstat"), error = function(e) FALSE)
  if (!isTRUE(found)) {
    where <- tryCatch(reticulate::py_config()$python, error = function(e) "no Python found")
    stop("the Python package 'oclstat' cannot be imported (Python: ", where, ").\n",
         "  Set RETICULATE_PYTHON to the Python that has it (for a checkout: <repo>/.venv/bin/python),\n",
         "  or run oclstat::install_oclstat() to make a virtualenv with it.", call. = FALSE)
  }
  .state$mod <- reticulate::import("oclstat")
  .state$bridge <- reticulate::import("oclstat._rbridge")
  # the same module without reticulate's conversions: arrays and pandas objects made from R
  # values stay Python objects on their way to an adapter (converted, a pandas DataFrame
  # would come back to Python through an R data.frame, its names lost with pandas < 3)
  .state$raw <- reticulate::import("oclstat._rbridge", convert = FALSE)
  .state$mod
}

bridge <- function() {
  oclstat_module()
  .state$bridge
}

bridge_raw <- function() {
  oclstat_module()
  .state$raw
}

#' Is the Python package oclstat importable?
#'
#' TRUE when reticulate finds a Python that can import oclstat (see \code{install_oclstat}).
#' @return TRUE or FALSE.
#' @export
oclstat_available <- function() {
  isTRUE(tryCatch({ oclstat_module(); TRUE }, error = function(e) FALSE))
}

#' Make a Python virtualenv with oclstat and use it
#'
#' Creates (if needed) the reticulate virtualenv \code{envname}, installs oclstat with pocl into it (from PyPI, or from a checkout at \code{path}) and activates it. Needs network access.
#' @param envname name of the virtualenv.
#' @param path a checkout of oclstat to install from (default: the package from PyPI).
#' @param python the Python to create the virtualenv with (default: reticulate's choice).
#' @return The virtualenv name, invisibly.
#' @export
install_oclstat <- function(envname = "oclstat", path = NULL, python = NULL) {
  pkg <- if (is.null(path)) "oclstat[pocl]" else paste0(normalizePath(path), "[pocl]")
  if (!reticulate::virtualenv_exists(envname))
    reticulate::virtualenv_create(envname, python = python)
  reticulate::virtualenv_install(envname, packages = pkg, ignore_installed = FALSE)
  reticulate::use_virtualenv(envname, required = TRUE)
  invisible(envname)
}

# The address of an R vector's data (C helper, rbridge/src/memory.c).
#' @useDynLib oclstat, .registration = TRUE
#' @noRd
data_address <- function(x) .Call(oclstat_address, x)

# R array -> numpy array, in memory (one copy, column-major kept), with its names: a matrix
# with dimnames becomes a pandas DataFrame, a named vector a pandas Series (oclstat aligns
# them by label).
to_py_array <- function(x, what = "x", integer = FALSE, na = FALSE) {
  if (is.data.frame(x)) {
    bad <- names(x)[!vapply(x, is.numeric, logical(1))]
    if (length(bad)) stop(what, " must be numeric; column(s) ", paste(bad, collapse = ", "),
                          " are not", call. = FALSE)
    rn <- if (.row_names_info(x) > 0) rownames(x) else NULL
    x <- as.matrix(x)
    rownames(x) <- rn
  }
  if (!is.numeric(x) && !is.logical(x)) stop(what, " must be numeric, got ", class(x)[1],
                                             call. = FALSE)
  if (!na && anyNA(x)) stop(what, " must not contain NA", call. = FALSE)
  if (na && !integer && anyNA(x)) storage.mode(x) <- "double"      # NA: numpy's NaN
  shape <- if (is.null(dim(x))) length(x) else dim(x)
  dn <- dimnames(x)
  kind <- if (integer) "integer" else "double"
  v <- x                                  # the data, read in place (no copy on R's side)
  if (typeof(v) != kind) storage.mode(v) <- kind
  bridge_raw()$from_r(data_address(v), as.list(as.integer(shape)), kind,
                  rownames = if (length(shape) == 2 && !is.null(dn[[1]])) as.list(dn[[1]]),
                  colnames = if (length(shape) == 2 && !is.null(dn[[2]])) as.list(dn[[2]]),
                  names = if (length(shape) == 1 && !is.null(names(x))) as.list(names(x)))
}

# Labels (a character vector or factor, one per sample) for Python, with their names: a named
# vector becomes a pandas Series that oclstat aligns to the samples by name.
to_py_labels <- function(x) {
  bridge_raw()$labelled(as.list(as.character(x)),
                    if (!is.null(names(x))) as.list(names(x)) else NULL)
}

# numpy array -> R vector/matrix/array.
from_py_array <- function(arr) decode(bridge()$encode(arr))

# An array result: R allocates it, Python fills it (one copy, column-major).
fetch_array <- function(a) {
  shape <- unlist(a[["shape"]])
  n <- if (length(shape)) prod(shape) else 1
  x <- switch(a[["kind"]], double = numeric(n), integer = integer(n), logical = logical(n))
  bridge()$fill(a[["__array__"]], data_address(x))
  if (length(shape) > 1) dim(x) <- shape
  x
}

# A value encoded by oclstat._rbridge.encode (an adapter's result) as the R object it stands for.
decode <- function(v) {
  if (!is.list(v)) return(v)
  if (!is.null(v[["__array__"]])) return(fetch_array(v))
  if (!is.null(v[["__character__"]])) return(as.character(unlist(v[["__character__"]])))
  if (!is.null(v[["__list__"]])) {
    out <- lapply(v[["items"]], decode)
    names(out) <- as.character(unlist(v[["__list__"]]))
    return(out)
  }
  if (!is.null(v[["__r__"]])) {
    value <- decode(v[["value"]])
    cls <- v[["__r__"]]
    if (identical(cls, "data.frame")) value <- columns_to_frame(value)
    attrs <- decode(v[["attributes"]])
    for (a in names(attrs)) attr(value, a) <- attrs[[a]]
    if (nzchar(cls) && !identical(cls, "data.frame")) class(value) <- cls
    return(value)
  }
  lapply(v, decode)
}

# A named list of columns as a data.frame; list columns (gene lists) stay lists.
columns_to_frame <- function(cols) {
  listed <- vapply(cols, is.list, logical(1))
  out <- as.data.frame(cols[!listed], stringsAsFactors = FALSE, optional = TRUE)
  for (nm in names(cols)[listed]) out[[nm]] <- cols[[nm]]
  out[names(cols)]
}

# Runs the Python adapter of R function `name` (oclstat._radapters) with R's argument names
# and the current device, and returns its result as an R object.
# Python's warnings become R warnings, in R's words.
call_adapter <- function(name, args, device = TRUE) {
  if (device) args <- c(args, list(device = device_arg()))
  out <- py_call(bridge()$call(name, args))
  value <- tryCatch(decode(out$value), error = function(e) {
    bridge()$discard()
    stop(e)
  })
  for (w in unlist(out$warnings)) warning(w, call. = FALSE)
  value
}

device_arg <- function() .state$device

# One whole number for Python: an R integer below 2^31, a double above (never an NA integer),
# with an error naming the argument as the caller wrote it.
py_int <- function(x, name, minimum = NULL) {
  if (!is.numeric(x) || length(x) != 1 || is.na(x) || !is.finite(x) || x != round(x))
    stop(name, " must be one whole number, got ", paste(deparse(x), collapse = ""),
         call. = FALSE)
  if (!is.null(minimum) && x < minimum)
    stop(name, " must be >= ", minimum, ", got ", format(x, scientific = FALSE), call. = FALSE)
  if (abs(x) < 2^31) as.integer(x) else as.double(x)
}

# Evaluates a call into Python; an error comes back as one line with Python's argument names
# replaced by the R ones (names: c(python_name = "rName")).
py_call <- function(expr, names = character()) {
  tryCatch(expr, error = function(e) {
    msg <- sub("^Error in py_call_impl[^:]*: *", "", conditionMessage(e))
    pattern <- "^([A-Za-z_.]*(Error|Exception)): "
    if (!grepl(pattern, msg)) stop(e)            # not a Python exception: as it was
    msg <- sub("\n.*$", "", sub(pattern, "", msg))
    for (p in names(names)) msg <- gsub(p, names[[p]], msg, fixed = TRUE)
    stop(msg, call. = FALSE)
  })
}
