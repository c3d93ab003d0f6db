// transform_reduce, extrema, count_if and moments against plain long-double references.
#include <doctest/doctest.h>

#include "support.hpp"

using namespace clstat;
using clstat_test::ctx;

namespace {
// 4194319 > 8 x 2^18: the slots fold blocks of eight loads (reduce_slots.clh), not only single elements.
const std::vector<std::size_t> k_sizes = {1, 2, 63, 65, 257, 4099, 65537, 1000003, 4194319};

long double ref_transform(Transform t, long double x, long double c) {
  switch (t) {
    case Transform::identity: return x;
    case Transform::abs: return std::fabs(x);
    case Transform::square: return x * x;
    case Transform::abs_dev: return std::fabs(x - c);
    case Transform::sq_dev: return (x - c) * (x - c);
    case Transform::pos_dev: return x > c ? x - c : 0;
    case Transform::neg_dev: return c > x ? c - x : 0;
  }
  return 0;
}
}  // namespace

TEST_CASE_TEMPLATE("reduce.transform_reduce", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  // Relative tolerance: the terms are positive (or of one sign) for every transform but identity,
  // whose magnitude sum bounds its error; a few units of T's epsilon each.
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::size_t n : k_sizes) {
    const auto x = clstat_test::normal<T>(n, seed ^ n, 1.0, 2.0);
    for (int t = 0; t <= 6; ++t) {
      const T c = T(0.375);
      long double ref = 0, mag = 0;
      for (T v : x) {
        const long double r = ref_transform(static_cast<Transform>(t), v, c);
        ref += r;
        mag += std::fabs(r);
      }
      const T got = transform_reduce(ctx(), x.data(), n, static_cast<Transform>(t), c);
      INFO("n " << n << " transform " << t << " got " << got << " ref " << static_cast<double>(ref));
      // Each term is rounded to T once (4 eps covers the transform's own arithmetic).
      CHECK(std::fabs(static_cast<long double>(got) - ref) <= 4 * eps * mag + 1e-300);
    }
  }
}

TEST_CASE_TEMPLATE("reduce.extrema", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  // Both first-stage forms on this device: a work-item a slot (the GPUs') and rows of slots (the
  // CPUs', which fold without the NaN rules first and again with them when a NaN was seen).
  for (std::size_t rows : {0, 1}) {
    const Context c = clstat_test::tuned_ctx({{"reduce.rows", rows}});
    INFO("reduce.rows " << rows);
    std::mt19937_64 g(seed);
    for (std::size_t n : k_sizes) {
      // Few distinct values, so ties are everywhere: the first occurrence must win.
      std::vector<T> x(n);
      for (auto& v : x) v = static_cast<T>(static_cast<int>(g() % 17) - 8);
      std::size_t imin = 0, imax = 0;
      for (std::size_t i = 1; i < n; ++i) {
        if (x[i] < x[imin]) imin = i;
        if (x[i] > x[imax]) imax = i;
      }
      const auto e = extrema(c, x.data(), n);
      INFO("n " << n);
      CHECK(e.min == x[imin]);
      CHECK(e.max == x[imax]);
      CHECK(e.argmin == imin);
      CHECK(e.argmax == imax);
      if (n > 2) {
        // NaN wins both, at its first index.
        const std::size_t a = g() % n, b = g() % n;
        x[a] = x[b] = std::numeric_limits<T>::quiet_NaN();
        const auto en = extrema(c, x.data(), n);
        CHECK(std::isnan(en.min));
        CHECK(std::isnan(en.max));
        CHECK(en.argmin == std::min(a, b));
        CHECK(en.argmax == std::min(a, b));
      }
    }
    std::vector<T> same(1000, T(2.5));
    const auto e = extrema(c, same.data(), same.size());
    CHECK(e.argmin == 0);
    CHECK(e.argmax == 0);
    // Infinities are values like any other: the first of equal ones wins, at any length.
    for (std::size_t n : {std::size_t(1000), std::size_t(1) << 22}) {
      std::vector<T> inf(n, std::numeric_limits<T>::infinity());
      const auto ei = extrema(c, inf.data(), n);
      CHECK(ei.argmin == 0);
      CHECK(ei.argmax == 0);
      const std::size_t lo = n / 3, hi = n - 5;
      inf[lo] = inf[hi] = -std::numeric_limits<T>::infinity();
      const auto em = extrema(c, inf.data(), n);
      CHECK(em.min == -std::numeric_limits<T>::infinity());
      CHECK(em.argmin == lo);
      CHECK(em.argmax == 0);
      const std::vector<T> ninf(n, -std::numeric_limits<T>::infinity());
      const auto en = extrema(c, ninf.data(), n);
      CHECK(en.argmin == 0);
      CHECK(en.argmax == 0);
    }
  }
}

TEST_CASE_TEMPLATE("reduce.count_if", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  for (std::size_t n : k_sizes) {
    auto x = clstat_test::normal<T>(n, seed + 3 * n);
    for (std::size_t i = 0; i < n; i += 7) x[i] = T(0.5);
    if (n > 10) {
      x[1] = std::numeric_limits<T>::quiet_NaN();
      x[2] = std::numeric_limits<T>::infinity();
      x[3] = -std::numeric_limits<T>::infinity();
    }
    const T a = T(0.5), b = T(1.25);
    for (int p = 0; p <= 9; ++p) {
      std::uint64_t ref = 0;
      for (T v : x) {
        bool r = false;
        switch (p) {
          case 0: r = std::isnan(v); break;
          case 1: r = std::isinf(v); break;
          case 2: r = std::isfinite(v); break;
          case 3: r = v < a; break;
          case 4: r = v <= a; break;
          case 5: r = v > a; break;
          case 6: r = v >= a; break;
          case 7: r = v == a; break;
          case 8: r = v != a; break;
          case 9: r = v >= a && v <= b; break;
        }
        ref += r;
      }
      INFO("n " << n << " predicate " << p);
      CHECK(count_if(ctx(), x.data(), n, static_cast<Predicate>(p), a, b) == ref);
    }
  }
}

TEST_CASE_TEMPLATE("reduce.moments", T, float, double) {
  if (std::is_same<T, double>::value && !clstat_test::has_fp64()) return;
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const double tol = std::is_same<T, double>::value ? 1e-12 : 2e-5;
  for (std::size_t n : k_sizes) {
    // A large mean relative to the spread is where one-pass sum-of-squares formulas fail.
    const auto x = clstat_test::normal<T>(n, seed + n, 1000.0, 0.5);
    long double mean = 0;
    for (T v : x) mean += v;
    mean /= n;
    long double m2 = 0;
    for (T v : x) m2 += (v - mean) * (v - mean);
    const auto m = moments(ctx(), x.data(), n);
    INFO("n " << n);
    CHECK(m.count == n);
    CHECK(std::fabs(m.mean - mean) <= tol * std::fabs(mean));
    if (n > 1) {
      CHECK(std::fabs(m.m2 - m2) <= tol * m2 * 10);
      CHECK(std::fabs(m.variance() - m2 / (n - 1)) <= tol * m2 / (n - 1) * 10);
    } else {
      CHECK(m.m2 == 0);
    }
  }
  std::vector<T> nanv(100, T(1));
  nanv[50] = std::numeric_limits<T>::quiet_NaN();
  CHECK(std::isnan(moments(ctx(), nanv.data(), nanv.size()).mean));
}

TEST_CASE("reduce.device_buffer_offsets") {
  const auto seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const auto x = clstat_test::normal<float>(100000, seed);
  Buffer<float> b(ctx(), x.data(), x.size());
  const Queue q = ctx().queue(2);
  for (auto [off, n] : {std::pair<std::size_t, std::size_t>{0, 100000}, {1, 99999}, {777, 31}, {99999, 1}}) {
    auto fs = sum_async(q, b, off, n);
    auto fe = extrema_async(q, b, off, n);
    auto fc = count_if_async(q, b, off, n, Predicate::greater, 0.0f, 0.0f);
    const float host_sum = sum(ctx(), x.data() + off, n);
    CHECK(fs.get() == host_sum);  // same canonical order as the host-array form
    const auto he = extrema(ctx(), x.data() + off, n);
    const auto de = fe.get();
    CHECK(de.argmin == he.argmin);
    CHECK(de.argmax == he.argmax);
    std::uint64_t pos = 0;
    for (std::size_t i = off; i < off + n; ++i) pos += x[i] > 0;
    CHECK(fc.get() == pos);
  }
}
