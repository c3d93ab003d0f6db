// stable::fit: McCulloch's estimator on a sample whose quantiles are the law's own, the ECF and
// ML estimators on random samples, the MLE's optimality and standard errors, batching, bad input.
#include <doctest/doctest.h>

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <vector>

#include "clstat/stable.hpp"
#include "clstat/stable_fit.hpp"
#include "support.hpp"

namespace st = clstat::stable;
using clstat_test::ctx;

namespace {

// The "perfect" sample of n points: the law's (i - 1/2)/n quantiles, whose sample quantiles in
// McCulloch's convention are the law's quantiles up to the interpolation between order statistics.
std::vector<double> perfect_sample(const st::Params& p, std::size_t n) {
  std::vector<double> pr(n);
  for (std::size_t i = 0; i < n; ++i) pr[i] = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
  return st::quantile(ctx(), pr.data(), n, p);
}

}  // namespace

TEST_CASE("stable.fit_mcculloch_table_and_estimator") {
  if (!clstat_test::has_fp64()) return;
  // The table at laws with closed-form quantiles: Cauchy (q = tan(pi (p - 1/2))) and the normal
  // law N(0, 2) of alpha = 2 (q = 2 z_p).
  const auto c = st::mcculloch_functions(1.0, 0.0);
  CHECK(std::abs(c[0] - std::tan(0.45 * M_PI)) < 1e-11);
  CHECK(std::abs(c[1]) < 1e-12);
  CHECK(std::abs(c[2] - 2) < 1e-11);
  const double z95 = 1.6448536269514722, z75 = 0.6744897501960817;
  const auto g = st::mcculloch_functions(2.0, 0.7);
  CHECK(std::abs(g[0] - z95 / z75) < 1e-11);
  CHECK(std::abs(g[2] - 2 * std::sqrt(2.0) * z75) < 1e-11);
  // Symmetry in beta.
  const auto a = st::mcculloch_functions(1.3, 0.4), b = st::mcculloch_functions(1.3, -0.4);
  CHECK(a[0] == b[0]);
  CHECK(a[1] == -b[1]);
  CHECK(a[3] == -b[3]);
  CHECK_THROWS_AS(st::mcculloch_functions(0.25, 0), std::invalid_argument);
  // On a perfect sample the estimator recovers the law to the table's interpolation error.
  for (const st::Params& p : {st::Params{1.5, 0.5, 2, 1}, st::Params{0.8, -0.3, 0.5, -2}, st::Params{1.9, 0.0, 1, 0},
                              st::Params{0.4, 0.6, 1, 0}}) {
    const std::vector<double> x = perfect_sample(p, 2001);
    st::FitOptions o;
    o.method = st::FitMethod::mcculloch;
    const st::FitResult r = st::fit(ctx(), x.data(), x.size(), o);
    INFO("alpha " << p.alpha << " beta " << p.beta << " -> " << r.params.alpha << " " << r.params.beta << " "
                  << r.params.scale << " " << r.params.loc);
    CHECK(std::abs(r.params.alpha - p.alpha) < 5e-3);
    CHECK(std::abs(r.params.beta - p.beta) < (p.alpha > 1.8 ? 0.1 : 1e-2));
    CHECK(std::abs(r.params.scale / p.scale - 1) < 5e-3);
    CHECK(std::abs(r.params.loc - p.loc) < 1e-2 * p.scale);
    CHECK(std::isnan(r.se_alpha));
    CHECK(std::isfinite(r.loglik));
  }
}

TEST_CASE("stable.fit_ecf_and_mle") {
  if (!clstat_test::has_fp64()) return;
  // Koutrouvelis on a large sample: within a few standard errors (about 0.01 at n = 20000).
  for (const st::Params& p : {st::Params{0.5, 0.0, 1, 0}, st::Params{1.2, 0.6, 2, -1}, st::Params{1.8, -0.5, 1, 3}}) {
    const std::vector<double> x = st::sample(ctx(), 20000, p, 11);
    st::FitOptions o;
    o.method = st::FitMethod::koutrouvelis;
    const st::FitResult r = st::fit(ctx(), x.data(), x.size(), o);
    INFO("alpha " << p.alpha << " beta " << p.beta << " -> " << r.params.alpha << " " << r.params.beta << " "
                  << r.params.scale << " " << r.params.loc << " rounds " << r.iterations);
    CHECK(std::abs(r.params.alpha - p.alpha) < 0.06);
    CHECK(std::abs(r.params.beta - p.beta) < 0.15);
    CHECK(std::abs(r.params.scale / p.scale - 1) < 0.05);
    CHECK(std::abs(r.params.loc - p.loc) < 0.1 * p.scale);
  }
  // The MLE: its log-likelihood is at least the other estimators', it is a local maximum (no
  // coordinate step of 1e-3 improves it by more than the tolerance's effect), its standard errors
  // are finite, and batching many sets gives the same bits as fitting each alone.
  std::vector<std::vector<double>> sets;
  const std::vector<st::Params> laws{{1.4, 0.3, 1, 0}, {0.9, -0.5, 2, 1}};
  for (const auto& p : laws) sets.push_back(st::sample(ctx(), 300, p, 5));
  const auto many = st::fit_many(ctx(), sets);
  for (std::size_t s = 0; s < sets.size(); ++s) {
    const auto& x = sets[s];
    const st::FitResult r = st::fit(ctx(), x.data(), x.size());
    INFO("set " << s << ": alpha " << r.params.alpha << " beta " << r.params.beta << " scale " << r.params.scale
                << " loc " << r.params.loc << " loglik " << r.loglik << " iterations " << r.iterations);
    CHECK(r.converged);
    CHECK(r.params.alpha == many[s].params.alpha);
    CHECK(r.params.loc == many[s].params.loc);
    CHECK(r.loglik == many[s].loglik);
    for (auto m : {st::FitMethod::mcculloch, st::FitMethod::koutrouvelis}) {
      st::FitOptions o;
      o.method = m;
      CHECK(st::fit(ctx(), x.data(), x.size(), o).loglik <= r.loglik);
    }
    std::vector<st::Params> nb;
    for (int k = 0; k < 4; ++k)
      for (double d : {-1e-3, 1e-3}) {
        st::Params q = r.params;
        (k == 0 ? q.alpha : k == 1 ? q.beta : k == 2 ? q.scale : q.loc) += d;
        if (q.beta <= 1 && q.beta >= -1 && q.alpha <= 2) nb.push_back(q);
      }
    const std::vector<double> L = st::log_likelihood(ctx(), x.data(), x.size(), nb);
    for (double l : L) CHECK(l <= r.loglik + 1e-6);
    CHECK(std::abs(st::log_likelihood(ctx(), x.data(), x.size(), {r.params})[0] - r.loglik) < 1e-9);
    CHECK(r.se_alpha > 0);
    CHECK(r.se_alpha < 0.5);
    CHECK(r.se_beta > 0);
    CHECK(r.se_scale > 0);
    CHECK(r.se_loc > 0);
    // In S1 the same law: the loc moves by beta scale tan(pi alpha / 2).
    st::FitOptions o1;
    o1.param = st::Param::S1;
    const st::FitResult r1 = st::fit(ctx(), x.data(), x.size(), o1);
    CHECK(r1.params.param == st::Param::S1);
    CHECK(std::abs(st::to_s0(r1.params).loc - r.params.loc) < 1e-12 * (1 + std::abs(r.params.loc)));
    CHECK(std::isfinite(r1.se_loc));
  }
}

TEST_CASE("stable.fit_standard_errors_are_the_inverse_hessian") {
  if (!clstat_test::has_fp64()) return;
  // The MLE's standard errors come from its Newton stencil's Hessian (the cross terms from two
  // diagonal points). An independent Hessian of the public log_likelihood at the estimate, by
  // the four-point form of the cross terms, must give them to within the two forms' truncation
  // (both second order in steps of 1e-3): 1e-3 relative leaves room for that, and a wrong sign or
  // factor in a cross term moves them by far more. A law well inside the parameter space, so no
  // parameter is held at a bound.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<double> x = st::sample(ctx(), 1000, st::Params{1.5, 0.0, 1, 0}, seed);
  const st::FitResult r = st::fit(ctx(), x.data(), x.size());
  INFO("alpha " << r.params.alpha << " beta " << r.params.beta << " scale " << r.params.scale << " loc "
                << r.params.loc << " iterations " << r.iterations);
  REQUIRE(r.converged);
  REQUIRE(r.params.alpha < 1.95);
  REQUIRE(std::abs(r.params.beta) < 0.95);
  // theta = (alpha, beta, log scale, loc0), the fit's coordinates and steps.
  const double th[4] = {r.params.alpha, r.params.beta, std::log(r.params.scale), r.params.loc};
  const double h[4] = {1e-3, 2e-3, 1e-3, 1e-3 * r.params.scale};
  auto law = [&](int a, int sa, int b, int sb) {
    double t[4] = {th[0], th[1], th[2], th[3]};
    if (a >= 0) t[a] += sa * h[a];
    if (b >= 0) t[b] += sb * h[b];
    return st::Params{t[0], t[1], std::exp(t[2]), t[3], st::Param::S0};
  };
  std::vector<st::Params> laws{law(-1, 0, -1, 0)};
  for (int a = 0; a < 4; ++a)
    for (int s : {1, -1}) laws.push_back(law(a, s, -1, 0));
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b)
      for (int sa : {1, -1})
        for (int sb : {1, -1}) laws.push_back(law(a, sa, b, sb));
  const std::vector<double> L = st::log_likelihood(ctx(), x.data(), x.size(), laws);
  Eigen::Matrix4d H;
  for (int a = 0; a < 4; ++a) H(a, a) = (L[1 + 2 * a] - 2 * L[0] + L[2 + 2 * a]) / (h[a] * h[a]);
  std::size_t k = 9;
  for (int a = 0; a < 4; ++a)
    for (int b = a + 1; b < 4; ++b, k += 4)
      H(a, b) = H(b, a) = (L[k] - L[k + 1] - L[k + 2] + L[k + 3]) / (4 * h[a] * h[b]);
  // The covariance: the inverse of -H (positive definite at a maximum inside the space).
  const Eigen::LLT<Eigen::Matrix4d> llt(-H);
  REQUIRE(llt.info() == Eigen::Success);
  const Eigen::Matrix4d cov = llt.solve(Eigen::Matrix4d::Identity());
  const double se_alpha = std::sqrt(cov(0, 0)), se_beta = std::sqrt(cov(1, 1));
  const double se_scale = r.params.scale * std::sqrt(cov(2, 2)), se_loc = std::sqrt(cov(3, 3));
  CHECK(r.se_alpha == doctest::Approx(se_alpha).epsilon(1e-3));
  CHECK(r.se_beta == doctest::Approx(se_beta).epsilon(1e-3));
  CHECK(r.se_scale == doctest::Approx(se_scale).epsilon(1e-3));
  CHECK(r.se_loc == doctest::Approx(se_loc).epsilon(1e-3));
}

TEST_CASE("stable.fit_bad_input") {
  if (!clstat_test::has_fp64()) return;
  const std::vector<double> nine{1, 2, 3, 4, 5, 6, 7, 8, 9};
  CHECK_THROWS_WITH_AS(st::fit(ctx(), nine.data(), nine.size()), doctest::Contains("at least 10"),
                       std::invalid_argument);
  std::vector<double> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  x[4] = NAN;
  CHECK_THROWS_WITH_AS(st::fit(ctx(), x.data(), x.size()), doctest::Contains("index 4"), std::invalid_argument);
  x[4] = INFINITY;
  CHECK_THROWS_AS(st::fit(ctx(), x.data(), x.size()), std::invalid_argument);
  const std::vector<double> flat(20, 3.0);
  CHECK_THROWS_WITH_AS(st::fit(ctx(), flat.data(), flat.size()), doctest::Contains("no spread"),
                       std::invalid_argument);
  const std::vector<double> ok{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12};
  st::FitOptions o;
  o.tol = 0;
  CHECK_THROWS_AS(st::fit(ctx(), ok.data(), ok.size(), o), std::invalid_argument);
  CHECK_THROWS_WITH_AS(st::fit_many(ctx(), {ok, nine}), doctest::Contains("set 1"), std::invalid_argument);
  CHECK_THROWS_AS(st::fit(ctx(), nullptr, 20), std::invalid_argument);
}

TEST_CASE("stable.fit_at_extreme_magnitudes") {
  // The same sample at 1e-300 and at 1e250: the fit is that of the sample at scale 1 with scale and
  // location multiplied (the law is a location-scale family); it used to fail near 1e-300 with
  // "alpha ... got -nan".
  if (!clstat_test::has_fp64()) return;
  const st::Params law{1.6, 0.4, 1.0, 0.5, st::Param::S0};
  const auto x = st::sample(ctx(), 400, law, 77);
  st::FitOptions o;
  o.method = st::FitMethod::mcculloch;
  const auto base = st::fit(ctx(), x.data(), x.size(), o);
  for (double c : {0x1p-1000, 0x1p830}) {
    std::vector<double> y(x);
    for (double& v : y) v *= c;
    for (auto param : {st::Param::S0, st::Param::S1}) {
      o.param = param;
      const auto r = st::fit(ctx(), y.data(), y.size(), o);
      const auto ref = st::fit(ctx(), x.data(), x.size(), o);
      INFO("c " << c << " param " << static_cast<int>(param));
      CHECK(r.params.alpha == doctest::Approx(ref.params.alpha).epsilon(1e-12));
      CHECK(r.params.beta == doctest::Approx(ref.params.beta).epsilon(1e-12));
      CHECK(r.params.scale / c == doctest::Approx(ref.params.scale).epsilon(1e-12));
      CHECK(r.params.loc / c == doctest::Approx(ref.params.loc).epsilon(1e-9));
    }
  }
  CHECK(base.params.alpha > 1.3);
  // The MLE on the tiny sample: finite, and the scale in the data's units.
  o = st::FitOptions{};
  o.tol = 1e-4;
  std::vector<double> tiny(x);
  for (double& v : tiny) v *= 1e-300;
  const auto m = st::fit(ctx(), tiny.data(), tiny.size(), o);
  CHECK(std::isfinite(m.loglik));
  CHECK(m.params.scale / 1e-300 == doctest::Approx(1.0).epsilon(0.3));
}
