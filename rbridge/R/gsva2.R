# GSVA 2's interface: a parameter object per method (gsvaParam, ssgseaParam, plageParam,
# zscoreParam), then gsva(param), which returns the scores in the container it was given.
# The work is the GSVA methods' functions (singlesample.R) on the device.

# A parameter object: the expression and gene sets as GSVA 2 checks them at construction,
# and the method's arguments.
gsva_method_param <- function(class, exprData, geneSets, assay, annotation, minSize,
                              maxSize, method_args, checkNA = "no", use = "everything") {
  if (methods::is(exprData, "SummarizedExperiment") && length(assay) == 1 && is.na(assay))
    assay <- SummarizedExperiment::assayNames(exprData)[1]          # GSVA 2: the first
  m <- expression_matrix(exprData, assay)                            # checked here, as GSVA
  structure(list(exprData = exprData, geneSets = gene_set_list(geneSets),
                 geneSetsGiven = geneSets, annotation = gsva_annotation(exprData, annotation),
                 assay = assay, minSize = minSize, maxSize = maxSize, args = method_args,
                 na = na_check(exprData, m, checkNA, use)),
            class = c(class, "GsvaMethodParam"))
}

# GSVA 2's annotation: the argument, else the container's (a SummarizedExperiment's
# metadata$annotation), else none; the argument wins with GSVA 2's note.
gsva_annotation <- function(exprData, annotation) {
  held <- if (methods::is(exprData, "SummarizedExperiment"))
    S4Vectors::metadata(exprData)$annotation
  if (!is.null(annotation) && !is.character(annotation) &&
      !methods::is(annotation, "GeneIdentifierType"))
    stop("annotation must be NULL, an annotation package's name or a GSEABase ",
         "GeneIdentifierType, got ", class(annotation)[1], call. = FALSE)
  if (is.null(annotation)) return(held)
  if (!is.null(held))
    message("i using argument annotation and ignoring exprData annotation, as GSVA 2")
  annotation
}

# GSVA 2's mapGeneSetsToAnno: with an annotation that names an annotation package (a
# GeneIdentifierType's package, or a package name), the gene sets' identifiers are mapped
# to its type by GSEABase's mapIdentifiers (the package must be installed, as GSVA 2 says);
# without one, the identifiers are matched to the data's row names as they are.
gene_sets_for <- function(param) {
  anno <- param$annotation
  db <- if (is.character(anno)) anno else if (!is.null(anno)) anno@annotation
  if (!(is.character(db) && length(db) == 1 && !is.na(db) && nzchar(db)))
    return(param$geneSets)
  if (!any(c(db, paste0(db, ".db")) %in% rownames(utils::installed.packages())))
    stop("Please install the annotation package ", db, call. = FALSE)
  need_package("GSEABase", "annotation")
  given <- param$geneSetsGiven
  gsc <- if (methods::is(given, "GeneSetCollection")) given else
    GSEABase::GeneSetCollection(lapply(names(param$geneSets), function(n)
      GSEABase::GeneSet(param$geneSets[[n]], setName = n)))
  type <- if (is.character(anno)) GSEABase::AnnoOrEntrezIdentifier(anno) else anno
  lapply(GSEABase::geneIds(GSEABase::mapIdentifiers(gsc, type)), as.character)
}

# GSVA 2's check for missing values at construction (its .check_for_na_values): with
# checkNA = "auto" a matrix, ExpressionSet or SummarizedExperiment is checked and other
# containers are not; NA refused with use = "all.obs", else GSVA 2's note of what follows.
na_check <- function(exprData, m, checkNA, use) {
  checked <- switch(checkNA, yes = TRUE, no = FALSE,
                    any(class(exprData) %in% c("matrix", "ExpressionSet",
                                               "SummarizedExperiment")))
  any_na <- checked && anyNA(if (methods::is(m, "dgCMatrix")) m@x else m)
  if (any_na) {
    if (use == "all.obs") stop("Input expression data has NA values.", call. = FALSE)
    message("! Input expression data has NA values, which will be ",
            if (use == "everything") "propagated through" else "discarded from",
            " calculations.")
  }
  list(checked = checked, any = any_na, use = use)
}

#' GSVA 2's parameter objects: the GSVA, ssGSEA, PLAGE and z-score methods
#'
#' The constructors of GSVA 2's interface, with its arguments and defaults: \code{gsva(gsvaParam(exprData, geneSets))} runs as written and gives GSVA 2's scores, the work on the OpenCL device. \code{exprData}: a matrix, \code{dgCMatrix}, \code{DelayedMatrix}, \code{SummarizedExperiment} or \code{SingleCellExperiment} (\code{assay}: NA is the first); \code{geneSets}: a named list, a \code{GeneSetCollection} or a GMT file's path. As GSVA 2, a \code{dgCMatrix}'s genes whose non-zero values are all equal are left out, and z-score and PLAGE scale its non-zero values only. \code{kcdf = "auto"} chooses as GSVA 2: the direct estimate ("none") from \code{kcdfNoneMinSampleSize} samples on (for a \code{dgCMatrix}: that many non-zero values per gene on average), else Poisson for integer counts, else Gaussian. \code{sparse = TRUE} (the default) on a \code{dgCMatrix} is GSVA 2's sparse algorithm: each gene's CDF from its non-zero values alone, each sample's zeros ranked below its non-zero values (with the Poisson kernel, genes whose estimates agree to the last bits may change places with GSVA 2's, whose R \code{ppois} rounds differently from scipy's). Missing values as GSVA 2 finds them (\code{checkNA}: "auto" checks a matrix, ExpressionSet or SummarizedExperiment) and scores them as GSVA 2 (\code{use}: "all.obs", refused; "everything", in ssGSEA a set with a missing member scores NA in that sample, in GSVA with a kernel a gene with a missing value has no estimate anywhere and a set with such a member scores NA; "na.rm", each gene's estimate from its values, each sample and set over the genes with a value). Where GSVA 2 1.53.31 errs, oclstat does not copy it: its kernel estimate with "everything" reads one value past each gene's (a gene without missing values followed by one missing in the first sample loses its estimates), and with \code{maxDiff = FALSE} and NA scores in a sample it moves the other sets' scores. \code{annotation} as GSVA 2: the argument, else a \code{SummarizedExperiment}'s \code{metadata$annotation}; when it names an annotation package (a GSEABase \code{GeneIdentifierType}'s, or a package name), the gene sets' identifiers are mapped to its type by GSEABase's \code{mapIdentifiers}, the package installed (else GSVA 2's "Please install the annotation package"), and otherwise matched to the row names as they are.
#' @param exprData expression data, genes x samples, gene names as row names.
#' @param geneSets gene sets.
#' @param assay the assay of a SummarizedExperiment or SingleCellExperiment (NA: the first).
#' @param annotation NULL (the container's annotation, if any), an annotation package's name or a GSEABase \code{GeneIdentifierType}: the identifier type the gene sets are mapped to, as GSVA 2.
#' @param minSize,maxSize sets with fewer or more genes of the data are left out.
#' @param kcdf "auto", "Gaussian", "Poisson" or "none".
#' @param kcdfNoneMinSampleSize samples from which "auto" takes the direct estimate.
#' @param tau rank weight of the walk.
#' @param maxDiff the sum of the largest positive and negative excursions (TRUE) or the larger one.
#' @param absRanking with \code{maxDiff}: the positive minus the negative excursion.
#' @param sparse GSVA 2's sparse algorithm for a dgCMatrix (TRUE) or the classical one (FALSE); a dense matrix takes the classical one.
#' @param checkNA,use GSVA 2's handling of missing values: whether to look for them, and what the GSVA and ssGSEA methods do with them (PLAGE and z-score refuse them).
#' @param alpha ssGSEA's rank weight.
#' @param normalize divide the ssGSEA scores by their range.
#' @return A parameter object for \code{gsva()}.
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   sets <- list(up = paste0("g", 1:20), other = paste0("g", 50:90))
#'   gsva(gsvaParam(x, sets), verbose = FALSE)
#'   gsva(ssgseaParam(x, sets), verbose = FALSE)
#' }
#' @export
gsvaParam <- function(exprData, geneSets, assay = NA_character_, annotation = NULL,
                      minSize = 1, maxSize = Inf,
                      kcdf = c("auto", "Gaussian", "Poisson", "none"),
                      kcdfNoneMinSampleSize = 200, tau = 1, maxDiff = TRUE,
                      absRanking = FALSE, sparse = TRUE, checkNA = c("auto", "yes", "no"),
                      use = c("everything", "all.obs", "na.rm")) {
  kcdf <- match.arg(kcdf)
  p <- gsva_method_param("gsvaParam", exprData, geneSets, assay, annotation, minSize, maxSize,
                         list(kcdf = kcdf,
                              kcdfNoneMinSampleSize = as.integer(kcdfNoneMinSampleSize),
                              tau = tau, maxDiff = isTRUE(maxDiff),
                              absRanking = isTRUE(absRanking), sparse = isTRUE(sparse)),
                         match.arg(checkNA), match.arg(use))
}

#' @rdname gsvaParam
#' @export
ssgseaParam <- function(exprData, geneSets, assay = NA_character_, annotation = NULL,
                        minSize = 1, maxSize = Inf, alpha = 0.25, normalize = TRUE,
                        checkNA = c("auto", "yes", "no"),
                        use = c("everything", "all.obs", "na.rm")) {
  gsva_method_param("ssgseaParam", exprData, geneSets, assay, annotation, minSize, maxSize,
                    list(alpha = alpha, normalize = isTRUE(normalize)), match.arg(checkNA),
                    match.arg(use))
}

#' @rdname gsvaParam
#' @export
plageParam <- function(exprData, geneSets, assay = NA_character_, annotation = NULL,
                       minSize = 1, maxSize = Inf) {
  gsva_method_param("plageParam", exprData, geneSets, assay, annotation, minSize, maxSize,
                    list())
}

#' @rdname gsvaParam
#' @export
zscoreParam <- function(exprData, geneSets, assay = NA_character_, annotation = NULL,
                        minSize = 1, maxSize = Inf) {
  gsva_method_param("zscoreParam", exprData, geneSets, assay, annotation, minSize, maxSize,
                    list())
}

#' @method print GsvaMethodParam
#' @noRd
print.GsvaMethodParam <- function(x, ...) {
  m <- expression_matrix(x$exprData, x$assay)
  cat("A ", class(x)[1], " object (oclstat)\n", "expression: ", class(x$exprData)[1],
      " of ", nrow(m), " genes x ", ncol(m), " samples\n", "gene sets: ",
      length(x$geneSets), "\n", sep = "")
  invisible(x)
}

# GSVA 2's kcdf = "auto": the direct estimate from min_size samples on (a dgCMatrix: that
# many non-zero values per gene on average), else Poisson for integers (a dgCMatrix: a
# sample of at most 1000 of its values, all whole and >= 0, drawn by R's generator as GSVA
# 2 draws it), else Gaussian.
auto_kcdf <- function(m, min_size) {
  if (methods::is(m, "dgCMatrix")) {
    if (length(m@x) / nrow(m) >= min_size) return("none")
    sam <- sample(m@x, size = min(1000, length(m@x)), replace = FALSE)
    return(if (any((sam < 0) | (sam != floor(sam)))) "Gaussian" else "Poisson")
  }
  if (ncol(m) >= min_size) return("none")
  if (is.integer(m[1, 1])) "Poisson" else "Gaussian"
}

# The expression without the genes GSVA 2 drops for GSVA, PLAGE and z-score: constant ones
# (missing values aside; a gene with no value stays, as GSVA 2's .filterGenes keeps it), and
# in a dgCMatrix those whose non-zero values are all equal.
drop_constant <- function(m) {
  if (!methods::is(m, "dgCMatrix")) {
    empty <- rowSums(!is.na(m)) == 0
    hi <- suppressWarnings(apply(m, 1, max, na.rm = TRUE))
    lo <- suppressWarnings(apply(m, 1, min, na.rm = TRUE))
    return(m[empty | hi > lo, , drop = FALSE])
  }
  rows <- Matrix::t(m)
  gene <- rep(seq_len(ncol(rows)), diff(rows@p))
  lo <- hi <- rep(NA_real_, ncol(rows))
  if (length(rows@x)) {
    lo[unique(gene)] <- tapply(rows@x, gene, min)
    hi[unique(gene)] <- tapply(rows@x, gene, max)
  }
  keep <- !is.na(lo) & hi > lo
  m[keep, , drop = FALSE]
}

#' Scores of a GSVA 2 parameter object, in the container it holds
#'
#' GSVA 2's \code{gsva(param)}: the method the parameter object names (\code{gsvaParam}, \code{ssgseaParam}, \code{plageParam}, \code{zscoreParam}) on the device. Returns what GSVA 2 returns: for a matrix or \code{dgCMatrix}, the gene sets x samples matrix with attribute \code{geneSets} (each set's genes in the data); for a \code{SummarizedExperiment} or \code{SingleCellExperiment}, one of its class with the scores as assay \code{es}, the samples' \code{colData} and \code{rowData$gs}.
#' @param param a parameter object from \code{gsvaParam()}, \code{ssgseaParam()}, \code{plageParam()} or \code{zscoreParam()}.
#' @param verbose say what was inferred, as GSVA 2 says it: the assay taken, the kernel \code{kcdf = "auto"} chose, the algorithm (sparse or classical) and the genes left out.
#' @param BPPARAM accepted, ignored (the device does the work).
#' @return The scores, as described.
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   es <- gsva(zscoreParam(x, list(up = paste0("g", 1:20))), verbose = FALSE)
#'   attr(es, "geneSets")$up[1:3]
#' }
#' @export
gsva <- function(param, verbose = TRUE, BPPARAM = NULL) {
  if (!inherits(param, "GsvaMethodParam"))
    stop("param must be a parameter object from gsvaParam(), ssgseaParam(), plageParam() or ",
         "zscoreParam() (GSVA 2's interface; GSVA 1's gsva(expr, gset.idx.list, method =) is ",
         "ssgseaGpu(), gsvaGpu(), zscoreGpu() and plageGpu() here)", call. = FALSE)
  method <- class(param)[1]
  a <- param$args
  m <- expression_matrix(param$exprData, param$assay)
  say <- function(...) if (isTRUE(verbose)) message("i ", ...)
  if (methods::is(param$exprData, "SummarizedExperiment"))
    say("assay '", param$assay, "' of the ", class(param$exprData)[1])
  if (method != "ssgseaParam") {
    genes <- nrow(m)
    m <- drop_constant(m)
    if (nrow(m) < genes)
      say(genes - nrow(m), " of ", genes, " genes left out: constant",
          if (methods::is(m, "dgCMatrix")) " non-zero values" else " expression")
  }
  # PLAGE needs two genes a set (a one-gene set's svd is no score per sample)
  min_size <- if (method == "plageParam") max(2, param$minSize) else param$minSize
  # missing values found at construction: GSVA and ssGSEA score them as GSVA 2's use = says
  use <- if (isTRUE(param$na$any)) param$na$use else "all.obs"
  if (method == "ssgseaParam" && use == "all.obs" && a$normalize && anyNA(m))
    stop("Cannot calculate normalizing factor for the enrichment scores in ssGSEA, likely ",
         "due to NA values in the input expression data (GSVA 2's error: checkNA = \"",
         "no\" left them unchecked).", call. = FALSE)
  args <- gsva_args(m, gene_sets_for(param), min_size, param$maxSize, NA,
                    na = use != "all.obs")
  attr(args, "container") <- param$exprData
  if (method == "gsvaParam") {
    kcdf <- if (a$kcdf == "auto") auto_kcdf(m, a$kcdfNoneMinSampleSize) else a$kcdf
    if (a$kcdf == "auto")
      say("kcdf = 'auto' chose '", kcdf, "' (", switch(kcdf,
        none = "the direct estimate: enough samples per gene",
        Poisson = "integer counts", Gaussian = "values that are not whole counts"), ")")
    say(if (methods::is(m, "dgCMatrix") && a$sparse) "GSVA sparse algorithm" else
        "GSVA dense (classical) algorithm")
  }
  extra <- switch(method,
    ssgseaParam = list(tau = as.double(a$alpha), ssgsea.norm = a$normalize, flavor = "gsva",
                       use = use),
    gsvaParam = list(kcdf = kcdf,
                     abs.ranking = a$absRanking, tau = as.double(a$tau), mx.diff = a$maxDiff,
                     tabulated = TRUE, sparse = methods::is(m, "dgCMatrix") && a$sparse,
                     use = use),
    list())
  name <- c(ssgseaParam = "ssgseaGpu", gsvaParam = "gsvaGpu", plageParam = "plageGpu",
            zscoreParam = "zscoreGpu")[[method]]
  run_gsva_method(name, args, extra, gene_sets_attribute = TRUE)
}
