// Device groups: order statistics over shards equal the single-device results bit for bit, for
// any split (equal and unequal weights, an empty shard, one member with all the data), on the
// test device taken two and three times (two contexts on one device, as VexCL tests its
// multi-device path on one device), or on the devices CLSTAT_DEVICE lists (tests/main.cpp).
#include <doctest/doctest.h>

#include <clstat/group.hpp>
#include <clstat/tuning.hpp>

#include <cmath>
#include <filesystem>
#include <cstring>
#include <limits>

#include "reference/order_data.hpp"
#include "reference/order_reference.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::same_bits;
using clstat_test::type_ok;

namespace {



// Members: the test device `k` times, or the devices CLSTAT_DEVICE lists, in turn; the given weights.
DeviceGroup group_of(std::size_t k, std::vector<double> weights = {}) {
  const auto& listed = clstat_test::group_devices();
  std::vector<Context> m;
  for (std::size_t i = 0; i < k; ++i) m.emplace_back(listed.empty() ? ctx().device() : listed[i % listed.size()], 2);
  return DeviceGroup(std::move(m), std::move(weights));
}

}  // namespace

TEST_CASE_TEMPLATE("group.order_equals_one_device_for_any_split", T, float, double, std::int32_t, std::int64_t) {
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<DeviceGroup> groups{group_of(2), group_of(3), group_of(2, {1, 3}), group_of(3, {2, 0, 1}),
                                        group_of(3, {0, 1, 0})};
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(300001)}) {
    for (const char* d : {"normal", "mixture2", "equal", "sorted"}) {
      INFO("n " << n << " " << d);
      const auto x = clstat_ref::order_data<T>(d, n, seed + n);
      const auto s = clstat_ref::sorted_total(x);
      const std::vector<std::uint64_t> ks{1, (n + 1) / 2, n, (n + 3) / 4};
      const double med = order::median(ctx(), x.data(), n);
      const auto q = order::quantiles(ctx(), x.data(), n, {0.01, 0.25, 0.5, 0.9, 1.0}, 7);
      for (std::size_t gi = 0; gi < groups.size(); ++gi) {
        INFO("group " << gi);
        const auto got = order::kth_smallest(groups[gi], x.data(), n, ks);
        REQUIRE(got.size() == ks.size());
        for (std::size_t i = 0; i < ks.size(); ++i) CHECK(same_bits(got[i], s[ks[i] - 1]));
        CHECK(same_bits(order::median(groups[gi], x.data(), n), med));
        const auto gq = order::quantiles(groups[gi], x.data(), n, {0.01, 0.25, 0.5, 0.9, 1.0}, 7);
        for (std::size_t i = 0; i < q.size(); ++i) CHECK(same_bits(gq[i], q[i]));
      }
    }
  }
}

TEST_CASE("group.nan_policies_and_many_ranks") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 50001;
  auto x = clstat_ref::order_data<float>("normal", n, seed);
  for (std::size_t i = 0; i < n; i += 7) x[i] = std::numeric_limits<float>::quiet_NaN();
  const DeviceGroup g = group_of(3, {1, 2, 1});
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  CHECK(std::isnan(order::median(g, x.data(), n)));
  CHECK(same_bits(order::median(g, x.data(), n, omit), order::median(ctx(), x.data(), n, omit)));
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_AS(order::median(g, x.data(), n, raise), std::invalid_argument);
  // More ranks than one batch of passes takes (64), spread over the whole range.
  std::vector<double> probs;
  for (int i = 0; i <= 100; ++i) probs.push_back(i / 100.0);
  const auto one = order::quantiles(ctx(), x.data(), n, probs, 7, omit);
  const auto many = order::quantiles(g, x.data(), n, probs, 7, omit);
  for (std::size_t i = 0; i < probs.size(); ++i) CHECK(same_bits(many[i], one[i]));
}

TEST_CASE("group.ties_descend_to_the_last_bit") {
  // Two neighbouring floats, each more often than the host finishes among (2^18): the passes
  // run on every shard down to the last digit.
  const std::size_t n = (1u << 20) + 1;
  std::vector<float> x(n);
  const float a = 1.0f, b = std::nextafter(1.0f, 2.0f);
  for (std::size_t i = 0; i < n; ++i) x[i] = (i * 2654435761u) % 5 < 2 ? a : b;
  std::size_t na = 0;
  for (float v : x) na += v == a;
  const DeviceGroup g = group_of(2, {3, 1});
  const auto got = order::kth_smallest(g, x.data(), n, {1, na, na + 1, n});
  CHECK(same_bits(got[0], a));
  CHECK(same_bits(got[1], a));
  CHECK(same_bits(got[2], b));
  CHECK(same_bits(got[3], b));
}

TEST_CASE("group.points_split_equal_one_device") {
  // Each point's value is its member's; the members are this device, so the values are the
  // single-device ones bit for bit, for any split of the points.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 3001, m = 2049, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed), y = clstat_test::normal<double>(m * d, seed + 1, 0, 1.5);
  KdeOptions ko;
  ko.bandwidth = Bandwidth::scaled_covariance(0.4);
  const auto one = kde(ctx(), x.data(), n, d, y.data(), m, ko);
  KdeOptions k1;
  k1.bandwidth = Bandwidth::scalar(0.3);
  const auto cdf_one = kde_cdf(ctx(), x.data(), n, y.data(), m, k1);  // x's and y's first n and m values as 1-d data
  const stable::Params law{1.3, -0.4, 2, 1, stable::Param::S0};
  const auto pts = clstat_test::normal<double>(1001, seed + 2, 0, 10);
  const auto pdf1 = stable::pdf(ctx(), pts.data(), pts.size(), law);
  const auto cdf1 = stable::cdf(ctx(), pts.data(), pts.size(), law);
  for (const DeviceGroup& g : {group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1})}) {
    const auto got = kde(g, x.data(), n, d, y.data(), m, ko);
    REQUIRE(got.size() == m);
    for (std::size_t i = 0; i < m; ++i) CHECK(same_bits(got[i], one[i]));
    const auto gc1 = kde_cdf(g, x.data(), n, y.data(), m, k1);
    REQUIRE(gc1.size() == m);
    for (std::size_t i = 0; i < m; ++i) CHECK(same_bits(gc1[i], cdf_one[i]));
    const auto gp = stable::pdf(g, pts.data(), pts.size(), law), gc = stable::cdf(g, pts.data(), pts.size(), law);
    REQUIRE(gp.size() == pts.size());
    // Into caller memory (filled with NaN first, so a slice no member wrote shows), and in place.
    std::vector<double> into(pts.size(), std::nan("")), in_place = pts;
    stable::pdf(g, pts.data(), pts.size(), law, into.data());
    stable::cdf(g, in_place.data(), in_place.size(), law, in_place.data());
    for (std::size_t i = 0; i < pts.size(); ++i) {
      CHECK(same_bits(gp[i], pdf1[i]));
      CHECK(same_bits(gc[i], cdf1[i]));
      CHECK(same_bits(into[i], pdf1[i]));
      CHECK(same_bits(in_place[i], cdf1[i]));
    }
  }
  // A member's error reaches the caller as the single-device call raises it.
  const DeviceGroup g = group_of(2);
  CHECK_THROWS_AS(stable::pdf(g, pts.data(), pts.size(), stable::Params{2.5, 0, 1, 0, stable::Param::S0}),
                  std::invalid_argument);
  std::vector<double> out(pts.size());
  CHECK_THROWS_AS(stable::sf(g, pts.data(), pts.size(), stable::Params{2.5, 0, 1, 0, stable::Param::S0}, out.data()),
                  std::invalid_argument);
  CHECK_THROWS_AS(stable::logpdf(g, pts.data(), pts.size(), law, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(stable::logpdf(g, nullptr, pts.size(), law, out.data()), std::invalid_argument);
  stable::logpdf(g, nullptr, 0, law, nullptr);  // nothing to do
  CHECK_THROWS_AS(kde(g, x.data(), 0, d, y.data(), m, ko), std::invalid_argument);
  KdeOptions loo = k1;
  loo.leave_one_out = true;
  CHECK_THROWS_AS(kde_cdf(g, x.data(), n, y.data(), m, loo), std::invalid_argument);
}

TEST_CASE_TEMPLATE("group.rows_equal_one_device_for_any_split", T, float, double, std::int32_t, std::int64_t) {
  // Each row's statistics are its member's, and the members are this device: the single-device
  // values bit for bit, for equal and unequal shares, an empty share and one member with all rows.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t rows = 37, cols = 1500;
  auto x = clstat_ref::order_data<T>("mixture2", rows * cols, seed);
  if constexpr (std::is_floating_point_v<T>) x[20 * cols + 7] = std::numeric_limits<T>::quiet_NaN();
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  const std::vector<std::uint64_t> ks{1, 700, 1400};
  const std::vector<double> probs{0.05, 0.5, 0.95};
  const auto k1 = order::kth_smallest_rows(ctx(), x.data(), rows, cols, ks, omit);
  const auto m1 = order::median_rows(ctx(), x.data(), rows, cols);
  const auto q1 = order::quantiles_rows(ctx(), x.data(), rows, cols, probs, 6, omit);
  for (const DeviceGroup& g : {group_of(2), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1})}) {
    const auto k = order::kth_smallest_rows(g, x.data(), rows, cols, ks, omit);
    const auto m = order::median_rows(g, x.data(), rows, cols);
    const auto q = order::quantiles_rows(g, x.data(), rows, cols, probs, 6, omit);
    REQUIRE(k.size() == k1.size());
    REQUIRE(m.size() == rows);
    REQUIRE(q.size() == q1.size());
    for (std::size_t i = 0; i < k.size(); ++i) CHECK(same_bits(k[i], k1[i]));
    for (std::size_t i = 0; i < rows; ++i) CHECK(same_bits(m[i], m1[i]));
    for (std::size_t i = 0; i < q.size(); ++i) CHECK(same_bits(q[i], q1[i]));
  }
  if constexpr (std::is_floating_point_v<T>) {
    order::Options raise;
    raise.nan = order::NanPolicy::raise;
    CHECK_THROWS_WITH_AS(order::median_rows(group_of(2), x.data(), rows, cols, raise),
                         doctest::Contains("row 20 holds 1 NaN"), std::invalid_argument);
  }
  CHECK_THROWS_WITH_AS(order::median_rows(group_of(2), x.data(), 0, cols), doctest::Contains("empty matrix"),
                       std::invalid_argument);
}

TEST_CASE("group.stable_quantiles_and_draws_equal_one_device") {
  // Draws split by counter: the single-device stream bit for bit. Quantiles split by probability:
  // each member's Newton solve starts from a table whose use depends on its share's size, so
  // the roots agree with the single call's within the tolerance (1e-12 relative in x), not bit
  // for bit.
  if (!clstat_test::has_fp64()) return;
  const stable::Params law{1.6, 0.3, 1.5, -1, stable::Param::S0};
  std::vector<double> p;
  for (int i = 0; i <= 400; ++i) p.push_back(i / 400.0);
  const auto q1 = stable::quantile(ctx(), p.data(), p.size(), law), s1 = stable::isf(ctx(), p.data(), p.size(), law);
  const auto d1 = stable::sample(ctx(), 5000, law, 42, 17);
  for (const DeviceGroup& g : {group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1})}) {
    const auto q = stable::quantile(g, p.data(), p.size(), law), s = stable::isf(g, p.data(), p.size(), law);
    const auto d = stable::sample(g, 5000, law, 42, 17);
    REQUIRE(q.size() == p.size());
    REQUIRE(d.size() == d1.size());
    auto close = [](double a, double b) { return same_bits(a, b) || std::fabs(a - b) <= 2e-12 * std::fabs(b); };
    for (std::size_t i = 0; i < p.size(); ++i) {
      INFO("p " << p[i] << ": " << q[i] << " against " << q1[i] << ", isf " << s[i] << " against " << s1[i]);
      CHECK(close(q[i], q1[i]));
      CHECK(close(s[i], s1[i]));
    }
    for (std::size_t i = 0; i < d.size(); ++i) CHECK(same_bits(d[i], d1[i]));
  }
  std::vector<double> bad = p;
  bad[301] = 1.5;
  CHECK_THROWS_WITH_AS(stable::quantile(group_of(2), bad.data(), bad.size(), law), doctest::Contains("index 301"),
                       std::invalid_argument);
  const auto nan_ok = stable::quantile(group_of(2), bad.data(), bad.size(), law, 1e-12, true);
  CHECK(std::isnan(nan_ok[301]));
  CHECK(stable::sample(group_of(2), 0, law, 1).empty());
  CHECK_THROWS_AS(stable::sample(group_of(2), 10, stable::Params{2.5, 0, 1, 0, stable::Param::S0}, 1),
                  std::invalid_argument);
}

TEST_CASE("group.stable_fit_agrees_with_one_device") {
  // The likelihoods are summed over the members' shares, so they round differently from one
  // device's: the fit agrees to far within its tolerance, and is that fit bit for bit when one
  // member holds every value.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const stable::Params law{1.7, -0.4, 2, 1, stable::Param::S0};
  const auto x = stable::sample(ctx(), 400, law, seed);
  const stable::FitResult one = stable::fit(ctx(), x.data(), x.size());
  REQUIRE(one.converged);
  {
    const stable::FitResult r = stable::fit(group_of(3, {2, 0, 1}), x.data(), x.size());
    CHECK(r.converged);
    CHECK(std::fabs(r.params.alpha - one.params.alpha) < 1e-7);
    CHECK(std::fabs(r.params.beta - one.params.beta) < 1e-6);
    CHECK(std::fabs(r.params.scale - one.params.scale) < 1e-7 * one.params.scale);
    CHECK(std::fabs(r.params.loc - one.params.loc) < 1e-7 * one.params.scale);
    CHECK(std::fabs(r.loglik - one.loglik) < 1e-9 * std::fabs(one.loglik));
    CHECK(std::fabs(r.se_alpha - one.se_alpha) < 1e-4 * one.se_alpha);
  }
  const stable::FitResult all_on_last = stable::fit(group_of(3, {0, 0, 1}), x.data(), x.size());
  CHECK(same_bits(all_on_last.params.alpha, one.params.alpha));
  CHECK(same_bits(all_on_last.params.beta, one.params.beta));
  CHECK(same_bits(all_on_last.params.scale, one.params.scale));
  CHECK(same_bits(all_on_last.loglik, one.loglik));
  // Bad input raises as on one device.
  CHECK_THROWS_AS(stable::fit(group_of(2), nullptr, 10), std::invalid_argument);
  std::vector<double> bad = x;
  bad[200] = std::nan("");
  CHECK_THROWS_AS(stable::fit(group_of(2), bad.data(), bad.size()), std::invalid_argument);
}

TEST_CASE("group.plugin_equals_one_device") {
  // Every tile's partial sum is the one the first member computes, whoever computes it, and the
  // first member merges them in the pass's order: the bandwidths are the single-device ones bit
  // for bit, for any weights (the first member with none included), 1 and 2 stages, d = 1 and 2.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 3001;
  const auto x = clstat_test::normal<double>(2 * n, seed);
  for (int stages : {1, 2})
    for (std::size_t d : {std::size_t(1), std::size_t(2)}) {
      bandwidth::PluginOptions o;
      o.stages = stages;
      const auto one = bandwidth::plugin(ctx(), x.data(), n, d, o);
      for (const DeviceGroup& g : {group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1}), group_of(2, {1, 0})}) {
        const auto got = bandwidth::plugin(g, x.data(), n, d, o);
        REQUIRE(got.size() == d);
        for (std::size_t k = 0; k < d; ++k) {
          INFO("stages " << stages << ", d " << d << ", column " << k << ": " << got[k] << " against " << one[k]);
          CHECK(same_bits(got[k], one[k]));
        }
      }
    }
  const DeviceGroup g = group_of(2);
  bandwidth::PluginOptions bad;
  bad.stages = 3;
  CHECK_THROWS_AS(bandwidth::plugin(g, x.data(), n, 1, bad), std::invalid_argument);
  CHECK_THROWS_AS(bandwidth::plugin(g, x.data(), 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(bandwidth::plugin(g, static_cast<const double*>(nullptr), n, 1), std::invalid_argument);
  const std::vector<double> flat(100, 2.5);  // zero scale: the single-device message
  CHECK_THROWS_WITH_AS(bandwidth::plugin(g, flat.data(), flat.size(), 1), doctest::Contains("zero scale"),
                       std::invalid_argument);
}

TEST_CASE("group.lscv_H_equals_one_device") {
  // Every evaluation's sums are the first member's bit for bit, so the search takes the same
  // steps: the same H, objective and evaluation count, for any weights.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 700, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed);
  bandwidth::LscvMatrixOptions o;
  o.restarts = 0;
  o.max_evaluations = 40;
  const auto one = bandwidth::lscv_H(ctx(), x.data(), n, d, o);
  for (const DeviceGroup& g : {group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1})}) {
    const auto got = bandwidth::lscv_H(g, x.data(), n, d, o);
    CHECK(got.evaluations == one.evaluations);
    CHECK(same_bits(got.objective, one.objective));
    REQUIRE(got.H.size() == one.H.size());
    for (std::size_t i = 0; i < one.H.size(); ++i) CHECK(same_bits(got.H[i], one.H[i]));
  }
  CHECK_THROWS_AS(bandwidth::lscv_H(group_of(2), x.data(), 2, d, o), std::invalid_argument);
}

TEST_CASE("group.lscv_h_equals_one_device") {
  // The members' sums are added in member order, so they round differently from one device's
  // single pass. The objective agrees to rounding; h only as far as the flat bottom of the
  // objective lets rounding choose between neighbouring h (2.5e-7 relative at n = 2000).
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t d : {1ul, 2ul}) {
    const std::size_t n = 1500;
    const auto x = clstat_test::normal<double>(n * d, seed + d);
    bandwidth::LscvOptions o;
    const auto one = bandwidth::lscv_h(ctx(), x.data(), n, d, o);
    for (const DeviceGroup& g : {group_of(2), group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1})}) {
      const auto got = bandwidth::lscv_h(g, x.data(), n, d, o);
      INFO("d " << d << " members " << g.size());
      CHECK(std::fabs(got.multiplier - one.multiplier) <= 1e-5 * one.multiplier);
      CHECK(std::fabs(got.objective - one.objective) <= 1e-12 * std::fabs(one.objective));
      CHECK(got.passes == one.passes);
      CHECK(got.at_boundary == one.at_boundary);
      REQUIRE(got.grid_objective.size() == one.grid_objective.size());
      for (std::size_t k = 0; k < one.grid_objective.size(); ++k)
        CHECK(std::fabs(got.grid_objective[k] - one.grid_objective[k]) <= 1e-12 * std::fabs(one.grid_objective[k]));
      REQUIRE(got.h.size() == d);
    }
  }
  // Skewed data move the grid (a pass per move) on the group as on one device.
  std::vector<double> e = clstat_test::normal<double>(800, seed + 7);
  for (double& v : e) v = std::exp(2 * v);
  const auto one = bandwidth::lscv_h(ctx(), e.data(), e.size(), 1);
  const auto got = bandwidth::lscv_h(group_of(2), e.data(), e.size(), 1);
  CHECK(got.passes == one.passes);
  CHECK(std::fabs(got.multiplier - one.multiplier) <= 1e-5 * one.multiplier);
  CHECK_THROWS_AS(bandwidth::lscv_h(group_of(2), static_cast<const double*>(nullptr), 100, 1), std::invalid_argument);
  const std::vector<double> two{1.0, 2.0};  // too few points: the single-device message on every member
  CHECK_THROWS_AS(bandwidth::lscv_h(group_of(2), two.data(), two.size(), 1), std::invalid_argument);
}

TEST_CASE("group.lts_equals_one_device") {
  // The starts' block runs and the ten survivors' final C-steps shared out over the members: each
  // run is its own, so the same fit bit for bit for any weights. Past 2048 rows the nested search
  // and the final C-steps; at most 2048, every start C-stepped on all rows.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t p = 3;
  for (std::size_t n : {std::size_t(5000), std::size_t(1200)}) {
    INFO("n " << n);
    std::vector<double> x = clstat_test::normal<double>(n * p, seed), e = clstat_test::normal<double>(n, seed + 1);
    std::vector<double> y(n);
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = 1 + x[i * p] - 2 * x[i * p + 1] + 0.5 * x[i * p + 2] + 0.1 * e[i];
      if (i % 5 == 0) y[i] += 20;  // 20% outliers
    }
    robust::LtsOptions o;
    o.seed = seed;
    const auto one = robust::lts(ctx(), x.data(), n, p, y.data(), o);
    for (const DeviceGroup& g : {group_of(2), group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {0, 0, 1})}) {
      const auto got = robust::lts(g, x.data(), n, p, y.data(), o);
      INFO("members " << g.size());
      CHECK(got.best == one.best);
      CHECK(got.outliers == one.outliers);
      REQUIRE(got.coefficients.size() == one.coefficients.size());
      for (std::size_t j = 0; j < one.coefficients.size(); ++j) {
        CHECK(same_bits(got.coefficients[j], one.coefficients[j]));
        CHECK(same_bits(got.raw_coefficients[j], one.raw_coefficients[j]));
      }
      CHECK(same_bits(got.objective, one.objective));
      CHECK(got.csteps == one.csteps);
    }
  }
  std::vector<double> x = clstat_test::normal<double>(5 * p, 1), y = clstat_test::normal<double>(5, 2);
  CHECK_THROWS_AS(robust::lts(group_of(2), x.data(), 5, p, y.data(), robust::LtsOptions{}), std::invalid_argument);
}

TEST_CASE("group.grid_equals_one_device") {
  // A grid point's value is the same whichever rows a call computes: the members' rows give the
  // single-device grid bit for bit, sample-wise (one slab and many) and point-wise, for any split.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 2000;
  for (std::size_t d : {std::size_t(2), std::size_t(3)}) {
    const auto x = clstat_test::normal<double>(n * d, seed + d);
    GridSpec grid;
    for (std::size_t k = 0; k < d; ++k) {
      grid.lower.push_back(-3.5 + 0.1 * static_cast<double>(k));
      grid.upper.push_back(3.0 + 0.2 * static_cast<double>(k));
      grid.count.push_back(d == 2 ? 61 - 10 * k : 23 + 4 * k);
    }
    for (GridMethod method : {GridMethod::sample_wise, GridMethod::point_wise})
      for (std::size_t budget : {std::size_t(0), std::size_t(3 * 64 * sizeof(double))}) {
        GridOptions o;
        o.method = method;
        o.kernel = Kernel::epanechnikov;
        o.bandwidth = Bandwidth::scaled_covariance(0.6);
        o.memory_budget_bytes = budget;
        const auto one = evaluate_grid(ctx(), x.data(), n, d, grid, o);
        for (const DeviceGroup& g : {group_of(2, {1, 3}), group_of(3, {2, 0, 1}), group_of(3, {1, 1, 1})}) {
          const auto got = evaluate_grid(g, x.data(), n, d, grid, o);
          INFO("d " << d << ", method " << static_cast<int>(method) << ", budget " << budget);
          REQUIRE(got.size() == one.size());
          std::size_t differ = 0;
          for (std::size_t i = 0; i < one.size(); ++i) differ += !same_bits(got[i], one[i]);
          CHECK(differ == 0);
        }
      }
  }
  // Bad grids raise as on one device.
  const auto x = clstat_test::normal<double>(200, seed);
  GridSpec bad;
  bad.lower = {0, 0};
  bad.upper = {1, -1};
  bad.count = {10, 10};
  CHECK_THROWS_AS(evaluate_grid(group_of(2), x.data(), 100, 2, bad, {}), std::invalid_argument);
  bad.count = {10};
  CHECK_THROWS_AS(evaluate_grid(group_of(2), x.data(), 100, 2, bad, {}), std::invalid_argument);
}

TEST_CASE("group.weights_from_measured_rates") {
  // Default weights: every member's group.rate tuning entry when all have one, else equal.
  const clstat_test::ScopedEnv no_file("CLSTAT_TUNING_FILE", "/nonexistent/clstat-tuning.json");
  const Device dev = ctx().device();
  const DeviceGroup g({Context(dev, 2, {{"group.rate", 300}}), Context(dev, 2, {{"group.rate", 100}})});
  CHECK(g.weights() == std::vector<double>{300, 100});
  CHECK(g.split(8) == std::vector<std::size_t>{6, 2});
  const DeviceGroup h({Context(dev, 2, {{"group.rate", 300}}), Context(dev, 2)});
  CHECK(h.weights() == std::vector<double>{1, 1});
  const DeviceGroup k({Context(dev, 2, {{"group.rate", 300}}), Context(dev, 2, {{"group.rate", 100}})}, {1, 1});
  CHECK(k.weights() == std::vector<double>{1, 1});  // given weights win
  CHECK_THROWS_AS(Context(dev, 2, {{"group.rate", 0}}), std::invalid_argument);
  // The rates a tuning file stores reach the contexts made afterwards, and from_spec's group.
  const auto dir = std::filesystem::temp_directory_path() / ("clstat-group-rate-" + std::to_string(clstat_test::fresh_seed()));
  const clstat_test::ScopedEnv file("CLSTAT_TUNING_FILE", (dir / "tuning.json").string());
  store_tuning(ctx().info(), {{"group.rate", 7}});
  const std::string pd = std::to_string(ctx().info().platform_index) + ":" + std::to_string(ctx().info().device_index);
  CHECK(DeviceGroup::from_spec(pd + "," + pd).weights() == std::vector<double>{7, 7});
  std::filesystem::remove_all(dir);
}

TEST_CASE("group.bad_input") {
  const DeviceGroup g = group_of(2);
  const std::vector<double> x{1, 2, 3};
  CHECK_THROWS_AS(order::median(g, x.data(), 0), std::invalid_argument);
  CHECK_THROWS_AS(order::median<double>(g, nullptr, 3), std::invalid_argument);
  CHECK_THROWS_AS(order::kth_smallest(g, x.data(), 3, {4}), std::invalid_argument);
  order::Options sort;
  sort.method = order::Method::sort;
  CHECK_THROWS_AS(order::median(g, x.data(), 3, sort), std::invalid_argument);
  CHECK_THROWS_AS(DeviceGroup({}), std::invalid_argument);
  CHECK_THROWS_AS(DeviceGroup({ctx(), ctx()}), std::invalid_argument);  // one Context twice
  CHECK_THROWS_AS(group_of(2, {1}), std::invalid_argument);
  CHECK_THROWS_AS(group_of(2, {0, 0}), std::invalid_argument);
  CHECK_THROWS_AS(group_of(2, {1, -1}), std::invalid_argument);
  CHECK_THROWS_AS(DeviceGroup::from_spec("no-such-device-anywhere"), std::invalid_argument);
  CHECK(DeviceGroup::from_spec(ctx().info().name + "," + ctx().info().name).size() == 2);
  const auto sizes = group_of(3, {1, 0, 2}).split(10);
  CHECK(sizes == std::vector<std::size_t>{3, 0, 7});
}
