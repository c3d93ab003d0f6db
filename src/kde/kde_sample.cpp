// Draws from a kernel density estimate: pick a sample (by weight), add kernel noise. O(count d^2)
// host work: no pair sum, so nothing for a device to speed up, and drawing on the host with
// Philox4x32-10 makes the draws the same bits on every device and machine.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "clstat/kde.hpp"
#include "kde/kde_plan.hpp"
#include "robust/philox.hpp"

namespace clstat {
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument("clstat::kde_sample: " + what); }

// Uniform on (0, 1): 53 random bits, offset by half a step so neither end is reached.
double uniform(robust::detail::PhiloxStream& s) { return (static_cast<double>(s.below(std::uint64_t{1} << 53)) + 0.5) * 0x1p-53; }

// The integrated bounded kernel on [-1, 1] (as kde_cdf's), for inversion by bisection.
double kbar(Kernel k, double u) {
  const double v = 1 + u;
  switch (k) {
    case Kernel::epanechnikov: return 0.25 * v * v * (3 - v);
    case Kernel::biweight: return 0.0625 * v * v * v * (8 + u * (-9 + 3 * u));
    case Kernel::triweight: return 0.03125 * v * v * v * v * (16 + u * (-29 + u * (20 - 5 * u)));
    case Kernel::triangular: return u <= 0 ? 0.5 * v * v : 1 - 0.5 * (1 - u) * (1 - u);
    case Kernel::uniform: return 0.5 * v;
    case Kernel::cosine: { const double s = std::sin(M_PI * v / 4); return s * s; }
    case Kernel::gaussian: break;
  }
  return 0;
}

// A draw of the standard kernel: Box-Muller for the Gaussian, else the inverse CDF by bisection
// to full double precision (the CDFs are increasing on [-1, 1]).
double kernel_draw(Kernel k, robust::detail::PhiloxStream& s) {
  if (k == Kernel::gaussian) return std::sqrt(-2 * std::log(uniform(s))) * std::cos(2 * M_PI * uniform(s));
  const double p = uniform(s);
  double lo = -1, hi = 1;
  for (int i = 0; i < 60 && hi - lo > 0x1p-52; ++i) {
    const double mid = 0.5 * (lo + hi);
    (kbar(k, mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::vector<double> kde_sample(const Context& ctx, const double* x, std::size_t n, std::size_t d, std::size_t count,
                               std::uint64_t seed, const KdeOptions& o) {
  (void)ctx;
  if (d == 0 || d > kde_detail::k_max_dim) bad("dimension d = " + std::to_string(d) + " is outside [1, 64]");
  if (!x || n == 0) bad("no samples (n = 0 or a null sample pointer)");
  if (count > (std::size_t{1} << 40)) bad("count = " + std::to_string(count) + " is beyond 2^40 draws");
  const int kid = static_cast<int>(o.kernel);
  if (kid < 0 || kid > 6) bad("unknown kernel id " + std::to_string(kid));
  if (o.leave_one_out) bad("leave_one_out has no meaning for draws");
  if (o.boundary.method != KdeBoundary::Method::none) bad("draws from a bounded-support estimate are not offered");
  kde_detail::require_finite("clstat::kde_sample", "samples", x, n, d);
  const bool diagonal = o.bandwidth.form == Bandwidth::Form::scalar || o.bandwidth.form == Bandwidth::Form::per_dimension;
  if (o.kernel != Kernel::gaussian && !diagonal)
    bad("a bounded kernel is drawn as a product: it needs a diagonal bandwidth (scalar or per_dimension)");
  const auto bf = kde_detail::bandwidth_factor("clstat::kde_sample", o.bandwidth, x, n, d);
  // Cumulative weights for the choice of sample.
  std::vector<double> cum;
  if (!o.weights.empty()) {
    if (o.weights.size() != n) bad("weights has " + std::to_string(o.weights.size()) + " values for " + std::to_string(n) + " samples");
    cum.resize(n);
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (!std::isfinite(o.weights[j]) || o.weights[j] < 0) bad("weight " + std::to_string(j) + " is negative or not finite");
      cum[j] = s += o.weights[j];
    }
    if (!(s > 0) || !std::isfinite(s)) bad("weights sum to zero (or overflow)");
  }
  std::vector<double> out(count * d), z(d);
  for (std::size_t i = 0; i < count; ++i) {
    robust::detail::PhiloxStream s(seed, 0x6b6465u, i);  // one stream per draw: any subset is reproducible
    std::size_t j;
    if (cum.empty()) {
      j = static_cast<std::size_t>(s.below(n));
    } else {
      const double t = uniform(s) * cum.back();
      j = std::min<std::size_t>(static_cast<std::size_t>(std::upper_bound(cum.begin(), cum.end(), t) - cum.begin()), n - 1);
      while (o.weights[j] == 0 && j > 0) --j;  // never a zero-weight sample (t rounds onto its edge)
    }
    for (std::size_t k = 0; k < d; ++k) z[k] = kernel_draw(o.kernel, s);
    // y = x_j + L z, L the lower Cholesky factor of H (diagonal h_k for the product kernels).
    for (std::size_t r = 0; r < d; ++r) {
      double e = 0;
      for (std::size_t c = 0; c <= r; ++c) e += bf.L[r * d + c] * z[c];
      out[i * d + r] = x[j * d + r] + e;
    }
  }
  return out;
}

}  // namespace clstat
