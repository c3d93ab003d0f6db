#include "bandwidth/bandwidth_input.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace clstat::bandwidth_detail {
namespace {
[[noreturn]] void bad(const char* op, const std::string& what) { throw std::invalid_argument(std::string(op) + ": " + what); }
}  // namespace

void check_data(const char* op, const double* x, std::size_t n, std::size_t d) {
  if (!x) bad(op, "null data pointer");
  if (d == 0) bad(op, "dimension d must be at least 1");
  if (n < 3) bad(op, "needs at least 3 observations, got " + std::to_string(n));
  for (std::size_t i = 0; i < n * d; ++i)
    if (!std::isfinite(x[i]))
      bad(op, "data contain NaN or infinity (row " + std::to_string(i / d) + ", column " + std::to_string(i % d) + ")");
}

Mat covariance(const char* op, const double* x, std::size_t n, std::size_t d) {
  const auto D = static_cast<Eigen::Index>(d);
  Eigen::VectorXd mu = Eigen::VectorXd::Zero(D);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) mu(static_cast<Eigen::Index>(k)) += x[i * d + k];
  mu /= static_cast<double>(n);
  Mat S = Mat::Zero(D, D);
  Eigen::VectorXd v(D);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < d; ++k) v(static_cast<Eigen::Index>(k)) = x[i * d + k] - mu(static_cast<Eigen::Index>(k));
    S.selfadjointView<Eigen::Lower>().rankUpdate(v);
  }
  S = S.selfadjointView<Eigen::Lower>();
  S /= static_cast<double>(n - 1);
  for (Eigen::Index k = 0; k < D; ++k)
    if (!(S(k, k) > 0)) bad(op, "column " + std::to_string(k) + " has zero variance");
  Eigen::LLT<Mat> llt(S);
  const double top = S.diagonal().maxCoeff();
  if (llt.info() != Eigen::Success) bad(op, "the sample covariance is singular (collinear columns)");
  Mat L = llt.matrixL();
  for (Eigen::Index k = 0; k < D; ++k)
    if (L(k, k) * L(k, k) < 1e-12 * top) bad(op, "the sample covariance is singular (collinear columns)");
  return S;
}

double quantile7(std::vector<double>& v, double p) {
  const double h = (static_cast<double>(v.size()) - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (h - static_cast<double>(lo)) * (b - a);
}

std::vector<double> column(const double* x, std::size_t n, std::size_t d, std::size_t k) {
  std::vector<double> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = x[i * d + k];
  return c;
}

double std_dev(const std::vector<double>& v) {
  double mean = 0, ss = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

void reject_duplicates(const char* op, const double* x, std::size_t n, std::size_t d) {
  std::vector<std::size_t> idx(n);
  std::iota(idx.begin(), idx.end(), std::size_t(0));
  auto less = [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(x + a * d, x + a * d + d, x + b * d, x + b * d + d);
  };
  std::sort(idx.begin(), idx.end(), less);
  for (std::size_t i = 1; i < n; ++i)
    if (std::equal(x + idx[i] * d, x + idx[i] * d + d, x + idx[i - 1] * d)) {
      const std::size_t a = std::min(idx[i], idx[i - 1]), b = std::max(idx[i], idx[i - 1]);
      bad(op, "rows " + std::to_string(a) + " and " + std::to_string(b) +
                  " are equal: with duplicated observations the LSCV objective is unbounded below as the "
                  "bandwidth shrinks (remove or jitter the duplicates)");
    }
}

Mat whitening(const Mat& S) {
  Mat L = Eigen::LLT<Mat>(S).matrixL();
  return L.triangularView<Eigen::Lower>().solve(Mat::Identity(S.rows(), S.cols()));
}

Mat checked_matrix(const char* op, const std::vector<double>& H, std::size_t d) {
  if (H.size() != d * d) bad(op, "H must have d*d = " + std::to_string(d * d) + " entries, got " + std::to_string(H.size()));
  const auto D = static_cast<Eigen::Index>(d);
  Mat M(D, D);
  for (Eigen::Index r = 0; r < D; ++r)
    for (Eigen::Index c = 0; c < D; ++c) {
      const double v = H[static_cast<std::size_t>(r * D + c)];
      if (!std::isfinite(v)) bad(op, "H has a NaN or infinite entry");
      M(r, c) = v;
    }
  for (Eigen::Index r = 0; r < D; ++r)
    for (Eigen::Index c = 0; c < r; ++c)
      if (std::abs(M(r, c) - M(c, r)) > 1e-12 * (std::abs(M(r, c)) + std::abs(M(c, r))))
        bad(op, "H is not symmetric");
  Eigen::LLT<Mat> llt(M);
  if (llt.info() != Eigen::Success) bad(op, "H is not positive definite");
  return M;
}

std::vector<double> row_major(const Mat& m) {
  std::vector<double> v(static_cast<std::size_t>(m.size()));
  for (Eigen::Index r = 0; r < m.rows(); ++r)
    for (Eigen::Index c = 0; c < m.cols(); ++c) v[static_cast<std::size_t>(r * m.cols() + c)] = m(r, c);
  return v;
}

}  // namespace clstat::bandwidth_detail
