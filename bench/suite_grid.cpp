#include "suite_grid.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>
#include <string>

#include "clstat/kde_grid.hpp"
#include "reference/kde_grid_reference.hpp"

namespace bench {
namespace {

using Clock = std::chrono::steady_clock;

// Samples in parallel blocks, each seeded by its index (the same data on every machine). d = 2: a mixture of three correlated normals;
// d = 3: one correlated normal (correlation 0.5).
std::vector<double> make_samples(std::size_t n, std::size_t d) {
  std::vector<double> x(n * d);
  for_blocks(n, [&](std::size_t b, std::size_t begin, std::size_t end) {
      std::mt19937_64 g(0x6d1d + b);
      std::normal_distribution<double> z;
      for (std::size_t i = begin; i < end; ++i) {
        const double c = z(g);
        for (std::size_t k = 0; k < d; ++k) x[i * d + k] = std::sqrt(0.5) * (c + z(g));
        if (d == 2 && i % 3 == 1) {
          x[i * d] = 0.6 * x[i * d] + 3;
          x[i * d + 1] = 0.4 * x[i * d + 1] - 1;
        } else if (d == 2 && i % 3 == 2) {
          x[i * d] = 0.5 * x[i * d] - 2.5;
          x[i * d + 1] = 0.8 * x[i * d + 1] + 2;
        }
      }
    });
  return x;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

std::vector<Row> run_grid(const clstat::Context& ctx, const GridBenchOptions& o) {
  std::vector<Row> rows;
  if (!ctx.info().fp64) return rows;
  struct Shape {
    std::size_t n;
    std::vector<std::size_t> count;
  };
  std::vector<Shape> shapes;
  if (o.large)
    shapes = {{3470000, {560, 540}}, {5890000, {3800, 3400}}, {500000, {110, 220, 322}}, {1000000, {220, 1100, 805}}};
  else
    shapes = {{347000, {560, 540}}, {50000, {110, 220, 322}}};
  for (const auto& s : shapes) {
    const std::size_t d = s.count.size(), n = s.n;
    const auto x = make_samples(n, d);
    clstat::GridSpec g;
    g.count = s.count;
    g.lower.assign(d, INFINITY);
    g.upper.assign(d, -INFINITY);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < d; ++k) {
        g.lower[k] = std::min(g.lower[k], x[i * d + k]);
        g.upper[k] = std::max(g.upper[k], x[i * d + k]);
      }
    const double h = clstat::grid_normal_scale(clstat::Kernel::epanechnikov, d, n);
    clstat::GridOptions go;
    go.kernel = clstat::Kernel::epanechnikov;
    go.bandwidth = clstat::Bandwidth::scaled_covariance(h);
    go.method = clstat::GridMethod::sample_wise;
    std::string shape;
    for (std::size_t k = 0; k < d; ++k) shape += (k ? "x" : "") + std::to_string(s.count[k]);
    Row r;
    r.suite = "grid";
    r.name = "s-kde epanechnikov " + std::to_string(d) + "d " + shape;
    r.precision = "f64";
    r.n = n;
    r.work = static_cast<double>(g.points());
    r.unit = "Gpoints/s";
    r.check = "24 grid points vs long double (1e-12 rel + q rounding)";
    // Into one caller-owned array (a user computing many grids reuses it), first touched by the
    // warm-up call, which also builds the program.
    std::vector<double> v(g.points());
    r.repeats = o.repeats;
    r.wall_ms = wall_stats([&] { clstat::evaluate_grid(ctx, x.data(), n, d, g, v.data(), go); }, o.repeats);
    r.throughput = r.work / (r.wall_ms.median * 1e-3) * 1e-9;
    // Check against the long-double estimator at random grid points.
    {
      const auto H = clstat_ref::scaled_covariance(x, n, d, h);
      std::vector<long double> hinv;
      long double det = 0;
      clstat_ref::invert(H, d, hinv, det);
      const long double cd = clstat::radial_kernel_integral(clstat::Kernel::epanechnikov, d);
      const long double scale = 1.0L / (static_cast<long double>(n) * std::sqrt(det) * cd);
      std::mt19937_64 rng(7);
      double worst = 0;
      bool ok = true;
      for (int t = 0; t < 24; ++t) {
        // Half the probes where the density is: at samples' nearest grid points.
        std::size_t lin = 0;
        if (t % 2 == 0) {
          lin = std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng);
        } else {
          const std::size_t j = std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
          for (std::size_t k = 0; k < d; ++k) {
            const double step = (g.upper[k] - g.lower[k]) / static_cast<double>(g.count[k] - 1);
            const auto i = static_cast<std::size_t>(std::llround((x[j * d + k] - g.lower[k]) / step));
            lin = lin * g.count[k] + std::min(i, g.count[k] - 1);
          }
        }
        const auto y = clstat_ref::grid_point(g.lower, g.upper, g.count, lin);
        const auto ref = clstat_ref::grid_density(x, n, d, y.data(), hinv, det, cd, 1, 1.0L);
        const long double err = std::fabs(static_cast<long double>(v[lin]) - ref.f);
        const long double tol = 1e-12L * ref.f + ref.cond * 0x1p-50L + (ref.edge ? scale : 0);
        ok = ok && err <= tol;
        if (ref.f > 0) worst = std::max(worst, static_cast<double>(err / ref.f));
      }
      r.error = worst;
      r.pass = ok;
    }
    std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms wall, h = " << h
              << (r.pass ? "" : "  FAILED") << "\n";
    rows.push_back(r);
    // EP-KDE on the first rows of the same grid, projected to the whole grid by its rate.
    clstat::GridSpec part = g;
    std::size_t inner = 1;
    for (std::size_t k = 1; k < d; ++k) inner *= g.count[k];
    const std::size_t want = o.ep_points;
    part.count[0] = std::max<std::size_t>(2, std::min(g.count[0], (want + inner - 1) / inner));
    part.upper[0] = g.lower[0] + (g.upper[0] - g.lower[0]) * static_cast<double>(part.count[0] - 1) /
                                     static_cast<double>(g.count[0] - 1);
    go.method = clstat::GridMethod::point_wise;
    clstat::evaluate_grid(ctx, x.data(), n, d, part, go);  // warm-up
    const auto t0 = Clock::now();
    const auto ep = clstat::evaluate_grid(ctx, x.data(), n, d, part, go);
    const double sec = seconds_since(t0);
    Row e = r;
    e.name = "ep-kde epanechnikov " + std::to_string(d) + "d " + shape + " (projected from " +
             std::to_string(part.points()) + " points)";
    e.repeats = 1;
    e.wall_ms = Stats::of({1e3 * sec * static_cast<double>(g.points()) / static_cast<double>(part.points())});
    e.throughput = static_cast<double>(part.points()) / sec * 1e-9;
    double diff = 0, top = 0;
    for (std::size_t i = 0; i < ep.size(); ++i) {
      diff = std::max(diff, std::fabs(ep[i] - v[i]));
      top = std::max(top, std::fabs(v[i]));
    }
    e.check = "equal to the S-KDE values on those points (1e-12 of the largest)";
    e.error = top > 0 ? diff / top : diff;
    e.pass = diff <= 1e-12 * top;
    std::cerr << "[clstat-bench]   " << e.name << ": " << 1e3 * sec << " ms for the part, projected "
              << e.wall_ms.median << " ms, S-KDE " << e.wall_ms.median / r.wall_ms.median << "x faster"
              << (e.pass ? "" : "  FAILED") << "\n";
    rows.push_back(e);
  }
  return rows;
}

}  // namespace bench
