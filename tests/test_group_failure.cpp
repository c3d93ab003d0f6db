// A member of a device group that fails in the middle of a split call: the call raises that
// member's clstat::Error (its OpenCL status, its device named) once every member has stopped,
// and the group, its contexts and their queues stay usable: the next call gives the answer of a
// group that never failed. Context::inject_launch_failure makes the member's k-th launch fail
// for k = 1, 2, ... (then doubling), until a call runs to its end before reaching it, so every
// stage of each call (upload, first pass, later passes, the host's merge) is cut at least once.
#include <doctest/doctest.h>

#include <clstat/group.hpp>

#include <cmath>
#include <functional>
#include <string>

#include "reference/order_data.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::same_bits;

namespace {

constexpr int kInjected = -5;  // CL_OUT_OF_RESOURCES

DeviceGroup group_of(std::size_t k, std::vector<double> weights = {}) {
  const auto& listed = clstat_test::group_devices();
  std::vector<Context> m;
  for (std::size_t i = 0; i < k; ++i) m.emplace_back(listed.empty() ? ctx().device() : listed[i % listed.size()], 2);
  return DeviceGroup(std::move(m), std::move(weights));
}

// Cuts `call` at member mi's 1st, 2nd, ... launch; `good` checks a completed call's result.
// Returns how many calls failed (the launches the member makes, up to the doubling steps).
template <class F, class Good>
std::size_t fail_each_launch(const DeviceGroup& g, std::size_t mi, F&& call, Good&& good) {
  const Context& member = g.member(mi);
  const std::string name = member.device().info().name;
  std::size_t failures = 0;
  for (std::uint64_t after = 0;; after = after < 8 ? after + 1 : 2 * after) {
    INFO("member " << mi << ", launch " << after + 1);
    member.inject_launch_failure(after);
    bool failed = false;
    try {
      good(call());
    } catch (const Error& e) {
      failed = true;
      CHECK(e.code() == kInjected);
      CHECK(e.device() == name);
      CHECK(std::string(e.what()).find(name) != std::string::npos);
    }
    // Any other exception escapes and fails the test case with its message.
    if (!failed) break;
    ++failures;
    REQUIRE(failures < 64);
  }
  CHECK(failures >= 1);  // the call launches on this member, so its first launch at least fails
  member.cancel_injected_failure();
  // Usable after the failures: the group's answer, and the member alone gives its own.
  good(call());
  return failures;
}

}  // namespace

TEST_CASE("group.member_failure_order_statistics") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 300001;
  const auto x = clstat_ref::order_data<float>("normal", n, seed);
  const std::vector<double> probs{0.01, 0.5, 0.99};
  const auto one = order::quantiles(ctx(), x.data(), n, probs, 7);
  const DeviceGroup g = group_of(2, {1, 2});
  for (std::size_t mi : {0ul, 1ul}) {
    const std::size_t failed = fail_each_launch(
        g, mi, [&] { return order::quantiles(g, x.data(), n, probs, 7); },
        [&](const std::vector<double>& got) {
          REQUIRE(got.size() == one.size());
          for (std::size_t i = 0; i < one.size(); ++i) CHECK(same_bits(got[i], one[i]));
        });
    CHECK(failed >= 2);  // the first pass and a later one at least
  }
  // Batched rows: each member's rows on a thread of its own.
  const std::size_t rows = 48, cols = 1001;
  const auto r = clstat_ref::order_data<double>("mixture2", rows * cols, seed + 1);
  const auto med = order::median_rows(ctx(), r.data(), rows, cols);
  const DeviceGroup g3 = group_of(3, {1, 1, 2});
  fail_each_launch(
      g3, 2, [&] { return order::median_rows(g3, r.data(), rows, cols); },
      [&](const std::vector<double>& got) {
        REQUIRE(got.size() == rows);
        for (std::size_t i = 0; i < rows; ++i) CHECK(same_bits(got[i], med[i]));
      });
}

TEST_CASE("group.member_failure_points_and_draws") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 2001, m = 1025, d = 2;
  const auto x = clstat_test::normal<double>(n * d, seed), y = clstat_test::normal<double>(m * d, seed + 1);
  KdeOptions ko;
  ko.bandwidth = Bandwidth::scaled_covariance(0.4);
  const auto dens = kde(ctx(), x.data(), n, d, y.data(), m, ko);
  const stable::Params law{1.3, -0.4, 2, 1, stable::Param::S0};
  const auto pts = clstat_test::normal<double>(701, seed + 2, 0, 10);
  const auto pdf1 = stable::pdf(ctx(), pts.data(), pts.size(), law);
  const auto draws = stable::sample(ctx(), 5000, law, seed);
  const DeviceGroup g = group_of(2, {3, 1});
  const auto same = [](const std::vector<double>& want) {
    return [&want](const std::vector<double>& got) {
      REQUIRE(got.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) CHECK(same_bits(got[i], want[i]));
    };
  };
  for (std::size_t mi : {0ul, 1ul}) {
    fail_each_launch(g, mi, [&] { return kde(g, x.data(), n, d, y.data(), m, ko); }, same(dens));
    fail_each_launch(g, mi, [&] { return stable::pdf(g, pts.data(), pts.size(), law); }, same(pdf1));
    fail_each_launch(g, mi, [&] { return stable::sample(g, draws.size(), law, seed); }, same(draws));
  }
}

TEST_CASE("group.member_failure_pair_sums_and_lts") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 1500;
  const auto x = clstat_test::normal<double>(2 * n, seed);
  const auto h1 = bandwidth::plugin(ctx(), x.data(), n, 2);
  const auto cv1 = bandwidth::lscv_h(ctx(), x.data(), n, 1);
  const DeviceGroup g = group_of(2, {1, 3});
  for (std::size_t mi : {0ul, 1ul}) {
    // The first member merges the tiles' partials: cut there and on a member that only computes.
    fail_each_launch(
        g, mi, [&] { return bandwidth::plugin(g, x.data(), n, 2); },
        [&](const std::vector<double>& got) {
          REQUIRE(got.size() == 2);
          CHECK(same_bits(got[0], h1[0]));
          CHECK(same_bits(got[1], h1[1]));
        });
    // The passes run on every member from the calling thread.
    fail_each_launch(
        g, mi, [&] { return bandwidth::lscv_h(g, x.data(), n, 1); },
        [&](const bandwidth::LscvResult& got) {
          CHECK(std::fabs(got.multiplier - cv1.multiplier) <= 1e-5 * cv1.multiplier);
          CHECK(got.passes == cv1.passes);
        });
  }
  const std::size_t rows = 3000, p = 3;
  std::vector<double> a = clstat_test::normal<double>(rows * p, seed + 3), e = clstat_test::normal<double>(rows, seed + 4);
  std::vector<double> b(rows);
  for (std::size_t i = 0; i < rows; ++i) b[i] = 1 + a[i * p] - 2 * a[i * p + 1] + 0.1 * e[i] + (i % 5 == 0 ? 20 : 0);
  robust::LtsOptions o;
  o.seed = seed;
  const auto fit1 = robust::lts(ctx(), a.data(), rows, p, b.data(), o);
  for (std::size_t mi : {0ul, 1ul})
    fail_each_launch(
        g, mi, [&] { return robust::lts(g, a.data(), rows, p, b.data(), o); },
        [&](const robust::LtsFit& got) {
          CHECK(got.best == fit1.best);
          REQUIRE(got.coefficients.size() == fit1.coefficients.size());
          for (std::size_t j = 0; j < got.coefficients.size(); ++j) CHECK(same_bits(got.coefficients[j], fit1.coefficients[j]));
        });
}

TEST_CASE("runtime.injected_failure_reaches_a_future") {
  // The async form's failure arrives through its Future, and the queue takes the next call;
  // bad arguments to the injection itself.
  const std::size_t n = 100001;
  const auto x = clstat_ref::order_data<double>("normal", n, 7);
  const Context c(ctx().device(), 1);
  const Buffer<double> buf(c, x.data(), n);
  const double want = order::median(ctx(), x.data(), n);
  c.inject_launch_failure(1);
  auto f = order::median_async(c.queue(0), buf, 0, n);
  CHECK_THROWS_AS(f.get(), Error);
  CHECK(same_bits(order::median_async(c.queue(0), buf, 0, n).get(), want));
  c.inject_launch_failure(0);
  c.cancel_injected_failure();  // dropped before it fired
  CHECK(same_bits(order::median(c, x.data(), n), want));
  // A status that is no failure, and a moved-from Context.
  CHECK_THROWS_WITH_AS(c.inject_launch_failure(0, 0), doctest::Contains("cl_code = 0"), std::invalid_argument);
  CHECK_THROWS_AS(c.inject_launch_failure(3, 7), std::invalid_argument);
  Context moved(c);
  const Context taken(std::move(moved));
  CHECK_THROWS_AS(moved.inject_launch_failure(0), std::logic_error);
  CHECK_THROWS_AS(moved.cancel_injected_failure(), std::logic_error);
  CHECK(same_bits(order::median(taken, x.data(), n), want));  // nothing was left pending
}
