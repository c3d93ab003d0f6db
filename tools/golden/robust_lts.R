# Golden values for clstat::robust::lts and ::lms: robustbase::ltsReg and MASS::lqs, each with
# exhaustive enumeration of the p-subsets (nsamp = "exact"), so the reference is the best fit over
# every start and does not depend on R's random stream.
# Run: Rscript tools/golden/robust_lts.R > tests/data/robust/lts_r.txt
suppressMessages({ library(robustbase); library(MASS) })
data(stackloss); data(hbk)
sets <- list(
  stackloss = list(X = as.matrix(stackloss[, 1:3]), y = stackloss$stack.loss),
  hbk = list(X = as.matrix(hbk[, 1:3]), y = hbk$Y)
)
f17 <- function(v) paste(sprintf("%.17g", unname(v)), collapse = " ")
cat("# robustbase ", as.character(packageVersion("robustbase")), ", MASS ", as.character(packageVersion("MASS")),
    ", R ", R.version$major, ".", R.version$minor, "; tools/golden/robust_lts.R\n", sep = "")
cat("# 'data <name> <n> <p>' then n lines 'row <y> <x_1..x_p>'; results as '<case> <key> <values>' (%.17g).\n")
cat("# Coefficients are (intercept, x_1..x_p) or (x_1..x_p); indices are 1-based, as R prints them.\n")
cat("# crit is robustbase's objective, the h-subset's sum of squared residuals divided by\n")
cat("# (median|y - median y| / qnorm(3/4))^2, the squared MAD scale of y that its Fortran divides by.\n")
for (nm in names(sets)) {
  X <- sets[[nm]]$X; y <- sets[[nm]]$y
  cat("data", nm, nrow(X), ncol(X), "\n")
  for (i in seq_len(nrow(X))) cat("row", f17(y[i]), f17(X[i, ]), "\n")
}
lts_case <- function(case, nm, alpha, intercept) {
  X <- sets[[nm]]$X; y <- sets[[nm]]$y
  # ltsReg prints "Computing all ... subsets" to stdout; keep it out of the golden file.
  invisible(capture.output(f <- ltsReg(X, y, intercept = intercept, alpha = alpha, nsamp = "exact", mcd = FALSE)))
  cat(case, "lts", nm, alpha, as.integer(intercept), "\n")
  cat(case, "h", f$quan, "\n")
  cat(case, "best", f$best, "\n")
  cat(case, "raw_coefficients", f17(f$raw.coefficients), "\n")
  cat(case, "coefficients", f17(f$coefficients), "\n")
  cat(case, "raw_scale", f17(f$raw.scale), "\n")
  cat(case, "scale", f17(f$scale), "\n")
  cat(case, "crit", f17(f$crit), "\n")
  cat(case, "raw_cnp2", f17(f$raw.cnp2), "\n")
  cat(case, "cnp2", f17(f$cnp2), "\n")
  cat(case, "raw_outliers", which(f$raw.weights == 0), "\n")
  cat(case, "outliers", which(f$lts.wt == 0), "\n")
}
lts_case("sl50", "stackloss", 0.5, TRUE)
lts_case("sl75", "stackloss", 0.75, TRUE)
lts_case("sl50n", "stackloss", 0.5, FALSE)
lts_case("hbk50", "hbk", 0.5, TRUE)
lts_case("hbk90", "hbk", 0.9, TRUE)
lms_case <- function(case, nm, intercept) {
  X <- sets[[nm]]$X; y <- sets[[nm]]$y
  p <- ncol(X) + intercept; n <- nrow(X)
  h <- (n + p + 1) %/% 2
  f <- suppressWarnings(lqs(X, y, intercept = intercept, method = "lqs", quantile = h, nsamp = "exact"))
  cat(case, "lms", nm, h, as.integer(intercept), "\n")
  cat(case, "crit", f17(f$crit), "\n")
  cat(case, "bestone", f$bestone, "\n")
  cat(case, "coefficients", f17(f$coefficients), "\n")
  cat(case, "scale", f17(f$scale), "\n")
}
lms_case("slms", "stackloss", TRUE)
lms_case("slmsn", "stackloss", FALSE)
