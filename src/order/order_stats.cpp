// The public order statistics: the ranks each statistic needs and the combination of the
// selected values (midpoints, Hyndman-Fan interpolation); checks and NaN policy in run.hpp.
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "clstat/error.hpp"
#include "clstat/exchange.hpp"
#include "clstat/group.hpp"
#include "clstat/order.hpp"
#include "order/quantile_rule.hpp"
#include "order/run.hpp"
#include "order/sharded_select.hpp"
#include "runtime/lease.hpp"

namespace clstat::order {

namespace {
using namespace detail;
using ::clstat::detail::host_task;
using ::clstat::detail::Lease;

using Need = std::function<std::vector<std::uint64_t>(std::uint64_t)>;

// Each statistic from any selection: select(op, need) runs one (one buffer, or a device group's
// shards) and returns its Outcome.
template <class T, class S>
std::vector<T> kth_with(S&& select, std::size_t n, const std::vector<std::uint64_t>& ks) {
  const std::string op = "clstat::order::kth_smallest";
  if (n > 0) check_ks(ks, n, op);
  if (ks.empty()) return {};
  auto r = select(op, [&](std::uint64_t n_eff) {
    for (auto k : ks)
      if (k > n_eff)
        throw std::out_of_range(op + ": k = " + std::to_string(k) + " but only " + std::to_string(n_eff) +
                                " values are not NaN");
    return ks;
  });
  if (r.nan_result) return std::vector<T>(ks.size(), nan_of<T>());
  return r.values;
}

template <class T, class S>
double median_with(S&& select) {
  auto r = select("clstat::order::median", [](std::uint64_t m) {
    if (m % 2 == 1) return std::vector<std::uint64_t>{(m + 1) / 2};
    return std::vector<std::uint64_t>{m / 2, m / 2 + 1};
  });
  if (r.nan_result) return std::numeric_limits<double>::quiet_NaN();
  return r.values.size() == 1 ? static_cast<double>(r.values[0]) : midpoint(r.values[0], r.values[1]);
}

template <class T>
std::vector<T> kth_on(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                      const std::vector<std::uint64_t>& ks, const Options& o) {
  Lease lease = Lease::named(q);
  return kth_with<T>([&](const std::string& op, const Need& need) { return run<T>(op, q, x, offset, n, o, need); },
                     n, ks);
}

template <class T>
double median_on(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, const Options& o) {
  Lease lease = Lease::named(q);
  return median_with<T>([&](const std::string& op, const Need& need) { return run<T>(op, q, x, offset, n, o, need); });
}

// A selection on a queue the caller holds, of data uploaded there.
template <class T, class F>
auto on_host(const Context& ctx, const T* x, std::size_t n, const std::string& op, F&& f) {
  Lease lease = Lease::any(ctx);
  return f(lease.queue(), upload(ctx, x, n, op));
}

}  // namespace

template <class T>
Future<std::vector<T>> kth_smallest_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                          const std::vector<std::uint64_t>& ks, const Options& o,
                                          const std::vector<Event>& wait) {
  const std::string op = "clstat::order::kth_smallest_async";
  check_input(op, x, offset, n, o);
  check_ks(ks, n, op);
  return host_task<std::vector<T>>(q, wait, [=] { return kth_on(q, x, offset, n, ks, o); });
}

template <class T>
std::vector<T> kth_smallest(const Context& ctx, const T* x, std::size_t n, const std::vector<std::uint64_t>& ks,
                            const Options& o) {
  const std::string op = "clstat::order::kth_smallest";
  if (n > 0) check_ks(ks, n, op);
  return on_host(ctx, x, n, op, [&](const Queue& q, const Buffer<T>& b) { return kth_on(q, b, 0, n, ks, o); });
}

template <class T>
T kth_smallest(const Context& ctx, const T* x, std::size_t n, std::uint64_t k, const Options& o) {
  return kth_smallest(ctx, x, n, std::vector<std::uint64_t>{k}, o)[0];
}

template <class T>
Future<double> median_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, const Options& o,
                            const std::vector<Event>& wait) {
  check_input("clstat::order::median_async", x, offset, n, o);
  return host_task<double>(q, wait, [=] { return median_on(q, x, offset, n, o); });
}

template <class T>
double median(const Context& ctx, const T* x, std::size_t n, const Options& o) {
  return on_host(ctx, x, n, "clstat::order::median",
                 [&](const Queue& q, const Buffer<T>& b) { return median_on(q, b, 0, n, o); });
}

template <class T>
T median_low(const Context& ctx, const T* x, std::size_t n, const Options& o) {
  const std::string op = "clstat::order::median_low";
  auto r = on_host(ctx, x, n, op, [&](const Queue& q, const Buffer<T>& b) {
    return run<T>(op, q, b, 0, n, o, [](std::uint64_t m) { return std::vector<std::uint64_t>{(m + 1) / 2}; });
  });
  return r.nan_result ? nan_of<T>() : r.values[0];
}

template <class T>
T median_high(const Context& ctx, const T* x, std::size_t n, const Options& o) {
  const std::string op = "clstat::order::median_high";
  auto r = on_host(ctx, x, n, op, [&](const Queue& q, const Buffer<T>& b) {
    return run<T>(op, q, b, 0, n, o, [](std::uint64_t m) { return std::vector<std::uint64_t>{m / 2 + 1}; });
  });
  return r.nan_result ? nan_of<T>() : r.values[0];
}


namespace {
void check_probs(const std::vector<double>& probs, int type, const std::string& op) {
  if (type < 1 || type > 9) throw std::invalid_argument(op + ": type must be 1..9, got " + std::to_string(type));
  for (double p : probs)
    if (!(p >= 0 && p <= 1)) throw std::invalid_argument(op + ": probability " + std::to_string(p) + " is outside [0, 1]");
}

template <class T, class S>
std::vector<double> quantiles_with(S&& select, const std::vector<double>& probs, int type) {
  const std::string op = "clstat::order::quantiles";
  check_probs(probs, type, op);
  if (probs.empty()) return {};
  std::vector<QuantileRule> rules;
  auto r = select(op, [&](std::uint64_t m) {
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
std::vector<double> quantiles_on(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                 const std::vector<double>& probs, int type, const Options& o) {
  check_probs(probs, type, "clstat::order::quantiles");
  if (probs.empty()) return {};
  Lease lease = Lease::named(q);
  return quantiles_with<T>(
      [&](const std::string& op, const Need& need) { return run<T>(op, q, x, offset, n, o, need); }, probs, type);
}

// A selection over a device group: each member's shard uploaded to it, the passes on all of them
// (order/sharded_select.hpp), under a lease of a queue of every member.
template <class T>
auto on_group(const DeviceGroup& g, const T* x, std::size_t n, const Options& o, const std::string& op) {
  check_policy(o, op);
  if (o.method != Method::automatic && o.method != Method::radix)
    throw std::invalid_argument(op + ": a device group selects by radix (Options::method automatic or radix)");
  if (n == 0) throw std::invalid_argument(op + ": empty input (n = 0)");
  if (!x) throw std::invalid_argument(op + ": null data pointer with n = " + std::to_string(n));
  const std::vector<std::size_t> sizes = g.split(n);
  std::vector<Lease> leases;
  std::vector<std::size_t> at, member;
  for (std::size_t i = 0, first = 0; i < g.size(); first += sizes[i], ++i)
    if (sizes[i] > 0) {
      leases.push_back(Lease::any(g.member(i)));
      at.push_back(first);
      member.push_back(i);
    }
  // The shards go up at once, each from a thread of its own: an upload from pageable host memory
  // holds its thread for the whole copy, so one after the other the group's uploads took as long
  // as one device's (2^28 doubles on two H200s: 0.97x one device).
  std::vector<std::optional<Buffer<T>>> up(member.size());
  std::vector<std::exception_ptr> error(member.size());
  {
    std::vector<std::thread> threads;
    for (std::size_t s = 0; s < member.size(); ++s)
      threads.emplace_back([&, s] {
        try {
          up[s].emplace(upload(g.member(member[s]), x + at[s], sizes[member[s]], op));
        } catch (...) {
          error[s] = std::current_exception();
        }
      });
    for (auto& t : threads) t.join();
  }
  for (auto& e : error)
    if (e) std::rethrow_exception(e);
  std::vector<ShardRef<T>> shards;
  for (std::size_t s = 0; s < member.size(); ++s)
    shards.push_back(ShardRef<T>{leases[s].queue(), std::move(*up[s]), 0, sizes[member[s]]});
  return [leases = std::make_shared<std::vector<Lease>>(std::move(leases)), shards, n, o](const std::string& name,
                                                                                          const Need& need) {
    // One member with all the data: the single-device selection (with its sampled bracket).
    if (shards.size() == 1) return run<T>(name, shards[0].q, shards[0].x, 0, n, o, need);
    ShardedSelect<T> sel(shards);
    return run_selector<T>(name, sel, n, o, need);
  };
}

// A selection over shards held by several processes (clstat/exchange.hpp): this process's shard
// uploaded to ctx's device. Before any pass the processes agree (agree_before, which also gathers
// the shard sizes), so that bad input anywhere stops every process here.
// Sets n to the size over all processes.
template <class T>
auto on_exchange(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local, const Options& o,
                 const std::string& op, std::uint64_t args, std::uint64_t& n) {
  auto lease = std::make_shared<std::vector<Lease>>();
  std::vector<ShardRef<T>> shards;
  std::exception_ptr err;
  try {
    check_policy(o, op);
    if (o.method != Method::automatic && o.method != Method::radix)
      throw std::invalid_argument(op + ": shards on several processes are selected by radix (Options::method automatic or radix)");
    if (n_local > 0) {
      lease->push_back(Lease::any(ctx));
      shards.push_back(ShardRef<T>{lease->back().queue(), upload(ctx, x, n_local, op), 0, n_local});
    }
  } catch (...) {
    err = std::current_exception();
  }
  const int method = static_cast<int>(o.method), nan = static_cast<int>(o.nan);
  const std::size_t width = sizeof(T);
  args = hash_bytes(hash_bytes(hash_bytes(args, &method, sizeof method), &nan, sizeof nan), &width, sizeof width);
  // Each process's shard size travels with the agreement.
  const std::uint64_t mine = n_local;
  const auto* p = reinterpret_cast<const unsigned char*>(&mine);
  n = 0;
  for (const auto& part : agree_before(ex, op, err, args, std::vector<unsigned char>(p, p + sizeof mine))) {
    std::uint64_t v;
    std::memcpy(&v, part.data(), sizeof v);
    n += v;
  }
  if (n == 0) throw std::invalid_argument(op + ": empty input (n = 0 on every process)");
  return [lease, shards, n, o, &ex](const std::string& name, const Need& need) {
    ShardedSelect<T> sel(shards, &ex);
    return run_selector<T>(name, sel, n, o, need);
  };
}
}  // namespace

template <class T>
std::vector<double> quantiles(const Context& ctx, const T* x, std::size_t n, const std::vector<double>& probs, int type,
                              const Options& o) {
  const std::string op = "clstat::order::quantiles";
  check_probs(probs, type, op);
  return on_host(ctx, x, n, op,
                 [&](const Queue& q, const Buffer<T>& b) { return quantiles_on(q, b, 0, n, probs, type, o); });
}

template <class T>
Future<std::vector<double>> quantiles_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                            const std::vector<double>& probs, int type, const Options& o,
                                            const std::vector<Event>& wait) {
  const std::string op = "clstat::order::quantiles_async";
  check_probs(probs, type, op);
  check_input(op, x, offset, n, o);
  return host_task<std::vector<double>>(q, wait, [=] { return quantiles_on(q, x, offset, n, probs, type, o); });
}

template <class T>
std::vector<T> kth_smallest(const DeviceGroup& g, const T* x, std::size_t n, const std::vector<std::uint64_t>& ks,
                            const Options& o) {
  const std::string op = "clstat::order::kth_smallest";
  if (n > 0) check_ks(ks, n, op);
  return kth_with<T>(on_group(g, x, n, o, op), n, ks);
}

template <class T>
double median(const DeviceGroup& g, const T* x, std::size_t n, const Options& o) {
  return median_with<T>(on_group(g, x, n, o, "clstat::order::median"));
}

template <class T>
std::vector<double> quantiles(const DeviceGroup& g, const T* x, std::size_t n, const std::vector<double>& probs,
                              int type, const Options& o) {
  const std::string op = "clstat::order::quantiles";
  check_probs(probs, type, op);
  return quantiles_with<T>(on_group(g, x, n, o, op), probs, type);
}

template <class T>
std::vector<T> kth_smallest(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local,
                            const std::vector<std::uint64_t>& ks, const Options& o) {
  std::uint64_t n = 0;
  const std::uint64_t h = hash_bytes(hash_seed, ks.data(), ks.size() * sizeof(std::uint64_t));
  auto sel = on_exchange(ctx, ex, x, n_local, o, "clstat::order::kth_smallest", h, n);
  return kth_with<T>(sel, n, ks);
}

template <class T>
double median(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local, const Options& o) {
  std::uint64_t n = 0;
  return median_with<T>(on_exchange(ctx, ex, x, n_local, o, "clstat::order::median", hash_seed, n));
}

template <class T>
std::vector<double> quantiles(const Context& ctx, Exchange& ex, const T* x, std::size_t n_local,
                              const std::vector<double>& probs, int type, const Options& o) {
  const std::string op = "clstat::order::quantiles";
  std::uint64_t n = 0;
  const std::uint64_t h = hash_bytes(hash_bytes(hash_seed, &type, sizeof type), probs.data(), probs.size() * sizeof(double));
  // Checked after the processes agree, so that bad probabilities on one stop all of them.
  auto sel = on_exchange(ctx, ex, x, n_local, o, op, h, n);
  check_probs(probs, type, op);
  return quantiles_with<T>(sel, probs, type);
}

#define CLSTAT_INSTANTIATE(T)                                                                                        \
  template CLSTAT_EXPORT T kth_smallest(const Context&, const T*, std::size_t, std::uint64_t, const Options&);      \
  template CLSTAT_EXPORT std::vector<T> kth_smallest(const Context&, const T*, std::size_t,                         \
                                                     const std::vector<std::uint64_t>&, const Options&);            \
  template CLSTAT_EXPORT Future<std::vector<T>> kth_smallest_async(const Queue&, const Buffer<T>&, std::size_t,     \
                                                                   std::size_t, const std::vector<std::uint64_t>&,  \
                                                                   const Options&, const std::vector<Event>&);      \
  template CLSTAT_EXPORT double median(const Context&, const T*, std::size_t, const Options&);                      \
  template CLSTAT_EXPORT Future<double> median_async(const Queue&, const Buffer<T>&, std::size_t, std::size_t,      \
                                                     const Options&, const std::vector<Event>&);                   \
  template CLSTAT_EXPORT T median_low(const Context&, const T*, std::size_t, const Options&);                       \
  template CLSTAT_EXPORT T median_high(const Context&, const T*, std::size_t, const Options&);                      \
  template CLSTAT_EXPORT std::vector<double> quantiles(const Context&, const T*, std::size_t,                       \
                                                       const std::vector<double>&, int, const Options&);            \
  template CLSTAT_EXPORT Future<std::vector<double>> quantiles_async(const Queue&, const Buffer<T>&, std::size_t,  \
                                                                     std::size_t, const std::vector<double>&, int, \
                                                                     const Options&, const std::vector<Event>&);   \
  template CLSTAT_EXPORT std::vector<T> kth_smallest(const DeviceGroup&, const T*, std::size_t,                     \
                                                     const std::vector<std::uint64_t>&, const Options&);            \
  template CLSTAT_EXPORT double median(const DeviceGroup&, const T*, std::size_t, const Options&);                  \
  template CLSTAT_EXPORT std::vector<double> quantiles(const DeviceGroup&, const T*, std::size_t,                   \
                                                       const std::vector<double>&, int, const Options&);          \
  template CLSTAT_EXPORT std::vector<T> kth_smallest(const Context&, Exchange&, const T*, std::size_t,              \
                                                     const std::vector<std::uint64_t>&, const Options&);            \
  template CLSTAT_EXPORT double median(const Context&, Exchange&, const T*, std::size_t, const Options&);           \
  template CLSTAT_EXPORT std::vector<double> quantiles(const Context&, Exchange&, const T*, std::size_t,            \
                                                       const std::vector<double>&, int, const Options&);
CLSTAT_INSTANTIATE(float)
CLSTAT_INSTANTIATE(double)
CLSTAT_INSTANTIATE(std::int32_t)
CLSTAT_INSTANTIATE(std::int64_t)
#undef CLSTAT_INSTANTIATE

}  // namespace clstat::order
