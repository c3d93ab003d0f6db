# Golden values for clstat::order::weighted_quantiles on small committed data sets.
# type 1: NumPy's method = "inverted_cdf" with weights, written out in R from NumPy's definition
#         (sort, cumulative weights over their total, the first at or above p; p = 0 takes the
#         first positive one), and for whole-number weights also quantile(rep(x, w), type = 1);
# type 7: Hmisc::wtd.quantile(x, w, p) (type = "quantile", normwt = FALSE), and for whole-number
#         weights also quantile(rep(x, w), type = 7).
# Hmisc's approx() averages tied cumulative weights, so no set has a zero weight here.
# Run: Rscript tools/golden/order_weighted.R > tests/data/order/weighted_r.txt
suppressMessages(library(Hmisc))
sets <- list(
  real37 = list(
    x = c(3.5, -1.25, 7, 7, 0.1, 2, 2, 2, 9.75, -4, 1e-3, 5.5, 6, 6.25, -0.5, 11, 3.5, 8, 1, 0,
          4.4, 4.4, 12.5, -2.2, 3.3, 10, 0.7, 7.7, 2.9, 5, 5, 5, -3, 1.5, 6.6, 8.8, 13),
    w = c(0.37, 1.9, 2.25, 0.05, 3.1, 0.8, 0.61, 1.3, 0.27, 4.4, 0.93, 1.17, 2.05, 0.4, 0.66, 1.01,
          0.09, 2.7, 3.33, 0.5, 1.45, 0.72, 0.18, 2.2, 0.99, 1.6, 0.31, 0.84, 1.23, 0.47, 2.9, 0.11,
          1.77, 0.58, 0.36, 1.08, 0.63)),
  int20 = list(
    x = c(0.3, 1.7, 2.2, 2.2, 3.9, 4.1, 5.0, 5.8, 6.6, 7.1, 7.1, 7.1, 8.4, 9.9, 10.5, 11.2, 12.0,
          13.3, 14.8, 20.25),
    w = c(1, 3, 2, 1, 5, 1, 1, 2, 4, 1, 2, 1, 3, 1, 1, 6, 2, 1, 1, 2)),
  wide8 = list(
    x = c(-1e300, -7.5e12, -3, 1e-310, 0, 2.5, 1e13, 1e300),
    w = c(1e-3, 2.5, 1e3, 0.75, 3, 1e-2, 40, 0.125)),
  one = list(x = c(4.25), w = c(2.5))
)
probs <- c(0, 0.001, 0.1, 0.25, 1/3, 0.5, 2/3, 0.9, 0.999, 1)
inverted_cdf <- function(x, w, p) {
  o <- order(x, method = "radix")
  xs <- x[o]; cdf <- cumsum(w[o]); cdf <- cdf / cdf[length(cdf)]
  cdf[cdf == 0] <- -1
  xs[min(which(cdf >= p)[1], length(xs))]
}
cat("# R", R.version$major, ".", R.version$minor, ", Hmisc ", as.character(packageVersion("Hmisc")),
    "; tools/golden/order_weighted.R\n", sep = "")
cat("# lines: 'data <name> <n> <values...>', 'weights <name> <n> <weights...>', then\n")
cat("# 'q <name> <type> <p> <value>' (%.17g); 'rep' lines hold quantile(rep(x, w), p, type)\n")
for (nm in names(sets)) {
  x <- sets[[nm]]$x; w <- sets[[nm]]$w
  cat("data", nm, length(x), sprintf("%.17g", x), "\n")
  cat("weights", nm, length(w), sprintf("%.17g", w), "\n")
  for (p in probs) {
    cat("q", nm, 1, sprintf("%.17g", p), sprintf("%.17g", inverted_cdf(x, w, p)), "\n")
    cat("q", nm, 7, sprintf("%.17g", p), sprintf("%.17g", unname(wtd.quantile(x, w, p))), "\n")
    if (all(w == round(w))) for (k in c(1, 7))
      cat("rep", nm, k, sprintf("%.17g", p), sprintf("%.17g", unname(quantile(rep(x, w), p, type = k))), "\n")
  }
}
