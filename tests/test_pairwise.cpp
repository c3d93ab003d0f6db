// Pairwise sums against the long-double reference: awkward sizes, every pair function, several
// outputs per pass, d up to 64, the points form, non-finite input and bad input.
#include <doctest/doctest.h>

#include "reference/pairwise_ref.hpp"
#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;
using clstat_test::throws_with;

namespace {

// Tolerances relative to the sum of |term|: fp32 terms 1e-6 (the acceptance bar), a little more
// for the Hermite-weighted terms whose polynomial cancels; fp64 1e-12.
template <class T>
double tolerance(PairFunction f) {
  const bool dbl = std::is_same<T, double>::value;
  const bool hermite = f == PairFunction::gauss_d4 || f == PairFunction::gauss_d6;
  return dbl ? 1e-12 : hermite ? 1e-5 : 1e-6;
}

// |got - ref| within the relative tolerance of the magnitude, or within 8 eps of the
// condition-weighted magnitude (tail terms whose argument's rounding dominates), plus one
// smallest normal of T per term (terms below it underflow or flush to zero in T).
template <class T>
bool close(double got, const clstat_ref::RefSum& r, PairFunction f) {
  const double eps = std::numeric_limits<T>::epsilon();
  const double err = std::fabs(got - static_cast<double>(r.sum));
  return err <= std::max(tolerance<T>(f) * static_cast<double>(r.mag), 8 * eps * static_cast<double>(r.cmag)) +
                    static_cast<double>(r.count) * std::numeric_limits<T>::min();
}

template <class T>
void check_triangle(const std::vector<T>& x, std::size_t n, std::size_t d, PairFunction f,
                    const std::vector<double>& params) {
  const auto got = pairwise_sum(ctx(), x.data(), n, d, f, params);
  const auto ref = clstat_ref::triangle(x, n, d, f, params);
  REQUIRE(got.size() == params.size());
  for (std::size_t k = 0; k < params.size(); ++k) {
    INFO("n " << n << " d " << d << " f " << static_cast<int>(f) << " p " << params[k] << " got " << got[k]
              << " ref " << static_cast<double>(ref[k].sum));
    CHECK(close<T>(got[k], ref[k], f));
  }
}

}  // namespace

TEST_CASE_TEMPLATE("pairwise.triangle_awkward_sizes", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : {2ul, 3ul, 63ul, 64ul, 65ul, 511ul, 512ul, 513ul, 1031ul, 2053ul}) {
    const auto x = clstat_test::normal<T>(n, seed + n);
    check_triangle(x, n, 1, PairFunction::gaussian, {1.0, 0.125});
  }
}

TEST_CASE_TEMPLATE("pairwise.functions", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const auto x = clstat_test::normal<T>(777, seed);
  check_triangle(x, 777, 1, PairFunction::gauss_d4, {1.0, 4.0, 25.0});
  check_triangle(x, 777, 1, PairFunction::gauss_d6, {1.0, 4.0, 25.0});
  check_triangle(x, 777, 1, PairFunction::distance, {0.0});
  // 20 outputs: two passes of 16 and 4 over the pairs.
  std::vector<double> many;
  for (int k = 1; k <= 20; ++k) many.push_back(0.05 * k);
  check_triangle(x, 777, 1, PairFunction::gaussian, many);
}

TEST_CASE_TEMPLATE("pairwise.dimensions", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t d : {2ul, 3ul, 5ul, 16ul, 17ul, 64ul}) {
    const std::size_t n = 300;
    const auto x = clstat_test::normal<T>(n * d, seed + d);
    check_triangle(x, n, d, PairFunction::gaussian, {0.5 / d, 2.0 / d});
    check_triangle(x, n, d, PairFunction::distance, {0.0});
  }
}

TEST_CASE("pairwise.within_counts_exact") {
  // Integer coordinates: every squared distance is exact in float, so counts must match exactly.
  std::mt19937_64 g(clstat_test::fresh_seed());
  const std::size_t n = 1500, d = 2;
  std::vector<float> x(n * d);
  for (auto& v : x) v = static_cast<float>(static_cast<int>(g() % 101) - 50);
  const auto got = pairwise_sum(ctx(), x.data(), n, d, PairFunction::within, {0.5, 100.5, 2500.5});
  const auto ref = clstat_ref::triangle(x, n, d, PairFunction::within, {0.5, 100.5, 2500.5});
  for (std::size_t k = 0; k < 3; ++k) CHECK(got[k] == static_cast<double>(ref[k].sum));
}

TEST_CASE_TEMPLATE("pairwise.points", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t d : {1ul, 3ul}) {
    for (std::size_t m : {1ul, 7ul, 1000ul}) {
      for (std::size_t n : {1ul, 63ul, 65ul, 2000ul}) {
        const auto y = clstat_test::normal<T>(m * d, seed + m * 31 + d);
        const auto x = clstat_test::normal<T>(n * d, seed + n * 17 + d);
        const std::vector<double> params{0.5, 2.0};
        // Device form, row-major at offsets (5 values before y, 2 d before x, 3 before the
        // output), with the output poisoned by NaN: every element must be written; the poison
        // is a fill on another queue, ordered by the wait list.
        std::vector<T> yo(5, T(9)), xo(2 * d, T(9));
        yo.insert(yo.end(), y.begin(), y.end());
        xo.insert(xo.end(), x.begin(), x.end());
        const Queue q = ctx().queue(0);
        Buffer<T> yb(ctx(), yo.data(), yo.size()), xb(ctx(), xo.data(), xo.size()), out(ctx(), 3 + params.size() * m);
        const Event poisoned = out.fill_async(ctx().queue(1), std::numeric_limits<T>::quiet_NaN());
        pairwise_points_sum_async(q, yb, 5, m, xb, 2 * d, n, d, PairFunction::gaussian, params, out, 3, {poisoned}).wait();
        auto got = out.to_host(q);
        got.erase(got.begin(), got.begin() + 3);
        const auto ref = clstat_ref::points(y, m, x, n, d, PairFunction::gaussian, params);
        const auto host = pairwise_points_sum(ctx(), y.data(), m, x.data(), n, d, PairFunction::gaussian, params);
        for (std::size_t i = 0; i < got.size(); ++i) {
          INFO("d " << d << " m " << m << " n " << n << " i " << i);
          REQUIRE(!std::isnan(got[i]));
          CHECK(close<T>(got[i], ref[i], PairFunction::gaussian));
          CHECK(host[i] == got[i]);
        }
      }
    }
  }
}

TEST_CASE_TEMPLATE("pairwise.nonfinite_propagates", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  auto x = clstat_test::normal<T>(600, 7);
  x[321] = std::numeric_limits<T>::quiet_NaN();
  const auto s = pairwise_sum(ctx(), x.data(), 600, 1, PairFunction::distance, {0.0});
  CHECK(std::isnan(s[0]));
  const auto p = pairwise_points_sum(ctx(), x.data(), 2, x.data(), 600, 1, PairFunction::distance, {0.0});
  CHECK(std::isnan(p[0]));
}

TEST_CASE("pairwise.bad_input") {
  std::vector<float> x(100, 1.0f);
  throws_with([&] { pairwise_sum(ctx(), x.data(), 1, 1, PairFunction::gaussian, {1.0}); }, "at least 2 points");
  throws_with([&] { pairwise_sum(ctx(), x.data(), 10, 0, PairFunction::gaussian, {1.0}); }, "dimension");
  throws_with([&] { pairwise_sum(ctx(), x.data(), 10, 65, PairFunction::gaussian, {1.0}); }, "dimension");
  throws_with([&] { pairwise_sum(ctx(), x.data(), 10, 1, PairFunction::gaussian, {}); }, "params is empty");
  throws_with([&] { pairwise_sum(ctx(), x.data(), 10, 1, PairFunction::gaussian, {NAN}); }, "finite");
  throws_with([&] { pairwise_sum(ctx(), x.data(), 10, 1, static_cast<PairFunction>(9), {1.0}); }, "unknown PairFunction");
  throws_with([&] { pairwise_sum<float>(ctx(), nullptr, 10, 1, PairFunction::gaussian, {1.0}); }, "null");
  Buffer<float> b(ctx(), x.data(), x.size());
  throws_with([&] { pairwise_sum_async(ctx().queue(0), b, 0, 60, 2, PairFunction::gaussian, {1.0}).get(); }, "n*d");
  throws_with([&] { pairwise_sum_async(ctx().queue(0), b, 41, 20, 3, PairFunction::gaussian, {1.0}).get(); },
              "offset + n*d");
  Buffer<float> small(ctx(), 3);
  throws_with([&] {
    pairwise_points_sum_async(ctx().queue(0), b, 0, 10, b, 0, 10, 1, PairFunction::gaussian, {1.0, 2.0}, small, 0);
  }, "output buffer");
  throws_with([&] { pairwise_points_sum(ctx(), x.data(), 0, x.data(), 10, 1, PairFunction::gaussian, {1.0}); }, "m = 0");
}

TEST_CASE("pairwise.device_rows_at_an_offset") {
  // The device form reads row-major points from an offset: the same bits as the host form.
  const auto x = clstat_test::normal<float>(3 * 700, 21);
  std::vector<float> padded(7, 5.0f);
  padded.insert(padded.end(), x.begin(), x.end());
  Buffer<float> b(ctx(), padded.data(), padded.size());
  const auto dev = pairwise_sum_async(ctx().queue(2), b, 7, 700, 3, PairFunction::gaussian, {0.5, 2.0}).get();
  const auto host = pairwise_sum(ctx(), x.data(), 700, 3, PairFunction::gaussian, {0.5, 2.0});
  CHECK(dev == host);
}
