// clstat/order.hpp: exact order statistics — k-th smallest, medians and the nine sample quantile
// types — by selection on the device, without sorting the data.
//
// Types. T is float, double, std::int32_t or std::int64_t (double needs a device with fp64, else
// UnsupportedFeature). Counts and ranks are 64-bit.
//
// Order. Values are ranked by IEEE totalOrder: -Inf < negative values < -0 < +0 < positive values
// < +Inf, so -0 ranks before +0 (they compare equal, so a sort with operator< may place them
// either way; ours is the stable choice). NaNs follow the NanPolicy:
//   propagate (default)  any NaN makes every result NaN (for floating T), as R's median(x) and
//                        NumPy's median; kth_smallest returns NaN too.
//   omit                 NaNs are dropped first, so n counts only the other values, as R's
//                        na.rm = TRUE and numpy.nanmedian. With every value NaN, median and
//                        quantiles return NaN and kth_smallest raises out_of_range.
//   raise                any NaN raises std::invalid_argument naming how many there are.
// Integer T has no NaN.
//
// Methods (Options::method).
//   radix      MSD radix selection on the order-preserving bit pattern of the keys: each pass
//              reads the candidates once, histograms the next 6..12-bit digit of the candidates
//              in local memory and, once few enough remain, copies them to a small buffer that
//              later passes read instead; a single work-group sorts the last few thousand.
//              For up to 64 ranks (n >= 2^20) in at most 16 clusters, each within 2% of n (a
//              median, one k, close quantiles, or up to 16 spread quantiles), a sampled bracket
//              per cluster comes first, and one pass over the data counts the keys below each
//              bracket and copies the few percent inside them, so the data are read once (a
//              median, or up to 4 close ranks, also waits for the device only once; spread ranks
//              wait two or three times more, for passes over the copies). Other ranks read the
//              data two or three times. Memory: two candidate buffers of at most max(2^16, n/8)
//              keys (capped at 2^26) and O(4096 x compute units) counters. Exact in every case:
//              the brackets only decide which keys are read again, and one that misses its
//              targets is detected (those ranks then take the plain passes).
//   cutting_plane  Beliakov (2011)'s method, made exact: Kelley's cutting planes on the convex
//              F(y) = sum max(y - x_i, 0) - (k - 1/2) y (no log transform; a step outside the
//              bracket bisects it in key space) until at most max(2^15, n/16) values lie
//              strictly inside the bracket (the paper's hybrid: a few steps, then select);
//              those are copied on the device and selected exactly (on the host up to 2^15,
//              else by radix selection), the ties at the bracket's ends counted. Close ranks
//              share the bracket. Each step reads the data once. Float and double without
//              NaN; integer input or NaNs are answered by radix.
//   sort       the baseline: sorts a copy of the keys with Boost.Compute and reads the ranks.
//              O(n log n) work, 2n keys of memory.
//   automatic  radix.
// Several k or probabilities in one call share the passes (radix: up to 64 targets per batch of
// passes).
//
// Complexity (every function below). radix: O(n) work and O(1) reads of the data per call, as
// above, whatever k; cutting_plane: one read per step (at most 64 bisection steps past the
// cutting planes; four or five on the paper's distributions, each halving the bracket) plus one
// copy of at most max(2^15, n/16) values and their exact selection;
// sort: O(n log n). Host-array forms add one upload of n values. Results are exact, so none
// depends on the method or the device.
//
// Errors. n == 0, a null pointer, a range past the end of a buffer, k outside 1..n, a
// probability outside [0, 1] or NaN, a type outside 1..9 raise std::invalid_argument (k past the
// number of non-NaN values under omit raises std::out_of_range). OpenCL failures raise
// clstat::Error; an input larger than the device's largest allocation raises UnsupportedFeature.
//
// Host-array forms copy the data to the device and wait. The *_async forms read n elements of
// `x` from element `offset` after the events of `wait`, on queue `q`, and return at once: the
// selection waits for each pass's small histogram (a few host round trips per call) in a task of
// its own, which holds q until it is done (clstat/runtime.hpp). The Future's event completes
// when the result is known.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "clstat/export.hpp"
#include "clstat/runtime.hpp"

namespace clstat::order {

enum class Method { automatic = 0, radix = 1, sort = 2, cutting_plane = 3 };
enum class NanPolicy { propagate = 0, omit = 1, raise = 2 };

struct Options {
  Method method = Method::automatic;
  NanPolicy nan = NanPolicy::propagate;
};

/// The k-th smallest value, k = 1 for the minimum and k = n for the maximum (1-based, as
/// torch.kthvalue; numpy.partition's kth is k - 1).
template <class T>
CLSTAT_EXPORT T kth_smallest(const Context& ctx, const T* x, std::size_t n, std::uint64_t k, const Options& o = {});
/// Several order statistics in one set of passes; result i is the ks[i]-th smallest.
template <class T>
CLSTAT_EXPORT std::vector<T> kth_smallest(const Context& ctx, const T* x, std::size_t n,
                                          const std::vector<std::uint64_t>& ks, const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<std::vector<T>> kth_smallest_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                        std::size_t n, const std::vector<std::uint64_t>& ks,
                                                        const Options& o = {}, const std::vector<Event>& wait = {});

/// The median: the middle value for odd n, the mean of the two middle values for even n (as R
/// and NumPy), returned as double. For float and int32 input the mean is exact; for double it is
/// (a + b) / 2 correctly rounded, without overflow; for int64 it is rounded to the nearest double.
template <class T>
CLSTAT_EXPORT double median(const Context& ctx, const T* x, std::size_t n, const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<double> median_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                          const Options& o = {}, const std::vector<Event>& wait = {});

/// The lower median, the (floor((n + 1) / 2))-th smallest, and the upper median, the
/// (floor(n / 2) + 1)-th smallest (Python's statistics.median_low / median_high).
template <class T>
CLSTAT_EXPORT T median_low(const Context& ctx, const T* x, std::size_t n, const Options& o = {});
template <class T>
CLSTAT_EXPORT T median_high(const Context& ctx, const T* x, std::size_t n, const Options& o = {});

/// The k largest (or smallest) values with their indices (0-based, relative to the first
/// element), ordered from the largest down (or the smallest up); among equal values the lower
/// index comes first, so the result is deterministic. NaN policy: propagate ranks NaNs above
/// +Inf (as torch.topk and NumPy's sort), omit leaves them out, raise throws. k = 0 gives empty
/// lists; k > n (or > the non-NaN count under omit), or n >= 2^32, raises std::invalid_argument.
/// Work: one selection for the threshold, one pass gathering the values beyond it and the indices
/// of the values equal to it (device memory for up to n of each), and an O(k log k) host sort.
template <class T>
struct TopK {
  std::vector<T> values;
  std::vector<std::uint64_t> indices;
};
template <class T>
CLSTAT_EXPORT TopK<T> top_k(const Context& ctx, const T* x, std::size_t n, std::uint64_t k, bool largest = true,
                            const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<TopK<T>> top_k_async(const Queue& q, const Buffer<T>& x, std::size_t offset, std::size_t n,
                                          std::uint64_t k, bool largest = true, const Options& o = {},
                                          const std::vector<Event>& wait = {});

/// Sample quantiles of Hyndman & Fan (1996) type 1..9, computed exactly as R's
/// quantile(x, probs, type) (R >= 4.0, including its 4 * DBL_EPSILON fuzz for types 4-9 and its
/// skip of the interpolation between equal values), in double; type 7 is R's and NumPy's default.
/// Every probability needs at most two order statistics; all of them share the passes.
template <class T>
CLSTAT_EXPORT std::vector<double> quantiles(const Context& ctx, const T* x, std::size_t n,
                                            const std::vector<double>& probs, int type = 7, const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<std::vector<double>> quantiles_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                          std::size_t n, const std::vector<double>& probs,
                                                          int type = 7, const Options& o = {},
                                                          const std::vector<Event>& wait = {});

// ----------------------------------------------------------------------------------------------
// Weighted quantiles. Value i carries weight w[i] (finite, >= 0; a frequency, a survey weight or
// a probability: only ratios matter for type 1). C(v) is the summed weight of the values <= v and
// W = C(+Inf) the total. Two definitions, each reducing to quantiles() of the same type when
// every weight is 1:
//   type 1  the inverse of the weighted CDF: the smallest value v with C(v) / W >= p, the ratio
//           rounded to double as NumPy compares it (for p = 0, the smallest value of positive
//           weight): numpy.quantile(x, p, weights = w, method = "inverted_cdf") (NumPy >= 2.0,
//           its only weighted method), with its cumulative sums exact.
//   type 7  the linear rule on frequency weights, as R's Hmisc::wtd.quantile(x, w, p) (type =
//           "quantile", normwt = FALSE): with h = 1 + (W - 1) p in double, as R computes it, the
//           values at positions lo = max(floor(h), 1) and hi = min(lo + 1, W), weighted
//           1 - (h mod 1) and h mod 1, where the value at position t is the smallest v with
//           C(v) >= t. With whole-number weights this is quantile(rep(x, w), p, type = 7); W is
//           in the weights' own units (weights summing to 1 put every position at the largest
//           value).
// Exactness. Each weight is truncated to the integer q = floor(w 2^s): s = 78 - ilogb(m), m the
// largest weight of a strided sample of 16384 of them, or s = 94 - ilogb(max w) for n <= 32768 and
// where a weight is too large for the sample's s (q would reach 2^95). So s depends on the data
// only, and every sum of the q is an exact 128-bit integer: every cumulative weight the
// definitions compare is exact (for the truncated weights, which sum to within n 2^-78 max(w) of
// the given ones; whole-number weights below 2^78 / n are not truncated) and the result is the
// same on every device. A weight below 2^-s (at most 2^-78 max(w)) counts as zero; a value of
// zero weight is never the answer.
// W is the exact total rounded to double once; R sums the weights in double, so its W, and type
// 7's h mod 1, may differ from this one in the last bits.
// NaN policy on x as quantiles(); a NaN value's weight is ignored under omit.
// Work: one read of values and weights (a sample's brackets around each target, the exact weight
// below each bracket and a copy of the values in it, the weights' check; a second where the
// sample missed a weight too large for its scale, and a read of the weights first for n <= 32768), and a host sort of the few candidates that hold each target (or more passes over a
// larger bracket's copy). Device memory: two copies of up to about twice the sampled brackets'
// values. n < 2^32.
// Errors: as quantiles(), and std::invalid_argument for a null weights pointer, a weight that is
// negative, NaN or infinite, weights that sum to zero (over the values that are not NaN), a type
// other than 1 or 7, or Options::method other than automatic or radix. A device without fp64
// raises UnsupportedFeature (the weights are doubles). Thread-safe as every call on a shared
// Context (clstat/runtime.hpp).

/// Result i is the weighted quantile of type 1 or 7 at probs[i].
template <class T>
CLSTAT_EXPORT std::vector<double> weighted_quantiles(const Context& ctx, const T* x, const double* w, std::size_t n,
                                                     const std::vector<double>& probs, int type,
                                                     const Options& o = {});
/// The weighted median: type 1 at p = 1/2, the smallest value with at least half the weight at
/// or below it (the lower weighted median).
template <class T>
CLSTAT_EXPORT double weighted_median(const Context& ctx, const T* x, const double* w, std::size_t n,
                                     const Options& o = {});
/// Reads n values of x and of w, each from element `offset`.
template <class T>
CLSTAT_EXPORT Future<std::vector<double>> weighted_quantiles_async(const Queue& q, const Buffer<T>& x,
                                                                   const Buffer<double>& w, std::size_t offset,
                                                                   std::size_t n, const std::vector<double>& probs,
                                                                   int type, const Options& o = {},
                                                                   const std::vector<Event>& wait = {});

// ----------------------------------------------------------------------------------------------
// Batched forms: x is a row-major rows x cols matrix and each row is one data set (NaN policy per
// row: under propagate a row with a NaN gives NaN results, under raise any NaN throws naming its
// row, under omit each row drops its own NaNs). All rows go in one launch that reads the matrix
// once (once more for each further 64 ranks a row). On GPUs a row of up to 32 values a
// work-item (8192 with 256-wide groups) is selected by one work-group: for one or two ranks a
// sampled bracket and local counting per distinct rank, O(rows * ranks * cols / WG) work per
// work-item; for more, one pass placing every value among 127 sampled splitters
// (O(rows * cols * log 128 / WG)) and a local ranking of the few values in the ranks' buckets.
// On CPUs (the tunable order.rows_seq) a row of up to 8192 values is selected by one work-item
// in local memory, by introselect: O(cols) expected per distinct rank, ranks sharing
// partitions, O(cols log cols) at worst. Rows with NaNs under omit take a second launch over
// just those rows. Longer rows take the radix selection one after another (O(rows) launches).
// rows >= 1 and cols >= 1. Exact, as the single-array forms: the same values bit for bit,
// whichever form runs.

// The *_async forms read rows x cols elements of `x` from element `offset`.
/// Result [r * ks.size() + j] is the ks[j]-th smallest value of row r.
template <class T>
CLSTAT_EXPORT std::vector<T> kth_smallest_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols,
                                               const std::vector<std::uint64_t>& ks, const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<std::vector<T>> kth_smallest_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                             std::size_t rows, std::size_t cols,
                                                             const std::vector<std::uint64_t>& ks,
                                                             const Options& o = {},
                                                             const std::vector<Event>& wait = {});
/// Row r's k largest (or smallest) values and their column indices, as top_k() on that row
/// (torch.topk(x, k, dim=1)): values[r * k + j] and indices[r * k + j], from the largest down (or
/// the smallest up), the lower column first among equal values. NaN policy per row as top_k
/// (propagate ranks NaNs above +Inf, omit leaves them out, raise throws naming the row). k = 0
/// gives empty lists; k > cols, or k past a row's non-NaN count under omit, throws
/// std::invalid_argument. Work: the rows' thresholds by the rows kernel, one more read of the
/// matrix gathering each row's k, and an O(rows k log k) host sort; rows too long for the rows
/// kernel take top_k one row after another. Thread-safe as every call on a shared Context
/// (clstat/runtime.hpp).
template <class T>
CLSTAT_EXPORT TopK<T> top_k_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols, std::uint64_t k,
                                 bool largest = true, const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<TopK<T>> top_k_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                               std::size_t rows, std::size_t cols, std::uint64_t k,
                                               bool largest = true, const Options& o = {},
                                               const std::vector<Event>& wait = {});
/// The median of each row, as median().
template <class T>
CLSTAT_EXPORT std::vector<double> median_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols,
                                              const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<std::vector<double>> median_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                            std::size_t rows, std::size_t cols, const Options& o = {},
                                                            const std::vector<Event>& wait = {});
/// Result [r * probs.size() + j] is row r's weighted quantile (type 1 or 7) at probs[j], with
/// weights w in the same rows x cols layout: weighted_quantiles() on each row, bit for bit (each
/// row's scale s from its own weights). Rows run one after another over one upload of x and w
/// (O(rows) launches, about 0.1 to 0.5 ms a row on a GPU): for many short rows this is the
/// convenient form, not yet the fast one. Errors as weighted_quantiles(), naming the row, and
/// std::invalid_argument for rows or cols of 0 or a null pointer. Thread-safe as every call on a
/// shared Context (clstat/runtime.hpp).
template <class T>
CLSTAT_EXPORT std::vector<double> weighted_quantiles_rows(const Context& ctx, const T* x, const double* w,
                                                          std::size_t rows, std::size_t cols,
                                                          const std::vector<double>& probs, int type,
                                                          const Options& o = {});
/// Reads rows x cols values of x and of w, each from element `offset`.
template <class T>
CLSTAT_EXPORT Future<std::vector<double>> weighted_quantiles_rows_async(const Queue& q, const Buffer<T>& x,
                                                                        const Buffer<double>& w, std::size_t offset,
                                                                        std::size_t rows, std::size_t cols,
                                                                        const std::vector<double>& probs, int type,
                                                                        const Options& o = {},
                                                                        const std::vector<Event>& wait = {});
/// Result [r * probs.size() + j] is row r's quantile at probs[j], as quantiles().
template <class T>
CLSTAT_EXPORT std::vector<double> quantiles_rows(const Context& ctx, const T* x, std::size_t rows, std::size_t cols,
                                                 const std::vector<double>& probs, int type = 7, const Options& o = {});
template <class T>
CLSTAT_EXPORT Future<std::vector<double>> quantiles_rows_async(const Queue& q, const Buffer<T>& x, std::size_t offset,
                                                               std::size_t rows, std::size_t cols,
                                                               const std::vector<double>& probs, int type = 7,
                                                               const Options& o = {},
                                                               const std::vector<Event>& wait = {});

}  // namespace clstat::order
