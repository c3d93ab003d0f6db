// Weighted quantiles: R and NumPy's definitions on committed data, the unweighted and replicated
// special cases, a long-double reference on random data, every path of the selection (direct,
// sampled brackets, split candidates, count-only fallback), NaN policy and bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>

#include "reference/tagged_golden.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

namespace {

// The reference: sort (value, weight) by value, add the weights in long double, and take the
// first value whose cumulative weight over the total, rounded to double, reaches p (type 1), or
// the values at Hmisc's two positions (type 7). Long double sums differ from the library's exact ones by about n 1e-19 W, far below
// the gaps between steps of random data.
template <class T>
std::vector<double> reference(const std::vector<T>& x, const std::vector<double>& w, const std::vector<double>& probs,
                              int type) {
  std::vector<std::pair<T, double>> e;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!(std::is_floating_point_v<T> && std::isnan(static_cast<double>(x[i])))) e.emplace_back(x[i], w[i]);
  std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<long double> cum(e.size());
  long double c = 0;
  for (std::size_t i = 0; i < e.size(); ++i) cum[i] = (c += e[i].second);
  // The total compensated (Neumaier): type 7's h mod 1 needs W to far better than n ulps.
  long double W = 0, comp = 0;
  for (const auto& v : e) {
    const long double t = W + v.second;
    comp += std::fabs(W) >= std::fabs(v.second) ? (W - t) + v.second : (v.second - t) + W;
    W = t;
  }
  W += comp;
  // Past the last cumulative weight (t = W, which the compensated W can pass by an ulp): the last
  // value of positive weight (zero weights are never chosen).
  std::size_t last = 0;
  for (std::size_t i = 0; i < e.size(); ++i)
    if (e[i].second > 0) last = i;
  auto at = [&](long double t) {
    for (std::size_t i = 0; i < e.size(); ++i)
      if (cum[i] >= t && cum[i] > 0) return static_cast<double>(e[i].first);
    return static_cast<double>(e[last].first);
  };
  std::vector<double> out;
  for (double p : probs) {
    if (type == 1) {  // C / W rounded to double, as NumPy compares
      double v = static_cast<double>(e.back().first);
      for (std::size_t i = 0; i < e.size(); ++i)
        if (cum[i] > 0 && static_cast<double>(cum[i] / W) >= p) {
          v = static_cast<double>(e[i].first);
          break;
        }
      out.push_back(v);
      continue;
    }
    const double Wd = static_cast<double>(W);
    const double h = 1 + (Wd - 1) * p, f = std::floor(h);
    const double lo = std::max(f, 1.0), hi = std::min(lo + 1, Wd);
    const double a = at(lo), b = at(hi), fr = h - f;
    out.push_back(fr == 0 || a == b ? a : (1 - fr) * a + fr * b);
  }
  return out;
}

std::vector<double> probs_all() { return {0, 1e-4, 0.01, 0.1, 0.25, 1.0 / 3, 0.5, 0.75, 0.9, 0.99, 0.9999, 1}; }

// Type 1 returns one of the values: exactly the reference's. Type 7 interpolates between two:
// within 1e-12 of the long-double reference.
void check_quantile(double got, double want, int type) {
  if (type == 1) CHECK(got == want);
  else CHECK(std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want)));
}

}  // namespace

TEST_CASE("order_weighted.equal_r_and_numpy") {
  // tests/data/order/weighted_r.txt (tools/golden/order_weighted.R): type 1 as NumPy's
  // inverted_cdf, type 7 as Hmisc::wtd.quantile, and quantile(rep(x, w)) for whole weights.
  if (!clstat_test::has_fp64()) return;
  std::map<std::string, std::vector<double>> xs, ws;
  struct Want {
    std::string tag, name;
    int type;
    double p, q;
  };
  std::vector<Want> want;
  const bool read = clstat_ref::for_each_tagged(
      std::string(CLSTAT_TEST_DATA_DIR) + "/order/weighted_r.txt",
      [&](const std::string& tag, const std::string& name, std::istringstream& is) {
    if (tag == "data" || tag == "weights") {
      std::size_t n;
      is >> n;
      std::vector<double> v(n);
      for (auto& e : v) is >> e;
      (tag == "data" ? xs : ws)[name] = v;
    } else {
      Want e{tag, name, 0, 0, 0};
      is >> e.type >> e.p >> e.q;
      want.push_back(e);
    }
  });
  REQUIRE(read);
  REQUIRE(xs.size() == 4);
  int checked = 0;
  for (const auto& e : want) {
    const auto& x = xs.at(e.name);
    const auto& w = ws.at(e.name);
    const double got = order::weighted_quantiles(ctx(), x.data(), w.data(), x.size(), {e.p}, e.type)[0];
    INFO(e.tag << " " << e.name << " type " << e.type << " p = " << e.p << " got " << got << " R " << e.q);
    if (e.type == 1) {
      CHECK(got == e.q);
    } else {
      // R finds h mod 1 in double, after 1 + (W - 1) p rounds (1e-13 of h for W near 1000).
      CHECK(std::fabs(got - e.q) <= 1e-12 * std::fabs(e.q));
    }
    ++checked;
  }
  CHECK(checked == 4 * 10 * 2 + 10 * 2);
}

TEST_CASE("order_weighted.unit_and_whole_weights_are_the_unweighted_quantiles") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  for (std::size_t n : {1ul, 2ul, 7ul, 1000ul, 50000ul}) {
    INFO("n = " << n);
    std::vector<double> x(n);
    std::uniform_int_distribution<int> d(-40, 40);
    for (auto& v : x) v = d(g) * 0.25;  // many ties
    const std::vector<double> ones(n, 1.0);
    for (int type : {1, 7}) {
      const auto got = order::weighted_quantiles(ctx(), x.data(), ones.data(), n, probs_all(), type);
      const auto want = order::quantiles(ctx(), x.data(), n, probs_all(), type);
      for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("type " << type << " p = " << probs_all()[i]);
        if (type == 1) CHECK(got[i] == want[i]);
        else CHECK(got[i] == want[i]);
      }
    }
    // Whole-number weights: the quantiles of the data with each value repeated w times.
    std::vector<double> w(n), rep;
    std::uniform_int_distribution<int> k(0, 4);
    for (std::size_t i = 0; i < n; ++i) {
      w[i] = k(g);
      for (int j = 0; j < w[i]; ++j) rep.push_back(x[i]);
    }
    if (rep.empty()) continue;
    for (int type : {1, 7}) {
      const auto got = order::weighted_quantiles(ctx(), x.data(), w.data(), n, probs_all(), type);
      const auto want = order::quantiles(ctx(), rep.data(), rep.size(), probs_all(), type);
      for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("replicated, type " << type << " p = " << probs_all()[i]);
        CHECK(got[i] == want[i]);
      }
    }
  }
}

TEST_CASE("order_weighted.random_data_every_path") {
  // Sizes below and above the direct copy (2^15), a bracket copy that the host splits (2^20),
  // one whose split overflows a range's copy (a spike of equal values), sorted and reversed
  // data, heavy-tailed weights, and two layouts that defeat the strided sample (position
  // multiples of 16 are the sample at n = 2^18): their weights all zero, which leaves only
  // count-only passes, or tiny beside the rest, which puts the targets outside the sampled
  // brackets.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  std::exponential_distribution<double> ex(1.0);
  enum Layout { random, sorted, reversed, zero_at_sample, light_at_sample, spike };
  struct Case {
    std::size_t n;
    Layout layout;
  };
  for (Case c : {Case{3000, random}, Case{1u << 18, random}, Case{1u << 18, sorted}, Case{1u << 18, reversed},
                 Case{1u << 20, random}, Case{1u << 18, zero_at_sample}, Case{1u << 18, light_at_sample},
                 Case{1u << 20, spike}}) {
    INFO("n = " << c.n << " layout " << static_cast<int>(c.layout));
    std::vector<double> x(c.n), w(c.n);
    for (std::size_t i = 0; i < c.n; ++i) {
      x[i] = nd(g);
      w[i] = std::exp(3 * nd(g));  // log-normal: weights over a few orders of magnitude
    }
    // A third of the values equal, near the median: the candidates' range that holds them
    // overflows the copy a pass sizes for even shares, and is copied again alone.
    if (c.layout == spike)
      for (std::size_t i = 0; i < c.n; i += 3) x[i] = 1e-3;
    if (c.layout == sorted) std::sort(x.begin(), x.end());
    if (c.layout == reversed) std::sort(x.rbegin(), x.rend());
    if (c.layout == zero_at_sample || c.layout == light_at_sample)
      for (std::size_t i = 0; i < c.n; i += 16) {
        w[i] = c.layout == zero_at_sample ? 0.0 : 1e-9;
        x[i] = -5 - ex(g);  // below everything else
      }
    for (int type : {1, 7}) {
      const auto got = order::weighted_quantiles(ctx(), x.data(), w.data(), c.n, probs_all(), type);
      const auto want = reference(x, w, probs_all(), type);
      for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("type " << type << " p = " << probs_all()[i]);
        check_quantile(got[i], want[i], type);
      }
    }
  }
}

TEST_CASE("order_weighted.one_cluster_device_bracket") {
  // One probability (the median, a quantile of type 7) of 2^20 values or more: the bracket from
  // the device's two samples, with no host round trip before the first pass. Near the ends too,
  // on sorted and spiked data, sparse weights (the first sample holds none: the scale then comes
  // from all the weights), one weight 2^60 times the rest (past the sample's scale), heavy-tailed
  // weights (a wider bracket), and float and int32 values.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  std::exponential_distribution<double> ex(1.0);
  const std::size_t n = (1u << 20) + 17;
  enum Layout { random, sorted, spike, sparse, huge, heavy };
  for (Layout layout : {random, sorted, spike, sparse, huge, heavy}) {
    INFO("layout " << static_cast<int>(layout));
    std::vector<double> x(n), w(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = nd(g);
      w[i] = layout == heavy ? std::exp(3 * nd(g)) : ex(g);
    }
    if (layout == sorted) std::sort(x.begin(), x.end());
    if (layout == spike)
      for (std::size_t i = 0; i < n; i += 3) x[i] = 1e-3;
    if (layout == sparse) {
      std::fill(w.begin(), w.end(), 0.0);
      for (int i = 0; i < 40; ++i) w[g() % n] = 1 + ex(g);
    }
    if (layout == huge) w[g() % n] = 0x1p60;
    for (const auto& [p, type] : std::vector<std::pair<double, int>>{{0.5, 1}, {0.3, 7}, {1e-3, 1}, {0.999, 7}}) {
      INFO("p = " << p << " type " << type);
      const double want = reference(x, w, {p}, type)[0];
      const double got = order::weighted_quantiles(ctx(), x.data(), w.data(), n, {p}, type)[0];
      check_quantile(got, want, type);
    }
    // The first pass's other form (staged on GPUs, not on CPUs): on the spike layout the median's
    // bracket holds a third of the values, so its stage spills. And one planned pass over the
    // candidates a look of the host's, which then goes on from the plan each time.
    const std::size_t other = ctx().info().type == DeviceType::gpu ? 0 : 1;
    for (const auto& tuning : std::vector<std::map<std::string, std::size_t>>{{{"order.weighted_staged", other}},
                                                                           {{"order.weighted_planned_passes", 1}}}) {
      const Context c = clstat_test::tuned_ctx(tuning);
      for (const auto& [p, type] : std::vector<std::pair<double, int>>{{0.5, 1}, {0.3, 7}}) {
        INFO(tuning.begin()->first << " = " << tuning.begin()->second << ", p = " << p << " type " << type);
        check_quantile(order::weighted_quantiles(c, x.data(), w.data(), n, {p}, type)[0], reference(x, w, {p}, type)[0],
                       type);
      }
    }
    if (layout == random) {
      std::vector<float> xf(x.begin(), x.end());
      std::vector<std::int32_t> xi(n);
      for (std::size_t i = 0; i < n; ++i) xi[i] = static_cast<std::int32_t>(std::lround(1000 * x[i]));
      CHECK(order::weighted_median(ctx(), xf.data(), w.data(), n) == reference(xf, w, {0.5}, 1)[0]);
      CHECK(order::weighted_median(ctx(), xi.data(), w.data(), n) == reference(xi, w, {0.5}, 1)[0]);
    }
  }
}

TEST_CASE("order_weighted.a_weight_the_sample_missed") {
  // n = 2^17: the sample reads positions 8 i. One weight between them is 2^60 times the others,
  // too large for the sample's scale: the pass sees it and is repeated at the right one. Then a
  // negative weight between them, which the pass reports.
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  std::normal_distribution<double> nd;
  std::uniform_real_distribution<double> u(0.5, 1.5);
  const std::size_t n = 1u << 17;
  std::vector<double> x(n), w(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = nd(g);
    w[i] = u(g);
  }
  const std::size_t big = 8 * (n / 16) + 3;
  w[big] = 0x1p60;
  // (Not p = 1: there C / W rounds to 1 once the weight left above is below 2^-54 W = 64, which
  // the long-double reference cannot place, its sums near 2^60 being rounded to 1/8.)
  std::vector<double> probs = probs_all();
  probs.pop_back();
  for (int type : {1, 7}) {
    const auto got = order::weighted_quantiles(ctx(), x.data(), w.data(), n, probs, type);
    const auto want = reference(x, w, probs, type);
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("type " << type << " p = " << probs[i]);
      check_quantile(got[i], want[i], type);
    }
  }
  // Nearly all the weight is on x[big]: every quantile from about 2^-60 to 1 - 2^-54 is that value.
  CHECK(order::weighted_median(ctx(), x.data(), w.data(), n) == x[big]);
  w[big] = -1;
  CHECK_THROWS_WITH_AS(order::weighted_median(ctx(), x.data(), w.data(), n), doctest::Contains("1 weight is negative"),
                       std::invalid_argument);
}

TEST_CASE("order_weighted.types_weights_and_async") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  if (!clstat_test::has_fp64()) {
    const std::vector<float> x{1, 2, 3};
    const std::vector<double> w{1, 1, 1};
    CHECK_THROWS_AS(order::weighted_median(ctx(), x.data(), w.data(), 3), UnsupportedFeature);
    return;
  }
  std::mt19937_64 g(seed);
  const std::size_t n = 70000;
  std::vector<double> w(n);
  std::uniform_real_distribution<double> u(0, 2);
  for (auto& v : w) v = u(g);
  std::vector<float> xf(n);
  std::vector<std::int32_t> xi(n);
  std::vector<std::int64_t> xl(n);
  std::uniform_int_distribution<std::int64_t> di(std::numeric_limits<std::int32_t>::min(),
                                                 std::numeric_limits<std::int32_t>::max());
  for (std::size_t i = 0; i < n; ++i) {
    xi[i] = static_cast<std::int32_t>(di(g));
    xl[i] = di(g) * 4096 + 7;
    xf[i] = static_cast<float>(xi[i]) * 1e-6f;
  }
  const auto p = probs_all();
  CHECK(order::weighted_quantiles(ctx(), xf.data(), w.data(), n, p, 1) == reference(xf, w, p, 1));
  CHECK(order::weighted_quantiles(ctx(), xi.data(), w.data(), n, p, 1) == reference(xi, w, p, 1));
  CHECK(order::weighted_quantiles(ctx(), xl.data(), w.data(), n, p, 1) == reference(xl, w, p, 1));
  CHECK(order::weighted_median(ctx(), xi.data(), w.data(), n) == reference(xi, w, {0.5}, 1)[0]);
  {
    // Enough values that the host splits the bracket's copy, in equal steps of key: integers, and
    // floats away from zero (steps of value are only for an interval across zero).
    const std::size_t big = 1u << 20;
    std::vector<std::int32_t> bi(big);
    std::vector<float> bf(big);
    std::vector<double> bw(big);
    std::normal_distribution<double> nd;
    for (std::size_t i = 0; i < big; ++i) {
      bi[i] = static_cast<std::int32_t>(di(g));
      bf[i] = static_cast<float>(1000 + nd(g));
      bw[i] = u(g);
    }
    CHECK(order::weighted_quantiles(ctx(), bi.data(), bw.data(), big, p, 1) == reference(bi, bw, p, 1));
    CHECK(order::weighted_quantiles(ctx(), bf.data(), bw.data(), big, p, 1) == reference(bf, bw, p, 1));
  }
  // The extremes of the integer types and of the weights.
  const std::vector<std::int32_t> ext{std::numeric_limits<std::int32_t>::max(), std::numeric_limits<std::int32_t>::min(),
                                      0, -1};
  const std::vector<double> wext{1e300, 1e-300, 5e-324, 1e300};
  CHECK(order::weighted_quantiles(ctx(), ext.data(), wext.data(), 4, {0, 0.5, 0.50001, 1}, 1) ==
        std::vector<double>{-1, -1, 2147483647.0, 2147483647.0});
  // Zero weights are never chosen, even at p = 0 and p = 1.
  const std::vector<double> x0{5, 1, 9, 3};
  const std::vector<double> w0{0, 0, 0, 2};
  CHECK(order::weighted_quantiles(ctx(), x0.data(), w0.data(), 4, {0, 0.5, 1}, 1) == std::vector<double>{3, 3, 3});
  CHECK(order::weighted_quantiles(ctx(), x0.data(), w0.data(), 4, {0, 0.5, 1}, 7) == std::vector<double>{3, 3, 3});
  // The async form reads from an offset, for both buffers.
  Queue q = ctx().queue(0);
  Buffer<float> bx(ctx(), xf.data(), n);
  Buffer<double> bw(ctx(), w.data(), n);
  const std::size_t off = 1234, m = 50000;
  const std::vector<float> sx(xf.begin() + off, xf.begin() + off + m);
  const std::vector<double> sw(w.begin() + off, w.begin() + off + m);
  CHECK(order::weighted_quantiles_async(q, bx, bw, off, m, p, 7).get() ==
        order::weighted_quantiles(ctx(), sx.data(), sw.data(), m, p, 7));
}

TEST_CASE("order_weighted.nan_policy_and_bad_input") {
  if (!clstat_test::has_fp64()) return;
  const double nan = std::nan("");
  const std::vector<double> x{3, nan, 1, 2, nan};
  const std::vector<double> w{1, 5, 1, 1, 7};
  CHECK(std::isnan(order::weighted_median(ctx(), x.data(), w.data(), 5)));
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  CHECK(order::weighted_quantiles(ctx(), x.data(), w.data(), 5, {0, 0.5, 1}, 1, omit) == std::vector<double>{1, 2, 3});
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_WITH_AS(order::weighted_median(ctx(), x.data(), w.data(), 5, raise), doctest::Contains("2 NaN values"),
                       std::invalid_argument);
  const std::vector<double> all_nan{nan, nan};
  CHECK(std::isnan(order::weighted_median(ctx(), all_nan.data(), w.data(), 2, omit)));

  const std::vector<double> y{1, 2, 3};
  auto bad_w = [&](std::vector<double> wb, const char* says) {
    CHECK_THROWS_WITH_AS(order::weighted_median(ctx(), y.data(), wb.data(), 3), doctest::Contains(says),
                         std::invalid_argument);
  };
  bad_w({1, -1, 1}, "1 weight is negative, NaN or infinite");
  bad_w({nan, 1, nan}, "2 weights are negative, NaN or infinite");
  bad_w({1, INFINITY, 1}, "negative, NaN or infinite");
  bad_w({0, 0, 0}, "every weight is zero");
  // Weight only on a NaN value, under omit: the rest sum to zero.
  const std::vector<double> xn{nan, 1, 2};
  const std::vector<double> wn{1, 0, 0};
  CHECK_THROWS_WITH_AS(order::weighted_median(ctx(), xn.data(), wn.data(), 3, omit), doctest::Contains("sum to zero"),
                       std::invalid_argument);
  const std::vector<double> w3{1, 1, 1};
  CHECK_THROWS_AS(order::weighted_quantiles(ctx(), y.data(), w3.data(), 3, {0.5}, 2), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles(ctx(), y.data(), w3.data(), 3, {1.5}, 1), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles(ctx(), y.data(), w3.data(), 3, {nan}, 1), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles(ctx(), y.data(), w3.data(), 0, {0.5}, 1), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles(ctx(), y.data(), static_cast<const double*>(nullptr), 3, {0.5}, 1),
                  std::invalid_argument);
  order::Options sorted;
  sorted.method = order::Method::sort;
  CHECK_THROWS_AS(order::weighted_quantiles(ctx(), y.data(), w3.data(), 3, {0.5}, 1, sorted), std::invalid_argument);
  Queue q = ctx().queue(0);
  Buffer<double> bx(ctx(), y.data(), 3);
  Buffer<double> bw(ctx(), w3.data(), 2);
  CHECK_THROWS_AS(order::weighted_quantiles_async(q, bx, bw, 0, 3, {0.5}, 1), std::invalid_argument);
  CHECK(order::weighted_quantiles(ctx(), y.data(), w3.data(), 3, {}, 1).empty());
}

// The batched form: each row as the single-array form (bit for bit, each row's own scale), NaNs
// dropped per row under omit, an error naming its row, and the async form from an offset.
TEST_CASE("order_weighted.rows_equal_each_row") {
  if (!clstat_test::has_fp64()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  const std::size_t rows = 6, cols = 257;
  std::vector<double> x(rows * cols), w(rows * cols);
  std::normal_distribution<double> N;
  std::uniform_real_distribution<double> U(0, 1);
  for (std::size_t i = 0; i < x.size(); ++i) {
    x[i] = std::round(N(g) * 20) / 4;  // ties
    w[i] = U(g) * std::pow(10.0, static_cast<double>(i / cols) * 40 - 100);  // each row its own scale
  }
  x[2 * cols + 17] = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> p{0, 0.1, 0.5, 0.77, 1};
  order::Options omit;
  omit.nan = order::NanPolicy::omit;
  for (int type : {1, 7}) {
    const auto all = order::weighted_quantiles_rows(ctx(), x.data(), w.data(), rows, cols, p, type, omit);
    REQUIRE(all.size() == rows * p.size());
    for (std::size_t r = 0; r < rows; ++r) {
      const auto one = order::weighted_quantiles(ctx(), x.data() + r * cols, w.data() + r * cols, cols, p, type, omit);
      CHECK(std::vector<double>(all.begin() + static_cast<std::ptrdiff_t>(r * p.size()),
                                all.begin() + static_cast<std::ptrdiff_t>((r + 1) * p.size())) == one);
    }
  }
  order::Options raise;
  raise.nan = order::NanPolicy::raise;
  CHECK_THROWS_WITH_AS(order::weighted_quantiles_rows(ctx(), x.data(), w.data(), rows, cols, p, 1, raise),
                       doctest::Contains("row 2"), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles_rows(ctx(), x.data(), w.data(), 0, cols, p, 1), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles_rows(ctx(), x.data(), w.data(), rows, 0, p, 1), std::invalid_argument);
  CHECK_THROWS_WITH_AS(order::weighted_quantiles_rows(ctx(), x.data(), w.data(), static_cast<std::size_t>(-1) / 2, 4, p, 1),
                       doctest::Contains("overflows"), std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles_rows(ctx(), x.data(), static_cast<const double*>(nullptr), rows, cols, p, 1),
                  std::invalid_argument);
  CHECK_THROWS_AS(order::weighted_quantiles_rows(ctx(), x.data(), w.data(), rows, cols, p, 3), std::invalid_argument);
  Queue q = ctx().queue(0);
  Buffer<double> bx(ctx(), x.data(), x.size());
  Buffer<double> bw(ctx(), w.data(), w.size());
  const auto tail = order::weighted_quantiles_rows_async(q, bx, bw, 3 * cols, 3, cols, p, 7).get();
  CHECK(tail == order::weighted_quantiles_rows(ctx(), x.data() + 3 * cols, w.data() + 3 * cols, 3, cols, p, 7));
}
