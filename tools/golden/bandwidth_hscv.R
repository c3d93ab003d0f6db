# Golden values for clstat::bandwidth::scv_H: ks::Hscv(x, binned = FALSE) on small generated data
# sets, with its pilots and nstage as named, and the minimiser of the criterion ks minimises
# (its SCV(H), ks:::scv.mat with ks's own pilot G), found to about 1e-10 by repeated tight BFGS
# and Nelder-Mead runs (ks's optim call stops at reltol 1.5e-8 with finite-difference gradients).
# The samse pilot (ks's default at d = 2) needs a pilot H: ks's Hscv takes it from Hpi with
# binned = TRUE even when asked for binned = FALSE; here (and in scv_H) it is the exact one-stage
# SAMSE plug-in, so those sets' 'ref' lines are not ks::Hscv's numbers ('ks_H' shows them).
# Run: Rscript tools/golden/bandwidth_hscv.R > tests/data/bandwidth_hscv.txt
suppressMessages(library(ks))
source("tools/golden/bandwidth_matrix_sets.R")  # gen(), refine()
sets <- list(
  d2ds = list(x = gen(21, 200, 2), nstage = 2, pilot = "dscalar"),
  d3   = list(x = gen(23, 220, 3), nstage = 2, pilot = "dscalar"),
  d3s1 = list(x = gen(24, 200, 3), nstage = 1, pilot = "dscalar"),
  d4   = list(x = gen(25, 150, 4), nstage = 2, pilot = "dscalar"),
  d2   = list(x = gen(26, 180, 2), nstage = 2, pilot = "samse"),
  d3sa = list(x = gen(27, 160, 3), nstage = 1, pilot = "samse")
)
# The exact one-stage SAMSE plug-in of the sphered data (Hscv's pilot H), minimised tightly.
hamise_exact <- function(xs) {
  n <- nrow(xs); d <- ncol(xs)
  psi <- ks:::psifun1(xs, pilot = "samse", binned = FALSE, deriv.order = 0)$psir
  f <- function(v) { L <- invvech(v); H <- L %*% L
    (4 * pi)^(-d / 2) / n / sqrt(det(H)) + 0.25 * drop(psi %*% (vec(H) %x% vec(H))) }
  L <- invvech(refine(vech(ks:::matrix.sqrt(Hns(xs))), f))
  L %*% L
}
cat("# R ", R.version$major, ".", R.version$minor, ", ks ", as.character(packageVersion("ks")),
    "; tools/golden/bandwidth_hscv.R\n", sep = "")
cat("# 'data <name> <n> <d> <x row-major>', 'opt <name> <nstage> <pilot>', then (%.17g) 'ks_H' and\n")
cat("# 'ks_SCV': ks::Hscv(binned = FALSE) and its SCV.star; 'ref_H', 'ref_SCV': the minimiser of the\n")
cat("# criterion with the pilot described above; 'pilot_g': that pilot (sphered units); H row-major\n")
for (nm in names(sets)) {
  s <- sets[[nm]]; x <- s$x; n <- nrow(x); d <- ncol(x)
  r <- Hscv(x, nstage = s$nstage, pilot = s$pilot, binned = FALSE, amise = TRUE)
  xs <- ks:::pre.sphere(x)
  S12 <- ks:::matrix.sqrt(var(x)); Si <- chol2inv(chol(S12))
  if (s$pilot == "dscalar") {
    g <- ks:::gdscalar(x = xs, d = d, r = 0, n = n, verbose = FALSE, nstage = s$nstage, scv = TRUE, binned = FALSE)
  } else {
    g <- ks:::gamse.scv(x.star = xs, d = d, Sigma.star = var(xs), Hamise = hamise_exact(xs), n = n,
                        binned = FALSE, nstage = s$nstage - 1)
  }
  G <- g^2 * diag(d)
  crit <- function(v) { L <- invvech(v); ks:::scv.mat(x = xs, H = L %*% L, G = G, binned = FALSE) }
  v <- refine(vech(ks:::matrix.sqrt(Si %*% r$H %*% Si)), crit)
  L <- invvech(v); Href <- S12 %*% (L %*% L) %*% S12
  cat("data", nm, n, d, sprintf("%.17g", as.vector(t(x))), "\n")
  cat("opt", nm, s$nstage, s$pilot, "\n")
  cat("ks_H", nm, sprintf("%.17g", as.vector(t(r$H))), "\n")
  cat("ks_SCV", nm, sprintf("%.17g", r$SCV.star), "\n")
  cat("ref_H", nm, sprintf("%.17g", as.vector(t(Href))), "\n")
  cat("ref_SCV", nm, sprintf("%.17g", crit(v)), "\n")
  cat("pilot_g", nm, sprintf("%.17g", g), "\n")
}
