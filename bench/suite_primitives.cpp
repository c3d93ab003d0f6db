#include "suite_primitives.hpp"

#include "clstat/order.hpp"

#include <algorithm>
#include <cstring>
#include <chrono>
#include <cmath>
#include <functional>
#include <random>
#include <thread>

#include "reference/exact_sum.hpp"

namespace bench {
namespace {

using clstat::Buffer;
using clstat::Context;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Runs `device_run` (device-resident data) `repeats` times after one warm-up and records the
// device span of its kernels; runs `host_run` (host arrays, transfers included) for wall time.
void time_row(const Context& ctx, Row& r, int repeats, const std::function<void()>& device_run,
              const std::function<void()>& host_run) {
  device_run();
  ctx.take_profile();
  std::vector<double> kern, wall;
  ctx.set_profiling(true);
  for (int i = 0; i < repeats; ++i) {
    device_run();
    const auto rec = ctx.take_profile();
    if (!rec.empty()) kern.push_back(static_cast<double>(rec.back().end_ns - rec.front().start_ns) * 1e-6);
  }
  ctx.set_profiling(false);
  if (host_run) {
    host_run();
    for (int i = 0; i < std::max(1, repeats / 3); ++i) {
      const auto t0 = Clock::now();
      host_run();
      wall.push_back(ms_since(t0));
    }
  }
  r.repeats = repeats;
  r.kernel_ms = Stats::of(kern);
  r.wall_ms = Stats::of(wall);
  r.throughput = r.kernel_ms.median > 0 ? r.work / (r.kernel_ms.median * 1e-3) * 1e-9 : 0;
  r.fraction = r.ceiling > 0 ? r.throughput / r.ceiling : 0;
}

template <class T>
const char* prec() {
  return std::is_same<T, double>::value ? "f64" : "f32";
}

template <class T>
void reductions_for(const Context& ctx, const clstat::Ceilings& c, const Options& o, std::vector<Row>& rows) {
  const auto q = ctx.queue(0);
  std::mt19937_64 g(12345);
  std::vector<int> sizes;  // 2^20, 2^24 and the largest, each once
  for (int lg : {20, 24}) if (lg < o.max_log2) sizes.push_back(lg);
  sizes.push_back(o.max_log2);
  for (int lg : sizes) {
    const std::size_t n = std::size_t(1) << lg;
    // Adversarial data for the sum check: big values that cancel exactly, with small values between.
    std::vector<T> x(n);
    std::normal_distribution<double> nd(0, 1);
    const T big = std::is_same<T, double>::value ? T(1e16) : T(1e8);
    for (std::size_t i = 0; i < n; ++i) x[i] = (i % 3 == 0) ? big : (i % 3 == 1) ? static_cast<T>(nd(g)) : -big;
    Buffer<T> dev(ctx, x.data(), n);

    Row r{"reduce", "sum", prec<T>(), n};
    r.work = static_cast<double>(n) * sizeof(T);
    r.unit = "GB/s";
    r.ceiling_name = "read";
    r.ceiling = c.read_gbs;
    T got{};
    time_row(ctx, r, o.repeats, [&] { got = clstat::sum_async(q, dev, 0, n).get(); },
             [&] { clstat::sum(ctx, x.data(), n); });
    const double exact = clstat_ref::exact_sum(clstat_ref::widen(x));
    const T rounded = static_cast<T>(exact);
    const double ulp = std::nextafter(std::fabs(rounded), std::numeric_limits<T>::infinity()) - std::fabs(rounded);
    r.check = "ulp vs exact sum (adversarial)";
    r.error = std::fabs(static_cast<double>(got) - exact) / ulp;
    r.pass = r.error <= 2;
    rows.push_back(r);

    // At 2^20 a small call's latency (sum, extrema, moments); everything at the largest size.
    if (lg != o.max_log2 && lg != 20) continue;
    auto simple = [&](const char* name, std::function<void()> dev_run) {
      Row s{"reduce", name, prec<T>(), n};
      s.work = static_cast<double>(n) * sizeof(T);
      s.unit = "GB/s";
      s.ceiling_name = "read";
      s.ceiling = c.read_gbs;
      time_row(ctx, s, o.repeats, dev_run, nullptr);
      s.check = "none (see tests)";
      rows.push_back(s);
    };
    simple("extrema", [&] { clstat::extrema_async(q, dev, 0, n).get(); });
    simple("moments", [&] { clstat::moments_async(q, dev, 0, n).get(); });
    if (lg != o.max_log2) continue;
    simple("count_if(x>0)", [&] { clstat::count_if_async(q, dev, 0, n, clstat::Predicate::greater, T(0), T(0)).get(); });
    simple("transform(|x-c|)", [&] { clstat::transform_reduce_async(q, dev, 0, n, clstat::Transform::abs_dev, T(0.5)).get(); });
    // Many small arrays in one call: the first 2^24 values as 4096 rows of 4096.
    if (n < (std::size_t(1) << 24)) continue;
    const std::size_t R = 4096, C = 4096;
    auto batched = [&](const char* name, std::function<void()> dev_run, std::function<bool()> check) {
      Row s{"reduce", std::string(name) + " 4096 x 4096", prec<T>(), R * C};
      s.work = static_cast<double>(R * C) * sizeof(T);
      s.unit = "GB/s";
      s.ceiling_name = "read";
      s.ceiling = c.read_gbs;
      time_row(ctx, s, o.repeats, dev_run, nullptr);
      s.check = "rows 0 and 4095 == the single call on each row, bit for bit";
      s.pass = check();
      rows.push_back(s);
    };
    auto same = [](auto a, auto b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    std::vector<T> sr;
    batched("sum_rows", [&] { sr = clstat::sum_rows_async(q, dev, 0, R, C).get(); }, [&] {
      return same(sr[0], clstat::sum_async(q, dev, 0, C).get()) &&
             same(sr[R - 1], clstat::sum_async(q, dev, (R - 1) * C, C).get());
    });
    std::vector<clstat::Moments<T>> mr;
    batched("moments_rows", [&] { mr = clstat::moments_rows_async(q, dev, 0, R, C).get(); }, [&] {
      const auto a = clstat::moments_async(q, dev, 0, C).get(), b = clstat::moments_async(q, dev, (R - 1) * C, C).get();
      return same(mr[0].mean, a.mean) && same(mr[0].m2, a.m2) && same(mr[R - 1].mean, b.mean) && same(mr[R - 1].m2, b.m2);
    });
    std::vector<double> md;
    batched("median_rows", [&] { md = clstat::order::median_rows_async(q, dev, 0, R, C).get(); }, [&] {
      return same(md[0], clstat::order::median_async(q, dev, 0, C).get()) &&
             same(md[R - 1], clstat::order::median_async(q, dev, (R - 1) * C, C).get());
    });
    // The top 8 of every row with their columns (torch.topk(x, 8, dim=1)).
    clstat::order::TopK<T> tk;
    batched("top_k_rows (k = 8)", [&] { tk = clstat::order::top_k_rows_async(q, dev, 0, R, C, 8).get(); }, [&] {
      const auto a = clstat::order::top_k_async(q, dev, 0, C, 8).get(),
                 b = clstat::order::top_k_async(q, dev, (R - 1) * C, C, 8).get();
      return std::equal(a.values.begin(), a.values.end(), tk.values.begin()) &&
             std::equal(a.indices.begin(), a.indices.end(), tk.indices.begin()) &&
             std::equal(b.values.begin(), b.values.end(), tk.values.begin() + (R - 1) * 8) &&
             std::equal(b.indices.begin(), b.indices.end(), tk.indices.begin() + (R - 1) * 8);
    });
    // Five quantiles along the rows of 65536 x 2048 (NumPy's quantile(x, p, axis=1)).
    if (n < (std::size_t(1) << 27)) continue;
    const std::size_t QR = 65536, QC = 2048;
    const std::vector<double> probs{0.01, 0.1, 0.5, 0.9, 0.99};
    Row qr{"reduce", "quantiles_rows 65536 x 2048, 5 probs", prec<T>(), QR * QC};
    qr.work = static_cast<double>(QR * QC) * sizeof(T);
    qr.unit = "GB/s";
    qr.ceiling_name = "read";
    qr.ceiling = c.read_gbs;
    std::vector<double> qv;
    time_row(ctx, qr, o.repeats, [&] { qv = clstat::order::quantiles_rows_async(q, dev, 0, QR, QC, probs).get(); },
             nullptr);
    qr.check = "rows 0 and 65535 == the single call on each row, bit for bit";
    const auto q0 = clstat::order::quantiles_async(q, dev, 0, QC, probs).get();
    const auto q1 = clstat::order::quantiles_async(q, dev, (QR - 1) * QC, QC, probs).get();
    qr.pass = true;
    for (std::size_t j = 0; j < probs.size(); ++j)
      qr.pass = qr.pass && same(qv[j], q0[j]) && same(qv[(QR - 1) * probs.size() + j], q1[j]);
    rows.push_back(qr);
  }
}

// Reference sum over i < j of exp(-p (x_i - x_j)^2): q in long double, exp in double, Kahan in
// long double, rows spread over all host threads.
template <class T>
long double reference_triangle(const std::vector<T>& x, double p) {
  const unsigned nt = std::max(1u, std::thread::hardware_concurrency());
  std::vector<long double> part(nt, 0);
  std::vector<std::thread> th;
  for (unsigned t = 0; t < nt; ++t)
    th.emplace_back([&, t] {
      long double s = 0, comp = 0;
      const std::size_t n = x.size();
      for (std::size_t i = t; i < n; i += nt) {
        const long double xi = x[i];
        for (std::size_t j = i + 1; j < n; ++j) {
          const long double d = xi - static_cast<long double>(x[j]);
          const long double y = static_cast<long double>(std::exp(-static_cast<double>(p * d * d))) - comp;
          const long double u = s + y;
          comp = (u - s) - y;
          s = u;
        }
      }
      part[t] = s;
    });
  for (auto& h : th) h.join();
  long double total = 0;
  for (auto v : part) total += v;
  return total;
}

template <class T>
void pairwise_for(const Context& ctx, const clstat::Ceilings& c, const Options& o, std::vector<Row>& rows) {
  const auto q = ctx.queue(0);
  const bool dbl = std::is_same<T, double>::value;
  for (int lg = o.pair_max_log2 - 2; lg <= o.pair_max_log2; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    std::mt19937_64 g(777 + lg);
    std::normal_distribution<double> nd(0, 1);
    std::vector<T> x(n);
    for (auto& v : x) v = static_cast<T>(nd(g));
    Buffer<T> dev(ctx, x.data(), n);
    Row r{"pairwise", "sum_i<j exp(-(xi-xj)^2)", prec<T>(), n};
    r.work = static_cast<double>(n) * (n - 1) / 2;
    r.unit = "Gpairs/s";
    set_exp_ceiling(ctx, c, std::is_same<T, double>::value, r);
    double got = 0;
    time_row(ctx, r, o.repeats,
             [&] { got = clstat::pairwise_sum_async(q, dev, 0, n, 1, clstat::PairFunction::gaussian, {1.0}).get()[0]; },
             [&] { clstat::pairwise_sum(ctx, x.data(), n, 1, clstat::PairFunction::gaussian, {1.0}); });
    const long double ref = reference_triangle(x, 1.0);
    r.check = "rel vs long-double reference";
    r.error = static_cast<double>(std::fabs((got - ref) / ref));
    r.pass = r.error <= (dbl ? 1e-12 : 1e-6);
    rows.push_back(r);
  }
  // The points form at m = n = 2^(max-2): the KDE evaluation skeleton.
  const std::size_t m = std::size_t(1) << (o.pair_max_log2 - 2);
  std::vector<T> y(m);
  std::mt19937_64 g(99);
  std::normal_distribution<double> nd(0, 1);
  for (auto& v : y) v = static_cast<T>(nd(g));
  Buffer<T> dev(ctx, y.data(), m), out(ctx, m);
  Row r{"pairwise", "points sum_j exp(-(yi-xj)^2)", prec<T>(), m};
  r.work = static_cast<double>(m) * m;
  r.unit = "Gpairs/s";
  set_exp_ceiling(ctx, c, std::is_same<T, double>::value, r);
  time_row(ctx, r, o.repeats,
           [&] { clstat::pairwise_points_sum_async(q, dev, 0, m, dev, 0, m, 1, clstat::PairFunction::gaussian, {1.0}, out, 0).wait(); },
           nullptr);
  const auto res = out.to_host(q);
  double worst = 0;
  for (std::size_t i = 0; i < m; i += m / 16) {
    long double s = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const long double d = static_cast<long double>(y[i]) - y[j];
      s += std::exp(-static_cast<double>(d * d));
    }
    worst = std::max(worst, static_cast<double>(std::fabs((res[i] - s) / s)));
  }
  r.check = "max rel of 16 targets";
  r.error = worst;
  r.pass = worst <= (dbl ? 1e-12 : 1e-5);
  rows.push_back(r);
}

}  // namespace

std::vector<Row> run_reductions(const Context& ctx, const clstat::Ceilings& c, const Options& o) {
  std::vector<Row> rows;
  reductions_for<float>(ctx, c, o, rows);
  if (ctx.info().fp64) reductions_for<double>(ctx, c, o, rows);
  return rows;
}

std::vector<Row> run_pairwise(const Context& ctx, const clstat::Ceilings& c, const Options& o) {
  std::vector<Row> rows;
  pairwise_for<float>(ctx, c, o, rows);
  if (ctx.info().fp64) pairwise_for<double>(ctx, c, o, rows);
  return rows;
}

}  // namespace bench
