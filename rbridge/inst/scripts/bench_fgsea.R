# From R: oclstat's fgsea() and collapsePathways next to fgsea's own (when fgsea is installed), on data
# shaped like fgsea's example (12,000 ranked genes, 1,400 pathways of 15 to 500 genes, ten of
# them planted near the top). Prints the wall time of each whole call (the first oclstat call
# builds the kernels outside the timing) and the ratio; fgsea runs with nproc = 1.
#
#   Rscript bench_fgsea.R [reps]          # default reps = 3 (median)

library(oclstat)
args <- commandArgs(TRUE)
reps <- if (length(args) >= 1) as.integer(args[1]) else 3L
stopifnot(oclstat_available())
set.seed(11)
genes <- paste0("Entrez", 1:12000)
stats <- setNames(sort(stats::rt(12000, df = 4), decreasing = TRUE), genes)
sizes <- pmin(500, pmax(15, round(exp(stats::rnorm(1400, log(40), 0.9)))))
pathways <- lapply(sizes, function(k) sample(genes, k))
names(pathways) <- sprintf("R-HSA-%07d", seq_along(pathways))
for (i in 1:10) pathways[[i]] <- sample(genes[1:600], sizes[i])

timed <- function(f) median(vapply(seq_len(reps), function(i) system.time(f())[["elapsed"]],
                                   numeric(1)))
# oclstat's fgsea(): the same call as fgsea's (the drop-in), its seed from R's generator
set.seed(1)
ours <- oclstat::fgsea(pathways, stats, minSize = 15, maxSize = 500)
top <- ours[order(ours$pval), ]
top <- top[top$padj < 0.01, ]
t_ours <- timed(function() { set.seed(1); oclstat::fgsea(pathways, stats, minSize = 15,
                                                         maxSize = 500) })
t_ours_c <- timed(function() collapsePathways(top, pathways, stats, seed = 1))
peer <- requireNamespace("fgsea", quietly = TRUE)
t_fg <- t_fg_c <- NA_real_
if (peer) {
  res <- fgsea::fgsea(pathways, stats, minSize = 15, maxSize = 500, nproc = 1)
  fg_top <- res[order(res$pval), ]
  fg_top <- fg_top[fg_top$padj < 0.01, ]
  t_fg <- timed(function() suppressWarnings(
    fgsea::fgsea(pathways, stats, minSize = 15, maxSize = 500, nproc = 1)))
  t_fg_c <- timed(function() fgsea::collapsePathways(fg_top, pathways, stats))
}
cpu <- grep("^model name", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)[1]
cat(sprintf("12,000 genes x 1,400 pathways, median of %d, device: %s\nCPU: %s; fgsea %s\n",
            reps, oclstat:::bridge()$device_summary(NULL), sub(".*: ", "", cpu),
            if (peer) as.character(utils::packageVersion("fgsea")) else "not installed"))
cat(oclstat:::bridge()$host_summary(), "\n", sep = "")
cat(sprintf("%-18s %12s %12s %12s\n", "call", "oclstat (s)", "fgsea (s)", "fgsea / oclstat"))
cat(sprintf("%-18s %12.2f %12.2f %12.2f\n", "fgsea", t_ours, t_fg, t_fg / t_ours))
cat(sprintf("%-18s %12.2f %12.2f %12.2f\n", "collapsePathways", t_ours_c, t_fg_c,
            t_fg_c / t_ours_c))
if (!peer) cat("fgsea is not installed: its column is NA\n")
