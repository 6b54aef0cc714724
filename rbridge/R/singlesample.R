# A package that a container given to oclstat needs (the caller has it if they hold one).
need_package <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE))
    stop(what, " needs the package ", pkg, call. = FALSE)
}

# The matrix of GSVA's `expr` as GSVA 2 reads its containers: a matrix or data.frame; a
# dgCMatrix (sent sparse) or any other Matrix or DelayedMatrix (made a dgCMatrix: sparse,
# never dense); a SummarizedExperiment or SingleCellExperiment: its assay `assay` (NA: the
# first, as GSVA 2).
expression_matrix <- function(expr, assay) {
  if (methods::is(expr, "SummarizedExperiment")) {
    need_package("SummarizedExperiment", "expr (a SummarizedExperiment)")
    have <- SummarizedExperiment::assayNames(expr)
    if (!length(SummarizedExperiment::assays(expr)))
      stop("expr (a ", class(expr)[1], ") has no assay", call. = FALSE)
    if (is.null(assay) || (length(assay) == 1 && is.na(assay))) {
      assay <- 1L
    } else if (!is.character(assay) || length(assay) != 1 || !assay %in% have) {
      stop("assay ", paste(deparse(assay), collapse = ""), " is not an assay of expr (",
           paste(have, collapse = ", "), ")", call. = FALSE)
    }
    expr <- SummarizedExperiment::assay(expr, assay, withDimnames = TRUE)
  }
  if (methods::is(expr, "DelayedMatrix")) expr <- methods::as(expr, "dgCMatrix")
  if (methods::is(expr, "Matrix") && !methods::is(expr, "dgCMatrix"))  # Matrix >= 1.5's way
    expr <- methods::as(methods::as(methods::as(expr, "CsparseMatrix"), "generalMatrix"),
                        "dMatrix")
  if (is.data.frame(expr)) expr <- as.matrix(expr)
  if (!(is.matrix(expr) && is.numeric(expr)) && !methods::is(expr, "dgCMatrix"))
    stop("expr must be a numeric matrix (genes x samples), a dgCMatrix, a DelayedMatrix, ",
         "a SummarizedExperiment or a SingleCellExperiment; got ", class(expr)[1],
         call. = FALSE)
  if (is.null(rownames(expr))) stop("expr needs gene names as row names", call. = FALSE)
  expr
}

# A dgCMatrix for Python: its slots read in place, one copy on the Python side, never dense.
to_py_sparse <- function(x, what = "x") {
  if (anyNA(x@x)) stop(what, " must not contain NA", call. = FALSE)
  bridge_raw()$sparse_from_r(data_address(x@x), data_address(x@i), data_address(x@p),
                             length(x@x), nrow(x), ncol(x), as.list(rownames(x)),
                             if (!is.null(colnames(x))) as.list(colnames(x)))
}

# GSVA's gene sets: a named list, a GSEABase GeneSetCollection, or a GMT file's path.
gene_set_list <- function(gset.idx.list) {
  if (methods::is(gset.idx.list, "GeneSetCollection")) {
    need_package("GSEABase", "gset.idx.list (a GeneSetCollection)")
    gset.idx.list <- GSEABase::geneIds(gset.idx.list)
  } else if (is.character(gset.idx.list) && length(gset.idx.list) == 1 &&
             is.null(names(gset.idx.list))) {
    if (!file.exists(gset.idx.list))
      stop("gset.idx.list: no file ", gset.idx.list, call. = FALSE)
    gset.idx.list <- gmtPathways(gset.idx.list)
  }
  if (!is.list(gset.idx.list) || is.null(names(gset.idx.list)) ||
      any(names(gset.idx.list) == ""))
    stop("gset.idx.list must be a named list of character vectors, a GeneSetCollection or ",
         "a GMT file's path", call. = FALSE)
  lapply(gset.idx.list, as.character)
}

# Checks of GSVA's expression and gene-set arguments, shared by the GSVA methods' functions:
# the arguments for Python, and what wrap_scores() needs to return the caller's container.
gsva_args <- function(expr, gset.idx.list, min.sz, max.sz, assay, na = FALSE) {
  m <- expression_matrix(expr, assay)
  sets <- gene_set_list(gset.idx.list)
  if (!is.numeric(max.sz) || length(max.sz) != 1 || is.na(max.sz))
    stop("max.sz must be one number (Inf: no limit)", call. = FALSE)
  args <- list(expr = if (methods::is(m, "dgCMatrix")) to_py_sparse(m, "expr") else
                 to_py_array(m, "expr", na = na),
               gset.idx.list = reticulate::dict(lapply(sets, as.list)),
               min.sz = py_int(min.sz, "min.sz", minimum = 1),
               max.sz = if (is.infinite(max.sz)) NULL else py_int(max.sz, "max.sz", minimum = 1))
  structure(args, container = expr, sets = sets, genes = rownames(m))
}

# The scores in the container `expr` came in, as GSVA 2 returns them (its wrapData): a
# matrix for a matrix, dgCMatrix or DelayedMatrix (with `gene_sets_attribute`, GSVA 2's
# attribute "geneSets"); for a SummarizedExperiment or SingleCellExperiment one of its class
# with the scores as assay "es", the samples' colData, rowData column "gs" (each set's genes
# found in the data) and the metadata without "annotation".
wrap_scores <- function(scores, args, gene_sets_attribute = FALSE) {
  container <- attr(args, "container")
  genes <- attr(args, "genes")
  gs <- lapply(attr(args, "sets")[rownames(scores)], function(g) intersect(g, genes))
  if (!methods::is(container, "SummarizedExperiment")) {
    if (gene_sets_attribute) attr(scores, "geneSets") <- gs
    return(scores)
  }
  colnames(scores) <- colnames(container)
  meta <- S4Vectors::metadata(container)
  meta$annotation <- NULL
  parts <- list(assays = list(es = scores), colData = SummarizedExperiment::colData(container),
                rowData = S4Vectors::DataFrame(gs = IRanges::CharacterList(gs),
                                               row.names = rownames(scores)),
                metadata = meta)
  if (methods::is(container, "SingleCellExperiment")) {
    need_package("SingleCellExperiment", "expr (a SingleCellExperiment)")
    return(do.call(SingleCellExperiment::SingleCellExperiment, parts))
  }
  do.call(SummarizedExperiment::SummarizedExperiment, parts)
}

# Runs a GSVA method's adapter on gsva_args() and returns its scores in the caller's
# container.
run_gsva_method <- function(name, args, extra = list(), gene_sets_attribute = FALSE) {
  wrap_scores(call_adapter(name, c(unclass(args)[c("expr", "gset.idx.list", "min.sz",
                                                   "max.sz")], extra)), args,
              gene_sets_attribute)
}

#' Single-sample GSEA scores on the device, as GSVA's ssgsea
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "ssgsea")} (Barbie et al. 2009): each sample's genes ranked by expression, each set's running-sum difference summed over the ranking (rank weight \code{tau}), normalised by the range of all scores (\code{ssgsea.norm}). Samples are scored in blocks, so memory stays bounded whatever their number.
#' @param expr genes x samples with gene names as row names: a numeric matrix or data.frame, a dgCMatrix (sent sparse), a DelayedMatrix (read as a dgCMatrix), or a SummarizedExperiment / SingleCellExperiment (its assay \code{assay}).
#' @param gset.idx.list gene sets: a named list of character vectors, a GSEABase GeneSetCollection or a GMT file's path.
#' @param tau rank weight (GSVA's default for ssgsea: 0.25).
#' @param ssgsea.norm divide the scores by the range of all scores.
#' @param flavor "gsva" (GSVA's ranks and ties, default) or "gseapy" (GSEApy's rank normalisation and tie order).
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out.
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @param assay the assay of a SummarizedExperiment or SingleCellExperiment (NA: the first, as GSVA 2).
#' @param use missing values in a dense \code{expr}, as GSVA 2's \code{ssgseaParam(use =)}: refused ("all.obs", the default here, as GSVA 1.46), a set with a missing member scores NA in that sample ("everything"), or each sample and set scored over the genes with a value ("na.rm").
#' @return GSVA's matrix, gene sets x samples; for a SummarizedExperiment or SingleCellExperiment, one of its class as GSVA 2 returns it (assay "es", the samples' colData, rowData column "gs" with each set's genes in the data).
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   ssgseaGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#'   x[3, 2] <- NA
#'   ssgseaGpu(x, list(up = paste0("g", 1:20)), use = "na.rm")
#' }
#' @export
ssgseaGpu <- function(expr, gset.idx.list, tau = 0.25, ssgsea.norm = TRUE,
                      flavor = c("gsva", "gseapy"), min.sz = 1, max.sz = Inf,
                      parallel.sz = 1L, verbose = TRUE, assay = NA_character_,
                      use = c("all.obs", "everything", "na.rm")) {
  flavor <- match.arg(flavor)
  use <- match.arg(use)
  args <- gsva_args(expr, gset.idx.list, min.sz, max.sz, assay, na = use != "all.obs")
  run_gsva_method("ssgseaGpu", args, list(tau = as.double(tau),
                                          ssgsea.norm = isTRUE(ssgsea.norm), flavor = flavor,
                                          use = use))
}

#' Gene set variation analysis on the device, as GSVA
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "gsva")} (Hänzelmann et al. 2013): each gene's kernel CDF estimate at every sample (Gaussian kernel on the device, GSVA's tabulated normal CDF unless \code{tabulated = FALSE}; Poisson kernel for counts; or the empirical CDF), then per sample rank scores and each set's Kolmogorov-Smirnov-like running sum (\code{mx.diff}, \code{abs.ranking}, \code{tau}).
#' @param expr genes x samples with gene names as row names: a numeric matrix or data.frame, a dgCMatrix (sent sparse), a DelayedMatrix (read as a dgCMatrix), or a SummarizedExperiment / SingleCellExperiment (its assay \code{assay}).
#' @param gset.idx.list gene sets: a named list of character vectors, a GSEABase GeneSetCollection or a GMT file's path.
#' @param kcdf "Gaussian" (continuous data), "Poisson" (counts) or "none".
#' @param abs.ranking with \code{mx.diff}: the positive minus the negative excursion.
#' @param tau rank weight of the walk.
#' @param mx.diff the sum of the largest positive and negative excursions (TRUE) or the larger one.
#' @param tabulated read the normal CDF from GSVA's table (as GSVA); FALSE: the exact CDF.
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out.
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @param assay the assay of a SummarizedExperiment or SingleCellExperiment (NA: the first, as GSVA 2).
#' @param sparse GSVA 2's sparse algorithm for a dgCMatrix (each gene's CDF from its non-zero values, zeros ranked below them; \code{gsvaParam(sparse = TRUE)}); a dense matrix takes the classical one.
#' @param use missing values in a dense \code{expr}, as GSVA 2's \code{gsvaParam(use =)}: refused ("all.obs", the default here, as GSVA 1.46); with a kernel a gene with a missing value has no estimate and a set with such a member scores NA in that sample ("everything"); or each gene's estimate from its values, each sample's ranks from its genes with one and each set scored over its members with one ("na.rm").
#' @return GSVA's matrix, gene sets x samples; for a SummarizedExperiment or SingleCellExperiment, one of its class as GSVA 2 returns it (assay "es", the samples' colData, rowData column "gs" with each set's genes in the data).
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   gsvaGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#'   x[3, 2] <- NA
#'   gsvaGpu(x, list(up = paste0("g", 1:20)), use = "na.rm")
#' }
#' @export
gsvaGpu <- function(expr, gset.idx.list, kcdf = c("Gaussian", "Poisson", "none"),
                    abs.ranking = FALSE, tau = 1, mx.diff = TRUE, tabulated = TRUE,
                    min.sz = 1, max.sz = Inf, parallel.sz = 1L, verbose = TRUE,
                    assay = NA_character_, sparse = FALSE,
                    use = c("all.obs", "everything", "na.rm")) {
  kcdf <- match.arg(kcdf)
  use <- match.arg(use)
  args <- gsva_args(expr, gset.idx.list, min.sz, max.sz, assay, na = use != "all.obs")
  run_gsva_method("gsvaGpu", args, list(kcdf = kcdf, abs.ranking = isTRUE(abs.ranking),
                                        tau = as.double(tau), mx.diff = isTRUE(mx.diff),
                                        tabulated = isTRUE(tabulated),
                                        sparse = isTRUE(sparse), use = use))
}

#' The z-score method on gene sets, as GSVA's zscore
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "zscore")} (Lee et al. 2008): each gene standardised over the samples (R's \code{scale}), each set's members summed over the square root of its size. Constant genes are left out, as GSVA does.
#' @param expr genes x samples with gene names as row names: a numeric matrix or data.frame, a dgCMatrix (sent sparse), a DelayedMatrix (read as a dgCMatrix), or a SummarizedExperiment / SingleCellExperiment (its assay \code{assay}).
#' @param gset.idx.list gene sets: a named list of character vectors, a GSEABase GeneSetCollection or a GMT file's path.
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out.
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @param assay the assay of a SummarizedExperiment or SingleCellExperiment (NA: the first, as GSVA 2).
#' @return GSVA's matrix, gene sets x samples; for a SummarizedExperiment or SingleCellExperiment, one of its class as GSVA 2 returns it (assay "es", the samples' colData, rowData column "gs" with each set's genes in the data).
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   zscoreGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#' }
#' @export
zscoreGpu <- function(expr, gset.idx.list, min.sz = 1, max.sz = Inf, parallel.sz = 1L,
                      verbose = TRUE, assay = NA_character_) {
  run_gsva_method("zscoreGpu", gsva_args(expr, gset.idx.list, min.sz, max.sz, assay))
}

#' Pathway level analysis of gene expression (PLAGE), as GSVA's plage
#'
#' GSVA 1.46's \code{gsva(expr, gset.idx.list, method = "plage")} (Tomfohr et al. 2005): each gene standardised over the samples, each set's scores the first right singular vector of its members (in the set's order, with the sign R's \code{svd} gives). Sets need at least two genes.
#' @param expr genes x samples with gene names as row names: a numeric matrix or data.frame, a dgCMatrix (sent sparse), a DelayedMatrix (read as a dgCMatrix), or a SummarizedExperiment / SingleCellExperiment (its assay \code{assay}).
#' @param gset.idx.list gene sets: a named list of character vectors, a GSEABase GeneSetCollection or a GMT file's path.
#' @param min.sz,max.sz sets with fewer or more genes of \code{expr} are left out (\code{min.sz} at least 2).
#' @param parallel.sz,verbose accepted for GSVA's calls (ignored).
#' @param assay the assay of a SummarizedExperiment or SingleCellExperiment (NA: the first, as GSVA 2).
#' @return GSVA's matrix, gene sets x samples; for a SummarizedExperiment or SingleCellExperiment, one of its class as GSVA 2 returns it (assay "es", the samples' colData, rowData column "gs" with each set's genes in the data).
#' @examples
#' if (oclstat_available()) {
#'   x <- matrix(rnorm(2000), 200, dimnames = list(paste0("g", 1:200), paste0("s", 1:10)))
#'   x[1:20, 1:5] <- x[1:20, 1:5] + 2
#'   plageGpu(x, list(up = paste0("g", 1:20), other = paste0("g", 50:90)))
#' }
#' @export
plageGpu <- function(expr, gset.idx.list, min.sz = 2, max.sz = Inf, parallel.sz = 1L,
                     verbose = TRUE, assay = NA_character_) {
  args <- gsva_args(expr, gset.idx.list, min.sz, max.sz, assay)
  if (args$min.sz < 2) stop("min.sz must be at least 2 for plage", call. = FALSE)
  run_gsva_method("plageGpu", args)
}
