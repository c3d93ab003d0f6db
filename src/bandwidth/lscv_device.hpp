// Internal: the device side of LSCV, in fp64 (cl/bandwidth/lscv.cl).
#pragma once

#include <memory>
#include <vector>

#include "bandwidth/bandwidth_input.hpp"
#include "clstat/runtime.hpp"

namespace clstat::bandwidth_detail {

/// The packed squared distances D_ij = |z_i - z_j|^2 (i < j) of whitened points z, for LSCV_h.
/// Stored once when they fit in `budget` bytes; otherwise recomputed block by block every pass.
class PairDistances {
 public:
  /// z: n x d row-major (host), already whitened.
  PairDistances(const Context& ctx, const char* op, const Mat& z, std::size_t budget);
  ~PairDistances();
  /// For every c_k: s4[k] = sum_{i<j} exp(-c_k D_ij), s2[k] = sum_{i<j} exp(-2 c_k D_ij).
  /// One pass over the pairs for all k.
  void sums(const std::vector<double>& c, std::vector<double>& s4, std::vector<double>& s2);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Data kept on the device in fp64, whitened anew per H, for LSCV_H and lscv_objective.
class WhitenedPairs {
 public:
  /// x: n x d row-major (host); centred on its mean before upload.
  WhitenedPairs(const Context& ctx, const char* op, const double* x, std::size_t n, std::size_t d);
  ~WhitenedPairs();
  /// With A lower triangular (d x d) and q_ij = |A (x_i - x_j)|^2: s4 = sum_{i<j} exp(-q/4),
  /// s2 = sum_{i<j} exp(-q/2), in one pass of the pairwise engine.
  void sums(const Mat& A, double& s4, double& s2);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// LSCV(H) from the two pair sums: (4 pi)^(-d/2) |H|^(-1/2) [1/n + 2 s4 / n^2 - 2^(d/2+2) s2 / (n (n-1))].
double lscv_value(double log_det_H, std::size_t n, std::size_t d, double s4, double s2);

}  // namespace clstat::bandwidth_detail
