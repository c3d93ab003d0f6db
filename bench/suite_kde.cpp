#include "suite_kde.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <random>

#include "peer_process.hpp"
#include "reference/kde_ref.hpp"

namespace bench {
namespace {

using clstat::Bandwidth;
using clstat::Buffer;
using clstat::Context;
using clstat::KdeOptions;
using clstat::KdeVariant;
using clstat::Precision;
using Clock = std::chrono::steady_clock;

std::vector<double> normal(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd(0, 1);
  std::vector<double> v(count);
  for (auto& x : v) x = nd(g);
  return v;
}

struct Problem {
  std::size_t n, m, d;
  std::vector<double> x, y;
};

Problem make_problem(std::size_t n, std::size_t m, std::size_t d) {
  return {n, m, d, normal(n * d, 1000 + n + d), normal(m * d, 2000 + m + d)};
}

// Device-resident inputs in T, timed through the device-buffer form.
struct DeviceProblem {
  virtual ~DeviceProblem() = default;
  virtual void run(const KdeOptions& o) = 0;
  virtual std::vector<double> result() = 0;
};

template <class T>
struct DeviceProblemT : DeviceProblem {
  clstat::Queue q;
  const Problem& p;
  Buffer<T> x, y, out;
  DeviceProblemT(const Context& ctx, const Problem& pr) : q(ctx.queue(0)), p(pr) {
    std::vector<T> xt(pr.x.begin(), pr.x.end()), yt(pr.y.begin(), pr.y.end());
    x = Buffer<T>(ctx, xt.data(), xt.size());
    y = Buffer<T>(ctx, yt.data(), yt.size());
    out = Buffer<T>(ctx, pr.m);
  }
  void run(const KdeOptions& o) override { clstat::kde_async(q, x, 0, p.n, p.d, y, 0, p.m, out, 0, o).wait(); }
  std::vector<double> result() override {
    auto v = out.to_host(q);
    return std::vector<double>(v.begin(), v.end());
  }
};

std::unique_ptr<DeviceProblem> device_problem(const Context& ctx, const Problem& p, Precision prec) {
  if (prec == Precision::float64) return std::make_unique<DeviceProblemT<double>>(ctx, p);
  return std::make_unique<DeviceProblemT<float>>(ctx, p);
}

// Median kernel span over repeats; the first call (compiles) is not timed. Runs over ~5 s are
// repeated fewer times.
Stats time_kernels(const Context& ctx, DeviceProblem& dp, const KdeOptions& o, int repeats, bool warm,
                   int* runs = nullptr) {
  if (warm) dp.run(o);
  std::vector<double> ms;
  ctx.take_profile();
  ctx.set_profiling(true);
  for (int i = 0; i < repeats; ++i) {
    dp.run(o);
    const auto rec = ctx.take_profile();
    if (!rec.empty()) ms.push_back(static_cast<double>(rec.back().end_ns - rec.front().start_ns) * 1e-6);
    double total = 0;
    for (double v : ms) total += v;
    if (i >= 1 && total > 5000) break;
    if (i == 0 && ms.back() > 5000) break;
  }
  ctx.set_profiling(false);
  if (runs) *runs = static_cast<int>(ms.size());
  return Stats::of(ms);
}

// Worst relative error over up to 16 points (beyond the reference's input-rounding allowance),
// where the density exceeds 1e-300 (fp64) or 1e-25 (fp32: below that its terms approach the
// float range, 2^-126, and underflow; high-dimensional fp32 rows then check fewer points).
double check_points(const Problem& p, const KdeOptions& o, const std::vector<double>& got) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < p.m; i += std::max<std::size_t>(1, p.m / 16)) idx.push_back(i);
  std::vector<double> ys;
  for (auto i : idx) ys.insert(ys.end(), p.y.begin() + i * p.d, p.y.begin() + (i + 1) * p.d);
  const long double eps = o.precision == Precision::float64 ? 0x1p-53L : 0x1p-24L;
  const auto ref = clstat_ref::kde(p.x, p.n, p.d, ys, idx.size(), o, false, eps, false);
  double worst = 0;
  for (std::size_t k = 0; k < idx.size(); ++k) {
    const long double r = ref[k].value;
    if (r < (o.precision == Precision::float64 ? 1e-300L : 1e-25L)) continue;
    const long double e = std::fabs(got[idx[k]] - r) - ref[k].ambiguity;
    worst = std::max(worst, static_cast<double>(std::max(0.0L, e) / r));
  }
  return worst;
}

const char* prec_name(Precision p) { return p == Precision::float64 ? "f64" : "f32"; }

// One timed row: the device-buffer form's kernels, the host form's wall time (up to 2^40 pairs),
// and the check.
Row kde_row(const Context& ctx, const clstat::Ceilings& c, const Problem& p, const KdeOptions& o,
            const std::string& name, int repeats, bool warm = true) {
  Row r{"kde", name, prec_name(o.precision), p.n};
  r.work = static_cast<double>(p.n) * static_cast<double>(p.m);
  r.unit = "Gpairs/s";
  set_exp_ceiling(ctx, c, o.precision == Precision::float64, r);
  auto dp = device_problem(ctx, p, o.precision);
  r.kernel_ms = time_kernels(ctx, *dp, o, repeats, warm, &r.repeats);
  r.throughput = r.kernel_ms.median > 0 ? r.work / (r.kernel_ms.median * 1e-3) * 1e-9 : 0;
  r.fraction = r.ceiling > 0 ? r.throughput / r.ceiling : 0;
  if (r.work <= 0x1p36) {
    std::vector<double> wall;
    for (int i = 0; i < 2; ++i) {
      const auto t0 = Clock::now();
      clstat::kde(ctx, p.x.data(), p.n, p.d, p.y.data(), p.m, o);
      wall.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    r.wall_ms = Stats::of(wall);
  }
  r.check = "max rel of 16 points vs long double";
  r.error = check_points(p, o, dp->result());
  r.pass = r.error <= (o.precision == Precision::float64 ? 1e-12 : 2e-5);
  return r;
}

// Runs the PyTorch peer and puts its Gpairs/s in r, or why it gave none in r.peer_error.
void add_torch_peer(Row& r, const KdeBenchOptions& o, bool gpu, std::size_t n, std::size_t m, std::size_t d,
                    Precision prec) {
  if (!o.peers || o.peers_dir.empty()) return;
  const std::string cmd = "python3 '" + o.peers_dir + "/kde_torch.py' --n " + std::to_string(n) + " --m " +
                          std::to_string(m) + " --d " + std::to_string(d) + " --dtype " +
                          (prec == Precision::float64 ? "float64" : "float32") + " --device " +
                          (gpu ? "cuda" : "cpu") + " --repeats 2";
  const clstat_bench::PeerRun p = clstat_bench::run_peer(cmd);
  const auto rate = p.ok ? clstat_bench::peer_number(p.out, "gpairs_per_s") : std::nullopt;
  if (!rate) {
    r.peer_error = "torch: " + (p.ok ? "no gpairs_per_s in its output: " + p.out : p.why);
    std::cerr << "[clstat-bench] torch peer unavailable: " << r.peer_error << "\n";
    return;
  }
  std::cerr << "[clstat-bench] torch: " << p.out;
  r.peer = "torch";
  r.peer_throughput = *rate;
}

KdeOptions gaussian(std::size_t d, std::size_t n, Precision prec) {
  KdeOptions o;
  o.precision = prec;
  o.bandwidth = Bandwidth::per_dimension(std::vector<double>(d, 1.06 * std::pow(double(n), -1.0 / (d + 4))));
  return o;
}

std::vector<Precision> precisions(const Context& ctx) {
  std::vector<Precision> p{Precision::float32};
  if (ctx.info().fp64) p.push_back(Precision::float64);
  return p;
}

}  // namespace

std::vector<Row> run_kde(const Context& ctx, const clstat::Ceilings& c, const KdeBenchOptions& o) {
  std::vector<Row> rows;
  const bool gpu = ctx.info().type == clstat::DeviceType::gpu;
  auto log = [&](const Row& r) {
    std::cerr << "[clstat-bench]   " << r.name << " " << r.precision << " n=" << r.n << ": " << r.throughput
              << " Gpairs/s\n";
    rows.push_back(r);
  };
  // 1-d Gaussian, n = m = 2^14 .. 2^max.
  for (Precision prec : precisions(ctx))
    for (int lg = 14; lg <= o.max_log2; lg += 2) {
      const std::size_t n = std::size_t(1) << lg;
      const Problem p = make_problem(n, n, 1);
      // Sizes after the first reuse its compiled kernels: no warm-up run (2^22 in fp64 is ~40 s).
      Row r = kde_row(ctx, c, p, gaussian(1, n, prec), "gaussian d=1", o.repeats, lg == 14);
      // PyTorch's rate is flat in n (one dense exp per pair); 2^16 and 2^18 show it in seconds.
      if (lg >= 16 && lg <= 18) add_torch_peer(r, o, gpu, n, n, 1, prec);
      log(r);
    }
  // Multivariate product Gaussian at n = m = 2^16 (the paper's d), and the d = 16 full matrix.
  const std::size_t nm = std::size_t(1) << (gpu ? 16 : 12);
  for (Precision prec : precisions(ctx)) {
    for (std::size_t d : {2, 6, 14, 30, 62}) {
      const Problem p = make_problem(nm, nm, d);
      log(kde_row(ctx, c, p, gaussian(d, nm, prec), "gaussian d=" + std::to_string(d), o.repeats));
    }
    const std::size_t d = 16, n16 = gpu ? (std::size_t(1) << 17) : nm;
    const Problem p = make_problem(n16, n16, d);
    KdeOptions fm = gaussian(d, n16, prec);
    const double h = 1.06 * std::pow(double(n16), -1.0 / (d + 4));
    std::vector<double> H(d * d);
    for (std::size_t a = 0; a < d; ++a)
      for (std::size_t b = 0; b < d; ++b) H[a * d + b] = h * h * (a == b ? 1.0 : 0.3);
    fm.bandwidth = Bandwidth::matrix(H);
    Row r = kde_row(ctx, c, p, fm, "gaussian H full d=16", o.repeats);
    if (prec == Precision::float32) add_torch_peer(r, o, gpu, n16, n16, d, prec);
    log(r);
  }
  // The three kernel variants of Michailidis & Margaritis sec. 3, and the one shaped for CPUs.
  for (Precision prec : precisions(ctx))
    for (std::size_t d : {1, 6}) {
      const std::size_t n = d == 1 ? (gpu ? std::size_t(1) << 18 : std::size_t(1) << 13) : nm;
      const Problem p = make_problem(n, n, d);
      for (KdeVariant v : {KdeVariant::naive, KdeVariant::tiled, KdeVariant::unrolled, KdeVariant::simd}) {
        KdeOptions ov = gaussian(d, n, prec);
        ov.variant = v;
        const char* vn = v == KdeVariant::naive ? "naive" : v == KdeVariant::tiled ? "tiled"
                         : v == KdeVariant::unrolled ? "unrolled" : "simd";
        log(kde_row(ctx, c, p, ov, std::string("variant ") + vn + " d=" + std::to_string(d), o.repeats));
      }
    }
  // A bounded kernel: no exp, so its ceiling is not the exp rate.
  for (Precision prec : precisions(ctx)) {
    const std::size_t n = gpu ? std::size_t(1) << 18 : std::size_t(1) << 13;
    const Problem p = make_problem(n, n, 1);
    KdeOptions e = gaussian(1, n, prec);
    e.kernel = clstat::Kernel::epanechnikov;
    Row r = kde_row(ctx, c, p, e, "epanechnikov d=1", o.repeats);
    r.ceiling_name = "none", r.ceiling = 0, r.fraction = 0;
    log(r);
  }
  return rows;
}

std::vector<Row> tune_kde(const Context& ctx, const clstat::Ceilings& c, int repeats, const std::string& only) {
  std::vector<Row> rows;
  const bool gpu = ctx.info().type == clstat::DeviceType::gpu;
  std::map<std::string, std::size_t> best_all;
  struct Class {
    const char* name;
    std::size_t d, lg;
  };
  // The benchmark's sizes: smaller problems under-fill a large GPU and reward one point per
  // work-item (`git show a10d6fa:bench/results/2026-11-22-h100-nvidia-kde-tune-small.log`).
  const Class classes[] = {{"d1", 1, gpu ? 18u : 12u}, {"d4", 4, gpu ? 16u : 11u}, {"d16", 16, gpu ? 16u : 10u},
                           {"d64", 30, gpu ? 15u : 9u}};
  for (Precision prec : precisions(ctx))
    for (const Class& cl : classes) {
      const std::string cls = std::string(prec_name(prec)) + "." + cl.name;
      if (!only.empty() && ("," + only + ",").find("," + cls + ",") == std::string::npos) continue;
      const std::size_t n = std::size_t(1) << cl.lg;
      const Problem p = make_problem(n, n, cl.d);
      auto dp = device_problem(ctx, p, prec);
      const double tol = prec == Precision::float64 ? 1e-12 : 2e-5;
      const std::string key = std::string("kde.") + prec_name(prec) + "." + cl.name + ".";
      // Start from a setting that is reasonable everywhere.
      KdeOptions o = gaussian(cl.d, n, prec);
      // GPUs start from the tiled variants' usual shape; CPUs from the simd variant's (its lanes
      // only there: the tuning file gets no key that the device's variant ignores).
      std::map<std::string, std::size_t> cur{{"variant", 3}, {"wg", 256}, {"ppt", 4}, {"tile", 256}, {"unroll", 4}, {"dot", 1}, {"vec", 1},
                                             {"exp_poly", prec == Precision::float64 ? 8u : 0u}};
      if (!gpu)
        cur = {{"variant", 4}, {"wg", 8}, {"ppt", 2}, {"tile", 256}, {"unroll", 1}, {"dot", 0}, {"vec", 0},
               {"lanes", prec == Precision::float64 ? 8u : 16u}};
      auto apply = [&](const std::map<std::string, std::size_t>& s) {
        KdeOptions t = o;
        t.variant = static_cast<KdeVariant>(s.at("variant"));
        t.launch.work_group = s.at("wg");
        t.launch.points_per_item = s.at("ppt");
        t.launch.tile = s.at("tile");
        t.launch.unroll = s.at("unroll");
        t.launch.expanded_square = static_cast<int>(s.at("dot"));
        t.launch.vector_rows = static_cast<int>(s.at("vec"));
        if (s.count("lanes")) t.launch.lanes = s.at("lanes");
        if (s.count("exp_poly")) t.launch.exp_poly = static_cast<int>(s.at("exp_poly"));
        return t;
      };
      auto measure = [&](const std::map<std::string, std::size_t>& s) {
        const KdeOptions t = apply(s);
        try {
          const Stats st = time_kernels(ctx, *dp, t, std::max(2, std::min(repeats, 3)), true);
          if (check_points(p, t, dp->result()) > tol) return 1e300;
          return st.min;
        } catch (const std::exception& e) {
          std::cerr << "[clstat-bench]   candidate rejected: " << e.what() << "\n";
          return 1e300;
        }
      };
      // GPUs: the tiled variants; CPUs: the simd variant (the others run at a tenth of its speed
      // there), whose tile, unroll and vector rows mean nothing.
      const std::map<std::string, std::vector<std::size_t>> space =
          gpu ? std::map<std::string, std::vector<std::size_t>>{{"variant", {2, 3}}, {"wg", {64, 128, 256, 512}},
                                                                {"ppt", {1, 2, 4, 8, 16}}, {"tile", {128, 256, 512, 1024}},
                                                                {"unroll", {1, 2, 4, 8, 16}}, {"dot", {0, 1}}, {"vec", {0, 1}},
                                                                {"exp_poly", {0, 1, 2, 4, 8}}}
              : std::map<std::string, std::vector<std::size_t>>{{"wg", {1, 2, 4, 8, 16, 64}}, {"ppt", {1, 2, 4}},
                                                                {"lanes", {4, 8, 16}}, {"dot", {0, 1}}};
      // Coordinate descent, swept again while a sweep still improves (the parameters interact:
      // vector rows make more points per work-item pay).
      double best = measure(cur);
      for (int sweep = 0; sweep < 3; ++sweep) {
        const double before = best;
        for (const auto& [name, values] : space) {
          for (std::size_t v : values) {
            if (v == cur[name]) continue;
            auto cand = cur;
            cand[name] = v;
            const double t = measure(cand);
            if (t < best * 0.98) best = t, cur = cand;
          }
        }
        if (best >= before * 0.98) break;
      }
      for (const auto& [k, v] : cur) best_all[key + k] = v;
      std::cerr << "[clstat-bench] tuned " << key << ":";
      for (const auto& [k, v] : cur) std::cerr << " " << k << "=" << v;
      std::cerr << " (" << best << " ms)\n";
      Row r{"kde-tune", std::string("tuned gaussian ") + cl.name + " (d=" + std::to_string(cl.d) + ")", prec_name(prec), n};
      r.work = static_cast<double>(n) * n;
      r.unit = "Gpairs/s";
      set_exp_ceiling(ctx, c, prec == Precision::float64, r);
      r.kernel_ms = Stats::of({best});
      r.repeats = 1;
      r.throughput = r.work / (best * 1e-3) * 1e-9;
      r.fraction = r.ceiling > 0 ? r.throughput / r.ceiling : 0;
      r.check = "every candidate vs long double";
      r.pass = best < 1e299;
      rows.push_back(r);
    }
  clstat::store_tuning(ctx.info(), best_all);
  std::cerr << "[clstat-bench] wrote " << best_all.size() << " KDE settings for '" << clstat::tuning_key(ctx.info())
            << "' to " << clstat::tuning_file() << "\n";
  return rows;
}

}  // namespace bench
