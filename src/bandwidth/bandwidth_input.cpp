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
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMat> X(x, static_cast<Eigen::Index>(n), D);
  const Mat Xc = X.rowwise() - X.colwise().mean();
  Mat S = Mat::Zero(D, D);
  S.selfadjointView<Eigen::Lower>().rankUpdate(Xc.transpose());  // Xc' Xc, one blocked product
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

std::vector<double> order_statistics(const double* v, std::size_t n, const std::vector<std::size_t>& ks) {
  std::vector<double> out(ks.size());
  if (n == 0) return out;
  const auto [mn, mx] = std::minmax_element(v, v + n);
  const double lo = *mn, hi = *mx;
  if (lo == hi) return std::vector<double>(ks.size(), lo);
  // Bucket index = floor((x - lo) * scale), computed on halves so it cannot overflow: a
  // non-decreasing function of x, so bucket b holds only values <= those of bucket b + 1.
  const std::size_t B = std::min<std::size_t>(4096, n);
  const double half_lo = lo * 0.5, scale = static_cast<double>(B) / (hi * 0.5 - half_lo);
  auto bucket = [&](double x) {
    const double t = (x * 0.5 - half_lo) * scale;
    return t < static_cast<double>(B) ? static_cast<std::size_t>(t) : B - 1;
  };
  std::vector<std::size_t> count(B + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ++count[bucket(v[i]) + 1];
  for (std::size_t b = 0; b < B; ++b) count[b + 1] += count[b];  // count[b] = elements below bucket b
  // The bucket of each wanted rank, then one gather of those buckets' values and a sort of each.
  std::vector<std::size_t> want(ks.size());
  std::vector<char> needed(B, 0);
  for (std::size_t q = 0; q < ks.size(); ++q) {
    want[q] = static_cast<std::size_t>(std::upper_bound(count.begin(), count.end(), ks[q]) - count.begin()) - 1;
    needed[want[q]] = 1;
  }
  std::vector<std::vector<double>> held(B);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = bucket(v[i]);
    if (needed[b]) held[b].push_back(v[i]);
  }
  for (std::size_t b = 0; b < B; ++b)
    if (needed[b]) std::sort(held[b].begin(), held[b].end());
  for (std::size_t q = 0; q < ks.size(); ++q) out[q] = held[want[q]][ks[q] - count[want[q]]];
  return out;
}

std::pair<double, double> quartiles7(const double* v, std::size_t n) {
  const double m = static_cast<double>(n) - 1;
  const double h1 = m * 0.25, h3 = m * 0.75;
  const auto k1 = static_cast<std::size_t>(std::floor(h1)), k3 = static_cast<std::size_t>(std::floor(h3));
  const std::size_t last = n - 1;
  const std::vector<double> o = order_statistics(v, n, {k1, std::min(k1 + 1, last), k3, std::min(k3 + 1, last)});
  return {o[0] + (h1 - static_cast<double>(k1)) * (o[1] - o[0]), o[2] + (h3 - static_cast<double>(k3)) * (o[3] - o[2])};
}

std::vector<double> column(const double* x, std::size_t n, std::size_t d, std::size_t k) {
  std::vector<double> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = x[i * d + k];
  return c;
}

double std_dev(const double* v, std::size_t n) {
  double mean = 0, ss = 0;
  for (std::size_t i = 0; i < n; ++i) mean += v[i];
  mean /= static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) ss += (v[i] - mean) * (v[i] - mean);
  return std::sqrt(ss / static_cast<double>(n - 1));
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
