// examples/kde.cpp: the density of a two-component normal mixture at 201 points, with the
// Wand-Jones plug-in bandwidth, on the default OpenCL device.
#include <clstat/clstat.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> left(-2, 0.5), right(1, 1);
  std::vector<double> x(20000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? left(rng) : right(rng);

  clstat::Context ctx;  // the default device: CLSTAT_DEVICE is not read here, see docs/runtime.md
  const std::vector<double> h = clstat::bandwidth::plugin(ctx, x.data(), x.size(), 1);

  std::vector<double> y(201);
  for (std::size_t j = 0; j < y.size(); ++j) y[j] = -6 + 12.0 * j / (y.size() - 1);
  clstat::KdeOptions o;
  o.bandwidth = clstat::Bandwidth::scalar(h[0]);
  const std::vector<double> f = clstat::kde(ctx, x.data(), x.size(), 1, y.data(), y.size(), o);

  double integral = 0;  // trapezoid rule over [-6, 6]
  for (std::size_t j = 1; j < y.size(); ++j) integral += 0.5 * (f[j] + f[j - 1]) * (y[j] - y[j - 1]);
  std::printf("device %s, plug-in h = %.4f\n", ctx.info().name.c_str(), h[0]);
  for (std::size_t j = 0; j < y.size(); j += 25) std::printf("  f(%5.2f) = %.5f\n", y[j], f[j]);
  std::printf("integral over [-6, 6] = %.4f\n", integral);
  return std::abs(integral - 1) < 0.01 ? 0 : 1;
}
