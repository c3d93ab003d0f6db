// The MCD: robustbase's covMcd on its data sets, its small-sample curves, contaminated data on
// both search paths, the exact univariate case, equivariance and bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "reference/tagged_golden.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

namespace {

using Golden = clstat_ref::TaggedSet;

std::map<std::string, Golden> load() {
  return clstat_ref::load_tagged(std::string(CLSTAT_TEST_DATA_DIR) + "/robust/mcd_r.txt", {"factor"});
}

bool close(const std::vector<double>& a, const std::vector<double>& b, double rel) {
  if (a.size() != b.size()) return false;
  double scale = 0;
  for (double v : b) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::fabs(a[i] - b[i]) > rel * scale) return false;
  return true;
}

}  // namespace

TEST_CASE("mcd.equals_robustbase") {
  if (!clstat_test::has_fp64()) return;
  const auto g = load();
  REQUIRE(g.size() == 4);
  for (const auto& [name, e] : g) {
    INFO(name);
    robust::McdOptions o;
    o.use_correction = false;
    o.nsamp = 3000;
    const auto f = robust::mcd(ctx(), e.v.at("data").data(), e.n, e.p, o);
    CHECK(f.h == static_cast<std::size_t>(e.v.at("h")[0]));
    const double rcrit = e.v.at("crit")[0];
    // FAST-MCD is a random search: at least as good as robustbase's; where both found the same
    // subset, the same estimates.
    CHECK(f.crit <= rcrit + 1e-9);
    std::vector<double> best;
    for (auto r : f.best) best.push_back(static_cast<double>(r + 1));
    if (std::fabs(f.crit - rcrit) > 1e-9) {
      MESSAGE(name << ": log det " << f.crit << ", robustbase's " << rcrit);
      continue;
    }
    CHECK(best == e.v.at("best"));
    CHECK(close(f.raw_center, e.v.at("raw_center"), 1e-12));
    CHECK(close(f.raw_cov, e.v.at("raw_cov"), 1e-11));
    CHECK(close({f.raw_cnp2[0], f.raw_cnp2[1]}, e.v.at("raw_cnp2"), 1e-12));
    CHECK(close(f.center, e.v.at("center"), 1e-12));
    CHECK(close(f.cov, e.v.at("cov"), 1e-11));
    CHECK(close({f.cnp2[0], f.cnp2[1]}, e.v.at("cnp2"), 1e-12));
    std::vector<double> w(f.weights.begin(), f.weights.end());
    CHECK(w == e.v.at("weights"));
  }
}

TEST_CASE("mcd.small_sample_factors_equal_robustbase") {
  // robustbase's MCDcnp2 and MCDcnp2.rew at alpha = 0.75 (no simulated table there).
  if (!clstat_test::has_fp64()) return;
  std::ifstream f(std::string(CLSTAT_TEST_DATA_DIR) + "/robust/mcd_r.txt");
  std::string line;
  int checked = 0;
  std::mt19937_64 gen(7);
  std::normal_distribution<double> nd;
  while (std::getline(f, line)) {
    std::istringstream is(line);
    std::string tag;
    is >> tag;
    if (tag != "factor") continue;
    std::size_t p, n;
    double alpha, raw, rew;
    is >> p >> n >> alpha >> raw >> rew;
    std::vector<double> x(n * p);
    for (auto& v : x) v = nd(gen);
    robust::McdOptions o;
    o.alpha = alpha;
    o.nsamp = 5;
    const auto fit = robust::mcd(ctx(), x.data(), n, p, o);
    INFO("p = " << p << " n = " << n);
    CHECK(std::fabs(fit.raw_cnp2[1] - raw) <= 1e-13 * raw);
    CHECK(std::fabs(fit.cnp2[1] - rew) <= 1e-13 * rew);
    ++checked;
  }
  CHECK(checked == 18);
}

TEST_CASE("mcd.flags_the_contamination_on_both_paths") {
  // 20% of the rows shifted 40 standard deviations along every axis: none of them in the best
  // h-subset, all flagged; the centre close to the clean one. n = 400 searches all rows, n = 5000
  // a subsample of 1500 first.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  for (std::size_t n : {400ul, 5000ul})
    for (std::size_t p : {2ul, 5ul}) {
      INFO("n = " << n << " p = " << p);
      std::vector<double> x(n * p);
      const std::size_t bad = n / 5;
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < p; ++j) x[i * p + j] = nd(g) + (i < bad ? 40.0 : 0.0);
      robust::McdOptions o;
      o.nsamp = 100;
      const auto f = robust::mcd(ctx(), x.data(), n, p, o);
      CHECK(f.best.size() == f.h);
      CHECK(std::all_of(f.best.begin(), f.best.end(), [&](std::size_t r) { return r >= bad; }));
      CHECK(f.outliers.size() >= bad);
      for (std::size_t i = 0; i < bad; ++i) CHECK(f.weights[i] == 0);
      for (double c : f.center) CHECK(std::fabs(c) < 0.5);
      // (The variances are inflated by design: robustbase's factor MCDcons(p, sum(w) / n) takes
      // the kept fraction of all rows, not of the clean ones.)
      for (std::size_t j = 0; j < p; ++j) CHECK(f.cov[j * p + j] > 0.5);
      CHECK(f.converged);
      CHECK(!f.exact_fit);
    }
}

TEST_CASE("mcd.univariate_is_exact_and_columns_scale") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  // p = 1: the least variance over every run of h consecutive sorted values.
  const std::size_t n = 101;
  std::vector<double> x(n);
  for (auto& v : x) v = nd(g) * (nd(g) > 1 ? 10 : 1);
  const auto f = robust::mcd(ctx(), x.data(), n, 1);
  std::vector<double> s = x;
  std::sort(s.begin(), s.end());
  double best = INFINITY;
  for (std::size_t i = 0; i + f.h <= n; ++i) {
    double m = 0, v = 0;
    for (std::size_t j = i; j < i + f.h; ++j) m += s[j];
    m /= f.h;
    for (std::size_t j = i; j < i + f.h; ++j) v += (s[j] - m) * (s[j] - m);
    best = std::min(best, v / (f.h - 1));
  }
  CHECK(std::fabs(f.crit - std::log(best)) < 1e-10);
  // Scaling a column scales the estimates and moves log det by 2 log c; the subset stays.
  const std::size_t m = 300, p = 3;
  std::vector<double> y(m * p), y2(m * p);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      y[i * p + j] = nd(g) + (i % 7 == 0 ? 8.0 : 0.0);
      y2[i * p + j] = y[i * p + j] * (j == 1 ? 1000.0 : 1.0) + (j == 2 ? -50.0 : 0.0);
    }
  const auto a = robust::mcd(ctx(), y.data(), m, p);
  const auto b = robust::mcd(ctx(), y2.data(), m, p);
  CHECK(a.best == b.best);
  CHECK(std::fabs(b.crit - a.crit - 2 * std::log(1000.0)) < 1e-9);
  CHECK(std::fabs(b.center[1] - 1000 * a.center[1]) < 1e-9 * std::fabs(b.center[1]) + 1e-9);
  CHECK(std::fabs(b.cov[4] - 1e6 * a.cov[4]) < 1e-9 * b.cov[4]);
  CHECK(a.weights == b.weights);
}

TEST_CASE("mcd.bad_input_and_exact_fit") {
  if (!clstat_test::has_fp64()) return;
  std::vector<double> x(40);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(1.0 + static_cast<double>(i * i));
  CHECK_THROWS_AS(robust::mcd(ctx(), x.data(), 0, 2), std::invalid_argument);
  CHECK_THROWS_AS(robust::mcd(ctx(), nullptr, 20, 2), std::invalid_argument);
  CHECK_THROWS_AS(robust::mcd(ctx(), x.data(), 20, 0), std::invalid_argument);
  CHECK_THROWS_WITH_AS(robust::mcd(ctx(), x.data(), 8, 4), doctest::Contains("more than twice"), std::invalid_argument);
  robust::McdOptions o;
  o.alpha = 0.4;
  CHECK_THROWS_AS(robust::mcd(ctx(), x.data(), 20, 2, o), std::invalid_argument);
  o = {};
  o.nsamp = 0;
  CHECK_THROWS_AS(robust::mcd(ctx(), x.data(), 20, 2, o), std::invalid_argument);
  std::vector<double> bad = x;
  bad[13] = NAN;
  CHECK_THROWS_WITH_AS(robust::mcd(ctx(), bad.data(), 20, 2), doctest::Contains("row 6"), std::invalid_argument);
  std::vector<double> flat = x;
  for (std::size_t i = 0; i < 20; ++i) flat[2 * i + 1] = 3;
  CHECK_THROWS_WITH_AS(robust::mcd(ctx(), flat.data(), 20, 2), doctest::Contains("constant"), std::invalid_argument);
  // 15 of 20 rows on the line y = 2 x: an exact fit, found and reported.
  std::vector<double> line(40);
  for (std::size_t i = 0; i < 20; ++i) {
    line[2 * i] = static_cast<double>(i);
    line[2 * i + 1] = i < 15 ? 2.0 * i : 7.0 * std::cos(static_cast<double>(i));
  }
  const auto f = robust::mcd(ctx(), line.data(), 20, 2);
  CHECK(f.exact_fit);
  for (std::size_t r : f.best) CHECK(r < 15);
  // The async form, which checks its pointer before it queues anything.
  CHECK_THROWS_AS(robust::mcd_async(ctx().queue(0), nullptr, 20, 2), std::invalid_argument);
  const auto a = robust::mcd_async(ctx().queue(0), x.data(), 20, 2).get();
  CHECK(a.best == robust::mcd(ctx(), x.data(), 20, 2).best);
}
