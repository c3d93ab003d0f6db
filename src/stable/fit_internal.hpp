// Internal pieces the fitting methods share (src/stable/fit_*.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "clstat/stable.hpp"

namespace clstat::stable::fit_detail {

/// Sample quantiles at 0.05, 0.25, 0.5, 0.75, 0.95 of sorted data, McCulloch's convention: the
/// i-th order statistic (1-based) is the (i - 0.5)/n quantile, linear in between, clamped at the ends.
struct Quantiles {
  double q05, q25, q50, q75, q95;
};
Quantiles sample_quantiles(const std::vector<double>& sorted);

/// McCulloch's estimate (S0), alpha in [0.3, 2] (the table's range).
Params mcculloch(const Quantiles& q);
/// McCulloch's scale and location for a given (alpha, beta) (alpha below 0.3 uses 0.3's functions).
Params mcculloch_scale_loc(const Quantiles& q, double alpha, double beta);

/// Koutrouvelis' iterated regressions from `start` (S0); sets *rounds and *converged.
Params koutrouvelis(const double* x, std::size_t n, const Params& start, double tol, int max_rounds, int* rounds,
                    bool* converged);

/// Log-likelihoods of data set s under each of laws[s], for all s, in one device pass (split
/// when it would exceed `max_points` points). Values are sums of logpdf (-inf outside a support).
std::vector<std::vector<double>> loglik_many(const Context& ctx, const std::vector<const std::vector<double>*>& data,
                                             const std::vector<std::vector<Params>>& laws,
                                             std::size_t max_points = std::size_t(1) << 24);

}  // namespace clstat::stable::fit_detail
