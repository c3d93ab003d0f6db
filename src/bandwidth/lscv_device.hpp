// Internal: the device side of LSCV, in fp64 (cl/bandwidth/lscv.cl, cl/bandwidth/pair_sums.cl).
#pragma once

#include <memory>
#include <vector>

#include "bandwidth/bandwidth_input.hpp"
#include "clstat/exchange.hpp"
#include "clstat/runtime.hpp"

namespace clstat::bandwidth_detail {

/// The packed squared distances D_ij = |z_i - z_j|^2 (i < j) of the whitened points
/// z_i = A (x_i - mu), for LSCV_h. Stored once when they fit in `budget` bytes; otherwise
/// recomputed block by block every pass.
class PairDistances {
 public:
  /// x: the caller's n x d row-major data; the upload is not waited for, so x must outlive the
  /// object (the destructor waits for the queue). A lower triangular d x d, mu the column means.
  /// q: a queue the caller holds for the object's life (its buffers are q's scratch). The pairs
  /// are those (i, j > i) of rows row_first <= i < row_last (clamped to n - 1): all by default, a
  /// device group member's share otherwise.
  PairDistances(const Queue& q, const char* op, const double* x, std::size_t n, std::size_t d, const Mat& A,
                const Eigen::VectorXd& mu, std::size_t budget, std::size_t row_first = 0,
                std::size_t row_last = static_cast<std::size_t>(-1));
  ~PairDistances();

  /// Every h the search evaluated, in order, with s4 = sum_{i<j} exp(-D_ij / (4 h^2)) and
  /// s2 = sum_{i<j} exp(-D_ij / (2 h^2)).
  struct Trace {
    std::vector<double> h, s4, s2;
  };
  /// One pass over the pairs for all of `grid` (ascending), then `passes` zoom passes of
  /// `points` h values each, every one inside the bracket around the previous pass's best
  /// (lscv_zoom, on the device), with a single wait at the end.
  Trace search(const std::vector<double>& grid, std::size_t passes, std::size_t points);
  /// search() in two halves: start() enqueues it (and flushes), finish() waits and returns its
  /// trace, so that the members of a group search at once from one host thread.
  void start(const std::vector<double>& grid, std::size_t passes, std::size_t points);
  Trace finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Data kept on the device in fp64, whitened anew per H, for LSCV_H and lscv_objective.
class WhitenedPairs {
 public:
  /// x: n x d row-major (host); centred on its mean before upload.
  WhitenedPairs(const Context& ctx, const char* op, const double* x, std::size_t n, std::size_t d);
  /// The same over several devices (a DeviceGroup's members and weights): each pass's tiles of
  /// the pair triangle dealt by the weights, every device computing its tiles' partials with the
  /// first device's tile shape, the merge on the first: the first device's sums bit for bit on
  /// devices of one type.
  WhitenedPairs(const std::vector<Context>& devices, const std::vector<double>& weights, const char* op,
                const double* x, std::size_t n, std::size_t d);
  /// The same over processes (clstat/exchange.hpp): x is all the data on every process; the
  /// tiles dealt to the processes in rank order, rank 0's tile shape, every process's partials
  /// gathered by all and merged by each, and rank 0's sums taken by every process. Collective:
  /// every process constructs and calls sums() alike.
  WhitenedPairs(const Context& ctx, Exchange& ex, const char* op, const double* x, std::size_t n, std::size_t d);
  ~WhitenedPairs();
  /// With A lower triangular (d x d) and q_ij = |A (x_i - x_j)|^2: s4 = sum_{i<j} exp(-q/4),
  /// s2 = sum_{i<j} exp(-q/2), in one fused pass (pair_sums.cl, one exp per pair).
  /// Thread-safe: each call holds a queue of the context for its passes.
  void sums(const Mat& A, double& s4, double& s2) const;

 private:
  void exchange_sums(const std::vector<double>& a, double& s4, double& s2) const;
  struct Member;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// LSCV(H) from the two pair sums: (4 pi)^(-d/2) |H|^(-1/2) [1/n + 2 s4 / n^2 - 2^(d/2+2) s2 / (n (n-1))].
double lscv_value(double log_det_H, std::size_t n, std::size_t d, double s4, double s2);

}  // namespace clstat::bandwidth_detail
