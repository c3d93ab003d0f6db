// The stable suite of clstat-bench (issue 5's shapes, first part): pdf and cdf together
// (stable::pdf_cdf) at N points uniform in [-20, 20], N = 1e3 ... 1e6 on GPUs (1e3 on CPUs), for
// alpha in {0.3, 0.8, 1, 1.2, 1.5, 1.9} and beta in {0, 0.5, 1}, S0, unit scale. Times are wall
// clock of the whole call (points in, values out); the check is the largest relative error
// estimate of the pdf (|K15 - G7| summed, over the value). Then quantiles at N = 1e4 and 1e5
// probabilities (100 on CPUs), checked by |cdf(quantile(p)) - p| <= 1e-12; random numbers at
// 1e6 ... 1e8 (1e5 on CPUs), into a host array; a Kolmogorov-Smirnov test of 1e6 samples (2e4 on
// CPUs) against our cdf for 12 laws.
#pragma once

#include "report.hpp"

namespace bench {

struct StableBenchOptions {
  int repeats = 3;
  bool large = true;  // up to 1e6 points (GPUs)
};

std::vector<Row> run_stable(const clstat::Context& ctx, const StableBenchOptions& o);

}  // namespace bench
