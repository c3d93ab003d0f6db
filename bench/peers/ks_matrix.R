# R's ks::Hpi or ks::Hscv timed on the machine clstat-bench runs on (the matrix selectors' peers):
# the data clstat-bench wrote (n x d little-endian doubles, row-major), ks's defaults (binned for n
# above 1000 at d = 3, 4; exact below), best of `repeats` calls. Prints one JSON object:
# {"peer": "ks::FN", "ks_version", "binned", "ks_ms", "H": [...]}. Exit status 3 without ks.
# usage: Rscript ks_matrix.R Hpi|Hscv FILE n d [repeats]
a <- commandArgs(trailingOnly = TRUE)
if (!suppressMessages(requireNamespace("ks", quietly = TRUE))) {
  message("R package ks is not installed (Debian: r-cran-ks)")
  quit(status = 3)
}
fn <- match.arg(a[1], c("Hpi", "Hscv"))
n <- as.integer(a[3]); d <- as.integer(a[4]); reps <- if (length(a) > 4) as.integer(a[5]) else 1L
x <- matrix(readBin(a[2], "double", n * d, size = 8, endian = "little"), n, d, byrow = TRUE)
f <- getExportedValue("ks", fn)
best <- Inf
for (k in seq_len(reps)) {
  t <- system.time(H <- f(x))[["elapsed"]]
  best <- min(best, t)
}
binned <- ks:::default.bflag(d = d, n = n) && d <= 4
cat(sprintf('{"peer": "ks::%s", "ks_version": "%s", "binned": %s, "ks_ms": %.6g, "H": [%s]}\n', fn,
            as.character(packageVersion("ks")), tolower(binned), best * 1e3,
            paste(sprintf("%.17g", as.vector(t(H))), collapse = ", ")))
