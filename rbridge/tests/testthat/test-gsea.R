make_data <- function() {
  set.seed(3)
  expr <- matrix(rnorm(300 * 12), 300, dimnames = list(paste0("G", 1:300), NULL))
  expr[1:20, 1:6] <- expr[1:20, 1:6] + 1.5
  labels <- factor(rep(c("tumour", "normal"), each = 6), levels = c("tumour", "normal"))
  sets <- list(up = paste0("G", 1:20), mixed = paste0("G", 10:40), other = paste0("G", 100:160))
  list(expr = expr, labels = labels, sets = sets)
}

test_that("gsea equals Python's gsea for the same seed, shaped like fgsea", {
  skip_without_python()
  d <- make_data()
  r <- gsea(d$expr, d$labels, d$sets, nperm = 500, minSize = 10, seed = 8)
  expect_named(r, c("pathway", "pval", "padj", "ES", "NES", "size", "leadingEdge", "FDR",
                    "FWER", "nMoreExtreme"))
  ref <- py()$gsea(oclstat:::to_py_array(d$expr), as.list(as.character(d$labels)),
                   reticulate::dict(lapply(d$sets, as.list)), n_resamples = 500L, min_size = 10L,
                   seed = 8L, classes = reticulate::tuple("tumour", "normal"))
  cols <- oclstat:::bridge()$table_columns(reticulate::py_get_attr(ref, "table"))
  expect_identical(r$pathway, unlist(cols[["__index__"]]))
  expect_identical(r$ES, unlist(cols$es))
  expect_identical(r$NES, unlist(cols$nes))
  expect_identical(r$pval, unlist(cols$pval))
  expect_identical(r$FDR, unlist(cols$fdr))
  expect_identical(r$nMoreExtreme, as.double(unlist(cols$n_more)))
  up <- r[r$pathway == "up", ]
  expect_gt(up$NES, 1.5)
  expect_lt(up$pval, 0.01)
  expect_true(all(up$leadingEdge[[1]] %in% d$sets$up))
  # the factor's first level is class A: swapping the levels flips the signs
  flipped <- gsea(d$expr, factor(d$labels, levels = c("normal", "tumour")), d$sets,
                  nperm = 1, minSize = 10, seed = 1)
  expect_equal(flipped$ES[match(r$pathway, flipped$pathway)], -r$ES, tolerance = 1e-12)
})

test_that("gsea takes Broad's comparisons, continuous phenotypes and gene-set permutation", {
  skip_without_python()
  d <- make_data()
  three <- rep(c("a", "b", "c"), each = 4)
  r <- gsea(d$expr, three, d$sets, nperm = 100, minSize = 10, seed = 2,
            classes = "b_versus_a")
  alone <- gsea(d$expr[, 1:8], factor(rep(c("a", "b"), each = 4), levels = c("b", "a")),
                d$sets, nperm = 100, minSize = 10, seed = 2)
  expect_identical(r, alone)
  expect_error(gsea(d$expr, three, d$sets), "classes = \"A_versus_B\"")
  profile <- setNames(seq(0, 1, length.out = 12) + (1:12 %% 3) / 10, paste0("S", 1:12))
  colnames(d$expr) <- paste0("S", 1:12)
  p <- gsea(d$expr, rev(profile), d$sets, nperm = 100, minSize = 10, seed = 2,
            metric = "Pearson")
  ref <- py()$gsea(oclstat:::to_py_array(d$expr), as.list(unname(profile)),
                   reticulate::dict(lapply(d$sets, as.list)), n_resamples = 100L,
                   min_size = 10L, seed = 2L, metric = "pearson")
  cols <- oclstat:::bridge()$table_columns(reticulate::py_get_attr(ref, "table"))
  expect_identical(p$pathway, unlist(cols[["__index__"]]))
  expect_identical(p$NES, unlist(cols$nes))
  g <- gsea(d$expr, d$labels, d$sets, nperm = 100, minSize = 10, seed = 2,
            permutation = "gene_set")
  es <- gsea(d$expr, d$labels, d$sets, nperm = 1, minSize = 10, seed = 2)
  expect_identical(g$ES[order(g$pathway)], es$ES[order(es$pathway)])
  expect_false(identical(g$pval, gsea(d$expr, d$labels, d$sets, nperm = 100, minSize = 10,
                                      seed = 2)$pval))
  cls <- tempfile(fileext = ".cls")
  writeLines(c("12 3 1", "# a b c", paste(three, collapse = " ")), cls)
  f <- readCls(paste0(cls, "#c_versus_REST"))
  expect_identical(levels(f), c("c", "REST"))
  expect_identical(as.character(f), rep(c("REST", "c"), c(8, 4)))
})

test_that("readGct, readCls and readGmt read what the writers wrote", {
  skip_without_python()
  dir <- tempfile(); dir.create(dir)
  writeLines(c("#1.2", "2\t3", "NAME\tDescription\ta\tb\tc", "TP53\tp53\t1\t2\t3",
               "MDM2\tna\t4\t5\t6.5"), file.path(dir, "x.gct"))
  writeLines(c("3 2 1", "# CASE CONTROL", "0 1 0"), file.path(dir, "x.cls"))
  writeLines(c("S1\tna\tTP53\tMDM2", "S2\thttp://x\tMDM2"), file.path(dir, "x.gmt"))
  e <- readGct(file.path(dir, "x.gct"))
  expect_equal(e, structure(matrix(c(1, 4, 2, 5, 3, 6.5), 2,
                                   dimnames = list(c("TP53", "MDM2"), c("a", "b", "c"))),
                            description = c("p53", "na")))
  expect_identical(readCls(file.path(dir, "x.cls")),
                   factor(c("CASE", "CONTROL", "CASE"), levels = c("CASE", "CONTROL")))
  expect_identical(readGmt(file.path(dir, "x.gmt")), list(S1 = c("TP53", "MDM2"), S2 = "MDM2"))
})

test_that("fgseaGpu equals Python's gsea_prerank for the same seed, in fgsea's columns", {
  skip_without_python()
  set.seed(4)
  stats <- setNames(rnorm(2000), paste0("G", 1:2000))
  stats[1:40] <- stats[1:40] + 2
  sets <- list(up = paste0("G", 1:40), other = paste0("G", 500:560), low = paste0("G", 900:930))
  r <- fgseaGpu(sets, stats, nPermSimple = 500, seed = 3)
  expect_named(r, c("pathway", "pval", "padj", "log2err", "ES", "NES", "size", "leadingEdge"))
  ref <- py()$gsea_prerank(reticulate::r_to_py(as.list(stats)),
                           reticulate::dict(lapply(sets, as.list)), n_resamples = 500L,
                           seed = 3L)
  cols <- oclstat:::bridge()$table_columns(reticulate::py_get_attr(ref, "table"))
  expect_identical(r$pathway, sort(names(sets), method = "radix"))   # fgsea's setorder
  i <- match(r$pathway, unlist(cols[["__index__"]]))
  expect_identical(r$pval, unlist(cols$pval)[i])
  expect_identical(r$ES, unlist(cols$ES)[i])
  expect_lt(r$pval[r$pathway == "up"], 1e-8)
  expect_true(all(r$leadingEdge[[which(r$pathway == "up")]] %in% sets$up))
  expect_error(fgseaGpu(sets, unname(stats)), "named numeric vector")
  expect_error(fgseaGpu(sets, stats, method = "exact"), "should be one of")
  expect_error(fgseaGpu(list(x = c("nope", "none")), stats), "no gene set")
})

test_that("readRnk reads a ranked list as a named vector", {
  skip_without_python()
  path <- tempfile(fileext = ".rnk")
  writeLines(c("gene\tstat", "TP53\t2.5", "MDM2\t-1"), path)
  expect_identical(readRnk(path), c(TP53 = 2.5, MDM2 = -1))
})

test_that("fgseaGpu takes fgsea's arguments and defaults and returns fgsea's class", {
  skip_without_python()
  set.seed(5)
  stats <- setNames(rnorm(3000), paste0("G", 1:3000))
  stats[1:30] <- stats[1:30] + 2
  sets <- list(up = paste0("G", 1:30), tiny = paste0("G", c(1, 2, 2999)),
               other = paste0("G", 1000:1100))
  r <- fgseaGpu(pathways = sets, stats = stats, nproc = 1, BPPARAM = NULL, seed = 2)
  expect_true("tiny" %in% r$pathway)        # fgsea's minSize = 1 (Python's 15 would drop it)
  if (requireNamespace("data.table", quietly = TRUE)) expect_s3_class(r, "data.table")
  expect_s3_class(r, "data.frame")
  capped <- fgseaGpu(sets, stats, minSize = 15, maxSize = 500, seed = 2)
  expect_false("tiny" %in% capped$pathway)
  expect_identical(capped$pval[capped$pathway == "up"], r$pval[r$pathway == "up"])
  pos <- fgseaGpu(sets, stats, scoreType = "pos", seed = 2)
  neg <- fgseaGpu(sets, stats, scoreType = "neg", seed = 2)
  curve <- oclstat:::running_sum(sets$other, stats)
  expect_equal(pos$ES[pos$pathway == "other"], curve$top, tolerance = 1e-9)
  expect_equal(neg$ES[neg$pathway == "other"], curve$bottom, tolerance = 1e-9)
  expect_lt(pos$pval[pos$pathway == "up"], 1e-6)
  expect_gt(neg$pval[neg$pathway == "up"], 0.5)
  expect_error(fgseaGpu(sets, stats, scoreType = "both"), "should be one of")
  # the plots: fgsea's ES is the curve's extreme; the table's rows are the pathways given
  curve <- oclstat:::running_sum(sets$up, stats)
  expect_equal(curve$es, r$ES[r$pathway == "up"], tolerance = 1e-6)
  file <- tempfile(fileext = ".pdf")
  grDevices::pdf(file)
  p <- plotEnrichment(sets$up, stats)
  if (inherits(p, "ggplot")) print(p)
  drawn <- plotGseaTable(sets[c("up", "other")], stats, r)
  if (inherits(drawn, "ggplot")) {              # fgsea's result: a ggplot of the table
    print(drawn)
    labels <- drawn$layers[[1]]$data$label
    drawn <- data.frame(pathway = labels[labels %in% c("up", "other")])
  }
  grDevices::dev.off()
  expect_gt(file.size(file), 1000)
  unlink(file)
  expect_identical(drawn$pathway, c("up", "other"))
  expect_error(plotEnrichment("nope", stats), "no gene")
})

test_that("fgsea's README workflow runs on data shaped like fgsea's example (12,000 ranks, 1,400 pathways)", {
  skip_without_python()
  set.seed(11)
  genes <- paste0("Entrez", 1:12000)
  stats <- setNames(sort(stats::rt(12000, df = 4), decreasing = TRUE), genes)
  sizes <- pmin(500, pmax(15, round(exp(rnorm(1400, log(40), 0.9)))))
  pathways <- lapply(sizes, function(k) sample(genes, k))
  names(pathways) <- sprintf("R-HSA-%07d", seq_along(pathways))
  for (i in 1:10) pathways[[i]] <- sample(genes[1:600], sizes[i])     # planted near the top
  fgseaRes <- fgseaGpu(pathways = pathways, stats = stats, minSize = 15, maxSize = 500,
                       seed = 1)
  expect_equal(nrow(fgseaRes), 1400)
  expect_identical(fgseaRes$pathway, sort(names(pathways), method = "radix"))
  top <- fgseaRes[order(fgseaRes$pval), ]
  expect_setequal(top$pathway[1:10], names(pathways)[1:10])
  expect_lt(mean(fgseaRes$pval[!fgseaRes$pathway %in% names(pathways)[1:10]] < 0.05), 0.08)
  for (p in names(pathways)[c(1, 500, 1400)])
    expect_equal(fgseaRes$ES[fgseaRes$pathway == p],
                 oclstat:::running_sum(pathways[[p]], stats)$es, tolerance = 1e-9)
  collapsed <- collapsePathways(top[top$padj < 0.01, ], pathways, stats, seed = 1)
  expect_named(collapsed, c("mainPathways", "parentPathways"))
  expect_setequal(collapsed$mainPathways, names(pathways)[1:10])   # fgsea's answer too
  expect_true(all(is.na(collapsed$parentPathways[collapsed$mainPathways])))
  expect_error(collapsePathways(top, pathways, unname(stats)), "named numeric vector")
  expect_error(collapsePathways(data.frame(x = 1), pathways, stats), "columns pathway and ES")
})
