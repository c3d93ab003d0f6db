// The primitives suite of clstat-bench: reductions up to 2^27 values and pairwise sums.
#pragma once

#include "report.hpp"

namespace bench {

struct Options {
  int repeats = 10;
  int max_log2 = 27;      // largest reduction size
  int pair_max_log2 = 17; // largest pairwise n
};

std::vector<Row> run_reductions(const clstat::Context& ctx, const clstat::Ceilings& c, const Options& o);
std::vector<Row> run_pairwise(const clstat::Context& ctx, const clstat::Ceilings& c, const Options& o);

}  // namespace bench
