// examples/robust.cpp: least trimmed squares (FAST-LTS, R: robustbase::ltsReg) against ordinary
// least squares on a line with 20% gross outliers at high leverage, and MM-regression (R:
// robustbase::lmrob) with its standard errors; then the robust centre and scatter of the same
// (x, y) points by the MCD (FAST-MCD, R: robustbase::covMcd).
#include <clstat/clstat.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0, 0.5);
  std::uniform_real_distribution<double> u(0, 10);
  const std::size_t n = 2000, bad = 400;
  std::vector<double> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = i < bad ? 15 + u(rng) / 2 : u(rng);      // the outliers sit far to the right ...
    y[i] = i < bad ? -10 + noise(rng) : 1 + 2 * x[i] + noise(rng);  // ... and far below the line
  }
  clstat::Context ctx;
  const clstat::robust::LtsFit fit = clstat::robust::lts(ctx, x.data(), n, 1, y.data());

  // Least squares for comparison: slope = cov(x, y) / var(x).
  double mx = 0, my = 0, sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < n; ++i) mx += x[i] / n, my += y[i] / n;
  for (std::size_t i = 0; i < n; ++i) sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  std::printf("true line      y = 1.000 + 2.000 x\n");
  std::printf("least squares  y = %.3f + %.3f x\n", my - sxy / sxx * mx, sxy / sxx);
  // The scale is robustbase's: its consistency factor treats the flagged rows as the normal's own
  // tails, so with 20% outliers it reads about 1.5 times the noise's 0.5.
  std::printf("LTS            y = %.3f + %.3f x, scale %.3f, %zu outliers flagged\n", fit.coefficients[0],
              fit.coefficients[1], fit.scale, fit.outliers.size());
  const clstat::robust::MmFit mm = clstat::robust::mm(ctx, x.data(), n, 1, y.data());
  std::printf("MM             y = %.3f + %.3f x (standard errors %.3f, %.4f), %zu outliers\n",
              mm.coefficients[0], mm.coefficients[1], mm.std_errors[0], mm.std_errors[1], mm.outliers.size());

  // The MCD of the points: the clean cloud's centre (5, 11) and the outlying cluster flagged.
  std::vector<double> xy(2 * n);
  for (std::size_t i = 0; i < n; ++i) xy[2 * i] = x[i], xy[2 * i + 1] = y[i];
  const clstat::robust::McdFit m = clstat::robust::mcd(ctx, xy.data(), n, 2);
  std::printf("MCD centre     (%.3f, %.3f), %zu of %zu points flagged\n", m.center[0], m.center[1],
              m.outliers.size(), n);
  return std::abs(fit.coefficients[1] - 2) < 0.05 && fit.outliers.size() >= bad && std::abs(m.center[0] - 5) < 0.3 &&
                 m.outliers.size() >= bad && std::abs(mm.coefficients[1] - 2) < 0.05
             ? 0
             : 1;
}
