# R's ks::Hpi timed on the machine clstat-bench runs on (the plug-in matrix's peer): the data
# clstat-bench wrote (n x d little-endian doubles, row-major), ks's defaults (binned for n above
# 1000 at d = 3, 4; exact below), best of --repeats calls. Prints one JSON object:
# {"peer": "ks::Hpi", "ks_version", "binned", "ks.Hpi_ms", "H": [...]}. Exit status 3 without ks.
# usage: Rscript hpi_ks.R FILE n d [repeats]
a <- commandArgs(trailingOnly = TRUE)
if (!suppressMessages(requireNamespace("ks", quietly = TRUE))) {
  message("R package ks is not installed (Debian: r-cran-ks)")
  quit(status = 3)
}
n <- as.integer(a[2]); d <- as.integer(a[3]); reps <- if (length(a) > 3) as.integer(a[4]) else 1L
x <- matrix(readBin(a[1], "double", n * d, size = 8, endian = "little"), n, d, byrow = TRUE)
best <- Inf
for (k in seq_len(reps)) {
  t <- system.time(H <- ks::Hpi(x))[["elapsed"]]
  best <- min(best, t)
}
binned <- ks:::default.bflag(d = d, n = n) && d <= 4
cat(sprintf('{"peer": "ks::Hpi", "ks_version": "%s", "binned": %s, "ks.Hpi_ms": %.6g, "H": [%s]}\n',
            as.character(packageVersion("ks")), tolower(binned), best * 1e3,
            paste(sprintf("%.17g", as.vector(t(H))), collapse = ", ")))
