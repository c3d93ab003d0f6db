// Order statistics: every result equal, bit for bit, to a full sort under IEEE totalOrder
// (tests/reference/order_reference.hpp), on fresh random inputs of every distribution of issue 7,
// on special values, and every quantile type equal to R's on committed data.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "reference/order_data.hpp"
#include "reference/order_reference.hpp"
#include "reference/tagged_golden.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::same_bits;
using clstat_test::type_ok;

namespace {


// Checks kth_smallest for ks against the sorted copy, by method.
template <class T>
void check_ks(const std::vector<T>& x, const std::vector<std::uint64_t>& ks, order::Method m,
              const clstat::Context& c = ctx()) {
  const auto s = clstat_ref::sorted_total(x);
  order::Options o;
  o.method = m;
  o.nan = order::NanPolicy::omit;
  const auto got = order::kth_smallest(c, x.data(), x.size(), ks, o);
  REQUIRE(got.size() == ks.size());
  for (std::size_t i = 0; i < ks.size(); ++i) {
    INFO("k = " << ks[i] << " of n = " << x.size() << ": got " << got[i] << ", sort says " << s[ks[i] - 1]);
    CHECK(same_bits(got[i], s[ks[i] - 1]));
  }
}

template <class T>
double midpoint_ref(const std::vector<T>& s, std::size_t n) {
  if (n % 2) return static_cast<double>(s[n / 2]);
  return static_cast<double>((static_cast<long double>(s[n / 2 - 1]) + static_cast<long double>(s[n / 2])) / 2);
}

std::vector<std::uint64_t> some_ks(std::uint64_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> ks{1, n, (n + 1) / 2, n / 2 + 1};
  std::mt19937_64 g(seed);
  for (int i = 0; i < 4; ++i) ks.push_back(1 + g() % n);
  return ks;
}


}  // namespace

TEST_CASE_TEMPLATE("order.kth_matches_sort_on_every_distribution", T, float, double, std::int32_t, std::int64_t) {
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (const auto& d : clstat_ref::order_distributions()) {
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(200003)}) {
      INFO(d << " n = " << n);
      const auto x = clstat_ref::order_data<T>(d, n, seed + n);
      check_ks(x, some_ks(n, seed), order::Method::radix);
      if (n >= 1000) check_ks(x, some_ks(n, seed), order::Method::cutting_plane);
    }
  }
}

TEST_CASE_TEMPLATE("order.radix_and_sort_agree_at_2e21", T, float, double) {
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (1u << 21) + 3;
  for (const char* d : {"uniform", "mixture5", "sorted"}) {
    INFO(d);
    const auto x = clstat_ref::order_data<T>(d, n, seed);
    const auto ks = some_ks(n, seed);
    check_ks(x, ks, order::Method::radix);
    check_ks(x, ks, order::Method::sort);
    check_ks(x, {ks[0], ks[2], ks[5]}, order::Method::cutting_plane);
  }
}

TEST_CASE_TEMPLATE("order.cutting_plane_device_remainder", T, float, double) {
  // n >= 2^22: the Kelley steps stop at n / 64 values in the bracket, which are copied on the
  // device and selected there; an even n's two middle ranks and close quantiles share a bracket.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = std::size_t{1} << 22;
  order::Options o;
  o.method = order::Method::cutting_plane;
  for (const char* d : {"normal", "mixture3"}) {
    INFO(d);
    const auto x = clstat_ref::order_data<T>(d, n, seed);
    const auto s = clstat_ref::sorted_total(x);
    CHECK(order::median(ctx(), x.data(), n, o) == midpoint_ref(s, n));
    CHECK(order::median(ctx(), x.data(), n - 1, o) ==
          midpoint_ref(clstat_ref::sorted_total(std::vector<T>(x.begin(), x.end() - 1)), n - 1));
    check_ks(x, {n / 3, n / 3 + 7, n / 3 + 4000}, order::Method::cutting_plane);
  }
}

TEST_CASE_TEMPLATE("order.special_values", T, float, double) {
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const T inf = std::numeric_limits<T>::infinity();
  const T big = std::is_same_v<T, double> ? T(1e300) : T(1e38);
  const T den = std::numeric_limits<T>::denorm_min();
  const std::vector<T> specials{inf, -inf, big, -big, den, -den, T(3) * den, T(0), -T(0), T(0), -T(0), T(1), T(1)};
  std::mt19937_64 g(seed);
  for (std::size_t n : {std::size_t(13), std::size_t(5000), std::size_t(100001)}) {
    std::vector<T> x(n);
    for (auto& v : x) v = specials[g() % specials.size()];
    for (std::size_t i = 0; i < std::min<std::size_t>(n, 13); ++i) x[i] = specials[i];
    std::vector<std::uint64_t> ks;
    for (std::uint64_t k = 1; k <= n; k += std::max<std::uint64_t>(1, n / 37)) ks.push_back(k);
    ks.push_back(n);
    check_ks(x, ks, order::Method::radix);
    check_ks(x, ks, order::Method::cutting_plane);  // signed zeros, a range past 1e13, infinities
  }
}

TEST_CASE("order.many_targets_share_passes") {
  // More than one batch of 64 targets, in a data set with long runs of shared key prefixes.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::vector<float> x(300000);
  for (auto& v : x) v = 1.0f + static_cast<float>(g() % 5000) * 1.1920929e-7f;  // 1 + j ulp: one exponent
  std::vector<std::uint64_t> ks;
  for (int i = 0; i < 150; ++i) ks.push_back(1 + g() % x.size());
  check_ks(x, ks, order::Method::radix);
  std::vector<std::int64_t> y(100000);
  for (auto& v : y) v = static_cast<std::int64_t>(g() % 3) - 1 + (g() % 1000 == 0 ? (std::int64_t(1) << 62) : 0);
  for (auto& k : ks) k = 1 + k % y.size();
  check_ks(y, ks, order::Method::radix);
}

TEST_CASE_TEMPLATE("order.median_odd_even_one_two", T, float, double, std::int32_t, std::int64_t) {
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(4), std::size_t(99999),
                        std::size_t(100000)}) {
    INFO("n = " << n);
    const auto x = clstat_ref::order_data<T>("normal", n, seed + n);
    const auto s = clstat_ref::sorted_total(x);
    const double want = n % 2 ? static_cast<double>(s[n / 2])
                              : (static_cast<double>(s[n / 2 - 1]) + static_cast<double>(s[n / 2])) / 2;
    CHECK(order::median(ctx(), x.data(), n) == want);
    CHECK(same_bits(order::median_low(ctx(), x.data(), n), s[(n + 1) / 2 - 1]));
    CHECK(same_bits(order::median_high(ctx(), x.data(), n), s[n / 2]));
  }
}

TEST_CASE("order.median_of_huge_doubles_does_not_overflow") {
  if (!clstat_test::has_fp64()) return;
  const std::vector<double> x{1.7e308, 1.6e308, -1.0, 1.75e308};
  const double want = static_cast<double>((static_cast<long double>(1.6e308) + 1.7e308) / 2);
  CHECK(order::median(ctx(), x.data(), x.size()) == want);
}

TEST_CASE_TEMPLATE("order.bracketed_median_on_every_distribution", T, float, double) {
  // n >= 2^20 and one or two close targets: the sampled bracket and filtering pass, then radix
  // passes over the bracket's keys (or the plain passes where the bracket does not hold them:
  // all-equal input, a median inside a block of ties).
  // With and without the second sample that narrows the bracket, element and 16-byte loads in
  // the bracket pass (both defaults differ between GPUs and CPUs); n odd leaves a partial
  // vector at the end.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (1u << 20) + 1;
  for (const auto& [sample2, load] : {std::pair<std::size_t, std::size_t>{0, sizeof(T)}, {1u << 16, 16}}) {
    INFO("order.sample2 = " << sample2 << ", order.filter_load_bytes = " << load);
    const clstat::Context c =
        clstat_test::tuned_ctx({{"order.sample2", sample2}, {"order.filter_load_bytes", load}});
    for (const auto& d : clstat_ref::order_distributions()) {
      INFO(d);
      const auto x = clstat_ref::order_data<T>(d, n, seed);
      const auto s = clstat_ref::sorted_total(x);
      CHECK(order::median(c, x.data(), n) == static_cast<double>(s[n / 2]));
      CHECK(order::median(c, x.data(), n - 1) ==
            midpoint_ref(clstat_ref::sorted_total(std::vector<T>(x.begin(), x.end() - 1)), n - 1));
      check_ks(x, {n / 10, n / 10 + 1000}, order::Method::radix, c);
      // Too far apart for one interval of at most a work-group's keys: the plan gives up.
      check_ks(x, {n / 2, n / 2 + 15000}, order::Method::radix, c);
    }
    std::vector<T> ties(n, T(1));
    for (std::size_t i = 0; i < n / 3; ++i) ties[(i * 7919) % n] = T(i % 1000);
    const auto st = clstat_ref::sorted_total(ties);
    CHECK(order::median(c, ties.data(), n) == static_cast<double>(st[n / 2]));
  }
}

TEST_CASE_TEMPLATE("order.spread_targets_share_one_bracket_pass", T, float, double, std::int32_t, std::int64_t) {
  // n >= 2^20 and targets in 2..16 clusters: a bracket per cluster, one pass counting against
  // all of them, and radix passes over the copies alone (the keys between brackets are counted,
  // not copied). Brackets that overlap merge; a bracket of one key (a quantile inside a block of
  // ties) answers without copies; a target outside its bracket takes the plain passes.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::uint64_t n = (1u << 20) + 3;
  auto quantile_ranks = [n](const std::vector<double>& probs) {
    std::vector<std::uint64_t> ks;
    for (double p : probs) {
      const double index = 1 + (static_cast<double>(n) - 1) * p;
      ks.push_back(static_cast<std::uint64_t>(std::floor(index)));
      ks.push_back(static_cast<std::uint64_t>(std::ceil(index)));
    }
    return ks;
  };
  std::vector<double> sixteen;
  for (int i = 1; i <= 16; ++i) sixteen.push_back(i / 17.0);
  const std::vector<std::vector<std::uint64_t>> sets{
      quantile_ranks({0.01, 0.1, 0.5, 0.9, 0.99}),
      quantile_ranks(sixteen),
      {1, n},                                      // the extremes: brackets open at the ends
      {n / 2, n / 2 + n / 50 + 1, n / 2 + n / 25},  // clusters whose brackets overlap
      {n / 3, n / 3 + 5, 2 * n / 3, 2 * n / 3 + 70000}};
  for (const char* d : {"uniform", "mixture2", "sorted", "equal", "outliers"}) {
    INFO(d);
    const auto x = clstat_ref::order_data<T>(d, n, seed);
    for (const auto& ks : sets) check_ks(x, ks, order::Method::radix);
  }
  {
    // The bracket pass's other shape (a CPU's blocks on a GPU, the GPU's interleaved work-items on
    // a CPU): three brackets by compares, five and sixteen by the binary search.
    const std::size_t other = ctx().info().type == clstat::DeviceType::gpu ? 4 : 0;
    INFO("order.filter_blocks_per_cu = " << other);
    const clstat::Context c = clstat_test::tuned_ctx({{"order.filter_blocks_per_cu", other}});
    const auto x = clstat_ref::order_data<T>("mixture2", n, seed);
    for (const auto& ks : {sets[0], sets[1], sets[4]}) check_ks(x, ks, order::Method::radix, c);
  }
  // The spread targets' second sample (order.sample2_multi) at one, and at sixteen (a GPU's
  // default; a CPU's, four, ran above there).
  for (std::size_t m : {1u, 16u}) {
    INFO("order.sample2_multi = " << m);
    const clstat::Context c = clstat_test::tuned_ctx({{"order.sample2_multi", m}});
    const auto x = clstat_ref::order_data<T>("mixture2", n, seed);
    check_ks(x, sets[0], order::Method::radix, c);
    check_ks(x, sets[1], order::Method::radix, c);
  }
  {
    // A second sample of 1024 keys leaves brackets past the copy cap, so it doubles: five
    // quantiles fit at 32768 keys, sixteen not even at n / 16 (their copies are cut and the plain
    // passes answer).
    INFO("order.sample2 = 1024");
    const clstat::Context c = clstat_test::tuned_ctx({{"order.sample2", 1024}, {"order.sample2_multi", 1}});
    const auto x = clstat_ref::order_data<T>("mixture2", n, seed);
    check_ks(x, sets[0], order::Method::radix, c);
    check_ks(x, sets[1], order::Method::radix, c);
  }
  {
    // No second sample: the first sample's brackets, whatever the factor (nothing to double).
    INFO("order.sample2 = 0");
    const clstat::Context c = clstat_test::tuned_ctx({{"order.sample2", 0}});
    const auto x = clstat_ref::order_data<T>("mixture2", n, seed);
    check_ks(x, sets[0], order::Method::radix, c);
    check_ks(x, sets[1], order::Method::radix, c);
  }
  {
    // The passes after the bracket pass the other way (planned on the device, a GPU's default;
    // by the host, a CPU's).
    const std::size_t other = ctx().info().type == clstat::DeviceType::gpu ? 0 : 1;
    INFO("order.plan_spread = " << other);
    const clstat::Context c = clstat_test::tuned_ctx({{"order.plan_spread", other}});
    for (const char* d : {"mixture2", "outliers"}) {
      INFO(d);
      const auto x = clstat_ref::order_data<T>(d, n, seed);
      for (std::size_t i : {0, 1, 2}) check_ks(x, sets[i], order::Method::radix, c);
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    // Distinct values, and brackets that hold their targets (all but the sixteen quantiles,
    // whose brackets overflow the copies' room at this n): the copies were sorted by
    // select_finish_iv (the host's passes) or select_finish_ivplan (the device plan's), and the
    // plain passes (a miss's fallback) did not run.
    const auto x = clstat_ref::order_data<T>("uniform", n, seed);
    for (std::size_t planned : {0u, 1u}) {
      INFO("order.plan_spread = " << planned);
      clstat::Context c = clstat_test::tuned_ctx({{"order.plan_spread", planned}});
      const std::string fin = planned ? "select_finish_ivplan" : "select_finish_iv";
      for (std::size_t i : {0, 2, 3, 4}) {
        INFO("set " << i);
        c.set_profiling(true);
        check_ks(x, sets[i], order::Method::radix, c);
        c.set_profiling(false);
        const auto rec = c.take_profile();
        CHECK(std::any_of(rec.begin(), rec.end(), [&](const auto& r) { return r.kernel == fin; }));
        CHECK(std::none_of(rec.begin(), rec.end(), [](const auto& r) { return r.kernel == "select_finish"; }));
      }
    }
  }
  std::vector<T> ties(n);
  std::mt19937_64 g(seed);
  for (auto& v : ties) v = T(g() % 10);  // every quantile inside a block of one value
  for (const auto& ks : sets) check_ks(ties, ks, order::Method::radix);
  if constexpr (std::is_integral_v<T>) {
    // Brackets of a few keys (targets away from the ends, where a bracket can reach past the
    // sample's keys): the bracket pass counts each key and answers; no other pass does work.
    // The device plan launches its one planned pass a look anyway (idle: the plan is done).
    for (std::size_t planned : {0u, 1u}) {
      INFO("order.plan_spread = " << planned);
      clstat::Context c = clstat_test::tuned_ctx({{"order.plan_spread", planned}, {"order.planned_passes", 1}});
      c.set_profiling(true);
      check_ks(ties, sets[4], order::Method::radix, c);
      c.set_profiling(false);
      const auto rec = c.take_profile();
      // (select_filter_blocks is the bracket pass's shape on CPU devices.)
      CHECK(std::count_if(rec.begin(), rec.end(), [](const auto& r) {
              return r.kernel == "select_hist" || r.kernel == "select_filter_blocks";
            }) == static_cast<std::ptrdiff_t>(1 + planned));
    }
  }
  if constexpr (std::is_floating_point_v<T>) {
    // 30% NaNs under omit move every target below its bracket: the plain passes answer.
    auto x = clstat_ref::order_data<T>("normal", n, seed);
    for (auto& v : x)
      if (g() % 10 < 3) v = std::numeric_limits<T>::quiet_NaN();
    const auto kept = static_cast<std::uint64_t>(std::count_if(x.begin(), x.end(), [](T v) { return !std::isnan(v); }));
    check_ks(x, {kept / 20, kept / 2, kept - kept / 20}, order::Method::radix);
  }
}

TEST_CASE("order.bracket_missed_by_nans_under_omit") {
  // The bracket is placed for a NaN-free input; 30% NaNs move the omit median out of it.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 1u << 21;
  auto x = clstat_ref::order_data<float>("normal", n, seed);
  std::mt19937_64 g(seed);
  for (auto& v : x)
    if (g() % 10 < 3) v = std::nanf("");
  std::vector<float> kept;
  for (float v : x)
    if (!std::isnan(v)) kept.push_back(v);
  const auto s = clstat_ref::sorted_total(kept);
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  CHECK(order::median(ctx(), x.data(), n, omit) == midpoint_ref(s, s.size()));
  CHECK(std::isnan(order::median(ctx(), x.data(), n)));
}

TEST_CASE("order.nan_policies") {
  std::vector<float> x{3, std::nanf(""), 1, -std::nanf(""), 2};
  CHECK(std::isnan(order::median(ctx(), x.data(), x.size())));
  CHECK(std::isnan(order::kth_smallest(ctx(), x.data(), x.size(), 1)));
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  CHECK(order::median(ctx(), x.data(), x.size(), omit) == 2.0);
  CHECK(order::kth_smallest(ctx(), x.data(), x.size(), 3, omit) == 3.0f);
  CHECK_THROWS_AS(order::kth_smallest(ctx(), x.data(), x.size(), 4, omit), std::out_of_range);
  const auto q = order::quantiles(ctx(), x.data(), x.size(), {0.0, 0.5, 1.0}, 7, omit);
  CHECK(q == std::vector<double>{1, 2, 3});
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_WITH_AS(order::median(ctx(), x.data(), x.size(), raise), doctest::Contains("2 NaN values"),
                       std::invalid_argument);
  std::vector<float> all_nan(10, std::nanf(""));
  CHECK(std::isnan(order::median(ctx(), all_nan.data(), all_nan.size(), omit)));
}

TEST_CASE("order.quantiles_equal_r") {
  // tests/data/order/quantile_r.txt: R 4.2's quantile(x, p, type) (tools/golden/order_quantiles.R).
  if (!clstat_test::has_fp64()) return;
  std::map<std::string, std::vector<double>> sets;
  std::map<std::pair<std::string, int>, std::vector<std::pair<double, double>>> want;
  const bool read = clstat_ref::for_each_tagged(
      std::string(CLSTAT_TEST_DATA_DIR) + "/order/quantile_r.txt",
      [&](const std::string& tag, const std::string& name, std::istringstream& is) {
    if (tag == "data") {
      std::size_t n;
      is >> n;
      std::vector<double> v(n);
      for (auto& e : v) is >> e;
      sets[name] = v;
    } else {
      int type;
      double p, q;
      is >> type >> p >> q;
      want[{name, type}].push_back({p, q});
    }
  });
  REQUIRE(read);
  REQUIRE(sets.size() == 5);
  int checked = 0;
  for (const auto& [key, pq] : want) {
    const auto& x = sets.at(key.first);
    std::vector<double> probs;
    for (auto& e : pq) probs.push_back(e.first);
    for (auto m : {order::Method::radix, order::Method::sort, order::Method::cutting_plane}) {
      order::Options o;
      o.method = m;
      const auto got = order::quantiles(ctx(), x.data(), x.size(), probs, key.second, o);
      for (std::size_t i = 0; i < probs.size(); ++i) {
        INFO(key.first << " type " << key.second << " p = " << probs[i] << " got " << got[i] << " R " << pq[i].second);
        CHECK(same_bits(got[i], pq[i].second));
        ++checked;
      }
    }
  }
  CHECK(checked == 3 * 5 * 9 * 10);
}

namespace {
// The reference top-k: (value, index) pairs by totalOrder, largest first (or smallest first), ties
// by lower index.
template <class T>
void check_top_k(const std::vector<T>& x, std::uint64_t k, bool largest, order::NanPolicy nan) {
  std::vector<std::pair<T, std::uint64_t>> p;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>)
      if (nan == order::NanPolicy::omit && std::isnan(x[i])) continue;
    p.emplace_back(x[i], i);
  }
  std::stable_sort(p.begin(), p.end(), [&](const auto& a, const auto& b) {
    return largest ? clstat_ref::total_less(b.first, a.first) : clstat_ref::total_less(a.first, b.first);
  });
  order::Options o;
  o.nan = nan;
  const auto got = order::top_k(ctx(), x.data(), x.size(), k, largest, o);
  REQUIRE(got.values.size() == k);
  REQUIRE(got.indices.size() == k);
  for (std::size_t i = 0; i < k; ++i) {
    INFO("k = " << k << " largest " << largest << " i = " << i << ": got " << got.values[i] << " at "
                << got.indices[i] << ", want " << p[i].first << " at " << p[i].second);
    CHECK(same_bits(got.values[i], p[i].first));
    CHECK(got.indices[i] == p[i].second);
  }
}
}  // namespace

TEST_CASE_TEMPLATE("order.top_k_matches_a_stable_sort", T, float, double, std::int32_t, std::int64_t) {
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (const char* d : {"normal", "equal", "mixture3", "sorted"}) {
    INFO(d);
    const auto x = clstat_ref::order_data<T>(d, 30001, seed);
    for (std::uint64_t k : {std::uint64_t(1), std::uint64_t(7), std::uint64_t(1000), std::uint64_t(30001)})
      for (bool largest : {true, false}) check_top_k(x, k, largest, order::NanPolicy::propagate);
  }
  const auto big = clstat_ref::order_data<T>("uniform", (1u << 20) + 5, seed);  // the bracketed threshold
  check_top_k(big, 100, true, order::NanPolicy::propagate);
  check_top_k(big, 5000, false, order::NanPolicy::propagate);
}

TEST_CASE("order.top_k_nan_policies") {
  std::vector<double> x{1, std::nan(""), 3, -0.0, 0.0, std::nan(""), 3, -5};
  if (!clstat_test::has_fp64()) return;
  check_top_k(x, 3, true, order::NanPolicy::propagate);  // the NaNs first
  check_top_k(x, 4, true, order::NanPolicy::omit);
  check_top_k(x, 3, false, order::NanPolicy::omit);      // -5, -0, +0
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_WITH_AS(order::top_k(ctx(), x.data(), x.size(), 2, true, raise), doctest::Contains("2 NaN values"),
                       std::invalid_argument);
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  CHECK_THROWS_WITH_AS(order::top_k(ctx(), x.data(), x.size(), 7, true, omit), doctest::Contains("exceeds the 6"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::top_k(ctx(), x.data(), x.size(), 9), doctest::Contains("exceeds n = 8"),
                       std::invalid_argument);
  CHECK(order::top_k(ctx(), x.data(), x.size(), 0).values.empty());
}

TEST_CASE_TEMPLATE("order.rows_match_each_row_alone", T, float, double, std::int32_t, std::int64_t) {
  // Short rows (a work-group sorts each), rows past local memory within 32 keys a work-item
  // (radix descents on keys in registers; values drawn from 50 so that ties run across targets)
  // and longer rows (radix row by row). Which path a size takes depends on the device's local
  // memory: 4500 and 8192 are past it on GPUs and on PoCL.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{500, 37}, {64, 1024}, {45, 4500}, {4, 8192}, {3, 9000}}) {
    INFO(rows << " x " << cols);
    auto x = clstat_ref::order_data<T>("mixture3", rows * cols, seed + cols);
    if (cols == 8192)
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>((i * 2654435761u) % 50);
    if constexpr (std::is_floating_point_v<T>)
      for (std::size_t r = 0; r < rows; r += 7) x[r * cols + (r % cols)] = std::numeric_limits<T>::quiet_NaN();
    const std::vector<std::uint64_t> ks{1, cols / 3, cols - 20};
    const std::vector<double> probs{0, 0.1, 0.5, 0.97};
    for (auto pol : {order::NanPolicy::propagate, order::NanPolicy::omit}) {
      order::Options o;
      o.nan = pol;
      const auto med = order::median_rows(ctx(), x.data(), rows, cols, o);
      const auto qs = order::quantiles_rows(ctx(), x.data(), rows, cols, probs, 8, o);
      const auto kth = order::kth_smallest_rows(ctx(), x.data(), rows, cols, ks, o);
      for (std::size_t r = 0; r < rows; ++r) {
        INFO("row " << r << " policy " << static_cast<int>(pol));
        const double m1 = order::median(ctx(), x.data() + r * cols, cols, o);
        CHECK(((std::isnan(m1) && std::isnan(med[r])) || m1 == med[r]));
        const auto q1 = order::quantiles(ctx(), x.data() + r * cols, cols, probs, 8, o);
        for (std::size_t j = 0; j < probs.size(); ++j)
          CHECK(((std::isnan(q1[j]) && std::isnan(qs[r * probs.size() + j])) || q1[j] == qs[r * probs.size() + j]));
        const auto k1 = order::kth_smallest(ctx(), x.data() + r * cols, cols, ks, o);
        for (std::size_t j = 0; j < ks.size(); ++j) CHECK(same_bits(k1[j], kth[r * ks.size() + j]));
        if (r > 40) break;  // the single-array calls are the slow part; 41 rows is plenty
      }
    }
  }
}

TEST_CASE_TEMPLATE("order.rows_every_layout_against_a_sort", T, float, double, std::int32_t, std::int64_t) {
  // The one-launch rows kernel on every test distribution (sorted rows, constant rows, ties,
  // mixtures whose bracket spans a gap, outliers, the bench's cancelling +-big values with
  // normals between), and on rows built against its sample: the values at the positions the
  // kernel samples (cl/order/select_rows.cl, step 1) are the largest of the row, so nearly every
  // key falls in the bucket below the first splitter and its ranks take the one-rank search.
  // Many ranks a row, spread and adjacent, checked against a sort of each row; for floats also
  // -0 and +0, infinities, and NaNs under omit (a row of NaNs only gives NaN). Each in the
  // device's own form and, forced, in the group form: its bucket kernel (these 15 ranks a row)
  // with candidates and without them (order.rows_cand = 0: every rank searched alone), and its
  // bracket kernel (order.rows_bucket_ranks past the ranks).
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  const std::vector<std::pair<std::string, Context>> forms{
      {"default", ctx()},
      {"group", clstat_test::tuned_ctx({{"order.rows_seq", 0}})},
      {"group, no candidates", clstat_test::tuned_ctx({{"order.rows_seq", 0}, {"order.rows_cand", 0}})},
      {"group, no buckets", clstat_test::tuned_ctx({{"order.rows_seq", 0}, {"order.rows_bucket_ranks", 65}})}};
  for (std::size_t cols : {std::size_t(300), std::size_t(2048), std::size_t(4101)}) {
    std::size_t wg = 32, npad = 1;  // the host's shape (src/order/rows.cpp): 16 keys a work-item
    while (wg < 256 && wg * 16 < cols) wg *= 2;
    while (npad * wg < cols) npad *= 2;
    npad *= wg;
    std::vector<std::string> layouts = clstat_ref::order_distributions();
    layouts.push_back("against the sample");
    layouts.push_back("cancelling");
    for (const auto& name : layouts) {
      const std::size_t rows = 6;
      INFO(name << ", " << rows << " x " << cols);
      std::vector<T> x;
      if (name == "against the sample") {
        x = clstat_ref::order_data<T>("normal", rows * cols, seed + cols);
        const std::size_t spl = std::clamp<std::size_t>(npad / 16, 16, 128), ns = spl - 1;
        for (std::size_t r = 0; r < rows; ++r)
          for (std::uint32_t s = 0; s < ns; ++s) {
            std::uint32_t h = s * 2654435761u;  // sample_hash (cl/order/order_keys.clh)
            h ^= h >> 15;
            h *= 2246822519u;
            h ^= h >> 13;
            const std::uint64_t stretch = cols / ns;  // sample_at
            x[r * cols + s * stretch + ((std::uint64_t{h} * stretch) >> 32)] = static_cast<T>(1000 + s);
          }
      } else if (name == "cancelling") {
        x = clstat_ref::order_data<T>("normal", rows * cols, seed + cols);
        const T big = static_cast<T>(std::is_floating_point_v<T> ? 1e16 : 1e9);
        for (std::size_t i = 0; i < x.size(); ++i)
          if (i % 3 != 1) x[i] = i % 3 == 0 ? big : -big;
      } else {
        x = clstat_ref::order_data<T>(name, rows * cols, seed + cols);
      }
      if constexpr (std::is_floating_point_v<T>) {
        x[1 * cols + 3] = T(-0.0);
        x[1 * cols + 4] = T(0.0);
        x[1 * cols + 5] = std::numeric_limits<T>::infinity();
        x[1 * cols + 6] = -std::numeric_limits<T>::infinity();
      }
      std::vector<std::uint64_t> ks{1, 2, cols / 100 + 1, cols / 4, cols / 2, cols / 2 + 1, cols / 2 + 2, cols - 1, cols};
      for (int i = 0; i < 6; ++i) ks.push_back(1 + g() % cols);
      for (const auto& [form, c] : forms) {
        const auto got = order::kth_smallest_rows(c, x.data(), rows, cols, ks);
        for (std::size_t r = 0; r < rows; ++r) {
          const auto s = clstat_ref::sorted_total(std::vector<T>(x.begin() + r * cols, x.begin() + (r + 1) * cols));
          for (std::size_t j = 0; j < ks.size(); ++j) {
            INFO(form << ", row " << r << " k " << ks[j]);
            CHECK(same_bits(got[r * ks.size() + j], s[ks[j] - 1]));
          }
        }
      }
    }
    if constexpr (std::is_floating_point_v<T>) {
      // NaNs under omit: row 0 has none, row 1 three, row 2 only NaNs; ranks follow each row's count.
      auto x = clstat_ref::order_data<T>("uniform", 3 * cols, seed ^ cols);
      for (std::size_t i : {std::size_t(0), cols / 2, cols - 1}) x[cols + i] = std::numeric_limits<T>::quiet_NaN();
      for (std::size_t i = 0; i < cols; ++i) x[2 * cols + i] = std::numeric_limits<T>::quiet_NaN();
      order::Options omit;
      omit.nan = order::NanPolicy::omit;
      const auto med = order::median_rows(ctx(), x.data(), 3, cols, omit);
      for (std::size_t r = 0; r < 2; ++r) {
        std::vector<T> row;
        for (std::size_t i = 0; i < cols; ++i)
          if (!std::isnan(x[r * cols + i])) row.push_back(x[r * cols + i]);
        const auto s = clstat_ref::sorted_total(row);
        const std::size_t m = s.size();
        const double want = m % 2 ? static_cast<double>(s[m / 2])
                                  : static_cast<double>(s[m / 2 - 1]) / 2 + static_cast<double>(s[m / 2]) / 2;
        CHECK(med[r] == doctest::Approx(want).epsilon(1e-15));
        CHECK(med[r] == order::median(ctx(), row.data(), row.size()));
        // Many ranks a row (the kernel's histogram, with the NaN keys above its range).
        const std::vector<std::uint64_t> ks{1, 2, m / 3, m / 2, m / 2 + 1, m};
        const auto kth = order::kth_smallest_rows(ctx(), x.data() + r * cols, 1, cols, ks, omit);
        for (std::size_t j = 0; j < ks.size(); ++j) CHECK(same_bits(kth[j], s[ks[j] - 1]));
      }
      CHECK(std::isnan(med[2]));
    }
  }
}

TEST_CASE_TEMPLATE("order.rows_forms_and_widths_change_no_bits", T, float, std::int64_t) {
  // The rows kernels come in two forms, a work-group a row (order.rows_seq = 0, the default on
  // GPUs; order.rows_items sets its width: 32 to 256 work-items for these rows) and a work-item a
  // row (order.rows_seq = 1, the default on CPUs): the values are exact, so every form and width
  // gives the same bits, for quantiles (with a NaN row under omit; 44 probabilities, 88 ranks a
  // row, which the group form answers in two launches) and for top_k with its columns.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t rows = 9, cols = 1000;
  auto x = clstat_ref::order_data<T>("mixture1", rows * cols, seed);
  if constexpr (std::is_floating_point_v<T>) x[2 * cols + 17] = std::numeric_limits<T>::quiet_NaN();
  for (std::size_t i = 5 * cols; i < 6 * cols; i += 2) x[i] = static_cast<T>(i % 3);  // ties
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  std::vector<double> probs{0.01, 0.3, 0.5, 0.99};
  for (int i = 1; i <= 40; ++i) probs.push_back(i / 41.0);
  const std::map<std::string, std::size_t> base{{"order.rows_seq", 0}};
  const auto want = order::quantiles_rows(clstat_test::tuned_ctx(base), x.data(), rows, cols, probs, 7, omit);
  const auto top = order::top_k_rows(clstat_test::tuned_ctx(base), x.data(), rows, cols, 25, true, omit);
  for (const std::map<std::string, std::size_t>& tuning :
       std::vector<std::map<std::string, std::size_t>>{{{"order.rows_seq", 0}, {"order.rows_items", 1}},
                                                       {{"order.rows_seq", 0}, {"order.rows_items", 4}},
                                                       {{"order.rows_seq", 0}, {"order.rows_items", 32}},
                                                       {{"order.rows_seq", 1}}}) {
    INFO("order.rows_seq " << tuning.at("order.rows_seq") << ", order.rows_items "
                           << (tuning.count("order.rows_items") ? tuning.at("order.rows_items") : 16));
    const auto c = clstat_test::tuned_ctx(tuning);
    const auto got = order::quantiles_rows(c, x.data(), rows, cols, probs, 7, omit);
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(same_bits(got[i], want[i]));
    const auto t = order::top_k_rows(c, x.data(), rows, cols, 25, true, omit);
    CHECK(t.values == top.values);
    CHECK(t.indices == top.indices);
  }
}

TEST_CASE_TEMPLATE("order.top_k_rows_against_a_sort", T, float, double, std::int32_t, std::int64_t) {
  // Each row's k largest (smallest) with their columns against a sort of (value, column) pairs:
  // ties (values from a few) take the lower columns first; under propagate NaNs rank above
  // +Inf, under omit they are left out. 9000 columns take top_k row by row. On this device's
  // form, and on the work-group form (order.rows_seq = 0, which a CPU does not take by itself).
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  for (const Context& c : {ctx(), clstat_test::tuned_ctx({{"order.rows_seq", 0}})})
  for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{40, 37}, {9, 1000}, {5, 4101}, {2, 9000}}) {
    auto x = clstat_ref::order_data<T>("mixture3", rows * cols, seed + cols);
    for (std::size_t i = 0; i < x.size(); i += 3) x[i] = static_cast<T>(g() % 7);  // ties
    if constexpr (std::is_floating_point_v<T>)
      for (std::size_t r = 1; r < rows; r += 2) x[r * cols + (r % cols)] = std::numeric_limits<T>::quiet_NaN();
    for (auto pol : {order::NanPolicy::propagate, order::NanPolicy::omit}) {
      order::Options o;
      o.nan = pol;
      for (bool largest : {true, false}) {
        const std::uint64_t k = 1 + g() % (cols - 1);
        INFO(rows << " x " << cols << ", k " << k << (largest ? " largest" : " smallest") << ", policy "
                  << static_cast<int>(pol));
        const auto got = order::top_k_rows(c, x.data(), rows, cols, k, largest, o);
        REQUIRE(got.values.size() == rows * k);
        for (std::size_t r = 0; r < rows; ++r) {
          std::vector<std::pair<T, std::uint64_t>> p;
          for (std::size_t c = 0; c < cols; ++c) {
            const T v = x[r * cols + c];
            if constexpr (std::is_floating_point_v<T>)
              if (std::isnan(v) && pol == order::NanPolicy::omit) continue;
            p.emplace_back(v, c);
          }
          std::stable_sort(p.begin(), p.end(), [&](const auto& a, const auto& b) {
            return largest ? clstat_ref::total_less(b.first, a.first) : clstat_ref::total_less(a.first, b.first);
          });
          for (std::size_t j = 0; j < k; ++j) {
            INFO("row " << r << " j " << j);
            CHECK(same_bits(got.values[r * k + j], p[j].first));
            CHECK(got.indices[r * k + j] == p[j].second);
          }
        }
      }
    }
  }
  const std::vector<float> y{1, 2, std::nanf(""), 4, 5, 6};
  CHECK(order::top_k_rows(ctx(), y.data(), 2, 3, 0).values.empty());
  CHECK_THROWS_WITH_AS(order::top_k_rows(ctx(), y.data(), 2, 3, 4), doctest::Contains("exceeds cols = 3"),
                       std::invalid_argument);
  order::Options raise, omit;
  raise.nan = order::NanPolicy::raise;
  omit.nan = order::NanPolicy::omit;
  CHECK_THROWS_WITH_AS(order::top_k_rows(ctx(), y.data(), 2, 3, 1, true, raise), doctest::Contains("row 0 holds 1 NaN"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::top_k_rows(ctx(), y.data(), 2, 3, 3, true, omit), doctest::Contains("exceeds the 2"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::top_k_rows(ctx(), y.data(), 0, 3, 1), doctest::Contains("empty matrix"),
                       std::invalid_argument);
}

TEST_CASE("order.rows_bad_input") {
  std::vector<float> x{1, 2, std::nanf(""), 4};
  CHECK_THROWS_WITH_AS(order::median_rows(ctx(), x.data(), 0, 4), doctest::Contains("empty matrix"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::kth_smallest_rows(ctx(), x.data(), 2, 2, {3}), doctest::Contains("outside 1..2"),
                       std::invalid_argument);
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_WITH_AS(order::median_rows(ctx(), x.data(), 2, 2, raise), doctest::Contains("row 1 holds 1 NaN"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::quantiles_rows(ctx(), x.data(), 2, 2, {0.5}, 0), doctest::Contains("type must be"),
                       std::invalid_argument);
}

TEST_CASE("order.device_buffer_with_offset") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const auto x = clstat_ref::order_data<std::int32_t>("beta25", 50000, seed);
  // The queue forms: the data's upload is the wait list, on another queue than the selection's.
  Buffer<std::int32_t> b(ctx(), x.size());
  const Event up = b.raw().write_async(ctx().queue(1), x.data(), x.size() * sizeof(std::int32_t), 0);
  const std::vector<std::int32_t> part(x.begin() + 1000, x.begin() + 41000);
  const auto s = clstat_ref::sorted_total(part);
  const auto got = order::kth_smallest_async(ctx().queue(0), b, 1000, 40000, {1, 20000, 40000}, {}, {up}).get();
  CHECK(got == std::vector<std::int32_t>{s[0], s[19999], s[39999]});
  auto med = order::median_async(ctx().queue(2), b, 1000, 40000, {}, {up});
  CHECK(med.get() == (double(s[19999]) + double(s[20000])) / 2);
  CHECK(med.event().complete());
  const auto q = order::quantiles_async(ctx().queue(0), b, 1000, 40000, {0.25}, 1, {}, {up}).get();
  CHECK(q[0] == double(s[9999]));
  const auto t = order::top_k_async(ctx().queue(3), b, 1000, 40000, 3, true, {}, {up}).get();
  CHECK(t.values == std::vector<std::int32_t>{s[39999], s[39998], s[39997]});
  for (std::size_t i = 0; i < 3; ++i) CHECK(part[t.indices[i]] == t.values[i]);
}

TEST_CASE_TEMPLATE("order.bracket_pass_wide_loads_at_any_offset", T, float, double) {
  // 16-byte loads need the input's offset to be a multiple of the vector: other offsets fall
  // back to element loads; both give the exact median.
  if (!type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = (1u << 20) + 6;
  const auto x = clstat_ref::order_data<T>("normal", n + 3, seed);
  const clstat::Context c = clstat_test::tuned_ctx({{"order.filter_load_bytes", 16}});
  const Buffer<T> b(c, x.data(), x.size());
  for (std::size_t off : {0, 1, 2, 3}) {
    INFO("offset " << off);
    const auto s = clstat_ref::sorted_total(std::vector<T>(x.begin() + off, x.begin() + off + n));
    CHECK(order::median_async(c.queue(0), b, off, n).get() == midpoint_ref(s, n));
  }
}

TEST_CASE("order.bad_input") {
  std::vector<float> x{1, 2, 3};
  CHECK_THROWS_WITH_AS(order::median(ctx(), x.data(), 0), doctest::Contains("empty input"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::median<float>(ctx(), nullptr, 3), doctest::Contains("null"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::kth_smallest(ctx(), x.data(), 3, 0), doctest::Contains("outside 1..3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::kth_smallest(ctx(), x.data(), 3, 4), doctest::Contains("outside 1..3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::quantiles(ctx(), x.data(), 3, {1.5}), doctest::Contains("outside [0, 1]"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::quantiles(ctx(), x.data(), 3, {std::nan("")}), doctest::Contains("outside [0, 1]"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::quantiles(ctx(), x.data(), 3, {0.5}, 10), doctest::Contains("type must be 1..9"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::quantiles(ctx(), x.data(), 3, {0.5}, 0), doctest::Contains("type must be 1..9"),
                       std::invalid_argument);
  Buffer<float> b(ctx(), x.data(), 3);
  CHECK_THROWS_WITH_AS(order::median_async(ctx().queue(0), b, 2, 2), doctest::Contains("run past"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::kth_smallest_async(ctx().queue(0), b, 1, 3, {1}), doctest::Contains("run past"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::quantiles_async(ctx().queue(0), b, 4, 1, {0.5}), doctest::Contains("run past"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::top_k_async(ctx().queue(0), b, 1, 3, 1), doctest::Contains("run past"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::median_async(ctx().queue(0), b, 0, 0), doctest::Contains("empty input"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::median_low(ctx(), x.data(), 0), doctest::Contains("empty input"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::median_high<float>(ctx(), nullptr, 3), doctest::Contains("null"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::top_k<float>(ctx(), nullptr, 3, 1), doctest::Contains("null"), std::invalid_argument);
  order::Options bad_policy;
  bad_policy.nan = static_cast<order::NanPolicy>(7);
  CHECK_THROWS_WITH_AS(order::median(ctx(), x.data(), 3, bad_policy), doctest::Contains("unknown NanPolicy"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::top_k(ctx(), x.data(), 3, 1, true, bad_policy), doctest::Contains("unknown NanPolicy"),
                       std::invalid_argument);
  order::Options bad_method;
  bad_method.method = static_cast<order::Method>(9);
  CHECK_THROWS_WITH_AS(order::kth_smallest(ctx(), x.data(), 3, 2, bad_method), doctest::Contains("unknown Method"),
                       std::invalid_argument);
}
