// Internal: input checks and host statistics shared by the bandwidth selectors.
#pragma once

#include <Eigen/Dense>
#include <cstddef>
#include <utility>
#include <vector>

namespace clstat::bandwidth_detail {

using Mat = Eigen::MatrixXd;

/// Null data, n < 3, d = 0 or a NaN/infinite value: std::invalid_argument naming `op`.
void check_data(const char* op, const double* x, std::size_t n, std::size_t d);

/// The (n - 1)-denominator sample covariance; throws if a column has zero variance or S is
/// singular (its Cholesky factor has a pivot below 1e-12 of the largest diagonal entry).
Mat covariance(const char* op, const double* x, std::size_t n, std::size_t d);

/// The order statistics x_(k) (0-based ranks ks, each < v.size()) of finite v, exactly: one pass
/// into 4096 buckets over [min, max], then a sort of the buckets that hold the wanted ranks. O(n)
/// for spread data (0.1 ms at n = 32768, where two std::nth_element calls took 0.5 ms); a bucket
/// holding most of the data degrades to O(n log n), never to a wrong value.
std::vector<double> order_statistics(const double* v, std::size_t n, const std::vector<std::size_t>& ks);

/// The first and third quartiles of type 7 (R's default, NumPy's "linear") of finite, non-empty v.
std::pair<double, double> quartiles7(const double* v, std::size_t n);
inline std::pair<double, double> quartiles7(const std::vector<double>& v) { return quartiles7(v.data(), v.size()); }

/// Column k of x as a vector.
std::vector<double> column(const double* x, std::size_t n, std::size_t d, std::size_t k);

/// The (n - 1)-denominator standard deviation of v[0 .. n).
double std_dev(const double* v, std::size_t n);
inline double std_dev(const std::vector<double>& v) { return std_dev(v.data(), v.size()); }

/// Throws if two rows are equal, naming both (LSCV is unbounded below then). O(n log n d).
void reject_duplicates(const char* op, const double* x, std::size_t n, std::size_t d);

/// Lower-triangular A with A S A' = I (the inverse Cholesky factor of S): z = A x whitens.
Mat whitening(const Mat& S);

/// Throws unless H is d x d, finite, symmetric (to 1e-12 relative) and positive definite.
Mat checked_matrix(const char* op, const std::vector<double>& H, std::size_t d);

std::vector<double> row_major(const Mat& m);

}  // namespace clstat::bandwidth_detail
