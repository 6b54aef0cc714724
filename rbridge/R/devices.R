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

# gpuR's device functions, which clrng's and gpuRandom's users call (clrng depends on gpuR):
# their contexts are oclstat's devices, one each, numbered from 1.

#' Number of GPUs, as gpuR's detectGPUs
#'
#' The usable OpenCL GPUs oclstat sees, the Oclgrind simulator not counted (clrng's examples run their GPU code when this is at least 1).
#' @param platform_idx accepted for gpuR's calls: every platform is counted.
#' @return An integer.
#' @examples
#' if (oclstat_available()) detectGPUs()
#' @export
detectGPUs <- function(platform_idx = NULL) {
  d <- listDevices()
  sum(d$type == "GPU" & d$usable & d$platform != "Oclgrind")     # not the simulator
}

#' The devices as contexts, as gpuR's listContexts
#'
#' One context per usable device, numbered from 1 (the number \code{setContext} takes).
#' @return A data.frame: context, platform, platform_index, device, device_index, device_type ("gpu" or "cpu").
#' @examples
#' if (oclstat_available()) listContexts()
#' @export
listContexts <- function() {
  d <- listDevices()
  d <- d[d$usable, ]
  platforms <- unique(d$platform)
  data.frame(context = seq_len(nrow(d)), platform = d$platform,
             platform_index = match(d$platform, platforms) - 1L, device = d$name,
             device_index = d$index, device_type = tolower(d$type), stringsAsFactors = FALSE)
}

#' Choose the context (device) of later calls, as gpuR's setContext
#'
#' Later calls run on the device of context \code{id} (see \code{listContexts}); \code{setDevice} does the same by oclstat's device index.
#' @param id a context number from \code{listContexts()}.
#' @return The context number, invisibly.
#' @examples
#' if (oclstat_available()) {
#'   setContext(1L)
#'   currentDevice()
#' }
#' @export
setContext <- function(id = 1L) {
  ctx <- listContexts()
  if (!is.numeric(id) || length(id) != 1 || !(id %in% ctx$context))
    stop("id must be a context number from listContexts() (1 to ", nrow(ctx), ")",
         call. = FALSE)
  suppressMessages(setDevice(ctx$device_index[id]))
  invisible(as.integer(id))
}

#' The device later calls use, as gpuR's currentDevice
#'
#' The device chosen by \code{setContext} or \code{setDevice}, else oclstat's default.
#' @return A list: device (its name), device_index (oclstat's index), device_type ("gpu" or "cpu").
#' @examples
#' if (oclstat_available()) currentDevice()
#' @export
currentDevice <- function() {
  d <- listDevices()
  index <- if (is.null(.state$device)) call_adapter("setDevice", list(device = NULL),
                                                    device = FALSE) else .state$device
  row <- d[d$index == index, ]
  list(device = row$name, device_index = row$index, device_type = tolower(row$type))
}

#' The OpenCL platforms and devices, as clrng's get_system_info
#'
#' Prints each device with its platform, type and implementation.
#' @return The \code{listDevices()} table, invisibly.
#' @examples
#' if (oclstat_available()) get_system_info()
#' @export
get_system_info <- function() {
  d <- listDevices()
  for (i in seq_len(nrow(d)))
    cat(sprintf("Platform: %s\n  Device %d: %s (%s, %s)%s\n", d$platform[i], d$index[i],
                d$name[i], d$type[i], d$implementation[i],
                if (d$usable[i]) "" else paste0(" UNUSABLE: ", d$problem[i])))
  invisible(d)
}
