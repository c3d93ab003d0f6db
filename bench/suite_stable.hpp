// The stable suites of clstat-bench (issue 5's shapes).
//  stable: pdf, cdf and pdf_cdf (PCDF) at N points uniform in [-20, 20], N = 1e4 ... 1e6 on GPUs
//    (1e3 on CPUs), for alpha in {0.3, 0.8, 1, 1.2, 1.5, 1.9} and beta in {0, 0.5, 1}, S0, unit
//    scale, and N = 1e7 for alpha = 1.5, beta = 0.5. Times are wall clock of the whole call
//    (points in, values out). Checks: pdf_cdf's largest relative pdf error estimate
//    (|K15 - G7| summed, over the value) below 1e-11 and its cdf's below 2e-12 absolute; pdf
//    alone and cdf alone must agree with pdf_cdf's within those bars. Quantiles at N = 1e4 and 1e5
//    probabilities (100 on CPUs), checked by |cdf(quantile(p)) - p| <= 1e-12. Random numbers at
//    1e6 ... 1e8 (1e5 on CPUs), into a host array and into a device buffer, and 1e9 into a device
//    buffer only (where it fits in half the device's memory); a Kolmogorov-Smirnov
//    test of 1e6 samples (2e4 on CPUs) against our cdf for 12 laws. MLE wall time at n = 1e3, 1e4,
//    1e5 (300 on CPUs) for three laws.
//  stable-law: many points of one law in device buffers (1e8 on GPUs, 1e6 on CPUs; all 18 laws on
//    GPUs, three on CPUs), through the law's interpolant: pdf's first call in a new context (the
//    interpolant's build included) and warm pdf (on GPUs also at 10^6), cdf and logpdf calls, each checked against the
//    quadrature on 2000 of the points (pdf and logpdf 1e-11 relative, cdf 1e-12 absolute); and
//    quantiles of 1e8 probabilities (1e5 on CPUs; host arrays), checked by the round trip.
//  stable-fit: the fit study of issue 5: 200 data sets of n = 1000 per (alpha, beta) in
//    {0.5, 1.1, 1.7} x {0, 0.7} (scale 1, loc0 0), fitted by each method (fit_many); the mean bias
//    and RMSE of each parameter. Rows: throughput = RMSE, error = bias; an MLE row passes when
//    its RMSE is at most McCulloch's for the same parameter.
#pragma once

#include "report.hpp"

namespace bench {

struct StableBenchOptions {
  int repeats = 3;
  bool large = true;  // the GPU sizes
  int study_sets = 200;
  bool peers = true;       // time scipy.stats.levy_stable beside pdf, cdf and quantile
  std::string peers_dir;   // where stable_scipy.py is
};

std::vector<Row> run_stable(const clstat::Context& ctx, const StableBenchOptions& o);
std::vector<Row> run_stable_law(const clstat::Context& ctx, const StableBenchOptions& o);
std::vector<Row> run_stable_fit_study(const clstat::Context& ctx, const StableBenchOptions& o);

}  // namespace bench
