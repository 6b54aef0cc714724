#' Read a GCT or NAME/DESCRIPTION expression file
#'
#' GCT 1.2/1.3, or Broad's tab-separated NAME DESCRIPTION sample... table.
#' @param path the file.
#' @return A numeric matrix, genes x samples, with the descriptions in \code{attr(, "description")}.
#' @export
readGct <- function(path) {
  call_adapter("readGct", list(path = path.expand(path)))
}

#' Read a CLS file
#'
#' Categorical (labels may be class names or 0, 1, ... in the order of the # line) or continuous (#numeric). Broad's selectors work: \code{"data.cls#A_versus_B"}, \code{"data.cls#A_versus_REST"}, \code{"data.cls#PROFILE"}.
#' @param path the file.
#' @return A factor whose first level is the first class of the file (NA for samples a comparison leaves out); for a #numeric file a data.frame with one column per profile.
#' @param comparison NULL, or \code{"A_versus_B"} / \code{"A_versus_REST"}.
#' @param profile NULL, or the profile of a #numeric file.
#' @export
readCls <- function(path, comparison = NULL, profile = NULL) {
  call_adapter("readCls", list(path = path.expand(path), comparison = comparison,
                               profile = profile))
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
#' Broad GSEA's enrichment scores and statistics (nominal p, NES, FDR q-value, FWER) from \code{nperm} permutations of the class labels (or of a continuous phenotype, or of the gene sets).
#' @param expr numeric matrix, genes x samples, gene names as row names.
#' @param labels one class label per sample; class A is the first level of \code{factor(labels)} (a factor's own order, else alphabetical); a named vector is matched to the column names of \code{expr} by name. With a continuous metric (\code{"pearson"}, \code{"cosine"}, \code{"manhattan"}, \code{"euclidean"}): one number per sample.
#' @param geneSets named list of character vectors.
#' @param nperm number of permutations.
#' @param metric NULL (\code{"signal_to_noise"} for classes), or one of \code{"signal_to_noise"}, \code{"t_test"}, \code{"diff_of_classes"}, \code{"ratio_of_classes"}, \code{"log2_ratio_of_classes"}, \code{"abs_signal_to_noise"}, and for a continuous phenotype \code{"pearson"}, \code{"cosine"}, \code{"manhattan"}, \code{"euclidean"}; Broad's and GSEApy's names (\code{"Signal2Noise"}, \code{"tTest"}, \code{"s2n"}, ...) too.
#' @param weight ES weight p.
#' @param minSize smallest set size (genes in the data).
#' @param maxSize largest set size.
#' @param seed an integer or six integers.
#' @param permutation \code{"phenotype"} (permute the labels) or \code{"gene_set"} (random gene sets of each set's size; Broad advises it for fewer than 7 samples per class, with an FDR cut of 5\%).
#' @param classes NULL (the two levels of \code{labels}), \code{c(A, B)}, or Broad's \code{"A_versus_B"} (samples of other classes left out) or \code{"A_versus_REST"} (every other class is B), for labels of more than two classes.
#' @return A data.frame like fgsea's: pathway, pval, padj (BH), ES, NES, size, leadingEdge, plus Broad's FDR and FWER, and nMoreExtreme (the null ES of the set's sign at least as extreme: pval is (nMoreExtreme + 1) / (those of its sign + 1)).
#' @examples
#' if (oclstat_available()) {
#'   expr <- matrix(rnorm(3000), 300, dimnames = list(paste0("G", 1:300), NULL))
#'   gsea(expr, rep(c("a", "b"), each = 5), list(s = paste0("G", 1:20)), nperm = 200,
#'        minSize = 10, seed = 1)
#' }
#' @export
gsea <- function(expr, labels, geneSets, nperm = 1000, metric = NULL, weight = 1,
                 minSize = 15, maxSize = 500, seed = NULL,
                 permutation = c("phenotype", "gene_set"), classes = NULL) {
  permutation <- match.arg(permutation)
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
  continuous <- !is.null(metric) &&
    tolower(metric) %in% c("pearson", "cosine", "manhattan", "euclidean")
  if (continuous) {
    if (!is.numeric(labels))
      stop("labels must be numeric (one value per sample) with metric = \"", metric, "\"",
           call. = FALSE)
    if (!is.null(classes)) stop("classes is for class labels, not a continuous phenotype",
                                call. = FALSE)
    py_labels <- bridge_raw()$labelled(as.list(as.double(labels)),
                                       if (!is.null(names(labels))) as.list(names(labels)) else NULL)
  } else {
    if (is.null(classes)) {
      # class A is the first level of the labels as a factor (a character vector:
      # alphabetical), so that the answer does not depend on the order of the columns
      used <- levels(droplevels(if (is.factor(labels)) labels else factor(labels)))
      if (length(used) != 2)
        stop("labels must have exactly 2 classes, got ", length(used), "; choose two with ",
             "classes = \"A_versus_B\" or \"A_versus_REST\"", call. = FALSE)
      classes <- list(used[1], used[2])
    } else if (!is.character(classes) || !(length(classes) %in% 1:2)) {
      stop("classes must be c(A, B), \"A_versus_B\" or \"A_versus_REST\"", call. = FALSE)
    } else if (length(classes) == 2) {
      classes <- list(classes[1], classes[2])
    }
    py_labels <- to_py_labels(labels)
  }
  if (!is.list(geneSets) || is.null(names(geneSets)) || any(names(geneSets) == ""))
    stop("geneSets must be a named list of character vectors", call. = FALSE)
  sets <- lapply(geneSets, function(g) as.list(as.character(g)))
  call_adapter("gsea", list(expr = to_py_array(expr, "expr"), labels = py_labels,
                            geneSets = reticulate::dict(sets), nperm = py_int(nperm, "nperm"),
                            metric = metric, weight = as.double(weight),
                            minSize = py_int(minSize, "minSize"),
                            maxSize = py_int(maxSize, "maxSize"), seed = py_seed(seed),
                            permutation = permutation, classes = classes))
}
