# clrng's data sets, the same counts as the Python package's oclstat/data/fisher tables
# (written to data/ by tools/r_datasets.R).

#' Congenital anomalies by birth month, US births 2018, as clrng's month
#'
#' Counts of twelve congenital anomalies among the US births of 2018 by birth month, from the CDC's 2018 Natality public use file: the table clrng's and gpuRandom's papers test with the Monte Carlo Fisher test (its p-value is large). The same counts as Python's \code{oclstat.datasets.fisher_table("month")}.
#' @format A data.frame of integer counts, 12 rows (Jan to Dec, September as "Sept", as clrng's) and 12 columns: Ane (anencephaly), Men (meningomyelocele/spina bifida), Cya (cyanotic congenital heart disease), Her (congenital diaphragmatic hernia), Omp (omphalocele), Gas (gastroschisis), Lim (limb reduction defect), Cle (cleft lip with or without cleft palate), Pal (cleft palate alone), Dow (Down syndrome), Chr (suspected chromosomal disorder), Hyp (hypospadias).
#' @source Centers for Disease Control and Prevention (CDC), National Center for Health Statistics, 2018 Natality public use file (public domain).
#' @examples
#' data(month)
#' head(month)
#' if (oclstat_available()) fisher.sim(as.matrix(month), 1e4, seed = 1)$p.value
"month"

#' Congenital anomalies by weekday of birth, US births 2018, as clrng's week
#'
#' The anomalies of \code{month} by weekday of birth (a very small p-value: the Monte Carlo Fisher test needs many resamples). The same counts as Python's \code{oclstat.datasets.fisher_table("weekday")}.
#' @format An integer matrix, 7 rows (Mon to Sun) and the 12 columns of \code{month}.
#' @source Centers for Disease Control and Prevention (CDC), National Center for Health Statistics, 2018 Natality public use file (public domain).
#' @examples
#' data(week)
#' week[, 1:4]
"week"
