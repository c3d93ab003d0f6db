# Golden values for the LMS/LQS search: MASS::lqs(method = "lqs", quantile = h, nsamp = 3000) on
# two data sets, over R seeds 1..20, so a random search can be compared with MASS's in
# distribution: robustbase's aircraft (n = 23, p = 4, h = 14; its exhaustive optimum too) and a
# regression of n = 2000 on p = 5 normal columns with 30% bad leverage points (x_1 + 8, y - 25).
# Run: Rscript tools/golden/lms_search.R > tests/data/robust/lms_search.txt
suppressMessages({ library(MASS); library(robustbase) })
data(aircraft, package = "robustbase")
set.seed(20261124)
n <- 2000; p <- 5
X <- matrix(rnorm(n * p), n, p)
y <- drop(1 + X %*% c(1, -2, 0.5, 3, -1) + rnorm(n, sd = 0.5))
bad <- 1:(0.3 * n)
X[bad, 1] <- X[bad, 1] + 8
y[bad] <- y[bad] - 25 + rnorm(length(bad))
sets <- list(aircraft = list(X = as.matrix(aircraft[, 1:4]), y = aircraft$Y, h = 14),
             contaminated = list(X = X, y = y, h = floor((n + p + 2) / 2)))
f17 <- function(v) paste(sprintf("%.17g", unname(v)), collapse = " ")
cat("# MASS ", as.character(packageVersion("MASS")), ", R ", R.version$major, ".", R.version$minor,
    "; tools/golden/lms_search.R\n", sep = "")
cat("# 'data <name> <n> <p> <h>' then n lines 'row <y> <x_1..x_p>'; '<name> mass_crit <20 values>' are\n")
cat("# lqs's crit (the h-th smallest squared residual, intercept adjusted) for set.seed(1..20);\n")
cat("# '<name> exact_crit <value>' the exhaustive optimum where it can be enumerated.\n")
for (nm in names(sets)) {
  s <- sets[[nm]]
  cat("data", nm, nrow(s$X), ncol(s$X), s$h, "\n")
  for (i in seq_len(nrow(s$X))) cat("row", f17(s$y[i]), f17(s$X[i, ]), "\n")
  crit <- sapply(1:20, function(seed) {
    set.seed(seed)
    lqs(s$X, s$y, method = "lqs", quantile = s$h, nsamp = 3000)$crit
  })
  cat(nm, "mass_crit", f17(crit), "\n")
  if (choose(nrow(s$X), ncol(s$X) + 1) < 1e6)
    cat(nm, "exact_crit", f17(lqs(s$X, s$y, method = "lqs", quantile = s$h, nsamp = "exact")$crit), "\n")
}
