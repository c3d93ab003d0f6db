#include "suite_bandwidth.hpp"

#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>

#include "clstat/bandwidth.hpp"
#include "reference/bandwidth_ref.hpp"
#include "support.hpp"

namespace bench {
namespace {

namespace bw = clstat::bandwidth;

const auto& wall = wall_stats;

// One more call with kernel profiling on: the device's busy time (the sum of the kernels' run
// times) goes to kernel_ms, so the rest of wall_ms is host work, transfers and launch gaps; the
// per-kernel totals go to the log.
double busy_ms(const clstat::Context& ctx, const std::string& what, const std::function<void()>& f) {
  ctx.take_profile();
  ctx.set_profiling(true);
  f();
  const auto rec = ctx.take_profile();
  ctx.set_profiling(false);
  std::map<std::string, std::pair<double, int>> by;
  double total = 0;
  for (const auto& k : rec) {
    const double ms = static_cast<double>(k.end_ns - k.start_ns) * 1e-6;
    total += ms;
    by[k.kernel].first += ms;
    ++by[k.kernel].second;
  }
  std::cerr << "[clstat-bench]     " << what << " kernels:";
  for (const auto& [name, v] : by) std::cerr << " " << name << " " << v.first << " ms x" << v.second << ";";
  std::cerr << "\n";
  return total;
}

Row row(const std::string& name, std::size_t n, double pairs, Stats w, int repeats) {
  Row r{"bandwidth", name, "f64", n};
  r.repeats = repeats;
  r.wall_ms = w;
  r.work = pairs;
  r.unit = "Gpairs/s";
  r.throughput = w.median > 0 ? pairs / (w.median * 1e-3) * 1e-9 : 0;
  r.ceiling_name = "none";
  return r;
}

double tri(std::size_t n) { return 0.5 * static_cast<double>(n) * static_cast<double>(n - 1); }

}  // namespace

std::vector<Row> run_bandwidth(const clstat::Context& ctx, const BandwidthBenchOptions& o) {
  std::vector<Row> rows;
  if (!ctx.info().fp64) {
    std::cerr << "[clstat-bench]   bandwidth: the device has no fp64; suite skipped\n";
    return rows;
  }
  const bool gpu = ctx.info().type == clstat::DeviceType::gpu;
  auto log = [&](Row r) {
    std::cerr << "[clstat-bench]   " << r.name << " n=" << r.n << ": " << r.wall_ms.median << " ms\n";
    rows.push_back(std::move(r));
  };
  // Exact plug-in, two stages: two passes over the pairs.
  std::vector<std::size_t> pn{1024, 4096, 16384, 32768};
  if (gpu && o.large) pn.push_back(std::size_t(1) << 20);
  for (std::size_t n : pn) {
    if (!gpu && n > 16384) break;
    const auto x = clstat_test::normal<double>(n, 1000 + n);
    double h = 0;
    const int reps = n > 100000 ? 1 : o.repeats;
    const auto call = [&] { h = bw::plugin(ctx, x.data(), n, 1)[0]; };
    Row r = row("plugin 2-stage d=1", n, 2 * tri(n), wall(call, reps), reps);
    r.kernel_ms = Stats::of({busy_ms(ctx, "plugin n=" + std::to_string(n), call)});
    if (n <= 4096) {
      r.check = "rel vs long-double plug-in";
      r.error = std::abs(h / static_cast<double>(clstat_ref::plugin(x, 2, true)) - 1);
      r.pass = r.error < 1e-10;
    } else {
      r.check = "not checked (reference O(n^2) long double too slow)";
    }
    log(r);
  }
  // LSCV_h, n_h = 150.
  for (std::size_t d : {1u, 4u, 16u})
    for (std::size_t n : {64u, 256u, 1024u}) {
      const auto x = clstat_test::normal<double>(n * d, 2000 + n + d);
      bw::LscvResult res;
      const auto call = [&] { res = bw::lscv_h(ctx, x.data(), n, d); };
      Row r = row("lscv_h n_h=150 d=" + std::to_string(d), n, 150 * tri(n), wall(call, o.repeats), o.repeats);
      r.kernel_ms = Stats::of({busy_ms(ctx, "lscv_h d=" + std::to_string(d) + " n=" + std::to_string(n), call)});
      r.check = "objective rel vs long double at h";
      r.error = std::abs(res.objective / static_cast<double>(clstat_ref::lscv(x, n, d, res.H)) - 1);
      r.pass = r.error < 1e-9;
      log(r);
    }
  if (gpu && o.large) {
    const std::size_t n = std::size_t(1) << 16;
    const auto x = clstat_test::normal<double>(n, 3000);
    Row r = row("lscv_h n_h=150 d=1", n, 150 * tri(n), wall([&] { bw::lscv_h(ctx, x.data(), n, 1); }, 1), 1);
    r.check = "not checked (size)";
    log(r);
  }
  // The objective against long double where that is affordable.
  auto check_objective = [](Row& r, const std::vector<double>& x, std::size_t n, std::size_t d,
                            const std::vector<double>& H, double f) {
    if (n <= 1024) {
      r.check = "rel vs long double";
      r.error = std::abs(f / static_cast<double>(clstat_ref::lscv(x, n, d, H)) - 1);
      r.pass = r.error < 1e-10;
    } else {
      r.check = "not checked (size)";
    }
  };
  // One LSCV_H objective evaluation.
  for (std::size_t d : {1u, 4u, 16u})
    for (std::size_t n : {1024u, 4096u, 16384u}) {
      if (!gpu && n > 4096) continue;
      const auto x = clstat_test::normal<double>(n * d, 4000 + n + d);
      std::vector<double> H(d * d, 0.0);
      for (std::size_t k = 0; k < d; ++k) H[k * d + k] = 0.3;
      double f = 0;
      const auto call = [&] { f = bw::lscv_objective(ctx, x.data(), n, d, H); };
      Row r = row("lscv_objective d=" + std::to_string(d), n, tri(n), wall(call, o.repeats), o.repeats);
      r.kernel_ms = Stats::of({busy_ms(ctx, "lscv_objective d=" + std::to_string(d) + " n=" + std::to_string(n), call)});
      check_objective(r, x, n, d, H, f);
      log(r);
    }
  // One LSCV_H evaluation as lscv_H makes it: data resident on the device, H changes per call.
  for (std::size_t d : {4u, 16u})
    for (std::size_t n : {1024u, 16384u}) {
      if (!gpu && n > 4096) continue;
      const auto x = clstat_test::normal<double>(n * d, 4000 + n + d);
      const bw::LscvObjective obj(ctx, x.data(), n, d);
      std::vector<double> H(d * d, 0.0);
      for (std::size_t k = 0; k < d; ++k) H[k * d + k] = 0.3;
      double f = 0;
      int call = 0;
      const auto one = [&] {
        H[0] = 0.3 * (1 + 1e-3 * (++call % 7));  // a new H each call, as the optimiser makes
        f = obj(H);
      };
      Row r = row("lscv_H evaluation (resident) d=" + std::to_string(d), n, tri(n), wall(one, o.repeats), o.repeats);
      r.kernel_ms = Stats::of({busy_ms(ctx, "lscv_H evaluation d=" + std::to_string(d) + " n=" + std::to_string(n), one)});
      check_objective(r, x, n, d, H, f);
      log(r);
    }
  // A whole LSCV_H.
  {
    const std::size_t n = gpu && o.large ? 16384 : 1024, d = 4;
    const auto x = clstat_test::normal<double>(n * d, 5000);
    bw::LscvMatrixResult res;
    Row r = row("lscv_H full d=4", n, 0, wall([&] { res = bw::lscv_H(ctx, x.data(), n, d); }, 1), 1);
    r.work = static_cast<double>(res.evaluations) * tri(n);
    r.throughput = r.work / (r.wall_ms.median * 1e-3) * 1e-9;
    r.check = "evaluations " + std::to_string(res.evaluations) + (res.converged ? ", converged" : ", not converged");
    r.pass = res.converged;
    log(r);
  }
  return rows;
}

}  // namespace bench
