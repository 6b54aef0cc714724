# GSVA 2's interface (rbridge/R/gsva2.R) against GSVA 2's own scores on the same calls,
# frozen in gsva2_reference.csv by tests/data/make_gsva2_reference.py.

test_that("gsva(param) gives GSVA 2's scores and geneSets for every method and kcdf", {
  skip_without_python()
  skip_if_not_installed("Matrix")
  ref <- utils::read.csv(test_path("gsva2_reference.csv"), stringsAsFactors = FALSE)
  d <- gsva2_inputs()
  cases <- gsva2_cases(asNamespace("oclstat"), d)
  expect_setequal(names(cases), unique(ref$case))
  for (k in names(cases)) {
    got <- gsva2_long(k, cases[[k]]())
    want <- ref[ref$case == k, ]
    expect_identical(paste(got$set, got$sample), paste(want$set, want$sample), label = k)
    expect_equal(got$score, want$score, tolerance = 1e-10, label = k)
    expect_identical(as.integer(got$size), as.integer(want$size), label = k)
  }
})

test_that("gsva(param) returns a SummarizedExperiment as GSVA 2 does", {
  skip_without_python()
  skip_if_not_installed("SummarizedExperiment")
  d <- gsva2_inputs()
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(a = d$x * 3, b = d$x),
    colData = S4Vectors::DataFrame(g = rep(1:2, 8), row.names = colnames(d$x)))
  out <- gsva(zscoreParam(se, d$sets, assay = "b"), verbose = FALSE)
  expect_s4_class(out, "SummarizedExperiment")
  plain <- gsva(zscoreParam(d$x, d$sets), verbose = FALSE)
  expect_identical(as.list(SummarizedExperiment::rowData(out)$gs), attr(plain, "geneSets"))
  attr(plain, "geneSets") <- NULL
  expect_equal(SummarizedExperiment::assay(out, "es"), plain, tolerance = 1e-12)
  expect_identical(SummarizedExperiment::colData(out), SummarizedExperiment::colData(se))
})

test_that("what GSVA 2's interface does that oclstat does not is a clear error", {
  skip_without_python()
  d <- gsva2_inputs()
  expect_error(gsvaParam(d$x, d$sets, annotation = 3), "annotation must be NULL")
  expect_error(gsva(d$x), "gsvaParam")
  expect_error(gsvaParam(d$x, d$sets, kcdf = "gauss"), "should be one of")
  expect_output(print(ssgseaParam(d$x, d$sets)), "ssgseaParam object")
})

test_that("annotation as GSVA 2: a package to map the sets to, or the row names as they are", {
  skip_without_python()
  skip_if_not_installed("GSEABase")
  skip_if_not_installed("SummarizedExperiment")
  d <- gsva2_inputs()
  base <- gsva(zscoreParam(d$x, d$sets), verbose = FALSE)
  # an identifier type without an annotation package: matched as they are (GSVA 2's warning)
  expect_equal(gsva(zscoreParam(d$x, d$sets, annotation = GSEABase::NullIdentifier()),
                    verbose = FALSE), base)
  # a package that is not installed stops with GSVA 2's message, whether the annotation is the
  # argument (a name or a type) or the container's
  expect_error(gsva(zscoreParam(d$x, d$sets, annotation = "org.Nope.eg.db"), verbose = FALSE),
               "Please install the annotation package org.Nope.eg.db")
  se <- SummarizedExperiment::SummarizedExperiment(assays = list(a = d$x))
  S4Vectors::metadata(se)$annotation <- GSEABase::SymbolIdentifier("org.Nope.eg.db")
  expect_error(gsva(zscoreParam(se, d$sets), verbose = FALSE), "Please install")
  expect_message(p <- zscoreParam(se, d$sets, annotation = GSEABase::NullIdentifier()),
                 "ignoring exprData annotation")
  plain <- base
  attr(plain, "geneSets") <- NULL
  expect_equal(unname(SummarizedExperiment::assay(gsva(p, verbose = FALSE))), unname(plain),
               tolerance = 1e-12)
  # the mapping itself: GSEABase's mapIdentifiers with an installed organism package (not in
  # CI: org.Hs.eg.db is 340 MB)
  skip_if_not_installed("org.Hs.eg.db")
  entrez <- c("1", "2", "9", "10", "12", "13", "14", "15", "16", "18", "19", "20")
  symbols <- AnnotationDbi::mapIds(org.Hs.eg.db::org.Hs.eg.db, entrez, "SYMBOL", "ENTREZID")
  x <- matrix(stats::rnorm(length(symbols) * 6), length(symbols),
              dimnames = list(unname(symbols), paste0("s", 1:6)))
  gsc <- GSEABase::GeneSetCollection(list(GSEABase::GeneSet(
    entrez[1:6], setName = "a", geneIdType = GSEABase::EntrezIdentifier("org.Hs.eg.db"))))
  mapped <- gsva(zscoreParam(x, gsc, annotation = GSEABase::SymbolIdentifier("org.Hs.eg.db")),
                 verbose = FALSE)
  attr(mapped, "geneSets") <- NULL
  want <- gsva(zscoreParam(x, list(a = unname(symbols[1:6]))), verbose = FALSE)
  attr(want, "geneSets") <- NULL
  expect_equal(mapped, want)
})

test_that("gsva(param, verbose = TRUE) says what it inferred, as GSVA 2 says it", {
  skip_without_python()
  skip_if_not_installed("Matrix")
  skip_if_not_installed("SummarizedExperiment")
  d <- gsva2_inputs()
  sp <- Matrix::Matrix(d$sparse, sparse = TRUE)
  said <- function(p) paste(testthat::capture_messages(gsva(p)), collapse = "")
  m <- said(gsvaParam(sp, d$sets))
  expect_match(m, "kcdf = 'auto' chose 'Gaussian'")
  expect_match(m, "GSVA sparse algorithm")
  flat <- sum(apply(d$sparse, 1, function(r) length(unique(r[r != 0])) < 2))
  expect_gte(flat, 2)
  expect_match(m, paste(flat, "of 300 genes left out: constant non-zero values"))
  expect_match(said(gsvaParam(sp, d$sets, sparse = FALSE)), "dense \\(classical\\)")
  expect_match(said(gsvaParam(d$counts, d$sets)), "chose 'Poisson' \\(integer counts\\)")
  expect_match(said(gsvaParam(d$wide, d$sets)), "chose 'none'")
  se <- SummarizedExperiment::SummarizedExperiment(assays = list(a = d$x, b = d$x))
  expect_match(said(zscoreParam(se, d$sets)), "assay 'a' of the SummarizedExperiment")
  expect_length(testthat::capture_messages(gsva(gsvaParam(sp, d$sets), verbose = FALSE)), 0)
})

# Missing values: GSVA 2's own ssgsea() on the same calls, frozen in gsva2_na_reference.csv
# by tests/data/make_gsva2_na_reference.py (the input beside it).
gsva2_na_inputs <- function() {
  x <- as.matrix(utils::read.csv(test_path("gsva2_na_input.csv"), row.names = 1))
  g <- rownames(x)
  list(x = x, sets = list(up = g[1:15], mid = g[10:40], big = g[50:100], six = g[101:106],
                          three = c("G40", "G41", "G42"), one = c("nope", "G2")))
}

test_that("ssgseaParam(use =) scores missing values as GSVA 2's ssgsea()", {
  skip_without_python()
  ref <- utils::read.csv(test_path("gsva2_na_reference.csv"), stringsAsFactors = FALSE)
  d <- gsva2_na_inputs()
  for (k in unique(ref$case)) {
    want <- ref[ref$case == k, ]
    p <- want[1, ]
    es <- suppressMessages(suppressWarnings(gsva(ssgseaParam(
      d$x, d$sets, minSize = p$min_size, alpha = p$alpha, normalize = p$normalize,
      use = p$use), verbose = FALSE)))
    expect_identical(paste(rep(rownames(es), ncol(es)), rep(colnames(es), each = nrow(es))),
                     paste(want$set, want$sample), label = k)
    expect_identical(is.na(as.vector(es)), is.na(want$score), label = k)
    expect_equal(as.vector(es), want$score, tolerance = 1e-12, label = k)
  }
})

# The GSVA method with missing values: GSVA 2's own C and R on the same calls, frozen in
# gsva2_gsva_na_reference.csv by tests/data/make_gsva2_gsva_na_reference.py (inputs beside it)
test_that("gsvaParam(use =) scores missing values as GSVA 2's gsva()", {
  skip_without_python()
  ref <- utils::read.csv(test_path("gsva2_gsva_na_reference.csv"), stringsAsFactors = FALSE)
  sets <- test_path("gsva2_gsva_na_sets.gmt")
  input <- list(values = as.matrix(utils::read.csv(test_path("gsva2_gsva_na_values.csv"),
                                                   row.names = 1)),
                counts = as.matrix(utils::read.csv(test_path("gsva2_gsva_na_counts.csv"),
                                                   row.names = 1)))
  expect_true(is.integer(input$counts))      # kcdf = "auto" chooses Poisson, as GSVA 2 did
  for (k in unique(ref$case)) {
    want <- ref[ref$case == k, ]
    p <- want[1, ]
    gs <- gmtPathways(sets)[unique(want$set)]
    es <- suppressMessages(suppressWarnings(gsva(gsvaParam(
      input[[p$input]], gs, kcdf = if (p$kcdf == "none") "none" else "auto",
      minSize = p$min_size, tau = p$tau, maxDiff = p$max_diff, absRanking = p$abs_ranking,
      use = p$use), verbose = FALSE)))
    expect_identical(paste(rep(rownames(es), ncol(es)), rep(colnames(es), each = nrow(es))),
                     paste(want$set, want$sample), label = k)
    expect_identical(is.na(as.vector(es)), is.na(want$score), label = k)
    expect_equal(as.vector(es), want$score, tolerance = 1e-12, label = k)
  }
  # GSVA 1.46's call with GSVA 2's use =: the same scores
  x <- input$values
  es <- expect_warning(suppressMessages(gsva(gsvaParam(x, sets, use = "na.rm"),
                                             verbose = FALSE)), "fewer than 1 genes")
  attr(es, "geneSets") <- NULL
  expect_equal(suppressWarnings(gsvaGpu(x, sets, use = "na.rm")), es, tolerance = 0)
  expect_error(gsvaGpu(x, sets), "must not contain NA")
})

test_that("missing values: GSVA 2's notes and its refusals", {
  skip_without_python()
  d <- gsva2_na_inputs()
  expect_message(ssgseaParam(d$x, d$sets), "propagated through calculations")
  expect_message(ssgseaParam(d$x, d$sets, use = "na.rm"), "discarded from calculations")
  expect_error(ssgseaParam(d$x, d$sets, use = "all.obs"), "Input expression data has NA")
  expect_error(gsvaParam(d$x, d$sets, use = "all.obs"), "Input expression data has NA")
  expect_error(gsva(ssgseaParam(d$x, d$sets, checkNA = "no"), verbose = FALSE),
               "Cannot calculate normalizing factor")
  expect_error(gsva(zscoreParam(d$x, d$sets), verbose = FALSE), "must not contain NA")
  es <- expect_warning(suppressMessages(gsva(ssgseaParam(d$x, d$sets, use = "na.rm"),
                                             verbose = FALSE)), "fewer than 1 genes")
  attr(es, "geneSets") <- NULL
  # GSVA 1.46's call with GSVA 2's use =: the same scores
  expect_equal(suppressWarnings(ssgseaGpu(d$x, d$sets, use = "na.rm")), es, tolerance = 0)
  expect_error(ssgseaGpu(d$x, d$sets), "must not contain NA")
  expect_error(ssgseaGpu(d$x, d$sets, use = "omit"), "should be one of")
})
