// Plain long-double evaluation of the grid density of clstat/kde_grid.hpp, for tests:
// f(y) = 1/(n |H|^{1/2} C_d) sum_j k(q_j), q_j = (y - x_j)' H^{-1} (y - x_j), with H^{-1} and |H|
// by Gauss-Jordan elimination in long double. Also returns the first-order effect on f of
// rounding each q_j by a relative 2^-52 (the problem's own conditioning), for tolerances.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace clstat_ref {

struct GridValue {
  long double f = 0;       // the density
  long double cond = 0;    // scale * sum_j |k'(q_j)| q_j: f moves by about cond * (relative error of q)
  long double cond_root = 0;  // scale * sum_j |k'(q_j)| sqrt(q_j): f moves by about cond_root * 2 |A| e
                              // for an absolute error e in the coordinates of y - x_j
  bool edge = false;       // some q_j within 1e-12 of a jump of k (the uniform kernel's boundary,
                           // the Gaussian's cut-off), where any rounding may flip a whole term
};

// The bandwidth matrix the library uses for scaled_covariance(h), in long double.
inline std::vector<long double> scaled_covariance(const std::vector<double>& x, std::size_t n, std::size_t d, double h) {
  std::vector<long double> mean(d, 0), c(d * d, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) mean[k] += x[i * d + k];
  for (auto& m : mean) m /= n;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) c[a * d + b] += (x[i * d + a] - mean[a]) * (x[i * d + b] - mean[b]);
  for (auto& v : c) v = v / (n - 1) * h * h;
  return c;
}

// Point `lin` of the grid (first dimension slowest), computed as the device computes it.
inline std::vector<double> grid_point(const std::vector<double>& lower, const std::vector<double>& upper,
                                      const std::vector<std::size_t>& count, std::size_t lin) {
  const std::size_t d = count.size();
  std::vector<double> y(d);
  for (std::size_t k = d; k-- > 0;) {
    const std::size_t i = lin % count[k];
    lin /= count[k];
    const double step = count[k] > 1 ? (upper[k] - lower[k]) / static_cast<double>(count[k] - 1) : upper[k] - lower[k];
    y[k] = lower[k] + static_cast<double>(i) * step;
  }
  return y;
}

// H^{-1} and |H| of a d x d row-major matrix.
inline void invert(const std::vector<long double>& h, std::size_t d, std::vector<long double>& inv, long double& det) {
  std::vector<long double> a(h);
  inv.assign(d * d, 0);
  for (std::size_t i = 0; i < d; ++i) inv[i * d + i] = 1;
  det = 1;
  for (std::size_t c = 0; c < d; ++c) {
    std::size_t p = c;
    for (std::size_t r = c + 1; r < d; ++r)
      if (std::fabs(a[r * d + c]) > std::fabs(a[p * d + c])) p = r;
    if (p != c) {
      for (std::size_t k = 0; k < d; ++k) {
        std::swap(a[p * d + k], a[c * d + k]);
        std::swap(inv[p * d + k], inv[c * d + k]);
      }
      det = -det;
    }
    const long double piv = a[c * d + c];
    det *= piv;
    for (std::size_t k = 0; k < d; ++k) {
      a[c * d + k] /= piv;
      inv[c * d + k] /= piv;
    }
    for (std::size_t r = 0; r < d; ++r)
      if (r != c) {
        const long double f = a[r * d + c];
        for (std::size_t k = 0; k < d; ++k) {
          a[r * d + k] -= f * a[c * d + k];
          inv[r * d + k] -= f * inv[c * d + k];
        }
      }
  }
}

// kernel: 0 Gaussian (cut off at q <= r2), 1 Epanechnikov, 2 biweight, 3 triweight, 5 uniform.
inline GridValue grid_density(const std::vector<double>& x, std::size_t n, std::size_t d, const double* y,
                              const std::vector<long double>& hinv, long double det, long double cd, int kernel,
                              long double r2) {
  const long double scale = 1.0L / (static_cast<long double>(n) * std::sqrt(det) * cd);
  GridValue g;
  std::vector<long double> v(d);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t k = 0; k < d; ++k) v[k] = static_cast<long double>(y[k]) - static_cast<long double>(x[j * d + k]);
    long double q = 0;
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) q += v[a] * hinv[a * d + b] * v[b];
    if ((kernel == 5 && std::fabs(q - 1) < 1e-12L) || (kernel == 0 && std::fabs(q - r2) < 1e-12L * r2)) g.edge = true;
    if (q > r2) continue;
    long double t = 0, dt = 0;
    switch (kernel) {
      case 0: t = std::exp(-q / 2); dt = t / 2; break;
      case 1: t = 1 - q; dt = 1; break;
      case 2: t = (1 - q) * (1 - q); dt = 2 * (1 - q); break;
      case 3: t = (1 - q) * (1 - q) * (1 - q); dt = 3 * (1 - q) * (1 - q); break;
      default: t = 1; dt = 0; break;
    }
    g.f += t;
    g.cond += dt * q;
    g.cond_root += dt * std::sqrt(q);
  }
  g.f *= scale;
  g.cond *= scale;
  g.cond_root *= scale;
  return g;
}

}  // namespace clstat_ref
