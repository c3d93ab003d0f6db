// Koutrouvelis' (1980, 1981) regression estimator on the empirical characteristic function,
// iterated on the data standardised by the current scale and location, written in S0 (Nolan):
//   log phi(t) = -(g|t|)^a [1 + i b tan(pi a/2) sgn(t) (|g t|^(1-a) - 1)] + i d0 t,
// so for t > 0
//   log(-log|phi(t)|) = a log g + a log t                       (regression 1: a, g),
//   arg phi(t) = d0 t + b tan(pi a/2) ((g t)^a - g t)          (regression 2: d0, b, given a, g).
// In S0 the second regressor stays finite through a = 1 (its limit is -(2/pi) g t log(g t)),
// where Koutrouvelis' S1 form divides by tan(pi a/2). Each round standardises the data by the
// current (scale, loc0), fits both regressions, and maps back exactly (S0 is a location-scale
// family). Evaluation points: t = 0.1, 0.2, ..., 1 on the standardised data, the fixed grid of
// Kogon and Williams (1998), in place of Koutrouvelis' tables of point counts by alpha and n:
// on standardised data |phi| stays within [e^-1, 1) there, so the double logarithm is defined
// for every alpha in [0.1, 2]. The rounds stop when the step is below tol, or when it no longer
// shrinks (see below); `converged` says which.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "stable/fit_internal.hpp"

namespace clstat::stable::fit_detail {
namespace {

// b's regressor: tan(pi a/2) ((g t)^a - g t) = tan(pi a/2) g t expm1((a - 1) log(g t)).
double beta_regressor(double a, double g, double t) {
  const double gt = g * t, l = std::log(gt);
  if (std::abs(a - 1) < 1e-9) return -(2 / M_PI) * gt * l;
  return std::tan(M_PI * a / 2) * gt * std::expm1((a - 1) * l);
}

}  // namespace

Params koutrouvelis(const double* x, std::size_t n, const Params& start, double tol, int max_rounds, int* rounds,
                    bool* converged) {
  constexpr int K = 10;
  double scale = start.scale, loc = start.loc, alpha = start.alpha, beta = start.beta;
  *converged = false;
  *rounds = 0;
  std::vector<double> z(n);
  double last_step = INFINITY;
  for (int r = 0; r < max_rounds; ++r) {
    *rounds = r + 1;
    for (std::size_t i = 0; i < n; ++i) z[i] = (x[i] - loc) / scale;
    Eigen::Matrix<double, K, 2> A1, A2;
    Eigen::Matrix<double, K, 1> y1, y2;
    double re[K], im[K];
    for (int k = 0; k < K; ++k) {
      const double t = 0.1 * (k + 1);
      long double c = 0, s = 0;
      for (std::size_t i = 0; i < n; ++i) c += std::cos(t * z[i]), s += std::sin(t * z[i]);
      re[k] = static_cast<double>(c / n), im[k] = static_cast<double>(s / n);
      const double mod = std::hypot(re[k], im[k]);
      A1(k, 0) = 1, A1(k, 1) = std::log(t);
      y1(k) = std::log(-std::log(std::clamp(mod, 1e-300, 1 - 1e-16)));
    }
    const Eigen::Vector2d c1 = A1.colPivHouseholderQr().solve(y1);
    const double a = std::clamp(c1(1), 0.1, 2.0);
    const double g = std::exp(c1(0) / a);  // intercept = a log g
    for (int k = 0; k < K; ++k) {
      const double t = 0.1 * (k + 1);
      A2(k, 0) = t, A2(k, 1) = beta_regressor(a, g, t);
      y2(k) = std::atan2(im[k], re[k]);
    }
    double d0, b;
    if (a >= 2 - 1e-12 || A2.col(1).norm() < 1e-12 * A2.col(0).norm()) {  // beta has no effect
      d0 = A2.col(0).dot(y2) / A2.col(0).squaredNorm(), b = 0;
    } else {
      const Eigen::Vector2d c2 = A2.colPivHouseholderQr().solve(y2);
      d0 = c2(0), b = std::clamp(c2(1), -1.0, 1.0);
    }
    const double step = std::max({std::abs(a - alpha), std::abs(b - beta), std::abs(std::log(g)), std::abs(d0)});
    alpha = a, beta = b;
    loc += scale * d0;
    scale *= g;
    if (!(std::isfinite(loc) && std::isfinite(scale) && scale > 0)) break;
    if (step < tol) {
      *converged = true;
      break;
    }
    // With heavy tails the empirical characteristic function moves with the standardisation by
    // about the estimator's own sampling error, so the map stops contracting at that level (at
    // alpha = 0.5, n = 1000, the steps wander between 1e-2 and 5e-2): stop there, unconverged.
    if (r >= 2 && step >= last_step) break;
    last_step = step;
  }
  return {alpha, beta, scale, loc, Param::S0};
}

}  // namespace clstat::stable::fit_detail
