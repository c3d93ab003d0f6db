# Golden values for clstat::robust::mcd: robustbase's covMcd on its standard data sets, without
# the small-sample factors (use.correction = FALSE: robustbase replaces the published curves by
# simulated tables at alpha = 0.5 for small n, which clstat does not ship), plus the published
# small-sample curves MCDcnp2 and MCDcnp2.rew at alpha = 0.75, where no table is used.
# Run: Rscript tools/golden/robust_mcd.R > tests/data/robust/mcd_r.txt
suppressMessages(library(robustbase))
data(hbk); data(stackloss); data(wood); data(starsCYG)
sets <- list(hbk = as.matrix(hbk[, 1:3]), stackloss = as.matrix(stackloss),
             wood = as.matrix(wood[, 1:5]), starsCYG = as.matrix(starsCYG))
f <- function(v) paste(sprintf("%.17g", v), collapse = " ")
cat("# R ", R.version$major, ".", R.version$minor, ", robustbase ", as.character(packageVersion("robustbase")),
    "; tools/golden/robust_mcd.R\n", sep = "")
cat("# per set: 'data <name> <n> <p> <row-major values>', then covMcd(x, use.correction = FALSE, nsamp = 'best'\n")
cat("# where C(n, p + 1) <= 5000, else 5000) as 'h', 'crit' (log det of the best h-subset's covariance), 'best'\n")
cat("# (1-based), 'raw_center', 'raw_cov', 'raw_cnp2', 'center', 'cov', 'cnp2', 'weights' (mcd.wt);\n")
cat("# then 'factor <p> <n> <alpha> <MCDcnp2> <MCDcnp2.rew>'\n")
for (nm in names(sets)) {
  x <- sets[[nm]]; n <- nrow(x); p <- ncol(x)
  set.seed(1)
  m <- covMcd(x, use.correction = FALSE, nsamp = if (choose(n, p + 1) <= 5000) "best" else 5000)
  cat("data", nm, n, p, f(t(x)), "\n")
  cat("h", nm, m$quan, "\n")
  cat("crit", nm, f(m$crit), "\n")
  cat("best", nm, f(sort(m$best)), "\n")
  cat("raw_center", nm, f(m$raw.center), "\n")
  cat("raw_cov", nm, f(m$raw.cov), "\n")
  cat("raw_cnp2", nm, f(m$raw.cnp2), "\n")
  cat("center", nm, f(m$center), "\n")
  cat("cov", nm, f(m$cov), "\n")
  cat("cnp2", nm, f(m$cnp2), "\n")
  cat("weights", nm, f(m$mcd.wt), "\n")
}
for (p in 1:6) for (n in c(20, 75, 500)) if (n > 2 * p)
  cat("factor", p, n, 0.75, f(robustbase:::MCDcnp2(p, n, 0.75)), f(robustbase:::MCDcnp2.rew(p, n, 0.75)), "\n")
