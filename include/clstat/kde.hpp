// clstat/kde.hpp: kernel density estimation at m points from n weighted samples in d dimensions.
//
//   f(y) = sum_j w_j K_H(y - x_j),   K_H(u) = |H|^{-1/2} K(H^{-1/2} u),   sum_j w_j = 1
//
// (Wand & Jones 1995, eq. 4.1; unweighted: w_j = 1/n.) Data are row-major: observation j is
// x[j*d .. j*d+d-1]. Every entry point validates its input first and throws std::invalid_argument
// with a message naming the problem (empty data, d outside [1, 64], NaN or Inf in samples, points
// or weights, negative or all-zero weights, h <= 0, H not symmetric positive definite, mismatched
// sizes); clstat::UnsupportedFeature when double is asked of a device without fp64 or a device
// buffer does not fit; clstat::Error for OpenCL failures.
//
// Cost: n*m pair terms. A Gaussian pair costs one exp and d multiply-adds (after whitening);
// the bounded product kernels cost d shape evaluations and no exp. Host-side work is O((n+m) d^2).
// Sums are compensated, so the result does not drift with n: fp64 results are within ~1e-13
// relative of the exact sum, fp32 within ~1e-6 (see tests/test_kde.cpp for the bars enforced).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clstat/runtime.hpp"

namespace clstat {

/// Kernel shapes on [-1, 1] (Gaussian: unbounded), each integrating to 1 (Wand & Jones table 2.1):
/// gaussian (2 pi)^{-1/2} exp(-u^2/2); epanechnikov 3/4 (1-u^2); biweight 15/16 (1-u^2)^2;
/// triweight 35/32 (1-u^2)^3; triangular 1-|u|; uniform 1/2 (|u| <= 1, boundary included);
/// cosine pi/4 cos(pi u/2).
enum class Kernel : int { gaussian = 0, epanechnikov, biweight, triweight, triangular, uniform, cosine };

/// Arithmetic on the device. float64 needs a device with fp64 (DeviceInfo::fp64).
enum class Precision : int { float32 = 0, float64 = 1 };

/// Which evaluation kernel runs (Michailidis & Margaritis 2013, sec. 3): `automatic` picks the
/// tuned one. All give the same result up to the shape's own rounding; they differ in speed.
/// `simd` is shaped for CPU devices: each work-item evaluates vectors of 8 or 16 points at once
/// (the tuned `kde.<class>.lanes`), so the CPU's vector units do every operation of a pair; the
/// tuned choice on CPU devices.
enum class KdeVariant : int { automatic = 0, naive, tiled, unrolled, simd };

/// The bandwidth, in the units of the data.
///  - scalar(h): h_k = h in every dimension, product kernel prod_k K(u_k / h) / h.
///  - per_dimension({h_1..h_d}): product kernel prod_k K(u_k / h_k) / h_k (Michailidis sec. 3.1).
///  - matrix(H): H is d x d, row-major, symmetric positive definite (the variance matrix of the
///    Gaussian kernel). Gaussian: K_H(u) = (2 pi)^{-d/2} |H|^{-1/2} exp(-u' H^{-1} u / 2).
///    Bounded kernels use their spherically symmetric form on the unit ball, e.g. the spherical
///    Epanechnikov (d+2)/(2 c_d) (1 - v'v), v = H^{-1/2} u, c_d the volume of the unit d-ball
///    (Wand & Jones sec. 4.2, 4.5). For d = 1, matrix({h*h}) equals scalar(h).
///  - scaled_covariance(h): H = h^2 S with S the (n-1)-denominator sample covariance of the samples
///    (unweighted), then as matrix(H).
/// Ways to describe the same H (vech, lower triangle) are converted by the CLI, not here.
struct Bandwidth {
  enum class Form : int { scalar = 0, per_dimension, matrix, scaled_covariance };
  Form form = Form::scalar;
  std::vector<double> values;  ///< h; h_1..h_d; H row-major; or h, by form

  static Bandwidth scalar(double h) { return {Form::scalar, {h}}; }
  static Bandwidth per_dimension(std::vector<double> h) { return {Form::per_dimension, std::move(h)}; }
  static Bandwidth matrix(std::vector<double> H) { return {Form::matrix, std::move(H)}; }
  static Bandwidth scaled_covariance(double h) { return {Form::scaled_covariance, {h}}; }
};

/// Explicit launch settings for experiments and `clstat-bench --tune`; 0 (or -1) means the value
/// from the device's tuning table. Values are rounded down to powers of two and clamped to what the
/// device accepts (work-group size, local memory). They never change results beyond rounding.
struct KdeLaunch {
  std::size_t work_group = 0;       ///< work-items per group
  std::size_t points_per_item = 0;  ///< points each work-item keeps in registers
  std::size_t tile = 0;             ///< samples staged per local-memory tile (>= 64)
  std::size_t unroll = 0;           ///< unroll of the sample loop (unrolled variant)
  std::size_t lanes = 0;            ///< points per vector (simd variant): 2 to 16
  int expanded_square = -1;         ///< Gaussian: 1 = exponent as y'x - |y|^2 - |x|^2 (one fma per
                                    ///< dimension), 0 = as -|y - x|^2; -1 = tuned
  int vector_rows = -1;             ///< tiled variants: 1 = pad sample rows to 16-byte vectors and
                                    ///< read local memory 16 bytes at a time, 0 = scalar reads;
                                    ///< -1 = tuned. Never changes results.
  int exp_poly = -1;                ///< Gaussian, variants naive to unrolled: of every 8 samples,
                                    ///< how many have their terms' exp2 computed by clstat's
                                    ///< polynomial on the FMA pipes instead of the device's exp2
                                    ///< (0 to 8; -1 = tuned). Both are within the accuracy the
                                    ///< precision promises, but their bits differ.
};

/// A bounded support for kde() and kde_at_samples(): data known to lie in the box
/// [lower_k, upper_k] (a bound may be -inf / +inf: that side is open; empty vectors: unbounded).
/// The plain estimate puts mass outside the box and is biased low near its faces; each method
/// gives a density that is 0 outside and integrates to 1 over the box:
///  - reflection: each sample also counts mirrored across every finite bound of its dimension
///    (Schuster 1985; Silverman 1986 sec. 2.10): f(y) = sum over the 1 + (bounds) copies per
///    dimension. Diagonal bandwidths only (scalar, per_dimension), since a correlated kernel is not
///    symmetric under a mirror. One reflection per bound: exact when the kernel's reach is at most
///    the box's width (bounded kernels: h <= upper - lower; the Gaussian loses the mass it would
///    have had after a second reflection, below 1e-9 for h <= (upper - lower) / 6).
///  - renormalisation (cut and normalise): each sample's kernel is cut at the box and scaled to
///    mass 1, f(y) = sum_j w_j K_h(y - x_j) / int_box K_h(s - x_j) ds (Jones 1993, the version
///    whose estimate integrates to 1). Diagonal bandwidths only; the masses come from the kernel
///    CDF (kde_cdf) on the device, O(n d).
///  - log_transform: for data above lower bounds (upper all +inf): the estimate of z = log(x - lower)
///    mapped back, f(y) = f_Z(log(y - lower)) / prod_k (y_k - lower_k) (Wand & Jones sec. 2.11);
///    any bandwidth form, in the log scale; dimensions with lower = -inf are not transformed.
/// Samples outside the box (or on a log bound) are refused with std::invalid_argument, as are
/// lower >= upper, sizes other than d, a non-diagonal bandwidth for the first two, leave_one_out
/// (the copies and masses are per sample) and more than 81 copies per sample. Points outside the
/// box get 0 (log: -inf). Only the host forms (kde, kde_at_samples) take a boundary; the async
/// and device-buffer forms refuse one.
struct KdeBoundary {
  enum class Method : int { none = 0, reflection, renormalisation, log_transform };
  Method method = Method::none;
  std::vector<double> lower, upper;  ///< d values each (or empty: -inf / +inf everywhere)
};

struct KdeOptions {
  Kernel kernel = Kernel::gaussian;
  Bandwidth bandwidth = Bandwidth::scalar(1.0);
  /// Empty: every sample weighs 1/n. Otherwise n finite values >= 0 with a positive sum; they are
  /// normalised to sum 1.
  std::vector<double> weights;
  Precision precision = Precision::float64;
  /// Return log f(y). Where every term underflows (far outside the data) this is -inf; on CPU
  /// devices a Gaussian term below the smallest normal number (2^-126 in float, 2^-1022 in
  /// double) counts as 0.
  bool log_density = false;
  /// Only for kde_at_samples: f_{-i}(x_i) = sum_{j != i} w_j K_H(x_i - x_j) / sum_{j != i} w_j,
  /// the leave-one-out estimate of cross-validation (Wand & Jones sec. 3.3). Needs n >= 2 and no
  /// sample holding all the weight.
  bool leave_one_out = false;
  /// A bounded support and its correction (none by default); see KdeBoundary.
  KdeBoundary boundary;
  KdeVariant variant = KdeVariant::automatic;
  KdeLaunch launch;
  /// Device memory the host forms may use for data, in bytes; 0 = a quarter of the device's
  /// global memory. Larger inputs are processed in chunks (results are identical bit for bit).
  std::size_t memory_budget_bytes = 0;
};

/// Density at m points y (m x d row-major) from n samples x (n x d row-major). Returns m values
/// (log densities if options.log_density). Chunks inputs that exceed the memory budget and
/// overlaps transfers with kernels over several queues. Blocks until done.
CLSTAT_EXPORT std::vector<double> kde(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                      const double* y, std::size_t m, const KdeOptions& options = {});
/// Density at the samples themselves (honours options.leave_one_out).
CLSTAT_EXPORT std::vector<double> kde_at_samples(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                                 const KdeOptions& options = {});

/// Kernel estimate of the distribution function, d = 1: F(y_i) = sum_j w_j Kbar((y_i - x_j) / h)
/// at m points y from n samples x, with Kbar(u) = int_{-inf}^u K(s) ds the integrated kernel
/// (Wand & Jones 1995, sec. 2.9): Phi for the Gaussian, the integrated polynomial (or cosine) of a
/// bounded kernel, 0 below -1 and 1 above. As R's ks::kcde and, for the Gaussian,
/// scipy.stats.gaussian_kde(x).integrate_box_1d(-inf, y). h is the bandwidth in the data's units
/// (scalar(h); per_dimension({h}), matrix({h*h}) and scaled_covariance(c), h = c * sd(x), are the
/// same for d = 1). options.log_density returns log F (-inf where F underflows); leave_one_out is
/// refused (std::invalid_argument), as are the inputs kde() refuses. Values are nondecreasing in
/// y up to rounding, in [0, 1], fp64 within ~1e-13 relative of the exact sum (1e-12 enforced by
/// tests/test_kde_cdf.cpp), fp32 within 2e-5 (and 1e-6 absolute). Cost: n m terms, each an erfc
/// (Gaussian) or a short polynomial; otherwise as kde(). Thread-safe as kde(). Blocks until done.
CLSTAT_EXPORT std::vector<double> kde_cdf(const Context& ctx, const double* x, std::size_t n, const double* y,
                                          std::size_t m, const KdeOptions& options = {});

/// count draws from the estimate of n samples x (n x d row-major): count x d values, row-major.
/// Each draw picks sample j with probability w_j (1/n unweighted), then adds L z, with L the lower
/// Cholesky factor of the bandwidth matrix H and z a draw of the standard kernel: normal
/// (Box-Muller) for the Gaussian, any bandwidth form; for the bounded kernels one draw per
/// dimension by inverting the integrated kernel (kde_cdf's), diagonal bandwidths only. As
/// scipy.stats.gaussian_kde.resample and sklearn's KernelDensity.sample. Draw i uses its own
/// Philox4x32-10 stream of (seed, i) and is computed on the host (O(d^2) each, no pair sum), so a
/// seed gives the same bits on every device and any prefix of a longer run. precision, variant,
/// launch and log_density do not apply; leave_one_out and a boundary are refused, as are the
/// inputs kde() refuses and count > 2^40 (std::invalid_argument). Thread-safe. O(count d^2 +
/// count log n).
CLSTAT_EXPORT std::vector<double> kde_sample(const Context& ctx, const double* x, std::size_t n, std::size_t d,
                                             std::size_t count, std::uint64_t seed, const KdeOptions& options = {});

/// Vector form: x holds n x d values, y m x d (row-major). Throws std::invalid_argument when
/// either size is not a multiple of d (a ragged table is never silently truncated), else as kde().
inline std::vector<double> kde(const Context& ctx, const std::vector<double>& x, std::size_t d,
                               const std::vector<double>& y, const KdeOptions& options = {}) {
  if (d != 0 && (x.size() % d != 0 || y.size() % d != 0))
    throw std::invalid_argument("clstat::kde: " + std::to_string(x.size()) + " sample values and " +
                                std::to_string(y.size()) + " point values are not whole rows of d = " +
                                std::to_string(d));
  return kde(ctx, x.data(), d ? x.size() / d : 0, d, y.data(), d ? y.size() / d : 0, options);
}

/// Asynchronous form of kde() on one queue: enqueues after `wait` and returns at once. The inputs
/// are copied (converted to the device precision) before returning, so the caller's arrays may be
/// reused immediately. get() returns what kde() would.
CLSTAT_EXPORT Future<std::vector<double>> kde_async(const Queue& q, const double* x, std::size_t n, std::size_t d,
                                                    const double* y, std::size_t m, const KdeOptions& options = {},
                                                    const std::vector<Event>& wait = {});

/// Device-buffer form: samples (n x d, row-major from element x_offset of x) and points (m x d
/// from y_offset of y) already on the device in T (float or double, matching options.precision);
/// writes m values to out[out_offset .. out_offset + m). leave_one_out evaluates at the samples
/// and ignores y (pass x again). Inputs at a nonzero offset are first copied to scratch on the
/// device (O((n + m) d)). Uses scratch memory of about (n + m)(d + 2) values; throws
/// UnsupportedFeature if that cannot be allocated. Returns the event of the last command.
template <class T>
CLSTAT_EXPORT Event kde_async(const Queue& q, const Buffer<T>& x, std::size_t x_offset, std::size_t n, std::size_t d,
                              const Buffer<T>& y, std::size_t y_offset, std::size_t m, const Buffer<T>& out,
                              std::size_t out_offset, const KdeOptions& options = {},
                              const std::vector<Event>& wait = {});

/// The normalising constant of `kernel` in its spherically symmetric d-dimensional form: the
/// integral of k(|v|) over R^d (k as in kde_shapes: 1 - v'v for the Epanechnikov, ...). For
/// d = 1 these are 1 / (the constants above). Exposed for tests and for bandwidth selection.
/// O(1). Throws std::invalid_argument for d = 0 or an unknown kernel.
CLSTAT_EXPORT double radial_kernel_integral(Kernel kernel, std::size_t d);

}  // namespace clstat
