# The gpuRandom paper's workflow with library(oclstat): streams, uniform draws, the Monte Carlo
# Fisher test on the month and weekday tables, and Matérn fields on a grid.
library(oclstat)
streams <- createStreams(512, seed = c(12345, 12345, 12345, 12345, 12345, 12345))
u <- runifGpu(c(1000, 100), streams)
streams <- attr(u, "streams")
month <- oclstat:::from_py_array(oclstat:::oclstat_module()$datasets$fisher_table("month"))
weekday <- oclstat:::from_py_array(oclstat:::oclstat_module()$datasets$fisher_table("weekday"))
fm <- fisher.sim(month, B = 1e5, streams = streams)
fw <- fisher.sim(weekday, B = 1e5, seed = 2)
xy <- as.matrix(expand.grid(x = seq(0, 1, length.out = 20), y = seq(0, 1, length.out = 15)))
params <- rbind(c(range = 0.3, shape = 1.5, variance = 1, nugget = 0, anisoRatio = 1,
                  anisoAngleRadians = 0),
                c(0.2, 2.5, 1, 0, 2, pi / 4))
fields <- simulateFields(xy, params, Nsim = 3, seed = 5)
workflow <- list(u = u, month = fm, weekday = fw, fields = fields)
