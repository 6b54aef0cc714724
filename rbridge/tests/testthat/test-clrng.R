# The calls of clrng's vignettes (random_numbers.Rmd, fisher.sim.Rmd), without gpuR's
# vclMatrix wrappers: the functions and arguments exist with clrng's meanings and the results
# carry clrng's fields.

test_that("setBaseCreator and createStreams* continue one clRNG sequence", {
  skip_without_python()
  setBaseCreator(rep(12235, 6))
  a <- createStreamsCpu(3)
  b <- createStreamsCpu(2)
  setBaseCreator(rep(12235, 6))
  both <- createStreamsCpu(5)
  expect_identical(rbind(a, b), both)
  expect_identical(unname(both[1, 1:6]), rep(12235L, 6))
  ref <- py_array(py()$random$create_streams(5L, seed = as.list(rep(12235L, 6)))$to_matrix(
    substream = FALSE))
  expect_identical(unname(both), ref)
  old <- options(clrng.Nglobal = c(4, 2))
  on.exit(options(old))
  expect_equal(dim(createStreamsGpu()), c(8L, 12L))           # prod(Nglobal) by default
  expect_error(setBaseCreator(c(0, 0, 0, 1, 2, 3)), "CLRNG_INVALID_SEED")
  expect_error(setBaseCreator(c(1, 2, 3, 2147462579, 1, 1)), "CLRNG_INVALID_SEED")
})

test_that("streams from createStreamsGpu advance in place; Nglobal picks the first streams", {
  skip_without_python()
  setBaseCreator(rep(12345, 6))
  s <- createStreamsGpu(16)
  expect_s3_class(s, "oclstatStreams")
  expect_equal(nrow(s), 16L)
  start <- as.matrix(s)
  u1 <- runifGpu(10, s, verbose = FALSE)
  u2 <- runifGpu(10, s)
  expect_null(attr(u1, "streams"))
  st <- py()$random$Streams$from_matrix(oclstat:::to_py_array(start, integer = TRUE))
  r1 <- py_array(py()$random$uniform(10L, streams = st))
  r2 <- py_array(py()$random$uniform(10L, streams = st))
  expect_identical(as.vector(u1), r1)
  expect_identical(as.vector(u2), r2)                # the second call continued the streams
  expect_identical(unname(as.matrix(s)), py_array(st$to_matrix(substream = FALSE)))

  before <- as.matrix(s)
  x <- rnormGpu(c(4, 4), s, Nglobal = c(2, 2))         # the first 4 streams only
  expect_identical(attr(x, "Nglobal"), c(2L, 2L))
  expect_identical(as.matrix(s)[5:16, ], before[5:16, ])
  expect_false(identical(as.matrix(s)[1:4, ], before[1:4, ]))
  # clrng's kernel: work items (i, 2m) and (i, 2m + 1) share their uniforms u0 (the even
  # one's) and u1: sqrt(-2 log u0) cos(2 pi u1), and the same with the sine for the odd one
  st4 <- py()$random$Streams$from_matrix(oclstat:::to_py_array(before[1:4, ], integer = TRUE))
  u <- py_array(py()$random$uniform(16L, streams = st4))   # draw d of stream k: u[4 d + k + 1]
  for (i in 1:4) for (j in 1:4) {
    even <- ((i - 1) %% 2) * 2                               # the pair's even stream
    d <- ((i - 1) %/% 2) * 2 + (j - 1) %/% 2
    u0 <- u[4 * d + even + 1]
    u1 <- u[4 * d + even + 2]
    want <- sqrt(-2 * log(u0)) * if ((j - 1) %% 2 == 0) cos(2 * pi * u1) else sin(2 * pi * u1)
    expect_equal(x[i, j], want, tolerance = 1e-13)
  }
  expect_error(rnormGpu(4, s, Nglobal = c(2, 3)), "multiple of 2")
  expect_error(runifGpu(10, s, Nglobal = c(8, 4)), "must equal or exceed the number of work items")
  expect_output(runifGpu(3, s, verbose = 2), "global sizes")
  e <- rexpGpu(c(20, 10), rate = 1, streams = s, Nglobal = c(4, 2), type = "float")
  expect_equal(dim(e), c(20L, 10L))
  expect_true(all(e > 0))
})

test_that("fisher.sim takes clrng's arguments and returns its fields", {
  skip_without_python()
  Job <- matrix(c(1, 2, 1, 0, 3, 3, 6, 1, 10, 10, 14, 9, 6, 7, 12, 11), 4, 4)
  setBaseCreator(rep(12345, 6))
  streams <- createStreamsCpu(n = 64 * 8)
  r <- fisher.sim(Job, 1e4, returnStatistics = TRUE, type = "double", streams = streams,
                  Nglobal = c(64, 8))
  expect_s3_class(r, "htest")
  expect_equal(r$simNum, 10240)                  # rounded up to whole rounds of 512 work items
  expect_equal(r$p.value, (1 + r$counts) / (r$simNum + 1))
  expect_equal(length(r$sim), r$simNum)
  expect_equal(sum(r$sim <= -sum(lfactorial(Job)) / (1 + 64 * .Machine$double.eps)),
               r$counts)                              # the counts are the statistics' tail
  expect_equal(dim(r$streams), c(512L, 12L))
  expect_false(identical(r$streams, streams))
  expect_lt(abs(r$p.value - 0.7827), 5 * sqrt(0.78 * 0.22 / 1e4))
  again <- fisher.sim(Job, 1e4, streams = streams, Nglobal = c(64, 8))
  expect_identical(again$counts, r$counts)              # same streams, same tables
  s <- createStreamsGpu(64)
  f1 <- fisher.sim(Job, 640, streams = s)
  f2 <- fisher.sim(Job, 640, streams = s)               # continued in place
  expect_identical(unname(as.matrix(s)), unname(f2$streams))
  expect_false(identical(f1$streams, f2$streams))
  tea <- fisher.sim(matrix(c(3, 1, 1, 3), 2), 100000L, returnStatistics = FALSE, type = "double",
                    Nglobal = c(16, 64))
  expect_equal(tea$simNum, 100352)
  expect_length(tea$seed, 1)           # drawn from R's RNG, kept: the run can be repeated
  expect_identical(fisher.sim(matrix(c(3, 1, 1, 3), 2), 100000L, seed = tea$seed,
                              Nglobal = c(16, 64))$counts, tea$counts)
  expect_lt(abs(tea$p.value - 0.4857), 0.01)
  expect_error(fisher.sim(Job, B = 0), "B must be >= 1")
  expect_error(fisher.sim(Job, N = 10, B = 10), "give N or B")
})

test_that("qqnormGpu draws qqnorm's plot and returns qqnorm's coordinates", {
  skip_without_python()
  set.seed(2)
  y <- c(stats::rt(300, df = 5), NA)
  file <- tempfile(fileext = ".pdf")
  grDevices::pdf(file)
  q <- qqnormGpu(y, ylim = c(-2, 5), mu = 0, sigma = 1, Nglobal = c(16, 4))
  grDevices::dev.off()
  expect_gt(file.size(file), 1000)
  unlink(file)
  ref <- stats::qqnorm(y, plot.it = FALSE)
  expect_equal(q$x, ref$x, tolerance = 1e-13)
  expect_identical(q$y, y)
  q2 <- qqnormGpu(y, mu = 2, sigma = 3, lower.tail = FALSE, plot.it = FALSE)
  expect_equal(q2$x, 2 - 3 * ref$x, tolerance = 1e-13)
})
