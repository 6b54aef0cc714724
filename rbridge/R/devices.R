#' OpenCL devices oclstat can use
#'
#' One row per OpenCL device (GPUs, and CPUs through pocl).
#' @return A data.frame: index, type, platform, name, computeUnits, globalMemGiB, fp64.
#' @examples
#' if (oclstat_available()) {
#'   listDevices()
#' }
listDevices <- function() {
  devs <- oclstat_module()$devices()
  data.frame(
    index = vapply(devs, function(d) as.integer(d$index), integer(1)),
    type = vapply(devs, function(d) d$type, character(1)),
    platform = vapply(devs, function(d) d$platform, character(1)),
    name = vapply(devs, function(d) d$name, character(1)),
    computeUnits = vapply(devs, function(d) as.integer(d$compute_units), integer(1)),
    globalMemGiB = vapply(devs, function(d) d$global_mem / 2^30, numeric(1)),
    fp64 = vapply(devs, function(d) isTRUE(d$fp64), logical(1)),
    stringsAsFactors = FALSE
  )
}

#' Choose the device for later calls
#'
#' Later calls run on this device; NULL restores the default (the environment variable OCLSTAT_DEVICE, or the best device).
#' @param device an index from \code{listDevices()}, a name substring, or NULL.
#' @return The device index, invisibly.
#' @examples
#' if (oclstat_available()) {
#'   setDevice(listDevices()$index[1])
#'   setDevice(NULL)
#' }
setDevice <- function(device = NULL) {
  if (!is.null(device)) {
    if (is.numeric(device)) device <- as.integer(device)
    info <- oclstat_module()$get_runtime(device)$info
    .state$device <- info$index
    message("oclstat: using [", info$index, "] ", info$platform, " | ", info$name)
  } else {
    .state$device <- NULL
  }
  invisible(.state$device)
}
