#include "robust/design.hpp"

#include <Eigen/Dense>
#include <cmath>
#include <stdexcept>

namespace clstat::robust::detail {

void data_row(const double* x, std::size_t p, bool intercept, std::size_t i, double* out) {
  std::size_t c = 0;
  if (intercept) out[c++] = 1.0;
  for (std::size_t j = 0; j < p; ++j) out[c++] = x[i * p + j];
}

Design make_design(const std::string& op, const double* x, std::size_t n, std::size_t p, const double* y,
                   bool intercept, std::size_t min_rows_factor) {
  if (n == 0) throw std::invalid_argument(op + ": no observations (n = 0)");
  if (p == 0)
    throw std::invalid_argument(op + ": no explanatory column (p = 0); the location-only fit is not provided");
  if (!x || !y) throw std::invalid_argument(op + ": null data pointer");
  Design d;
  d.n = n;
  d.p = p;
  d.intercept = intercept;
  d.q = p + (intercept ? 1 : 0);
  if (d.q > 32)
    throw std::invalid_argument(op + ": " + std::to_string(d.q) + " coefficients; at most 32 are supported");
  if (n <= min_rows_factor * d.q)
    throw std::invalid_argument(op + ": n = " + std::to_string(n) + " observations for " + std::to_string(d.q) +
                                " coefficients; need more than " + std::to_string(min_rows_factor) +
                                " times as many observations as coefficients");
  // One pass: finiteness, range (constant columns) and the moments of every column and of y.
  std::vector<double> lo(p, INFINITY), hi(p, -INFINITY), mean(p, 0.0), ss(p, 0.0);
  double ymean = 0, yss = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(y[i])) throw std::invalid_argument(op + ": y[" + std::to_string(i) + "] is not finite");
    const double dy = y[i] - ymean;  // Welford
    ymean += dy / static_cast<double>(i + 1);
    yss += dy * (y[i] - ymean);
    for (std::size_t j = 0; j < p; ++j) {
      const double v = x[i * p + j];
      if (!std::isfinite(v))
        throw std::invalid_argument(op + ": x[" + std::to_string(i) + ", " + std::to_string(j) + "] is not finite");
      lo[j] = std::min(lo[j], v);
      hi[j] = std::max(hi[j], v);
      const double dv = v - mean[j];
      mean[j] += dv / static_cast<double>(i + 1);
      ss[j] += dv * (v - mean[j]);
    }
  }
  std::vector<double> centre(p, 0.0), scale(p, 1.0);
  for (std::size_t j = 0; j < p; ++j) {
    if (lo[j] == hi[j])
      throw std::invalid_argument(op + ": column " + std::to_string(j) + " of x is constant (every value " +
                                  std::to_string(lo[j]) + "); remove it (the intercept models a constant)");
    if (intercept) {
      centre[j] = mean[j];
      scale[j] = std::sqrt(ss[j] / static_cast<double>(n));
    } else {
      scale[j] = std::sqrt(ss[j] / static_cast<double>(n) + mean[j] * mean[j]);
    }
    if (!(scale[j] > 0)) scale[j] = 1.0;
  }
  double yc = 0, ysc = 1;
  if (intercept) {
    yc = ymean;
    ysc = std::sqrt(yss / static_cast<double>(n));
  } else {
    ysc = std::sqrt(yss / static_cast<double>(n) + ymean * ymean);
  }
  if (!(ysc > 0)) ysc = 1.0;
  d.z.resize(n * d.q);
  d.ys.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double* zi = &d.z[i * d.q];
    std::size_t c = 0;
    if (intercept) zi[c++] = 1.0;
    for (std::size_t j = 0; j < p; ++j) zi[c++] = (x[i * p + j] - centre[j]) / scale[j];
    d.ys[i] = (y[i] - yc) / ysc;
  }
  // Linearly dependent columns (robustbase: "x is singular"): the standardised cross-product
  // matrix, whose diagonal is n, must have full numerical rank.
  Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> zm(d.z.data(), n, d.q);
  const Eigen::MatrixXd g = zm.transpose() * zm;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(g, Eigen::EigenvaluesOnly);
  const double top = es.eigenvalues().maxCoeff();
  if (!(es.eigenvalues().minCoeff() > 1e-12 * top))
    throw std::invalid_argument(op + ": the columns of x" + std::string(intercept ? " and the intercept" : "") +
                                " are linearly dependent (x is singular)");
  return d;
}

}  // namespace clstat::robust::detail
