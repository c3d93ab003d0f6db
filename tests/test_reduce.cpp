// Sums: exactness against a correctly rounded reference, adversarial cancellation, non-finite
// values, bad input.
#include <doctest/doctest.h>

#include <limits>

#include "reference/exact_sum.hpp"
#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

namespace {
const std::vector<std::size_t> k_sizes = {1, 2, 3, 63, 64, 65, 255, 256, 257, 1021, 65535, 65537, 1000003, (1u << 20) + 3};

// Error bound of the compensated sum: a couple of ulp of the result plus the second-order term
// of the compensation, n u^2 sum|x| (Higham 2002, sec. 4.3).
template <class T>
void check_sum(const std::vector<T>& x, T got) {
  const double exact = clstat_ref::exact_sum(clstat_ref::widen(x));
  double abs_sum = 0;
  for (T v : x) abs_sum += std::fabs(static_cast<double>(v));
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const T rounded = static_cast<T>(exact);
  const double ulp = std::nextafter(std::fabs(rounded), std::numeric_limits<T>::infinity()) - std::fabs(rounded);
  const double tol = 2 * ulp + 4 * static_cast<double>(x.size()) * u * u * abs_sum;
  INFO("n = " << x.size() << " got " << got << " exact " << exact);
  CHECK(std::fabs(static_cast<double>(got) - exact) <= tol);
}
}  // namespace

TEST_CASE_TEMPLATE("reduce.sum_awkward_sizes", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : k_sizes) {
    const auto x = clstat_test::normal<T>(n, seed + n, 3.0, 100.0);
    check_sum(x, sum(ctx(), x.data(), n));
  }
}

TEST_CASE("reduce.sum_adversarial_within_2ulp") {
  if (!clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 g(seed);
  for (std::size_t n : {3ul, 300001ul, (1ul << 20) + 3}) {
    // (1e16, 1, -1e16) repeated: naive summation returns 0 or garbage; the exact sum is n/3.
    std::vector<double> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = (i % 3 == 0) ? 1e16 : (i % 3 == 1) ? 1.0 : -1e16;
    const double got = sum(ctx(), x.data(), n), exact = clstat_ref::exact_sum(x);
    INFO("pattern n = " << n << " got " << got << " exact " << exact);
    CHECK(clstat_test::ulp_distance(got, exact) <= 2);
    // Huge values of random sign that cancel exactly, with small random values between them.
    std::uniform_real_distribution<double> small(-1, 1);
    for (std::size_t i = 0; i + 1 < n; i += 2) {
      const double big = std::ldexp(1.0, 40 + static_cast<int>(g() % 20)) * ((g() & 1) ? 1 : -1);
      x[i] = big;
      x[i + 1] = small(g);
    }
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i + 1 < n; i += 2) idx.push_back(i);
    std::shuffle(idx.begin(), idx.end(), g);
    for (std::size_t k = 0; k + 1 < idx.size(); k += 2) x[idx[k + 1]] = -x[idx[k]];
    if (idx.size() % 2) x[idx.back()] = 0.5;
    const double got2 = sum(ctx(), x.data(), n), exact2 = clstat_ref::exact_sum(x);
    INFO("cancelling n = " << n << " got " << got2 << " exact " << exact2);
    CHECK(clstat_test::ulp_distance(got2, exact2) <= 2);
  }
}

TEST_CASE("reduce.sum_adversarial_float") {
  std::vector<float> x(100003);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = (i % 3 == 0) ? 1e8f : (i % 3 == 1) ? 1.0f : -1e8f;
  const float got = sum(ctx(), x.data(), x.size());
  const float exact = static_cast<float>(clstat_ref::exact_sum(clstat_ref::widen(x)));
  CHECK(clstat_test::ulp_distance(got, exact) <= 2);
}

TEST_CASE_TEMPLATE("reduce.sum_nonfinite", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  std::vector<T> x(70001, T(1));
  const T inf = std::numeric_limits<T>::infinity();
  x[12345] = inf;
  CHECK(sum(ctx(), x.data(), x.size()) == inf);
  x[54321] = -inf;
  CHECK(std::isnan(sum(ctx(), x.data(), x.size())));
  x[12345] = x[54321] = T(1);
  x[69999] = std::numeric_limits<T>::quiet_NaN();
  CHECK(std::isnan(sum(ctx(), x.data(), x.size())));
}

TEST_CASE("reduce.bad_input") {
  std::vector<float> x(10, 1.0f);
  try {
    sum(ctx(), x.data(), 0);
    FAIL("expected invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("empty input") != std::string::npos);
  }
  CHECK_THROWS_AS(sum<float>(ctx(), nullptr, 5), std::invalid_argument);
  Buffer<float> b(ctx(), x.data(), x.size());
  try {
    sum_async(ctx().queue(0), b, 5, 6).get();
    FAIL("expected invalid_argument");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("past the end") != std::string::npos);
  }
  CHECK_THROWS_AS(transform_reduce(ctx(), x.data(), x.size(), static_cast<Transform>(42)), std::invalid_argument);
  CHECK_THROWS_AS(count_if(ctx(), x.data(), x.size(), static_cast<Predicate>(-1)), std::invalid_argument);
  CHECK_THROWS_AS(extrema<float>(ctx(), x.data(), 0), std::invalid_argument);
  CHECK_THROWS_AS(moments<float>(ctx(), x.data(), 0), std::invalid_argument);
  const Moments<float> one = moments(ctx(), x.data(), 1);
  CHECK_THROWS_AS(one.variance(1), std::invalid_argument);
  if (!clstat_test::has_fp64()) {
    std::vector<double> d(4, 1.0);
    CHECK_THROWS_AS(sum(ctx(), d.data(), d.size()), UnsupportedFeature);
  }
}

TEST_CASE_TEMPLATE("reduce.rows_equal_each_row_alone", T, float, double) {
  // Every row's sum and moments are the single reduction's of that row, bit for bit: rows of a
  // few slots, of exactly one work-group's slots, and of more slots than a work-group has
  // work-items (each item then merges a run of slots as the tree's subtree).
  if (!clstat_test::type_ok<T>()) return;
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  // Both first-stage forms for sums (a work-group a row; a work-item a run of slots, then passes
  // per row).
  const std::vector<std::pair<std::size_t, std::size_t>> shapes{{1, 1}, {3, 5}, {7, 4096}, {64, 33}, {3, 100003}, {2, 1u << 20}};
  for (std::size_t form : {0, 1})
  for (const auto& [rows, cols] : shapes) {
    INFO(rows << " x " << cols << ", reduce.rows = " << form);
    const Context c = clstat_test::tuned_ctx({{"reduce.rows", form}});
    auto x = clstat_test::normal<T>(rows * cols, seed + cols, 3, 2);
    if (rows > 2) x[cols + 1] = std::numeric_limits<T>::infinity();  // row 1 overflows to inf
    const auto s = sum_rows(c, x.data(), rows, cols);
    const auto m = moments_rows(c, x.data(), rows, cols);
    REQUIRE(s.size() == rows);
    REQUIRE(m.size() == rows);
    for (std::size_t r = 0; r < rows; ++r) {
      const T one = sum(ctx(), x.data() + r * cols, cols);
      CHECK(clstat_test::same_bits(s[r], one));
      const Moments<T> mo = moments(ctx(), x.data() + r * cols, cols);
      CHECK(m[r].count == mo.count);
      CHECK(clstat_test::same_bits(m[r].mean, mo.mean));
      CHECK(clstat_test::same_bits(m[r].m2, mo.m2));
    }
  }
  // The queue form at an offset.
  const std::size_t rows = 5, cols = 300;
  const auto x = clstat_test::normal<T>(rows * cols + 7, seed);
  const Buffer<T> b(ctx(), x.data(), x.size());
  const auto s = sum_rows_async(ctx().queue(0), b, 7, rows, cols).get();
  for (std::size_t r = 0; r < rows; ++r) CHECK(clstat_test::same_bits(s[r], sum(ctx(), x.data() + 7 + r * cols, cols)));
  CHECK_THROWS_AS(sum_rows_async(ctx().queue(0), b, 8, rows, cols), std::invalid_argument);
  CHECK_THROWS_AS(sum_rows(ctx(), x.data(), 0, cols), std::invalid_argument);
  CHECK_THROWS_AS(moments_rows(ctx(), x.data(), rows, 0), std::invalid_argument);
  CHECK_THROWS_AS(sum_rows<T>(ctx(), nullptr, rows, cols), std::invalid_argument);
}
