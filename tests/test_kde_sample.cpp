// Draws from a KDE (kde_sample): their distribution against the estimate's own CDF (kde_cdf) by
// the Kolmogorov-Smirnov distance for every kernel, their mean and covariance for a full
// bandwidth matrix, weights, reproducibility, bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "support.hpp"
#include "throws_with.hpp"

using namespace clstat;
using clstat_test::ctx;

TEST_CASE("kde_sample.distribution_is_the_estimate") {
  // With N draws the KS distance to the true CDF exceeds 6 / sqrt(N) with probability below
  // 2 exp(-72): the bar holds for every seed.
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 200, N = 100000;
  const auto x = clstat_test::normal<double>(n, seed, 0.0, 1.5);
  std::vector<double> w(n);
  for (std::size_t j = 0; j < n; ++j) w[j] = j % 7 == 0 ? 0.0 : 0.5 + static_cast<double>(j % 3);
  for (Kernel k : {Kernel::gaussian, Kernel::epanechnikov, Kernel::biweight, Kernel::triweight, Kernel::triangular,
                   Kernel::uniform, Kernel::cosine})
    for (bool weighted : {false, true}) {
      INFO("kernel " << static_cast<int>(k) << " weighted " << weighted);
      KdeOptions o;
      o.kernel = k;
      o.bandwidth = Bandwidth::scalar(0.6);
      if (weighted) o.weights = w;
      auto draws = kde_sample(ctx(), x.data(), n, 1, N, seed + static_cast<int>(k), o);
      std::sort(draws.begin(), draws.end());
      if (!clstat_test::has_fp64()) o.precision = Precision::float32;
      const auto F = kde_cdf(ctx(), x.data(), n, draws.data(), N, o);
      double D = 0;
      for (std::size_t i = 0; i < N; ++i)
        D = std::max({D, std::fabs(F[i] - double(i) / N), std::fabs(F[i] - double(i + 1) / N)});
      CHECK(D < 6 / std::sqrt(double(N)));
    }
}

TEST_CASE("kde_sample.moments_reproducibility_and_bad_input") {
  const std::uint64_t seed = clstat_test::fresh_seed();
  INFO("seed " << seed);
  const std::size_t n = 300, d = 2, N = 200000;
  const auto x = clstat_test::normal<double>(n * d, seed);
  KdeOptions o;
  o.bandwidth = Bandwidth::matrix({0.5, 0.3, 0.3, 0.4});
  const auto y = kde_sample(ctx(), x.data(), n, d, N, seed, o);
  // Mean: that of the samples; covariance: theirs (1/n) plus H. Each within 8 standard errors.
  double mx[2] = {0, 0}, my[2] = {0, 0}, cx[3] = {0, 0, 0}, cy[3] = {0, 0, 0};
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < d; ++k) mx[k] += x[j * d + k] / n;
  for (std::size_t i = 0; i < N; ++i)
    for (std::size_t k = 0; k < d; ++k) my[k] += y[i * d + k] / N;
  for (std::size_t j = 0; j < n; ++j) {
    const double a = x[j * d] - mx[0], b = x[j * d + 1] - mx[1];
    cx[0] += a * a / n, cx[1] += a * b / n, cx[2] += b * b / n;
  }
  for (std::size_t i = 0; i < N; ++i) {
    const double a = y[i * d] - mx[0], b = y[i * d + 1] - mx[1];
    cy[0] += a * a / N, cy[1] += a * b / N, cy[2] += b * b / N;
  }
  const double want[3] = {cx[0] + 0.5, cx[1] + 0.3, cx[2] + 0.4};
  for (std::size_t k = 0; k < d; ++k) CHECK(std::fabs(my[k] - mx[k]) < 8 * std::sqrt(want[k == 0 ? 0 : 2] / N));
  for (int c = 0; c < 3; ++c) CHECK(std::fabs(cy[c] - want[c]) < 8 * std::sqrt(2.0 / N) * std::max(want[0], want[2]));
  // The same seed gives the same draws, and any prefix of them; another seed others.
  CHECK(kde_sample(ctx(), x.data(), n, d, 1000, seed, o) == std::vector<double>(y.begin(), y.begin() + 2000));
  CHECK(kde_sample(ctx(), x.data(), n, d, 1000, seed + 1, o) != std::vector<double>(y.begin(), y.begin() + 2000));
  // A sample of weight 0 is never drawn: with all weight on sample 5, every draw is near it.
  std::vector<double> w(n, 0.0);
  w[5] = 1;
  KdeOptions ow;
  ow.kernel = Kernel::epanechnikov;
  ow.bandwidth = Bandwidth::per_dimension({0.1, 0.2});
  ow.weights = w;
  const auto z = kde_sample(ctx(), x.data(), n, d, 5000, seed, ow);
  for (std::size_t i = 0; i < 5000; ++i) {
    CHECK(std::fabs(z[i * d] - x[10]) <= 0.1);
    CHECK(std::fabs(z[i * d + 1] - x[11]) <= 0.2);
  }
  KdeOptions b = o;
  b.kernel = Kernel::biweight;
  clstat_test::throws_with([&] { kde_sample(ctx(), x.data(), n, d, 10, 1, b); }, "diagonal bandwidth");
  b = o;
  b.leave_one_out = true;
  clstat_test::throws_with([&] { kde_sample(ctx(), x.data(), n, d, 10, 1, b); }, "leave_one_out");
  b = o;
  b.weights = {1.0};
  clstat_test::throws_with([&] { kde_sample(ctx(), x.data(), n, d, 10, 1, b); }, "weights has 1 values");
  clstat_test::throws_with([&] { kde_sample(ctx(), x.data(), 0, d, 10, 1, o); }, "no samples");
  b = o;
  b.bandwidth = Bandwidth::matrix({1.0, 2.0, 2.0, 1.0});
  CHECK_THROWS_AS(kde_sample(ctx(), x.data(), n, d, 10, 1, b), std::invalid_argument);
}
