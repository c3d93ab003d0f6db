// The public order statistics: input checks, the NaN policy, the ranks each statistic needs,
// and the combination of the selected values (midpoints, Hyndman-Fan interpolation).
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "clstat/error.hpp"
#include "clstat/order.hpp"
#include "order/quantile_rule.hpp"
#include "order/selector.hpp"
#include "runtime/impl.hpp"

namespace clstat::order {

namespace {
using namespace detail;

template <class T>
std::unique_ptr<Selector<T>> make_selector(const Options& o, const Queue& q, const Buffer<T>& x, std::size_t off,
                                           std::uint64_t n, const std::string& op) {
  switch (o.method) {
    case Method::automatic:
    case Method::radix: return make_radix_selector(q, x, off, n);
    case Method::sort: return make_sort_selector(q, x, off, n);
  }
  throw std::invalid_argument(op + ": unknown Method " + std::to_string(static_cast<int>(o.method)));
}

void check_policy(const Options& o, const std::string& op) {
  const int p = static_cast<int>(o.nan);
  if (p < 0 || p > 2) throw std::invalid_argument(op + ": unknown NanPolicy " + std::to_string(p));
}

template <class T>
struct Outcome {
  bool nan_result = false;  // the NaN policy makes every result NaN
  std::vector<T> values;    // the values of the needed ranks
};

// Selects the 1-based ranks that need(n_eff) asks for, n_eff being n less the NaNs under omit.
template <class T>
Outcome<T> run(const std::string& op, const Queue& q, const Buffer<T>& x, std::size_t off, std::size_t n,
               const Options& o, const std::function<std::vector<std::uint64_t>(std::uint64_t)>& need) {
  check_policy(o, op);
  if (n == 0) throw std::invalid_argument(op + ": empty input (n = 0)");
  if (off > x.size() || n > x.size() - off)
    throw std::invalid_argument(op + ": elements [" + std::to_string(off) + ", " + std::to_string(off + n) +
                                ") run past the buffer's " + std::to_string(x.size()));
  auto sel = make_selector(o, q, x, off, n, op);
  {
    std::vector<std::uint64_t> hint = need(n);  // the ranks if there is no NaN
    for (auto& r : hint) --r;
    sel->prepare(hint);
  }
  const std::uint64_t nan = sel->nan_count();
  Outcome<T> out;
  if (nan > 0) {
    if (o.nan == NanPolicy::raise)
      throw std::invalid_argument(op + ": the input holds " + std::to_string(nan) + " NaN value" +
                                  (nan == 1 ? "" : "s") + " (NanPolicy::raise)");
    if (o.nan == NanPolicy::propagate) {
      out.nan_result = true;
      return out;
    }
  }
  const std::uint64_t n_eff = n - nan;
  std::vector<std::uint64_t> ranks = need(n_eff);  // may throw out_of_range for omit
  if (n_eff == 0) {
    out.nan_result = true;
    return out;
  }
  for (auto& r : ranks) --r;
  const auto keys = sel->select(ranks);
  out.values.reserve(keys.size());
  for (auto k : keys) out.values.push_back(from_key<T>(k));
  return out;
}

template <class T>
Buffer<T> upload(const Context& ctx, const T* x, std::size_t n, const std::string& op) {
  if (n == 0) throw std::invalid_argument(op + ": empty input (n = 0)");
  if (!x) throw std::invalid_argument(op + ": null data pointer with n = " + std::to_string(n));
  if constexpr (std::is_same_v<T, double>)
    if (!ctx.info().fp64) throw UnsupportedFeature(op, ctx.info().name, "double input needs a device with fp64");
  if (static_cast<std::uint64_t>(n) * sizeof(T) > ctx.info().max_alloc_bytes)
    throw UnsupportedFeature(op, ctx.info().name,
                             std::to_string(n * sizeof(T)) + " bytes of input exceed the largest allocation, " +
                                 std::to_string(ctx.info().max_alloc_bytes) + " bytes");
  return Buffer<T>(ctx, x, n);
}

template <class T>
T nan_of() {
  if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
  else throw std::logic_error("clstat::order: NaN result for an integer type");
}

// The mean of the two middle values: exact for float and int32, correctly rounded for double
// (a + b cannot overflow into the result), nearest double for int64.
template <class T>
double midpoint(T a, T b) {
  if constexpr (std::is_same_v<T, double>) {
    const double s = a + b;
    if (std::isfinite(s) || !std::isfinite(a) || !std::isfinite(b)) return s / 2;
    return a / 2 + b / 2;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return static_cast<double>((static_cast<long double>(a) + static_cast<long double>(b)) / 2);
  } else {
    return (static_cast<double>(a) + static_cast<double>(b)) / 2;
  }
}

std::vector<std::uint64_t> check_ks(const std::vector<std::uint64_t>& ks, std::size_t n, const std::string& op) {
  for (auto k : ks)
    if (k < 1 || k > n)
      throw std::invalid_argument(op + ": k = " + std::to_string(k) + " is outside 1.." + std::to_string(n));
  return ks;
}

}  // namespace

template <class T>
std::vector<T> kth_smallest(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                            const std::vector<std::uint64_t>& ks, const Options& o) {
  const std::string op = "clstat::order::kth_smallest";
  if (n > 0) check_ks(ks, n, op);
  if (ks.empty()) return {};
  auto r = run<T>(op, q, x, offset, n, o, [&](std::uint64_t n_eff) {
    for (auto k : ks)
      if (k > n_eff)
        throw std::out_of_range(op + ": k = " + std::to_string(k) + " but only " + std::to_string(n_eff) +
                                " values are not NaN");
    return ks;
  });
  if (r.nan_result) return std::vector<T>(ks.size(), nan_of<T>());
  return r.values;
}

template <class T>
std::vector<T> kth_smallest(const Context& ctx, const T* x, std::size_t n, const std::vector<std::uint64_t>& ks,
                            const Options& o) {
  const std::string op = "clstat::order::kth_smallest";
  if (n > 0) check_ks(ks, n, op);
  return kth_smallest(ctx.queue(0), upload(ctx, x, n, op), 0, n, ks, o);
}

template <class T>
T kth_smallest(const Context& ctx, const T* x, std::size_t n, std::uint64_t k, const Options& o) {
  return kth_smallest(ctx, x, n, std::vector<std::uint64_t>{k}, o)[0];
}

template <class T>
double median(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, const Options& o) {
  auto r = run<T>("clstat::order::median", q, x, offset, n, o, [](std::uint64_t m) {
    if (m % 2 == 1) return std::vector<std::uint64_t>{(m + 1) / 2};
    return std::vector<std::uint64_t>{m / 2, m / 2 + 1};
  });
  if (r.nan_result) return std::numeric_limits<double>::quiet_NaN();
  return r.values.size() == 1 ? static_cast<double>(r.values[0]) : midpoint(r.values[0], r.values[1]);
}

template <class T>
double median(const Context& ctx, const T* x, std::size_t n, const Options& o) {
  return median(ctx.queue(0), upload(ctx, x, n, "clstat::order::median"), 0, n, o);
}

template <class T>
T median_low(const Context& ctx, const T* x, std::size_t n, const Options& o) {
  const std::string op = "clstat::order::median_low";
  auto r = run<T>(op, ctx.queue(0), upload(ctx, x, n, op), 0, n, o,
                  [](std::uint64_t m) { return std::vector<std::uint64_t>{(m + 1) / 2}; });
  return r.nan_result ? nan_of<T>() : r.values[0];
}

template <class T>
T median_high(const Context& ctx, const T* x, std::size_t n, const Options& o) {
  const std::string op = "clstat::order::median_high";
  auto r = run<T>(op, ctx.queue(0), upload(ctx, x, n, op), 0, n, o,
                  [](std::uint64_t m) { return std::vector<std::uint64_t>{m / 2 + 1}; });
  return r.nan_result ? nan_of<T>() : r.values[0];
}

namespace {
void check_probs(const std::vector<double>& probs, int type, const std::string& op) {
  if (type < 1 || type > 9) throw std::invalid_argument(op + ": type must be 1..9, got " + std::to_string(type));
  for (double p : probs)
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument(op + ": probability " + std::to_string(p) + " is outside [0, 1]");
}
}  // namespace

template <class T>
std::vector<double> quantiles(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                              const std::vector<double>& probs, int type, const Options& o) {
  const std::string op = "clstat::order::quantiles";
  check_probs(probs, type, op);
  if (probs.empty()) return {};
  std::vector<QuantileRule> rules;
  auto r = run<T>(op, q, x, offset, n, o, [&](std::uint64_t m) {
    std::vector<std::uint64_t> need;
    rules.clear();
    if (m == 0) return need;
    for (double p : probs) {
      rules.push_back(quantile_rule(type, p, m));
      need.push_back(rules.back().lo);
      need.push_back(rules.back().hi);
    }
    return need;
  });
  if (r.nan_result) return std::vector<double>(probs.size(), std::numeric_limits<double>::quiet_NaN());
  std::vector<double> out(probs.size());
  for (std::size_t i = 0; i < probs.size(); ++i)
    out[i] = quantile_combine(rules[i], static_cast<double>(r.values[2 * i]), static_cast<double>(r.values[2 * i + 1]));
  return out;
}

template <class T>
std::vector<double> quantiles(const Context& ctx, const T* x, std::size_t n, const std::vector<double>& probs, int type,
                              const Options& o) {
  const std::string op = "clstat::order::quantiles";
  check_probs(probs, type, op);
  return quantiles(ctx.queue(0), upload(ctx, x, n, op), 0, n, probs, type, o);
}

#define CLSTAT_INSTANTIATE(T)                                                                                        \
  template CLSTAT_EXPORT T kth_smallest(const Context&, const T*, std::size_t, std::uint64_t, const Options&);      \
  template CLSTAT_EXPORT std::vector<T> kth_smallest(const Context&, const T*, std::size_t,                         \
                                                     const std::vector<std::uint64_t>&, const Options&);            \
  template CLSTAT_EXPORT std::vector<T> kth_smallest(const Queue&, const Buffer<T>&, std::size_t, std::size_t,      \
                                                     const std::vector<std::uint64_t>&, const Options&);            \
  template CLSTAT_EXPORT double median(const Context&, const T*, std::size_t, const Options&);                      \
  template CLSTAT_EXPORT double median(const Queue&, const Buffer<T>&, std::size_t, std::size_t, const Options&);   \
  template CLSTAT_EXPORT T median_low(const Context&, const T*, std::size_t, const Options&);                       \
  template CLSTAT_EXPORT T median_high(const Context&, const T*, std::size_t, const Options&);                      \
  template CLSTAT_EXPORT std::vector<double> quantiles(const Context&, const T*, std::size_t,                       \
                                                       const std::vector<double>&, int, const Options&);            \
  template CLSTAT_EXPORT std::vector<double> quantiles(const Queue&, const Buffer<T>&, std::size_t, std::size_t,    \
                                                       const std::vector<double>&, int, const Options&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order
