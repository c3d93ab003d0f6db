// Long-double references for the bandwidth selectors, straight from the formulas (Wand & Jones
// 1995 eq. 3.19 and sec. 4.7), O(n^2) with no tricks, to test the device code against.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace clstat_ref {

using LD = long double;

inline LD phi_r(int r, LD u) {  // phi^(r)(u) = He_r(u) phi(u), r = 4 or 6
  const LD s = u * u, ph = std::exp(-s / 2) / std::sqrt(2 * LD(M_PI));
  return (r == 4 ? (s - 6) * s + 3 : ((s - 15) * s + 45) * s - 15) * ph;
}

inline LD psi_r(const std::vector<double>& x, int r, LD g) {
  const std::size_t n = x.size();
  LD s = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) s += phi_r(r, (LD(x[i]) - x[j]) / g);
  return (LD(n) * phi_r(r, 0) + 2 * s) / (LD(n) * n * std::pow(g, LD(r + 1)));
}

inline LD quantile7(std::vector<double> v, LD p) {
  std::sort(v.begin(), v.end());
  const LD h = (LD(v.size()) - 1) * p;
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  return lo + 1 < v.size() ? v[lo] + (h - lo) * (LD(v[lo + 1]) - v[lo]) : LD(v[lo]);
}

/// The two-stage (or one-stage) direct plug-in bandwidth of one column.
inline LD plugin(const std::vector<double>& x, int stages, bool minim) {
  const LD n = LD(x.size());
  LD mean = 0, ss = 0;
  for (double v : x) mean += v;
  mean /= n;
  for (double v : x) ss += (v - mean) * (v - mean);
  LD s = std::sqrt(ss / (n - 1));
  if (minim) s = std::min(s, (quantile7(x, 0.75L) - quantile7(x, 0.25L)) / LD(1.349));
  const LD rpi = std::sqrt(LD(M_PI));
  LD psi6 = -15 / (16 * rpi * std::pow(s, LD(7)));
  if (stages == 2) {
    const LD psi8 = 105 / (32 * rpi * std::pow(s, LD(9)));
    psi6 = psi_r(x, 6, std::pow(-2 * phi_r(6, 0) / (psi8 * n), LD(1) / 9));
  }
  const LD psi4 = psi_r(x, 4, std::pow(-2 * phi_r(4, 0) / (psi6 * n), LD(1) / 7));
  return std::pow(1 / (2 * rpi * psi4 * n), LD(0.2));
}

/// LSCV(H) for n x d row-major x and d x d row-major symmetric positive definite H.
inline LD lscv(const std::vector<double>& x, std::size_t n, std::size_t d, const std::vector<double>& H) {
  // Cholesky H = L L', then q = |L^-1 u|^2 by forward substitution.
  std::vector<LD> L(d * d, 0);
  LD log_det = 0;
  for (std::size_t i = 0; i < d; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      LD s = H[i * d + j];
      for (std::size_t k = 0; k < j; ++k) s -= L[i * d + k] * L[j * d + k];
      if (i == j) {
        L[i * d + i] = std::sqrt(s);
        log_det += 2 * std::log(L[i * d + i]);
      } else {
        L[i * d + j] = s / L[j * d + j];
      }
    }
  LD s4 = 0, s2 = 0;
  std::vector<LD> v(d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      LD q = 0;
      for (std::size_t a = 0; a < d; ++a) {
        LD t = LD(x[i * d + a]) - x[j * d + a];
        for (std::size_t k = 0; k < a; ++k) t -= L[a * d + k] * v[k];
        v[a] = t / L[a * d + a];
        q += v[a] * v[a];
      }
      s4 += std::exp(-q / 4);
      s2 += std::exp(-q / 2);
    }
  const LD nn = n, dd = d;
  return std::exp(-dd / 2 * std::log(4 * LD(M_PI)) - log_det / 2) *
         (1 / nn + 2 * s4 / (nn * nn) - std::pow(LD(2), dd / 2 + 2) * s2 / (nn * (nn - 1)));
}

}  // namespace clstat_ref
