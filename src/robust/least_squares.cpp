#include "robust/least_squares.hpp"

#include <Eigen/Dense>
#include <algorithm>

#include "robust/design.hpp"

namespace clstat::robust::detail {

std::vector<double> least_squares_rows(const double* x, std::size_t p, bool intercept, const double* y,
                                       const std::vector<std::size_t>& rows) {
  const std::size_t q = p + (intercept ? 1 : 0), k = rows.size();
  Eigen::MatrixXd a(k, q);
  Eigen::VectorXd b(k);
  std::vector<double> row(q);
  for (std::size_t r = 0; r < k; ++r) {
    data_row(x, p, intercept, rows[r], row.data());
    for (std::size_t j = 0; j < q; ++j) a(r, j) = row[j];
    b(r) = y[rows[r]];
  }
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  qr.setThreshold(1e-7);  // R's lm.fit tolerance
  if (qr.rank() < static_cast<Eigen::Index>(q)) return {};
  const Eigen::VectorXd c = qr.solve(b);
  return std::vector<double>(c.data(), c.data() + q);
}

std::vector<double> residuals_of(const double* x, std::size_t n, std::size_t p, bool intercept, const double* y,
                                 const std::vector<double>& coef) {
  std::vector<double> r(n);
  const std::size_t o = intercept ? 1 : 0;
  for (std::size_t i = 0; i < n; ++i) {
    double f = intercept ? coef[0] : 0.0;
    for (std::size_t j = 0; j < p; ++j) f += coef[o + j] * x[i * p + j];
    r[i] = y[i] - f;
  }
  return r;
}

double sum_smallest(std::vector<double>& v, std::size_t h) {
  if (h < v.size()) std::nth_element(v.begin(), v.begin() + (h - 1), v.end());
  std::sort(v.begin(), v.begin() + h);  // add in ascending order
  double s = 0;
  for (std::size_t i = 0; i < h; ++i) s += v[i];
  return s;
}

}  // namespace clstat::robust::detail
