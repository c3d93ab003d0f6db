// Fitting the alpha-stable law to data: McCulloch's (1986) quantile estimator, Koutrouvelis'
// (1980, 1981) regression on the empirical characteristic function, and maximum likelihood by a
// contracting grid over (alpha, beta) with scale and location refined at each node (Julian-Moreno
// et al. 2017, sec. 3.5) followed by Newton's method on all four parameters; every likelihood
// pass is one batched device call (stable::log_likelihood's kernel).
#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "clstat/stable.hpp"

namespace clstat::stable {

enum class FitMethod { mle, mcculloch, koutrouvelis };

struct FitOptions {
  FitMethod method = FitMethod::mle;
  /// Parameterisation of the returned location (the fit itself runs in S0, where the likelihood
  /// is smooth in alpha through 1).
  Param param = Param::S0;
  /// MLE: Newton stops when its step is below tol in alpha, beta, log(scale) and loc / scale.
  /// Koutrouvelis: the same test on its iteration. Must be in [1e-12, 1e-1].
  double tol = 1e-6;
  int max_iter = 100;
  /// MLE: after the start and each grid round or Newton step, done = rounds and steps so far,
  /// total = 4 grid rounds + max_iter, message the stage's line (the CLI prints them on stderr).
  Progress progress;
};

struct FitResult {
  Params params;           ///< the estimate, in options.param
  double loglik = 0;       ///< sum of logpdf at the estimate (also for the quantile and ECF methods)
  int iterations = 0;      ///< grid contractions plus Newton steps (MLE), regression rounds (ECF), 0 (McCulloch)
  bool converged = false;  ///< the stopping test was met (always true for McCulloch)
  /// Standard errors from the observed information (the inverse of minus the log-likelihood's
  /// Hessian, by central differences): MLE only, NaN otherwise and for a parameter at a bound
  /// (alpha = 2, beta = +-1; beta too when alpha = 2, where it has no effect). The loc's is for
  /// the returned parameterisation (delta method).
  double se_alpha = NAN, se_beta = NAN, se_scale = NAN, se_loc = NAN;
  FitMethod method = FitMethod::mle;
};

/// Fits the law to x[0 .. n). The quantile method covers alpha in [0.3, 2] (its table's range,
/// wider than McCulloch's 0.6; an estimate below is reported as 0.3); the ECF method and the MLE
/// cover alpha in [0.1, 2], beta in [-1, 1]. The MLE starts from McCulloch's estimate (or
/// Koutrouvelis' when that one is at the table's floor).
/// Cost: McCulloch O(n log n) on the host; Koutrouvelis O(n) per round, about 10 rounds, on the
/// host; the MLE about 3 grid passes of 10 n and 5 to 15 Newton steps of 37 n density
/// evaluations on the device (stable::log_likelihood's passes: from stable.interp_points values,
/// through interpolants of the 4 to 9 new (alpha, beta) a pass asks for, built together, so the
/// MLE of 1e6 values takes about 0.1 s on an H100 where the quadrature took 9 s). Throws
/// std::invalid_argument for n < 10, a non-finite value in x (naming its index), data without
/// spread (the quartiles equal), or bad options;
/// UnsupportedFeature on a device without fp64.
CLSTAT_EXPORT FitResult fit(const Context& ctx, const double* x, std::size_t n, const FitOptions& options = {});
/// Asynchronous form (clstat/runtime.hpp): x must stay valid until the Future is ready;
/// options.progress is called from the task's thread.
CLSTAT_EXPORT Future<FitResult> fit_async(const Queue& q, const double* x, std::size_t n,
                                          const FitOptions& options = {}, const std::vector<Event>& wait = {});

/// Fits each data set; the MLE's likelihood passes of all sets go to the device together, one
/// batched call per round. Results in the order of `sets`. Throws as fit, naming the set.
CLSTAT_EXPORT std::vector<FitResult> fit_many(const Context& ctx, const std::vector<std::vector<double>>& sets,
                                              const FitOptions& options = {});
/// Asynchronous form; the sets are copied before it returns.
CLSTAT_EXPORT Future<std::vector<FitResult>> fit_many_async(const Queue& q, const std::vector<std::vector<double>>& sets,
                                                            const FitOptions& options = {},
                                                            const std::vector<Event>& wait = {});

/// McCulloch's quantile functions at (alpha, beta) (alpha in [0.3, 2], beta in [-1, 1]), from
/// the committed table src/stable/mcculloch_table.inc (computed by our own quantiles),
/// interpolated bilinearly (nu_alpha and the scale's in their logarithms): {nu_alpha, nu_beta, (q75 - q25) / scale, (q50 - loc0) / scale}.
/// Throws std::invalid_argument outside that range. O(1).
CLSTAT_EXPORT std::array<double, 4> mcculloch_functions(double alpha, double beta);

}  // namespace clstat::stable
