# Runs a peer R package's own testthat files, unchanged, against a package attached in its
# place: the peer itself (the reference run) or oclstat (the drop-in). Only the package
# attached differs; the test code is read from the peer's source tree as it is.
#
#   Rscript tools/peer_suites.R <peer source dir> <package to attach> <out.csv>
#
# The peer's datasets (its data/ folder; for fgsea without it, examplePathways and exampleRanks
# from ../shared/data/fgsea) are put where the code runs, so both packages see the same data.
# The units: every test_that block, every man page's examples, every evaluated vignette chunk.
# Writes one row per unit: kind (test / example / vignette), file, unit, result (pass / fail /
# error / skip), expectations passed and failed (tests), the first failure's message.

# Everything runs inside main(): the peer's code may clear or overwrite the global environment.
main <- function() {
  args <- commandArgs(trailingOnly = TRUE)
  if (length(args) != 3) stop("usage: peer_suites.R <peer source dir> <package> <out.csv>")
  src <- normalizePath(args[[1]])
  pkg <- args[[2]]
  csv <- file.path(normalizePath(dirname(args[[3]])), basename(args[[3]]))
  suppressPackageStartupMessages({
    library(testthat)
    library(pkg, character.only = TRUE)
    if (requireNamespace("data.table", quietly = TRUE)) library(data.table)
    if (requireNamespace("BiocParallel", quietly = TRUE)) library(BiocParallel)
    if (requireNamespace("ggplot2", quietly = TRUE)) library(ggplot2)
  })

  shared <- Sys.getenv("OCLSTAT_SHARED_DATA", file.path(getwd(), "..", "shared", "data"))
  # the peer's code writes files (fgsea's vignette: fgseaRes.txt): in a folder of its own
  work <- tempfile("peer-suite-")
  dir.create(work)
  setwd(work)
  data_env <- new.env(parent = globalenv())
  # the peer's own datasets (its data/ folder), which its code loads with data(): put where the
  # code runs for both packages (data() then only warns under a package without them)
  for (f in list.files(file.path(src, "data"), "\\.(rda|RData|rdata)$", full.names = TRUE))
    load(f, envir = data_env)
  fgsea_data <- file.path(shared, "fgsea")
  if (dir.exists(fgsea_data) && !exists("exampleRanks", envir = data_env)) {
    gz <- gzfile(file.path(fgsea_data, "examplePathways.gmt.gz"))
    lines <- strsplit(readLines(gz), "\t")
    close(gz)
    data_env$examplePathways <- stats::setNames(lapply(lines, function(l) l[-(1:2)]),
                                                vapply(lines, `[`, "", 1))
    rnk <- utils::read.delim(gzfile(file.path(fgsea_data, "exampleRanks.rnk.gz")),
                             header = FALSE, colClasses = c("character", "numeric"))  # closes it
    data_env$exampleRanks <- stats::setNames(rnk[[2]], rnk[[1]])
  }

  peer <- read.dcf(file.path(src, "DESCRIPTION"), fields = "Package")[1, 1]
  # the one change allowed, the package's name where the code names the package:
  # library(<peer>) / require(<peer>) attach `pkg` instead, and <peer>::name / <peer>:::name
  # (its exported and internal functions by namespace) are pkg's
  swap <- function(code) {
    code <- gsub(sprintf("(library|require|requireNamespace)\\((['\"]?)%s\\2", peer),
                 sprintf("\\1(\\2%s\\2", pkg), code)
    gsub(sprintf("\\b%s(:::?)", peer), sprintf("%s\\1", pkg), code, perl = TRUE)
  }
  row <- function(kind, file, unit, result, passed = NA_integer_, failed = NA_integer_,
                  message = "") {
    data.frame(kind = kind, file = file, unit = unit, result = result, passed = passed,
               failed = failed, message = gsub("[\r\n\t]+", " ", substr(message, 1, 300)))
  }
  # Runs `code` in `env`; "pass", or "error" with the message (warnings allowed, output dropped).
  run_code <- function(code, env) {
    msg <- tryCatch({
      utils::capture.output(suppressWarnings(suppressMessages(
        eval(parse(text = code, keep.source = FALSE), envir = env))))
      ""
    }, error = function(e) conditionMessage(e))
    grDevices::graphics.off()
    if (nzchar(msg)) list("error", msg) else list("pass", "")
  }
  rows <- list()

  # testthat files, one row per test_that block
  files <- sort(list.files(file.path(src, "tests", "testthat"), "^test.*\\.[rR]$",
                           full.names = TRUE))
  for (f in files) {
    code <- tempfile(fileext = ".R")
    writeLines(swap(readLines(f, warn = FALSE)), code)
    env <- new.env(parent = data_env)
    res <- tryCatch(
      testthat::test_file(code, env = env, reporter = testthat::ListReporter$new(),
                          stop_on_failure = FALSE),
      error = function(e) e)
    if (inherits(res, "error")) {
      rows[[length(rows) + 1]] <- row("test", basename(f), "(file)", "error",
                                      message = conditionMessage(res))
      next
    }
    for (r in res) {
      results <- r$results
      kinds <- vapply(results, function(x) class(x)[1], "")
      failed <- kinds %in% c("expectation_failure", "expectation_error")
      first <- if (any(failed)) conditionMessage(results[[which(failed)[1]]]) else ""
      result <- if (any(kinds == "expectation_error")) "error" else if (any(failed)) "fail" else
        if (any(kinds == "expectation_skip")) "skip" else "pass"
      rows[[length(rows) + 1]] <- row("test", basename(f), r$test, result,
                                      sum(kinds == "expectation_success"), sum(failed), first)
    }
  }

  # man pages' examples (\donttest run, \dontrun not), one row per page
  for (rd in sort(list.files(file.path(src, "man"), "\\.Rd$", full.names = TRUE))) {
    out <- tempfile(fileext = ".R")
    tools::Rd2ex(rd, out, commentDonttest = FALSE)
    if (!file.exists(out)) next
    env <- new.env(parent = data_env)
    res <- run_code(paste(swap(readLines(out, warn = FALSE)), collapse = "\n"), env)
    rows[[length(rows) + 1]] <- row("example", basename(rd), sub("\\.Rd$", "", basename(rd)),
                                    res[[1]], message = res[[2]])
  }

  # vignettes: chunk by chunk in one session per vignette (eval = FALSE chunks are left out)
  for (v in sort(list.files(file.path(src, "vignettes"), "\\.Rmd$", full.names = TRUE))) {
    script <- tempfile(fileext = ".R")
    suppressMessages(knitr::purl(v, output = script, documentation = 1, quiet = TRUE))
    lines <- readLines(script, warn = FALSE)
    starts <- grep("^## ----", lines)
    if (!length(starts)) next
    ends <- c(starts[-1] - 1, length(lines))
    env <- new.env(parent = data_env)
    for (i in seq_along(starts)) {
      chunk <- lines[starts[i]:ends[i]]
      label <- sub("^## ----([^,-]*).*$", "\\1", chunk[1])
      body <- chunk[-1]
      if (!any(nzchar(trimws(sub("^#.*", "", body))))) next       # nothing evaluated
      res <- run_code(paste(swap(body), collapse = "\n"), env)
      unit <- sprintf("chunk %d%s", i, if (nzchar(label)) paste0(" (", label, ")") else "")
      rows[[length(rows) + 1]] <- row("vignette", basename(v), unit, res[[1]],
                                      message = res[[2]])
    }
  }

  table <- do.call(rbind, rows)
  utils::write.csv(table, csv, row.names = FALSE)
  for (k in unique(table$kind)) {
    t <- table[table$kind == k, ]
    cat(sprintf("%s %s with %s: %d units, %d pass, %d fail, %d error, %d skip\n", peer, k, pkg,
                nrow(t), sum(t$result == "pass"), sum(t$result == "fail"),
                sum(t$result == "error"), sum(t$result == "skip")))
  }
}

main()
