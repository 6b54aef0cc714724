# The inputs of GSVA 2's pinned scores (gsva2_reference.csv, written by
# tests/data/make_gsva2_reference.py, which sources this file and runs GSVA 2 on them).
gsva2_inputs <- function() {
  set.seed(20261127)
  genes <- paste0("G", 1:300)
  x <- matrix(round(rnorm(300 * 16), 3), 300, dimnames = list(genes, paste0("s", 1:16)))
  x[1:25, 1:8] <- x[1:25, 1:8] + 1.2
  counts <- matrix(rpois(300 * 16, 4), 300, dimnames = dimnames(x))   # integers: Poisson
  wide <- matrix(round(rnorm(300 * 210), 3), 300,
                 dimnames = list(genes, paste0("w", 1:210)))             # 210 samples: none
  sp <- pmax(x, 0)
  sp[sp < 0.3] <- 0
  sp[7, ] <- 0                                                          # expressed nowhere
  sp[8, ] <- 0
  sp[8, 3] <- 1                                                         # one non-zero value
  # sparse counts; no two genes with the same non-zero counts (their Poisson estimates tie,
  # and GSVA 2 orders them by R's ppois rounding)
  spc <- matrix(rpois(300 * 16, 25), 300, dimnames = dimnames(x))
  spc[spc < 25] <- 0
  sets <- list(up = genes[1:25], mixed = genes[20:70], other = genes[150:200],
               small = c("G1", "G7", "G8", "G300", "nope"))
  list(x = x, counts = counts, wide = wide, sparse = sp, sparse_counts = spc, sets = sets)
}

# Each case: a label and the GSVA 2 call, given a package environment `pkg` (GSVA or oclstat)
# whose gsvaParam/ssgseaParam/zscoreParam/plageParam/gsva are used, and the inputs `d`.
gsva2_cases <- function(pkg, d) {
  sp <- Matrix::Matrix(d$sparse, sparse = TRUE)
  run <- function(p) pkg$gsva(p, verbose = FALSE)
  list(
    gsva_auto_gaussian = function() run(pkg$gsvaParam(d$x, d$sets)),
    gsva_auto_poisson = function() run(pkg$gsvaParam(d$counts, d$sets)),
    gsva_auto_none = function() run(pkg$gsvaParam(d$wide, d$sets)),
    gsva_options = function() run(pkg$gsvaParam(d$x, d$sets, tau = 0.5, maxDiff = FALSE,
                                                minSize = 10)),
    gsva_dgc_classical = function() run(pkg$gsvaParam(sp, d$sets, sparse = FALSE,
                                                      kcdf = "Gaussian")),
    gsva_dgc_sparse = function() run(pkg$gsvaParam(sp, d$sets)),
    gsva_dgc_sparse_poisson = function() run(pkg$gsvaParam(
      Matrix::Matrix(d$sparse_counts, sparse = TRUE), d$sets)),
    gsva_dgc_sparse_none = function() run(pkg$gsvaParam(sp, d$sets, kcdf = "none")),
    gsva_dgc_sparse_options = function() run(pkg$gsvaParam(sp, d$sets, tau = 0.5,
                                                           maxDiff = FALSE)),
    gsva_dgc_sparse_abs = function() run(pkg$gsvaParam(sp, d$sets, absRanking = TRUE,
                                                       kcdf = "Gaussian")),
    ssgsea_default = function() run(pkg$ssgseaParam(d$x, d$sets)),
    ssgsea_dgc = function() run(pkg$ssgseaParam(sp, d$sets, alpha = 0.5, normalize = FALSE)),
    zscore_default = function() run(pkg$zscoreParam(d$x, d$sets)),
    zscore_dgc = function() run(pkg$zscoreParam(sp, d$sets)),
    plage_default = function() run(pkg$plageParam(d$x, d$sets, minSize = 2)),
    plage_dgc = function() run(pkg$plageParam(sp, d$sets, minSize = 2)))
}

# A case's scores as rows (case, set, sample, score) and its geneSets attribute's sizes.
gsva2_long <- function(label, es) {
  data.frame(case = label, set = rep(rownames(es), ncol(es)),
             sample = rep(colnames(es), each = nrow(es)), score = as.vector(es),
             size = rep(lengths(attr(es, "geneSets"))[rownames(es)], ncol(es)))
}
