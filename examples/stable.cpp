// examples/stable.cpp: an alpha-stable law in Nolan's S0 parameterisation: density, distribution
// function, quantiles, random numbers, and a maximum-likelihood fit with standard errors.
#include <clstat/clstat.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  namespace st = clstat::stable;
  clstat::Context ctx;
  const st::Params law{1.5, 0.5, 2.0, 1.0, st::Param::S0};  // alpha, beta, scale, location

  const std::vector<double> x{-10, -2, 0, 1, 3, 10};
  const std::vector<double> f = st::pdf(ctx, x.data(), x.size(), law);
  const std::vector<double> F = st::cdf(ctx, x.data(), x.size(), law);
  for (std::size_t i = 0; i < x.size(); ++i) std::printf("  x = %6.1f  pdf %.10f  cdf %.10f\n", x[i], f[i], F[i]);

  const std::vector<double> p{0.01, 0.5, 0.99};
  const std::vector<double> q = st::quantile(ctx, p.data(), p.size(), law);
  std::printf("  quantiles 1%% %.6f, 50%% %.6f, 99%% %.6f\n", q[0], q[1], q[2]);

  const std::vector<double> y = st::sample(ctx, 5000, law, /*seed=*/42);
  const clstat::stable::FitResult fit = st::fit(ctx, y.data(), y.size());
  std::printf("  MLE from 5000 draws: alpha %.3f (se %.3f), beta %.3f (se %.3f), scale %.3f, loc %.3f\n",
              fit.params.alpha, fit.se_alpha, fit.params.beta, fit.se_beta, fit.params.scale, fit.params.loc);
  const bool ok = fit.converged && std::abs(fit.params.alpha - 1.5) < 5 * fit.se_alpha &&
                  std::abs(fit.params.beta - 0.5) < 5 * fit.se_beta;
  return ok ? 0 : 1;
}
