// examples/bandwidth.cpp: three bandwidths for the same sample, all in data units: Silverman's
// rule of thumb, the exact Wand-Jones plug-in (R: KernSmooth::dpik, ks::hpi) and least-squares
// cross-validation (R: ks::hlscv).
#include <clstat/clstat.hpp>

#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> skewed(0, 0.6);
  std::vector<double> x(5000);
  for (double& v : x) v = skewed(rng);

  clstat::Context ctx;
  namespace bw = clstat::bandwidth;
  const double rot = bw::silverman_rot(x.data(), x.size(), 1)[0];
  const double dpi = bw::plugin(ctx, x.data(), x.size(), 1)[0];
  const bw::LscvResult cv = bw::lscv_h(ctx, x.data(), x.size(), 1);
  std::printf("n = %zu lognormal draws on %s\n", x.size(), ctx.info().name.c_str());
  std::printf("  silverman_rot  h = %.5f\n", rot);
  std::printf("  plugin (dpi)   h = %.5f\n", dpi);
  std::printf("  lscv_h         h = %.5f  (LSCV %.6g)\n", cv.h[0], cv.objective);
  // A skewed sample: the data-driven choices come out below the normal-reference rule.
  return dpi > 0 && cv.h[0] > 0 && dpi < rot ? 0 : 1;
}
