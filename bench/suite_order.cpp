#include "suite_order.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>
#include <utility>

#include "clstat/order.hpp"
#include "peer_process.hpp"
#include "reference/order_data.hpp"
#include "reference/order_reference.hpp"

namespace bench {
namespace {

using clstat::Buffer;
using clstat::Context;
using Clock = std::chrono::steady_clock;

template <class T>
const char* prec() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
  else return "i64";
}

// Device span and wall time of `run` (one warm-up first, which builds the programs).
void time_order(const Context& ctx, Row& r, int repeats, const std::function<void()>& run) {
  time_device_and_wall(ctx, r, repeats, run);
  const double t = r.kernel_ms.median > 0 ? r.kernel_ms.median : r.wall_ms.median;
  r.throughput = t > 0 ? r.work / (t * 1e-3) * 1e-9 : 0;
  r.fraction = r.ceiling > 0 ? r.throughput / r.ceiling : 0;
}

// The reference order statistics (1-based ks) of x[0, n), by nth_element under totalOrder.
// Increasing ks select in shrinking ranges, so ten of them cost about two nth_elements.
template <class T>
std::vector<T> reference(const std::vector<T>& x, std::size_t n, const std::vector<std::uint64_t>& ks) {
  std::vector<T> c(x.begin(), x.begin() + n), out(ks.size());
  std::vector<std::size_t> order(ks.size());
  for (std::size_t i = 0; i < ks.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ks[a] < ks[b]; });
  std::size_t lo = 0;
  for (std::size_t i : order) {
    const std::size_t k = ks[i] - 1;
    if (k >= lo) {
      std::nth_element(c.begin() + lo, c.begin() + k, c.end(), clstat_ref::total_less<T>);
      lo = k;
    }
    out[i] = c[k];
  }
  return out;
}

void log_row(const Row& r) {
  std::cerr << "[clstat-bench]   " << r.name << " " << r.precision << " n=" << r.n << ": " << r.kernel_ms.median
            << " ms device, " << r.wall_ms.median << " ms wall" << (r.pass ? "" : "  FAILED") << "\n";
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

struct Peer {
  std::string name;
  double ms = 0;
};

// Runs select_torch_cupy.py for (n, dtype, dist); returns its timings, empty when unavailable
// (then *why says why: its exit status and stderr).
std::vector<Peer> run_peers(const OrderBenchOptions& o, std::size_t n, const char* dtype, const std::string& dist,
                            std::string* why) {
  std::vector<Peer> out;
  if (!o.peers || o.peers_dir.empty()) return out;
  const std::string cmd = "python3 '" + o.peers_dir + "/select_torch_cupy.py' --n " + std::to_string(n) +
                          " --dtype " + dtype + " --dist " + dist + " --repeats 5";
  const clstat_bench::PeerRun p = clstat_bench::run_peer(cmd);
  std::cerr << "[clstat-bench] select peers: " << (p.ok ? p.out : p.why + "\n");
  if (!p.ok) *why = "select_torch_cupy.py: " + p.why;
  for (const char* name : {"torch.median", "torch.kthvalue", "cupy.median", "torch.sort"})
    if (const auto ms = clstat_bench::peer_number(p.out, std::string(name) + "_ms")) out.push_back({name, *ms});
  if (p.ok && out.empty()) *why = "select_torch_cupy.py printed no timings: " + p.out;
  return out;
}

// The weighted median (type 1 at 1/2) of x with exponential weights, beside the unweighted
// median of the same data (the row's check gives the ratio of their times). The reference
// selects by weight in O(n): nth_element halves, descending into the half that holds W / 2.
void weighted_median_row(const Context& ctx, const clstat::Ceilings& c, const OrderBenchOptions& o,
                         const std::vector<double>& x, std::vector<Row>& rows) {
  const std::size_t n = x.size();
  std::vector<double> w(n);
  std::mt19937_64 g(2027);
  std::exponential_distribution<double> e(1.0);
  for (auto& v : w) v = e(g);
  std::vector<std::pair<double, double>> p(n);
  long double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = {x[i], w[i]};
    total += w[i];
  }
  long double need = total / 2;
  std::size_t lo = 0, hi = n;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    std::nth_element(p.begin() + lo, p.begin() + mid, p.begin() + hi);
    long double below = 0;
    for (std::size_t i = lo; i < mid; ++i) below += p[i].second;
    if (below >= need) {
      hi = mid;
    } else {
      need -= below;
      lo = mid;
    }
  }
  const double want = p[lo].first;
  const auto q = ctx.queue(0);
  Buffer<double> dx(ctx, x.data(), n), dw(ctx, w.data(), n);
  Row r{"order", "weighted median radix normal", "f64", n};
  r.work = static_cast<double>(n) * 16;
  r.unit = "GB/s";
  r.ceiling_name = "read";
  r.ceiling = c.read_gbs;
  double got = 0;
  time_order(ctx, r, o.repeats,
             [&] { got = clstat::order::weighted_quantiles_async(q, dx, dw, 0, n, {0.5}, 1).get()[0]; });
  r.check = "== a weighted selection in long double";
  for (const auto& row : rows)
    if (row.name == "median radix normal" && row.precision == std::string("f64") && row.n == n) {
      std::ostringstream t;
      t << "; " << std::setprecision(3) << r.wall_ms.median / row.wall_ms.median
        << "x the unweighted median's wall time";
      r.check += t.str();
    }
  r.pass = got == want;
  r.error = r.pass ? 0 : 1;
  log_row(r);
  rows.push_back(r);
}

template <class T>
void medians_for(const Context& ctx, const clstat::Ceilings& c, const OrderBenchOptions& o, const std::string& dist,
                 const std::vector<double>& xd, std::vector<Row>& rows) {
  const auto q = ctx.queue(0);
  const std::size_t nmax = std::size_t(1) << o.max_log2;
  const bool floating = std::is_floating_point_v<T>;
  {
    if (!floating && dist != "uniform" && dist != "normal") return;
    std::cerr << "[clstat-bench] order " << prec<T>() << " " << dist << "\n";
    std::vector<T> x(nmax);
    if constexpr (std::is_integral_v<T>) x = clstat_ref::order_data<T>(dist, nmax, 2011);
    else for (std::size_t i = 0; i < nmax; ++i) x[i] = static_cast<T>(xd[i]);  // = order_data<T>
    Buffer<T> dev(ctx, x.data(), nmax);
    // Every other power of two up to the largest, which the peers are timed at.
    for (int lg = floating ? 13 + (o.max_log2 - 13) % 2 : o.max_log2; lg <= o.max_log2; lg += 2) {
      const std::size_t n = std::size_t(1) << lg;
      const auto want = reference(x, n, {n / 2, n / 2 + 1});
      const double want_median = (static_cast<double>(want[0]) + static_cast<double>(want[1])) / 2;
      std::vector<clstat::order::Method> methods{clstat::order::Method::radix};
      if (dist == "normal" && (lg == o.max_log2 || lg == 21 || lg == 22)) {
        methods.push_back(clstat::order::Method::sort);
        if (floating) methods.push_back(clstat::order::Method::cutting_plane);
      }
      for (auto m : methods) {
        const bool radix = m == clstat::order::Method::radix;
        const char* mname = radix ? "radix " : m == clstat::order::Method::sort ? "sort " : "cutting-plane ";
        Row r{"order", std::string("median ") + mname + dist, prec<T>(), n};
        r.work = static_cast<double>(n) * sizeof(T);
        r.unit = "GB/s";
        r.ceiling_name = "read";
        r.ceiling = c.read_gbs;
        clstat::order::Options opt;
        opt.method = m;
        double got = 0;
        time_order(ctx, r, radix ? o.repeats : std::max(1, o.repeats / 3),
                   [&] { got = clstat::order::median_async(q, dev, 0, n, opt).get(); });
        if (m == clstat::order::Method::sort) {
          // Boost.Compute's sort kernels are not in clstat's profile: its time is the wall time.
          r.kernel_ms = r.wall_ms;
          r.throughput = r.work / (r.wall_ms.median * 1e-3) * 1e-9;
          r.fraction = r.ceiling > 0 ? r.throughput / r.ceiling : 0;
        }
        r.check = "== median of std::sort (totalOrder)";
        r.pass = got == want_median;
        r.error = r.pass ? 0 : 1;
        log_row(r);
        rows.push_back(r);
      }
    }
    if (dist == "normal" || dist == "uniform") {
      const std::size_t n = nmax;
      // Several order statistics in one call: five quantiles, and sixteen at i / 17.
      std::vector<double> sixteen;
      for (int i = 1; i <= 16; ++i) sixteen.push_back(i / 17.0);
      for (const auto& probs : {std::vector<double>{0.01, 0.1, 0.5, 0.9, 0.99}, sixteen}) {
        std::vector<std::uint64_t> ks;
        for (double p : probs) {
          const double index = 1 + (static_cast<double>(n) - 1) * p;
          ks.push_back(static_cast<std::uint64_t>(std::floor(index)));
          ks.push_back(static_cast<std::uint64_t>(std::ceil(index)));
        }
        Row r{"order", "quantiles x" + std::to_string(probs.size()) + " radix " + dist, prec<T>(), n};
        r.work = static_cast<double>(n) * sizeof(T);
        r.unit = "GB/s";
        r.ceiling_name = "read";
        r.ceiling = c.read_gbs;
        std::vector<T> got;
        time_order(ctx, r, o.repeats, [&] { got = clstat::order::kth_smallest_async(q, dev, 0, n, ks).get(); });
        const auto want = reference(x, n, ks);
        r.check = std::to_string(ks.size()) + " order statistics == std::sort's";
        r.pass = got.size() == want.size();
        for (std::size_t i = 0; r.pass && i < want.size(); ++i) r.pass = same_bits(got[i], want[i]);
        r.error = r.pass ? 0 : 1;
        log_row(r);
        rows.push_back(r);
      }
      std::vector<T> got;

      Row k{"order", "kth k=n/10 radix " + dist, prec<T>(), n};
      k.work = static_cast<double>(n) * sizeof(T);
      k.unit = "GB/s";
      k.ceiling_name = "read";
      k.ceiling = c.read_gbs;
      time_order(ctx, k, o.repeats, [&] { got = clstat::order::kth_smallest_async(q, dev, 0, n, {n / 10}).get(); });
      k.check = "== std::sort's";
      k.pass = same_bits(got.at(0), reference(x, n, {n / 10})[0]);
      k.error = k.pass ? 0 : 1;
      std::vector<Peer> peers;
      if (floating && ctx.info().type == clstat::DeviceType::gpu)
        peers = run_peers(o, n, std::is_same_v<T, double> ? "float64" : "float32", dist, &k.peer_error);
      log_row(k);
      rows.push_back(k);
      // The peers' rates go beside the clstat row a user would swap them for: the fastest of the
      // median functions beside the radix median at this size, torch.kthvalue beside the k-th
      // smallest; every peer's rate is also spelled out in the row's check.
      auto attach = [&](Row& row, const std::vector<std::string>& names) {
        std::string listed;
        for (const auto& p : peers) {
          if (std::find(names.begin(), names.end(), p.name) == names.end() || p.ms <= 0) continue;
          const double gbs = row.work / (p.ms * 1e-3) * 1e-9;
          std::ostringstream t;
          t << p.name << " " << std::setprecision(4) << gbs << " GB/s";
          listed += (listed.empty() ? "; peers: " : ", ") + t.str();
          if (gbs > row.peer_throughput) row.peer = p.name, row.peer_throughput = gbs;
        }
        row.check += listed;
      };
      for (auto& row : rows)
        if (row.name == "median radix " + dist && row.precision == prec<T>() && row.n == n)
          attach(row, {"torch.median", "cupy.median", "torch.sort"});
      attach(rows.back(), {"torch.kthvalue"});
      if constexpr (std::is_same_v<T, double>)
        if (dist == "normal") weighted_median_row(ctx, c, o, x, rows);
    }
  }
}

}  // namespace

std::vector<Row> run_order(const Context& ctx, const clstat::Ceilings& c, const OrderBenchOptions& o) {
  std::vector<Row> rows;
  const std::size_t nmax = std::size_t(1) << o.max_log2;
  for (const auto& dist : clstat_ref::order_distributions()) {
    const auto xd = clstat_ref::order_data<double>(dist, nmax, 2011);
    medians_for<float>(ctx, c, o, dist, xd, rows);
    if (ctx.info().fp64) medians_for<double>(ctx, c, o, dist, xd, rows);
    medians_for<std::int32_t>(ctx, c, o, dist, xd, rows);
    medians_for<std::int64_t>(ctx, c, o, dist, xd, rows);
  }
  return rows;
}

}  // namespace bench
