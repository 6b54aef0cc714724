#' Read a GCT or NAME/DESCRIPTION expression file
#'
#' GCT 1.2/1.3, or Broad's tab-separated NAME DESCRIPTION sample... table.
#' @param path the file.
#' @return A numeric matrix, genes x samples, with the descriptions in \code{attr(, "description")}.
#' @export
readGct <- function(path) {
  call_adapter("readGct", list(path = path.expand(path)))
}

#' Read a two-class CLS file
#'
#' Labels may be class names or 0/1 in the order of the # line.
#' @param path the file.
#' @return A factor whose first level is the first class of the file.
#' @export
readCls <- function(path) {
  call_adapter("readCls", list(path = path.expand(path)))
}

#' Read a GMT file
#'
#' One gene set per line: name, description, genes.
#' @param path the file.
#' @return A named list of character vectors.
#' @export
readGmt <- function(path) {
  call_adapter("readGmt", list(path = path.expand(path)))
}

#' GSEA with phenotype permutations on the device
#'
#' Broad GSEA's enrichment scores and statistics (nominal p, NES, FDR q-value, FWER) from \code{nperm} permutations of the class labels.
#' @param expr numeric matrix, genes x samples, gene names as row names.
#' @param labels one class label per sample; class A is the first level of \code{factor(labels)} (a factor's own order, else alphabetical); a named vector is matched to the column names of \code{expr} by name.
#' @param geneSets named list of character vectors.
#' @param nperm number of permutations.
#' @param metric "signal_to_noise", "t_test", "diff_of_classes", "ratio_of_classes" or "log2_ratio_of_classes".
#' @param weight ES weight p.
#' @param minSize smallest set size (genes in the data).
#' @param maxSize largest set size.
#' @param seed an integer or six integers.
#' @return A data.frame like fgsea's: pathway, pval, padj (BH), ES, NES, size, leadingEdge, plus Broad's FDR and FWER.
#' @examples
#' if (oclstat_available()) {
#'   expr <- matrix(rnorm(3000), 300, dimnames = list(paste0("G", 1:300), NULL))
#'   gsea(expr, rep(c("a", "b"), each = 5), list(s = paste0("G", 1:20)), nperm = 200,
#'        minSize = 10, seed = 1)
#' }
#' @export
gsea <- function(expr, labels, geneSets, nperm = 1000, metric = "signal_to_noise", weight = 1,
                 minSize = 15, maxSize = 500, seed = NULL) {
  if (is.data.frame(expr)) {
    bad <- names(expr)[!vapply(expr, is.numeric, logical(1))]
    if (length(bad)) stop("expr must be numeric; column(s) ", paste(bad, collapse = ", "),
                          " are not (put gene names in the row names)", call. = FALSE)
    expr <- as.matrix(expr)
  }
  if (!is.matrix(expr) || !is.numeric(expr)) stop("expr must be a numeric matrix, genes x samples",
                                                  call. = FALSE)
  if (is.null(rownames(expr))) stop("expr needs gene names as row names", call. = FALSE)
  if (is.null(names(labels)) && length(labels) != ncol(expr))
    stop("labels has ", length(labels), " values but expr has ", ncol(expr), " samples (columns)",
         call. = FALSE)
  if (anyNA(labels)) stop("labels must not contain NA", call. = FALSE)
  # class A is the first level of the labels as a factor (a character vector: alphabetical),
  # so that the answer does not depend on the order of the columns
  used <- levels(droplevels(if (is.factor(labels)) labels else factor(labels)))
  if (length(used) != 2) stop("labels must have exactly 2 classes, got ", length(used),
                              call. = FALSE)
  classes <- list(used[1], used[2])
  if (!is.list(geneSets) || is.null(names(geneSets)) || any(names(geneSets) == ""))
    stop("geneSets must be a named list of character vectors", call. = FALSE)
  sets <- lapply(geneSets, function(g) as.list(as.character(g)))
  call_adapter("gsea", list(expr = to_py_array(expr, "expr"), labels = to_py_labels(labels),
                            geneSets = reticulate::dict(sets), nperm = py_int(nperm, "nperm"),
                            metric = metric, weight = as.double(weight),
                            minSize = py_int(minSize, "minSize"),
                            maxSize = py_int(maxSize, "maxSize"), seed = py_seed(seed),
                            classes = classes))
}
