// McCulloch's (1986) quantile estimator. His method, with our own table of the quantile
// functions, extended from his alpha >= 0.6 down to 0.3 (src/stable/mcculloch_table.inc, made by tools/golden/stable_mcculloch_table.cpp from
// clstat::stable::quantile): from the sample's 5, 25, 50, 75 and 95% quantiles,
//   nu_alpha = (q95 - q05) / (q75 - q25) and nu_beta = (q95 + q05 - 2 q50) / (q95 - q05)
// depend on (alpha, beta) only; invert them for (alpha, beta), then
//   scale = (q75 - q25) / nu_c(alpha, beta), loc0 = q50 - scale nu_z(alpha, beta)   (S0).
// McCulloch inverted his table by interpolating alpha and beta over a (nu_alpha, nu_beta) grid;
// here the inversion is exact for the interpolated forward table: nu_beta is increasing in beta
// at fixed alpha, and nu_alpha, along the curve where nu_beta matches, is decreasing in alpha,
// so two nested bisections find the (alpha, beta) whose interpolated functions match.
#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>

#include "clstat/stable_fit.hpp"
#include "stable/fit_internal.hpp"

namespace clstat::stable {
namespace {
#include "stable/mcculloch_table.inc"

constexpr double k_alpha0 = k_mc_alpha0, k_dalpha = 0.05, k_dbeta = 0.05;

// Bilinear interpolation at alpha in [0.3, 2], beta in [0, 1]; nu_alpha and nu_c (positive, and
// nu_alpha growing from 2.4 at alpha = 2 to 553 at 0.3) in their logarithms.
std::array<double, 4> table_at(double alpha, double beta) {
  const double fa = (alpha - k_alpha0) / k_dalpha, fb = beta / k_dbeta;
  const int i = std::clamp(static_cast<int>(fa), 0, k_mc_na - 2), j = std::clamp(static_cast<int>(fb), 0, k_mc_nb - 2);
  const double ta = fa - i, tb = fb - j;
  std::array<double, 4> r{};
  for (int c = 0; c < 4; ++c) {
    const bool lg = c == 0 || c == 2;
    auto at = [&](int a, int b) { return lg ? std::log(k_mc_table[a][b][c]) : k_mc_table[a][b][c]; };
    const double v = (1 - ta) * ((1 - tb) * at(i, j) + tb * at(i, j + 1)) + ta * ((1 - tb) * at(i + 1, j) + tb * at(i + 1, j + 1));
    r[c] = lg ? std::exp(v) : v;
  }
  return r;
}

// The beta in [0, 1] with nu_beta(alpha, beta) = nb (nb >= 0), clamped at 1.
double beta_for(double alpha, double nb) {
  if (table_at(alpha, 1)[1] <= nb) return 1;
  double lo = 0, hi = 1;
  for (int it = 0; it < 60; ++it) {
    const double m = 0.5 * (lo + hi);
    (table_at(alpha, m)[1] < nb ? lo : hi) = m;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::array<double, 4> mcculloch_functions(double alpha, double beta) {
  if (!(alpha >= k_alpha0 && alpha <= 2 && beta >= -1 && beta <= 1))
    throw std::invalid_argument("clstat::stable::mcculloch_functions: needs alpha in [0.3, 2] and beta in [-1, 1]");
  std::array<double, 4> r = table_at(alpha, std::abs(beta));
  if (beta < 0) r[1] = -r[1], r[3] = -r[3];
  return r;
}

namespace fit_detail {

namespace {

// The quantile p of n values from `at` (the i-th smallest, 0-based), McCulloch's convention;
// with `need` set, only the order statistics it would read, appended.
double quantile_at(std::size_t n, double p, const std::function<double(std::size_t)>& at,
                   std::vector<std::size_t>* need) {
  const double nd = static_cast<double>(n);
  const double pos = std::clamp(nd * p + 0.5, 1.0, nd) - 1;  // 0-based
  const std::size_t i = static_cast<std::size_t>(pos);
  const double t = pos - static_cast<double>(i);
  if (need) {
    need->push_back(i);
    if (i + 1 < n) need->push_back(i + 1);
    return 0;
  }
  return i + 1 < n ? (1 - t) * at(i) + t * at(i + 1) : at(i);
}

constexpr double k_quantile_levels[5] = {0.05, 0.25, 0.5, 0.75, 0.95};

}  // namespace

std::vector<std::size_t> sample_quantile_ranks(std::size_t n) {
  std::vector<std::size_t> need;
  for (double p : k_quantile_levels) quantile_at(n, p, {}, &need);
  return need;
}

Quantiles sample_quantiles(std::size_t n, const std::function<double(std::size_t)>& at) {
  double q[5];
  for (int k = 0; k < 5; ++k) q[k] = quantile_at(n, k_quantile_levels[k], at, nullptr);
  return {q[0], q[1], q[2], q[3], q[4]};
}

Quantiles sample_quantiles(const std::vector<double>& s) {
  return sample_quantiles(s.size(), [&](std::size_t i) { return s[i]; });
}

Params mcculloch_scale_loc(const Quantiles& q, double alpha, double beta) {
  const std::array<double, 4> f = mcculloch_functions(std::clamp(alpha, k_alpha0, 2.0), std::clamp(beta, -1.0, 1.0));
  const double scale = (q.q75 - q.q25) / f[2];
  return {alpha, beta, scale, q.q50 - scale * f[3], Param::S0};
}

Params mcculloch(const Quantiles& q) {
  const double na = (q.q95 - q.q05) / (q.q75 - q.q25);
  const double nb_signed = (q.q95 + q.q05 - 2 * q.q50) / (q.q95 - q.q05);
  const double nb = std::abs(nb_signed);
  double alpha;
  if (na >= table_at(k_alpha0, beta_for(k_alpha0, nb))[0]) {
    alpha = k_alpha0;
  } else if (na <= table_at(2, 0)[0]) {
    alpha = 2;
  } else {
    double lo = k_alpha0, hi = 2;  // nu_alpha decreasing in alpha
    for (int it = 0; it < 60; ++it) {
      const double m = 0.5 * (lo + hi);
      (table_at(m, beta_for(m, nb))[0] > na ? lo : hi) = m;
    }
    alpha = 0.5 * (lo + hi);
  }
  // At alpha = 2 beta has no effect (and nu_beta is 0 for every beta): report 0.
  const double beta = alpha >= 2 ? 0.0 : std::copysign(beta_for(alpha, nb), nb_signed);
  return mcculloch_scale_loc(q, alpha, beta);
}

}  // namespace fit_detail
}  // namespace clstat::stable
