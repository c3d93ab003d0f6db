// examples/device_group.cpp: the median and quantiles of data split over several devices. Takes
// every OpenCL device found, or, with one device, that device twice (two contexts on it); the
// answer is the same value as on one device, which it checks.
#include <clstat/clstat.hpp>

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
  return m == ord::median(one, x.data(), x.size()) ? 0 : 1;
}
