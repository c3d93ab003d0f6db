// The band around alpha = 1 where the per-point kernels interpolate the S0 law in alpha
// (stable_unit in cl/stable/stable_point.cl says why), shared by the host, which picks the
// kernel's coordinate origin by it, and the kernel, which is built with it.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace clstat::stable {

/// Half-width H of the band: 0 < |alpha - 1| < H is interpolated through alpha = 1, 1 +- H and
/// 1 +- 2H. Nolan's integrals lose about 1e-16 / H at the nodes (1e-13 measured), and the
/// interpolant's own error grows as H^4 |alpha - 1|: at H = 2e-3 it was 2e-10 in the light tail of
/// beta = 1, x = -2 (tools/golden/stable_near_one.py; tests/test_stable.cpp).
constexpr double k_near_one = 1e-3;

inline bool near_one(double alpha) { return alpha != 1 && std::fabs(alpha - 1) < k_near_one; }

/// The kernel's build option for the band.
inline std::string near_one_option() {
  char b[48];
  std::snprintf(b, sizeof b, " -DSTABLE_NEAR_ONE=%.17g", k_near_one);
  return b;
}

/// tan(pi alpha / 2), from alpha - 1 when alpha is in [0.5, 1.5] (exact there), so it keeps its
/// relative precision at the pole: tan(pi alpha / 2) = -1 / tan(pi (alpha - 1) / 2).
inline double tan_pi_alpha_half(double alpha) {
  if (alpha >= 0.5 && alpha <= 1.5) return -1 / std::tan(M_PI * (alpha - 1) / 2);
  return std::tan(M_PI * alpha / 2);
}

}  // namespace clstat::stable
