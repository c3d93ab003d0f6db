// KDE on a bounded support (KdeOptions::boundary): reflection, renormalisation and the log
// transform against long-double references written from their definitions; each integrates to 1
// over the support (quadrature on a grid, d = 1 and 2); zero outside; bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "reference/kde_ref.hpp"
#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;
using LD = long double;
using Method = KdeBoundary::Method;

namespace {

const double inf = std::numeric_limits<double>::infinity();

std::vector<Precision> precisions() {
  std::vector<Precision> p{Precision::float32};
  if (clstat_test::has_fp64()) p.push_back(Precision::float64);
  return p;
}

// Uniform samples in the box (unbounded sides: [lo, lo + 3] or [hi - 3, hi]), some on its faces.
std::vector<double> box_samples(std::size_t n, const std::vector<double>& lo, const std::vector<double>& hi,
                                std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const std::size_t d = lo.size();
  std::vector<double> x(n * d);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < d; ++k) {
      const double a = std::isfinite(lo[k]) ? lo[k] : hi[k] - 3, b = std::isfinite(hi[k]) ? hi[k] : a + 3;
      x[j * d + k] = j % 50 == 0 ? a : j % 50 == 1 && std::isfinite(hi[k]) ? b : a + (b - a) * u(g) * u(g);
    }
  return x;
}

// The product kernel K_h(t) = prod_k K(t_k / h_k) / h_k, normalised.
LD product_kernel(Kernel k, const LD* t, const std::vector<double>& h) {
  LD p = 1;
  for (std::size_t i = 0; i < h.size(); ++i) p *= clstat_ref::kernel_density(k, t[i] / h[i]) / h[i];
  return p;
}

// The defining sums (long double) at m points: reflection over every combination of images,
// or each sample's kernel divided by its mass in the box.
std::vector<LD> reference(Method method, Kernel k, const std::vector<double>& x, const std::vector<double>& w,
                          std::size_t d, const std::vector<double>& y, const std::vector<double>& lo,
                          const std::vector<double>& hi, const std::vector<double>& h) {
  const std::size_t n = x.size() / d, m = y.size() / d;
  std::vector<LD> f(m, 0);
  LD wsum = 0;
  for (std::size_t j = 0; j < n; ++j) wsum += w.empty() ? 1 : w[j];
  for (std::size_t i = 0; i < m; ++i) {
    bool in = true;
    for (std::size_t c = 0; c < d; ++c) in = in && y[i * d + c] >= lo[c] && y[i * d + c] <= hi[c];
    if (!in) continue;
    for (std::size_t j = 0; j < n; ++j) {
      const LD wj = (w.empty() ? 1 : w[j]) / wsum;
      if (method == Method::reflection) {
        // Per dimension the images x, 2 lo - x, 2 hi - x (finite bounds only).
        std::size_t combos = 1;
        for (std::size_t c = 0; c < d; ++c) combos *= 3;
        for (std::size_t code = 0; code < combos; ++code) {
          LD t[2];
          bool ok = true;
          std::size_t cc = code;
          for (std::size_t c = 0; c < d; ++c, cc /= 3) {
            const LD v = x[j * d + c];
            const std::size_t which = cc % 3;
            if ((which == 1 && !std::isfinite(lo[c])) || (which == 2 && !std::isfinite(hi[c]))) ok = false;
            const LD img = which == 0 ? v : which == 1 ? 2 * LD(lo[c]) - v : 2 * LD(hi[c]) - v;
            t[c] = LD(y[i * d + c]) - img;
          }
          if (ok) f[i] += wj * product_kernel(k, t, h);
        }
      } else {
        LD t[2], mass = 1;
        for (std::size_t c = 0; c < d; ++c) {
          const LD v = x[j * d + c];
          t[c] = LD(y[i * d + c]) - v;
          const LD above = std::isfinite(hi[c]) ? clstat_ref::kernel_cdf(k, (LD(hi[c]) - v) / h[c]) : 1;
          const LD below = std::isfinite(lo[c]) ? clstat_ref::kernel_cdf(k, (LD(lo[c]) - v) / h[c]) : 0;
          mass *= above - below;
        }
        f[i] += wj * product_kernel(k, t, h) / mass;
      }
    }
  }
  return f;
}

KdeOptions bounded(Method method, Kernel k, Precision p, const std::vector<double>& lo, const std::vector<double>& hi,
                   const std::vector<double>& h) {
  KdeOptions o;
  o.kernel = k;
  o.precision = p;
  o.bandwidth = h.size() == 1 ? Bandwidth::scalar(h[0]) : Bandwidth::per_dimension(h);
  o.boundary.method = method;
  o.boundary.lower = lo;
  o.boundary.upper = hi;
  return o;
}

}  // namespace

TEST_CASE("kde_boundary.matches_the_definitions") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  struct Setup {
    std::vector<double> lo, hi, h;
  };
  const Setup setups[] = {{{0.0}, {1.0}, {0.15}}, {{-inf}, {2.0}, {0.3}}, {{0.0, -1.0}, {1.0, inf}, {0.2, 0.35}}};
  int c = 0;
  for (const Setup& s : setups)
    for (Method method : {Method::reflection, Method::renormalisation})
      for (Kernel k : {Kernel::gaussian, Kernel::epanechnikov, Kernel::cosine})
        for (Precision p : precisions()) {
          ++c;
          const std::size_t d = s.lo.size(), n = 240, m = 90;
          INFO("d " << d << " method " << static_cast<int>(method) << " kernel " << static_cast<int>(k)
                    << (p == Precision::float64 ? " fp64" : " fp32"));
          const auto x = box_samples(n, s.lo, s.hi, seed + c);
          // Points over the box and a little beyond it, where the estimate is 0.
          auto y = clstat_test::normal<double>(m * d, seed + c + 500, 0.5, 1.2);
          std::vector<double> w;
          if (c % 2)
            for (std::size_t j = 0; j < n; ++j) w.push_back(0.3 + static_cast<double>(j % 4));
          KdeOptions o = bounded(method, k, p, s.lo, s.hi, s.h);
          o.weights = w;
          const auto f = kde(ctx(), x.data(), n, d, y.data(), m, o);
          const auto ref = reference(method, k, x, w, d, y, s.lo, s.hi, s.h);
          const double rel = p == Precision::float64 ? 1e-12 : 2e-5;
          for (std::size_t i = 0; i < m; ++i) {
            INFO("point " << i << " got " << f[i] << " want " << double(ref[i]));
            if (ref[i] == 0) {
              // Outside the box (or beyond every bounded kernel's reach): exactly 0.
              bool in = true;
              for (std::size_t q = 0; q < d; ++q) in = in && y[i * d + q] >= s.lo[q] && y[i * d + q] <= s.hi[q];
              if (!in) CHECK(f[i] == 0.0);
              continue;
            }
            // Rounding the coordinates (about 1) to the device precision moves a term by up to
            // |K'| eps / h^2, which near a bounded kernel's edge is far more than its value: an
            // absolute allowance of that size (1e-14 in fp64, 1e-5 in fp32) covers it.
            CHECK(std::fabs(f[i] - double(ref[i])) <= rel * double(ref[i]) + (p == Precision::float64 ? 1e-14 : 1e-5));
          }
          // At the samples, as at the same points.
          const auto fs = kde_at_samples(ctx(), x.data(), n, d, o);
          const auto fx = kde(ctx(), x.data(), n, d, x.data(), n, o);
          CHECK(fs == fx);
        }
}

TEST_CASE("kde_boundary.integrates_to_one") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const Precision p = clstat_test::has_fp64() ? Precision::float64 : Precision::float32;
  // d = 1 on [0, 2], by the trapezoid rule on 4001 nodes.
  {
    const std::vector<double> lo{0.0}, hi{2.0};
    const auto x = box_samples(400, lo, hi, seed);
    std::vector<double> g(4001);
    for (std::size_t i = 0; i < g.size(); ++i) g[i] = 2.0 * i / (g.size() - 1);
    for (Method method : {Method::reflection, Method::renormalisation})
      for (Kernel k : {Kernel::gaussian, Kernel::epanechnikov, Kernel::biweight}) {
        INFO("d 1 method " << static_cast<int>(method) << " kernel " << static_cast<int>(k));
        const auto f = kde(ctx(), x.data(), x.size(), 1, g.data(), g.size(), bounded(method, k, p, lo, hi, {0.12}));
        double integral = 0;
        for (std::size_t i = 1; i < g.size(); ++i) integral += 0.5 * (f[i] + f[i - 1]) * (g[i] - g[i - 1]);
        CHECK(std::fabs(integral - 1) < 1e-4);
        // Without a correction the same data lose mass past the faces.
        KdeOptions plain = bounded(method, k, p, lo, hi, {0.12});
        plain.boundary = {};
        const auto f0 = kde(ctx(), x.data(), x.size(), 1, g.data(), g.size(), plain);
        double i0 = 0;
        for (std::size_t i = 1; i < g.size(); ++i) i0 += 0.5 * (f0[i] + f0[i - 1]) * (g[i] - g[i - 1]);
        CHECK(i0 < 0.99);
      }
  }
  // d = 2 on [0, 1] x [0, 1], 301 x 301 nodes.
  {
    const std::vector<double> lo{0.0, 0.0}, hi{1.0, 1.0};
    const auto x = box_samples(300, lo, hi, seed + 1);
    const std::size_t N = 301;
    std::vector<double> g;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) g.push_back(double(i) / (N - 1)), g.push_back(double(j) / (N - 1));
    for (Method method : {Method::reflection, Method::renormalisation}) {
      INFO("d 2 method " << static_cast<int>(method));
      const auto f = kde(ctx(), x.data(), x.size() / 2, 2, g.data(), N * N,
                         bounded(method, Kernel::gaussian, p, lo, hi, {0.1, 0.12}));
      double integral = 0;
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j)
          integral += f[i * N + j] * (i == 0 || i == N - 1 ? 0.5 : 1.0) * (j == 0 || j == N - 1 ? 0.5 : 1.0);
      integral /= double(N - 1) * double(N - 1);
      CHECK(std::fabs(integral - 1) < 1e-3);
    }
  }
  // The log transform on (0, inf): the estimate of log x mapped back, which integrates to 1 in
  // log y (nodes from 1e-8 to 1e4).
  {
    std::mt19937_64 rng(seed + 2);
    std::gamma_distribution<double> gam(2.0, 1.0);
    std::vector<double> x(500);
    for (double& v : x) v = gam(rng);
    std::vector<double> z(x.size()), t(6001), y(t.size());
    for (std::size_t j = 0; j < x.size(); ++j) z[j] = std::log(x[j]);
    for (std::size_t i = 0; i < t.size(); ++i) {
      y[i] = std::exp(std::log(1e-8) + (std::log(1e4) - std::log(1e-8)) * i / (t.size() - 1));
      t[i] = std::log(y[i]);  // the very coordinates the transform makes
    }
    KdeOptions o = bounded(Method::log_transform, Kernel::gaussian, p, {0.0}, {inf}, {0.25});
    const auto f = kde(ctx(), x.data(), x.size(), 1, y.data(), y.size(), o);
    KdeOptions plain = o;
    plain.boundary = {};
    const auto fz = kde(ctx(), z.data(), z.size(), 1, t.data(), t.size(), plain);
    double integral = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      CHECK(std::fabs(f[i] * y[i] - fz[i]) <= 1e-12 * fz[i] + 1e-300);
      if (i) integral += 0.5 * (f[i] * y[i] + f[i - 1] * y[i - 1]) * (t[i] - t[i - 1]);
    }
    CHECK(std::fabs(integral - 1) < 1e-6);
    const std::vector<double> neg{-1.0, 0.0};
    const auto outside = kde(ctx(), x.data(), x.size(), 1, neg.data(), 2, o);
    CHECK(outside[0] == 0.0);
    CHECK(outside[1] == 0.0);
    o.log_density = true;
    const auto lf = kde(ctx(), x.data(), x.size(), 1, y.data() + 3000, 1, o);
    CHECK(std::fabs(lf[0] - std::log(f[3000])) < 1e-12);
  }
}

TEST_CASE("kde_boundary.bad_input") {
  const std::vector<double> x{0.1, 0.5, 0.9}, y{0.5};
  const Precision p = clstat_test::has_fp64() ? Precision::float64 : Precision::float32;
  auto run = [&](KdeOptions o, std::size_t d = 1) { kde(ctx(), x.data(), x.size() / d, d, y.data(), 1, o); };
  KdeOptions o = bounded(Method::reflection, Kernel::gaussian, p, {0.0}, {1.0}, {0.2});
  KdeOptions b = o;
  b.boundary.lower = {1.0};
  clstat_test::throws_with([&] { run(b); }, "not below upper");
  b = o;
  b.boundary.upper = {1.0, 2.0};
  clstat_test::throws_with([&] { run(b); }, "upper has 2 values for d = 1");
  b = o;
  b.boundary.upper = {0.8};
  clstat_test::throws_with([&] { run(b); }, "sample 2 lies outside the box");
  b = o;
  b.bandwidth = Bandwidth::matrix({0.04});
  clstat_test::throws_with([&] { run(b); }, "diagonal bandwidth");
  b = o;
  b.boundary.method = Method::renormalisation;
  b.bandwidth = Bandwidth::scaled_covariance(0.5);
  clstat_test::throws_with([&] { run(b); }, "diagonal bandwidth");
  b = o;
  b.boundary.method = Method::log_transform;
  clstat_test::throws_with([&] { run(b); }, "lower bounds only");
  b.boundary.upper = {};
  b.boundary.lower = {0.1};
  clstat_test::throws_with([&] { run(b); }, "sample 0 is not above the lower bounds");
  b = o;
  b.boundary.method = static_cast<Method>(7);
  clstat_test::throws_with([&] { run(b); }, "unknown boundary method");
  b = o;
  b.leave_one_out = true;
  clstat_test::throws_with([&] { kde_at_samples(ctx(), x.data(), 3, 1, b); }, "leave-one-out");
  const std::vector<double> x5(5, 0.5);
  b = bounded(Method::reflection, Kernel::gaussian, p, std::vector<double>(5, 0.0), std::vector<double>(5, 1.0), {0.2});
  clstat_test::throws_with([&] { kde(ctx(), x5.data(), 1, 5, x5.data(), 1, b); }, "more than 81 copies");
  clstat_test::throws_with([&] { kde_async(ctx().queue(0), x.data(), 3, 1, y.data(), 1, o).get(); }, "host forms");
  const std::vector<double> ynan{std::nan("")};
  clstat_test::throws_with([&] { kde(ctx(), x.data(), 3, 1, ynan.data(), 1, o); }, "evaluation points");
}
