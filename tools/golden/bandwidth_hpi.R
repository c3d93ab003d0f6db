# Golden values for clstat::bandwidth::plugin_H: ks::Hpi(x, binned = FALSE) on small generated
# data sets, with its pilots and nstage as named, and the minimiser of the very criterion ks
# minimises (its PI(H), built from ks's own psi_4 estimate), found to about 1e-10 by repeated
# tight BFGS and Nelder-Mead runs: ks's own optim call stops at reltol 1.5e-8 with
# finite-difference gradients, about 1e-4 of the diagonal short of that minimiser.
# Run: Rscript tools/golden/bandwidth_hpi.R > tests/data/bandwidth_hpi.txt
suppressMessages(library(ks))
source("tools/golden/bandwidth_matrix_sets.R")  # gen(), refine()
sets <- list(
  d2      = list(x = gen(11, 200, 2), nstage = 2, pilot = "samse"),
  d2ds    = list(x = gen(11, 200, 2), nstage = 2, pilot = "dscalar"),
  d2s1    = list(x = gen(12, 180, 2), nstage = 1, pilot = "samse"),
  d3      = list(x = gen(13, 250, 3), nstage = 2, pilot = "dscalar"),
  d3sa    = list(x = gen(13, 250, 3), nstage = 2, pilot = "samse"),
  d3s1    = list(x = gen(14, 220, 3), nstage = 1, pilot = "dscalar"),
  d4      = list(x = gen(15, 160, 4), nstage = 2, pilot = "dscalar"),
  d6      = list(x = gen(16, 120, 6), nstage = 2, pilot = "dscalar")
)
# ks 1.14's two-stage SAMSE pilot (gsamse with nstage = 2) looks psi_6 up by a multi-index's place
# in the list of distinct multi-indices, but in the full d^6 vector that kfe returns: it reads
# other entries than it means. 'fix_*' lines redo the set with the lookup in the distinct list.
samse2_fixed <- function(xs) {
  n <- nrow(xs); d <- ncol(xs); S <- var(xs); ns <- asNamespace("ks")
  g6 <- ks:::gsamse(S, n = n, modr = 6)
  p6 <- ks::kfe(x = xs, G = g6^2 * diag(d), deriv.order = 6, deriv.vec = TRUE, binned = FALSE, add.index = TRUE)
  u6 <- ns$dmvnorm.deriv(x = rep(0, d), deriv.order = 6, add.index = TRUE, deriv.vec = FALSE, only.index = TRUE)
  distinct <- sapply(1:nrow(u6), function(i) p6$psir[ns$which.mat(u6[i, ], p6$deriv.ind)[1]])
  g <- ks:::gsamse(S, n = n, modr = 4, nstage = 2, psihat = distinct)
  list(g = g, psi = ks::kfe(x = xs, G = g^2 * diag(d), binned = FALSE, deriv.order = 4, deriv.vec = TRUE,
                            add.index = FALSE))
}
psi4_of <- function(xs, nstage, pilot) {
  n <- nrow(xs); d <- ncol(xs)
  if (pilot == "fixed") return(samse2_fixed(xs))
  if (pilot == "dscalar") {
    g <- ks:::gdscalar(x = xs, r = 0, n = n, d = d, verbose = FALSE, nstage = nstage, binned = FALSE)
    list(g = g, psi = ks::kfe(x = xs, G = g^2 * diag(d), binned = FALSE, deriv.order = 4, deriv.vec = TRUE,
                              add.index = FALSE))
  } else {
    f <- if (nstage == 1) ks:::psifun1 else ks:::psifun2
    list(g = NA, psi = f(xs, pilot = "samse", binned = FALSE, deriv.order = 0)$psir)
  }
}
cat("# R ", R.version$major, ".", R.version$minor, ", ks ", as.character(packageVersion("ks")),
    "; tools/golden/bandwidth_hpi.R\n", sep = "")
cat("# 'data <name> <n> <d> <x row-major>', 'opt <name> <nstage> <pilot>', then (%.17g) 'ks_H' and\n")
cat("# 'ks_PI': ks::Hpi(binned = FALSE) and its PI.star; 'ref_H', 'ref_PI': the criterion's minimiser;\n")
cat("# 'pilot_g': the dscalar pilot of psi_4 (sphered units; samse sets have none); H row-major;\n")
cat("# 'fix_H', 'fix_PI', 'fix_g' (two-stage samse sets): the same with psi_6 looked up as meant\n")
for (nm in names(sets)) {
  s <- sets[[nm]]; x <- s$x; n <- nrow(x); d <- ncol(x)
  r <- Hpi(x, nstage = s$nstage, pilot = s$pilot, binned = FALSE, amise = TRUE)
  xs <- ks:::pre.sphere(x)
  S12 <- ks:::matrix.sqrt(var(x)); Si <- chol2inv(chol(S12))
  minimiser <- function(p) {
    crit <- function(v) { L <- invvech(v); H <- L %*% L
      (4 * pi)^(-d / 2) / n / sqrt(det(H)) + 0.25 * drop(p$psi %*% (vec(H) %x% vec(H))) }
    v <- refine(vech(ks:::matrix.sqrt(Si %*% r$H %*% Si)), crit)
    L <- invvech(v)
    list(H = S12 %*% (L %*% L) %*% S12, PI = crit(v))
  }
  m <- minimiser(psi4_of(xs, s$nstage, s$pilot))
  cat("data", nm, n, d, sprintf("%.17g", as.vector(t(x))), "\n")
  cat("opt", nm, s$nstage, s$pilot, "\n")
  cat("ks_H", nm, sprintf("%.17g", as.vector(t(r$H))), "\n")
  cat("ks_PI", nm, sprintf("%.17g", r$PI.star), "\n")
  cat("ref_H", nm, sprintf("%.17g", as.vector(t(m$H))), "\n")
  cat("ref_PI", nm, sprintf("%.17g", m$PI), "\n")
  p <- psi4_of(xs, s$nstage, s$pilot)
  if (!is.na(p$g)) cat("pilot_g", nm, sprintf("%.17g", p$g), "\n")
  if (s$pilot == "samse" && s$nstage == 2) {
    p <- psi4_of(xs, 2, "fixed")
    f <- minimiser(p)
    cat("fix_H", nm, sprintf("%.17g", as.vector(t(f$H))), "\n")
    cat("fix_PI", nm, sprintf("%.17g", f$PI), "\n")
    cat("fix_g", nm, sprintf("%.17g", p$g), "\n")
  }
}
