# Golden values for LSCV_h on data whose LSCV minimum lies far from the normal reference:
# ks::hlscv(binned = FALSE) on a lognormal sample, a claw-like mixture with sharp modes and a
# Student t(2) sample (n = 800 each, R's own seed), and the LSCV objective at ks's bandwidth,
# summed exactly in R:
#   LSCV(h) = (4 pi)^(-1/2) / h [1/n + (2/n^2) S(1/4) - 2^(5/2) / (n (n - 1)) S(1/2)],
#   S(c) = sum_(i<j) exp(-c (x_i - x_j)^2 / h^2)   (Wand & Jones sec. 3.3, Gaussian kernel).
# Run: Rscript tools/golden/lscv_search.R > tests/data/bandwidth_lscv_search.txt
suppressMessages(library(ks))
set.seed(20261124)
claw <- function(n) {
  k <- sample(0:5, n, replace = TRUE, prob = c(0.5, rep(0.1, 5)))
  ifelse(k == 0, rnorm(n), rnorm(n, (k - 1) / 2 - 1, 0.1))
}
sets <- list(lognormal = rlnorm(800), claw = claw(800), t2 = rt(800, df = 2))
lscv <- function(x, h) {
  n <- length(x)
  d2 <- as.vector(dist(x))^2 / h^2
  (4 * pi)^(-1 / 2) / h * (1 / n + 2 / n^2 * sum(exp(-d2 / 4)) - 2^(5 / 2) / (n * (n - 1)) * sum(exp(-d2 / 2)))
}
f17 <- function(v) paste(sprintf("%.17g", unname(v)), collapse = " ")
cat("# ks ", as.character(packageVersion("ks")), ", R ", R.version$major, ".", R.version$minor,
    "; tools/golden/lscv_search.R\n", sep = "")
cat("# 'data <name> <n>' then n lines 'x <value>'; then '<name> hlscv <h>' and '<name> lscv_at_hlscv <LSCV(h)>'\n")
for (nm in names(sets)) {
  x <- sets[[nm]]
  stopifnot(length(unique(x)) == length(x))
  cat("data", nm, length(x), "\n")
  for (v in x) cat("x", f17(v), "\n")
  h <- hlscv(x, binned = FALSE)
  cat(nm, "hlscv", f17(h), "\n")
  cat(nm, "lscv_at_hlscv", f17(lscv(x, h)), "\n")
}
