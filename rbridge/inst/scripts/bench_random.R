# From R: oclstat's draws next to R's own, and next to the same call made from Python inside
# this R process (what crossing into R costs). Prints median wall times of `reps` runs.
#
#   Rscript bench_random.R [n] [reps]          # default n = 1e7, reps = 5
#
# The arrays cross in memory (R allocates the result, Python fills it): no temporary files.

library(oclstat)
args <- commandArgs(TRUE)
n <- if (length(args) >= 1) as.numeric(args[1]) else 1e7
reps <- if (length(args) >= 2) as.integer(args[2]) else 5L
stopifnot(oclstat_available())

timed <- function(f) {
  f()                                              # the kernels built and cached, memory warm
  median(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]], numeric(1)))
}
py <- oclstat:::oclstat_module()
size <- as.integer(n)
rows <- list(
  c("normal", timed(function() rnormGpu(n, seed = 1)), timed(function() stats::rnorm(n)),
    timed(function() py$random$normal(size, seed = 1L))),
  c("uniform", timed(function() runifGpu(n, seed = 1)), timed(function() stats::runif(n)),
    timed(function() py$random$uniform(size, seed = 1L))),
  c("exponential", timed(function() rexpGpu(n, seed = 1)), timed(function() stats::rexp(n)),
    timed(function() py$random$exponential(size, seed = 1L))))
cat(sprintf("oclstat from R vs R's own, n = %g, median of %d runs, device: %s\n", n, reps,
            oclstat:::bridge()$device_summary(NULL)))
cat(oclstat:::bridge()$host_summary(), "\n", sep = "")
cat(sprintf("%-12s %12s %12s %14s %12s %14s\n", "draw", "oclstat (R)", "R's own",
            "oclstat (Py)", "R / oclstat", "R call / Py"))
for (r in rows) {
  t <- as.numeric(r[2:4])
  cat(sprintf("%-12s %10.3f s %10.3f s %12.3f s %11.1fx %13.1fx\n", r[1], t[1], t[2], t[3],
              t[2] / t[1], t[1] / t[3]))
}
cat(sprintf("floor (writing %g doubles once at ~10 GB/s): %.3f s\n", n, n * 8 / 1e10))
