// Internal: what every order statistic shares: the method's selector, input checks, the NaN
// policy, and the selection of the ranks a statistic asks for.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "clstat/error.hpp"
#include "clstat/order.hpp"
#include "order/selector.hpp"
#include "runtime/impl.hpp"

namespace clstat::order::detail {

template <class T>
inline std::unique_ptr<Selector<T>> make_selector(const Options& o, const Queue& q, const Buffer<T>& x, std::size_t off,
                                           std::uint64_t n, const std::string& op) {
  switch (o.method) {
    case Method::automatic:
    case Method::radix: return make_radix_selector(q, x, off, n);
    case Method::sort: return make_sort_selector(q, x, off, n);
    case Method::cutting_plane: return make_cutting_plane_selector(q, x, off, n);
  }
  throw std::invalid_argument(op + ": unknown Method " + std::to_string(static_cast<int>(o.method)));
}

inline void check_policy(const Options& o, const std::string& op) {
  const int p = static_cast<int>(o.nan);
  if (p < 0 || p > 2) throw std::invalid_argument(op + ": unknown NanPolicy " + std::to_string(p));
}

template <class T>
struct Outcome {
  bool nan_result = false;  // the NaN policy makes every result NaN
  std::uint64_t n_eff = 0;  // the values ranked: n, less the NaNs under omit
  std::vector<T> values;    // the values of the needed ranks
};

// The checks every device-buffer entry point makes before it launches anything.
template <class T>
void check_input(const std::string& op, const Buffer<T>& x, std::size_t off, std::size_t n, const Options& o) {
  check_policy(o, op);
  if (n == 0) throw std::invalid_argument(op + ": empty input (n = 0)");
  if (off > x.size() || n > x.size() - off)
    throw std::invalid_argument(op + ": elements [" + std::to_string(off) + ", " + std::to_string(off + n) +
                                ") run past the buffer's " + std::to_string(x.size()));
}

// A rows x cols matrix's shape: both at least 1, and rows * cols without overflow.
inline void check_shape(const std::string& op, std::size_t rows, std::size_t cols) {
  if (rows == 0 || cols == 0)
    throw std::invalid_argument(op + ": empty matrix (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (cols > static_cast<std::size_t>(-1) / rows)
    throw std::invalid_argument(op + ": rows * cols overflows (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
}

// NanPolicy::raise on `nan` NaNs.
inline void raise_on_nan(const std::string& op, std::uint64_t nan, const Options& o) {
  if (nan > 0 && o.nan == NanPolicy::raise)
    throw std::invalid_argument(op + ": the input holds " + std::to_string(nan) + " NaN value" + (nan == 1 ? "" : "s") +
                                " (NanPolicy::raise)");
}

// Selects with `sel`, over n elements, the 1-based ranks that need(n_eff) asks for, n_eff being n
// less the NaNs under omit.
template <class T>
Outcome<T> run_selector(const std::string& op, Selector<T>& sel, std::uint64_t n, const Options& o,
                        const std::function<std::vector<std::uint64_t>(std::uint64_t)>& need) {
  {
    std::vector<std::uint64_t> hint = need(n);  // the ranks if there is no NaN
    for (auto& r : hint) --r;
    sel.prepare(hint);
  }
  const std::uint64_t nan = sel.nan_count();
  raise_on_nan(op, nan, o);
  Outcome<T> out;
  if (nan > 0 && o.nan == NanPolicy::propagate) {
    out.nan_result = true;
    return out;
  }
  const std::uint64_t n_eff = n - nan;
  out.n_eff = n_eff;
  std::vector<std::uint64_t> ranks = need(n_eff);  // may throw out_of_range for omit
  if (n_eff == 0) {
    out.nan_result = true;
    return out;
  }
  for (auto& r : ranks) --r;
  const auto keys = sel.select(ranks);
  out.values.reserve(keys.size());
  for (auto k : keys) out.values.push_back(from_key<T>(k));
  return out;
}

// The same on one buffer, by the method `o` names.
template <class T>
Outcome<T> run(const std::string& op, const Queue& q, const Buffer<T>& x, std::size_t off, std::size_t n,
               const Options& o, const std::function<std::vector<std::uint64_t>(std::uint64_t)>& need) {
  check_input(op, x, off, n, o);
  auto sel = make_selector(o, q, x, off, n, op);
  return run_selector<T>(op, *sel, n, o, need);
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

inline std::vector<std::uint64_t> check_ks(const std::vector<std::uint64_t>& ks, std::size_t n, const std::string& op) {
  for (auto k : ks)
    if (k < 1 || k > n)
      throw std::invalid_argument(op + ": k = " + std::to_string(k) + " is outside 1.." + std::to_string(n));
  return ks;
}


}  // namespace clstat::order::detail
