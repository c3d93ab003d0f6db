// Reference KDE: the textbook double sum in long double, written from the definitions
// (Wand & Jones 1995, eqs. 2.2, 4.1, 4.2) independently of src/kde: its own Cholesky, its own
// kernel constants (the radial ones by quadrature), no whitening shortcuts.
#pragma once

#include <cmath>
#include <stdexcept>
#include <vector>

#include "clstat/kde.hpp"

namespace clstat_ref {

using LD = long double;

struct KdeValue {
  LD value = 0;       // the density (not its log)
  // What rounding the inputs to the device precision alone can change (clstat subtracts the
  // sample mean in double, then rounds each coordinate to within `eps` relative): the first-order
  // change of every term, plus the jump of every discontinuous term that close to its boundary.
  // No computation in that precision can do better, so the tests allow it on top of their bar.
  LD ambiguity = 0;
};

inline LD shape(clstat::Kernel k, LD r) {  // k(r) for r >= 0 (radial) or r = |t| (product)
  using clstat::Kernel;
  switch (k) {
    case Kernel::gaussian: return std::exp(-r * r / 2);
    case Kernel::epanechnikov: return r <= 1 ? 1 - r * r : 0;
    case Kernel::biweight: return r <= 1 ? (1 - r * r) * (1 - r * r) : 0;
    case Kernel::triweight: return r <= 1 ? (1 - r * r) * (1 - r * r) * (1 - r * r) : 0;
    case Kernel::triangular: return r <= 1 ? 1 - r : 0;
    case Kernel::uniform: return r <= 1 ? 1 : 0;
    case Kernel::cosine: return r <= 1 ? std::cos(3.14159265358979323846264338327950288L * r / 2) : 0;
  }
  return 0;
}

/// Integral of k(|v|) over R^d by Simpson's rule in the radius (the d-ball's surface times
/// r^{d-1} k(r)); 1-d constants come out as 1/(3/4), 1/(15/16), ... .
inline LD shape_slope(clstat::Kernel k, LD r) {  // |k'(r)| inside the support
  using clstat::Kernel;
  if (k != Kernel::gaussian && r > 1) return 0;
  switch (k) {
    case Kernel::gaussian: return r * std::exp(-r * r / 2);
    case Kernel::epanechnikov: return 2 * r;
    case Kernel::biweight: return 4 * r * (1 - r * r);
    case Kernel::triweight: return 6 * r * (1 - r * r) * (1 - r * r);
    case Kernel::triangular: return 1;
    case Kernel::uniform: return 0;
    case Kernel::cosine: return 1.57079632679489661923132169163975144L * std::sin(1.57079632679489661923132169163975144L * r);
  }
  return 0;
}

inline LD radial_integral(clstat::Kernel k, std::size_t d) {
  const LD pi = 3.14159265358979323846264338327950288L;
  const LD surface = 2 * std::pow(pi, LD(d) / 2) / std::tgamma(LD(d) / 2);
  const LD R = k == clstat::Kernel::gaussian ? 40 : 1;
  const int N = 200000;
  const LD h = R / N;
  LD s = 0;
  for (int i = 0; i <= N; ++i) {
    const LD r = i * h;
    const LD f = std::pow(r, LD(d) - 1) * shape(k, r);
    s += f * (i == 0 || i == N ? 1 : (i % 2 ? 4 : 2));
  }
  return surface * s * h / 3;
}

// 12-point Gauss-Legendre nodes and weights on [-1, 1], by Newton's method on P_12 in long double.
struct GaussLegendre {
  LD t[12], w[12];
  GaussLegendre() {
    const int N = 12;
    const LD pi = 3.14159265358979323846264338327950288L;
    for (int i = 0; i < N; ++i) {
      LD x = std::cos(pi * (i + 0.75L) / (N + 0.5L)), dp = 0;
      for (int it = 0; it < 100; ++it) {
        LD p0 = 1, p1 = x;
        for (int k = 2; k <= N; ++k) {
          const LD p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
          p0 = p1, p1 = p2;
        }
        dp = N * (x * p1 - p0) / (x * x - 1);
        const LD dx = p1 / dp;
        x -= dx;
        if (std::fabs(dx) < 1e-19L) break;
      }
      t[i] = x, w[i] = 2 / ((1 - x * x) * dp * dp);
    }
  }
  template <class F>
  LD integrate(F f, LD a, LD b) const {
    LD s = 0;
    for (int i = 0; i < 12; ++i) s += w[i] * f((a + b) / 2 + (b - a) / 2 * t[i]);
    return s * (b - a) / 2;
  }
};

// The integrated kernel from -inf (-1) to u, normalised: the Gaussian's by erfc, the bounded
// ones by quadrature of their shapes over pieces free of kinks (the triangular at 0).
inline LD kernel_cdf(clstat::Kernel k, LD u) {
  if (k == clstat::Kernel::gaussian) return std::erfc(-u / std::sqrt(LD(2))) / 2;
  if (u <= -1) return 0;
  if (u >= 1) return 1;
  static const GaussLegendre gl;
  auto f = [k](LD s) { return shape(k, std::fabs(s)); };
  const LD total = gl.integrate(f, -1, 0) + gl.integrate(f, 0, 1);
  const LD part = u <= 0 ? gl.integrate(f, -1, u) : gl.integrate(f, -1, 0) + gl.integrate(f, 0, u);
  return part / total;
}

// The normalised kernel density (for the input-rounding allowance).
inline LD kernel_density(clstat::Kernel k, LD u) {
  static const LD c[] = {0.39894228040143267794L, 0.75L, 0.9375L, 1.09375L, 1, 0.5L, 0.78539816339744830962L};
  return c[static_cast<int>(k)] * shape(k, std::fabs(u));
}

/// f(y_i) for every point (or every sample with at_samples / leave_one_out as in KdeOptions).
/// `eps`: unit roundoff of the device precision (2^-24 for float, 2^-53 for double), for the
/// input-rounding allowance; `centred`: whether the inputs are centred on the sample mean first.
inline std::vector<KdeValue> kde(const std::vector<double>& x, std::size_t n, std::size_t d,
                                 const std::vector<double>& y, std::size_t m, const clstat::KdeOptions& o,
                                 bool at_samples, LD eps, bool centred = true) {
  using Form = clstat::Bandwidth::Form;
  const std::vector<double>& pts = at_samples ? x : y;
  if (at_samples) m = n;
  const bool matrix = o.bandwidth.form == Form::matrix || o.bandwidth.form == Form::scaled_covariance;
  // H (matrix forms): explicit, or h^2 times the (n-1) sample covariance.
  std::vector<LD> H(d * d, 0), L(d * d, 0);
  if (o.bandwidth.form == Form::matrix) {
    for (std::size_t i = 0; i < d * d; ++i) H[i] = o.bandwidth.values[i];
  } else if (o.bandwidth.form == Form::scaled_covariance) {
    std::vector<LD> mu(d, 0);
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t a = 0; a < d; ++a) mu[a] += x[j * d + a];
    for (auto& v : mu) v /= n;
    const LD h2 = LD(o.bandwidth.values[0]) * o.bandwidth.values[0];
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) {
        LD s = 0;
        for (std::size_t j = 0; j < n; ++j) s += (x[j * d + a] - mu[a]) * (x[j * d + b] - mu[b]);
        H[a * d + b] = h2 * s / (n - 1);
      }
  }
  LD log_det_half = 0;
  if (matrix) {  // Cholesky H = L L'
    for (std::size_t i = 0; i < d; ++i)
      for (std::size_t j = 0; j <= i; ++j) {
        LD s = H[i * d + j];
        for (std::size_t k = 0; k < j; ++k) s -= L[i * d + k] * L[j * d + k];
        if (i == j) {
          if (!(s > 0)) throw std::runtime_error("reference: H not positive definite");
          L[i * d + i] = std::sqrt(s);
          log_det_half += std::log(L[i * d + i]);
        } else {
          L[i * d + j] = s / L[j * d + j];
        }
      }
  }
  std::vector<LD> Linv(d * d, 0);  // L^{-1}, for how far input rounding moves v
  if (matrix)
    for (std::size_t c = 0; c < d; ++c)
      for (std::size_t a = c; a < d; ++a) {
        LD s = a == c ? 1 : 0;
        for (std::size_t b = c; b < a; ++b) s -= L[a * d + b] * Linv[b * d + c];
        Linv[a * d + c] = s / L[a * d + a];
      }
  std::vector<LD> centre(d, 0);
  if (centred) {
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t a = 0; a < d; ++a) centre[a] += x[j * d + a];
    for (auto& c : centre) c /= n;
  }
  std::vector<LD> hk(d, 1);
  if (!matrix)
    for (std::size_t a = 0; a < d; ++a)
      hk[a] = o.bandwidth.form == Form::scalar ? o.bandwidth.values[0] : o.bandwidth.values[a];
  const bool discontinuous = o.kernel == clstat::Kernel::uniform;
  const LD c1 = 1 / radial_integral(o.kernel, 1);
  const LD cd = matrix ? 1 / radial_integral(o.kernel, d) : 0;

  std::vector<LD> w(n, LD(1) / n);
  if (!o.weights.empty()) {
    LD s = 0;
    for (double v : o.weights) s += v;
    for (std::size_t j = 0; j < n; ++j) w[j] = o.weights[j] / s;
  }
  std::vector<KdeValue> out(m);
  std::vector<LD> u(d), v(d), e(d);
  for (std::size_t i = 0; i < m; ++i) {
    LD sum = 0, amb = 0, wsum = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (o.leave_one_out && j == i) continue;
      wsum += w[j];
      for (std::size_t a = 0; a < d; ++a) {
        u[a] = LD(pts[i * d + a]) - LD(x[j * d + a]);
        e[a] = 2 * eps * (std::fabs(pts[i * d + a] - centre[a]) + std::fabs(x[j * d + a] - centre[a]));
      }
      LD term, r, slope = 0, dr = 0;
      if (matrix) {  // v = L^{-1} u by forward substitution; term = |H|^{-1/2} c_d k(|v|)
        for (std::size_t a = 0; a < d; ++a) {
          LD s = u[a];
          for (std::size_t b = 0; b < a; ++b) s -= L[a * d + b] * v[b];
          v[a] = s / L[a * d + a];
        }
        LD q = 0;
        for (std::size_t a = 0; a < d; ++a) q += v[a] * v[a];
        r = std::sqrt(q);
        term = cd * shape(o.kernel, r) / std::exp(log_det_half);
        LD dv2 = 0;
        for (std::size_t a = 0; a < d; ++a) {
          LD s = 0;
          for (std::size_t b = 0; b <= a; ++b) s += std::fabs(Linv[a * d + b]) * e[b];
          dv2 += s * s;
        }
        dr = std::sqrt(dv2) + 4 * eps * (r + 1);
        slope = cd * shape_slope(o.kernel, r + dr) / std::exp(log_det_half) * dr;
        slope = std::max(slope, cd * shape_slope(o.kernel, std::max(r - dr, LD(0))) / std::exp(log_det_half) * dr);
      } else {
        term = 1;
        r = 0;
        std::vector<LD> ka(d), sa(d);
        for (std::size_t a = 0; a < d; ++a) {
          const LD t = std::fabs(u[a] / hk[a]), dt = e[a] / hk[a] + 4 * eps * (t + 1);
          ka[a] = c1 * shape(o.kernel, t) / hk[a];
          sa[a] = c1 * std::max(shape_slope(o.kernel, t + dt), shape_slope(o.kernel, std::max(t - dt, LD(0)))) / hk[a] * dt;
          term *= ka[a];
          if (t > r) r = t, dr = dt;
        }
        for (std::size_t a = 0; a < d; ++a) {  // d(prod) = sum_a dk_a prod_{b != a} k_b
          LD p = sa[a];
          for (std::size_t b = 0; b < d; ++b)
            if (b != a) p *= ka[b];
          slope += p;
        }
      }
      sum += w[j] * term;
      amb += w[j] * slope;
      if (discontinuous && std::fabs(r - 1) <= dr) {
        LD jump = w[j] * (matrix ? cd / std::exp(log_det_half) : 1);
        if (!matrix)
          for (std::size_t a = 0; a < d; ++a) jump *= c1 / hk[a];
        amb += jump;
      }
    }
    if (o.leave_one_out) sum /= wsum, amb /= wsum;
    out[i] = {sum, amb};
  }
  return out;
}

}  // namespace clstat_ref
