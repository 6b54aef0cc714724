make_expr <- function() {
  set.seed(5)
  x <- matrix(round(rnorm(400 * 16), 2), 400,
              dimnames = list(paste0("G", 1:400), paste0("s", 1:16)))
  x[1:30, 1:8] <- x[1:30, 1:8] + 1.5
  list(x = x, sets = list(up = paste0("G", 1:30), mixed = paste0("G", 20:80),
                          other = paste0("G", 200:260)))
}

test_that("ssgseaGpu and gsvaGpu return GSVA's matrix, equal to GSVA's own", {
  skip_without_python()
  d <- make_expr()
  s <- ssgseaGpu(d$x, d$sets)
  g <- gsvaGpu(d$x, d$sets)
  expect_equal(dim(s), c(3L, 16L))
  expect_identical(dimnames(g), list(names(d$sets), colnames(d$x)))
  expect_gt(mean(g["up", 1:8]), mean(g["up", 9:16]) + 0.5)
  skip_if_not_installed("GSVA")
  ref <- suppressWarnings(GSVA::gsva(d$x, d$sets, method = "ssgsea", verbose = FALSE))
  expect_equal(s, ref[rownames(s), ], tolerance = 1e-8)
  ref <- suppressWarnings(GSVA::gsva(d$x, d$sets, method = "gsva", verbose = FALSE,
                                     mx.diff = FALSE))
  expect_equal(gsvaGpu(d$x, d$sets, mx.diff = FALSE), ref[rownames(s), ], tolerance = 1e-8)
})

test_that("ssgseaGpu and gsvaGpu name R's arguments in their errors", {
  skip_without_python()
  d <- make_expr()
  expect_error(ssgseaGpu(d$x, d$sets$up), "gset.idx.list must be a named list")
  expect_error(gsvaGpu(unname(d$x), d$sets), "expr needs gene names")
  expect_error(gsvaGpu(d$x, d$sets, kcdf = "gauss"), "should be one of")
  expect_error(ssgseaGpu(d$x, d$sets, min.sz = 100), "min.sz")
  expect_error(ssgseaGpu(d$x, d$sets, flavor = "broad"), "should be one of")
})

test_that("zscoreGpu and plageGpu equal GSVA's zscore and plage", {
  skip_without_python()
  d <- make_expr()
  z <- zscoreGpu(d$x, d$sets)
  p <- plageGpu(d$x, d$sets)
  expect_identical(dimnames(z), list(names(d$sets), colnames(d$x)))
  expect_equal(unname(rowSums(p^2)), rep(1, 3), tolerance = 1e-12)
  sc <- t(scale(t(d$x)))
  expect_equal(unname(z["up", ]), unname(colSums(sc[d$sets$up, ]) / sqrt(30)),
               tolerance = 1e-12)
  expect_error(plageGpu(d$x, d$sets, min.sz = 1), "min.sz must be at least 2")
  skip_if_not_installed("GSVA")
  for (m in c("zscore", "plage")) {
    ref <- suppressWarnings(GSVA::gsva(d$x, d$sets, method = m, verbose = FALSE))
    got <- if (m == "zscore") z else p
    expect_equal(got, ref[rownames(got), ], tolerance = 1e-10)
  }
})

test_that("the GSVA methods take GSVA 2's containers and return them as GSVA 2 does", {
  skip_without_python()
  skip_if_not_installed("Matrix")
  d <- make_expr()
  d$x[d$x < 0.5] <- 0                                   # sparse, as counts are
  dense <- ssgseaGpu(d$x, d$sets)
  sp <- Matrix::Matrix(d$x, sparse = TRUE)
  expect_s4_class(sp, "dgCMatrix")
  expect_equal(ssgseaGpu(sp, d$sets), dense, tolerance = 1e-12)
  expect_equal(ssgseaGpu(methods::as(sp, "TsparseMatrix"), d$sets), dense, tolerance = 1e-12)
  # a dgCMatrix: z-score and PLAGE scale its non-zero values only, as GSVA's dgCMatrix path
  # (the zeros stay zero; checked against GSVA 2 in test-gsva2.R)
  z <- zscoreGpu(sp, d$sets)
  nz <- d$x["G1", ] != 0
  zg <- d$x["G1", ]
  zg[nz] <- scale(zg[nz])
  expect_false(isTRUE(all.equal(z, zscoreGpu(d$x, d$sets))))
  one <- zscoreGpu(sp, list(g1 = "G1", g2 = "G2"), min.sz = 1)
  expect_equal(one["g1", ], zg, tolerance = 1e-12)
  if (requireNamespace("DelayedArray", quietly = TRUE))
    expect_equal(ssgseaGpu(DelayedArray::DelayedArray(sp), d$sets), dense, tolerance = 1e-12)
  # gene sets as a GMT file and as a GeneSetCollection
  gmt <- tempfile(fileext = ".gmt")
  writeGmtPathways(d$sets, gmt)
  expect_equal(ssgseaGpu(d$x, gmt), dense)
  if (requireNamespace("GSEABase", quietly = TRUE)) {
    gsc <- GSEABase::GeneSetCollection(lapply(names(d$sets), function(n)
      GSEABase::GeneSet(d$sets[[n]], setName = n)))
    expect_equal(ssgseaGpu(d$x, gsc), dense)
  }
  skip_if_not_installed("SummarizedExperiment")
  cd <- S4Vectors::DataFrame(group = rep(c("a", "b"), each = 8), row.names = colnames(d$x))
  se <- SummarizedExperiment::SummarizedExperiment(
    assays = list(raw = d$x * 2, logc = sp), colData = cd,
    metadata = list(annotation = "org.Hs.eg.db", study = "x"))
  out <- ssgseaGpu(se, d$sets, assay = "logc")
  expect_s4_class(out, "SummarizedExperiment")
  expect_identical(SummarizedExperiment::assayNames(out), "es")
  expect_equal(SummarizedExperiment::assay(out, "es"), dense, tolerance = 1e-12)
  expect_identical(SummarizedExperiment::colData(out), cd)
  expect_identical(S4Vectors::metadata(out), list(study = "x"))
  expect_identical(as.list(SummarizedExperiment::rowData(out)$gs)$up, d$sets$up)
  first <- gsvaGpu(se, d$sets)                                  # NA: the first assay, "raw"
  expect_equal(SummarizedExperiment::assay(first), gsvaGpu(d$x * 2, d$sets))
  expect_error(ssgseaGpu(se, d$sets, assay = "counts"), "not an assay of expr")
  skip_if_not_installed("SingleCellExperiment")
  sce <- SingleCellExperiment::SingleCellExperiment(assays = list(logcounts = sp),
                                                    colData = cd)
  out <- plageGpu(sce, d$sets)
  expect_s4_class(out, "SingleCellExperiment")
  expect_equal(SummarizedExperiment::assay(out, "es"), plageGpu(sp, d$sets),
               tolerance = 1e-12)
})
