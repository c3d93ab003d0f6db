#include "suite_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>

#include <unistd.h>

#include "clstat/group.hpp"
#include "clstat/tuning.hpp"

namespace bench {

namespace {

// Weights from the devices' times alone: proportional to their rates, less every device whose
// share saves under 3% of the best device's time (it would cost more in the split than it adds).
std::vector<double> rate_weights(const std::vector<double>& t) {
  std::vector<double> w(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) w[i] = 1.0 / t[i];
  const std::size_t best = static_cast<std::size_t>(std::min_element(t.begin(), t.end()) - t.begin());
  for (;;) {
    double rate = 0;
    for (double v : w) rate += v;
    // The weakest device still in: drop it when the time it saves is under 3% of the best's.
    std::size_t weakest = best;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (w[i] > 0 && w[i] < w[weakest]) weakest = i;
    if (weakest == best) return w;
    const double with = 1.0 / rate, without = 1.0 / (rate - w[weakest]);
    if (without - with >= 0.03 * t[best]) return w;
    w[weakest] = 0;
  }
}

// "P:D", short enough for a row's name (the check names the device in full).
std::string at(const clstat::Device& d) {
  return std::to_string(d.info().platform_index) + ":" + std::to_string(d.info().device_index);
}

std::string weights_text(const std::vector<double>& w) {
  double s = 0;
  for (double v : w) s += v;
  std::ostringstream o;
  o.precision(2);
  for (std::size_t i = 0; i < w.size(); ++i) o << (i ? "/" : "") << w[i] / s;
  return o.str();
}

struct Op {
  std::string name, precision, unit;
  std::uint64_t n;
  double work;  // units of `unit` (1e9 or 1e6 scaled by the caller) per call
  double scale;
  std::size_t probe;  // each device alone first does n / probe of the work, to set the weights
  // The first k points (values) on one device; the whole on the group.
  std::function<std::vector<double>(const clstat::Context&, std::size_t k)> one;
  std::function<std::vector<double>(const clstat::DeviceGroup&)> group;
  double tol;  // relative; 0: equal
  double power = 1;  // the work grows as (the first k) ^ power: 2 for the pairs of k samples
  // Set where one and group write into caller memory (and return nothing): that memory, which is
  // filled with NaN before the group runs, so that a slice no member wrote fails the check.
  std::function<std::vector<double>&()> written;
};

}  // namespace

std::vector<Row> run_scaling(const std::vector<clstat::Device>& devices, int repeats) {
  std::vector<Row> rows;
  if (devices.size() < 2) return rows;
  std::vector<clstat::Context> ctx;
  bool gpu = false, fp64 = true, one_type = true;
  for (const auto& d : devices) {
    ctx.emplace_back(d);
    gpu = gpu || d.info().type == clstat::DeviceType::gpu;
    fp64 = fp64 && d.info().fp64;
    one_type = one_type && d.info().name == devices.front().info().name;
  }
  std::vector<Op> ops;
  std::mt19937_64 g(7);
  std::normal_distribution<double> z;

  // GPU sizes large enough that each of two GPUs' shares runs far longer than the launches and
  // host round trips it costs (the two-GPU acceptance sizes: KDE 2^22, median 2^30, 1e8 points).
  const std::size_t nk = gpu ? (1u << 22) : (1u << 14);
  auto kx = std::make_shared<std::vector<double>>(nk), ky = std::make_shared<std::vector<double>>(nk);
  for (auto& v : *kx) v = z(g);
  for (auto& v : *ky) v = 1.5 * z(g);
  clstat::KdeOptions ko;
  ko.bandwidth = clstat::Bandwidth::scalar(0.05);
  ko.precision = clstat::Precision::float32;
  // Each device's rate is judged on part of the work: with a GPU in the group, 1/4096 of the KDE
  // (2^10 of its 2^22 points: about 5 s for 16 CPU cores, 1.4 ms for an H200) and 1/256 of the
  // stable points; on CPUs alone, the whole (so a CPU never spends minutes on a probe).
  const std::size_t slow = gpu ? 256 : 1, kde_probe = gpu ? 4096 : 1;
  ops.push_back({"kde d=1 gaussian", "f32", "Gpairs/s", nk, double(nk) * double(nk), 1e9, kde_probe,
                 [=](const clstat::Context& c, std::size_t k) { return clstat::kde(c, kx->data(), nk, 1, ky->data(), k, ko); },
                 [=](const clstat::DeviceGroup& gr) { return clstat::kde(gr, kx->data(), nk, 1, ky->data(), nk, ko); },
                 2e-5});
  if (fp64) {
    // 2^30 doubles (8 GiB) where every device can hold them in one allocation and the host has
    // three times that (MemTotal may start small and grow on some hosts: it is read now).
    std::uint64_t cap = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGE_SIZE)) / 3;
    for (const auto& d : devices) cap = std::min<std::uint64_t>(cap, d.info().max_alloc_bytes);
    std::size_t nm = gpu ? (std::size_t(1) << 30) : (std::size_t(1) << 24);
    while (nm > (std::size_t(1) << 20) && nm * sizeof(double) > cap) nm /= 2;
    auto mx = std::make_shared<std::vector<double>>(nm);
    // Filled on every core, each block from its own seed (one thread takes half a minute for 2^30).
    for_blocks(nm, [&](std::size_t b, std::size_t lo, std::size_t hi) {
      std::mt19937_64 gb(7 + b);
      std::uniform_real_distribution<double> u(-1, 1);
      for (std::size_t i = lo; i < hi; ++i) (*mx)[i] = u(gb) * std::exp(3 * u(gb));
    });
    ops.push_back({"median (host data)", "f64", "GB/s", nm, double(nm) * 8, 1e9, gpu ? 64u : 1u,
                   [=](const clstat::Context& c, std::size_t k) {
                     return std::vector<double>{clstat::order::median(c, mx->data(), k)};
                   },
                   [=](const clstat::DeviceGroup& gr) {
                     return std::vector<double>{clstat::order::median(gr, mx->data(), nm)};
                   },
                   0});
    const std::size_t ns = gpu ? 100000000 : 20000;
    auto sx = std::make_shared<std::vector<double>>(ns);
    std::uniform_real_distribution<double> us(-20, 20);
    for (auto& v : *sx) v = us(g);
    const clstat::stable::Params law{1.5, 0.5, 1, 0, clstat::stable::Param::S0};
    ops.push_back({"stable pdf (1.5, 0.5) S0", "f64", "Mpt/s", ns, double(ns), 1e6, slow,
                   [=](const clstat::Context& c, std::size_t k) { return clstat::stable::pdf(c, sx->data(), k, law); },
                   [=](const clstat::DeviceGroup& gr) { return clstat::stable::pdf(gr, sx->data(), ns, law); },
                   one_type ? 1e-12 : 1e-9});
    // The same into caller memory, touched once before: what the members split is then the whole
    // call (a new result's first touch, above, is one thread's, as long as both transfers).
    auto so = std::make_shared<std::vector<double>>(ns);
    Op into{"stable pdf (1.5, 0.5) S0 into caller memory", "f64", "Mpt/s", ns, double(ns), 1e6, slow,
            [=](const clstat::Context& c, std::size_t k) {
              clstat::stable::pdf(c, sx->data(), k, law, so->data());
              return std::vector<double>{};
            },
            [=](const clstat::DeviceGroup& gr) {
              clstat::stable::pdf(gr, sx->data(), ns, law, so->data());
              return std::vector<double>{};
            },
            one_type ? 1e-12 : 1e-9};
    into.written = [=]() -> std::vector<double>& { return *so; };
    ops.push_back(into);
  }

  if (fp64) {
    // The plug-in bandwidth: its passes' tiles of the pair triangle split (2 stages, n^2 pairs).
    const std::size_t np = gpu ? (std::size_t(1) << 18) : (std::size_t(1) << 13);
    auto px = std::make_shared<std::vector<double>>(np);
    for (auto& v : *px) v = z(g);
    Op op{"plugin bandwidth, 2 stages", "f64", "Gpairs/s", np, double(np) * double(np), 1e9, gpu ? 16u : 1u,
          [=](const clstat::Context& c, std::size_t k) { return clstat::bandwidth::plugin(c, px->data(), k, 1); },
          [=](const clstat::DeviceGroup& gr) { return clstat::bandwidth::plugin(gr, px->data(), np, 1); },
          one_type ? 0 : 1e-12};
    op.power = 2;
    ops.push_back(op);
  }

  for (const Op& op : ops) {
    // Each device alone on a part of the work: its rate, and the time it would take for all.
    const std::size_t k = std::max<std::size_t>(1, op.n / op.probe);
    std::vector<double> t(ctx.size());
    for (std::size_t i = 0; i < ctx.size(); ++i) {
      const Stats s = wall_stats([&] { op.one(ctx[i], k); }, repeats);
      t[i] = s.median * std::pow(static_cast<double>(op.n) / static_cast<double>(k), op.power);
      if (k == op.n) continue;  // the full run below, or the row after
      Row r{"scaling", op.name + " on " + at(devices[i]) + ", 1/" + std::to_string(op.probe) + " of the work", op.precision, k};
      r.repeats = repeats;
      r.wall_ms = s;
      r.work = op.work / op.scale * std::pow(static_cast<double>(k) / static_cast<double>(op.n), op.power);
      r.unit = op.unit;
      r.throughput = r.work / (s.median * 1e-3);
      r.check = devices[i].info().label() + ": sets the weights";
      rows.push_back(r);
    }
    // The device with the best rate alone on all the work: the time the group must beat.
    const std::size_t best = static_cast<std::size_t>(std::min_element(t.begin(), t.end()) - t.begin());
    std::vector<double> want;
    const Stats sb = wall_stats([&] { want = op.one(ctx[best], op.n); }, repeats);
    if (op.written) want = op.written();
    // The probes judge the devices against each other; their absolute times carry the launch
    // latency of a small run (a 1/256 KDE probe on an H200 extrapolated to 18x its real time).
    // So every device's time is scaled by the best one's full run over its probe: with the best
    // device's full time beside the others' raw probes, two equal H200s got weights 0.95/0.05.
    const double latency = sb.median / t[best];
    for (double& v : t) v *= latency;
    {
      Row r{"scaling", op.name + " on " + at(devices[best]) + " alone", op.precision, op.n};
      r.repeats = repeats;
      r.wall_ms = sb;
      r.work = op.work / op.scale;
      r.unit = op.unit;
      r.throughput = r.work / (sb.median * 1e-3);
      r.check = devices[best].info().label() + " alone (reference for the group)";
      rows.push_back(r);
    }
    double ideal_rate = 0;
    for (double v : t) ideal_rate += 1.0 / v;
    // The group with the given weights: its row, and whether it beat the best device alone.
    auto group_row = [&](const std::vector<double>& w, const std::string& note) {
      const clstat::DeviceGroup group(ctx, w);
      std::vector<double> got;
      if (op.written) std::fill(op.written().begin(), op.written().end(), std::nan(""));
      const Stats s = wall_stats([&] { got = op.group(group); }, repeats);
      if (op.written) got = op.written();
      Row r{"scaling", op.name + " on " + std::to_string(ctx.size()) + " devices, weights " + weights_text(w) + note,
            op.precision, op.n};
      r.repeats = repeats;
      r.wall_ms = s;
      r.work = op.work / op.scale;
      r.unit = op.unit;
      r.throughput = r.work / (s.median * 1e-3);
      r.ceiling_name = "the devices' rates added";
      r.ceiling = r.work / (1e-3 / ideal_rate);
      r.fraction = r.throughput / r.ceiling;
      // Relative to the largest value: fp32 densities far in the tails carry only absolute accuracy.
      double err = 0, top = 0;
      const bool same = got.size() == want.size();
      for (std::size_t i = 0; same && i < got.size(); ++i) {
        const double d = std::isnan(got[i]) && std::isnan(want[i]) ? 0 : std::fabs(got[i] - want[i]);
        if (!(d <= err)) err = d;  // a NaN where a value was wanted makes err NaN, which fails
        top = std::max(top, std::fabs(want[i]));
      }
      if (top > 0) err /= top;
      r.error = err;
      r.pass = same && (op.tol == 0 ? err == 0 : err <= op.tol);
      std::ostringstream c;
      c.precision(3);
      c << "against " << devices[best].info().label() << " alone ("
        << (op.tol == 0 ? "equal" : "relative to the largest value") << "); " << t[best] / s.median << "x its time ("
        << t[best] << " ms)";
      r.check = c.str();
      rows.push_back(r);
      return s.median < t[best];
    };
    const std::vector<double> w = rate_weights(t);
    // A split that loses to the best device alone (the passes wait for the slowest member, the
    // rates were judged on part of the work) is not used: the group then gives it all.
    std::size_t used = 0;
    for (double v : w) used += v > 0;
    if (!group_row(w, "") && used > 1) {
      std::vector<double> only(ctx.size(), 0.0);
      only[best] = 1;
      group_row(only, " (chosen: the split was slower)");
    }
  }
  return rows;
}

std::vector<Row> tune_group(const clstat::Context& ctx, int repeats) {
  const std::size_t n = std::size_t(1) << 16;
  std::mt19937_64 g(3);
  std::normal_distribution<double> z;
  std::vector<double> x(n), y(std::size_t(1) << 22);
  for (auto& v : x) v = z(g);
  for (auto& v : y) v = 1.5 * z(g);
  clstat::KdeOptions ko;
  ko.bandwidth = clstat::Bandwidth::scalar(0.05);
  ko.precision = clstat::Precision::float32;
  // As many points as take 50 ms (a GPU's launch latency is then under 1% of the time).
  std::size_t m = 1024;
  Stats s = wall_stats([&] { clstat::kde(ctx, x.data(), n, 1, y.data(), m, ko); }, 1);
  while (s.median < 50 && m < y.size()) {
    m *= 2;
    s = wall_stats([&] { clstat::kde(ctx, x.data(), n, 1, y.data(), m, ko); }, 1);
  }
  s = wall_stats([&] { clstat::kde(ctx, x.data(), n, 1, y.data(), m, ko); }, repeats);
  const double rate = static_cast<double>(n) * static_cast<double>(m) / (s.median * 1e-3) * 1e-6;
  const std::size_t stored = std::max<std::size_t>(1, static_cast<std::size_t>(std::llround(rate)));
  clstat::store_tuning(ctx.info(), {{"group.rate", stored}});
  std::cerr << "[clstat-bench] wrote group.rate " << stored << " for '" << clstat::tuning_key(ctx.info()) << "' to "
            << clstat::tuning_file() << "\n";
  Row r{"group-tune", "kde d=1 gaussian, 2^16 samples (the device's group.rate)", "f32", m};
  r.repeats = repeats;
  r.wall_ms = s;
  r.work = static_cast<double>(n) * static_cast<double>(m) * 1e-6;
  r.unit = "Mpairs/s";
  r.throughput = rate;
  r.check = "stored as group.rate = " + std::to_string(stored);
  r.pass = rate > 0;
  return {r};
}

}  // namespace bench
