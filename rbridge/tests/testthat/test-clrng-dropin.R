# clrng's layout of draws over work items, fisher.sim's fields and option defaults, and gpuR's
# device functions (rbridge/R/random.R, fisher.R, devices.R).

test_that("runifGpu with Nglobal gives the clrng paper's printed values", {
  skip_without_python()
  setBaseCreator(rep(12345, 6))
  s <- createStreamsCpu(4)
  u <- runifGpu(8, s, Nglobal = c(2, 2))
  # Xu and Brown's clrng paper, runifGpu(8, streams, Nglobal = c(2, 2)) from the default seed
  expect_equal(round(as.vector(u), 3), c(0.735, 0.842, 0.614, 0.216, 0.110, 0.870, 0.649, 0.170))
})

test_that("clrng's layout: element (i, j) from stream ((i-1) mod G1) * G2 + (j-1) mod G2 + 1", {
  skip_without_python()
  s <- createStreams(6, seed = 3)
  g <- c(3, 2)
  x <- runifGpu(c(7, 5), s, Nglobal = g)
  per <- ceiling(c(7, 5) / g)                    # row and column blocks of a work item
  each <- runifGpu(prod(g) * prod(per), s)       # draw k of stream j: element k * 6 + j
  for (i in 1:7) for (j in 1:5) {
    stream <- ((i - 1) %% g[1]) * g[2] + (j - 1) %% g[2]
    k <- ((i - 1) %/% g[1]) * per[2] + (j - 1) %/% g[2]
    expect_identical(x[i, j], each[k * prod(g) + stream + 1])
  }
  # every stream advanced by its work item's draws, as clrng's kernel leaves it
  expect_identical(attr(x, "streams"), attr(each, "streams"))
  e <- rexpGpu(c(7, 5), streams = s, Nglobal = g)
  expect_equal(e, -log(x), tolerance = 1e-12)
})

test_that("fisher.sim has clrng's threshold and simNum; clrng.Nglobal is clrng's", {
  skip_without_python()
  expect_identical(getOption("clrng.Nglobal"), c(16L, 8L))
  x <- matrix(c(1, 2, 1, 0, 3, 3, 6, 1, 10, 10, 14, 9, 6, 7, 12, 11), 4, 4)
  r <- fisher.sim(x, 1000, seed = 1)
  expect_equal(r$simNum, 1024)                   # whole rounds of 16 x 8 work items
  expect_equal(r$threshold, -sum(lfactorial(x)) / (1 + 64 * .Machine$double.eps))
  r2 <- fisher.sim(x, 1000, Nglobal = c(4, 2), seed = 1)
  expect_equal(r2$simNum, 1000)
})

test_that("gpuR's device functions map to oclstat's devices", {
  skip_without_python()
  ctx <- listContexts()
  d <- listDevices()
  expect_identical(ctx$device_index, d$index[d$usable])
  setDevice(NULL)                             # no device chosen: the default's
  expect_identical(currentDevice()$device_index, py()$get_runtime()$info$index)
  expect_identical(gpuInfo()$deviceName, py()$get_runtime()$info$name)
  expect_identical(detectGPUs(), sum(d$type == "GPU" & d$usable & d$platform != "Oclgrind"))
  setContext(nrow(ctx))
  expect_identical(currentDevice()$device_index, ctx$device_index[nrow(ctx)])
  # gpuR's gpuInfo, deviceHasDouble and currentPlatform: the device pyopencl describes
  info <- gpuInfo()
  k <- which(d$index == ctx$device_index[nrow(ctx)])
  dev <- py()$devices()[[k]]
  bytes <- function(a)                     # as a float in Python: R's integers stop at 2^31
    reticulate::py_eval(sprintf("float(__import__('oclstat').devices()[%d].%s)", k - 1, a))
  expect_identical(info$deviceName, dev$name)
  expect_equal(info$maxAllocatableMem, bytes("max_alloc"))
  expect_equal(info$localMem, bytes("local_mem"))
  expect_equal(info$deviceMemory, bytes("global_mem"))
  expect_equal(info$maxWorkGroupSize, bytes("max_work_group_size"))
  expect_identical(info$double_support, dev$fp64)
  expect_identical(deviceHasDouble(), dev$fp64)
  expect_identical(currentPlatform()$platform, dev$platform)
  expect_identical(gpuInfo(context_idx = 1)$deviceName, ctx$device[1])
  expect_error(gpuInfo(device_idx = 2), "one device")
  expect_error(gpuInfo(context_idx = nrow(ctx) + 1), "context_idx must be")
  setDevice(NULL)
  expect_error(setContext(nrow(ctx) + 1), "context number")
  expect_output(get_system_info(), "Platform")
})

test_that("runif, rnorm, rexp, qqnorm: stats' own when called as stats', gpuRandom's with streams", {
  set.seed(1); a <- runif(3, 2, max = 5); set.seed(1)
  expect_identical(a, stats::runif(3, 2, 5))
  set.seed(1); a <- rnorm(4, sd = 3); set.seed(1)
  expect_identical(a, stats::rnorm(4, sd = 3))
  set.seed(1); a <- rnorm(4, 10, 2); set.seed(1)
  expect_identical(a, stats::rnorm(4, 10, 2))
  set.seed(1); a <- rexp(3, 2); set.seed(1)
  expect_identical(a, stats::rexp(3, 2))
  y <- c(2.1, -0.3, 0.8, 1.7, 0.2)
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_identical(qqnorm(y), stats::qqnorm(y))
  skip_without_python()
  s <- createStreams(4, seed = 9)
  expect_identical(as.vector(runif(8, s, Nglobal = c(2, 2))),
                   as.vector(runifGpu(8, s, Nglobal = c(2, 2))))
  expect_identical(as.vector(rexp(6, 2, streams = s, Nglobal = c(2, 2))),
                   as.vector(rexpGpu(6, 2, streams = s, Nglobal = c(2, 2))))
  set.seed(3); u1 <- runif(5, Nglobal = c(4, 2)); set.seed(3)
  expect_identical(u1, runif(5, Nglobal = c(4, 2)))   # fresh streams from R's RNG
  expect_null(attr(u1, "streams"))
  q <- qqnorm(y, mu = 1, sigma = 2)
  expect_equal(q$x, 1 + 2 * stats::qqnorm(y, plot.it = FALSE)$x, tolerance = 1e-12)
  expect_error(rexp(3, -1, streams = s, Nglobal = c(2, 2)), "invalid rate")
})

test_that("createStreamsCpu(n, initial) as gpuRandom; qqnormGpu(type =), logfactSum(x, Nglobal)", {
  skip_without_python()
  setBaseCreator(rep(12345, 6))
  a <- createStreamsCpu(2, initial = c(1, 2, 3, 4, 5, 6))
  b <- createStreamsCpu(2)                       # the creator did not move
  setBaseCreator(rep(12345, 6))
  expect_identical(b, createStreamsCpu(2))
  expect_identical(unname(a[1, 7:12]), c(1L, 2L, 3L, 4L, 5L, 6L))
  expect_identical(unname(as.matrix(createStreamsGpu(2, initial = 1:6))), unname(a))
  y <- c(2.1, -0.3, 0.8, 1.7)
  f <- qqnormGpu(y, type = "float", plot.it = FALSE)$x
  d <- qqnormGpu(y, type = "double", plot.it = FALSE)$x
  expect_equal(f, d, tolerance = 1e-7)
  expect_false(identical(f, d))
  x <- matrix(c(3, 1, 4, 1, 5, 9), 2)
  expect_equal(logfactSum(x, Nglobal = c(4, 2)), sum(lfactorial(x)), tolerance = 1e-12)
})

test_that("maternGpuParam completes the sets as geostatsp's fillParam and pads them to 22 columns", {
  # geostatsp's fillParam (pkg/geostatsp/R/param.R), its rules written out for these inputs
  p <- maternGpuParam(c(range = 0.3, shape = 1.5, nugget = 0.1))
  expect_equal(dim(p), c(1L, 22L))
  expect_equal(colnames(p)[1:7], c("range", "shape", "variance", "nugget", "anisoRatio",
                                   "anisoAngleRadians", "anisoAngleDegrees"))
  expect_equal(unname(p[1, 1:7]), c(0.3, 1.5, 1, 0.1, 1, 0, 0))
  expect_true(all(p[, 8:22] == 0) && all(colnames(p)[8:22] == ""))
  q <- maternGpuParam(data.frame(range = c(1, NA), shape = 2, sdSpatial = c(2, 3),
                                 nuggetSD = 0.5, anisoAngleDegrees = c(90, 45)))
  expect_equal(colnames(q)[1:6], c("range", "shape", "variance", "nugget", "anisoRatio",
                                   "anisoAngleRadians"))
  expect_equal(unname(q[, "range"]), c(1, 1))                 # a missing range becomes 1
  expect_equal(unname(q[, "variance"]), c(4, 9))              # sd... squared
  expect_equal(unname(q[, "nugget"]), c(0.25, 0.25))          # nuggetSD squared
  expect_equal(unname(q[, "anisoAngleRadians"]), c(pi / 2, pi / 4))
  expect_true(all(c("sdSpatial", "nuggetSD", "anisoAngleDegrees") %in% colnames(q)))
  r <- maternGpuParam(list(range = 1, shape = 1, var = 2, anisoAngleRadians = pi))
  expect_equal(unname(r[1, c("variance", "anisoAngleDegrees")]), c(2, 180))
  expect_warning(maternGpuParam(c(range = 1)), "shape parameter not supplied")
  expect_error(maternGpuParam(c(1, 2)), "named columns")
  skip_without_python()
  xy <- cbind(c(0, 1, 0.5), c(0, 0, 1))
  expect_equal(maternBatch(xy, p), maternBatch(xy, p[, 1:6]))
})

test_that("gpuRandom's in-place forms (maternBatch, cholBatch, the batched algebra) are refused with oclstat's form", {
  xy <- cbind(c(0, 1, 0.5), c(0, 0, 1))
  p <- rbind(c(0.3, 1.5, 1, 0, 1, 0))
  V <- matrix(0, 3, 3)
  expect_error(maternBatch(V, xy, p, c(64, 8), c(8, 8)), "V <- maternBatch\\(coords, params\\)")
  expect_error(maternBatch(var = V, coords = xy, param = p), "fills gpuR vclMatrix")
  expect_error(cholBatch(V, matrix(0, 1, 3), 1, c(64, 8), c(8, 8), 2), "r <- cholBatch\\(A\\)")
  L <- diag(3)
  B <- matrix(1, 3, 2)
  expect_error(backsolveBatch(B, L, B, 1, TRUE, c(64, 8), c(8, 8), 100),
               "C <- backsolveBatch\\(A, B, unitDiagonal = diagIsOne\\)")
  expect_error(backsolveBatch(C = B, A = L, B = B, numbatchB = 1, diagIsOne = TRUE),
               "fills gpuR vclMatrix")
  expect_error(crossprodBatch(V, B, matrix(1, 1, 3), invertD = FALSE, Nglobal = c(64, 8)),
               "C <- crossprodBatch\\(A, D = D\\)")
  expect_error(multiplyLowerDiagonalBatch(B, L, matrix(1, 1, 3), B, TRUE, "sqrt", c(64, 8)),
               "output <- multiplyLowerDiagonalBatch\\(L, D, B")
  expect_error(gemmBatch(L, B, 1, 1, 1, 1, FALSE),
               "gemmBatch\\(A, B, transA = need_transpose\\)")
  expect_error(gemmBatch(L, B, need_transpose = TRUE), "row- and column-stacked")
  expect_error(multiplyLowerBatchBackend(B, L, B, TRUE, c(64, 8, 1), c(8, 8, 1), 100),
               "C <- gemmBatch\\(A, B\\) with A lower triangular")
  expect_error(gemmBatch2backend(B, L, B, c(FALSE, FALSE), 1, 1, 1, 1, 64, 100, FALSE),
               "C <- gemmBatch\\(A, B, transA = transposeABC\\[1\\]")
  skip_without_python()
  expect_equal(dim(maternBatch(xy, p)), c(3L, 3L))
  expect_equal(backsolveBatch(L, B), B)
  expect_equal(crossprodBatch(B), crossprod(B))
  expect_equal(gemmBatch(L, B), B)
  expect_equal(gemmBatch(matrix(2), matrix(3), matrix(1), beta = 1), matrix(7))  # 1 x 1 C
})

test_that("clrng's data sets month and week: its names, the Python package's counts", {
  skip_without_python()
  e <- new.env()
  data(month, week, package = "oclstat", envir = e)
  expect_s3_class(e$month, "data.frame")
  expect_identical(dim(e$month), c(12L, 12L))
  expect_identical(rownames(e$month), c(month.abb[1:8], "Sept", month.abb[10:12]))
  expect_identical(names(e$month), c("Ane", "Men", "Cya", "Her", "Omp", "Gas", "Lim", "Cle",
                                     "Pal", "Dow", "Chr", "Hyp"))
  # clrng's month.Rd example prints this first row (head(month))
  expect_identical(unlist(e$month["Jan", ], use.names = FALSE),
                   c(29L, 55L, 172L, 46L, 39L, 73L, 48L, 183L, 77L, 103L, 102L, 174L))
  expect_true(is.integer(e$week) && is.matrix(e$week))
  expect_identical(rownames(e$week), c("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
  tables <- file.path(reticulate::py_str(py()$datasets$DATA_DIR), "fisher")
  for (k in list(c("month", "month"), c("week", "weekday"))) {
    ref <- utils::read.csv(file.path(tables, paste0(k[2], ".csv")), row.names = 1)
    expect_equal(unname(as.matrix(e[[k[1]]])), unname(as.matrix(ref)))
  }
})
