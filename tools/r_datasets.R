# Writes rbridge/data/month.rda and week.rda (clrng's data sets `month` and `week`) from the
# Python package's tables oclstat/data/fisher/month.csv and weekday.csv, with clrng's names.
#   Rscript tools/r_datasets.R        (from the repository root)
abbrev <- c("Ane", "Men", "Cya", "Her", "Omp", "Gas", "Lim", "Cle", "Pal", "Dow", "Chr", "Hyp")
read_counts <- function(name) {
  x <- utils::read.csv(file.path("oclstat", "data", "fisher", paste0(name, ".csv")),
                       row.names = 1, check.names = FALSE)
  stopifnot(ncol(x) == 12, all(vapply(x, function(v) all(v == round(v)), TRUE)))
  x[] <- lapply(x, as.integer)
  names(x) <- abbrev
  x
}
month <- read_counts("month")
rownames(month)[rownames(month) == "Sep"] <- "Sept"
week <- as.matrix(read_counts("weekday"))
dir.create(file.path("rbridge", "data"), showWarnings = FALSE)
save(month, file = file.path("rbridge", "data", "month.rda"), compress = "xz", version = 2)
save(week, file = file.path("rbridge", "data", "week.rda"), compress = "xz", version = 2)
