// Internal pieces the fitting methods share (src/stable/fit_*.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "clstat/stable.hpp"
#include "runtime/impl.hpp"
#include "stable/interpolant.hpp"

namespace clstat::stable::fit_detail {

/// Sample quantiles at 0.05, 0.25, 0.5, 0.75, 0.95 of sorted data, McCulloch's convention: the
/// i-th order statistic (1-based) is the (i - 0.5)/n quantile, linear in between, clamped at the ends.
struct Quantiles {
  double q05, q25, q50, q75, q95;
};
Quantiles sample_quantiles(const std::vector<double>& sorted);
/// The same from n values' order statistics, at(i) the i-th smallest (0-based); it reads only
/// those of sample_quantile_ranks(n).
Quantiles sample_quantiles(std::size_t n, const std::function<double(std::size_t)>& at);
std::vector<std::size_t> sample_quantile_ranks(std::size_t n);

/// McCulloch's estimate (S0), alpha in [0.3, 2] (the table's range).
Params mcculloch(const Quantiles& q);
/// McCulloch's scale and location for a given (alpha, beta) (alpha below 0.3 uses 0.3's functions).
Params mcculloch_scale_loc(const Quantiles& q, double alpha, double beta);

/// Koutrouvelis' iterated regressions from `start` (S0); sets *rounds and *converged.
Params koutrouvelis(const double* x, std::size_t n, const Params& start, double tol, int max_rounds, int* rounds,
                    bool* converged);

/// The interpolants loglik_many built or used in its last call (keyed by S0 alpha, beta), for the
/// next: one per fit, not shared between threads.
struct LoglikCache {
  std::map<std::pair<double, double>, std::shared_ptr<const interp::Table>> tables;
  /// The last call's sets on the device, and which sets (address and size) they were: an MLE
  /// asks about the same sets every step (the caller keeps them unchanged meanwhile).
  std::vector<std::pair<const void*, std::size_t>> sets;
  cl::Buffer x;
};

/// Log-likelihoods of data set s under each of laws[s], for all s, in one device pass
/// (src/stable/loglik.cpp): sums of logpdf (-inf outside a support), each set's through its laws'
/// interpolants when it has stable.interp_points points or more. The data hold no NaN.
std::vector<std::vector<double>> loglik_many(const Context& ctx, const std::vector<const std::vector<double>*>& data,
                                             const std::vector<std::vector<Params>>& laws,
                                             LoglikCache* cache = nullptr);

}  // namespace clstat::stable::fit_detail
