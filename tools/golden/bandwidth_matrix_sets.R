# Shared by bandwidth_hpi.R and bandwidth_hscv.R (sourced from the repository root): the generator
# of their data sets and the tight minimiser of a criterion over vech(H^(1/2)).
# gen: n rows of d correlated normals, a second mode along the first axis in a quarter of the rows
# and a skewed stretch in the last column of the next quarter.
gen <- function(seed, n, d) {
  set.seed(seed)
  A <- matrix(runif(d * d, -0.6, 0.6), d, d); diag(A) <- 1 + (1:d) / 4
  x <- matrix(rnorm(n * d), n, d) %*% A
  k <- round(n / 4)
  x[1:k, 1] <- x[1:k, 1] + 3
  x[(k + 1):(2 * k), d] <- rexp(k) * 2
  x
}
# refine: repeated BFGS (reltol 1e-16, finite differences of step 1e-6) and Nelder-Mead from v.
refine <- function(v, f) {
  for (k in 1:4) {
    v <- optim(v, f, method = "BFGS", control = list(reltol = 1e-16, ndeps = rep(1e-6, length(v)), maxit = 2000))$par
    v <- optim(v, f, method = "Nelder-Mead", control = list(reltol = 1e-16, maxit = 40000))$par
  }
  v
}
