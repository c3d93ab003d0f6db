// The alpha-stable pdf and cdf against J. P. Nolan's STABLE tables (tests/data/stable/, from
// SciPy's test data; S1, unit scale, zero location), and the S0/S1 conversion.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "clstat/stable.hpp"
#include "support.hpp"

namespace st = clstat::stable;

namespace {

using clstat_test::ctx;

struct Row {
  double x, value, alpha, beta, pct;
};

std::vector<Row> table(const std::string& name) {
  std::ifstream in(std::string(CLSTAT_TEST_DATA_DIR) + "/stable/" + name);
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);  // header: x,value,alpha,beta,pct
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r;
    char c;
    std::istringstream s(line);
    s >> r.x >> c >> r.value >> c >> r.alpha >> c >> r.beta >> c >> r.pct;
    rows.push_back(r);
  }
  return rows;
}

// Independent 40-digit values (tools/golden/stable_near_zeta.py) for the rows within 1e-6 of zeta
// at alpha <= 0.2, where the tables are known to be weak (tests/data/stable/README.md): keyed by
// (file, x, alpha, beta), values (pdf, cdf). E.g. alpha = 0.1, beta = -0.9, x = -2.2e-9: table 233209.470003,
// 40 digits 233209.469556.
using NearKey = std::tuple<std::string, double, double, double>;
std::map<NearKey, std::pair<double, double>> near_zeta() {
  std::ifstream in(std::string(CLSTAT_TEST_DATA_DIR) + "/stable/near_zeta_mpmath.csv");
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);  // file,x,alpha,beta,pdf,cdf
  std::map<NearKey, std::pair<double, double>> m;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string file, f[5];
    std::getline(s, file, ',');
    for (auto& v : f) std::getline(s, v, ',');
    m[{file, std::stod(f[0]), std::stod(f[1]), std::stod(f[2])}] = {std::stod(f[3]), std::stod(f[4])};
  }
  return m;
}

// The table's points grouped by (alpha, beta), evaluated in one call per group.
template <class F>
void per_law(const std::vector<Row>& rows, F&& check) {
  std::map<std::pair<double, double>, std::vector<const Row*>> by;
  for (const Row& r : rows) by[{r.alpha, r.beta}].push_back(&r);
  for (const auto& [key, group] : by) {
    std::vector<double> x;
    for (const Row* r : group) x.push_back(r->x);
    const st::PdfCdf v = st::pdf_cdf(ctx(), x.data(), x.size(), {key.first, key.second, 1, 0, st::Param::S1});
    for (std::size_t i = 0; i < group.size(); ++i) check(*group[i], v, i);
  }
}

}  // namespace

TEST_CASE("stable.pdf_matches_nolan_tables") {
  if (!clstat_test::has_fp64()) return;
  const auto rows = table("stable-Z1-pdf-sample-data.csv");
  REQUIRE(rows.size() > 4000);
  const auto better = near_zeta();
  std::size_t checked = 0, replaced = 0;
  double worst = 0, worst_small = 0;
  per_law(rows, [&](const Row& r, const st::PdfCdf& v, std::size_t i) {
    double ref = r.value;
    if (auto it = better.find({"pdf", r.x, r.alpha, r.beta}); it != better.end()) ref = it->second.first, ++replaced;
    const double got = v.pdf[i], rel = std::abs(got - ref) / ref;
    INFO(std::setprecision(17) << "alpha " << r.alpha << " beta " << r.beta << " x " << r.x << " reference " << ref
                               << " got " << got << " rel " << rel << " est " << v.pdf_error[i] / ref);
    if (r.alpha > 0.2 + 1e-9) {
      CHECK(rel < 1e-11);
      worst = std::max(worst, rel);
    } else {
      CHECK(rel < 2.5e-10);
      worst_small = std::max(worst_small, rel);
    }
    ++checked;
  });
  CHECK(replaced == 12);
  MESSAGE("pdf: " << checked << " points, worst relative error " << worst << " (alpha > 0.2), " << worst_small
                  << " (alpha <= 0.2)");
}

TEST_CASE("stable.cdf_matches_nolan_tables") {
  if (!clstat_test::has_fp64()) return;
  const auto rows = table("stable-Z1-cdf-sample-data.csv");
  REQUIRE(rows.size() > 4000);
  // Six alpha = 1 rows list pct = 0.01 / 0.99 at an x that is not that quantile (their pdf rows
  // agree with us to 1e-12): there the reference is Gil-Pelaez inversion of the characteristic
  // function (tools/golden/stable_alpha1_cdf.py -> alpha1_cdf_gil_pelaez.csv).
  std::map<double, double> inverted;
  {
    std::ifstream in(std::string(CLSTAT_TEST_DATA_DIR) + "/stable/alpha1_cdf_gil_pelaez.csv");
    REQUIRE(in.good());
    std::string line;
    std::getline(in, line);
    while (std::getline(in, line)) {
      double x, b, F;
      char c;
      std::istringstream s(line);
      s >> x >> c >> b >> c >> F;
      inverted[x] = F;
    }
  }
  REQUIRE(inverted.size() == 6);
  const auto better = near_zeta();
  double worst = 0;
  std::size_t replaced = 0;
  per_law(rows, [&](const Row& r, const st::PdfCdf& v, std::size_t i) {
    double ref = r.value;
    if (r.alpha == 1 && inverted.count(r.x)) ref = inverted[r.x], ++replaced;
    if (auto it = better.find({"cdf", r.x, r.alpha, r.beta}); it != better.end()) ref = it->second.second, ++replaced;
    INFO("alpha " << r.alpha << " beta " << r.beta << " x " << r.x << " reference " << ref << " got " << v.cdf[i]);
    const double err = std::abs(v.cdf[i] - ref);
    CHECK(err < 2e-12);
    worst = std::max(worst, err);
  });
  CHECK(replaced == 6 + 12);
  MESSAGE("cdf: worst absolute error " << worst);
}

TEST_CASE("stable.loc_scale_and_parameterisations") {
  if (!clstat_test::has_fp64()) return;
  // Nolan's values at scale 2 and loc 3 in S0 and in S1 (columns param,x,alpha,beta,gamma,delta,pct,pdf,cdf).
  std::ifstream in(std::string(CLSTAT_TEST_DATA_DIR) + "/stable/stable-loc-scale-sample-data.csv");
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  std::size_t n = 0;
  const auto better = near_zeta();
  while (std::getline(in, line)) {
    double prm, x, a, b, g, d, pct, f, F;
    char c;
    std::istringstream s(line);
    s >> prm >> c >> x >> c >> a >> c >> b >> c >> g >> c >> d >> c >> pct >> c >> f >> c >> F;
    bool near = false;
    if (auto it = better.find({prm == 0 ? "locscale0" : "locscale1", x, a, b}); it != better.end())
      f = it->second.first, F = it->second.second, near = true;
    const st::Params p{a, b, g, d, prm == 0 ? st::Param::S0 : st::Param::S1};
    const st::PdfCdf v = st::pdf_cdf(ctx(), &x, 1, p);
    INFO(std::setprecision(17) << "param " << prm << " alpha " << a << " beta " << b << " x " << x << " pdf " << f << " got " << v.pdf[0]
                  << " cdf " << F << " got " << v.cdf[0]);
    CHECK(std::abs(v.pdf[0] - f) <= (a > 0.2 ? 1e-11 : 2.5e-10) * f);
    CHECK(std::abs(v.cdf[0] - F) < 2e-12);
    // The same law through the other parameterisation, to the same bars. Not within 1e-6 of zeta
    // at alpha = 0.1: there the location converted in double moves the point by 1e-16 of delta,
    // which that steep density turns into 1e-9 (the reason the host standardises in long double).
    if (!near) {
      const st::Params q = prm == 0 ? st::to_s1(p) : st::to_s0(p);
      const st::PdfCdf w = st::pdf_cdf(ctx(), &x, 1, q);
      CHECK(std::abs(w.pdf[0] - f) <= (a > 0.2 ? 1e-11 : 2.5e-10) * f);
      CHECK(std::abs(w.cdf[0] - F) < 2e-12);
    }
    ++n;
  }
  CHECK(n == 126);
}

TEST_CASE("stable.conversion_and_special_laws") {
  // S0 <-> S1 round trips, alpha = 1 included, and the closed forms at alpha = 2 and the Cauchy law.
  for (double a : {0.5, 1.0, 1.5})
    for (double b : {-1.0, 0.3, 1.0}) {
      const st::Params p{a, b, 2.5, -1.25, st::Param::S0};
      const st::Params q = st::to_s0(st::to_s1(p));
      CHECK(q.loc == doctest::Approx(p.loc).epsilon(1e-15));
      CHECK(st::to_s1(p).param == st::Param::S1);
    }
  // alpha = 1: delta0 = delta1 + beta (2/pi) gamma log gamma.
  const st::Params s1{1.0, 0.5, 3.0, 0.25, st::Param::S1};
  CHECK(st::to_s0(s1).loc == doctest::Approx(0.25 + 0.5 * (2 / M_PI) * 3 * std::log(3.0)).epsilon(1e-15));
  if (!clstat_test::has_fp64()) return;
  const std::vector<double> x{-7.5, -1, 0, 0.3, 12};
  const auto g = st::pdf_cdf(ctx(), x.data(), x.size(), {2.0, 0.7, 1.5, 0.5, st::Param::S0});
  const auto c = st::pdf_cdf(ctx(), x.data(), x.size(), {1.0, 0.0, 0.5, -2, st::Param::S1});
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double z = (x[i] - 0.5) / 1.5;  // alpha = 2: N(loc, 2 scale^2), beta irrelevant
    CHECK(g.pdf[i] == doctest::Approx(std::exp(-z * z / 4) / (2 * std::sqrt(M_PI) * 1.5)).epsilon(1e-15));
    CHECK(g.cdf[i] == doctest::Approx(0.5 * std::erfc(-z / 2)).epsilon(1e-15));
    const double u = (x[i] + 2) / 0.5;
    CHECK(c.pdf[i] == doctest::Approx(1 / (M_PI * 0.5 * (1 + u * u))).epsilon(1e-15));
    CHECK(c.cdf[i] == doctest::Approx(0.5 + std::atan(u) / M_PI).epsilon(1e-15));
  }
  // Outside the support (alpha < 1, beta = 1: support [zeta, inf) in S0): exactly 0 and 0.
  const double left = -50;
  const auto o = st::pdf_cdf(ctx(), &left, 1, {0.5, 1.0, 1, 0, st::Param::S0});
  CHECK(o.pdf[0] == 0.0);
  CHECK(o.cdf[0] == 0.0);
}

TEST_CASE("stable.bad_input") {
  const double x = 0;
  CHECK_THROWS_AS(st::check({0.0, 0, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::check({2.01, 0, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::check({1.5, 1.01, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::check({1.5, std::nan(""), 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::check({1.5, 0, 0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::check({1.5, 0, -1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::check({1.5, 0, 1, HUGE_VAL}), std::invalid_argument);
  CHECK_THROWS_AS(st::pdf_cdf(ctx(), nullptr, 3, {1.5, 0, 1, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::pdf_cdf(ctx(), &x, 1, {1.5, 0, 1, 0}, 0.0), std::invalid_argument);
  CHECK(st::pdf_cdf(ctx(), nullptr, 0, {1.5, 0, 1, 0}).pdf.empty());
  if (!clstat_test::has_fp64()) return;
  const std::vector<double> bad{0.5, 1.5}, nan_p{std::nan("")};
  CHECK_THROWS_AS(st::quantile(ctx(), bad.data(), 2, {1.5, 0}), std::invalid_argument);
  CHECK_THROWS_AS(st::isf(ctx(), nan_p.data(), 1, {1.5, 0}), std::invalid_argument);
  const auto q = st::quantile(ctx(), bad.data(), 2, {1.5, 0}, 1e-12, true);
  CHECK(q[0] == doctest::Approx(0.0).epsilon(1e-12));  // the median of a symmetric law
  CHECK(std::isnan(q[1]));
  const std::vector<double> ends{0.0, 1.0};
  const auto e = st::quantile(ctx(), ends.data(), 2, {0.5, 1.0});  // support [zeta, inf) in S0
  CHECK(e[0] == doctest::Approx(-std::tan(M_PI * 0.25)).epsilon(1e-15));
  CHECK(std::isinf(e[1]));
}

TEST_CASE("stable.quantile_round_trip") {
  if (!clstat_test::has_fp64()) return;
  // cdf(quantile(p)) - p and sf(isf(q)) - q within 1e-12 for p from 1e-10 to 1 - 1e-10 (issue 5),
  // alpha = 1 included, and relative accuracy in the small tails.
  const std::vector<double> ps{1e-10, 1e-6, 0.01, 0.3, 0.5, 0.7, 0.99, 1 - 1e-6, 1 - 1e-10};
  double worst = 0, worst_rel = 0;
  for (double a : {0.3, 0.8, 1.0, 1.2, 1.5, 1.9})
    for (double b : {-1.0, 0.0, 0.5, 1.0}) {
      const st::Params p{a, b, 1.5, -0.5, st::Param::S0};
      const auto x = st::quantile(ctx(), ps.data(), ps.size(), p);
      const auto F = st::cdf(ctx(), x.data(), x.size(), p);
      const auto u = st::isf(ctx(), ps.data(), ps.size(), p);
      const auto S = st::sf(ctx(), u.data(), u.size(), p);
      for (std::size_t k = 0; k < ps.size(); ++k) {
        INFO(std::setprecision(17) << "alpha " << a << " beta " << b << " p " << ps[k] << " Q " << x[k] << " F " << F[k]
                                   << " isf " << u[k] << " S " << S[k]);
        CHECK(std::isfinite(x[k]));
        CHECK(std::abs(F[k] - ps[k]) <= 1e-12);
        CHECK(std::abs(S[k] - ps[k]) <= 1e-12);
        if (ps[k] <= 0.01) {
          CHECK(std::abs(F[k] - ps[k]) <= 1e-9 * ps[k]);
          CHECK(std::abs(S[k] - ps[k]) <= 1e-9 * ps[k]);
          worst_rel = std::max({worst_rel, std::abs(F[k] - ps[k]) / ps[k], std::abs(S[k] - ps[k]) / ps[k]});
        }
        worst = std::max({worst, std::abs(F[k] - ps[k]), std::abs(S[k] - ps[k])});
      }
    }
  MESSAGE("quantile round trip: worst |F(Q(p)) - p| " << worst << ", worst relative in the tails " << worst_rel);
}

TEST_CASE("stable.sf_direct_tails") {
  if (!clstat_test::has_fp64()) return;
  // sf + cdf = 1 in the body; in the far tail sf matches the Pareto law P(X > x) ~ C x^-alpha,
  // C = Gamma(alpha) sin(pi alpha / 2) / pi (symmetric case), to the next term's size x^-alpha.
  const std::vector<double> body{-3, -0.5, 0, 0.7, 4};
  for (double a : {0.6, 1.0, 1.7}) {
    const st::Params p{a, 0.4, 1, 0, st::Param::S0};
    const auto F = st::cdf(ctx(), body.data(), body.size(), p);
    const auto S = st::sf(ctx(), body.data(), body.size(), p);
    for (std::size_t k = 0; k < body.size(); ++k) CHECK(std::abs(F[k] + S[k] - 1) < 1e-14);
  }
  const double a = 1.5, x = 1e8;
  const auto s = st::sf(ctx(), &x, 1, {a, 0.0, 1, 0});
  const double pareto = std::tgamma(a) * std::sin(M_PI * a / 2) / M_PI * std::pow(x, -a);
  CHECK(s[0] > 0);
  CHECK(std::abs(s[0] / pareto - 1) < 1e-9);
}
