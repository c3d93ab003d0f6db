// The robust-regression rows of clstat-bench (issue 7: LTS at n = 1e4..1e7 and p = 2..20), run
// with --suite robust and all (their own suite: the order suite alone takes most of 10 minutes on
// an H100).
//  Data: y = 2 + x . b + N(0, 0.1^2), x standard normal, b = (1, -1, 1/2, -1/2, ...), with 30% of
//  the rows bad leverage points (x_1 moved to 10 + N(0, 1), y shifted by 50).
//  Fit: clstat::robust::lts with alpha = 0.5 and nsamp = max(500, 15 / 0.7^p) random starts
//  (enough that some 15 clean p-subsets are expected among the nested extension's starts; 500,
//  robustbase's default, covers p <= 8).
//  Times: wall_ms is the host wall clock of the whole call, host arrays in (upload, search and the
//  final host fits included); kernel_ms is the device span of its kernels. Throughput: million rows
//  per second of wall time.
//  Check: the clean fit: every coefficient within 0.05 of the truth and every planted row flagged;
//  error = the largest coefficient error.
//  MM (robustbase::lmrob) on the same data and the MCD of the explanatory columns, with the same
//  nsamp, for n <= 1e6 and p <= 10 (both search on the host); the MCD's check: every planted row
//  flagged and its centre within 0.05 of 0.
#pragma once

#include <vector>

#include "report.hpp"

namespace bench {

struct RobustBenchOptions {
  int repeats = 3;
  bool large = true;  // n up to 1e7 and p up to 20 (GPUs); else n <= 1e5, p <= 10
  int max_log2 = 64;  // rows with n > 2^max_log2 are left out (clstat-bench --max-log2)
};

std::vector<Row> run_robust(const clstat::Context& ctx, const RobustBenchOptions& o);

}  // namespace bench
