#' OpenCL devices oclstat can use
#'
#' One row per OpenCL device (GPUs, and CPUs through pocl or Intel's runtime). Each implementation is proven by a tiny test build before it is chosen; one that fails (PyPI's pocl 3.0 on an AMD Zen 5, say) has usable FALSE and the reason and the fix in problem, and is never the default.
#' @return A data.frame: index, type, platform, name, computeUnits, globalMemGiB, fp64, implementation (name and driver version), usable, problem.
#' @examples
#' if (oclstat_available()) {
#'   listDevices()
#' }
#' @export
listDevices <- function() {
  call_adapter("listDevices", list())
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
#' @export
setDevice <- function(device = NULL) {
  if (!is.null(device)) {
    if (is.numeric(device)) device <- py_int(device, "device")
    info <- call_adapter("setDevice", list(device = device), device = FALSE)
    .state$device <- info$index
    message("oclstat: using ", info$label)
  } else {
    .state$device <- NULL
  }
  invisible(.state$device)
}
