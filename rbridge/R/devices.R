#' OpenCL devices oclstat can use
#'
#' One row per OpenCL device (GPUs, and CPUs through pocl or Intel's runtime). Each implementation is proven by a tiny test build before it is chosen; one that fails (PyPI's pocl 3.0 on an AMD Zen 5, say) has usable FALSE and the reason and the fix in problem, and is never the default.
#' @return A data.frame: index, type, platform, name, computeUnits, globalMemGiB, maxAllocGiB (the largest single buffer), localMemKiB, maxWorkGroupSize, fp64, implementation (name and driver version), usable, problem.
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
                                                    device = FALSE)$index else .state$device
  row <- d[d$index == index, ]
  list(device = row$name, device_index = row$index, device_type = tolower(row$type))
}

#' The current platform, as gpuR's currentPlatform
#'
#' The platform of the device later calls use (see \code{currentDevice}).
#' @return A list: platform (its name), platform_index (from 0, as in \code{listContexts}).
#' @examples
#' if (oclstat_available()) currentPlatform()
#' @export
currentPlatform <- function() {
  ctx <- listContexts()
  row <- ctx[ctx$device_index == currentDevice()$device_index, ]
  list(platform = row$platform, platform_index = row$platform_index)
}

#' A device's properties, as gpuR's gpuInfo
#'
#' The device of context \code{context_idx} (default: the device later calls use), with gpuR's field names.
#' @param device_idx accepted for gpuR's calls: a context holds one device here (1 or NULL).
#' @param context_idx a context number from \code{listContexts()}; NULL for the current device.
#' @return A list: deviceName, deviceVendor (the platform), numberOfCores (compute units), maxWorkGroupSize, deviceMemory, localMem and maxAllocatableMem (bytes), available, double_support (logical), device_type.
#' @examples
#' if (oclstat_available()) gpuInfo()$double_support
#' @export
gpuInfo <- function(device_idx = NULL, context_idx = NULL) {
  row <- context_device(device_idx, context_idx)
  list(deviceName = row$name, deviceVendor = row$platform, numberOfCores = row$computeUnits,
       maxWorkGroupSize = row$maxWorkGroupSize, deviceMemory = row$globalMemGiB * 2^30,
       localMem = row$localMemKiB * 2^10, maxAllocatableMem = row$maxAllocGiB * 2^30,
       available = if (row$usable) "yes" else "no", double_support = row$fp64,
       device_type = tolower(row$type))
}

#' Whether a device computes in double precision, as gpuR's deviceHasDouble
#'
#' Whether the device of context \code{context_idx} (default: the device later calls use) has fp64 (clrng and gpuRandom choose "double" or "float" by it).
#' @param device_idx,context_idx as in \code{gpuInfo}.
#' @return TRUE or FALSE.
#' @examples
#' if (oclstat_available()) deviceHasDouble()
#' @export
deviceHasDouble <- function(device_idx = NULL, context_idx = NULL) {
  context_device(device_idx, context_idx)$fp64
}

# The listDevices row of a context's device (the current device for NULL).
context_device <- function(device_idx, context_idx) {
  if (!is.null(device_idx) && !identical(as.numeric(device_idx), 1))
    stop("device_idx: each context holds one device here (1 or NULL)", call. = FALSE)
  d <- listDevices()
  if (is.null(context_idx)) return(d[d$index == currentDevice()$device_index, ])
  ctx <- listContexts()
  if (!is.numeric(context_idx) || length(context_idx) != 1 ||
      !(context_idx %in% ctx$context))
    stop("context_idx must be a context number from listContexts() (1 to ", nrow(ctx), ")",
         call. = FALSE)
  d[d$index == ctx$device_index[context_idx], ]
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
