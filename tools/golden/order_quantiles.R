# Golden values for clstat::order::quantiles: R's quantile(x, p, type = k) for k = 1..9 on small
# committed data sets with ties, negative values and extreme magnitudes.
# Run: Rscript tools/golden/order_quantiles.R > tests/data/order/quantile_r.txt
sets <- list(
  odd37 = c(3.5, -1.25, 7, 7, 0.1, 2, 2, 2, 9.75, -4, 1e-3, 5.5, 6, 6.25, -0.5, 11, 3.5, 8, 1, 0,
            4.4, 4.4, 12.5, -2.2, 3.3, 10, 0.7, 7.7, 2.9, 5, 5, 5, -3, 1.5, 6.6, 8.8, 13),
  even20 = c(0.3, 1.7, 2.2, 2.2, 3.9, 4.1, 5.0, 5.8, 6.6, 7.1, 7.1, 7.1, 8.4, 9.9, 10.5, 11.2, 12.0,
             13.3, 14.8, 20.25),
  wide10 = c(-1e300, -7.5e12, -3, 1e-310, 0, 2.5, 1e13, 3e200, 1e300, 1.5e300),
  one = c(4.25),
  two = c(-1, 3)
)
probs <- c(0, 0.001, 0.1, 0.25, 1/3, 0.5, 2/3, 0.9, 0.999, 1)
cat("# R", R.version$major, ".", R.version$minor, " quantile(x, p, type = k); tools/golden/order_quantiles.R\n", sep = "")
cat("# lines: 'data <name> <n> <values...>' then 'q <name> <type> <p> <value>' (%.17g)\n")
for (nm in names(sets)) {
  x <- sets[[nm]]
  cat("data", nm, length(x), sprintf("%.17g", x), "\n")
  for (k in 1:9) for (p in probs)
    cat("q", nm, k, sprintf("%.17g", p), sprintf("%.17g", unname(quantile(x, p, type = k))), "\n")
}
