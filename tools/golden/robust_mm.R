# Golden values for clstat::robust::mm: robustbase's lmrob (MM, its default control: S-estimate
# start by fast-S with 500 subsamples, bisquare chi 1.54764 and psi 4.685061, .vcov.avar1
# standard errors) on robustbase's regression data sets; of 20 seeds, the fit with the smallest
# S-scale (fast-S is a random search: with seed 1 lmrob stops at a worse minimum of hbk's).
# Run: Rscript tools/golden/robust_mm.R > tests/data/robust/mm_r.txt
suppressMessages(library(robustbase))
data(stackloss); data(hbk); data(wood); data(starsCYG); data(coleman); data(aircraft)
sets <- list(
  stackloss = list(d = stackloss, f = stack.loss ~ .),
  hbk = list(d = hbk, f = Y ~ .),
  wood = list(d = wood, f = y ~ .),
  starsCYG = list(d = starsCYG, f = log.light ~ log.Te),
  coleman = list(d = coleman, f = Y ~ .),
  aircraft = list(d = aircraft, f = Y ~ .))
f <- function(v) paste(sprintf("%.17g", v), collapse = " ")
cat("# R ", R.version$major, ".", R.version$minor, ", robustbase ", as.character(packageVersion("robustbase")),
    "; tools/golden/robust_mm.R\n", sep = "")
cat("# per set: 'data <name> <n> <p> <row-major x without ones>', 'y <name> <values>', then lmrob's\n")
cat("# 'coef', 'se' (sqrt(diag(vcov))), 'scale', 'init_coef', 'outliers' (1-based, rweights < 0.1 / n)\n")
for (nm in names(sets)) {
  s <- sets[[nm]]
  fits <- lapply(1:20, function(seed) { set.seed(seed); lmrob(s$f, data = s$d) })
  m <- fits[[which.min(sapply(fits, function(m) m$scale))]]
  X <- model.matrix(m)[, -1, drop = FALSE]
  y <- model.response(model.frame(m))
  cat("data", nm, nrow(X), ncol(X), f(t(X)), "\n")
  cat("y", nm, f(y), "\n")
  cat("coef", nm, f(coef(m)), "\n")
  cat("se", nm, f(sqrt(diag(vcov(m)))), "\n")
  cat("scale", nm, f(m$scale), "\n")
  cat("init_coef", nm, f(m$init$coefficients), "\n")
  cat("outliers", nm, f(which(m$rweights < 0.1 / nrow(X))), "\n")
}
