// Internal: everything about one KDE call that does not touch the device: validation, the
// bandwidth turned into a whitening matrix and a normalising constant, and the launch settings.
#pragma once

#include <cmath>

#include <string>
#include <vector>

#include "clstat/kde.hpp"
#include "runtime/impl.hpp"

namespace clstat::kde_detail {

/// log|Gamma(x)| without lgamma's write of the global signgam, so concurrent calls do not race
/// (lgamma_r: POSIX, in glibc and musl).
inline double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}


constexpr std::size_t k_max_dim = 64;
constexpr std::size_t k_chunk = 64;  // samples summed in `real` before the compensated fold

struct Plan {
  std::size_t n = 0, m = 0, d = 0;
  bool dbl = false;
  int kern = 0;                 // clstat::Kernel id (KERN in cl/kde)
  bool radial = false;          // FORM_RADIAL (Gaussian always; bounded kernels with a matrix H)
  bool dot = false;             // Gaussian exponent as an expanded square
  bool weighted = false, loo = false, log_density = false;
  bool cdf = false;             // the kernel CDF (d = 1): integrated kernels, CDF in kde_shapes.clh
  std::vector<double> A;        // d x d lower triangular, row-major: u = A (x - centre)
  std::vector<double> centre;   // subtracted in double before rounding to the device type
  std::vector<double> weights;  // normalised to sum 1 (empty: unweighted)
  std::vector<double> point_div;  // weighted leave-one-out: 1 - w_i per point
  double scale = 1, log_scale = 0;  // f = scale * sum_j (w_j) k(u)
  // launch settings
  int variant = 3;              // KdeVariant id, never automatic
  std::size_t wg = 256, ppt = 4, tile = 256, unroll = 4;
  std::size_t lanes = 1;        // points per vector (simd variant), else 1
  bool vec = false;             // sample rows padded to 16-byte vectors (VEC in kde_eval.cl)
  std::size_t exp_poly = 0;     // of every 8 samples, those whose exp2 is the polynomial (EXP_POLY)
  std::size_t vector_width() const { return dbl ? 2 : 4; }
  std::size_t sample_stride() const {
    const std::size_t s = d + (dot ? 1 : 0) + (weighted ? 1 : 0), w = vector_width();
    return vec ? (s + w - 1) / w * w : s;
  }
  std::size_t point_stride() const { return d + (dot ? 1 : 0); }
  /// Points one work-group owns.
  std::size_t points_per_group() const { return wg * ppt * lanes; }
  /// Samples per block a kde_eval launch consumes: the tile, or one CHUNK for the variants that
  /// read samples from global memory (naive, simd). Sample counts are padded to a multiple of it.
  bool tiled() const { return variant == 2 || variant == 3; }
  std::size_t sample_step() const { return tiled() ? tile : k_chunk; }
};

/// Checks what can be checked without data (d, sizes, kernel, bandwidth shape and values, weights)
/// and fills the plan. `x` may be null (device-buffer form); then scaled_covariance needs `cov`.
/// `loo_at_samples`: the call evaluates at the samples (kde_at_samples or the device form with
/// leave_one_out). Throws std::invalid_argument naming `op` and the problem.
/// `cdf`: plan the kernel CDF (kde_cdf) instead of the density: d must be 1.
Plan make_plan(const detail::ContextImpl& ctx, const char* op, const double* x, std::size_t n, std::size_t d,
               std::size_t m, const KdeOptions& o, bool at_samples, const std::vector<double>* cov = nullptr,
               bool cdf = false);

/// A bandwidth as H (d x d, row-major) and its lower Cholesky factor L (H = L L'): scalar h^2 I,
/// per_dimension diag(h_k^2), matrix H (finite, symmetric), scaled_covariance h^2 S with S the
/// sample covariance of x (or *cov when given). Throws std::invalid_argument naming `op` and the
/// problem (bad values or sizes, H not positive definite or numerically singular). O(n d^2) for
/// scaled_covariance, else O(d^3).
struct BandwidthFactor {
  std::vector<double> H, L;
};
BandwidthFactor bandwidth_factor(const char* op, const Bandwidth& bw, const double* x, std::size_t n, std::size_t d,
                                 const std::vector<double>* cov = nullptr);

/// Throws std::invalid_argument if any of the `count` values is NaN or infinite, naming `what`
/// and the first offending row and column.
void require_finite(const char* op, const char* what, const double* v, std::size_t rows, std::size_t d);

/// The (n - 1)-denominator sample covariance of n x d row-major data, row-major d x d.
std::vector<double> sample_covariance(const double* x, std::size_t n, std::size_t d);

/// The normal-scale (normal reference) constant of a radial kernel in d dimensions: the h of
/// H = h^2 S that minimises the AMISE for normal data with covariance S is this times
/// n^(-1/(d+4)). Gaussian, or the ball kernels (1 - |x|^2)^m: uniform (m = 0), Epanechnikov (1),
/// biweight (2), triweight (3); other kernels throw std::invalid_argument naming `op`. O(1).
double normal_scale_factor(const char* op, Kernel kernel, std::size_t d);

/// The -D options shared by kde_prepare and kde_eval.
std::string common_options(const detail::ContextImpl& ctx, const Plan& p, const char* op);

}  // namespace clstat::kde_detail
