library(testthat)
library(oclstat)
test_check("oclstat")
