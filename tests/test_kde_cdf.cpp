// The kernel CDF (kde_cdf, d = 1): against scipy.stats.gaussian_kde.integrate_box_1d
// (tests/data/kde_cdf_scipy.csv, made by tools/golden/kde_cdf_scipy.py); every kernel against a
// long-double reference whose integrated kernels come from Gauss-Legendre quadrature of the
// kernel shapes (not from the closed forms the device uses); the limits, monotonicity, the log
// form, the variants; bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "reference/kde_ref.hpp"
#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;
using LD = long double;

namespace {

const Kernel k_all[] = {Kernel::gaussian,   Kernel::epanechnikov, Kernel::biweight, Kernel::triweight,
                        Kernel::triangular, Kernel::uniform,      Kernel::cosine};

std::vector<Precision> precisions() {
  std::vector<Precision> p{Precision::float32};
  if (clstat_test::has_fp64()) p.push_back(Precision::float64);
  return p;
}

struct RefValue {
  LD F = 0, ambiguity = 0;
};

// F(y) in long double, and what rounding the centred inputs to the device precision (unit
// roundoff eps) alone can change: sum_j w_j K(u_j) |du_j|, with |du| <= eps (|y| + |x|) / h.
std::vector<RefValue> reference(const std::vector<double>& x, const std::vector<double>& w, const std::vector<double>& y,
                                Kernel k, double h, LD eps) {
  LD mean = 0, wsum = 0;
  for (double v : x) mean += v;
  mean /= x.size();
  for (std::size_t j = 0; j < x.size(); ++j) wsum += w.empty() ? 1 : w[j];
  std::vector<RefValue> r(y.size());
  for (std::size_t i = 0; i < y.size(); ++i)
    for (std::size_t j = 0; j < x.size(); ++j) {
      const LD wj = (w.empty() ? 1 : w[j]) / wsum, u = (LD(y[i]) - LD(x[j])) / h;
      r[i].F += wj * clstat_ref::kernel_cdf(k, u);
      const LD du = eps * (std::fabs(LD(y[i]) - mean) + std::fabs(LD(x[j]) - mean)) / h;
      r[i].ambiguity += wj * (clstat_ref::kernel_density(k, u) * du + (k == Kernel::uniform && std::fabs(std::fabs(u) - 1) <= du ? 0.5L : 0));
    }
  return r;
}

void check_against(const std::vector<double>& got, const std::vector<RefValue>& ref, Precision p) {
  REQUIRE(got.size() == ref.size());
  const LD rel = p == Precision::float64 ? 1e-12L : 2e-5L, abs = p == Precision::float64 ? 1e-300L : 1e-6L;
  std::size_t bad = 0;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const LD e = std::fabs(LD(got[i]) - ref[i].F) - ref[i].ambiguity;
    worst = std::max(worst, double(e / std::max(ref[i].F, LD(1e-300))));
    if (!(e <= rel * ref[i].F + abs) || std::isnan(got[i])) ++bad;
  }
  INFO("worst relative error beyond the input-rounding allowance " << worst);
  CHECK(bad == 0);
}

struct Golden {
  double h = 0;
  std::vector<double> x, w, y, F;
};

std::map<std::string, Golden> load_golden() {
  std::ifstream in(CLSTAT_TEST_DATA_DIR "/kde_cdf_scipy.csv");
  REQUIRE(in);
  std::map<std::string, Golden> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string tok;
    while (std::getline(ss, tok, ',')) f.push_back(tok);
    Golden& g = cases[f[0]];
    g.h = std::stod(f[2]);
    const double v = std::stod(f[5]);
    if (f[3] == "x") {
      g.x.push_back(v);
      if (f[1] == "1") g.w.push_back(std::stod(f[6]));
    } else if (f[3] == "y") {
      g.y.push_back(v);
    } else {
      g.F.push_back(v);
    }
  }
  return cases;
}

}  // namespace

TEST_CASE("kde_cdf.scipy_golden") {
  const auto cases = load_golden();
  REQUIRE(cases.size() == 3);
  for (const auto& [name, g] : cases)
    for (Precision p : precisions()) {
      INFO(name << (p == Precision::float64 ? " fp64" : " fp32"));
      REQUIRE(g.F.size() == g.y.size());
      KdeOptions o;
      o.precision = p;
      o.bandwidth = Bandwidth::scalar(g.h);
      o.weights = g.w;
      const auto F = kde_cdf(ctx(), g.x.data(), g.x.size(), g.y.data(), g.y.size(), o);
      // SciPy sums its terms in double; the points reach F = 6e-31 in the lower tail, where
      // fp32's input rounding alone moves F by a few parts in 10^5 (|u| du), so fp32 is held to
      // 1e-6 absolute there.
      const double rel = p == Precision::float64 ? 1e-12 : 2e-5, abs = p == Precision::float64 ? 0 : 1e-6;
      for (std::size_t i = 0; i < g.y.size(); ++i) {
        INFO("y = " << g.y[i] << " scipy " << g.F[i] << " clstat " << F[i]);
        CHECK(std::fabs(F[i] - g.F[i]) <= rel * g.F[i] + abs);
      }
    }
}

TEST_CASE("kde_cdf.every_kernel_against_quadrature") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 333, m = 120;
  int c = 0;
  for (Kernel k : k_all)
    for (Precision p : precisions())
      for (bool weighted : {false, true}) {
        ++c;
        INFO("kernel " << static_cast<int>(k) << (p == Precision::float64 ? " fp64" : " fp32") << " weighted " << weighted);
        const auto x = clstat_test::normal<double>(n, seed + c, 1.0, 2.0);
        const double h = 0.45;
        // Points over the data, and two 40 bandwidths beyond it, where every kernel's F is 0 or 1
        // up to rounding: the Gaussian's tail mass there is Phi(-40), below fp64's range. (At a few
        // bandwidths it is not: Phi(-6.7) / n is 4e-14, a real deficit the reference also has.)
        auto y = clstat_test::normal<double>(m, seed + c + 100, 1.0, 2.5);
        y[0] = *std::min_element(x.begin(), x.end()) - 40 * h;
        y[1] = *std::max_element(x.begin(), x.end()) + 40 * h;
        std::vector<double> w;
        if (weighted)
          for (std::size_t j = 0; j < n; ++j) w.push_back(0.2 + static_cast<double>((j * 7) % 5));
        KdeOptions o;
        o.kernel = k;
        o.precision = p;
        o.bandwidth = Bandwidth::scalar(h);
        o.weights = w;
        const auto F = kde_cdf(ctx(), x.data(), n, y.data(), m, o);
        const LD eps = p == Precision::float64 ? 0x1p-53L : 0x1p-24L;
        check_against(F, reference(x, w, y, k, h, eps), p);
        // Beyond the data: exactly 0 for the bounded kernels, and 1 to within rounding.
        if (k != Kernel::gaussian) CHECK(F[0] == 0.0);
        CHECK(std::fabs(F[1] - 1.0) <= (p == Precision::float64 ? 1e-13 : 1e-6));  // weights summing to 1 in rounding
        for (double v : F) CHECK((v >= 0 && v <= 1 + 1e-6));
      }
}

TEST_CASE("kde_cdf.monotone_log_and_variants") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 2000, m = 700;
  const auto x = clstat_test::normal<double>(n, seed);
  auto y = clstat_test::normal<double>(m, seed + 1, 0.0, 1.3);
  std::sort(y.begin(), y.end());
  for (Kernel k : {Kernel::gaussian, Kernel::biweight, Kernel::cosine})
    for (Precision p : precisions()) {
      INFO("kernel " << static_cast<int>(k) << (p == Precision::float64 ? " fp64" : " fp32"));
      KdeOptions o;
      o.kernel = k;
      o.precision = p;
      o.bandwidth = Bandwidth::scaled_covariance(0.3);
      const auto F = kde_cdf(ctx(), x.data(), n, y.data(), m, o);
      const double ulp = p == Precision::float64 ? 0x1p-52 : 0x1p-23;
      for (std::size_t i = 1; i < m; ++i) CHECK(F[i] >= F[i - 1] - 8 * ulp * F[i - 1]);
      // The same h three ways: scaled_covariance(c) is c times the sample standard deviation.
      double mean = 0, ss = 0;
      for (double v : x) mean += v;
      mean /= n;
      for (double v : x) ss += (v - mean) * (v - mean);
      const double h = 0.3 * std::sqrt(ss / (n - 1));
      KdeOptions os = o;
      os.bandwidth = Bandwidth::scalar(h);
      const auto Fs = kde_cdf(ctx(), x.data(), n, y.data(), m, os);
      os.bandwidth = Bandwidth::matrix({h * h});
      const auto Fm = kde_cdf(ctx(), x.data(), n, y.data(), m, os);
      // (h itself is rounded differently three ways, and near a bounded kernel's edge F is
      // sensitive to it, so this is the accuracy bar, not a few ulps.)
      const double rel = p == Precision::float64 ? 1e-12 : 2e-5, abs = p == Precision::float64 ? 1e-15 : 1e-6;
      for (std::size_t i = 0; i < m; ++i) {
        CHECK(std::fabs(Fs[i] - F[i]) <= rel * F[i] + abs);
        CHECK(std::fabs(Fm[i] - F[i]) <= rel * F[i] + abs);
      }
      KdeOptions ol = o;
      ol.log_density = true;
      const auto L = kde_cdf(ctx(), x.data(), n, y.data(), m, ol);
      for (std::size_t i = 0; i < m; ++i) {
        if (F[i] > 0)
          CHECK(std::fabs(L[i] - std::log(F[i])) <= 4 * ulp * (1 + std::fabs(L[i])) + (p == Precision::float64 ? 0 : 1e-6 / F[i]));
        else
          CHECK(L[i] == -std::numeric_limits<double>::infinity());
      }
      // The scalar variants and streamed blocks give the same bits; the simd variant's vector
      // erfc or sinpi may round a lane differently, so it is held to 64 ulps.
      KdeOptions ov = o;
      ov.variant = KdeVariant::tiled;
      ov.launch.work_group = 32;
      ov.launch.tile = 128;
      const auto Ft = kde_cdf(ctx(), x.data(), n, y.data(), m, ov);
      ov.variant = KdeVariant::naive;
      CHECK(kde_cdf(ctx(), x.data(), n, y.data(), m, ov) == Ft);
      ov.variant = KdeVariant::unrolled;
      ov.memory_budget_bytes = 16 * 1024;
      CHECK(kde_cdf(ctx(), x.data(), n, y.data(), m, ov) == Ft);
      ov = o;
      ov.variant = KdeVariant::simd;
      ov.launch.lanes = 8;
      const auto Fv = kde_cdf(ctx(), x.data(), n, y.data(), m, ov);
      for (std::size_t i = 0; i < m; ++i) CHECK(std::fabs(Fv[i] - Ft[i]) <= 64 * ulp * Ft[i]);
    }
}

TEST_CASE("kde_cdf.bad_input") {
  const std::vector<double> x{0.0, 1.0, 2.0}, y{0.5, 1.5};
  KdeOptions o;
  o.bandwidth = Bandwidth::scalar(0.5);
  if (!clstat_test::has_fp64()) o.precision = Precision::float32;
  clstat_test::throws_with([&] { kde_cdf(ctx(), x.data(), 0, y.data(), 2, o); }, "no samples");
  clstat_test::throws_with([&] { kde_cdf(ctx(), x.data(), 3, y.data(), 0, o); }, "no evaluation points");
  clstat_test::throws_with([&] { kde_cdf(ctx(), nullptr, 3, y.data(), 2, o); }, "null sample pointer");
  const std::vector<double> ynan{0.5, std::nan("")};
  clstat_test::throws_with([&] { kde_cdf(ctx(), x.data(), 3, ynan.data(), 2, o); }, "evaluation points");
  KdeOptions b = o;
  b.bandwidth = Bandwidth::scalar(-1.0);
  CHECK_THROWS_AS(kde_cdf(ctx(), x.data(), 3, y.data(), 2, b), std::invalid_argument);
  b = o;
  b.leave_one_out = true;
  clstat_test::throws_with([&] { kde_cdf(ctx(), x.data(), 3, y.data(), 2, b); }, "leave_one_out");
  b = o;
  b.weights = {1.0, -1.0, 1.0};
  clstat_test::throws_with([&] { kde_cdf(ctx(), x.data(), 3, y.data(), 2, b); }, "negative");
  b = o;
  b.bandwidth = Bandwidth::per_dimension({0.5, 0.5});
  CHECK_THROWS_AS(kde_cdf(ctx(), x.data(), 3, y.data(), 2, b), std::invalid_argument);
}
