// clstat/primitives.hpp: deterministic reductions and tiled pairwise sums.
//
// Determinism. Every result here is a fixed function of the input values and their order: it
// does not change with the work-group size, the number of work-groups or the device, because the
// partial results are combined in one canonical tree (see cl/common/reduce_tree.clh). The
// arithmetic is IEEE round-to-nearest with contraction disabled, so two conforming devices give
// the same bits for the reductions (GPUs and CPUs run different kernels for the first stage, with
// the same tree: reduce_slots.clh); the pairwise sums' exp may differ in the last bits between
// devices (it is not correctly rounded in OpenCL), but never between runs or work-group sizes.
//
// Types. T is float or double. double needs a device with fp64 (else UnsupportedFeature).
//
// Errors. n == 0, a null pointer with n > 0, a range past the end of a buffer, or a bad
// parameter raise std::invalid_argument naming the function and the problem. OpenCL failures
// raise clstat::Error.
//
// Host-array forms copy the data to the device (in chunks of 2^27 elements, or the largest power
// of two the device can allocate, whose results are merged on the host in order) and wait.
// Device-buffer forms are asynchronous: they enqueue on `q` after `wait` and return a Future
// whose get() blocks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "clstat/export.hpp"
#include "clstat/runtime.hpp"

namespace clstat {

// ----------------------------------------------------------------------------------------------
// Reductions. One read of the data, O(n) work; a few small extra launches of O(n / 2^18) work.

/// Element transforms for transform_reduce: the sum of t(x_i; c).
enum class Transform : int {
  identity = 0,  ///< x
  abs = 1,       ///< |x|
  square = 2,    ///< x^2
  abs_dev = 3,   ///< |x - c|      (cutting-plane objective, Beliakov 2011)
  sq_dev = 4,    ///< (x - c)^2    (centred second moment)
  pos_dev = 5,   ///< max(x - c, 0)
  neg_dev = 6,   ///< max(c - x, 0)
};

/// Predicates for count_if, with parameters a (and b for in_range).
enum class Predicate : int {
  is_nan = 0, is_inf = 1, is_finite = 2,
  less = 3,           ///< x < a
  less_equal = 4,     ///< x <= a
  greater = 5,        ///< x > a
  greater_equal = 6,  ///< x >= a
  equal = 7,          ///< x == a
  not_equal = 8,      ///< x != a (true for NaN)
  in_range = 9,       ///< a <= x <= b
};

/// Minimum and maximum with the index of their first occurrence. NaN policy as NumPy: any NaN
/// makes both results NaN, with the index of the first NaN.
template <class T>
struct Extrema {
  T min, max;
  std::uint64_t argmin, argmax;
};

/// Count, mean and M2 = sum (x_i - mean)^2, merged by Chan et al.'s pairwise formula.
template <class T>
struct Moments {
  std::uint64_t count;
  T mean, m2;
  /// m2 / (count - ddof): ddof = 1 is R's var() and the unbiased estimator, ddof = 0 NumPy's
  /// default. Throws std::invalid_argument if count <= ddof.
  T variance(unsigned ddof = 1) const {
    if (count <= ddof) throw std::invalid_argument("clstat::Moments::variance: count <= ddof");
    return m2 / static_cast<T>(count - ddof);
  }
};

/// Sum with compensated (TwoSum) accumulation: for double data, within a few ulp of the exact
/// sum even for inputs such as (1e16, 1, -1e16) repeated. NaN and Inf propagate (IEEE); a sum
/// whose running value overflows returns Inf.
template <class T> CLSTAT_EXPORT T sum(const Context& ctx, const T* x, std::size_t n);
template <class T> CLSTAT_EXPORT Future<T> sum_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                     std::size_t n, const std::vector<Event>& wait = {});

/// Compensated sum of t(x_i; c) for a built-in Transform. NaN propagates.
template <class T> CLSTAT_EXPORT T transform_reduce(const Context& ctx, const T* x, std::size_t n, Transform t, T c = T(0));
template <class T> CLSTAT_EXPORT Future<T> transform_reduce_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                                  std::size_t n, Transform t, T c,
                                                                  const std::vector<Event>& wait = {});

/// Minimum, maximum, argmin, argmax in one pass (indices relative to the first element).
template <class T> CLSTAT_EXPORT Extrema<T> extrema(const Context& ctx, const T* x, std::size_t n);
template <class T> CLSTAT_EXPORT Future<Extrema<T>> extrema_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                                  std::size_t n, const std::vector<Event>& wait = {});

/// Exact 64-bit count of the elements satisfying `p` (parameters a, b; see Predicate).
template <class T> CLSTAT_EXPORT std::uint64_t count_if(const Context& ctx, const T* x, std::size_t n, Predicate p,
                                                        T a = T(0), T b = T(0));
template <class T> CLSTAT_EXPORT Future<std::uint64_t> count_if_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                                      std::size_t n, Predicate p, T a, T b,
                                                                      const std::vector<Event>& wait = {});

/// Count, mean and M2: within a slot, blocks of eight elements (their mean and M2 directly) joined by
/// Chan's merge, Welford's update for the slot's last few; Chan's merge between slots. NaN propagates.
template <class T> CLSTAT_EXPORT Moments<T> moments(const Context& ctx, const T* x, std::size_t n);
template <class T> CLSTAT_EXPORT Future<Moments<T>> moments_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                                  std::size_t n, const std::vector<Event>& wait = {});

// ----------------------------------------------------------------------------------------------
// Batched reductions: x is a row-major rows x cols matrix and each row is reduced on its own, all
// rows in one launch (a work-group a row), for the many small reductions of a bootstrap or a
// fit. Row r's result is what sum / moments of that row alone return, bit for bit (same slots,
// same tree). rows >= 1, cols >= 1 (std::invalid_argument otherwise, or when the matrix runs past
// the buffer). O(rows cols) work, one read of the matrix; the host forms upload it first (rows x
// cols elements must fit one allocation of the device: UnsupportedFeature otherwise). The
// *_async forms read rows x cols elements of `x` from element `offset`.

template <class T> CLSTAT_EXPORT std::vector<T> sum_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols);
template <class T> CLSTAT_EXPORT Future<std::vector<T>> sum_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                                       std::size_t rows, std::size_t cols,
                                                                       const std::vector<Event>& wait = {});
template <class T> CLSTAT_EXPORT std::vector<Moments<T>> moments_rows(const Context& ctx, const T* x, std::size_t rows,
                                                                      std::size_t cols);
template <class T> CLSTAT_EXPORT Future<std::vector<Moments<T>>> moments_rows_async(const Queue& q, const Buffer<T>& x,
                                                                                    std::size_t offset, std::size_t rows,
                                                                                    std::size_t cols,
                                                                                    const std::vector<Event>& wait = {});

// ----------------------------------------------------------------------------------------------
// Pairwise sums. O(n^2 d / 2) work (triangle) or O(m n d) (points); each point is read once per
// tile of 512, 256 or 128 points (d <= 4, <= 16, <= 64).

/// The pair function f_p(q) of the squared distance q, with one parameter p per output.
enum class PairFunction : int {
  gaussian = 0,  ///< exp(-p q)               (bandwidth h: p = 1 / (2 h^2))
  gauss_d4 = 1,  ///< phi^(4)(u), u^2 = p q   (p = 1 / g^2; Wand & Jones psi_4 sums)
  gauss_d6 = 2,  ///< phi^(6)(u), u^2 = p q
  distance = 3,  ///< sqrt(q)                 (p ignored: sum of Euclidean distances)
  within = 4,    ///< 1 if q <= p else 0      (pairs within radius sqrt(p))
};

/// The largest dimension the pairwise kernels are compiled for.
constexpr std::size_t pairwise_max_dim = 64;

/// S_k = sum over i < j of f_{p_k}(q_ij), q_ij = |x_i - x_j|^2, for every parameter p_k.
/// x is row-major n x d (one point a row); 2 <= n < 2^32, 1 <= d <= pairwise_max_dim;
/// params non-empty and finite. Terms are evaluated in T; they are accumulated in double where
/// the device has fp64, else in compensated float, and the result does not depend on the
/// work-group size. Non-finite coordinates propagate per IEEE (no check). Outputs are computed 16
/// per pass over the pairs.
template <class T> CLSTAT_EXPORT std::vector<double> pairwise_sum(const Context& ctx, const T* x, std::size_t n,
                                                                  std::size_t d, PairFunction f,
                                                                  const std::vector<double>& params);
/// The same on device data: n row-major points from element `offset` of x (point i's coordinate a
/// at x[offset + i * d + a]), after `wait`. The points are first copied to a dimension-major
/// scratch buffer on the device (O(n d), no rounding), except for d = 1 at offset 0.
template <class T> CLSTAT_EXPORT Future<std::vector<double>> pairwise_sum_async(
    const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n, std::size_t d, PairFunction f,
    const std::vector<double>& params, const std::vector<Event>& wait = {});

/// out[k * m + i] = sum over j of f_{p_k}(|y_i - x_j|^2): every target against every sample.
/// y is row-major m x d, x row-major n x d; m, n >= 1 and < 2^32. Returns params.size() * m values.
template <class T> CLSTAT_EXPORT std::vector<T> pairwise_points_sum(const Context& ctx, const T* y, std::size_t m,
                                                                    const T* x, std::size_t n, std::size_t d,
                                                                    PairFunction f, const std::vector<double>& params);
/// The same on device data, row-major from the given element offsets, writing
/// out[out_offset + k * m + i] (params.size() * m elements) after `wait`; returns the last
/// kernel's event. The points are copied dimension-major on the device first, as above.
template <class T> CLSTAT_EXPORT Event pairwise_points_sum_async(const Queue& q, const Buffer<T>& y,
                                                                 std::size_t y_offset, std::size_t m,
                                                                 const Buffer<T>& x, std::size_t x_offset,
                                                                 std::size_t n, std::size_t d, PairFunction f,
                                                                 const std::vector<double>& params,
                                                                 const Buffer<T>& out, std::size_t out_offset,
                                                                 const std::vector<Event>& wait = {});

}  // namespace clstat
