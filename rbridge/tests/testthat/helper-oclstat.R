# Every test compares R with the Python package it calls; without that Python nothing can run.
skip_without_python <- function() {
  if (!oclstat::oclstat_available()) skip("the Python package oclstat is not importable")
}
py <- function() oclstat:::oclstat_module()
py_array <- function(x) oclstat:::from_py_array(x)
