# Golden values for clstat::bandwidth::scv_h: ks::hscv(x, binned = FALSE) on small generated samples
# with nstage 1 and 2, and the minimiser of the very criterion hscv minimises (ks:::scv.1d with its
# h-dependent pilot g = C n^(-23/45) h^(-2), Jones, Marron & Park 1991) over hscv's interval
# [0.1, 2] h_NS, by optimise with tol 1e-14: hscv's own optimise call keeps its default tolerance
# (1.2e-4 in h, absolute).
# Run: Rscript tools/golden/bandwidth_scv_1d.R > tests/data/bandwidth_scv_1d.txt
suppressMessages(library(ks))
sets <- list(
  mix200 = { set.seed(5); c(rnorm(150), rnorm(50, 3, 0.5)) },
  skew300 = { set.seed(6); rexp(300) * 4 + 10 },
  norm120 = { set.seed(7); rnorm(120, 100, 15) }
)
# ks::hscv's steps, with the interval search tightened.
hscv_exact <- function(x, nstage) {
  sigma <- sd(x); n <- length(x)
  hnorm <- sqrt((4 / (n * 3))^(2 / 5) * var(x))
  if (nstage == 1) {
    psihat6 <- ks:::psins.1d(r = 6, sigma = sigma); psihat10 <- ks:::psins.1d(r = 10, sigma = sigma)
  } else {
    g1 <- (2 / (7 * n))^(1 / 9) * 2^(1 / 2) * sigma; g2 <- (2 / (11 * n))^(1 / 13) * 2^(1 / 2) * sigma
    psihat6 <- ks:::kfe.1d(x = x, binned = FALSE, deriv.order = 6, g = g1, inc = 1)
    psihat10 <- ks:::kfe.1d(x = x, binned = FALSE, deriv.order = 10, g = g2, inc = 1)
  }
  g3 <- (-6 / ((2 * pi)^(1 / 2) * psihat6 * n))^(1 / 7)
  g4 <- (-210 / ((2 * pi)^(1 / 2) * psihat10 * n))^(1 / 11)
  psihat4 <- ks:::kfe.1d(x = x, binned = FALSE, deriv.order = 4, g = g3, inc = 1)
  psihat8 <- ks:::kfe.1d(x = x, binned = FALSE, deriv.order = 8, g = g4, inc = 1)
  C <- (441 / (64 * pi))^(1 / 18) * (4 * pi)^(-1 / 5) * psihat4^(-2 / 5) * psihat8^(-1 / 9)
  f <- function(h) ks:::scv.1d(x = x, h = h, g = C * n^(-23 / 45) * h^(-2), binned = FALSE, inc = 1)
  o <- optimise(f, interval = c(0.1 * hnorm, 2 * hnorm), tol = 1e-14)
  list(h = o$minimum, scv = o$objective, C = C)
}
cat("# R ", R.version$major, ".", R.version$minor, ", ks ", as.character(packageVersion("ks")),
    "; tools/golden/bandwidth_scv_1d.R\n", sep = "")
cat("# 'data <name> <n> 1 <x>', then per nstage s: 'ks_h<s> <name> <h>' (ks::hscv(binned = FALSE)),\n")
cat("# 'ref_h<s>', 'ref_scv<s>', 'ref_C<s>' (the criterion's minimiser, its value, the pilot constant C)\n")
for (nm in names(sets)) {
  x <- sets[[nm]]
  cat("data", nm, length(x), 1, sprintf("%.17g", x), "\n")
  for (s in 1:2) {
    r <- hscv_exact(x, s)
    cat(paste0("ks_h", s), nm, sprintf("%.17g", hscv(x, nstage = s, binned = FALSE)), "\n")
    cat(paste0("ref_h", s), nm, sprintf("%.17g", r$h), "\n")
    cat(paste0("ref_scv", s), nm, sprintf("%.17g", r$scv), "\n")
    cat(paste0("ref_C", s), nm, sprintf("%.17g", r$C), "\n")
  }
}
