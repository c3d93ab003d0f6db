#include "suite_robust.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <random>
#include <string>

#include "clstat/robust.hpp"

namespace bench {
namespace {

struct Data {
  std::vector<double> x, y, truth;
};

// Rows are generated in parallel blocks, each seeded by its index, so n = 1e7 takes seconds, not
// minutes, and the data are the same on every machine; the first 30% are the bad leverage points.
Data make_data(std::size_t n, std::size_t p, std::size_t bad) {
  Data d;
  d.x.resize(n * p);
  d.y.resize(n);
  d.truth.push_back(2);
  for (std::size_t j = 0; j < p; ++j) d.truth.push_back((j % 2 ? -1.0 : 1.0) / static_cast<double>(j / 2 + 1));
  for_blocks(n, [&](std::size_t b, std::size_t begin, std::size_t end) {
      std::mt19937_64 g(0x1234 + b);
      std::normal_distribution<double> z(0, 1);
      for (std::size_t i = begin; i < end; ++i) {
        double f = d.truth[0];
        for (std::size_t j = 0; j < p; ++j) {
          d.x[i * p + j] = z(g);
          f += d.truth[j + 1] * d.x[i * p + j];
        }
        d.y[i] = f + 0.1 * z(g);
        if (i < bad) {
          d.x[i * p] = 10 + z(g);
          d.y[i] += 50;
        }
      }
    });
  return d;
}

}  // namespace

std::vector<Row> run_robust(const clstat::Context& ctx, const RobustBenchOptions& o) {
  std::vector<Row> rows;
  if (!ctx.info().fp64) return rows;
  std::vector<std::pair<std::size_t, std::size_t>> shapes;
  const std::vector<std::size_t> ns = o.large ? std::vector<std::size_t>{10000, 100000, 1000000, 10000000}
                                              : std::vector<std::size_t>{10000, 100000};
  const std::vector<std::size_t> ps = o.large ? std::vector<std::size_t>{2, 5, 10, 20} : std::vector<std::size_t>{2, 10};
  for (auto n : ns)
    for (auto p : ps)
      if (o.max_log2 >= 63 || n <= (std::size_t(1) << o.max_log2)) shapes.push_back({n, p});
  for (auto [n, p] : shapes) {
    const std::size_t bad = n * 3 / 10;
    const Data d = make_data(n, p, bad);
    clstat::robust::LtsOptions lo;
    lo.nsamp = std::max<std::size_t>(500, static_cast<std::size_t>(std::ceil(15.0 / std::pow(0.7, p))));
    Row r;
    r.suite = "robust";
    r.name = "lts p=" + std::to_string(p) + " nsamp=" + std::to_string(lo.nsamp);
    r.precision = "f64";
    r.n = n;
    r.work = 1e3 * static_cast<double>(n);  // thousandths of rows: the table's 1e9 scale reads Mrows/s
    r.unit = "Mrows/s";
    r.check = "clean fit: max |coefficient - truth| < 0.05 and every planted row flagged";
    clstat::robust::LtsFit f;
    auto run = [&] { f = clstat::robust::lts(ctx, d.x.data(), n, p, d.y.data(), lo); };
    time_device_and_wall(ctx, r, o.repeats, run);
    r.throughput = r.wall_ms.median > 0 ? r.work / (r.wall_ms.median * 1e-3) * 1e-9 : 0;
    double err = 0;
    for (std::size_t j = 0; j <= p; ++j) err = std::max(err, std::fabs(f.coefficients[j] - d.truth[j]));
    std::size_t flagged = 0;
    for (auto i : f.outliers) flagged += i < bad;
    r.error = err;
    r.pass = err < 0.05 && flagged == bad;
    std::cerr << "[clstat-bench]   lts n=" << n << " p=" << p << " nsamp=" << lo.nsamp << ": " << r.wall_ms.median
              << " ms wall, " << r.kernel_ms.median << " ms device span, " << f.csteps << " final C-steps, error "
              << err << ", flagged " << flagged << "/" << bad << " planted + " << f.outliers.size() - flagged
              << " clean" << (r.pass ? "" : "  FAILED") << "\n";
    rows.push_back(r);
    // MM, and the MCD's starts, run on the host: 10^7 rows or p = 20 take minutes.
    if (n > 1000000 || p > 10) continue;
    {
      Row m = r;
      m.name = "mm p=" + std::to_string(p) + " nsamp=" + std::to_string(lo.nsamp);
      clstat::robust::MmOptions mo;
      mo.nsamp = lo.nsamp;
      m.check = "clean fit: max |coefficient - truth| < 0.05 and every planted row flagged";
      clstat::robust::MmFit mf;
      time_device_and_wall(ctx, m, std::max(1, o.repeats / 3),
                           [&] { mf = clstat::robust::mm(ctx, d.x.data(), n, p, d.y.data(), mo); });
      m.throughput = m.wall_ms.median > 0 ? m.work / (m.wall_ms.median * 1e-3) * 1e-9 : 0;
      double e = 0;
      for (std::size_t j = 0; j <= p; ++j) e = std::max(e, std::fabs(mf.coefficients[j] - d.truth[j]));
      std::size_t hit = 0;
      for (auto i : mf.outliers) hit += i < bad;
      m.error = e;
      m.pass = e < 0.05 && hit == bad;
      std::cerr << "[clstat-bench]   mm n=" << n << " p=" << p << ": " << m.wall_ms.median << " ms wall, error " << e
                << ", flagged " << hit << "/" << bad << (m.pass ? "" : "  FAILED") << "\n";
      rows.push_back(m);
    }
    {
      // The MCD of the explanatory columns: the planted rows (x_1 near 10) flagged, the centre 0.
      Row m = r;
      m.name = "mcd p=" + std::to_string(p) + " nsamp=" + std::to_string(lo.nsamp);
      clstat::robust::McdOptions co;
      co.nsamp = lo.nsamp;
      m.check = "every planted row flagged and max |centre| < 0.05";
      clstat::robust::McdFit mf;
      time_device_and_wall(ctx, m, std::max(1, o.repeats / 3),
                           [&] { mf = clstat::robust::mcd(ctx, d.x.data(), n, p, co); });
      m.throughput = m.wall_ms.median > 0 ? m.work / (m.wall_ms.median * 1e-3) * 1e-9 : 0;
      double e = 0;
      for (double c : mf.center) e = std::max(e, std::fabs(c));
      std::size_t hit = 0;
      for (auto i : mf.outliers) hit += i < bad;
      m.error = e;
      m.pass = e < 0.05 && hit == bad;
      std::cerr << "[clstat-bench]   mcd n=" << n << " p=" << p << ": " << m.wall_ms.median << " ms wall, "
                << mf.csteps << " final C-steps, max |centre| " << e << ", flagged " << hit << "/" << bad
                << (m.pass ? "" : "  FAILED") << "\n";
      rows.push_back(m);
    }
  }
  return rows;
}

}  // namespace bench
