// examples/kde_cdf.cpp: the kernel estimate of a distribution function (d = 1) and the
// probabilities it gives, beside the empirical CDF, on the default OpenCL device.
#include <clstat/clstat.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(2);
  std::gamma_distribution<double> gamma(2.0, 1.0);  // skewed, positive data
  std::vector<double> x(50000);
  for (double& v : x) v = gamma(rng);

  clstat::Context ctx;
  const std::vector<double> h = clstat::bandwidth::plugin(ctx, x.data(), x.size(), 1);
  const std::vector<double> y{0.5, 1.0, 2.0, 4.0, 8.0};
  clstat::KdeOptions o;
  o.bandwidth = clstat::Bandwidth::scalar(h[0]);
  const std::vector<double> F = clstat::kde_cdf(ctx, x.data(), x.size(), y.data(), y.size(), o);

  std::sort(x.begin(), x.end());
  double worst = 0;
  std::printf("device %s, h = %.4f\n", ctx.info().name.c_str(), h[0]);
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double ecdf = double(std::upper_bound(x.begin(), x.end(), y[i]) - x.begin()) / x.size();
    std::printf("  F(%.1f) = %.5f   empirical %.5f\n", y[i], F[i], ecdf);
    worst = std::max(worst, std::abs(F[i] - ecdf));
  }
  // The smoothing moves F from the empirical CDF by O(h^2) where the density bends.
  return worst < 0.01 ? 0 : 1;
}
