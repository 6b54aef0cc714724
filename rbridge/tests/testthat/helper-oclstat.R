# Every test compares R with the Python package it calls; without that Python nothing can run.
skip_without_python <- function() {
  if (!oclstat::oclstat_available()) skip("the Python package oclstat is not importable")
}
py <- function() oclstat:::oclstat_module()
py_array <- function(x) oclstat:::from_py_array(x)

# geostatsp's Matérn correlation of the points plus nugget I, in base R (besselK).
matern_v <- function(xy, range, shape, nugget) {
  d <- as.matrix(dist(xy))
  x <- sqrt(8 * shape) * d / range
  ifelse(d > 0, 2^(1 - shape) / gamma(shape) * x^shape * besselK(x, shape), 1) +
    diag(nugget, nrow(xy))
}
