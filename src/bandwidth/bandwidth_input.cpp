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

Mat covariance(const char* op, const double* x, std::size_t n, std::size_t d, Eigen::VectorXd* mean) {
  const auto D = static_cast<Eigen::Index>(d);
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMat> X(x, static_cast<Eigen::Index>(n), D);
  const Eigen::RowVectorXd mu = X.colwise().mean();
  if (mean) *mean = mu.transpose();
  const Mat Xc = X.rowwise() - mu;
  Mat S = Mat::Zero(D, D);
  S.selfadjointView<Eigen::Lower>().rankUpdate(Xc.transpose());  // Xc' Xc, one blocked product
  S = S.selfadjointView<Eigen::Lower>();
  S /= static_cast<double>(n - 1);
  // Squares of values past about 1e154 overflow: say so rather than return an infinite H.
  if (!S.allFinite()) bad(op, "the sample covariance" " overflows double: the data (or the bandwidth) are too large; rescale them (results scale exactly)");
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

ColumnStats column_stats(const double* v, std::size_t n, bool quartiles) {
  ColumnStats r;
  double sum = 0, lo = v[0], hi = v[0];
  for (std::size_t i = 0; i < n; ++i) {
    sum += v[i];
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  const double mean = sum / static_cast<double>(n);
  // Type-7 quartiles need ranks k and k + 1 at (n - 1) / 4 and 3 (n - 1) / 4.
  const double m = static_cast<double>(n) - 1, h1 = m * 0.25, h3 = m * 0.75;
  const auto k1 = static_cast<std::size_t>(std::floor(h1)), k3 = static_cast<std::size_t>(std::floor(h3));
  const std::size_t ks[4] = {k1, std::min(k1 + 1, n - 1), k3, std::min(k3 + 1, n - 1)};
  // Bucket index = floor((x - lo) * scale), computed on halves so it cannot overflow: a
  // non-decreasing function of x, so bucket b holds only values <= those of bucket b + 1.
  const std::size_t B = std::min<std::size_t>(4096, n);
  const bool spread = hi > lo;
  const double half_lo = lo * 0.5, scale = spread ? static_cast<double>(B) / (hi * 0.5 - half_lo) : 0.0;
  auto bucket = [&](double x) {
    const double t = (x * 0.5 - half_lo) * scale;
    return t < static_cast<double>(B) ? static_cast<std::size_t>(t) : B - 1;
  };
  std::vector<std::size_t> count(quartiles && spread ? B + 1 : 0, 0);
  double ss = 0;
  if (quartiles && spread) {
    for (std::size_t i = 0; i < n; ++i) {
      ss += (v[i] - mean) * (v[i] - mean);
      ++count[bucket(v[i]) + 1];
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) ss += (v[i] - mean) * (v[i] - mean);
  }
  r.sd = std::sqrt(ss / static_cast<double>(n - 1));
  if (!quartiles) return r;
  double o[4] = {lo, lo, lo, lo};
  if (spread) {
    for (std::size_t b = 0; b < B; ++b) count[b + 1] += count[b];  // count[b] = elements below bucket b
    // The (at most 4) buckets holding the wanted ranks, one gather of their values, a sort each.
    std::size_t want[4], slots = 0, slot_bucket[4];
    for (int q = 0; q < 4; ++q) {
      const std::size_t b =
          static_cast<std::size_t>(std::upper_bound(count.begin(), count.end(), ks[q]) - count.begin()) - 1;
      std::size_t s = 0;
      while (s < slots && slot_bucket[s] != b) ++s;
      if (s == slots) slot_bucket[slots++] = b;
      want[q] = s;
    }
    std::vector<double> held[4];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t b = bucket(v[i]);
      for (std::size_t s = 0; s < slots; ++s)
        if (slot_bucket[s] == b) held[s].push_back(v[i]);
    }
    for (std::size_t s = 0; s < slots; ++s) std::sort(held[s].begin(), held[s].end());
    for (int q = 0; q < 4; ++q) o[q] = held[want[q]][ks[q] - count[slot_bucket[want[q]]]];
  }
  r.q1 = o[0] + (h1 - static_cast<double>(k1)) * (o[1] - o[0]);
  r.q3 = o[2] + (h3 - static_cast<double>(k3)) * (o[3] - o[2]);
  return r;
}

std::vector<double> column(const double* x, std::size_t n, std::size_t d, std::size_t k) {
  std::vector<double> c(n);
  for (std::size_t i = 0; i < n; ++i) c[i] = x[i * d + k];
  return c;
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

double normal_psi(unsigned r, double sigma) {
  double f = 1, half = 1;
  for (unsigned k = 2; k <= r; ++k) f *= k;
  for (unsigned k = 2; k <= r / 2; ++k) half *= k;
  return ((r / 2) % 2 ? -1.0 : 1.0) * f / (std::pow(2 * sigma, r + 1) * half * std::sqrt(M_PI));
}

}  // namespace clstat::bandwidth_detail
