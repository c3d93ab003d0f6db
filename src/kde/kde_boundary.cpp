#include "kde/kde_boundary.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kde/kde_plan.hpp"

namespace clstat::kde_detail {
namespace {

using Method = KdeBoundary::Method;
constexpr double k_inf = std::numeric_limits<double>::infinity();
constexpr std::size_t k_max_copies = 81;  // 3^4: both bounds reflected in four dimensions

[[noreturn]] void bad(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

struct Box {
  std::vector<double> lo, hi;
  bool contains(const double* v, std::size_t d, bool open_low) const {
    for (std::size_t k = 0; k < d; ++k)
      if ((open_low ? !(v[k] > lo[k]) : !(v[k] >= lo[k])) || !(v[k] <= hi[k])) return false;
    return true;
  }
};

Box box_of(const char* op, const KdeBoundary& b, std::size_t d) {
  Box box;
  for (const auto* side : {&b.lower, &b.upper})
    if (!side->empty() && side->size() != d)
      bad(op, "boundary: " + std::string(side == &b.lower ? "lower" : "upper") + " has " +
                  std::to_string(side->size()) + " values for d = " + std::to_string(d));
  box.lo = b.lower.empty() ? std::vector<double>(d, -k_inf) : b.lower;
  box.hi = b.upper.empty() ? std::vector<double>(d, k_inf) : b.upper;
  for (std::size_t k = 0; k < d; ++k)
    if (!(box.lo[k] < box.hi[k]) || box.lo[k] == k_inf || box.hi[k] == -k_inf)
      bad(op, "boundary: dimension " + std::to_string(k) + " has lower " + std::to_string(box.lo[k]) +
                  " not below upper " + std::to_string(box.hi[k]));
  return box;
}

// The bandwidth of dimension k of a diagonal bandwidth (reflection and renormalisation).
double diagonal_h(const char* op, const Bandwidth& bw, std::size_t k, const char* method) {
  if (bw.form == Bandwidth::Form::scalar && !bw.values.empty()) return bw.values[0];
  if (bw.form == Bandwidth::Form::per_dimension && k < bw.values.size()) return bw.values[k];
  bad(op, std::string("boundary: ") + method + " needs a diagonal bandwidth (scalar or per_dimension)");
}

std::vector<double> reflected(const char* op, const double* x, std::size_t n, std::size_t d, const Box& box,
                              std::size_t& copies) {
  // Per dimension the images of a value: itself, then mirrored at each finite bound.
  copies = 1;
  for (std::size_t k = 0; k < d; ++k) {
    copies *= 1 + std::isfinite(box.lo[k]) + std::isfinite(box.hi[k]);
    if (copies > k_max_copies)
      bad(op, "boundary: reflection would make more than " + std::to_string(k_max_copies) + " copies of each sample");
  }
  std::vector<double> out;
  out.reserve(n * copies * d);
  std::vector<double> row(d);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t c = 0; c < copies; ++c) {
      std::size_t code = c;
      for (std::size_t k = 0; k < d; ++k) {
        const std::size_t images = 1 + std::isfinite(box.lo[k]) + std::isfinite(box.hi[k]);
        std::size_t which = code % images;
        code /= images;
        const double v = x[j * d + k];
        if (which > 0 && !std::isfinite(box.lo[k])) ++which;  // no lower image: 1 means the upper
        row[k] = which == 0 ? v : which == 1 ? 2 * box.lo[k] - v : 2 * box.hi[k] - v;
      }
      out.insert(out.end(), row.begin(), row.end());
    }
  return out;
}

}  // namespace

std::vector<double> bounded_kde(const Context& ctx, const double* x, std::size_t n, std::size_t d, const double* y,
                                std::size_t m, const KdeOptions& o, bool at_samples, const char* op) {
  const int mid = static_cast<int>(o.boundary.method);
  if (mid < 1 || mid > 3) bad(op, "unknown boundary method id " + std::to_string(mid));
  const Method method = o.boundary.method;
  if (o.leave_one_out) bad(op, "boundary corrections have no leave-one-out form (leave_one_out)");
  if (d == 0 || d > k_max_dim) bad(op, "dimension d = " + std::to_string(d) + " is outside [1, 64]");
  if (!x || n == 0) bad(op, "no samples (n = 0 or a null sample pointer)");
  if (at_samples) y = x, m = n;
  if (!y || m == 0) bad(op, "no evaluation points (m = 0 or a null point pointer)");
  require_finite(op, "samples", x, n, d);
  require_finite(op, "evaluation points", y, m, d);
  const Box box = box_of(op, o.boundary, d);
  const bool log_method = method == Method::log_transform;
  if (log_method)
    for (std::size_t k = 0; k < d; ++k)
      if (box.hi[k] != k_inf) bad(op, "boundary: log_transform takes lower bounds only (upper +inf)");
  for (std::size_t j = 0; j < n; ++j)
    if (!box.contains(x + j * d, d, log_method))
      bad(op, "boundary: sample " + std::to_string(j) + (log_method ? " is not above the lower bounds" : " lies outside the box"));

  // Points outside the box are 0; the rest go to one kde() call.
  std::vector<std::size_t> inside;
  std::vector<double> pts;
  for (std::size_t i = 0; i < m; ++i)
    if (box.contains(y + i * d, d, log_method)) {
      inside.push_back(i);
      pts.insert(pts.end(), y + i * d, y + (i + 1) * d);
    }
  std::vector<double> out(m, o.log_density ? -k_inf : 0.0);
  KdeOptions inner = o;
  inner.boundary = {};
  double scale = 1;                    // multiplies the inner estimate
  std::vector<double> log_jacobian;  // log_transform: per inside point
  std::vector<double> samples;
  const double* xs = x;
  std::size_t ns = n;

  if (method == Method::reflection) {
    for (std::size_t k = 0; k < d; ++k) diagonal_h(op, o.bandwidth, k, "reflection");
    std::size_t copies = 1;
    samples = reflected(op, x, n, d, box, copies);
    xs = samples.data(), ns = n * copies;
    if (!o.weights.empty()) {
      if (o.weights.size() != n) bad(op, "weights has " + std::to_string(o.weights.size()) + " values for " + std::to_string(n) + " samples");
      inner.weights.clear();
      for (double w : o.weights) inner.weights.insert(inner.weights.end(), copies, w);
    }
    scale = static_cast<double>(copies);  // the inner call averages over n * copies rows
  } else if (method == Method::renormalisation) {
    // mass_j = prod_k int_{lo_k}^{hi_k} K_h(s - x_jk) ds = prod_k [Kbar((x - lo) / h) - Kbar((x - hi) / h)],
    // the kernel CDF of a one-sample "data set" at the bound, evaluated at the samples.
    std::vector<double> mass(n, 1.0), col(n);
    for (std::size_t k = 0; k < d; ++k) {
      const double h = diagonal_h(op, o.bandwidth, k, "renormalisation");
      if (!std::isfinite(box.lo[k]) && !std::isfinite(box.hi[k])) continue;
      for (std::size_t j = 0; j < n; ++j) col[j] = x[j * d + k];
      KdeOptions c;
      c.kernel = o.kernel;
      c.precision = o.precision;
      c.bandwidth = Bandwidth::scalar(h);
      const std::vector<double> below = std::isfinite(box.lo[k]) ? kde_cdf(ctx, &box.lo[k], 1, col.data(), n, c)
                                                                  : std::vector<double>(n, 1.0);
      const std::vector<double> above = std::isfinite(box.hi[k]) ? kde_cdf(ctx, &box.hi[k], 1, col.data(), n, c)
                                                                  : std::vector<double>(n, 0.0);
      for (std::size_t j = 0; j < n; ++j) mass[j] *= below[j] - above[j];
    }
    if (!o.weights.empty() && o.weights.size() != n)
      bad(op, "weights has " + std::to_string(o.weights.size()) + " values for " + std::to_string(n) + " samples");
    double wsum = 0, wnew = 0;
    inner.weights.assign(n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const double w = o.weights.empty() ? 1.0 : o.weights[j];
      if (!(mass[j] > 0)) bad(op, "boundary: sample " + std::to_string(j) + "'s kernel has no mass inside the box");
      inner.weights[j] = w / mass[j];
      wsum += w, wnew += inner.weights[j];
    }
    scale = wnew / wsum;
  } else {
    samples.assign(x, x + n * d);
    for (std::size_t k = 0; k < d; ++k)
      if (std::isfinite(box.lo[k]))
        for (std::size_t j = 0; j < n; ++j) samples[j * d + k] = std::log(samples[j * d + k] - box.lo[k]);
    xs = samples.data();
    log_jacobian.assign(inside.size(), 0.0);
    for (std::size_t i = 0; i < inside.size(); ++i)
      for (std::size_t k = 0; k < d; ++k)
        if (std::isfinite(box.lo[k])) {
          double& v = pts[i * d + k];
          log_jacobian[i] += std::log(v - box.lo[k]);
          v = std::log(v - box.lo[k]);
        }
  }
  if (inside.empty()) return out;
  const std::vector<double> f = kde(ctx, xs, ns, d, pts.data(), inside.size(), inner);
  const double log_scale = std::log(scale);
  for (std::size_t i = 0; i < inside.size(); ++i) {
    const double lj = log_jacobian.empty() ? 0.0 : log_jacobian[i];
    out[inside[i]] = o.log_density ? f[i] + log_scale - lj : f[i] * scale / std::exp(lj);
  }
  return out;
}

}  // namespace clstat::kde_detail
