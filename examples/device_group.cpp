// examples/device_group.cpp: the median and quantiles of data split over several devices, and a
// stable fit whose likelihoods are split. Takes every OpenCL device found, or, with one device,
// that device twice (two contexts on it); the median is the same value as on one device and the
// fit agrees with one device's to far within its tolerance, which it checks.
#include <clstat/clstat.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> d(0.0, 1.0);
  std::vector<double> x(3'000'001);
  for (double& v : x) v = d(rng);

  const clstat::Context one;  // $CLSTAT_DEVICE, else the first GPU, else a CPU
  if (!one.info().fp64) return 0;  // doubles need fp64
  // Every device found, or this one twice; weights 1 and 3 split the data a quarter and three.
  clstat::DeviceGroup g = clstat::devices().size() > 1
                              ? clstat::DeviceGroup::from_spec("all")
                              : clstat::DeviceGroup({one, clstat::Context(one.device())}, {1, 3});
  namespace ord = clstat::order;
  const double m = ord::median(g, x.data(), x.size());
  const std::vector<double> q = ord::quantiles(g, x.data(), x.size(), {0.05, 0.95});
  std::printf("%zu members: median %.6f (e^0 = 1), 5%% %.5f, 95%% %.5f\n", g.size(), m, q[0], q[1]);
  for (std::size_t i = 0; i < g.size(); ++i) std::printf("  member %zu: %s\n", i, g.member(i).info().name.c_str());

  // Draws split by Philox counter (one device's stream), then the MLE with each member's share
  // giving its part of every log-likelihood.
  namespace st = clstat::stable;
  const std::vector<double> s = st::sample(g, 500, {1.6, 0.4, 2.0, 1.0}, 11);
  const st::FitResult f = st::fit(g, s.data(), s.size()), f1 = st::fit(one, s.data(), s.size());
  std::printf("stable fit: alpha %.4f beta %.4f scale %.4f loc %.4f\n", f.params.alpha, f.params.beta,
              f.params.scale, f.params.loc);
  const bool fit_agrees = std::abs(f.params.alpha - f1.params.alpha) < 1e-6;
  return m == ord::median(one, x.data(), x.size()) && fit_agrees ? 0 : 1;
}
