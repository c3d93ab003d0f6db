// The public weighted quantiles: each probability's targets from the integer total of the
// weights (order/weighted_select.hpp), in exact arithmetic where they compare with the data's
// cumulative weights, and the combination of the values found.
// Boost's cpp_int trips GCC 12's -Wmaybe-uninitialized inside its own small-value storage.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/multiprecision/cpp_int.hpp>
#pragma GCC diagnostic pop
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "clstat/order.hpp"
#include "order/run.hpp"
#include "order/weighted_select.hpp"
#include "runtime/lease.hpp"

namespace clstat::order {

namespace {
using namespace detail;
using Int = boost::multiprecision::cpp_int;
using Rat = boost::multiprecision::cpp_rational;

Int to_int(u128 v) {
  Int r = static_cast<std::uint64_t>(v >> 64);
  r <<= 64;
  return r + static_cast<std::uint64_t>(v);
}

u128 to_u128(const Int& v) {
  const Int hi = v >> 64;
  const Int lo = v - (hi << 64);
  return (static_cast<u128>(hi.convert_to<std::uint64_t>()) << 64) | lo.convert_to<std::uint64_t>();
}

Int floor_of(const Rat& r) { return numerator(r) / denominator(r); }  // r >= 0
Int ceil_of(const Rat& r) {
  Int f = floor_of(r);
  return Rat(f) == r ? f : f + 1;
}

// 2^s as a rational (s may be negative).
Rat pow2(int s) { return s >= 0 ? Rat(Int(1) << s) : Rat(Int(1), Int(1) << -s); }

// The target in q units for a position t in weight units (t W'/W of the total), kept in 1..Q.
u128 target_of(const Rat& t, int s, const Int& Q) {
  Int T = ceil_of(t * pow2(s));
  if (T < 1) T = 1;
  if (T > Q) T = Q;
  return to_u128(T);
}

struct Rule {
  double frac = 0;  // type 7: the weight of the upper value
};

void check_weighted(const std::vector<double>& probs, int type, const Options& o, const std::string& op) {
  check_policy(o, op);
  if (type != 1 && type != 7)
    throw std::invalid_argument(op + ": type " + std::to_string(type) + " is not 1 (inverted CDF) or 7 (linear)");
  if (o.method != Method::automatic && o.method != Method::radix)
    throw std::invalid_argument(op + ": weighted quantiles are selected by radix (Options::method automatic or radix)");
  for (double p : probs)
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument(op + ": probability " + std::to_string(p) + " is outside [0, 1]");
}

// The device-buffer forms' checks: x as every order statistic's, and w covering the same range.
template <class T>
void check_buffers(const Buffer<T>& x, const Buffer<double>& w, std::size_t offset, std::size_t n, const Options& o,
                   const std::string& op) {
  check_input(op, x, offset, n, o);
  if (offset > w.size() || n > w.size() - offset)
    throw std::invalid_argument(op + ": weights [" + std::to_string(offset) + ", " + std::to_string(offset + n) +
                                ") run past the buffer's " + std::to_string(w.size()));
}

template <class T>
std::vector<double> weighted_on(const Queue& q, const Buffer<T>& x, const Buffer<double>& w, std::size_t offset,
                                std::size_t n, const std::vector<double>& probs, int type, const Options& o,
                                const std::string& op) {
  check_buffers(x, w, offset, n, o, op);
  if (probs.empty()) return {};
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::named(q);
  std::vector<Rule> rules(probs.size());
  const WeightedTargets targets = [&](u128 total, int s) {
    const Int Q = to_int(total);
    std::vector<u128> t;
    for (std::size_t i = 0; i < probs.size(); ++i) {
      const double p = probs[i];
      if (type == 1) {
        // The smallest C with C / Q rounded to double >= p: C / Q above the midpoint m between p
        // and the double below it, or at m when that rounds up to p (p's last bit even).
        if (p == 0) {
          t.push_back(1);
          continue;
        }
        const Rat m = (Rat(p) + Rat(std::nextafter(p, 0.0))) / 2;
        const Rat mq = m * Rat(Q);
        std::uint64_t bits;
        std::memcpy(&bits, &p, sizeof bits);
        Int c = floor_of(mq) + 1;
        if (Rat(floor_of(mq)) == mq && (bits & 1) == 0) c -= 1;
        if (c < 1) c = 1;
        if (c > Q) c = Q;
        t.push_back(to_u128(c));
        continue;
      }
      // R's positions, in double as R and Hmisc::wtd.quantile compute them: h = 1 + (W - 1) p,
      // the values at positions max(floor(h), 1) and min(that + 1, W), weighted by h mod 1.
      const double W = std::ldexp(static_cast<double>(total), -s);
      const double h = 1 + (W - 1) * p, f = std::floor(h);
      const double low = std::max(f, 1.0), high = std::min(low + 1, W);
      rules[i].frac = h - f;
      t.push_back(target_of(Rat(low), s, Q));
      t.push_back(target_of(Rat(high), s, Q));
    }
    return t;
  };
  const auto r = weighted_select<T>(q, x, w, offset, n, probs, targets, o, op);
  if (r.nan_result) return std::vector<double>(probs.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> out(probs.size());
  for (std::size_t i = 0; i < probs.size(); ++i) {
    if (type == 1) {
      out[i] = static_cast<double>(from_key<T>(r.keys[i]));
      continue;
    }
    const double a = static_cast<double>(from_key<T>(r.keys[2 * i]));
    const double b = static_cast<double>(from_key<T>(r.keys[2 * i + 1]));
    const double f = rules[i].frac;
    // As R's quantile(): no interpolation between equal values (so +-Inf stays itself).
    out[i] = f == 0 || a == b ? a : (1 - f) * a + f * b;
  }
  return out;
}

}  // namespace

template <class T>
std::vector<double> weighted_quantiles(const Context& ctx, const T* x, const double* w, std::size_t n,
                                       const std::vector<double>& probs, int type, const Options& o) {
  const std::string op = "clstat::order::weighted_quantiles";
  check_weighted(probs, type, o, op);
  if (n > 0 && !w) throw std::invalid_argument(op + ": null weights pointer with n = " + std::to_string(n));
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const Buffer<T> bx = upload(ctx, x, n, op);
  const Buffer<double> bw = upload(ctx, w, n, op);
  return weighted_on(lease.queue(), bx, bw, 0, n, probs, type, o, op);
}

template <class T>
double weighted_median(const Context& ctx, const T* x, const double* w, std::size_t n, const Options& o) {
  return weighted_quantiles(ctx, x, w, n, {0.5}, 1, o)[0];
}

template <class T>
Future<std::vector<double>> weighted_quantiles_async(const Queue& q, const Buffer<T>& x, const Buffer<double>& w,
                                                     std::size_t offset, std::size_t n,
                                                     const std::vector<double>& probs, int type, const Options& o,
                                                     const std::vector<Event>& wait) {
  const std::string op = "clstat::order::weighted_quantiles_async";
  check_weighted(probs, type, o, op);
  check_buffers(x, w, offset, n, o, op);
  return ::clstat::detail::host_task<std::vector<double>>(
      q, wait, [=] { return weighted_on(q, x, w, offset, n, probs, type, o, op); });
}

namespace {

// Row by row over slices of the same buffers: each row's call is the single-array form's, so the
// values are its bit for bit; an error names its row.
template <class T>
std::vector<double> weighted_rows_on(const Queue& q, const Buffer<T>& x, const Buffer<double>& w, std::size_t offset,
                                     std::size_t rows, std::size_t cols, const std::vector<double>& probs, int type,
                                     const Options& o, const std::string& op) {
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::named(q);
  std::vector<double> out;
  out.reserve(rows * probs.size());
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<double> v;
    try {
      v = weighted_on(q, x, w, offset + r * cols, cols, probs, type, o, op);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what(), head = op + ": ";
      throw std::invalid_argument(head + "row " + std::to_string(r) + ": " +
                                  (what.compare(0, head.size(), head) == 0 ? what.substr(head.size()) : what));
    }
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace

template <class T>
std::vector<double> weighted_quantiles_rows(const Context& ctx, const T* x, const double* w, std::size_t rows,
                                            std::size_t cols, const std::vector<double>& probs, int type,
                                            const Options& o) {
  const std::string op = "clstat::order::weighted_quantiles_rows";
  check_weighted(probs, type, o, op);
  check_shape(op, rows, cols);
  if (!x || !w) throw std::invalid_argument(op + ": null data or weights pointer");
  if (probs.empty()) return {};
  ::clstat::detail::Lease lease = ::clstat::detail::Lease::any(ctx);
  const Buffer<T> bx = upload(ctx, x, rows * cols, op);
  const Buffer<double> bw = upload(ctx, w, rows * cols, op);
  return weighted_rows_on(lease.queue(), bx, bw, 0, rows, cols, probs, type, o, op);
}

template <class T>
Future<std::vector<double>> weighted_quantiles_rows_async(const Queue& q, const Buffer<T>& x, const Buffer<double>& w,
                                                          std::size_t offset, std::size_t rows, std::size_t cols,
                                                          const std::vector<double>& probs, int type, const Options& o,
                                                          const std::vector<Event>& wait) {
  const std::string op = "clstat::order::weighted_quantiles_rows_async";
  check_weighted(probs, type, o, op);
  check_shape(op, rows, cols);
  check_buffers(x, w, offset, rows * cols, o, op);
  return ::clstat::detail::host_task<std::vector<double>>(
      q, wait, [=] { return probs.empty() ? std::vector<double>{} : weighted_rows_on(q, x, w, offset, rows, cols, probs, type, o, op); });
}

#define CLSTAT_INSTANTIATE(T)                                                                                     \
  template CLSTAT_EXPORT std::vector<double> weighted_quantiles_rows(const Context&, const T*, const double*,     \
                                                                     std::size_t, std::size_t,                    \
                                                                     const std::vector<double>&, int, const Options&); \
  template CLSTAT_EXPORT Future<std::vector<double>> weighted_quantiles_rows_async(                              \
      const Queue&, const Buffer<T>&, const Buffer<double>&, std::size_t, std::size_t, std::size_t,              \
      const std::vector<double>&, int, const Options&, const std::vector<Event>&);                               \
  template CLSTAT_EXPORT std::vector<double> weighted_quantiles(const Context&, const T*, const double*,          \
                                                                std::size_t, const std::vector<double>&, int,    \
                                                                const Options&);                                 \
  template CLSTAT_EXPORT double weighted_median(const Context&, const T*, const double*, std::size_t,            \
                                                const Options&);                                                 \
  template CLSTAT_EXPORT Future<std::vector<double>> weighted_quantiles_async(                                   \
      const Queue&, const Buffer<T>&, const Buffer<double>&, std::size_t, std::size_t, const std::vector<double>&, \
      int, const Options&, const std::vector<Event>&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order
