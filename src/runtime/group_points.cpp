// The operations a DeviceGroup splits by their points, draws or rows (clstat/group.hpp): every
// point's value (a draw, a row's statistics) is independent of the others, so each member
// computes a contiguous share, all at once.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <exception>
#include <stdexcept>
#include <thread>
#include <vector>

#include "clstat/group.hpp"
#include "runtime/group_split.hpp"

namespace clstat {
namespace {

// The same for a part(member, first, count) that returns its share's values: each member's
// thread copies them into its slice (a concatenation on this thread, after the members, took
// longer than two GPUs' whole stable pdf of 1e8 points).
template <class R = double, class F>
std::vector<R> split_points(const DeviceGroup& g, std::size_t m, std::size_t width, F&& part) {
  const std::vector<std::size_t> share = g.split(m);
  // One member with every point: its call on this thread, its result as it is.
  if (std::count_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) == 1) {
    const std::size_t i = static_cast<std::size_t>(
        std::find_if(share.begin(), share.end(), [](std::size_t s) { return s > 0; }) - share.begin());
    return part(g.member(i), 0, m);
  }
  return detail::split_into<R>(g, m, width, [&](const Context& c, std::size_t first, std::size_t count, R* dst) {
    const std::vector<R> r = part(c, first, count);
    if (r.size() != count * width) throw std::logic_error("clstat::DeviceGroup: a member returned a share of the wrong size");
    std::copy(r.begin(), r.end(), dst);
  });
}

// pdf, logpdf, cdf or sf split by the points, each member's values read back into its slice of
// out (the caller's, or a new result's).
using StableInto = void (*)(const Context&, const double*, std::size_t, const stable::Params&, double*);
void stable_split(const DeviceGroup& g, const double* x, std::size_t n, const stable::Params& p, double* out,
                  const char* op, StableInto into) {
  if (n == 0) return;
  if (!x) throw std::invalid_argument(std::string(op) + ": null input pointer with n = " + std::to_string(n));
  if (!out) throw std::invalid_argument(std::string(op) + ": null output pointer with n = " + std::to_string(n));
  detail::split_into<double>(g, n, 1, out, [&](const Context& c, std::size_t first, std::size_t count, double* dst) {
    into(c, x + first, count, p, dst);
  });
}
std::vector<double> stable_split(const DeviceGroup& g, const double* x, std::size_t n, const stable::Params& p,
                                 const char* op, StableInto into) {
  if (n == 0) return {};
  if (!x) throw std::invalid_argument(std::string(op) + ": null input pointer with n = " + std::to_string(n));
  std::vector<double> out = detail::host_result<double>(n);
  stable_split(g, x, n, p, out.data(), op, into);
  return out;
}

// The probabilities checked here, so that a bad one is named by its index in the whole array.
void check_probabilities(const double* p, std::size_t n, bool nan_for_invalid, const char* op) {
  if (n > 0 && !p) throw std::invalid_argument(std::string(op) + ": null input");
  if (nan_for_invalid) return;
  for (std::size_t i = 0; i < n; ++i)
    if (!(p[i] >= 0 && p[i] <= 1))
      throw std::invalid_argument(std::string(op) + ": probability " + std::to_string(p[i]) + " at index " +
                                  std::to_string(i) + " is outside [0, 1]");
}

// stable::quantile (upper = false) or isf split by the probabilities.
std::vector<double> quantiles_split(const DeviceGroup& g, const double* p, std::size_t n, const stable::Params& params,
                                    double tol, bool nan_for_invalid, bool upper) {
  check_probabilities(p, n, nan_for_invalid, upper ? "clstat::stable::isf" : "clstat::stable::quantile");
  auto one = [&](const Context& c, const double* at, std::size_t count) {
    return upper ? stable::isf(c, at, count, params, tol, nan_for_invalid)
                 : stable::quantile(c, at, count, params, tol, nan_for_invalid);
  };
  if (n == 0) return one(g.member(0), p, 0);
  return split_points(g, n, 1, [&](const Context& c, std::size_t first, std::size_t count) {
    return one(c, p + first, count);
  });
}

// Rows of a host matrix split across the members, each member's rows handed to f(member, its
// first row, its row count); `width` results a row. Under NanPolicy::raise the NaNs are found
// here first, so that the error names the row's index in the whole matrix.
template <class R, class T, class F>
std::vector<R> split_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols, std::size_t width,
                          const order::Options& o, const char* op, F&& f) {
  if (rows == 0 || cols == 0 || !x || cols > static_cast<std::size_t>(-1) / rows)
    return f(g.member(0), x, rows);  // the single-device call raises as it would
  if constexpr (std::is_floating_point_v<T>)
    if (o.nan == order::NanPolicy::raise)
      for (std::size_t r = 0; r < rows; ++r) {
        std::size_t c = 0;
        for (std::size_t i = 0; i < cols; ++i) c += std::isnan(x[r * cols + i]);
        if (c > 0)
          throw std::invalid_argument(std::string(op) + ": row " + std::to_string(r) + " holds " + std::to_string(c) +
                                      " NaN value" + (c == 1 ? "" : "s") + " (NanPolicy::raise)");
      }
  return split_points<R>(g, rows, width, [&](const Context& c, std::size_t first, std::size_t count) {
    return f(c, x + first * cols, count);
  });
}

}  // namespace

std::vector<double> kde(const DeviceGroup& g, const double* x, std::size_t n, std::size_t d, const double* y,
                        std::size_t m, const KdeOptions& options) {
  // An empty point set or bad input: the single-device call answers (and raises) as it would.
  if (m == 0 || !y || d == 0) return kde(g.member(0), x, n, d, y, m, options);
  return split_points(g, m, 1, [&](const Context& c, std::size_t first, std::size_t count) {
    return kde(c, x, n, d, y + first * d, count, options);
  });
}

std::vector<double> kde_cdf(const DeviceGroup& g, const double* x, std::size_t n, const double* y, std::size_t m,
                            const KdeOptions& options) {
  if (m == 0 || !y) return kde_cdf(g.member(0), x, n, y, m, options);
  return split_points(g, m, 1, [&](const Context& c, std::size_t first, std::size_t count) {
    return kde_cdf(c, x, n, y + first, count, options);
  });
}

namespace stable {
std::vector<double> pdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::pdf", &stable::pdf);
}
void pdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out) {
  stable_split(g, x, n, p, out, "clstat::stable::pdf", &stable::pdf);
}
std::vector<double> logpdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::logpdf", &stable::logpdf);
}
void logpdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out) {
  stable_split(g, x, n, p, out, "clstat::stable::logpdf", &stable::logpdf);
}
std::vector<double> cdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::cdf", &stable::cdf);
}
void cdf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out) {
  stable_split(g, x, n, p, out, "clstat::stable::cdf", &stable::cdf);
}
std::vector<double> sf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p) {
  return stable_split(g, x, n, p, "clstat::stable::sf", &stable::sf);
}
void sf(const DeviceGroup& g, const double* x, std::size_t n, const Params& p, double* out) {
  stable_split(g, x, n, p, out, "clstat::stable::sf", &stable::sf);
}
std::vector<double> quantile(const DeviceGroup& g, const double* p, std::size_t n, const Params& params, double tol,
                             bool nan_for_invalid) {
  return quantiles_split(g, p, n, params, tol, nan_for_invalid, false);
}
std::vector<double> isf(const DeviceGroup& g, const double* q, std::size_t n, const Params& params, double tol,
                        bool nan_for_invalid) {
  return quantiles_split(g, q, n, params, tol, nan_for_invalid, true);
}
std::vector<double> sample(const DeviceGroup& g, std::size_t n, const Params& p, std::uint64_t seed,
                           std::uint64_t first) {
  if (n == 0) return sample(g.member(0), 0, p, seed, first);
  return split_points(g, n, 1, [&](const Context& c, std::size_t at, std::size_t count) {
    return sample(c, count, p, seed, first + at);  // draw j uses counter block j alone
  });
}
}  // namespace stable

namespace order {
template <class T>
std::vector<T> kth_smallest_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols,
                                 const std::vector<std::uint64_t>& ks, const Options& o) {
  return split_rows<T>(g, x, rows, cols, ks.size(), o, "clstat::order::kth_smallest_rows",
                       [&](const Context& c, const T* at, std::size_t r) { return kth_smallest_rows(c, at, r, cols, ks, o); });
}
template <class T>
std::vector<double> median_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols,
                                const Options& o) {
  return split_rows<double>(g, x, rows, cols, 1, o, "clstat::order::median_rows",
                            [&](const Context& c, const T* at, std::size_t r) { return median_rows(c, at, r, cols, o); });
}
template <class T>
std::vector<double> quantiles_rows(const DeviceGroup& g, const T* x, std::size_t rows, std::size_t cols,
                                   const std::vector<double>& probs, int type, const Options& o) {
  return split_rows<double>(g, x, rows, cols, probs.size(), o, "clstat::order::quantiles_rows",
                            [&](const Context& c, const T* at, std::size_t r) {
                              return quantiles_rows(c, at, r, cols, probs, type, o);
                            });
}
#define CLSTAT_INSTANTIATE(T)                                                                                      \
  template CLSTAT_EXPORT std::vector<T> kth_smallest_rows(const DeviceGroup&, const T*, std::size_t, std::size_t, \
                                                          const std::vector<std::uint64_t>&, const Options&);    \
  template CLSTAT_EXPORT std::vector<double> median_rows(const DeviceGroup&, const T*, std::size_t, std::size_t,  \
                                                         const Options&);                                        \
  template CLSTAT_EXPORT std::vector<double> quantiles_rows(const DeviceGroup&, const T*, std::size_t,            \
                                                            std::size_t, const std::vector<double>&, int,         \
                                                            const Options&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE
}  // namespace order

}  // namespace clstat
