#include "suite_stable.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>

#include "clstat/stable.hpp"

namespace bench {

std::vector<Row> run_stable(const clstat::Context& ctx, const StableBenchOptions& o) {
  std::vector<Row> rows;
  if (!ctx.info().fp64) {
    std::cerr << "[clstat-bench]   stable: the device has no fp64; suite skipped\n";
    return rows;
  }
  namespace st = clstat::stable;
  std::vector<std::size_t> sizes{1000};
  if (o.large) sizes = {10000, 100000, 1000000};
  for (std::size_t n : sizes) {
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = -20 + 40 * (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    for (double a : {0.3, 0.8, 1.0, 1.2, 1.5, 1.9})
      for (double b : {0.0, 0.5, 1.0}) {
        const st::Params p{a, b, 1, 0, st::Param::S0};
        st::PdfCdf v;
        const int reps = n >= 1000000 ? 1 : o.repeats;
        const Stats t = wall_stats([&] { v = st::pdf_cdf(ctx, x.data(), n, p); }, reps);
        std::ostringstream name;
        name << "pdf_cdf a=" << a << " b=" << b;
        Row r{"stable", name.str(), "f64", n};
        r.repeats = reps;
        r.wall_ms = t;
        r.work = static_cast<double>(n);
        r.unit = "Mpoints/s";
        r.throughput = r.wall_ms.median > 0 ? static_cast<double>(n) / (r.wall_ms.median * 1e-3) * 1e-6 : 0;
        r.ceiling_name = "none";
        double worst = 0;
        bool finite = true;
        for (std::size_t i = 0; i < n; ++i) {
          finite = finite && std::isfinite(v.pdf[i]) && std::isfinite(v.cdf[i]);
          if (v.pdf[i] > 0) worst = std::max(worst, v.pdf_error[i] / v.pdf[i]);
        }
        r.check = "max pdf error estimate / pdf";
        r.error = worst;
        r.pass = finite && worst < 1e-11;
        std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms, "
                  << r.throughput << " Mpoints/s\n";
        rows.push_back(std::move(r));
      }
  }
  // Quantiles at N probabilities uniform in (0, 1), checked by the round trip through cdf.
  std::vector<std::size_t> qsizes{100};
  if (o.large) qsizes = {10000, 100000};
  for (std::size_t n : qsizes) {
    std::vector<double> pr(n);
    for (std::size_t i = 0; i < n; ++i) pr[i] = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    for (double a : {0.3, 0.8, 1.0, 1.2, 1.5, 1.9})
      for (double b : {0.0, 0.5, 1.0}) {
        const st::Params p{a, b, 1, 0, st::Param::S0};
        std::vector<double> q;
        const int reps = n >= 100000 ? 1 : o.repeats;
        const Stats t = wall_stats([&] { q = st::quantile(ctx, pr.data(), n, p); }, reps);
        const std::vector<double> F = st::cdf(ctx, q.data(), n, p);
        double worst = 0;
        for (std::size_t i = 0; i < n; ++i) worst = std::max(worst, std::abs(F[i] - pr[i]));
        std::ostringstream name;
        name << "quantile a=" << a << " b=" << b;
        Row r{"stable", name.str(), "f64", n};
        r.repeats = reps;
        r.wall_ms = t;
        r.work = static_cast<double>(n);
        r.unit = "Mpoints/s";
        r.throughput = r.wall_ms.median > 0 ? static_cast<double>(n) / (r.wall_ms.median * 1e-3) * 1e-6 : 0;
        r.ceiling_name = "none";
        r.check = "max |cdf(quantile(p)) - p|";
        r.error = worst;
        r.pass = worst <= 1e-12;
        std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms\n";
        rows.push_back(std::move(r));
      }
  }
  // Random numbers: throughput at 1e6 ... 1e8 samples (1e5 on CPUs), and a Kolmogorov-Smirnov
  // test of 1e6 samples (2e4 on CPUs) against our cdf for 12 laws.
  std::vector<std::size_t> rsizes{100000};
  if (o.large) rsizes = {1000000, 10000000, 100000000};
  for (std::size_t n : rsizes) {
    const st::Params p{1.5, 0.5, 1, 0, st::Param::S0};
    std::vector<double> y;
    int call = 0;
    const Stats t = wall_stats([&] { y = st::sample(ctx, n, p, 42 + call++); }, o.repeats);
    Row r{"stable", "sample a=1.5 b=0.5 (host array)", "f64", n};
    r.repeats = o.repeats;
    r.wall_ms = t;
    r.work = static_cast<double>(n);
    r.unit = "Gsamples/s";
    r.throughput = static_cast<double>(n) / (r.wall_ms.median * 1e-3) * 1e-9;
    r.ceiling_name = "none";
    r.check = "finite";
    r.pass = std::all_of(y.begin(), y.end(), [](double v) { return std::isfinite(v); });
    std::cerr << "[clstat-bench]   " << r.name << " n=" << n << ": " << r.wall_ms.median << " ms\n";
    rows.push_back(std::move(r));
    // Into a device buffer: wall time of the launch and its wait; kernel time from its event.
    clstat::Buffer<double> buf(ctx, n);
    const clstat::Queue q = ctx.queue(0);
    st::sample_async(q, buf, n, p, 1).wait();
    std::vector<double> tw, tk;
    for (int k = 0; k < o.repeats; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      const clstat::Event ev = st::sample_async(q, buf, n, p, 100 + k);
      ev.wait();
      tw.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      tk.push_back(static_cast<double>(ev.duration_ns()) * 1e-6);
    }
    Row d{"stable", "sample a=1.5 b=0.5 (device buffer)", "f64", n};
    d.repeats = o.repeats;
    d.wall_ms = Stats::of(tw);
    d.kernel_ms = Stats::of(tk);
    d.work = static_cast<double>(n);
    d.unit = "Gsamples/s";
    d.throughput = static_cast<double>(n) / (d.kernel_ms.median * 1e-3) * 1e-9;
    d.ceiling_name = "none";
    d.check = "kernel time; wall in wall_ms";
    d.pass = true;
    std::cerr << "[clstat-bench]   " << d.name << " n=" << n << ": kernel " << d.kernel_ms.median << " ms\n";
    rows.push_back(std::move(d));
  }
  const std::size_t nks = o.large ? 1000000 : 20000;
  for (const auto& [a, b] : std::vector<std::pair<double, double>>{{0.3, 0.0}, {0.5, 1.0}, {0.8, -0.5}, {1.0, 0.0},
                                                                   {1.0, 0.7}, {1.0, -1.0}, {1.2, 0.3}, {1.5, 0.0},
                                                                   {1.5, 1.0}, {1.8, -0.7}, {1.95, 0.2}, {2.0, 0.0}}) {
    const st::Params p{a, b, 1, 0, st::Param::S1};
    std::vector<double> y = st::sample(ctx, nks, p, 2026);
    std::sort(y.begin(), y.end());
    const std::vector<double> F = st::cdf(ctx, y.data(), nks, p);
    double D = 0;
    for (std::size_t i = 0; i < nks; ++i)
      D = std::max({D, F[i] - static_cast<double>(i) / nks, static_cast<double>(i + 1) / nks - F[i]});
    std::ostringstream name;
    name << "sample KS a=" << a << " b=" << b;
    Row r{"stable", name.str(), "f64", nks};
    r.unit = "D";
    r.throughput = D;
    r.ceiling_name = "none";
    r.check = "KS D * sqrt(n) below 1.95 (0.1% level)";
    r.error = D * std::sqrt(static_cast<double>(nks));
    r.pass = r.error < 1.95;
    std::cerr << "[clstat-bench]   " << r.name << ": D sqrt(n) = " << r.error << "\n";
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace bench
